"""Who is on stage: introductions and their throttle, caps, procedural strangers, hazards on arrival."""

from __future__ import annotations

from skald.core import events as ev
from skald.core.persistent import Combat, KnownNpc
from skald.core.state import GameState
from skald.rules import intent
from skald.rules.population import QUIET_TYPES, cast, hazard_events, procedural_npc
from support import apply_turn, at_turn


def _types(events) -> list[str]:
    return [e.type for e in events]


def _next_turn(state: GameState, pack, events) -> GameState:
    """Fold this turn's events and move the campaign on one turn."""
    after = apply_turn(state.persistent(), events, pack, state.campaign.turn_number + 1)
    after.campaign.turn_number += 1
    return GameState(**dict(after))


def _addressing(state: GameState, pack, text: str) -> GameState:
    state.router_output = intent.classify(text, state, pack)
    return state


def _empty_town(state: GameState, location: str, pack) -> None:
    """Send every pack NPC at ``location`` away (defeated), so the place has nobody from the pack."""
    state.world.defeated_npcs = [n.id for n in pack.npcs.values() if n.location == location]


def test_first_turn_introduces_one_newcomer(state, pack):
    npcs, events = cast(at_turn(state, pack), pack)
    assert _types(events) == ["NPC_MET", "NPC_INTRODUCED"]
    assert events[0].data["npc"] == "hesper_quill"  # the first pack NPC at the bar
    ids = [n.id for n in npcs]
    assert "hesper_quill" in ids and "tobin_marsh" not in ids  # one new face at a time
    assert "rhea_calloway" in ids  # the waiting companion is always addressable


def test_second_spontaneous_intro_inside_the_window_is_throttled(state, pack):
    _, events = cast(at_turn(state, pack), pack)
    state = _next_turn(state, pack, events)
    assert pack.era.rules.intro_every_turns > 1
    npcs, events = cast(at_turn(state, pack), pack)
    assert _types(events) == ["INTRO_THROTTLED"]
    assert events[0].data["npc"] == "tobin_marsh"
    assert "tobin_marsh" not in [n.id for n in npcs]
    assert "hesper_quill" in [n.id for n in npcs]  # already known, still on stage


def test_intro_is_allowed_again_after_the_window(state, pack):
    _, events = cast(at_turn(state, pack), pack)
    state = _next_turn(state, pack, events)
    for _ in range(pack.era.rules.intro_every_turns - 1):
        _, events = cast(at_turn(state, pack), pack)
        state = _next_turn(state, pack, events)
    npcs, events = cast(at_turn(state, pack), pack)
    assert _types(events) == ["NPC_MET", "NPC_INTRODUCED"]
    assert events[0].data["npc"] == "tobin_marsh"


def test_addressed_npc_is_introduced_even_when_throttled(state, pack):
    _, events = cast(at_turn(state, pack), pack)
    state = _next_turn(state, pack, events)
    state = _addressing(state, pack, "talk to Tobin")
    npcs, events = cast(at_turn(state, pack), pack)
    assert ("NPC_MET", "tobin_marsh") in [(e.type, e.data.get("npc")) for e in events]
    assert "INTRO_THROTTLED" not in _types(events)
    assert npcs[0].id == "tobin_marsh"


def test_cap_per_location_type(state, pack):
    # Crowd the clinic (cap 2) with five known pack NPCs.
    cap = pack.era.rules.encounter_caps["clinic"]
    crowd = ["sefa_lind", "hesper_quill", "tobin_marsh", "oda_brannock", "juno_farrow"]
    state.location = "lowvent_clinic"
    for npc_id in crowd:
        state.world.npc_locations[npc_id] = "lowvent_clinic"
        state.known_npcs[npc_id] = KnownNpc(id=npc_id, name=pack.npcs[npc_id].name, first_met_turn=0)
    npcs, _ = cast(at_turn(state, pack), pack)
    assert len([n for n in npcs if not n.companion]) == cap


def test_companions_do_not_count_against_the_cap(state, pack):
    from skald.core.persistent import CompanionState

    state.location = "lowvent_clinic"
    for cid in ("rhea_calloway", "fitch_navarro", "imke_solberg"):
        state.companions[cid] = CompanionState(id=cid, in_party=True)
    for npc_id in ("sefa_lind", "hesper_quill", "tobin_marsh"):
        state.world.npc_locations[npc_id] = "lowvent_clinic"
        state.known_npcs[npc_id] = KnownNpc(id=npc_id, name=pack.npcs[npc_id].name, first_met_turn=0)
    npcs, _ = cast(at_turn(state, pack), pack)
    assert len([n for n in npcs if not n.companion]) == pack.era.rules.encounter_caps["clinic"]
    assert {n.id for n in npcs if n.companion} == {"rhea_calloway", "fitch_navarro", "imke_solberg"}


def test_addressed_npc_survives_the_cap(state, pack):
    state.location = "lowvent_clinic"
    for npc_id in ("sefa_lind", "hesper_quill", "tobin_marsh", "oda_brannock"):
        state.world.npc_locations[npc_id] = "lowvent_clinic"
        state.known_npcs[npc_id] = KnownNpc(id=npc_id, name=pack.npcs[npc_id].name, first_met_turn=0)
    state = _addressing(state, pack, "talk to Oda")
    npcs, _ = cast(at_turn(state, pack), pack)
    assert "oda_brannock" in [n.id for n in npcs]


def test_procedural_npc_is_deterministic_for_seed_location_and_day(make_state, pack):
    a, b = make_state(seed=3), make_state(seed=3)
    assert procedural_npc(a, pack, "kettle_row") == procedural_npc(b, pack, "kettle_row")
    other_day = make_state(seed=3)
    other_day.world.time_minutes += 1440
    assert procedural_npc(other_day, pack, "kettle_row").id != procedural_npc(a, pack, "kettle_row").id
    names = {procedural_npc(make_state(seed=s), pack, "kettle_row").name for s in range(12)}
    assert len(names) > 3  # different campaigns meet different strangers
    stranger = procedural_npc(a, pack, "kettle_row")
    assert stranger.procedural
    assert stranger.name.split()[0] in pack.namebank.given and stranger.name.split()[1] in pack.namebank.family
    assert stranger.role in pack.namebank.roles


def test_procedural_npc_only_where_no_pack_npc_is(make_state, pack):
    for location in pack.locations:
        state = make_state(location=location)
        _, events = cast(at_turn(state, pack), pack)
        spawned = "NPC_SPAWN" in _types(events)
        has_pack_npc = any(n.location == location for n in pack.npcs.values())
        assert not (spawned and has_pack_npc), location
    state = make_state(location="lowvent_clinic")
    _empty_town(state, "lowvent_clinic", pack)
    npcs, events = cast(at_turn(state, pack), pack)
    assert _types(events) == ["NPC_SPAWN"]
    spawn = events[0].data
    assert spawn["location"] == "lowvent_clinic"
    assert spawn["npc"] == procedural_npc(state, pack, "lowvent_clinic").id
    assert [n.id for n in npcs if not n.companion] == [spawn["npc"]]


def test_procedural_stranger_stays_once_met(make_state, pack):
    state = make_state(location="lowvent_clinic")
    _empty_town(state, "lowvent_clinic", pack)
    _, events = cast(at_turn(state, pack), pack)
    state = _next_turn(state, pack, events)
    npcs, events = cast(at_turn(state, pack), pack)
    assert "NPC_SPAWN" not in _types(events)
    assert [n.id for n in npcs if not n.companion] == [procedural_npc(state, pack, "lowvent_clinic").id]


def test_no_procedural_strangers_out_in_the_wilds(make_state, pack):
    for loc in pack.locations.values():
        if loc.type in QUIET_TYPES:
            state = make_state(location=loc.id)
            _empty_town(state, loc.id, pack)
            _, events = cast(at_turn(state, pack), pack)
            assert "NPC_SPAWN" not in _types(events), loc.id


def test_procedural_spawn_is_throttled_too(make_state, pack):
    state = make_state(location="lowvent_clinic")
    _empty_town(state, "lowvent_clinic", pack)
    state.world.last_intro_turn = state.campaign.turn_number  # someone was introduced last turn
    npcs, events = cast(at_turn(state, pack), pack)
    assert _types(events) == ["INTRO_THROTTLED"]
    assert not [n for n in npcs if not n.companion]


def test_cast_uses_the_location_after_this_turns_move(state, pack):
    state.staged_events = [ev.Move(origin=state.location, to="scrip_market")]
    npcs, events = cast(at_turn(state, pack), pack)
    assert events[0].data["npc"] in {n.id for n in pack.npcs.values() if n.location == "scrip_market"}
    assert "hesper_quill" not in [n.id for n in npcs]


# ------------------------------------------------------------------ hazards


def _arriving(make_state, seed: int, turn: int, where: str = "ash_flats") -> GameState:
    state = make_state(seed=seed, location="cistern_yard")
    state.campaign.turn_number = turn
    state.staged_events = [ev.Move(origin="cistern_yard", to=where)]
    return state


def test_hazard_on_arrival_is_deterministic(make_state, pack):
    outcomes = []
    for seed in range(30):
        first = hazard_events(at_turn(_arriving(make_state, seed, 4), pack), pack)
        again = hazard_events(at_turn(_arriving(make_state, seed, 4), pack), pack)
        assert first == again
        outcomes.append(bool(first))
    assert any(outcomes) and not all(outcomes)  # chance, not certainty
    fights = [hazard_events(at_turn(_arriving(make_state, s, 4), pack), pack) for s in range(30)]
    enemies = {f[0].data["enemy_id"] for f in fights if f}
    assert enemies <= {h.id for h in pack.locations["ash_flats"].hazards}


def test_no_hazard_without_arriving_or_in_a_fight(make_state, pack):
    for seed in range(20):
        still = make_state(seed=seed, location="ash_flats")
        assert hazard_events(at_turn(still, pack), pack) == []
        fighting = _arriving(make_state, seed, 4)
        fighting.combat = Combat(enemy_id="x", enemy_name="X", enemy_hp=3, enemy_damage=2)
        assert hazard_events(at_turn(fighting, pack), pack) == []


def test_safe_places_have_no_hazards(make_state, pack):
    for seed in range(20):
        assert hazard_events(at_turn(_arriving(make_state, seed, 2, where="kettle_row"), pack), pack) == []
