"""Companion node: affinity and loyalty, tension, banter, companion-initiated events. No LLM."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.rules import party
from skald.state import GameState


def companion(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: router_output (tone, action class), mechanic_result, companions, world. Writes: staged
    AFFINITY_CHANGE, LOYALTY_CHANGE, TENSION_CHANGE, COMPANION_LEAVE, BANTER_QUEUED, HEAL/COMPANION_ACTS."""
    pack = runtime.context.pack
    turn = state.campaign.turn_number + 1
    events = party.reactions(state, pack, state.router_output, state.mechanic_result)
    events += party.banter(state, pack, turn)
    events += party.companion_initiative(state, pack)
    return {"staged_events": events}
