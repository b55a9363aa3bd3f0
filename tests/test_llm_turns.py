"""Whole turns through the real graph with the online LLM client talking to a fake Ollama.

Each role has its own model name (director "dir", narrator "nar", refiner "ref"), so the fake answers per role.
Inside a turn only the narrator and the refiner are called; the director writes a scene's brief in the background once
a turn commits in the scene it started in, and its call is reported with the first turn that uses the brief
(``play_settled`` waits for those background briefs between turns, so every request belongs to a known turn).
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_ollama import FakeOllama, Gate, Reply, hang, held, http_error, json_reply, prompt_tokens, taking_turns, text
from skald.core.brief import END_MARKER, MARKER
from skald.core.pack import EraPack
from skald.core.state import GameState
from skald.engine import start_campaign
from skald.graph import PIPELINE, run_turn, stream_turn
from skald.llm import prompts
from skald.llm.client import LLMClient
from skald.llm.hygiene import sentences
from skald.packs.loader import load_pack
from skald.settings import Settings
from skald.store.db import connect
from skald.store.reads import rendered_turns
from support import SLACK_S

MODELS = {"director_model": "dir", "narrator_model": "nar", "suggestion_refiner_model": "ref"}
TONES = ["PARAGON", "INVESTIGATE", "RENEGADE", "NEUTRAL"]
BRIEF = {"summary": "The room is loud and the tin stays quiet.",  # the director's reply: a core.brief.BriefDraft
         "key_facts": ["A loose tile behind the taps hides something."], "npc_intentions": [],
         "suggested_topics": ["who has been skimming the water"]}
BRIEFED_WITHIN = 12  # "look around" turns of seed 3 before one uses a brief the director wrote in the background
PROSE = ("You crouch behind the taps and work a loose tile free. Beneath it sits a dented cash tin. "
         "Inside are 15 credits and a folded note about short water. The bar keeps up its noise around you. "
         "Nobody seems to have seen you take it.")
FIRST_SENTENCE = "You crouch behind the taps and work a loose tile free."
OTHER_PROSE = ("You lean on the bar and let the talk wash over you. Somebody is arguing about water again. "
               "The screen over the door flickers through the shift board. Nobody looks your way for long.")
REFINED = {"PARAGON": "Offer to share the find with the bar", "INVESTIGATE": "Read the note about the water again",
           "RENEGADE": "Pocket the tin and say nothing", "NEUTRAL": "Order a drink and listen"}


def sent_suggestions(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The Director's suggestions, as the refiner prompt lists them (in the first user message)."""
    return json.loads(body["messages"][1]["content"].rsplit("Suggestions to rewrite:\n", 1)[1])["suggestions"]


def refine(body: dict[str, Any]) -> Reply:
    """A well-behaved refiner: same tones and risks, new labels."""
    return json_reply({"suggestions": [{"label": REFINED[s["tone"]], "tone": s["tone"], "risk": s["risk"]}
                                       for s in sent_suggestions(body)]})


def swap_first_two_tones(body: dict[str, Any]) -> Reply:
    items = [{"label": REFINED[s["tone"]], "tone": s["tone"], "risk": s["risk"]} for s in sent_suggestions(body)]
    items[0]["tone"], items[1]["tone"] = items[1]["tone"], items[0]["tone"]
    return json_reply({"suggestions": items})


@pytest.fixture(scope="module")
def cinder() -> EraPack:
    return load_pack("cinder_reach")


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(models=["dir", "nar", "ref"]) as fake:
        fake.always("dir", json_reply(BRIEF)).always("nar", text(PROSE)).always("ref", refine)
        yield fake


def play(db: Path, cinder: EraPack, llm: LLMClient, *inputs: str) -> tuple[Any, GameState]:
    conn = connect(db)
    state = start_campaign(conn, cinder, seed=3, campaign_id="llm-turns")
    for line in inputs:
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=cinder, llm=llm)
    return conn, state


@dataclasses.dataclass
class Settled:
    """Turns played one at a time, each followed by the background brief it started (if any): per turn, the state,
    the models asked during the turn and the models asked after it (the director's background call)."""

    conn: Any
    states: list[GameState]
    during: list[list[str]]
    after: list[list[str]]

    def first_briefed(self) -> int:
        """The index of the first turn that used a brief written in the background (its llm_calls report it)."""
        return next(i for i, s in enumerate(self.states) if s.director_instructions.brief_source == "prefetched")


def hold_background_briefs(llm: LLMClient) -> threading.Event:
    """Make every background brief wait, before its first request, until the returned event is set: a test then
    counts the requests a turn made before any background request can land among them (on a busy machine the
    brief's thread, started as the turn ends, could otherwise send its first request before ``run_turn`` returns)."""
    released = threading.Event()
    start = llm.briefs.start

    def held(campaign: str, key: str, job):
        def when_released():
            assert released.wait(60), "the test never released the background brief"
            return job()
        return start(campaign, key, when_released)

    llm.briefs.start = held
    return released


def play_settled(db: Path, cinder: EraPack, llm: LLMClient, server: FakeOllama, inputs: list[str],
                 until_briefed: bool = False) -> Settled:
    """Play ``inputs`` one turn at a time, waiting after each for the brief it started (``llm.briefs.settle``);
    with ``until_briefed``, stop after the first turn that uses a brief written in the background. The requests a
    turn made and those its background brief made are told apart by holding the brief until the turn's are
    counted (:func:`hold_background_briefs`), not by how fast the turn returned."""
    conn = connect(db)
    state = start_campaign(conn, cinder, seed=3, campaign_id="llm-turns")
    played = Settled(conn, [], [], [])
    released = hold_background_briefs(llm)
    for line in inputs:
        released.clear()
        before = len(server.chat_requests())
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=cinder, llm=llm)
        middle = len(server.chat_requests())
        released.set()
        llm.briefs.settle()
        models = [b["model"] for b in server.chat_requests()]
        played.states.append(state)
        played.during.append(models[before:middle])
        played.after.append(models[middle:])
        if until_briefed and state.director_instructions.brief_source == "prefetched":
            break
    return played


def brief_block(body: dict[str, Any]) -> str:
    """The scene brief of a narrator request (its user side, between the markers)."""
    user = body["messages"][1]["content"]
    assert user.count(MARKER) == 1 and user.count(END_MARKER) == 1
    return user[user.index(MARKER):user.index(END_MARKER) + len(END_MARKER)]


def online(server: FakeOllama, timeout_s: float = 30.0) -> LLMClient:
    """A client of the fake. Nothing here is about time unless a test says so: the role timeout and the turn budget
    are upper bounds a busy machine never reaches, and the breakers' clock stands still, so a circuit a test opened
    stays open however slowly the test runs (tests of timeouts set their own)."""
    return LLMClient(Settings(ollama_base_url=server.url, llm="on", llm_timeout_s=timeout_s, retry_backoff_s=0.01,
                              turn_budget_s=max(120.0, 4 * timeout_s), **MODELS), clock=lambda: 1000.0)


def test_every_role_answers(server: FakeOllama, cinder: EraPack, tmp_path: Path) -> None:
    conn, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    assert state.campaign.turn_number == 1
    assert state.final_text == PROSE
    shown = state.director_instructions  # the first turn has no brief from the model yet: the rules wrote it
    assert shown is not None and shown.brief is not None
    assert (shown.brief_source, shown.brief_origin) == ("built", "offline")
    assert not [w for w in state.warnings if w.startswith(("director", "narrator", "suggestion_refiner"))]
    assert [s.label for s in state.suggested_actions] == [REFINED[t] for t in TONES]
    assert [s.tone.value for s in state.suggested_actions] == TONES
    # one call per turn role, in graph order (the director is never called inside a turn); the narrator sees the
    # scene brief, the refiner the narration
    assert [b["model"] for b in server.chat_requests()] == ["nar", "ref"]
    [nar] = server.chat_requests("nar")
    assert shown.brief.summary in brief_block(nar)
    assert cinder.era.style.strip() in nar["messages"][0]["content"]
    [ref] = server.chat_requests("ref")
    assert PROSE in ref["messages"][1]["content"]
    assert ref["format"]["required"] == ["suggestions"]
    # the stored turn carries the same text, suggestions and one metric per role
    [row] = rendered_turns(conn, state.campaign.id)
    assert row["text"] == PROSE
    assert [s["label"] for s in row["suggestions"]] == [REFINED[t] for t in TONES]
    assert [(c["role"], c["model"], c["ok"]) for c in row["llm_calls"]] == [
        ("narrator", "nar", True), ("suggestion_refiner", "ref", True)]
    assert all(isinstance(c["latency_ms"], float) and c["latency_ms"] >= 0 for c in row["llm_calls"])
    assert [(c["outcome"], c["attempts"], c["retries"], c["feedback"]) for c in row["llm_calls"]] == [
        ("ok", 1, 0, [])] * 2
    # usage as the model reported it (the fake's prompt_eval_count and eval_count), and ttft for the stream
    bodies = server.chat_requests()
    assert [c["prompt_tokens"] for c in row["llm_calls"]] == [prompt_tokens(b) for b in bodies]
    assert [c["completion_tokens"] for c in row["llm_calls"]] == [
        len(PROSE.split()), len(refine(bodies[1]).content.split())]
    narrated = row["llm_calls"][0]
    assert narrated["ttft_ms"] is not None and 0 <= narrated["ttft_ms"] <= narrated["latency_ms"]


def test_the_directors_brief_is_written_after_a_turn_and_reported_with_the_turn_that_uses_it(
        server: FakeOllama, cinder: EraPack, tmp_path: Path) -> None:
    server.always("nar", taking_turns(PROSE, OTHER_PROSE))  # a narrator that never tells two turns alike
    llm = online(server)
    played = play_settled(tmp_path / "t.db", cinder, llm, server, ["look around"] * BRIEFED_WITHIN, until_briefed=True)
    used = played.first_briefed()
    # never the director inside a turn (the turn that ends the episode also asks the evaluator's default model)
    assert all([m for m in models if m in MODELS.values()] == ["nar", "ref"] for models in played.during)
    asked = [i for i, models in enumerate(played.after) if models]
    assert asked and all(played.after[i] == ["dir"] for i in asked)  # one call per brief, after a turn committed
    assert all(not played.states[i].director_instructions.scene_changed for i in asked)  # a scene the turn stayed in
    assert asked[-1] == used - 1  # the brief the turn used was written right after the turn before it
    for i, state in enumerate(played.states[:used]):  # a turn reports the director's call made after the turn
        # before it, whether or not it uses that brief (the turn that ends the episode also reports the evaluator's)
        assert [c.role for c in state.llm_calls if c.role != "evaluator"] == ["director"] * (i - 1 in asked) + [
            "narrator", "suggestion_refiner"], i
    state = played.states[used]
    shown = state.director_instructions
    assert (shown.brief_source, shown.brief_origin) == ("prefetched", "llm")
    assert shown.brief.summary == BRIEF["summary"] and shown.brief.key_facts == BRIEF["key_facts"]
    assert not [w for w in state.warnings if w.startswith(("director", "narrator", "suggestion_refiner"))]
    # the director's request: structured output (a BriefDraft), built from the scene the turn before left
    director = server.chat_requests("dir")[-1]
    assert set(director["format"]["required"]) == {"summary", "key_facts", "npc_intentions", "suggested_topics"}
    # it starts with the narrator's request of the turn before, up to its recent turns, byte for byte (Ollama serves
    # that from the narrator's cache), then asks for the brief, improving on the one the narrator had
    system, user = (m["content"] for m in director["messages"])
    heads = [r["messages"][1]["content"].split("\n\nThis turn:")[0] for r in server.chat_requests("nar")
             if r["messages"][0]["content"] == system]
    assert any(user.startswith(head + "\n\nTurn ") for head in heads)
    assert prompts.DIRECTOR_AFTER_NARRATOR in user and MARKER in user
    # the narrator of the turn that uses it reads the model's brief, in the marked block
    block = brief_block(server.chat_requests("nar")[-1])
    assert BRIEF["summary"] in block and BRIEF["key_facts"][0] in block
    # the call is on record with that turn, ahead of the turn's own calls, once
    rows = rendered_turns(played.conn, state.campaign.id)
    assert [(c["role"], c["model"], c["ok"], c["outcome"]) for c in rows[used]["llm_calls"]] == [
        ("director", "dir", True, "ok"), ("narrator", "nar", True, "ok"), ("suggestion_refiner", "ref", True, "ok")]
    assert rows[used]["llm_calls"][0]["prompt_tokens"] == prompt_tokens(director)
    assert sum(c["role"] == "director" for r in rows for c in r["llm_calls"]) == len(asked)
    # the next turn in the same scene reuses the brief: no new call, nothing reported again
    again = run_turn(played.conn, state.model_copy(update={"player_input": "look around"}), pack=cinder, llm=llm)
    llm.briefs.settle()
    assert again.director_instructions.brief.scene_key == shown.brief.scene_key  # between episodes: one scene
    assert (again.director_instructions.brief_source, again.director_instructions.brief_origin) == ("cached", "llm")
    assert [c.role for c in again.llm_calls] == ["narrator", "suggestion_refiner"]
    assert len(server.chat_requests("dir")) == len(asked)
    played.conn.close()


def test_refined_suggestions_keep_the_directors_tones_risks_and_actions(server: FakeOllama, cinder: EraPack,
                                                                        tmp_path: Path) -> None:
    _, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    sent = sent_suggestions(server.chat_requests("ref")[0])
    assert len(state.suggested_actions) == 4
    assert [(s.tone.value, s.risk.value) for s in state.suggested_actions] == [(s["tone"], s["risk"]) for s in sent]
    assert all(s.action_class for s in state.suggested_actions)


@pytest.mark.parametrize("reply", [
    Reply(content=PROSE + "\nOptions:\n1. Pocket the tin\n2. Put it back"),
    Reply(content=PROSE + "\n1. Pocket the tin\n2. Put it back"),
    Reply(content=PROSE + "\n\n**What do you do?**"),
], ids=["options_heading", "bare_list", "what_do_you_do"])
def test_narration_is_cleaned(server: FakeOllama, cinder: EraPack, tmp_path: Path, reply: Reply) -> None:
    server.always("nar", reply)
    _, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    assert state.final_text == PROSE
    narrator = next(c for c in state.llm_calls if c.role == "narrator")
    assert narrator.ok and "option_list" in narrator.habits  # stripped by llm.hygiene, and recorded


INVALID = "suggestion_refiner: fallback after 1 validation issue(s) after 3 attempt(s)"


@pytest.mark.parametrize(("reply", "warning", "requests"), [
    (json_reply({"suggestions": [{"label": "Wait", "tone": "PARAGON", "risk": "SAFE"}]}), INVALID, 3),
    (text("Here are four better options for you!"), INVALID, 3),
    (swap_first_two_tones, "suggestion_refiner: reply changed a tone or risk", 1),
    (http_error(500), "suggestion_refiner: fallback after ResponseError: internal server error (status code: 500)",
     3),
], ids=["schema_fails", "not_json", "tone_changed", "http_500"])
def test_invalid_refiner_reply_keeps_the_directors_suggestions(server: FakeOllama, cinder: EraPack, tmp_path: Path,
                                                               reply: Any, warning: str, requests: int) -> None:
    server.always("ref", reply)
    conn, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    sent = sent_suggestions(server.chat_requests("ref")[0])
    assert len(server.chat_requests("ref")) == requests  # feedback attempts, or transient retries
    assert [s.model_dump(include={"label", "tone", "risk"}, mode="json") for s in state.suggested_actions] == sent
    assert [w for w in state.warnings if w.startswith("suggestion_refiner")] == [
        w for w in state.warnings if w.startswith(warning)] != []
    assert state.final_text == PROSE
    [row] = rendered_turns(conn, state.campaign.id)
    assert [s["label"] for s in row["suggestions"]] == [s["label"] for s in sent]


def test_refiner_feedback_in_a_turn(server: FakeOllama, cinder: EraPack, tmp_path: Path) -> None:
    """A refiner reply that fails validation gets feedback, and its corrected reply is used."""
    server.queue("ref", json_reply({"suggestions": []}))
    conn, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    assert [s.label for s in state.suggested_actions] == [REFINED[t] for t in TONES]
    assert not [w for w in state.warnings if w.startswith("suggestion_refiner")]
    first, second = server.chat_requests("ref")
    feedback = json.loads(second["messages"][-1]["content"])
    assert feedback["issues"]["invalid"][0]["field"] == "suggestions" and feedback["issue_count"] == 1
    [row] = rendered_turns(conn, state.campaign.id)
    [refined] = [c for c in row["llm_calls"] if c["role"] == "suggestion_refiner"]
    assert (refined["ok"], refined["attempts"], refined["feedback"]) == (True, 2, [feedback])


def test_every_call_failing_still_commits_with_offline_prose(server: FakeOllama, cinder: EraPack,
                                                             tmp_path: Path) -> None:
    for model in ("dir", "nar", "ref"):
        server.always(model, http_error(500))
    llm = online(server)
    failing = play_settled(tmp_path / "online.db", cinder, llm, server, ["look around"] * BRIEFED_WITHIN,
                           until_briefed=True)
    turns = len(failing.states)
    offline_llm = LLMClient(Settings(**MODELS), online=False)
    offline = play_settled(tmp_path / "offline.db", cinder, offline_llm, server, ["look around"] * turns)
    assert [s.campaign.turn_number for s in failing.states] == list(range(1, turns + 1))
    # the offline narrator, exactly, and the Director's own suggestions, on every turn
    assert [s.final_text for s in failing.states] == [s.final_text for s in offline.states]
    assert [[a.label for a in s.suggested_actions] for s in failing.states] == [
        [a.label for a in s.suggested_actions] for s in offline.states]
    state = failing.states[0]
    assert state.warnings == [f"{role}: fallback after ResponseError: internal server error (status code: 500)"
                              for role in ("narrator", "suggestion_refiner")]
    # each turn role tried, and retried twice (transient), in graph order; no director inside the turn
    assert failing.during[0] == ["nar"] * 3 + ["ref"] * 3
    rows = rendered_turns(failing.conn, state.campaign.id)
    assert rows[0]["turn_number"] == 1 and rows[0]["text"] == offline.states[0].final_text
    assert [(c["role"], c["ok"], c["outcome"], c["retries"]) for c in rows[0]["llm_calls"]] == [  # all on record
        ("narrator", False, "fallback", 2), ("suggestion_refiner", False, "fallback", 2)]
    # the director failed in the background, retried twice; the turn that uses the rules' brief it fell back on says
    # so, and has the call on record
    asked = [models for models in failing.after if models]
    assert asked and all(models == ["dir"] * 3 for models in asked)
    assert not [models for models in failing.during if "dir" in models]
    used = failing.first_briefed()
    shown = failing.states[used].director_instructions
    assert (shown.brief_source, shown.brief_origin) == ("prefetched", "offline")
    assert failing.states[used].warnings[:2] == [
        "director: fallback after ResponseError: internal server error (status code: 500)",
        "director: no usable brief from the model; the rules' brief stands"]
    [director] = [c for c in rows[used]["llm_calls"] if c["role"] == "director"]
    assert (director["ok"], director["outcome"], director["retries"]) == (False, "fallback", 2)
    assert rows[used]["llm_calls"][0] == director
    assert sum(c["role"] == "director" for r in rows for c in r["llm_calls"]) == len(asked)  # every call on record
    offline.conn.close()
    failing.conn.close()


def test_narrator_timeout_falls_back_and_the_turn_goes_on(server: FakeOllama, cinder: EraPack,
                                                          tmp_path: Path) -> None:
    server.queue("nar", hang(30))
    now = [1000.0]  # the breakers' clock
    llm = LLMClient(Settings(ollama_base_url=server.url, llm="on", llm_timeout_s=0.5, retry_backoff_s=0.01, **MODELS),
                    clock=lambda: now[0])
    conn, state = play(tmp_path / "t.db", cinder, llm, "look around", "look around")
    first, second = rendered_turns(conn, state.campaign.id)
    assert "narrator: fallback after LLMTimeout: the role's deadline passed" in first["warnings"]
    assert first["text"] and first["text"] != PROSE
    calls = [(c["role"], c["outcome"]) for c in first["llm_calls"]]
    assert calls == [("narrator", "fallback"), ("suggestion_refiner", "circuit_open")]
    failed = first["llm_calls"][0]
    assert failed["fallback_reason"] == "narrator: fallback after LLMTimeout: the role's deadline passed"
    assert 500 <= failed["latency_ms"] < (0.5 + SLACK_S) * 1000  # the turn waited out the deadline, not the hang
    assert failed["retries"] == 0
    # no reply at all: the server is taken to be hung, and every role on it falls back at once until the breakers'
    # time has passed (the refiner above, every role of the next turn), with no request; the director is not asked
    # for a brief in the background either
    llm.briefs.settle()
    assert [c["outcome"] for c in second["llm_calls"]] == ["circuit_open"] * 2
    assert [b["model"] for b in server.chat_requests()] == ["nar"]  # the narrator's, on the first turn
    assert llm.briefs.started == 0
    now[0] += 60  # SKALD_BREAKER_SECONDS later the roles are tried again, and the narrator is back
    state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=cinder, llm=llm)
    assert state.final_text.startswith(PROSE) and state.campaign.turn_number == 3
    assert [(c.role, c.outcome) for c in state.llm_calls] == [("narrator", "ok"), ("suggestion_refiner", "ok")]
    # and so is the director: the turn stayed in its scene, so its brief is written in the background after it
    assert not state.director_instructions.scene_changed
    llm.briefs.settle()
    assert [b["model"] for b in server.chat_requests()] == ["nar", "nar", "ref", "dir"]
    conn.close()


def test_prompt_token_counts_calibrate_the_roles_budget(server: FakeOllama, cinder: EraPack, tmp_path: Path) -> None:
    """The narrator's token counter learns from the prompt size the model reports (prompt_eval_count)."""
    server.always("nar", lambda body: text(PROSE, prompt_eval_count=2 * prompt_tokens(body)))
    llm = online(server)
    _, state = play(tmp_path / "t.db", cinder, llm, "look around")
    [stats] = [s for s in state.context_stats if s["role"] == "narrator"]
    reported = 2 * prompt_tokens(server.chat_requests("nar")[0])
    assert llm.counters["narrator"].factor == pytest.approx(0.7 + 0.3 * reported / stats["total_tokens"])
    assert llm.counters["narrator"].factor > 1.2


# -- streaming --------------------------------------------------------------------------------------------------

def test_narrator_tokens_reach_the_caller_before_the_turn_ends(server: FakeOllama, cinder: EraPack,
                                                              tmp_path: Path) -> None:
    """The narrator's stream is held after its first line; only the caller's on_token can let it go on."""
    gate = Gate()
    server.queue("nar", held(PROSE, gate, after=3, chunk_chars=24))  # the first sentence is whole by line 3
    tokens: list[str] = []
    held_at_first_token: list[bool] = []

    def on_token(token: str) -> None:
        if not tokens:
            held_at_first_token.append(gate.reached.wait(30) and not gate.opened.is_set())
            gate.release()
        tokens.append(token)

    conn = connect(tmp_path / "t.db")
    state = start_campaign(conn, cinder, seed=3, campaign_id="llm-stream")
    state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=cinder, llm=online(server),
                     on_token=on_token)
    assert held_at_first_token == [True]  # the first token arrived while the stream was still held
    # whole sentences reach the player (llm.hygiene), each as soon as it is whole
    assert tokens[0] == FIRST_SENTENCE and len(tokens) == len(sentences(PROSE))
    assert "".join(tokens) == PROSE == state.final_text  # in order, nothing lost
    [row] = rendered_turns(conn, state.campaign.id)
    assert row["llm_calls"][1]["ok"] and not [w for w in row["warnings"] if w.startswith("narrator")]


def test_a_held_stream_released_by_another_thread_after_the_first_token(server: FakeOllama, cinder: EraPack,
                                                                      tmp_path: Path) -> None:
    gate = Gate()
    server.queue("nar", held(PROSE, gate, after=3, chunk_chars=24))  # the first sentence is whole by line 3
    first_token = threading.Event()
    seen: list[tuple[str, bool]] = []

    def on_token(token: str) -> None:
        seen.append((token, gate.opened.is_set()))
        first_token.set()

    releaser = threading.Thread(target=lambda: first_token.wait(30) and gate.release())
    releaser.start()
    conn = connect(tmp_path / "t.db")
    state = start_campaign(conn, cinder, seed=3, campaign_id="llm-stream")
    state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=cinder, llm=online(server),
                     on_token=on_token)
    releaser.join()
    assert seen[0] == (FIRST_SENTENCE, False)  # delivered before the server was allowed to send the rest
    assert all(opened for _, opened in seen[1:])
    assert "".join(t for t, _ in seen) == PROSE == state.final_text
    conn.close()


def test_stream_turn_yields_progress_in_graph_order_then_tokens_then_the_turn(server: FakeOllama, cinder: EraPack,
                                                                              tmp_path: Path) -> None:
    server.always("nar", dataclasses.replace(text(PROSE), chunk_chars=40))
    conn = connect(tmp_path / "t.db")
    state = start_campaign(conn, cinder, seed=3, campaign_id="llm-stream")
    llm = online(server)
    events = list(stream_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=cinder, llm=llm))
    kinds = [kind for kind, _ in events]
    progress = [node for kind, node in events if kind == "progress"]
    assert progress == ["router", "mechanic", *PIPELINE]  # "look around" is an ACTION
    assert kinds[-1] == "turn" and kinds.count("turn") == 1
    final = events[-1][1]
    assert final.campaign.turn_number == 1 and final.final_text == PROSE
    tokens = [payload for kind, payload in events if kind == "token"]
    assert "".join(tokens) == PROSE and len(tokens) == len(sentences(PROSE))  # a sentence at a time
    # the tokens stream while the narrator runs: after the director finished, before the narrator's update
    positions = {name: events.index(("progress", name)) for name in ("director", "narrator")}
    token_positions = [i for i, (kind, _) in enumerate(events) if kind == "token"]
    assert positions["director"] < min(token_positions) and max(token_positions) < positions["narrator"]

    llm.briefs.settle()
    assert [b["model"] for b in server.chat_requests()] == ["nar", "ref"]  # no director call inside the turn
    meta = list(stream_turn(conn, final.model_copy(update={"player_input": "/status"}), pack=cinder, llm=llm))
    assert [e for e in meta if e[0] != "turn"] == [("progress", "router"), ("progress", "meta")]
    assert meta[-1][1].campaign.turn_number == 1  # answered, not committed: not a turn
    llm.briefs.settle()
    assert len(server.chat_requests()) == 2  # META made no request, and started no brief
    conn.close()


def test_llm_prose_that_tells_an_impossible_action_as_done_is_replaced(server: FakeOllama, cinder: EraPack,
                                                                      tmp_path: Path) -> None:
    """The rules said nothing happened ("I win"); a narrator that says it worked is not believed."""
    server.always("dir", json_reply(BRIEF)).always("ref", refine)
    server.always("nar", text("You raise your glass and declare victory. It works: the bar cheers and the Charter "
                              "falls. You pull it off."))
    _, state = play(tmp_path / "w.db", cinder, online(server), "[ACTION] I win")
    assert state.mechanic_result.impossible
    assert "It works" not in state.final_text and "Saying it does not make it so" in state.final_text
    assert any(w.startswith("validator: prose tells as done an action that could not happen") for w in state.warnings)
    assert ("validator: replaced the streamed prose with the offline narrator's, which tells the outcome as the rules "
            "decided it") in state.warnings
    assert state.view.prose_replaced  # the player read the model's prose as it streamed: the view says it changed
    [nar] = server.chat_requests("nar")  # the narrator was told plainly that nothing happened
    assert "Outcome: IMPOSSIBLE. Saying it does not make it so" in nar["messages"][1]["content"]
    assert "Nothing happened and nothing changed" in nar["messages"][1]["content"]
