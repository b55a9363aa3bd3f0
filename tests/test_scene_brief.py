"""The Director/Actor scene brief (issue 14): when a scene is briefed again and when its brief is reused, the brief's
caps and the model's validation feedback, the narrator's whisper, the validator's leak and must-convey checks, and
the background brief a turn finds ready or waits for. LLM roles talk to the project's fake Ollama on loopback."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_ollama import FakeOllama, Reply, json_reply, taking_turns, text
from skald.core.brief import BRIEF_TOKENS, MARKER, BriefDraft, SceneBrief, Secret, whisper
from skald.core.pack import EraPack
from skald.core.state import GameState
from skald.engine import Engine
from skald.llm.client import LLMClient
from skald.packs.cache import PackCache
from skald.packs.loader import load_pack
from skald.rules import brief as rules
from skald.rules.start import new_state
from skald.settings import Settings
from support import script_lines

MODELS = {"director_model": "dir", "narrator_model": "nar", "suggestion_refiner_model": "ref"}
PROSE = ("You look over the bar while the generator coughs somewhere behind the wall. The regulars keep to their "
         "glasses. Heat sweats off the rock. Nobody pays you much mind. The morning shift is already late.")
OTHER_PROSE = ("You keep to the end of the bar and listen. A cup rattles on its saucer as the floor shakes. Somebody "
               "curses the lifts. The taps hiss and settle. Nobody hurries for anything.")


def draft_for(body: dict[str, Any]) -> dict[str, Any]:
    """A valid brief draft naming the people the director prompt lists (``Present: id X: Name, role.``)."""
    user = body["messages"][-1]["content"]
    ids = re.findall(r"^Present: id (\S+): ", user, re.MULTILINE)
    return {"summary": "The room waits to see what the newcomer does.", "key_facts": ["Water is short."],
            "npc_intentions": [{"npc_id": i, "wants": "a straight answer"} for i in ids[:2]],
            "suggested_topics": ["the water"]}


def director(body: dict[str, Any]) -> Reply:
    return json_reply(draft_for(body))


def refine(body: dict[str, Any]) -> Reply:
    listed = json.loads(body["messages"][1]["content"].rsplit("Suggestions to rewrite:\n", 1)[1])["suggestions"]
    return json_reply({"suggestions": listed})


@pytest.fixture
def cinder(pack: EraPack) -> EraPack:
    """cinder_reach, as conftest's session fixture loads it."""
    return pack


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(models=["dir", "nar", "ref"]) as fake:
        fake.always("dir", director).always("nar", taking_turns(PROSE, OTHER_PROSE)).always("ref", refine)
        yield fake


def online(server: FakeOllama, **kw: Any) -> LLMClient:
    settings = {"ollama_base_url": server.url, "llm": "on", "llm_timeout_s": 5.0, "retry_backoff_s": 0.01,
                "retrieval": False, **MODELS, **kw}
    return LLMClient(Settings(**settings))


# ---------------------------------------------------------------------------------------------- the scene key


def _key(state, pack) -> str:
    return rules.scene_key(state, pack)


def _changed(state, **world) -> Any:
    return state.model_copy(update={"world": state.world.model_copy(update=world)})


@pytest.mark.parametrize(("change", "rebuilds"), [
    ("nothing", False),
    ("minutes within the world tick", False),
    ("reputation", False),
    ("money and HP", False),
    ("a rumor heard", False),
    ("location", True),
    ("someone leaves the place", True),
    ("a stranger met here", True),
    ("a fight", True),
    ("a quest stage", True),
    ("an episode beat", True),
    ("a world tick", True),
])
def test_which_changes_brief_the_scene_again(cinder: EraPack, change: str, rebuilds: bool) -> None:
    state = new_state(cinder, seed=3, campaign_id="key")
    first_npc = next(n for n in cinder.npcs.values() if n.location == state.location)
    changed = {
        "nothing": lambda s: s,
        "minutes within the world tick": lambda s: _changed(s, time_minutes=s.world.time_minutes + 5),
        "reputation": lambda s: s.model_copy(update={"reputation": {**s.reputation, "union": 4}}),
        "money and HP": lambda s: s.model_copy(update={"player": s.player.model_copy(update={"credits": 1, "hp": 2})}),
        "a rumor heard": lambda s: _changed(s, known_rumors=[*s.world.known_rumors, next(iter(cinder.rumors))]),
        "location": lambda s: s.model_copy(update={"location": "kettle_row"}),
        "someone leaves the place": lambda s: _changed(s, npc_locations={first_npc.id: "kettle_row"}),
        "a stranger met here": lambda s: s.model_copy(update={"known_npcs": {**s.known_npcs, "proc_1": _stranger(
            s)}}),
        "a fight": lambda s: s.model_copy(update={"combat": _fight()}),
        "a quest stage": lambda s: s.model_copy(update={"quests": {"short_pour": _quest("short_pour", 1)}}),
        "an episode beat": lambda s: s.model_copy(update={"director": s.director.model_copy(update={
            "episode": "first_shift", "current_beat": "complication"})}),
        "a world tick": lambda s: _changed(s, tick=s.world.tick + 1),
    }[change](state)
    assert (_key(changed, cinder) != _key(state, cinder)) is rebuilds


def _stranger(state):
    from skald.core.persistent import KnownNpc

    return KnownNpc(id="proc_1", name="Vell Orrin", first_met_turn=1, procedural=True, location=state.location,
                    role="hauler", description="a tired hauler")


def _fight():
    from skald.core.persistent import Combat

    return Combat(enemy_id="ash_rat", enemy_name="an ash rat", enemy_hp=4, enemy_damage=2)


def _quest(quest_id: str, stage: int):
    from skald.core.persistent import QuestState

    return QuestState(id=quest_id, stage=stage)


def test_a_turn_that_travels_through_places_keys_the_place_it_ends_in(cinder: EraPack) -> None:
    state = new_state(cinder, seed=3, campaign_id="hops")
    hops = [state.model_copy(update={"location": place}) for place in ("kettle_row", "scrip_market")]
    assert _key(hops[-1], cinder) == _key(state.model_copy(update={"location": "scrip_market"}), cinder)
    assert len({_key(h, cinder) for h in hops}) == 2


# ---------------------------------------------------------------------------------------------- caps and schema


@pytest.mark.parametrize("pack_id", ["cinder_reach", "saltmarsh_reach"])
def test_the_rules_brief_fills_every_field_within_its_caps_everywhere(pack_id: str) -> None:
    pack = load_pack(pack_id)
    state = new_state(pack, seed=5, campaign_id="caps")
    for location in pack.locations:
        here = state.model_copy(update={"location": location})
        brief = rules.offline_brief(here, pack, 3)
        assert brief.tokens <= BRIEF_TOKENS
        assert brief.summary and brief.focus is not None and brief.focus.location == location
        assert brief.key_facts and brief.scene_key == _key(here, pack)
        people = [p for p in rules.cast_at(here, pack) if not p.companion]
        assert len(brief.npc_intentions) == min(3, len(people))
        assert all(i.wants and i.attitude for i in brief.npc_intentions)


def test_caps_are_validated() -> None:
    base = {"generated_at_turn": 1, "scene_key": "k", "summary": "One. Two. Three."}
    SceneBrief.model_validate(base)
    with pytest.raises(ValueError, match="at most 3 sentences"):
        SceneBrief.model_validate(base | {"summary": "One. Two. Three. Four."})
    with pytest.raises(ValueError):
        SceneBrief.model_validate(base | {"key_facts": ["a"] * 6})
    with pytest.raises(ValueError, match="tokens"):
        SceneBrief.model_validate(base | {"key_facts": ["x" * 150] * 5, "suggested_topics": ["y" * 150] * 3,
                                          "do_not_reveal": [{"text": "z" * 290}] * 3})
    with pytest.raises(ValueError, match="tokens"):
        BriefDraft.model_validate({"summary": "s " * 150, "key_facts": ["f" * 150] * 5, "npc_intentions": [],
                                   "suggested_topics": []})


def _campaign(tmp_path: Path, pack: EraPack, llm: LLMClient, seed: int = 3) -> Engine:
    engine = Engine(tmp_path / "t.db", llm=llm, packs=PackCache(), retriever=None)
    engine.create_campaign(pack.id, seed=seed, campaign_id="brief")
    return engine


def _settled(engine: Engine) -> None:
    """A scene that holds: the first episode (whose beats move every turn or two) played out, a walk to Kettle Row
    (a new scene) and one turn there, after which that scene is briefed in the background; wait for the brief."""
    _episode_over(engine)
    engine.play_turn("brief", "go to kettle row")
    engine.play_turn("brief", "look around")
    engine.settle()


def _episode_over(engine: Engine) -> None:
    for _ in range(12):
        engine.play_turn("brief", "look around")
        if engine.load("brief").director.episode is None:
            return
    raise AssertionError("the first episode did not end")


def test_an_over_long_brief_gets_feedback_and_a_retry(server: FakeOllama, cinder: EraPack, tmp_path: Path) -> None:
    too_long = {"summary": "The room waits. " * 2, "key_facts": ["a fact that goes on " * 7] * 5,
                "npc_intentions": [], "suggested_topics": ["a topic that goes on " * 7] * 3}

    def long_then_fixed(body: dict[str, Any]) -> Reply:  # fixed once the validation feedback is in the messages
        told = any("validation_failed" in str(m.get("content")) for m in body["messages"])
        return director(body) if told else json_reply(too_long)

    server.always("dir", long_then_fixed)
    engine = _campaign(tmp_path, cinder, online(server))
    _settled(engine)
    played = engine.play_turn("brief", "look around")
    [call] = [c for c in played.state.llm_calls if c.role == "director"]
    assert call.ok and call.attempts == 2
    assert call.feedback and call.feedback[0]["result"] == "validation_failed"
    assert "tokens" in json.dumps(call.feedback[0])
    assert played.view.brief.origin == "llm" and played.view.brief.source == "prefetched"
    assert played.view.brief.brief.summary == "The room waits to see what the newcomer does."
    engine.close()


def test_a_brief_that_never_validates_leaves_the_rules_brief_with_a_warning(server: FakeOllama, cinder: EraPack,
                                                                             tmp_path: Path) -> None:
    server.always("dir", json_reply({"summary": "One. Two. Three. Four. Five.", "key_facts": [],
                                     "npc_intentions": [], "suggested_topics": []}))
    engine = _campaign(tmp_path, cinder, online(server, breaker_failures=10))  # every brief fails: keep asking
    _settled(engine)
    played = engine.play_turn("brief", "look around")
    assert played.view.brief.origin == "offline"
    assert any("the rules' brief stands" in w for w in played.view.warnings)
    assert played.view.brief.brief.summary.startswith("Kettle Row")
    calls = len(server.chat_requests("dir"))
    engine.play_turn("brief", "look around")  # the same scene: the role is not asked again
    engine.settle()
    assert len(server.chat_requests("dir")) == calls
    engine.close()


# ---------------------------------------------------------------------------------------------- one call per scene


def test_a_thirty_turn_session_asks_the_director_once_per_scene(server: FakeOllama, cinder: EraPack,
                                                                tmp_path: Path) -> None:
    engine = _campaign(tmp_path, cinder, online(server))
    engine.settle()
    keys: list[str] = []
    before_first_token: list[int] = []
    for line in script_lines():
        seen = len(server.chat_requests())
        played = engine.play_turn("brief", line)
        bodies = server.chat_requests()[seen:]
        if played.view.brief is not None:  # a story turn (out-of-game commands are not briefed)
            narrator_at = next((i for i, b in enumerate(bodies) if b["model"] == "nar"), len(bodies))
            before_first_token.append(sum(1 for b in bodies[:narrator_at] if b["model"] == "dir"))
            keys.append(played.view.brief.scene_key)
        engine.settle()  # the background brief of the scene the turn ended in
    asked = len(server.chat_requests("dir"))
    engine.close()
    scenes = len(set(keys)) + 1  # every scene a story turn ended in, and the opening one
    assert len(keys) >= 25
    assert before_first_token == [0] * len(keys)  # the narrator never waits for a new director call
    assert asked <= scenes  # never twice for one scene
    print(f"director calls: {asked} over {len(keys)} story turns ({asked / len(keys):.2f} a turn), {scenes} scenes")
    assert asked / len(keys) <= 0.3


# ---------------------------------------------------------------------------------------------- the whisper


def test_the_narrator_gets_the_brief_as_a_marked_block_and_a_static_system_prompt(server: FakeOllama,
                                                                                  cinder: EraPack,
                                                                                  tmp_path: Path) -> None:
    engine = _campaign(tmp_path, cinder, online(server))
    for line in ("look around", "talk to the bartender", "go to the scrip market"):
        engine.settle()
        engine.play_turn("brief", line)
    engine.close()
    narrated = server.chat_requests("nar")
    assert len({b["messages"][0]["content"] for b in narrated}) == 1  # byte-identical system prompt
    assert MARKER in narrated[0]["messages"][0]["content"]  # the one standing rule names the block
    for body in narrated:
        user = body["messages"][-1]["content"]
        assert user.count(MARKER) == 1 and "[END OF SCENE BRIEF]" in user
        assert "Outcome: " in user and user.count("This turn must convey:") <= 1  # what is not said above it


# ---------------------------------------------------------------------------------------------- prose checks


def _brief(**kw: Any) -> SceneBrief:
    fields = {"generated_at_turn": 1, "scene_key": "k", "summary": "A bar."} | kw
    return SceneBrief.model_validate(fields)


RUMOR = "The union's strike fund is really a Charter account"


@pytest.mark.parametrize(("prose", "why"), [
    ("You lean on the bar. Hesper nods at the [SCENE BRIEF — DO NOT NARRATE] block.", "echoes the brief"),
    ("You lean on the bar. Per the must_convey list, you find a key.", "echoes the brief"),
    ("You lean on the bar. Your key facts are in order.", "echoes the brief"),
    ("You lean on the bar. Everyone knows the union's strike fund is really a Charter account.", "tells a secret"),
    ("You lean on the bar. Word is the union hall's water was cut in half, but that is a lie.",
     "says whether a rumor is true"),
])
def test_a_leaking_sentence_is_removed_with_a_warning(prose: str, why: str) -> None:
    brief = _brief(do_not_reveal=[Secret(text=RUMOR + "."),
                                  rules.verdict("The union hall's water was cut in half last week", False)])
    kept, warnings = rules.strip_leaks(prose, brief)
    assert kept == "You lean on the bar."
    assert len(warnings) == 1 and why in warnings[0]


def test_telling_a_rumor_is_not_a_leak_but_judging_it_is() -> None:
    brief = _brief(do_not_reveal=[rules.verdict("The union hall's water was cut in half last week", True)])
    assert not rules.leaks("Hesper says the union hall's water was cut in half last week.", brief)
    assert rules.leaks("It is true: the union hall's water was cut in half last week.", brief)


def test_a_rumor_told_in_its_own_words_is_no_verdict_though_they_hold_one() -> None:
    """A rumor whose own words hold a word of verdict ("lights false fires") is passed on, not judged."""
    story = "The keeper of the Heron Lamp went mad years ago and lights false fires on the flats himself"
    brief = _brief(do_not_reveal=[rules.verdict(story, True)])
    assert not rules.leaks(f"Corin passes something on: {story[:1].lower()}{story[1:]}.", brief)
    assert rules.leaks(f"It is a lie that {story[:1].lower()}{story[1:]}.", brief)


def test_a_required_fact_left_out_is_found() -> None:
    brief = _brief(must_convey=["You lose 3 HP.", "You now carry a brass key."])
    assert rules.unconveyed("The rat bites: 3 HP gone. You pocket the brass key.", brief) == []
    assert rules.unconveyed("The rat bites you hard.", brief) == ["You lose 3 HP.", "You now carry a brass key."]


def test_the_validator_strips_a_leak_and_adds_what_the_brief_required(server: FakeOllama, cinder: EraPack,
                                                                      tmp_path: Path) -> None:
    server.always("nar", text("You look around the bar, and the [SCENE BRIEF — DO NOT NARRATE] block says to. "
                              "The regulars keep to their glasses. Heat sweats off the rock wall. The tap drips. "
                              "Nobody looks up."))
    engine = _campaign(tmp_path, cinder, online(server))
    played = engine.play_turn("brief", "look around")
    engine.close()
    assert MARKER not in played.view.text and "SCENE BRIEF" not in played.view.text
    narrator = next(c for c in played.state.llm_calls if c.role == "narrator")  # llm.hygiene takes the bracket out
    assert any("echoes the brief" in w for w in played.view.warnings) or "stage_direction" in narrator.habits
    required = played.state.director_instructions.brief.must_convey
    assert required and rules.unconveyed(played.view.text, played.state.director_instructions.brief) == []
    assert any("did not convey what the brief required" in w for w in played.view.warnings)


def test_offline_prose_tells_every_required_fact_and_what_people_want(cinder: EraPack, tmp_path: Path) -> None:
    llm = LLMClient(Settings(llm="off", retrieval=False), online=False)
    engine = _campaign(tmp_path, cinder, llm, seed=11)
    told_wants = 0
    for line in script_lines():
        played = engine.play_turn("brief", line)
        instructions = played.state.director_instructions if played.state else None
        if instructions is None or instructions.brief is None:
            continue
        assert not [w for w in played.view.warnings if "did not convey" in w or "removed a sentence" in w]
        assert rules.unconveyed(played.view.text, instructions.brief) == []
        told_wants += any(i.wants in played.view.text for i in instructions.brief.npc_intentions)
    engine.close()
    assert told_wants >= 2


# ---------------------------------------------------------------------------------------------- prefetch


def _slow_director(delay_s: float):
    def reply(body: dict[str, Any]) -> Reply:
        return Reply(content=json.dumps(draft_for(body)), delay_s=delay_s)
    return reply


def _first_token_ms(state: GameState) -> float:
    return next(c.ttft_ms for c in state.llm_calls if c.role == "narrator")


def test_a_ready_prefetch_costs_the_next_turn_nothing_and_a_late_one_is_waited_for(server: FakeOllama,
                                                                                   cinder: EraPack,
                                                                                   tmp_path: Path) -> None:
    server.always("dir", _slow_director(0.6))
    engine = _campaign(tmp_path, cinder, online(server))
    _settled(engine)  # the scene's brief is ready before the next turn
    started = time.monotonic()
    ready = engine.play_turn("brief", "look around")
    ready_s = time.monotonic() - started
    assert ready.view.brief.source == "prefetched" and ready.view.brief.origin == "llm"

    engine.play_turn("brief", "go to the scrip market")  # a new scene
    engine.play_turn("brief", "look around")  # it holds: its brief starts in the background now
    started = time.monotonic()
    waited = engine.play_turn("brief", "look around")
    waited_s = time.monotonic() - started
    assert waited.view.brief.source == "prefetched" and waited.view.brief.origin == "llm"
    director_done = [c for c in waited.state.llm_calls if c.role == "director"]
    assert director_done and director_done[0].latency_ms >= 500  # the call it waited for
    print(f"time to first token: prefetch ready {_first_token_ms(ready.state):.0f} ms (turn {ready_s * 1000:.0f} ms); "
          f"prefetch still running {_first_token_ms(waited.state):.0f} ms (turn {waited_s * 1000:.0f} ms)")
    assert waited_s > ready_s
    engine.close()


def test_a_prefetch_that_outlasts_the_turn_budget_leaves_the_rules_brief(server: FakeOllama, cinder: EraPack,
                                                                         tmp_path: Path) -> None:
    server.always("dir", _slow_director(3.0))
    engine = _campaign(tmp_path, cinder, online(server, turn_budget_s=1.5))
    _episode_over(engine)
    engine.play_turn("brief", "go to kettle row")
    engine.play_turn("brief", "look around")  # the scene held: its brief starts after this turn
    played = engine.play_turn("brief", "look around")
    assert played.view.brief.source == "built" and played.view.brief.origin == "offline"
    assert any("still being written" in w for w in played.view.warnings)
    engine.settle()
    later = engine.play_turn("brief", "look around")  # the background brief landed for the scene
    assert later.view.brief.origin == "llm"
    engine.close()


def test_a_hung_director_never_costs_the_narrator_its_turn(server: FakeOllama, cinder: EraPack,
                                                          tmp_path: Path) -> None:
    server.always("dir", _slow_director(8.0))  # answers long after every turn below has played
    engine = _campaign(tmp_path, cinder, online(server, turn_budget_s=4.0, llm_timeout_s=10.0))
    _episode_over(engine)
    engine.play_turn("brief", "go to kettle row")
    engine.play_turn("brief", "look around")  # the scene held: its brief starts, and hangs
    first = engine.play_turn("brief", "look around")  # waits a little for it, then plays on
    second = engine.play_turn("brief", "look around")  # does not wait for it again
    for played in (first, second):
        assert played.view.brief.source == "built" and played.view.brief.origin == "offline"
        assert [(c.role, c.outcome) for c in played.state.llm_calls] == [("narrator", "ok"),
                                                                          ("suggestion_refiner", "ok")]
        assert played.view.text.startswith((PROSE, OTHER_PROSE))
    assert engine.llm.briefs.started == len(server.chat_requests("dir"))  # one call, never a second for the scene
    engine.close()


def test_resume_reads_the_stored_brief_and_asks_nobody(server: FakeOllama, cinder: EraPack, tmp_path: Path) -> None:
    engine = _campaign(tmp_path, cinder, online(server))
    _settled(engine)
    engine.play_turn("brief", "look around")
    engine.close()
    asked = len(server.chat_requests("dir"))
    again = Engine(tmp_path / "t.db", llm=online(server), packs=PackCache(), retriever=None)
    again.scene("brief")  # the "on connect" brief: the save file has it
    again.settle()
    played = again.play_turn("brief", "look around")
    again.close()
    assert len(server.chat_requests("dir")) == asked
    assert played.view.brief.source in ("stored", "cached") and played.view.brief.origin == "llm"


def test_secrets_stay_out_of_the_turn_response_but_debug_shows_them(cinder: EraPack, tmp_path: Path) -> None:
    from skald import views

    llm = LLMClient(Settings(llm="off", retrieval=False), online=False)
    engine = _campaign(tmp_path, cinder, llm)
    played = engine.play_turn("brief", "look around")
    engine.close()
    assert played.view.brief.secrets >= 1 and played.view.brief.brief.do_not_reveal == []
    assert views.debug(played.state)["brief"]["brief"]["do_not_reveal"]


def test_whisper_names_people_by_role_until_met(cinder: EraPack) -> None:
    state = new_state(cinder, seed=3, campaign_id="w").model_copy(update={"known_npcs": {}})
    brief = rules.offline_brief(state, cinder, 1)
    block = whisper(brief, rules.names_for(state, cinder))
    assert block.startswith(MARKER) and block.endswith("[END OF SCENE BRIEF]")
    assert "hesper_quill" not in block and "Hesper" not in block and "a bartender" in block
