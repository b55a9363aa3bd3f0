"""Encounter node: who is on stage, introductions (throttled), procedural strangers, arrival hazards."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.state import GameState
from skald.rules import population


def encounter(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: after.location, known_npcs, world, router_output. Writes: present_npcs, staged NPC_MET / NPC_SPAWN /
    NPC_INTRODUCED / INTRO_THROTTLED / COMBAT_START events, and after."""
    pack = runtime.context.pack
    present, events = population.cast(state, pack)
    events += population.hazard_events(state, pack)
    return {"present_npcs": present} | ev.stage(state.after, events, runtime.context.limits)
