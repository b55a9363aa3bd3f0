"""Story pacing: the arc stage. Thresholds are Skald's own (quest progress is ``rules.quests``).

Arc stages cycle SETUP -> RISING -> CLIMAX -> RESOLUTION -> SETUP (a new arc):
- SETUP -> RISING after 6 story turns in the stage, or as soon as a quest is active;
- RISING -> CLIMAX after 24 story turns in the stage, or when 2 quests are completed, or tension reaches 6;
- CLIMAX -> RESOLUTION after 10 story turns in the stage, or when a quest completes during the climax;
- RESOLUTION -> SETUP after 6 story turns in the stage.
"""

from __future__ import annotations

from skald.core import events as ev
from skald.core.state import GameState
from skald.core.vocab import ArcStage, QuestStatus

SETUP_TURNS, RISING_TURNS, CLIMAX_TURNS, RESOLUTION_TURNS = 6, 24, 10, 6


def next_stage(state: GameState, quest_events_now: list[ev.BaseEvent]) -> ArcStage | None:
    """The stage to move to after this turn, or None to stay."""
    in_stage = state.campaign.story_turns + 1 - state.arc_stage_turn
    updates = [e for e in quest_events_now if isinstance(e, ev.QuestUpdate)]
    completed = sum(1 for q in state.quests.values() if q.status == QuestStatus.COMPLETED)
    completing = sum(1 for e in updates if e.status == QuestStatus.COMPLETED)
    active = any(q.status == QuestStatus.ACTIVE for q in [*state.quests.values(), *updates])
    stage = state.arc_stage
    if stage == ArcStage.SETUP and (in_stage >= SETUP_TURNS or active):
        return ArcStage.RISING
    if stage == ArcStage.RISING and (in_stage >= RISING_TURNS or completed + completing >= 2
                                     or state.world.tension >= 6):
        return ArcStage.CLIMAX
    if stage == ArcStage.CLIMAX and (in_stage >= CLIMAX_TURNS or completing):
        return ArcStage.RESOLUTION
    if stage == ArcStage.RESOLUTION and in_stage >= RESOLUTION_TURNS:
        return ArcStage.SETUP
    return None
