"""WorldSim node: faction moves, rumors, news and NPC movement when a tick boundary is crossed or on travel."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.state import GameState
from skald.rules import world


def world_sim(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: world, and from after the minutes this turn took and whether the player moved. Writes: staged
    WORLD_TICK, FACTION_MOVE, NEWS, RUMOR_SPREAD, NPC_MOVE events and after. Pure: its RNG is keyed by the tick
    index."""
    minutes = state.after.world.time_minutes - state.before.world.time_minutes
    travelled = state.after.location != state.before.location
    events = world.tick_events(state, runtime.context.pack, minutes, travelled, state.variant)
    return ev.stage(state.after, events, runtime.context.limits)
