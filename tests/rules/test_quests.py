"""Quest progress: quests offered by their givers, stages advanced by triggers, rewards, and hints."""

from __future__ import annotations

import random

from skald.core import events as ev
from skald.core.persistent import QuestState
from skald.core.records import MechanicResult
from skald.core.state import GameState
from skald.core.vocab import ActionClass, Outcome, Risk
from skald.rules import checks, intent, quests
from support import apply_turn, at_turn


def _turn(state: GameState, pack, text: str, outcome: Outcome | None = None) -> GameState:
    """Classify and resolve ``text``; optionally force the outcome; stage the events like the graph does."""
    router = intent.classify(text, state, pack)
    if router.action_class == ActionClass.DIALOGUE_ONLY:
        res = checks.talk_result(router, state, pack)
    else:
        res = checks.resolve(router, state, pack, random.Random(1))
    result = res.result if outcome is None else res.result.model_copy(update={"outcome": outcome})
    turn = GameState.starting(state, text)
    turn.router_output, turn.mechanic_result = router, result
    for name, value in ev.stage(turn.after, res.events, ev.limits_of(pack)).items():
        setattr(turn, name, value)
    return turn


def _quest(events, quest_id: str) -> list[dict]:
    return [e.data for e in events if isinstance(e, ev.QuestUpdate) and e.data["quest"] == quest_id]


def test_nothing_happens_without_a_resolved_turn(state, pack):
    assert quests.quest_events(state, pack) == []


def test_talking_to_a_quest_giver_offers_the_quest(state, pack):
    giver = pack.quests["short_pour"].giver
    assert pack.npcs[giver].location == state.location
    state = _turn(state, pack, "talk to the bartender")
    assert state.router_output.target_npc == giver
    assert _quest(quests.quest_events(state, pack), "short_pour") == [
        {"quest": "short_pour", "status": "offered", "stage": 0}]  # offered: taken up by a yes, or by doing it


def test_talking_to_someone_else_offers_nothing(state, pack):
    state = _turn(state, pack, "look around")
    assert quests.quest_events(state, pack) == []


def test_an_offered_quest_is_not_offered_again(state, pack):
    state.quests["short_pour"] = QuestState(id="short_pour")
    state = _turn(state, pack, "talk to the bartender")
    assert _quest(quests.quest_events(state, pack), "short_pour") == []


def test_stage_trigger_advances_the_quest(make_state, pack):
    state = make_state(location="scrip_market")
    state.quests["short_pour"] = QuestState(id="short_pour", stage=0)  # ask Juno, PERSUADE, success
    state = _turn(state, pack, "persuade Juno to explain the water cut", Outcome.SUCCESS)
    assert _quest(quests.quest_events(state, pack), "short_pour") == [
        {"quest": "short_pour", "status": "active", "stage": 1}]


def test_stage_trigger_needs_success_when_asked(make_state, pack):
    state = make_state(location="scrip_market")
    state.quests["short_pour"] = QuestState(id="short_pour", stage=0)
    state = _turn(state, pack, "persuade Juno to explain the water cut", Outcome.FAILURE)
    assert _quest(quests.quest_events(state, pack), "short_pour") == []


def test_stage_trigger_needs_the_right_action_class_and_place(make_state, pack):
    state = make_state(location="scrip_market")
    state.quests["short_pour"] = QuestState(id="short_pour", stage=0)
    state = _turn(state, pack, "talk to Juno")  # talking is not persuading
    assert _quest(quests.quest_events(state, pack), "short_pour") == []
    state = make_state(location="kettle_row")
    state.quests["short_pour"] = QuestState(id="short_pour", stage=1)  # search the Cistern Yard
    state = _turn(state, pack, "look around", Outcome.SUCCESS)
    assert _quest(quests.quest_events(state, pack), "short_pour") == []


def test_location_trigger_uses_where_the_player_ends_up(state, pack):
    state.quests["dead_drill"] = QuestState(id="dead_drill", stage=0)  # reach the Drill Graveyard
    state.location = "ash_flats"
    state.router_output = intent.classify("go to the Drill Graveyard", state, pack)
    state.mechanic_result = MechanicResult(action_class=ActionClass.TRAVEL, risk=Risk.DANGEROUS,
                                           outcome=Outcome.SUCCESS, minutes=90, summary="x")
    state.staged_events = [ev.Move(origin="ash_flats", to="drill_graveyard")]
    assert _quest(quests.quest_events(at_turn(state, pack), pack), "dead_drill") == [
        {"quest": "dead_drill", "status": "active", "stage": 1}]


def test_item_trigger_counts_an_item_gained_this_turn(make_state, pack):
    state = make_state(location="union_hall")
    state.player.inventory.pop("data_slate", None)
    state.quests["crooked_scales"] = QuestState(id="crooked_scales", stage=1)  # Bette + data slate
    state = _turn(state, pack, "talk to Bette")
    assert _quest(quests.quest_events(state, pack), "crooked_scales") == []
    state.staged_events.append(ev.ItemGet(item="data_slate", qty=1))
    assert _quest(quests.quest_events(state, pack), "crooked_scales")[0]["status"] == "completed"


def test_completion_pays_the_reward(state, pack):
    state.quests["short_pour"] = QuestState(id="short_pour", stage=2)  # tell Hesper
    state = _turn(state, pack, "talk to Hesper")
    events = quests.quest_events(state, pack)
    assert _quest(events, "short_pour") == [{"quest": "short_pour", "status": "completed", "stage": 3}]
    reward = pack.quests["short_pour"].reward
    after = apply_turn(state.persistent(), state.staged_events + events, pack, 1)
    assert after.quests["short_pour"].status == "completed"
    assert after.player.credits == state.player.credits + reward.credits
    assert after.player.inventory.get("water_ration", 0) == state.player.inventory.get("water_ration", 0) + \
        reward.items.count("water_ration")
    assert after.reputation["union"] == state.reputation["union"] + reward.reputation["union"]


def test_completed_quests_stay_completed(state, pack):
    state.quests["short_pour"] = QuestState(id="short_pour", status="completed", stage=3)
    state = _turn(state, pack, "talk to Hesper")
    assert quests.quest_events(state, pack) == []


def test_a_whole_quest_played_through(make_state, pack):
    """Short Pour from offer to reward, folding events turn by turn."""
    state = make_state()
    script = [("slag_and_lantern", "talk to the bartender", None),
              ("scrip_market", "persuade Juno to explain the water cut", Outcome.SUCCESS),
              ("cistern_yard", "look around", Outcome.SUCCESS),
              ("slag_and_lantern", "talk to Hesper", None)]
    for turn, (where, text, outcome) in enumerate(script, start=1):
        state.location = where
        state = _turn(state, pack, text, outcome)
        events = state.staged_events + quests.quest_events(state, pack)
        state = GameState(**dict(apply_turn(state.persistent(), events, pack, turn)))
    assert state.quests["short_pour"].status == "completed"


def test_attacking_or_robbing_a_quest_giver_offers_nothing(state, pack):
    for text in ("attack the bartender", "steal from Hesper"):
        s = _turn(state.model_copy(deep=True), pack, text, Outcome.SUCCESS)
        assert s.router_output.target_npc == "hesper_quill"
        assert _quest(quests.quest_events(s, pack), "short_pour") == [], text


def test_persuading_a_quest_giver_offers_the_quest(state, pack):
    state = _turn(state, pack, "persuade Hesper to tell me what is wrong", Outcome.FAILURE)
    assert _quest(quests.quest_events(state, pack), "short_pour")[0]["status"] == "offered"


# ------------------------------------------------------------------ what the wording invites, and hints


def _hints(events) -> list[str]:
    return [e.hint for e in events if isinstance(e, ev.QuestHint)]


def test_typing_the_objective_gets_a_hint_not_silence(make_state, pack):
    """Finding 7: 'Ask Juno Farrow why the water allotment was cut' is talk; the stage wants a social check, so the
    quest log says which approaches would count."""
    state = make_state(location="scrip_market")
    state.quests["short_pour"] = QuestState(id="short_pour", stage=0)
    state = _turn(state, pack, "Ask Juno Farrow why the water allotment was cut")
    events = quests.quest_events(state, pack)
    assert _quest(events, "short_pour") == []
    assert _hints(events) == ["Juno will need persuading, leaning on or a convincing story."]
    after = apply_turn(state.persistent(), state.staged_events + events, pack, 1)
    assert after.quests["short_pour"].hint == "Juno will need persuading, leaning on or a convincing story."
    again = _turn(GameState(**dict(after)), pack, "talk to Juno")
    assert _hints(quests.quest_events(again, pack)) == []  # the same hint is not staged twice


def test_every_approach_the_wording_invites_counts(make_state, pack):
    stage = pack.quests["short_pour"].stages[0].when
    assert set(stage.action_classes) == {"PERSUADE", "INTIMIDATE", "DECEIVE"}
    for text in ("persuade Juno to explain the water cut", "threaten Juno until she explains the water cut",
                 "lie to Juno that the union sent me"):
        state = make_state(location="scrip_market")
        state.quests["short_pour"] = QuestState(id="short_pour", stage=0, hint="Juno will need persuading.")
        state = _turn(state, pack, text, Outcome.SUCCESS)
        events = quests.quest_events(state, pack)
        assert _quest(events, "short_pour") == [{"quest": "short_pour", "status": "active", "stage": 1}], text
        after = apply_turn(state.persistent(), state.staged_events + events, pack, 1)
        assert after.quests["short_pour"].hint is None, "a new stage starts without the old hint"


def test_a_failed_attempt_hints_to_try_again(make_state, pack):
    state = make_state(location="scrip_market")
    state.quests["short_pour"] = QuestState(id="short_pour", stage=0)
    state = _turn(state, pack, "persuade Juno to explain the water cut", Outcome.FAILURE)
    assert _hints(quests.quest_events(state, pack)) == ["Juno is not won over yet; try again."]


def test_an_action_that_could_not_happen_never_counts(make_state, pack):
    state = make_state(location="union_hall")
    state.player.inventory.pop("data_slate", None)
    state.quests["crooked_scales"] = QuestState(id="crooked_scales", stage=1)  # Bette + data slate
    state = _turn(state, pack, "give Bette the data slate")
    assert state.mechanic_result.impossible
    events = quests.quest_events(state, pack)
    assert _quest(events, "crooked_scales") == []
    assert _hints(events) == ["Bette wants to see the data slate first."]


def test_handing_over_the_item_completes_the_stage(make_state, pack):
    state = make_state(location="union_hall")
    state.player.inventory["data_slate"] = 1
    state.quests["crooked_scales"] = QuestState(id="crooked_scales", stage=1)
    state = _turn(state, pack, "give Bette the data slate")
    assert state.router_output.action_class == ActionClass.GIVE and not state.mechanic_result.impossible
    assert _quest(quests.quest_events(state, pack), "crooked_scales")[0]["status"] == "completed"


def test_the_quest_log_shows_the_hint(make_state, pack):
    from skald import views

    state = make_state()
    state.quests["short_pour"] = QuestState(id="short_pour", stage=0, hint="Juno will need persuading.")
    [view] = views.quests(state, pack)
    assert view.hint == "Juno will need persuading."
    state.quests["short_pour"] = QuestState(id="short_pour", status="completed", stage=3, hint="stale")
    assert views.quests(state, pack)[0].hint is None


def test_a_job_offered_is_taken_up_by_a_yes_and_left_on_offer_by_a_no(tmp_path, pack):
    """Speaking to the giver offers the job; "no" leaves it on offer and pushes nothing; "deal" takes it up, and only
    then do the suggestions send the player off to keep their word."""
    from skald.engine import start_campaign
    from skald.graph import run_turn
    from skald.llm.client import LLMClient
    from skald.settings import Settings
    from skald.store.db import connect

    conn = connect(tmp_path / "offer.db")
    state = start_campaign(conn, pack, seed=3, campaign_id="offer")
    llm = LLMClient(Settings(), online=False)
    seen = []
    for line in ("talk to hesper", "no thanks", "deal"):
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm, retriever=None)
        seen.append((state.after.quests["short_pour"].status.value, state.mechanic_result.summary,
                     [s.label for s in state.suggested_actions]))
    conn.close()
    (offered, _, first), (declined, no, second), (taken, yes, third) = seen
    assert (offered, declined, taken) == ("offered", "offered", "active")
    assert any("Hesper" in s and "job" in s for s in first)  # taking it up is offered, in one phrasing or another
    assert not any("keep your word" in s.lower() for s in first + second)
    assert "not for you" in no and "You take the job and give Hesper Quill your word" in yes
    assert any("word" in s.lower() or "promise" in s.lower() for s in third)
