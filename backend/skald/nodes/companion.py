"""Companion node: affinity and loyalty, tension, banter, companion-initiated events, and how the NPC the player
dealt with feels about it. No LLM."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.state import GameState
from skald.rules import feelings, party


def companion(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: router_output (tone, action class), mechanic_result, companions, world. Writes: staged
    AFFINITY_CHANGE, LOYALTY_CHANGE, TENSION_CHANGE, COMPANION_LEAVE, BANTER_QUEUED, HEAL/COMPANION_ACTS,
    ATTITUDE_CHANGE (``rules.feelings``), after, and present_npcs when a companion leaves."""
    pack = runtime.context.pack
    staging = ev.Staging(state.after, runtime.context.limits)
    reactions = party.reactions(state, pack, state.router_output, state.mechanic_result)
    now = staging.add(*reactions)  # the party as this turn leaves it: who just left neither banters nor steps in,
    then = [*party.banter(now, pack, state.turn), *party.companion_initiative(now, pack)]  # and the lines fit here
    staging.add(*then, *feelings.after_action(state))
    gone = {e.companion for e in staging.events if isinstance(e, ev.CompanionLeave)}
    staged = staging.update()
    if gone:  # a companion who leaves walks off: not on stage for the rest of the turn (scene lines, prose)
        staged["present_npcs"] = [p for p in state.present_npcs if p.id not in gone]
    return staged
