"""Companions: affinity from likes and dislikes, loyalty, tension, banter, recruitment blockers, initiative."""

from __future__ import annotations

import pytest
from skald.core import events as ev
from skald.core.persistent import BANTER_KEPT, CompanionState, QuestState
from skald.core.records import MechanicResult, RouterOutput
from skald.core.state import GameState
from skald.core.vocab import ActionClass, Intent, Outcome, Risk, Tone
from skald.rules import party
from support import apply_turn


def _router(tone: Tone, action: ActionClass) -> RouterOutput:
    return RouterOutput(intent=Intent.ACTION, action_class=action, tone=tone, text="x")


def _result(outcome: Outcome = Outcome.SUCCESS) -> MechanicResult:
    return MechanicResult(action_class=ActionClass.INTERACT, risk=Risk.SAFE, outcome=outcome, minutes=10,
                          summary="x")


def _with_party(state: GameState, *ids: str, affinity: int = 0) -> GameState:
    for cid in ids:
        state.companions[cid] = CompanionState(id=cid, in_party=True, affinity=affinity)
    return state


def _by(events, kind: str) -> dict[str, int]:
    return {e.data["companion"]: e.data["delta"] for e in events if e.type == kind}


def test_liked_tone_raises_affinity(state, pack):
    _with_party(state, "rhea_calloway")  # likes PARAGON and INTERACT
    events = party.reactions(state, pack, _router(Tone.PARAGON, ActionClass.INTERACT), _result())
    assert _by(events, "AFFINITY_CHANGE") == {"rhea_calloway": 2 * party.LIKE_DELTA}


def test_disliked_action_lowers_affinity(state, pack):
    _with_party(state, "rhea_calloway")  # dislikes DECEIVE
    events = party.reactions(state, pack, _router(Tone.RENEGADE, ActionClass.DECEIVE), _result())
    assert _by(events, "AFFINITY_CHANGE") == {"rhea_calloway": party.DISLIKE_DELTA}


def test_only_party_members_react(state, pack):
    state.companions["rhea_calloway"] = CompanionState(id="rhea_calloway", in_party=False)
    assert party.reactions(state, pack, _router(Tone.PARAGON, ActionClass.INTERACT), _result()) == []
    _with_party(state, "fitch_navarro")
    events = party.reactions(state, pack, _router(Tone.PARAGON, ActionClass.INTERACT), _result())
    assert set(_by(events, "AFFINITY_CHANGE")) == {"fitch_navarro"}


def test_indifferent_companion_does_not_react(state, pack):
    _with_party(state, "rhea_calloway")
    assert party.reactions(state, pack, _router(Tone.NEUTRAL, ActionClass.REST), _result()) == []


def test_critical_failure_takes_the_shine_off_approval(state, pack):
    _with_party(state, "rhea_calloway")
    events = party.reactions(state, pack, _router(Tone.PARAGON, ActionClass.REST), _result(Outcome.CRITICAL_FAILURE))
    assert _by(events, "AFFINITY_CHANGE") == {"rhea_calloway": party.LIKE_DELTA - 1}


def test_opposite_reactions_raise_tension(state, pack):
    _with_party(state, "rhea_calloway", "fitch_navarro")  # Rhea likes PARAGON, Fitch dislikes it
    events = party.reactions(state, pack, _router(Tone.PARAGON, ActionClass.REST), _result())
    deltas = _by(events, "AFFINITY_CHANGE")
    assert deltas["rhea_calloway"] > 0 > deltas["fitch_navarro"]
    assert [e.data["delta"] for e in events if isinstance(e, ev.TensionChange)] == [1]


def test_agreement_eases_tension_and_tension_is_capped(state, pack):
    _with_party(state, "rhea_calloway", "imke_solberg")  # both like PARAGON
    state.world.tension = 4
    events = party.reactions(state, pack, _router(Tone.PARAGON, ActionClass.REST), _result())
    assert [e.data["delta"] for e in events if isinstance(e, ev.TensionChange)] == [-1]
    _with_party(state, "fitch_navarro")
    state.world.tension = 10
    events = party.reactions(state, pack, _router(Tone.PARAGON, ActionClass.REST), _result())
    assert not [e for e in events if isinstance(e, ev.TensionChange)]


def test_loyalty_rises_when_affinity_passes_a_multiple_of_20(state, pack):
    _with_party(state, "rhea_calloway", affinity=18)
    events = party.reactions(state, pack, _router(Tone.PARAGON, ActionClass.REST), _result())
    assert _by(events, "LOYALTY_CHANGE") == {"rhea_calloway": 1}
    state.companions["rhea_calloway"].affinity = 21
    events = party.reactions(state, pack, _router(Tone.PARAGON, ActionClass.REST), _result())
    assert _by(events, "LOYALTY_CHANGE") == {}


def test_companion_leaves_when_affinity_falls_below_the_line(state, pack):
    line = pack.companions["rhea_calloway"].leave_below
    _with_party(state, "rhea_calloway", affinity=line + 1)
    events = party.reactions(state, pack, _router(Tone.RENEGADE, ActionClass.DECEIVE), _result())
    assert [e.data["companion"] for e in events if isinstance(e, ev.CompanionLeave)] == ["rhea_calloway"]


def test_affinity_change_is_clamped(state, pack):
    _with_party(state, "rhea_calloway", affinity=99)
    events = party.reactions(state, pack, _router(Tone.PARAGON, ActionClass.INTERACT), _result())
    assert _by(events, "AFFINITY_CHANGE") == {"rhea_calloway": 1}


# ------------------------------------------------------------------ banter


def test_banter_every_few_turns(state, pack):
    assert party.banter(state, pack, party.BANTER_EVERY_TURNS) == []  # nobody in the party
    _with_party(state, "rhea_calloway")
    fired = []
    for turn in range(1, 21):  # play 20 turns, folding each turn's banter
        events = party.banter(state, pack, turn)
        if events:
            fired.append(turn)
        state = GameState(**dict(apply_turn(state.persistent(), events, pack, turn)))
    assert fired == list(range(party.BANTER_EVERY_TURNS, 21, party.BANTER_EVERY_TURNS))
    assert len(state.world.banter) == BANTER_KEPT


def test_banter_timing_and_lines(state, pack):
    _with_party(state, "rhea_calloway")
    state.world.last_banter_turn = 4
    assert party.banter(state, pack, 4 + party.BANTER_EVERY_TURNS - 1) == []
    events = party.banter(state, pack, 4 + party.BANTER_EVERY_TURNS)
    assert len(events) == 1 and events[0].type == "BANTER_QUEUED"
    assert events[0].data["companion"] == "rhea_calloway"
    assert events[0].data["line"] in pack.companions["rhea_calloway"].banter


def test_banter_cycles_through_lines(state, pack):
    _with_party(state, "rhea_calloway")
    lines = []
    for turn in range(4, 4 * 6, 4):
        state.world.last_banter_turn = turn - party.BANTER_EVERY_TURNS
        lines.append(party.banter(state, pack, turn)[0].data["line"])
    assert len(set(lines)) == len(pack.companions["rhea_calloway"].banter)


# ------------------------------------------------------------------ recruitment


def test_no_blockers_for_the_free_companion(state, pack):
    assert party.recruitment_blockers(state, pack, "rhea_calloway") == []


def test_fee_blocker(state, pack):
    state.player.credits = 10
    fee = pack.companions["fitch_navarro"].recruit.cost_credits
    assert party.recruitment_blockers(state, pack, "fitch_navarro") == [
        f"their fee is {fee} credits and you have 10 credits"]
    state.player.credits = fee
    assert party.recruitment_blockers(state, pack, "fitch_navarro") == []


def test_reputation_blocker(state, pack):
    state.reputation["union"] = 0
    assert party.recruitment_blockers(state, pack, "imke_solberg") == [
        "they want you in good standing with the Ninth Shift Union (0 of 1)"]
    state.reputation["union"] = 1
    assert party.recruitment_blockers(state, pack, "imke_solberg") == []


def test_affinity_and_quest_blockers(state, pack):
    blockers = party.recruitment_blockers(state, pack, "corwin_ashe")
    assert blockers == ["they need to trust you more (affinity 0 of 5)",
                        "they want to see 'Dead Drill Walking' done first"]
    state.companions["corwin_ashe"] = CompanionState(id="corwin_ashe", affinity=5)
    state.quests["dead_drill"] = QuestState(id="dead_drill", status="active", stage=2)
    assert party.recruitment_blockers(state, pack, "corwin_ashe") == [
        "they want to see 'Dead Drill Walking' done first"]
    state.quests["dead_drill"].status = "completed"
    assert party.recruitment_blockers(state, pack, "corwin_ashe") == []


# ------------------------------------------------------------------ bonuses and initiative


def test_party_bonus_only_for_the_companions_skills(state, pack):
    assert party.party_bonus(state, pack, "ATTACK") == []
    _with_party(state, "rhea_calloway")
    assert party.party_bonus(state, pack, "ATTACK") == [("Rhea Calloway helps", 1)]
    assert party.party_bonus(state, pack, "SNEAK") == []


@pytest.mark.parametrize("hp, loyalty, heals", [(3, 1, True), (3, 0, False), (14, 1, False)])
def test_loyal_companion_patches_up_a_badly_hurt_player(state, pack, hp, loyalty, heals):
    _with_party(state, "rhea_calloway")
    state.companions["rhea_calloway"].loyalty = loyalty
    state.player.hp = hp
    events = party.companion_initiative(state, pack)
    assert (events != []) == heals
    if heals:
        assert events[0].type == "HEAL" and events[0].data["source"] == "rhea_calloway"


def test_nobody_patches_up_a_defeated_player(state, pack):
    _with_party(state, "rhea_calloway")
    state.companions["rhea_calloway"].loyalty = 3
    state.player.hp, state.player.defeated = 0, True
    assert party.companion_initiative(state, pack) == []


def test_a_companion_who_leaves_this_turn_neither_banters_nor_stays_on_stage(state, pack):
    """The companion node works from the party as the turn leaves it: Rhea walks off after a lie she will not stand
    for, so no banter of hers is queued and she is off the stage the scene and the prose are written from."""
    from types import SimpleNamespace

    from skald.core.records import PresentNpc
    from skald.nodes.companion import companion

    line = pack.companions["rhea_calloway"].leave_below
    _with_party(state, "rhea_calloway", affinity=line + 1)
    rhea = pack.companions["rhea_calloway"]
    state = state.model_copy(update={
        "router_output": _router(Tone.RENEGADE, ActionClass.DECEIVE), "mechanic_result": _result(),
        "after": state.persistent(),
        "present_npcs": [PresentNpc(id=rhea.id, name=rhea.name, role=rhea.role, description="", companion=True)]})
    assert party.banter(state.after, pack, state.turn + 4 * party.BANTER_EVERY_TURNS)  # she would banter, staying
    update = companion(state.model_copy(update={"campaign": state.campaign.model_copy(update={
        "turn_number": 4 * party.BANTER_EVERY_TURNS - 1})}), SimpleNamespace(context=SimpleNamespace(
            pack=pack, limits=ev.limits_of(pack))))
    kinds = [e.type for e in update["staged_events"]]
    assert "COMPANION_LEAVE" in kinds and "BANTER_QUEUED" not in kinds, kinds
    assert update["present_npcs"] == [] and not update["after"].party
