"""GameState: per-turn fields are cleared at the start of each turn; persistent fields survive."""

from __future__ import annotations

from skald.packs.models import Risk, Tone
from skald.state import PER_TURN_FIELDS, PERSISTENT_FIELDS, Event, GameState, Suggestion, TurnFields


def test_fields_are_split_into_persistent_and_per_turn():
    assert PER_TURN_FIELDS.isdisjoint(PERSISTENT_FIELDS)
    assert PER_TURN_FIELDS | PERSISTENT_FIELDS == set(GameState.model_fields)
    assert {"intent", "mechanic_result", "present_npcs", "director_instructions", "final_text",
            "suggested_actions", "warnings"} <= PER_TURN_FIELDS
    assert {"campaign", "player", "companions", "world", "known_npcs", "arc_stage"} <= PERSISTENT_FIELDS


def test_begin_turn_clears_every_per_turn_field(campaign):
    dirty = campaign.model_copy(update={
        "final_text": "old prose", "warnings": ["old"], "staged_events": [Event(type="DAMAGE", data={"amount": 1})],
        "suggested_actions": [Suggestion(label="x", tone=Tone.NEUTRAL, risk=Risk.SAFE)], "quit_requested": True,
    })
    fresh = dirty.begin_turn("look around")
    defaults = TurnFields(player_input="look around")
    for name in PER_TURN_FIELDS:
        assert getattr(fresh, name) == getattr(defaults, name), name
    for name in PERSISTENT_FIELDS:
        assert getattr(fresh, name) == getattr(campaign, name), name


def test_pack_action_names_are_the_engines_action_classes():
    from typing import get_args

    from skald.packs.models import ActionName, Taste, Tone
    from skald.state import ActionClass

    engine = {a.value for a in ActionClass} - {"META", "RECOVER"}  # internal classes a designer never names
    assert set(get_args(ActionName)) == engine
    assert set(get_args(Taste)) == engine | {t.value for t in Tone}
