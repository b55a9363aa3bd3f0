"""Resolving actions: the d20 arithmetic, criticals, time costs, travel, rest, defeat, shopping, recruiting."""

from __future__ import annotations

import random

import pytest
from skald.core import events as ev
from skald.core.persistent import Combat, CompanionState
from skald.core.state import GameState
from skald.core.vocab import ActionClass, ArcStage, Outcome, Risk
from skald.rules import checks, dice, intent
from support import apply_turn

# Seeds whose turn-1 RNG rolls a natural 1 / natural 20 on its first d20 (found with dice.turn_rng).
SEED_NAT_20 = 1
SEED_NAT_1 = 7


def _resolve(state: GameState, pack, text: str, rng: random.Random) -> checks.Resolution:
    return checks.resolve(intent.classify(text, state, pack), state, pack, rng)


def _types(events) -> list[str]:
    return [e.type for e in events]


def _fold(state: GameState, pack, events) -> GameState:
    after = apply_turn(state.persistent(), events, pack, state.campaign.turn_number + 1)
    return GameState(**dict(after))


# ------------------------------------------------------------------ the arithmetic


def test_natural_roll_seeds_are_what_we_think():
    assert dice.d20(dice.turn_rng(SEED_NAT_20, 1)) == 20
    assert dice.d20(dice.turn_rng(SEED_NAT_1, 1)) == 1


@pytest.mark.parametrize("wits, modifier", [(16, 3), (10, 0), (9, -1), (20, 5), (3, -4)])
@pytest.mark.parametrize("seed", [1, 2, 3, 11])
def test_stat_modifier_is_counted_exactly_once(make_state, pack, wits, modifier, seed):
    # The Slag & Lantern has no dark/quiet tags, nobody is in the party and stress is 0: no env modifiers.
    state = make_state()
    state.player.stats["wits"] = wits
    expected_roll = dice.d20(dice.turn_rng(seed, 1))
    res = _resolve(state, pack, "look around", dice.turn_rng(seed, 1))
    r = res.result
    assert r.action_class == ActionClass.INVESTIGATE
    assert (r.stat, r.roll, r.stat_modifier, r.env_modifier) == ("wits", expected_roll, modifier, 0)
    assert r.total == expected_roll + modifier
    assert r.total == r.roll + r.stat_modifier + r.env_modifier
    assert r.margin == r.total - r.dc
    assert r.dc == 5 - 2  # SAFE in SETUP


def test_env_modifiers_add_on_top_of_the_stat_once(make_state, pack, d20):
    # The clinic is "quiet" (+1 to investigate), and high stress is -1.
    state = make_state(location="lowvent_clinic", stress=9)
    state.player.stats["wits"] = 14  # +2
    r = _resolve(state, pack, "look around", d20(10)).result
    assert (r.roll, r.stat_modifier, r.env_modifier) == (10, 2, 0)  # +1 quiet -1 stressed
    assert r.total == 12
    assert "quiet +1" in r.notes and "stressed -1" in r.notes


def test_party_bonus_is_an_env_modifier(make_state, pack, d20):
    state = make_state()
    state.companions = {"imke_solberg": CompanionState(id="imke_solberg", in_party=True)}  # INVESTIGATE +1
    state.player.stats["wits"] = 12  # +1
    r = _resolve(state, pack, "look around", d20(10)).result
    assert (r.stat_modifier, r.env_modifier, r.total) == (1, 1, 12)


def test_natural_20_beats_an_impossible_dc(make_state, pack, d20):
    # Intimidating a hostile raider in the climax with might 3: 20 - 4 - 4 = 12 against DC 19.
    state = make_state(location="glass_ridge")
    state.player.stats["might"] = 3
    state.arc_stage = ArcStage.CLIMAX
    r = _resolve(state, pack, "threaten Dagny", d20(20)).result
    assert r.action_class == ActionClass.INTIMIDATE
    assert r.total < r.dc
    assert r.outcome == Outcome.CRITICAL_SUCCESS
    assert r.outcome.succeeded


def test_natural_1_fails_an_easy_dc(make_state, pack, d20):
    state = make_state()
    state.player.stats["wits"] = 20
    r = _resolve(state, pack, "look around", d20(1)).result
    assert r.total >= r.dc  # 1 + 5 = 6 against DC 3 ...
    assert r.outcome == Outcome.CRITICAL_FAILURE  # ... still fails
    assert not r.outcome.succeeded


def test_criticals_with_real_seeded_dice(make_state, pack):
    hi = make_state(seed=SEED_NAT_20, location="glass_ridge")
    hi.player.stats["might"] = 3
    hi.arc_stage = ArcStage.CLIMAX
    r = _resolve(hi, pack, "threaten Dagny", dice.turn_rng(SEED_NAT_20, 1)).result
    assert (r.roll, r.outcome) == (20, Outcome.CRITICAL_SUCCESS)
    lo = make_state(seed=SEED_NAT_1)
    lo.player.stats["wits"] = 20
    r = _resolve(lo, pack, "look around", dice.turn_rng(SEED_NAT_1, 1)).result
    assert (r.roll, r.outcome) == (1, Outcome.CRITICAL_FAILURE)


def test_same_seed_same_result(state, pack):
    a = _resolve(state, pack, "sneak past the bartender", dice.turn_rng(5, 1))
    b = _resolve(state, pack, "sneak past the bartender", dice.turn_rng(5, 1))
    assert a.result == b.result and a.events == b.events


# ------------------------------------------------------------------ talk


def test_talk_costs_eight_minutes_and_no_roll(state, pack):
    router = intent.classify("talk to the bartender", state, pack)
    res = checks.talk_result(router, state, pack)
    assert res.result.outcome == Outcome.NO_ROLL
    assert res.result.minutes == 8
    assert res.result.roll is None and res.result.dc is None
    assert res.events[0].type == "TIME_ADVANCE" and res.events[0].data == {"minutes": 8}
    assert "Hesper Quill" in res.result.summary


def test_talk_passes_on_a_local_rumor_once(state, pack, play):
    first = play(state, "talk to the bartender")
    heard = [e.data["rumor"] for e in first.events if isinstance(e, ev.RumorHeard)]
    assert heard == ["short_water_allotment"]  # the public rumor tied to the bar
    again = play(first.after, "talk to the bartender")
    assert "short_water_allotment" not in [e.data["rumor"] for e in again.events if isinstance(e, ev.RumorHeard)]


def test_talking_to_someone_elsewhere_says_so(state, pack):
    router = intent.classify("talk to Silas Mourne", state, pack)
    res = checks.talk_result(router, state, pack)
    assert res.result.summary.startswith("Silas Mourne is not here")


def test_acting_on_someone_elsewhere_needs_no_roll(state, pack, d20):
    res = _resolve(state, pack, "threaten Silas Mourne", d20(20))
    assert res.result.roll is None
    assert "not here" in res.result.summary
    assert _types(res.events) == ["TIME_ADVANCE"]


# ------------------------------------------------------------------ travel


def test_travel_to_a_linked_location(state, pack, play):
    p = play(state, "go to Kettle Row")
    assert p.types() == ["TIME_ADVANCE", "MOVE"]
    assert p.events[0].data["minutes"] == 5  # the link's minutes
    assert p.events[1].data["to"] == "kettle_row"
    assert p.after.location == "kettle_row"
    assert p.after.world.time_minutes == state.world.time_minutes + 5


def test_travel_to_a_far_location_follows_the_shortest_route(state, pack, play):
    p = play(state, "go to the Lowvent Clinic")
    move = next(e for e in p.events if isinstance(e, ev.Move))
    assert move.data["via"] == ["kettle_row"]
    assert p.events[0].data["minutes"] == 5 + 10
    assert p.after.location == "lowvent_clinic"


def test_travel_picks_the_quicker_of_two_routes(state, pack, play, d20):
    # Bar -> Ash Flats: via the market and Cistern Yard is 5+10+15+90 = 120; via the dock 5+30+120 = 155.
    p = play(state, "go to the Ash Flats", d20(15))
    assert p.result.outcome.succeeded
    move = next(e for e in p.events if isinstance(e, ev.Move))
    assert move.data["via"] == ["kettle_row", "scrip_market", "cistern_yard"]
    assert p.result.minutes == 120
    assert p.result.risk == Risk.RISKY  # the riskiest link on the way


def test_failed_risky_travel_still_arrives_but_hurt_and_late(state, pack, play, d20):
    p = play(state, "go to the Ash Flats", d20(2))
    assert p.after.location == "ash_flats"
    assert p.result.minutes == 120 * 3 // 2
    assert "DAMAGE" in p.types()
    assert p.after.player.hp < state.player.hp


def test_travel_to_here_costs_little_and_goes_nowhere(state, pack, play):
    p = play(state, "go to the Slag & Lantern")
    assert "MOVE" not in p.types()
    assert p.after.location == state.location


def test_travel_during_combat_is_fleeing(make_state, pack, play, d20):
    state = make_state(location="ash_flats")
    state.combat = Combat(enemy_id="ash_storm", enemy_name="Ash Storm", enemy_hp=10, enemy_damage=4)
    ok = play(state, "flee to the Cistern Yard", d20(19))
    assert ok.router.action_class == ActionClass.TRAVEL
    assert ok.result.risk == Risk.DANGEROUS and ok.result.roll == 19
    assert ok.types()[:3] == ["TIME_ADVANCE", "COMBAT_END", "MOVE"]
    assert ok.after.combat is None and ok.after.location == "cistern_yard"
    bad = play(state, "flee to the Cistern Yard", d20(2))
    assert "MOVE" not in bad.types()
    assert "DAMAGE" in bad.types()
    assert bad.after.combat is not None and bad.after.location == "ash_flats"


# ------------------------------------------------------------------ rest, damage, defeat, recovery


@pytest.mark.parametrize("missing", [0, 1, 2, 100])
def test_rest_heals_but_never_above_max(make_state, pack, play, missing):
    state = make_state()
    state.player.hp = max(1, state.player.max_hp - missing)
    p = play(state, "rest")
    assert p.result.minutes == 240
    heal = next(e for e in p.events if isinstance(e, ev.Heal))
    assert heal.data["amount"] == max(1, state.player.max_hp // 4)
    assert p.after.player.hp == min(state.player.max_hp, state.player.hp + heal.data["amount"])
    assert p.after.player.hp <= p.after.player.max_hp


def test_rest_eases_stress(make_state, play):
    p = play(make_state(stress=5), "rest")
    assert p.after.player.stress == 3


def test_no_resting_in_a_fight(state, play):
    state.combat = Combat(enemy_id="x", enemy_name="Scrap Hound", enemy_hp=5, enemy_damage=3)
    p = play(state, "rest")
    assert p.result.outcome == Outcome.FAILURE
    assert "HEAL" not in p.types()
    assert p.result.minutes < 240


def test_damage_to_zero_defeats_and_recovery_brings_the_player_back(make_state, pack, play, d20):
    state = make_state(location="ash_flats", hp=1, credits=50)
    state.combat = Combat(enemy_id="claim_jumpers", enemy_name="Claim Jumpers", enemy_hp=12, enemy_damage=5)
    down = play(state, "attack the claim jumpers", d20(1))
    assert "DEFEATED" in down.types()
    assert "COMBAT_END" in down.types()
    assert down.after.player.defeated
    assert down.after.player.hp == 0  # clamped, never negative
    assert down.after.combat is None

    rule = pack.era.rules.defeat
    back = play(down.after, "look around")
    assert back.router.action_class == ActionClass.RECOVER
    assert back.result.minutes == rule.minutes
    after = back.after
    assert not after.player.defeated
    assert after.location == rule.recover_location
    assert after.player.hp == max(1, int(state.player.max_hp * rule.hp_fraction))
    assert 0 < after.player.hp <= after.player.max_hp
    assert after.player.credits == 50 - int(50 * rule.credits_lost_fraction)
    assert after.player.stress == min(down.after.player.stress + rule.stress, pack.era.rules.max_stress)


def test_overkill_damage_never_leaves_negative_hp(make_state, pack):
    state = make_state(hp=2)
    events = [checks.ev.Damage(amount=50, source="x")]
    events += checks._defeat_if_dying(state, events, pack)
    assert "DEFEATED" in _types(events)
    assert _fold(state, pack, events).player.hp == 0


def test_heal_in_the_same_turn_can_prevent_defeat(make_state, pack):
    state = make_state(hp=3)
    events = [checks.ev.Heal(amount=5, source="x"), checks.ev.Damage(amount=6, source="y")]
    assert checks._defeat_if_dying(state, events, pack) == []  # 3 + 5 = 8 - 6 = 2
    assert _fold(state, pack, events).player.hp == 2


def test_recovery_where_you_fell_does_not_move_you(make_state, pack, play):
    state = make_state(location=pack.era.rules.defeat.recover_location, hp=0, defeated=True)
    p = play(state, "get up")
    assert "MOVE" not in p.types()
    assert "RECOVERED" in p.types()
    assert not p.after.player.defeated


def test_recovery_stress_never_exceeds_max(make_state, pack, play):
    state = make_state(hp=0, defeated=True, stress=pack.era.rules.max_stress)
    p = play(state, "get up")
    assert p.after.player.stress == pack.era.rules.max_stress


# ------------------------------------------------------------------ buying


def test_buying_deducts_credits_and_adds_the_item(state, pack, play):
    price = pack.items["burn_stim"].value
    before = state.player.inventory.get("burn_stim", 0)
    p = play(state, "buy a burn stim")
    assert p.after.player.credits == state.player.credits - price
    assert p.after.player.inventory["burn_stim"] == before + 1
    assert p.result.minutes == 10


def test_buying_with_too_few_credits_changes_nothing(make_state, pack, play):
    state = make_state(credits=3)
    p = play(state, "buy a burn stim")
    assert p.types() == ["TIME_ADVANCE"]
    assert p.after.player.credits == 3
    assert p.after.player.inventory == state.player.inventory
    assert "15" in p.result.summary and "3" in p.result.summary  # says the price and what you have


def test_buying_something_not_sold_here_lists_the_stock(state, pack, play):
    p = play(state, "buy a rivet pistol")  # sold at the market, not the bar
    assert p.types() == ["TIME_ADVANCE"]
    assert "not for sale" in p.result.summary
    assert "Burn Stim" in p.result.summary
    assert p.after.player.credits == state.player.credits


# ------------------------------------------------------------------ using items


def test_using_a_healing_item_consumes_it(make_state, pack, play):
    state = make_state(hp=5)
    p = play(state, "drink my water ration")
    assert "water_ration" not in p.after.player.inventory
    assert p.after.player.hp == 5 + pack.items["water_ration"].heal


# ------------------------------------------------------------------ recruiting


def test_recruiting_the_free_companion_at_the_start_bar(state, pack, play, d20):
    assert pack.companions["rhea_calloway"].location == state.location
    assert pack.companions["rhea_calloway"].recruit.cost_credits == 0
    p = play(state, "ask Rhea Calloway to join me", d20(12))
    assert p.router.action_class == ActionClass.RECRUIT
    assert "COMPANION_JOIN" in p.types()
    assert "CREDITS_CHANGE" not in p.types()
    assert p.after.party == ["rhea_calloway"]
    assert p.after.player.credits == state.player.credits


def test_recruiting_the_paid_companion_without_the_fee(make_state, pack, play, d20):
    state = make_state(location="tether_dock", credits=10)
    fee = pack.companions["fitch_navarro"].recruit.cost_credits
    p = play(state, "ask Fitch to join me", d20(20))
    assert "COMPANION_JOIN" not in p.types()
    assert p.result.summary.startswith("Fitch Navarro will not join yet")
    assert f"their fee is {fee} credits and you have 10" in p.result.summary
    assert p.after.party == [] and p.after.player.credits == 10


def test_recruiting_the_paid_companion_with_the_fee(make_state, pack, play, d20):
    state = make_state(location="tether_dock", credits=40)
    p = play(state, "ask Fitch to join me", d20(12))
    assert "COMPANION_JOIN" in p.types()
    assert p.after.party == ["fitch_navarro"]
    assert p.after.player.credits == 40 - pack.companions["fitch_navarro"].recruit.cost_credits


def test_recruiting_a_non_companion_is_refused(state, play, d20):
    p = play(state, "ask the bartender to join me", d20(20))
    assert "COMPANION_JOIN" not in p.types()
    assert p.after.party == []


# ------------------------------------------------------------------ fights


def test_attacking_someone_starts_a_fight_and_costs_reputation(state, pack, play, d20):
    p = play(state, "attack the bartender", d20(10))
    assert "COMBAT_START" in p.types()
    rep = next(e for e in p.events if isinstance(e, ev.ReputationChange))
    assert rep.data["faction"] == "union" and rep.data["delta"] < 0


def test_attacking_a_companion_does_not_start_a_fight(state, play, d20):
    p = play(state, "attack Rhea", d20(20))
    assert "COMBAT_START" not in p.types()


def test_killing_blow_ends_the_fight_and_pays_the_bounty(make_state, pack, play, d20):
    state = make_state(location="ash_flats", credits=0)
    state.combat = Combat(enemy_id="claim_jumpers", enemy_name="Claim Jumpers", enemy_hp=1, enemy_damage=5,
                          reward_credits=20)
    p = play(state, "attack the claim jumpers", d20(18))
    assert {"ENEMY_DAMAGE", "COMBAT_END", "NPC_DEFEATED"} <= set(p.types())
    assert p.after.combat is None
    assert p.after.player.credits == 20


def test_a_knockout_in_the_turn_a_fight_starts_ends_the_fight(make_state, play, d20):
    """Finding 8: DEFEATED in the same turn as COMBAT_START left the fight standing."""
    state = make_state(location="ash_flats", hp=1)  # Gault Ferris, a hostile claim jumper
    turn = play(state, "attack Gault", d20(1))
    assert turn.types() == ["TIME_ADVANCE", "COMBAT_START", "DAMAGE", "STRESS_CHANGE", "COMBAT_END", "DEFEATED"]
    assert turn.after.player.defeated and turn.after.combat is None


def test_being_knocked_out_or_leaving_always_ends_a_fight(make_state, pack):
    from skald.core.persistent import Combat

    state = make_state(location="ash_flats")
    state.combat = Combat(enemy_id="gault_ferris", enemy_name="Gault Ferris", enemy_hp=5, enemy_damage=4)
    assert _fold(state, pack, [checks.ev.Defeated(location="ash_flats")]).combat is None
    assert _fold(state, pack, [checks.ev.Move(origin="ash_flats", to="kettle_row")]).combat is None


def test_a_bare_attack_goes_for_whoever_here_is_hostile(make_state, play, d20):
    turn = play(make_state(location="ash_flats"), "attack", d20(15))
    assert not turn.result.impossible and "Gault Ferris" in turn.result.summary
    peaceful = play(make_state(), "attack")
    assert peaceful.result.impossible and "Hesper Quill or Tobin Marsh" in peaceful.result.summary
    assert peaceful.types() == ["TIME_ADVANCE"]
