"""GameState: per-turn fields start at their defaults on every turn; persistent fields survive; ``after`` starts as
the committed state with the next turn number."""

from __future__ import annotations

import pytest
from skald.core import events as ev
from skald.core.persistent import PERSISTENT_FIELDS, Suggestion
from skald.core.state import PER_TURN_FIELDS, GameState, TurnFields
from skald.core.vocab import Risk, Tone
from skald.graph import build_graph, run_turn


def test_fields_are_split_into_persistent_and_per_turn():
    assert PER_TURN_FIELDS.isdisjoint(PERSISTENT_FIELDS)
    assert PER_TURN_FIELDS | PERSISTENT_FIELDS == set(GameState.model_fields)
    assert {"intent", "mechanic_result", "present_npcs", "director_instructions", "final_text",
            "suggested_actions", "warnings", "after"} <= PER_TURN_FIELDS
    assert {"campaign", "player", "companions", "world", "known_npcs", "arc_stage"} <= PERSISTENT_FIELDS


class _Seen(Exception):
    pass


def test_a_turn_starts_with_every_per_turn_field_at_its_default(conn, campaign, pack, offline_llm):
    dirty = campaign.model_copy(update={
        "final_text": "old prose", "warnings": ["old"], "staged_events": [ev.Damage(amount=1, source="x")],
        "suggested_actions": [Suggestion(label="x", tone=Tone.NEUTRAL, risk=Risk.SAFE)], "quit_requested": True,
        "player_input": "look around",
    })
    seen: dict[str, GameState] = {}

    def router(state, runtime):  # the first node: what does the turn start from?
        seen["state"] = state
        raise _Seen

    with pytest.raises(_Seen):
        run_turn(conn, dirty, pack=pack, llm=offline_llm, graph=build_graph({"router": router}).compile())
    fresh = seen["state"]
    defaults = TurnFields()
    for name in TurnFields.model_fields:
        assert getattr(fresh, name) == getattr(defaults, name), name
    assert fresh.player_input == "look around"
    for name in PERSISTENT_FIELDS:
        assert getattr(fresh, name) == getattr(campaign, name), name
    assert fresh.after.campaign.turn_number == campaign.campaign.turn_number + 1
    assert fresh.after.player == campaign.player and fresh.after.world == campaign.world


def test_pack_action_names_are_the_engines_action_classes():
    from typing import get_args

    from skald.core.vocab import ActionClass, ActionName, Taste

    engine = {a.value for a in ActionClass} - {"META", "RECOVER"}  # internal classes a designer never names
    assert set(get_args(ActionName)) == engine
    assert set(get_args(Taste)) == engine | {t.value for t in Tone}
