"""Story pacing: the arc stages (quest progress is tests/rules/test_quests.py)."""

from __future__ import annotations

from skald.core import events as ev
from skald.core.persistent import QuestState
from skald.core.state import GameState
from skald.core.vocab import ArcStage
from skald.rules import arc
from support import apply_turn


def _at(state: GameState, stage: ArcStage, turns_in_stage: int) -> GameState:
    state.arc_stage = stage
    state.arc_stage_turn = 10
    state.campaign.story_turns = 10 + turns_in_stage - 1  # next turn is the turns_in_stage-th in the stage
    return state


def test_setup_to_rising_after_enough_turns_or_a_quest(state):
    assert arc.next_stage(_at(state, ArcStage.SETUP, arc.SETUP_TURNS - 1), []) is None
    assert arc.next_stage(_at(state, ArcStage.SETUP, arc.SETUP_TURNS), []) == ArcStage.RISING
    offer = ev.QuestUpdate(quest="short_pour", status="active", stage=0)
    assert arc.next_stage(_at(state, ArcStage.SETUP, 1), [offer]) == ArcStage.RISING


def test_rising_to_climax(state):
    assert arc.next_stage(_at(state, ArcStage.RISING, 5), []) is None
    assert arc.next_stage(_at(state, ArcStage.RISING, arc.RISING_TURNS), []) == ArcStage.CLIMAX
    state = _at(state, ArcStage.RISING, 2)
    state.world.tension = 6
    assert arc.next_stage(state, []) == ArcStage.CLIMAX
    state.world.tension = 0
    state.quests = {"a": QuestState(id="a", status="completed"), "b": QuestState(id="b", status="completed")}
    assert arc.next_stage(state, []) == ArcStage.CLIMAX


def test_climax_to_resolution_on_a_completed_quest(state):
    assert arc.next_stage(_at(state, ArcStage.CLIMAX, 2), []) is None
    done = ev.QuestUpdate(quest="short_pour", status="completed", stage=3)
    assert arc.next_stage(_at(state, ArcStage.CLIMAX, 2), [done]) == ArcStage.RESOLUTION
    assert arc.next_stage(_at(state, ArcStage.CLIMAX, arc.CLIMAX_TURNS), []) == ArcStage.RESOLUTION


def test_resolution_back_to_setup(state):
    assert arc.next_stage(_at(state, ArcStage.RESOLUTION, arc.RESOLUTION_TURNS - 1), []) is None
    assert arc.next_stage(_at(state, ArcStage.RESOLUTION, arc.RESOLUTION_TURNS), []) == ArcStage.SETUP


def test_a_quiet_campaign_cycles_through_every_stage(state, pack):
    """No quests, no tension: the stages follow SETUP -> RISING -> CLIMAX -> RESOLUTION -> SETUP by time."""
    seen, when = [state.arc_stage], []
    for story_turn in range(1, 60):
        stage = arc.next_stage(state, [])
        events = [ev.ArcStageChange(stage=stage.value, story_turn=story_turn)] if stage else []
        state = GameState(**dict(apply_turn(state.persistent(), events, pack, story_turn)))
        state.campaign.story_turns = story_turn
        if stage:
            seen.append(stage)
            when.append(story_turn)
    s, r, c, z = arc.SETUP_TURNS, arc.RISING_TURNS, arc.CLIMAX_TURNS, arc.RESOLUTION_TURNS
    assert when[:4] == [s, s + r, s + r + c, s + r + c + z]
    assert seen[:5] == [ArcStage.SETUP, ArcStage.RISING, ArcStage.CLIMAX, ArcStage.RESOLUTION, ArcStage.SETUP]
