"""Typed events: each event type changes the right field, with clamps, and nothing else; every type round-trips
through its stored form; a misspelt type or field is a validation error."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from skald.core import events
from skald.core.events import EVENT_TYPES, BaseEvent, Informational, from_row, limits_of, parse
from skald.core.persistent import NEWS_KEPT, PROCEDURAL_NPCS_KEPT, CompanionState
from skald.core.vocab import ArcStage
from skald.rules.start import new_state


def E(kind: str, **data) -> BaseEvent:
    return parse({"type": kind, **data})


@pytest.fixture
def state(pack):
    return new_state(pack, seed=7, campaign_id="test7")


@pytest.fixture
def fold(state, pack):
    def run(*staged: BaseEvent, s=None, turn: int = 1):
        base = (s or state).persistent()
        base = base.model_copy(update={"campaign": base.campaign.model_copy(update={"turn_number": turn})})
        return events.fold(base, list(staged), limits_of(pack))

    return run


def test_time_advance(fold, state):
    assert fold(E("TIME_ADVANCE", minutes=25)).world.time_minutes == state.world.time_minutes + 25


def test_damage_and_heal_clamp_to_zero_and_max(fold, state):
    assert fold(E("DAMAGE", amount=4, source="x")).player.hp == state.player.max_hp - 4
    assert fold(E("DAMAGE", amount=999, source="x")).player.hp == 0
    hurt_then_healed = fold(E("DAMAGE", amount=5, source="x"), E("HEAL", amount=2, source="rest"))
    assert hurt_then_healed.player.hp == state.player.max_hp - 3
    assert fold(E("HEAL", amount=999, source="rest")).player.hp == state.player.max_hp


def test_stress_clamps(fold, pack):
    assert fold(E("STRESS_CHANGE", delta=3)).player.stress == 3
    assert fold(E("STRESS_CHANGE", delta=-3)).player.stress == 0
    assert fold(E("STRESS_CHANGE", delta=99)).player.stress == pack.era.rules.max_stress


def test_credits_never_go_negative(fold, state):
    assert fold(E("CREDITS_CHANGE", delta=10)).player.credits == state.player.credits + 10
    assert fold(E("CREDITS_CHANGE", delta=-10_000)).player.credits == 0


def test_items_get_and_lose(fold, state):
    s = fold(E("ITEM_GET", item="patch_kit", qty=2))
    assert s.player.inventory["patch_kit"] == 2
    s = fold(E("ITEM_GET", item="patch_kit", qty=2), E("ITEM_LOSE", item="patch_kit", qty=1))
    assert s.player.inventory["patch_kit"] == 1
    s = fold(E("ITEM_LOSE", item="water_ration", qty=1))
    assert "water_ration" not in s.player.inventory  # removed at 0, not left as a 0 row
    s = fold(E("ITEM_LOSE", item="hand_lamp", qty=5))
    assert "hand_lamp" not in s.player.inventory  # never negative
    s = fold(E("ITEM_LOSE", item="valve_key", qty=1))
    assert "valve_key" not in s.player.inventory
    assert all(q > 0 for q in s.player.inventory.values())


def test_move(fold):
    assert fold(E("MOVE", origin="slag_and_lantern", to="kettle_row")).location == "kettle_row"


def test_defeated_and_recovered(fold, state):
    down = fold(E("DEFEATED", location="kettle_row"))
    assert down.player.defeated and down.player.hp == 0
    up = fold(E("RECOVERED", hp=7, location="lowvent_clinic"), s=down)
    assert not up.player.defeated and up.player.hp == 7
    assert fold(E("RECOVERED", hp=999, location="x"), s=down).player.hp == state.player.max_hp
    assert fold(E("RECOVERED", hp=0, location="x"), s=down).player.hp == 1


def test_reputation_clamps(fold):
    assert fold(E("REPUTATION_CHANGE", faction="union", delta=2)).reputation["union"] == 2
    assert fold(E("REPUTATION_CHANGE", faction="union", delta=50)).reputation["union"] == 10
    assert fold(E("REPUTATION_CHANGE", faction="union", delta=-50)).reputation["union"] == -10


def test_combat_lifecycle(fold):
    s = fold(E("COMBAT_START", enemy_id="ash_storm", enemy_name="Ash Storm", enemy_hp=10, enemy_damage=4,
               reward_credits=0))
    assert s.combat is not None and (s.combat.enemy_hp, s.combat.round) == (10, 1)
    s = fold(E("ENEMY_DAMAGE", amount=3, enemy="ash_storm"), s=s)
    assert (s.combat.enemy_hp, s.combat.round) == (7, 2)
    assert fold(E("ENEMY_DAMAGE", amount=99, enemy="ash_storm"), s=s).combat.enemy_hp == 0
    assert fold(E("COMBAT_END", outcome="victory", enemy="ash_storm"), s=s).combat is None
    assert fold(E("ENEMY_DAMAGE", amount=3, enemy="x")).combat is None  # no fight, no effect


def test_npc_defeated_is_recorded_once(fold):
    s = fold(E("NPC_DEFEATED", npc="gault_ferris"), E("NPC_DEFEATED", npc="gault_ferris"))
    assert s.world.defeated_npcs == ["gault_ferris"]


def test_npc_met_and_introduced(fold):
    s = fold(E("NPC_MET", npc="hesper_quill", name="Hesper Quill"), E("NPC_INTRODUCED", npc="hesper_quill"),
             turn=5)
    assert s.known_npcs["hesper_quill"].first_met_turn == 5
    assert s.world.last_intro_turn == 5
    again = fold(E("NPC_MET", npc="hesper_quill", name="Hesper Quill"), s=s, turn=9)
    assert again.known_npcs["hesper_quill"].first_met_turn == 5  # meeting again changes nothing


def test_npc_spawn_keeps_a_bounded_list(fold, state):
    s = state
    for i in range(PROCEDURAL_NPCS_KEPT + 5):
        s = fold(E("NPC_SPAWN", npc=f"proc_{i}", name=f"P {i}", location="kettle_row", role="r", description="d"),
                 s=s, turn=i + 1)
    procedural = [k for k in s.known_npcs.values() if k.procedural]
    assert len(procedural) == PROCEDURAL_NPCS_KEPT
    assert "proc_0" not in s.known_npcs and f"proc_{PROCEDURAL_NPCS_KEPT + 4}" in s.known_npcs
    assert s.world.last_intro_turn == PROCEDURAL_NPCS_KEPT + 5


def test_npc_move(fold):
    assert fold(E("NPC_MOVE", npc="tobin_marsh", to="kettle_row")).world.npc_locations == {"tobin_marsh": "kettle_row"}


def test_world_tick_never_goes_backwards(fold, state):
    assert fold(E("WORLD_TICK", tick=state.world.tick + 2)).world.tick == state.world.tick + 2
    assert fold(E("WORLD_TICK", tick=0)).world.tick == state.world.tick


def test_faction_power_clamps(fold, state):
    assert fold(E("FACTION_MOVE", faction="union", delta=1)).world.faction_power["union"] == \
        state.world.faction_power["union"] + 1
    assert fold(E("FACTION_MOVE", faction="charter", delta=50)).world.faction_power["charter"] == 10
    assert fold(E("FACTION_MOVE", faction="rustwake", delta=-50)).world.faction_power["rustwake"] == 0


def test_news_is_bounded(fold):
    s = fold(*[E("NEWS", text=f"news {i}", tick=i) for i in range(NEWS_KEPT + 3)])
    assert len(s.world.news) == NEWS_KEPT
    assert s.world.news[-1] == f"news {NEWS_KEPT + 2}"


def test_rumors_spread_and_heard_once(fold, state):
    s = fold(E("RUMOR_SPREAD", rumor="meter_bypass"), E("RUMOR_SPREAD", rumor="meter_bypass"),
             E("RUMOR_HEARD", rumor="meter_bypass", source="x"), E("RUMOR_HEARD", rumor="meter_bypass", source="y"))
    assert s.world.public_rumors.count("meter_bypass") == 1
    assert s.world.known_rumors == ["meter_bypass"]


def test_discovery_once(fold):
    s = fold(E("DISCOVERY", discovery="tab_ledger", location="x"), E("DISCOVERY", discovery="tab_ledger", location="x"))
    assert s.world.discoveries == ["tab_ledger"]


def test_companion_events(fold, state):
    s = fold(E("COMPANION_JOIN", companion="rhea_calloway"), turn=3)
    assert s.companions["rhea_calloway"].in_party and s.companions["rhea_calloway"].joined_turn == 3
    assert s.party == ["rhea_calloway"]
    s = fold(E("AFFINITY_CHANGE", companion="rhea_calloway", delta=500), s=s)
    assert s.companions["rhea_calloway"].affinity == 100
    s = fold(E("AFFINITY_CHANGE", companion="rhea_calloway", delta=-500), s=s)
    assert s.companions["rhea_calloway"].affinity == -100
    s = fold(E("LOYALTY_CHANGE", companion="rhea_calloway", delta=99), s=s)
    assert s.companions["rhea_calloway"].loyalty == 10
    s = fold(E("COMPANION_LEAVE", companion="rhea_calloway", reason="affinity"), s=s)
    assert s.party == []


def test_tension_clamps(fold, state):
    state.world.tension = 9
    assert fold(E("TENSION_CHANGE", delta=5)).world.tension == 10
    assert fold(E("TENSION_CHANGE", delta=-50)).world.tension == 0


def test_banter_is_bounded_and_stamped(fold):
    s = fold(*[E("BANTER_QUEUED", companion="rhea_calloway", line=f"line {i}") for i in range(5)], turn=8)
    assert s.world.banter == ["rhea_calloway|line 2", "rhea_calloway|line 3", "rhea_calloway|line 4"]
    assert s.world.last_banter_turn == 8


def test_quest_update_and_arc_stage(fold):
    s = fold(E("QUEST_UPDATE", quest="short_pour", status="active", stage=1),
             E("ARC_STAGE", stage="RISING", story_turn=4))
    assert (s.quests["short_pour"].status, s.quests["short_pour"].stage) == ("active", 1)
    assert s.arc_stage == ArcStage.RISING and s.arc_stage_turn == 4


def test_informational_events_change_nothing(fold, state):
    staged = [E("INTRO_THROTTLED", npc="x"), E("COMPANION_ACTS", companion="x", act="y")]
    assert all(isinstance(e, Informational) for e in staged)
    after = fold(*staged, turn=state.campaign.turn_number)
    assert after == state.persistent()


def test_unknown_event_type_is_a_validation_error():
    with pytest.raises(ValidationError, match="BOGUS"):
        E("BOGUS")
    with pytest.raises(ValidationError, match="amount"):
        E("DAMAGE", amont=3, source="x")  # a misspelt field is no default either
    with pytest.raises(ValidationError, match="Field required"):
        E("DAMAGE", source="x")


def test_every_known_event_has_a_class():
    assert {"DAMAGE", "HEAL", "MOVE", "QUEST_UPDATE", "WORLD_TICK"} <= set(EVENT_TYPES)
    assert all(cls.model_fields["type"].default == kind for kind, cls in EVENT_TYPES.items())


EXAMPLES: dict[str, dict] = {
    "TIME_ADVANCE": {"minutes": 10}, "DAMAGE": {"amount": 2, "source": "route"},
    "HEAL": {"amount": 3, "source": "rest"},
    "STRESS_CHANGE": {"delta": 1}, "CREDITS_CHANGE": {"delta": -2, "reason": "a drink"},
    "ITEM_GET": {"item": "patch_kit", "qty": 1}, "ITEM_LOSE": {"item": "patch_kit", "qty": 1},
    "MOVE": {"origin": "slag_and_lantern", "to": "scrip_market", "via": ["kettle_row"]},
    "DEFEATED": {"location": "ash_flats"}, "RECOVERED": {"hp": 6, "location": "lowvent_clinic"},
    "REPUTATION_CHANGE": {"faction": "union", "delta": 1, "reason": "helped"},
    "COMBAT_START": {"enemy_id": "ash_storm", "enemy_name": "Ash Storm", "enemy_hp": 8, "enemy_damage": 4,
                     "reward_credits": 3, "description": "Grit in the air."},
    "ENEMY_DAMAGE": {"amount": 3, "enemy": "ash_storm"}, "COMBAT_END": {"outcome": "fled", "enemy": "ash_storm"},
    "NPC_DEFEATED": {"npc": "gault_ferris"}, "NPC_MET": {"npc": "hesper_quill", "name": "Hesper Quill"},
    "NPC_SPAWN": {"npc": "proc_x_1", "name": "Ada Vell", "location": "kettle_row", "role": "hawker",
                  "description": "Sells everything."},
    "NPC_INTRODUCED": {"npc": "hesper_quill"}, "INTRO_THROTTLED": {"npc": "tobin_marsh"},
    "NPC_MOVE": {"npc": "tobin_marsh", "to": "kettle_row"}, "WORLD_TICK": {"tick": 3},
    "FACTION_MOVE": {"faction": "charter", "delta": -1, "rival_of": "union"}, "NEWS": {"text": "A strike.", "tick": 3},
    "EVENT_FIRED": {"event": "walkout", "once": True, "tick": 3, "factions": ["union"]},
    "RUMOR_SPREAD": {"rumor": "meter_bypass"}, "RUMOR_HEARD": {"rumor": "meter_bypass", "source": "hesper_quill"},
    "DISCOVERY": {"discovery": "tab_ledger", "location": "slag_and_lantern"},
    "AFFINITY_CHANGE": {"companion": "rhea_calloway", "delta": 3},
    "LOYALTY_CHANGE": {"companion": "rhea_calloway", "delta": 1}, "COMPANION_JOIN": {"companion": "rhea_calloway"},
    "COMPANION_LEAVE": {"companion": "rhea_calloway", "reason": "affinity"},
    "COMPANION_ACTS": {"companion": "rhea_calloway", "act": "patches you up"}, "TENSION_CHANGE": {"delta": 1},
    "BANTER_QUEUED": {"companion": "rhea_calloway", "line": "Keep moving.", "banter": "dust_talk"},
    "QUEST_UPDATE": {"quest": "short_pour", "status": "completed", "stage": 3},
    "QUEST_HINT": {"quest": "short_pour", "stage": 0, "hint": "Juno will need persuading."},
    "ARC_STAGE": {"stage": "CLIMAX", "story_turn": 12},
    "EPISODE_STARTED": {"episode": "first_shift", "number": 1, "reason": "first"},
    "EPISODE_TURN": {"signal": "bold", "tension": 0.35, "quest_steps": 1, "defeated": False},
    "BEAT_REACHED": {"beat": "pivot", "turn_count": 6, "reason": "position"},
    "FLAG_SET": {"flag": "skim_found", "source": "quest:short_pour:search_yard"},
    "EPISODE_COMPLETED": {"episode": "first_shift", "trigger": "turn_limit", "evaluation": {
        "share_id": "3fdab45676", "episode": "first_shift", "title": "First Shift", "number": 1,
        "trigger": "turn_limit", "story_turns": 8, "first_turn": 1, "last_turn": 8, "summary": "It went.",
        "key_moments": [{"turn": 2, "line": "A fight broke out."}], "playstyle": "the Brawler",
        "playstyle_scores": {"violent": 1.0}, "outcome": "won", "tension_curve": [0.2, 0.9],
        "next_episode": "waking_drill", "next_title": "Dead Drill Walking", "next_hook": "Go.",
        "written_by": "offline"}},
    "SCENE_OPENED": {"scene": "tab_dispute", "goal": "Settle who pays.", "location": "slag_and_lantern",
                     "characters": ["hesper_quill", "rhea_calloway"], "max_beats": 6, "minutes": 500,
                     "reason": "group"},
    "SCENE_BEAT": {"scene": "tab_dispute", "beat": 1, "lines": [
        {"beat": 1, "speaker": "player", "name": "Wren", "target": "all", "action": "player", "content": "Well?"},
        {"beat": 1, "speaker": "hesper_quill", "name": "Hesper Quill", "target": "rhea_calloway", "action": "speak",
         "tone": "dry", "content": "Pay the tab.", "nonverbal": "sets down a glass"}],
        "stalled": False, "notes": {"rhea_calloway": "You are too passive."}, "tokens": 42},
    "SCENE_CLOSED": {"scene": "tab_dispute", "reason": "goal", "goal_achieved": True, "beats": 3, "tokens": 90,
                     "minutes": 24},
    "ATTITUDE_CHANGE": {"npc": "hesper_quill", "delta": -2, "mood": "insulted", "reason": "deceive failed"},
}


def test_examples_cover_every_event_type():
    assert set(EXAMPLES) == set(EVENT_TYPES)


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_every_event_type_round_trips_through_its_stored_form(kind, fold):
    event = E(kind, **EXAMPLES[kind])
    assert type(event) is EVENT_TYPES[kind]
    assert event.data == EXAMPLES[kind]  # the stored JSON has the same field names as the event
    again = from_row(event.type, event.model_dump_json(exclude={"type"}))
    assert again == event and parse(event.model_dump_json()) == event
    fold(event)  # and it applies to a fresh campaign without error


def test_apply_does_not_mutate_its_input(state, pack):
    state.companions["rhea_calloway"] = CompanionState(id="rhea_calloway", in_party=True)
    before = state.persistent()
    snapshot = before.model_dump()
    events.fold(before, [E("DAMAGE", amount=3, source="x"), E("ITEM_GET", item="patch_kit"),
                         E("ITEM_LOSE", item="hand_lamp"), E("AFFINITY_CHANGE", companion="rhea_calloway", delta=5),
                         E("REPUTATION_CHANGE", faction="union", delta=1), E("NEWS", text="n", tick=1),
                         E("NPC_MOVE", npc="tobin_marsh", to="kettle_row"),
                         E("MOVE", origin="slag_and_lantern", to="kettle_row")], limits_of(pack))
    assert before.model_dump() == snapshot


def test_events_fold_in_order(fold, state):
    s = fold(E("DAMAGE", amount=state.player.max_hp, source="x"), E("HEAL", amount=3, source="rest"))
    assert s.player.hp == 3
    s = fold(E("HEAL", amount=3, source="rest"), E("DAMAGE", amount=state.player.max_hp, source="x"))
    assert s.player.hp == 0
