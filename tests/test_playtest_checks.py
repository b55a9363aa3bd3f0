"""The playtest's checks and players on their own, without playing: state invariants, soft locks, repeats,
refusals, and each policy's lines (deterministic from the seed)."""

from __future__ import annotations

import random

import pytest
from skald.core import events as ev
from skald.core.persistent import CompanionState, QuestState
from skald.core.vocab import QuestStatus
from skald.playtest import ORDER, checks, invariants, policies, softlocks
from skald.playtest.runner import rng_for
from skald.rules.start import new_state


@pytest.fixture(scope="module")
def start(pack):
    return new_state(pack, seed=1, campaign_id="checks").persistent()


def _with(state, **player):
    return state.model_copy(update={"player": state.player.model_copy(update=player)})


def test_a_sound_state_breaks_nothing(start, pack):
    assert invariants.broken(start, pack, start.world.time_minutes, []) == []
    assert softlocks.soft_locks(start, pack) == []


def test_each_invariant_is_named(start, pack):
    hurt = _with(start, hp=start.player.max_hp + 3, credits=-2, stress=99, inventory={"moon_rock": 1,
                                                                                     "water_ration": 0})
    later = hurt.model_copy(update={"location": "atlantis", "reputation": {"union": 14}})
    found = {key for key, _ in invariants.broken(later, pack, later.world.time_minutes + 30, [])}
    assert found == {"hp_range", "money_negative", "stress_range", "reputation_range", "time_backwards",
                     "unknown_location", "unknown_item", "item_quantity"}


def test_a_companion_is_in_one_place(start, pack):
    cid = next(iter(pack.companions))
    moved = start.world.model_copy(update={"npc_locations": {cid: "ash_flats"}})
    with_party = start.model_copy(update={"companions": {cid: CompanionState(id=cid, in_party=True)}, "world": moved})
    assert [k for k, _ in invariants.broken(with_party, pack, None, [(cid, True)])] == ["companion_two_places"]
    waiting = pack.companions[cid].location
    elsewhere = next(loc for loc in pack.locations if loc != waiting)
    away = start.model_copy(update={"location": elsewhere})
    assert [k for k, _ in invariants.broken(away, pack, None, [(cid, True)])] == ["companion_two_places"]
    assert invariants.broken(start.model_copy(update={"location": waiting}), pack, None, [(cid, True)]) == []


def test_broke_needs_no_money_nothing_to_sell_no_work_and_no_quest_that_can_progress(start, pack):
    rough = {k: v.model_copy(update={"type": "wilds"}) for k, v in pack.locations.items()}
    sold_only = next(i for i in pack.items.values() if i.value > 0 and any(i.id in loc.shop for loc in
                                                                          pack.locations.values())
                     and not any(d.item == i.id for loc in pack.locations.values() for d in loc.discoveries)
                     and not any(i.id in q.reward.items for q in pack.quests.values()))
    quest = next(iter(pack.quests.values()))
    stage = quest.stages[0].model_copy(update={"when": quest.stages[0].when.model_copy(update={
        "item": sold_only.id, "npc": None, "location": None})})
    wild = pack.model_copy(update={"locations": rough, "quests": {quest.id: quest.model_copy(update={
        "stages": [stage]})}})
    stuck = _with(start, credits=0, inventory={}).model_copy(update={"quests": {quest.id: QuestState(
        id=quest.id, status=QuestStatus.ACTIVE)}})
    assert [k.split(":")[0] for k, _ in softlocks.soft_locks(stuck, wild)] == ["broke"]
    assert softlocks.soft_locks(_with(stuck, credits=1), wild) == []
    assert softlocks.soft_locks(_with(stuck, inventory={sold_only.id: 1}), wild) == []
    assert softlocks.soft_locks(stuck, pack) == []  # somewhere settled is within reach: work pays
    done = stuck.model_copy(update={"quests": {quest.id: QuestState(id=quest.id, status=QuestStatus.COMPLETED,
                                                                    stage=1)}})
    assert softlocks.soft_locks(done, wild) == []  # nothing left unfinished: nothing is locked


def test_repeats_are_sentences_told_again_within_fifteen_story_turns():
    seen = checks.Repeats()
    line = "The lamp over the door buzzes when the generator dips."
    assert seen.told(f"{line} You wait.", "", 1) == []
    assert [k for k, _ in seen.told(f"You sit a while. {line}", "", 4)] == [line]
    for step in range(5, 21):
        assert seen.told("Something else happens entirely today.", "Something else happens entirely today.", step) \
            == []  # the check's own outcome sentence may come back
    assert seen.told(line, "", 21) == []  # 17 story turns later: not a repeat


def test_a_refusal_is_a_defect_except_for_chaos():
    text = f"{checks.REFUSAL}: it is not something the world answers to."
    assert checks.refused(text, "whistle a tune", "chatter") == [("whistle a tune", "'whistle a tune' was answered "
                                                                 f"'{checks.REFUSAL}'")]
    assert checks.refused(text, "blorf", "chaos") == []
    assert checks.refused("Hesper nods.", "hello", "chatter") == []


def test_an_episode_won_counts_only_under_idle(pack):
    from skald.core.persistent import EpisodeEvaluation

    episode = next(iter(pack.episodes))
    won = ev.EpisodeCompleted(episode=episode, trigger="objective_met", evaluation=EpisodeEvaluation(
        share_id="x", episode=episode, title="t", number=1, trigger="objective_met", story_turns=3, first_turn=1,
        last_turn=3, summary="", playstyle="", outcome="won", next_hook=""))
    assert [k for k, _ in checks.idle_wins([won], "idle", pack)] == [episode]
    assert checks.idle_wins([won], "quester", pack) == []


def _observation(pack, state, **changes):
    seen = policies.Observation(pack, 1, state, tuple(s.label for s in state.offer), "", "", None,
                                (("hesper_quill", "Hesper Quill"),), frozenset({state.location}), frozenset(), None,
                                2000)
    return seen if not changes else policies.Observation(**{**seen.__dict__, **changes})


def test_each_policy_plays_its_own_way_and_the_seed_decides(start, pack):
    seen = _observation(pack, start)
    for name in ORDER:
        lines = [policies.make(name).choose(seen, rng_for(7)) for _ in range(3)]
        assert len(set(lines)) == 1, name  # the same seed, the same line
        assert isinstance(lines[0], str)
    assert policies.make("suggestions").choose(seen, random.Random(1)) in {"1", "2", "3", "4"}
    assert policies.make("quester").choose(seen, random.Random(1)) == "talk to Hesper Quill"  # her quest is first
    assert policies.make("quester").choose(_observation(pack, start, last_input="talk to Hesper Quill"),
                                           random.Random(1)) == "yes"
    assert policies.make("explorer").choose(seen, random.Random(1)) == "talk to Hesper Quill"
    assert policies.make("idle").choose(seen, random.Random(1)) in policies.IDLE_LINES
    assert policies.make("chatter").choose(_observation(pack, start, next_episode="x"), random.Random(1)) == "/next"


def test_chaos_types_every_kind_of_bad_line(start, pack):
    seen, rng = _observation(pack, start), random.Random(5)
    lines = [policies.make("chaos").choose(seen, rng) for _ in range(200)]
    assert any(len(x) > 2000 for x in lines) and any(1500 < len(x) <= 2000 for x in lines)
    assert any(not x.strip() for x in lines) and any("instructions" in x for x in lines)
    assert any(x == "I win the game" for x in lines)


def test_mixed_plays_the_policies_in_turn():
    assert [policies.policy_name("mixed", i) for i in range(7)] == [*ORDER, ORDER[0]]
    assert policies.policy_name("idle", 4) == "idle"
    with pytest.raises(ValueError, match="unknown policy"):
        policies.policy_name("wanderer", 0)


def test_an_outcome_the_prose_leaves_out_is_a_defect_and_so_is_a_validator_warning(pack):
    item = next(iter(pack.items.values()))
    staged = [ev.Damage(amount=3, source="ash"), ev.CreditsChange(delta=-5, reason="paid"), ev.ItemGet(item=item.id)]
    told = f"You lose 3 HP. That is 5 gone. You now carry {item.name.lower()}."
    assert checks.missing_outcome(staged, told, [], 10, 10, pack) == []
    found = checks.missing_outcome(staged, "You lose 3 HP.", ["offline: fine", "validator: prose left out what "
                                                             "changed; added: You are 5 credits poorer."], 10, 10, pack)
    keys = [k for k, _ in found]
    assert keys[-1] == "validator: prose left out what changed" and len(keys) == 3
    assert any("N" in k and "poorer" in k for k in keys[:2]) and "the prose does not tell" in found[0][1]
    healed = [ev.Heal(amount=4, source="rest")]  # HP already full: nothing regained, nothing to tell
    assert checks.missing_outcome(healed, "You rest.", [], 10, 10, pack) == []


def test_each_event_precondition_and_effect_is_checked(start, pack):
    from skald.playtest import eventcheck

    here, credits = start.location, start.player.credits
    elsewhere = next(loc for loc in pack.locations if loc != here)
    found = next((loc, d) for loc in pack.locations.values() for d in loc.discoveries)
    quest = next(q for q in pack.quests.values() if q.reward.items)
    sound = [ev.CreditsChange(delta=-1, reason="a drink"),
             ev.QuestUpdate(quest=quest.id, status=QuestStatus.COMPLETED, stage=len(quest.stages)),
             ev.ItemGet(item=quest.reward.items[0]), ev.ItemLose(item=quest.reward.items[0]), ev.StressChange(delta=1),
             ev.Move(origin=here, to=elsewhere)]
    assert eventcheck.condition_failures(start, sound, pack) == []
    planted = {
        "spent_more_than_held": ev.CreditsChange(delta=-(credits + 1), reason="too dear"),
        "item_lost_not_held": ev.ItemLose(item="water_ration", qty=start.player.inventory.get("water_ration", 0) + 1),
        "move_not_from_here": ev.Move(origin=elsewhere, to=here),
        "leave_not_in_party": ev.CompanionLeave(companion=next(iter(pack.companions))),
        "join_not_possible": ev.CompanionJoin(companion="nobody_at_all"),
        "no_fight": ev.CombatEnd(outcome="victory", enemy="nobody"),
        "discovery_not_here": ev.Discovery(discovery=found[1].id, location=found[0].id)
        if found[0].id != here else ev.Discovery(discovery="nothing", location=here),
    }
    for key, event in planted.items():
        assert [k for k, _ in eventcheck.condition_failures(start, [event], pack)] == [key], key


def test_an_item_gained_must_be_bought_here_found_or_a_reward(start, pack):
    from skald.playtest import eventcheck

    here = pack.locations[start.location]
    sold = next(i for i in here.shop) if here.shop else None
    spot, found = next((loc, d) for loc in pack.locations.values() for d in loc.discoveries if d.item)
    quest = next(q for q in pack.quests.values() if q.reward.items)
    at_spot = start.model_copy(update={"location": spot.id})
    reward = [ev.QuestUpdate(quest=quest.id, status=QuestStatus.COMPLETED, stage=len(quest.stages)),
              ev.ItemGet(item=quest.reward.items[0])]
    assert eventcheck.condition_failures(start, reward, pack) == []
    assert eventcheck.condition_failures(at_spot, [ev.Discovery(discovery=found.id, location=spot.id),
                                                   ev.ItemGet(item=found.item)], pack) == []
    if sold is not None:
        price = ev.CreditsChange(delta=-1, reason=f"bought {pack.items[sold].name}")
        rich = _with(start, credits=99)
        assert eventcheck.condition_failures(rich, [price, ev.ItemGet(item=sold)], pack) == []
    nowhere = eventcheck.condition_failures(start, [ev.ItemGet(item=found.item)], pack)
    assert [k for k, _ in nowhere] == ["item_from_nowhere"]
    twice = eventcheck.condition_failures(at_spot, [ev.Discovery(discovery=found.id, location=spot.id),
                                                    ev.ItemGet(item=found.item), ev.ItemGet(item=found.item)], pack)
    assert [k for k, _ in twice] == ["item_from_nowhere"]  # one discovery gives one
