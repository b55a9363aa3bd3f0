"""Companion node: affinity and loyalty, tension, banter, companion-initiated events, and how the NPC the player
dealt with feels about it. No LLM."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald import events as ev
from skald.context import TurnContext
from skald.rules import feelings, party
from skald.state import GameState


def companion(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: router_output (tone, action class), mechanic_result, companions, world. Writes: staged
    AFFINITY_CHANGE, LOYALTY_CHANGE, TENSION_CHANGE, COMPANION_LEAVE, BANTER_QUEUED, HEAL/COMPANION_ACTS,
    ATTITUDE_CHANGE (``rules.feelings``), and after."""
    pack = runtime.context.pack
    events = party.reactions(state, pack, state.router_output, state.mechanic_result)
    events += party.banter(state, pack, state.turn)
    events += party.companion_initiative(state, pack)
    events += feelings.after_action(state)
    return ev.stage(state.after, events, runtime.context.limits)
