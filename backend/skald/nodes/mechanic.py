"""Mechanic node: resolve an ACTION with a d20 check and stage its events."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.state import GameState
from skald.rules import checks


def mechanic(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: router_output, player, arc_stage, combat, location. Writes: mechanic_result, staged_events
    (TIME_ADVANCE first; DAMAGE, HEAL, ITEM_GET/LOSE, CREDITS_CHANGE, MOVE, REPUTATION_CHANGE, ...) and after.
    Dice come from the context RNG, seeded by (campaign seed, turn number)."""
    res = checks.resolve(state.router_output, state, runtime.context.pack, runtime.context.rng)
    return {"mechanic_result": res.result} | ev.stage(state.after, res.events, runtime.context.limits)
