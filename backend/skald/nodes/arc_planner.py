"""Arc Planner node: quest progress and the arc stage (SETUP -> RISING -> CLIMAX -> RESOLUTION)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.state import GameState
from skald.rules import arc, quests


def arc_planner(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: quests, router_output, mechanic_result, staged events, after.location, arc_stage, story turn count.
    Writes: staged QUEST_UPDATE (+ reward CREDITS_CHANGE / ITEM_GET / REPUTATION_CHANGE), QUEST_HINT and ARC_STAGE, and
    after."""
    events = quests.quest_events(state, runtime.context.pack)
    stage = arc.next_stage(state, events)
    if stage is not None:
        events.append(ev.ArcStageChange(stage=stage, story_turn=state.before.campaign.story_turns + 1))
    return ev.stage(state.after, events, runtime.context.limits)
