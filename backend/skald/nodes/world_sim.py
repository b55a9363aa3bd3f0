"""WorldSim node: faction moves, rumors, news and NPC movement when a tick boundary is crossed or on travel."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.rules import world
from skald.state import GameState


def world_sim(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: world, staged TIME_ADVANCE and MOVE events. Writes: world_ticked and staged WORLD_TICK,
    FACTION_MOVE, NEWS, RUMOR_SPREAD, NPC_MOVE events. Pure: its RNG is keyed by the tick index."""
    minutes = sum(e.data["minutes"] for e in state.staged_events if e.type == "TIME_ADVANCE")
    travelled = any(e.type == "MOVE" for e in state.staged_events)
    events = world.tick_events(state, runtime.context.pack, minutes, travelled)
    return {"staged_events": events, "world_ticked": any(e.type == "WORLD_TICK" for e in events)}
