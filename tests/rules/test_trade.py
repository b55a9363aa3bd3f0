"""Buying, selling and giving (finding 1 of the newcomer session: they were narrated as successes and did nothing)."""

from __future__ import annotations

import random

import pytest
from skald import views
from skald.core.vocab import ActionClass
from skald.meta_commands import status_line
from skald.packs.loader import load_pack
from skald.rules import checks, intent, trade
from skald.rules.start import new_state


def test_selling_an_item_pays_a_share_of_its_value_by_attitude(make_state, play, pack):
    state = make_state(location="scrip_market")  # Juno (neutral) and Oda (neutral); a market with a shop
    state.player.inventory["claim_beacon"] = 1
    value = pack.items["claim_beacon"].value
    turn = play(state, "sell my claim beacon to Oda")
    assert turn.router.action_class == ActionClass.SELL and not turn.result.impossible
    price = int(value * trade.SALE_SHARE["neutral"])
    assert "claim_beacon" not in turn.after.player.inventory
    assert turn.after.player.credits == state.player.credits + price
    assert f"{price} credits" in turn.result.summary and "Oda Brannock" in turn.result.summary


def test_a_friendly_buyer_pays_more_and_a_wary_one_less(make_state, play):
    friendly = make_state(location="slag_and_lantern")
    friendly.player.inventory["ore_sample"] = 1
    wary = make_state(location="slagside")
    wary.player.inventory["ore_sample"] = 1
    gain = {}
    for name, state, text in (("friendly", friendly, "sell my ore sample to Hesper"),
                              ("wary", wary, "sell my ore sample to Gideon")):
        turn = play(state, text)
        gain[name] = turn.after.player.credits - state.player.credits
        assert not turn.result.impossible, turn.result.summary
    assert gain["friendly"] > gain["wary"] > 0


@pytest.mark.parametrize(("where", "text", "why"), [
    ("scrip_market", "sell my rebreather", "You do not carry the rebreather"),
    ("kettle_row", "sell my hand lamp", "Nobody in Kettle Row is buying"),
    ("slag_and_lantern", "sell", "Sell what? You carry"),
    ("scrip_market", "sell my claim beacon to Rhea", "Rhea Calloway is not here"),
])
def test_a_sale_the_rules_cannot_make_says_why_and_changes_nothing(make_state, play, where, text, why):
    state = make_state(location=where)
    turn = play(state, text)
    assert turn.result.impossible and why in turn.result.summary, turn.result.summary
    assert turn.after.player.inventory == state.player.inventory
    assert turn.after.player.credits == state.player.credits
    assert turn.types() == ["TIME_ADVANCE"]


def test_a_hostile_person_will_not_deal(make_state, play):
    state = make_state(location="ash_flats")  # Gault Ferris, a hostile claim jumper
    state.player.inventory["ore_sample"] = 1
    turn = play(state, "sell my ore sample to Gault")
    assert turn.result.impossible and "will not deal with you" in turn.result.summary


def test_giving_money_takes_it_from_the_purse_and_earns_goodwill(state, play):
    turn = play(state, "give Hesper 10 credits")
    assert turn.router.action_class == ActionClass.GIVE and not turn.result.impossible
    assert turn.after.player.credits == state.player.credits - 10
    assert turn.after.reputation["union"] == state.reputation.get("union", 0) + 1  # Hesper's faction
    assert "10 credits" in turn.result.summary


def test_a_small_gift_is_taken_without_changing_standing(state, play):
    turn = play(state, "give Hesper 2 credits")
    assert turn.after.reputation == state.reputation


def test_giving_an_item_hands_it_over(state, play):
    state.player.inventory["water_ration"] = 2
    turn = play(state, "give Tobin a water ration")
    assert turn.after.player.inventory["water_ration"] == 1
    assert "Tobin Marsh" in turn.result.summary


def test_a_gift_to_a_party_companion_raises_their_affinity(state, play, pack):
    from skald.core.persistent import CompanionState

    state.companions["rhea_calloway"] = CompanionState(id="rhea_calloway", in_party=True, affinity=0)
    turn = play(state, "give Rhea 10 credits")
    assert turn.after.companions["rhea_calloway"].affinity == 2 + 10 // 5


@pytest.mark.parametrize(("text", "why"), [
    ("give Juno 10 credits", "Juno Farrow is not here"),
    ("give Hesper 100000 credits", "you have"),
    ("give Hesper the rebreather", "You do not carry the rebreather"),
    ("give Hesper", "Give what?"),
])
def test_a_gift_the_rules_cannot_make_says_why_and_changes_nothing(state, play, text, why):
    turn = play(state, text)
    assert turn.result.impossible and why in turn.result.summary, turn.result.summary
    assert turn.after.player == state.player
    assert turn.types() == ["TIME_ADVANCE"]


def test_prices_are_in_the_packs_currency():
    """Finding 9: saltmarsh_reach counts in greys; no player-facing line says credits."""
    salt = load_pack("saltmarsh_reach")
    state = new_state(salt, seed=1)
    shop = next(loc for loc in salt.locations.values() if loc.shop)
    state.location = shop.id
    item = salt.items[shop.shop[0]]
    router = intent.classify(f"buy {item.name.lower()}", state, salt)
    res = checks.resolve(router, state, salt, random.Random(0))
    assert res.result.summary.endswith(f"{item.value} {'grey' if item.value == 1 else 'greys'}.")
    view = views.status(state, salt)
    assert view.money == f"{state.player.credits} greys" and "credit" not in status_line(view)


@pytest.mark.parametrize("line", ["give tobin the control core", "give Tobin the core", "hand the core to tobin",
                                  "give the bartender the core", "give hesper my drill core"])
def test_a_thing_is_named_by_part_of_its_name_with_the_person_in_the_same_line(make_state, pack, line):
    """The person the thing goes to is not read as another thing ("give tobin the control core" is the drill control
    core, to Tobin), as a stranger found."""
    state = make_state(location="slag_and_lantern", inventory={"drill_core": 1, "hand_lamp": 1})
    routed = intent.classify(line, state, pack)
    assert routed.action_class == ActionClass.GIVE and routed.target_item == "drill_core", routed


@pytest.mark.parametrize(("line", "count"), [("buy two fungus buns", 2), ("buy 3 fungus buns", 3),
                                             ("buy a couple of fungus buns", 2), ("buy a fungus bun", 1),
                                             ("buy a pair of ash goggles", 1)])
def test_a_purchase_buys_as_many_as_it_says_and_pays_for_each(make_state, play, pack, line, count):
    state = make_state(location="slag_and_lantern", credits=40)
    if "goggles" in line:
        state.location = "scrip_market"
    done = play(state, line)
    item = "ash_goggles" if "goggles" in line else "fungus_bun"
    assert done.after.player.inventory.get(item, 0) - state.player.inventory.get(item, 0) == count
    assert state.player.credits - done.after.player.credits == pack.items[item].value * count


def test_more_than_the_purse_holds_is_refused_naming_the_price_each(make_state, play):
    state = make_state(location="slag_and_lantern", credits=5)
    done = play(state, "buy four fungus buns")
    assert done.result.impossible and "3 credits each" in done.result.summary
    assert done.after.player.credits == 5


def test_a_thing_pointed_at_is_the_one_last_turn_spoke_of(make_state, pack):
    from skald.core.persistent import TurnSummary

    state = make_state(location="slag_and_lantern", credits=40)
    state.recent = [TurnSummary(turn=1, input="how much are the fungus buns", action_class="DIALOGUE_ONLY",
                                outcome="NO_ROLL", location="slag_and_lantern",
                                sentences=["Hesper Quill tells you that the fungus bun is 3 credits here."])]
    for line in ("ill take one of those", "i'll have two", "i will take a couple of them please"):
        router = intent.classify(line, state, pack)
        res = checks.resolve(router, state, pack, random.Random(0))
        assert "fungus bun" in res.result.summary and not res.result.impossible, (line, res.result.summary)
