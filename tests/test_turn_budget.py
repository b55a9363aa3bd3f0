"""One budget for a whole turn's LLM calls (``SKALD_TURN_BUDGET_S``), a breaker that a hung server opens at once, and
what the player keeps of a narration that streamed and then broke off or was replaced.

Real turns through the real graph (and, for the streams, the real HTTP API), the online client talking to a fake
Ollama. Budgets are 1.5 s so the tests stay quick; the only timings asserted are generous bounds that prove a
deadline held (the figures are ``make bench``'s, ``bench/hung.py``). Inside a turn the narrator is the first role
called (the beat classifier before it, when enabled); the director writes scene briefs in the background, between
turns, and a turn waits for one still being written no longer than its budget.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_ollama import ANY, FakeOllama, Gate, Reply, held, hung, json_reply, text
from skald.api import create_app
from skald.api.server import LiveServer
from skald.core.pack import EraPack
from skald.core.state import GameState
from skald.engine import start_campaign
from skald.graph import run_turn, stream_turn
from skald.llm.client import MIN_CALL_S, LLMClient, LLMUnavailable
from skald.settings import Settings
from skald.store.db import connect
from skald.store.reads import rendered_turns
from support import SLACK_S  # what a loaded machine may add to a deadline; a hung call without one waits 60 s

BUDGET_S = 1.5
MODELS = {"director_model": "dir", "narrator_model": "nar", "suggestion_refiner_model": "ref"}
ROLES = ("director", "narrator", "suggestion_refiner")
BRIEF = {"summary": "The room is loud and the stakes are close.", "key_facts": [], "npc_intentions": [],
         "suggested_topics": []}  # the director's reply: a core.brief.BriefDraft
BRIEFED_AFTER = 8  # "look around" turns of seed 3 within which a turn stays in a scene whose brief was started in
# the background (the scene changes with the episode's beat, and the beat moves by position up to the escalation)
PROSE = ("You crouch behind the taps and work a loose tile free. Beneath it sits nothing but dust. The bar keeps up "
         "its noise around you. Nobody seems to have seen you look. You set the tile back and straighten up.")
FIRST_SENTENCE = "You crouch behind the taps and work a loose tile free."
BOASTS = ("You raise your glass and declare victory. It works: the bar cheers and the Charter falls. You pull it "
          "off.")


def echo_suggestions(body: dict[str, Any]) -> Reply:
    """A refiner that hands the Director's suggestions back unchanged (always valid)."""
    return json_reply(json.loads(body["messages"][1]["content"].rsplit("Suggestions to rewrite:\n", 1)[1]))


def online(url: str, **settings: Any) -> LLMClient:
    """An online client with a 1.5 s turn budget and the default 60 s per call. Its role clients are built here: the
    first one imports langchain-ollama, which can take longer than a test's whole budget on a busy machine."""
    values = {"ollama_base_url": url, "llm": "on", "turn_budget_s": BUDGET_S, "retry_backoff_s": 0.01} | MODELS
    llm = LLMClient(Settings(**values | settings))
    for role in ROLES:
        llm.model(role)
    return llm


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(models=["dir", "nar", "ref"]) as fake:
        fake.always("dir", json_reply(BRIEF)).always("nar", text(PROSE)).always("ref", echo_suggestions)
        yield fake


def timed_turns(db: Path, pack: EraPack, llm: LLMClient, *inputs: str,
                settle: bool = True) -> tuple[list[float], list[dict[str, Any]]]:
    """Play ``inputs`` on a new campaign; returns each turn's wall time (seconds) and the stored turns. With
    ``settle``, waits (untimed) after each turn for the background brief it started, if any."""
    conn = connect(db)
    state = start_campaign(conn, pack, seed=3, campaign_id="budget")
    times = []
    for line in inputs:
        started = time.monotonic()
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm, retriever=None)
        times.append(time.monotonic() - started)
        if settle:
            llm.briefs.settle()
    rows = rendered_turns(conn, state.campaign.id)
    conn.close()
    return times, rows


# -- the budget and the breaker -----------------------------------------------------------------------------------

def test_the_default_budget_is_well_under_one_calls_timeout() -> None:
    defaults = Settings()
    assert defaults.turn_budget_s == 20 and defaults.turn_budget_s < defaults.llm_timeout_s / 2


def test_a_hung_server_costs_the_first_turn_its_budget_and_the_next_turns_nothing(pack: EraPack,
                                                                                  tmp_path: Path) -> None:
    """Every role hangs (the server accepts and never answers). Turn 1 waits out the budget once, on the narrator (the
    first role a turn calls); the hang opens every role's circuit at once, so turns 2 and 3 make no request and wait
    for nothing, and no scene brief is asked of the director in the background."""
    with FakeOllama(models=["dir", "nar", "ref"]) as fake:
        fake.always(ANY, hung())
        llm = online(fake.url)
        times, rows = timed_turns(tmp_path / "hung.db", pack, llm, "look around", "look around", "look around")
        requests = [body["model"] for body in fake.chat_requests()]
    assert BUDGET_S <= times[0] < BUDGET_S + SLACK_S  # the budget held the turn, not the narrator's 60 s timeout
    assert requests == ["nar"]  # one request in three turns
    assert llm.briefs.started == 0  # the director's circuit is open too: no brief was started after any turn
    assert all(t < BUDGET_S for t in times[1:]), times  # no waiting at all (an offline turn takes milliseconds)
    first = rows[0]
    assert [(c["role"], c["outcome"]) for c in first["llm_calls"]] == [
        ("narrator", "fallback"), ("suggestion_refiner", "circuit_open")]
    assert first["warnings"][0] == "narrator: fallback after LLMTimeout: the turn budget ran out"
    assert first["llm_calls"][0]["latency_ms"] < (BUDGET_S + SLACK_S) * 1000
    assert first["llm_calls"][1]["fallback_reason"].startswith(
        "suggestion_refiner: fallback, circuit open after the narrator's call to the same server got no reply in 1.")
    for row in rows:
        assert row["text"].strip() and len(row["suggestions"]) == 4  # the offline narrator told every turn
    assert [c["outcome"] for row in rows[1:] for c in row["llm_calls"]] == ["circuit_open"] * 4
    assert rows[1]["llm_calls"][0]["fallback_reason"].startswith(
        "narrator: fallback, circuit open after a call that got no reply in 1.")


def test_a_role_left_without_budget_falls_back_without_a_request(server: FakeOllama, pack: EraPack,
                                                                 tmp_path: Path) -> None:
    """The beat classifier (the one role a turn may call before the narrator) is on a server that hangs; the narrator
    and refiner are on a healthy one. The classifier spends the whole budget, so the later roles of that turn skip to
    their fallbacks, with a warning and no request; the next turn skips the classifier (its circuit is open) and the
    others answer."""
    with FakeOllama(models=["beat"]) as stuck:
        stuck.always("beat", hung())
        llm = online(server.url, beat_classifier_enabled=True, beat_classifier_model="beat",
                     beat_classifier_base_url=stuck.url)
        llm.model("beat_classifier")
        times, rows = timed_turns(tmp_path / "spent.db", pack, llm, "look around", "look around")
        assert len(stuck.chat_requests()) == 1
    first, second = rows
    assert times[0] < BUDGET_S + SLACK_S
    assert [(c["role"], c["outcome"], c["attempts"]) for c in first["llm_calls"]] == [
        ("beat_classifier", "fallback", 1), ("narrator", "budget_spent", 0), ("suggestion_refiner", "budget_spent", 0)]
    assert [w for w in first["warnings"] if not w.startswith("validator:")] == [
        "beat_classifier: fallback after LLMTimeout: the turn budget ran out",
        "narrator: fallback, turn budget spent",
        "suggestion_refiner: fallback, turn budget spent"]
    assert first["text"].strip() and first["text"] != PROSE  # the offline narrator
    assert [(c["role"], c["outcome"]) for c in second["llm_calls"]] == [
        ("beat_classifier", "circuit_open"), ("narrator", "ok"), ("suggestion_refiner", "ok")]
    assert second["text"].startswith(PROSE)
    assert [body["model"] for body in server.chat_requests()] == ["nar", "ref"]  # all on the second turn


def test_a_brief_still_being_written_holds_a_turn_no_longer_than_its_budget(server: FakeOllama, pack: EraPack,
                                                                            tmp_path: Path) -> None:
    """The director's server hangs; the narrator and refiner are on a healthy one. The director is never called
    inside a turn, so the turns that change scene do not wait for it at all; once a turn stays in a scene its brief is
    started in the background, and the next turn in that scene waits for it only until its own budget runs out, then
    goes on with the rules' brief, with a warning."""
    with FakeOllama(models=["dir"]) as stuck:
        stuck.always("dir", hung())
        llm = online(server.url, director_base_url=stuck.url)
        times, rows = timed_turns(tmp_path / "waited.db", pack, llm, *["look around"] * (BRIEFED_AFTER + 1),
                                  settle=False)  # a hung brief never settles
        started = llm.briefs.started  # each brief started reaches the server (from its own thread: waited on)
        assert started >= 1 and stuck.wait_for_chats(started) and len(stuck.chat_requests()) == started
    held = "director: the scene's brief was still being written; this turn used the rules' brief"
    at = next((i for i, row in enumerate(rows) if held in row["warnings"]), None)  # the first turn that waited
    assert at is not None and at > 0, [row["warnings"] for row in rows]
    assert all(t < BUDGET_S for t in times[:at]), times  # no turn waited on the director before
    waited = rows[at]
    assert times[at] < BUDGET_S + SLACK_S  # not the director's 60 s timeout
    assert json.loads(waited["brief"])["origin"] == "offline"
    assert waited["text"].strip() and len(waited["suggestions"]) == 4
    assert "director" not in [c["role"] for row in rows for c in row["llm_calls"]]  # never answered, never reported
    models = [body["model"] for body in server.chat_requests()]  # the healthy server's roles only, narrator first
    evaluator = Settings().roles()["evaluator"].model  # the first episode ends on a turn of these (its summary)
    assert "dir" not in models and set(models) <= {"nar", "ref", evaluator} and models[:1] == ["nar"]
    assert models.count("nar") == BRIEFED_AFTER + 1
    # (not the exact alternation: on a loaded machine a turn's refiner may find its budget spent, which is its job)


def test_a_call_gets_only_what_is_left_of_the_turns_budget(server: FakeOllama) -> None:
    """A role's own timeout (60 s here) is cut to the turn's deadline; with less than MIN_CALL_S left it is not
    called at all."""
    server.always("nar", hung())
    llm = online(server.url)
    with pytest.raises(LLMUnavailable) as info:
        llm.text("director", "s", "u", deadline=time.monotonic() + MIN_CALL_S / 2)
    assert str(info.value) == "director: fallback, turn budget spent"
    assert info.value.call is not None and (info.value.call.outcome, info.value.call.attempts) == ("budget_spent", 0)
    assert server.chat_requests() == []
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as info:
        llm.text("narrator", "s", "u", deadline=started + 1.2)
    assert str(info.value) == "narrator: fallback after LLMTimeout: the turn budget ran out"
    assert time.monotonic() - started < 1.2 + SLACK_S
    assert [body["model"] for body in server.chat_requests()] == ["nar"]


def test_a_call_cut_short_by_the_budget_counts_as_one_failure(server: FakeOllama) -> None:
    """Cut after 1.2 s of a 20 s budget (what earlier roles left it): bad luck, not proof of a hang. It counts as one
    failure, and no circuit opens."""
    server.always("nar", hung())
    llm = online(server.url, turn_budget_s=20)
    with pytest.raises(LLMUnavailable, match="the turn budget ran out"):
        llm.text("narrator", "s", "u", deadline=time.monotonic() + 1.2)
    assert {role: (b.consecutive, b.allow()) for role, b in llm.breakers.items()} == {
        role: (int(role == "narrator"), True) for role in llm.breakers}


def test_a_slow_stream_cut_at_its_deadline_opens_only_its_own_circuit(server: FakeOllama) -> None:
    """Tokens were arriving: the model is alive but too slow for its deadline. Its circuit opens at once; the other
    roles on the same server stay closed."""
    server.always("nar", Reply(content=PROSE, chunk_chars=30, chunk_delay_s=0.15))  # a sentence whole by 0.3 s
    llm = online(server.url, narrator_timeout_s=1.0)
    tokens: list[str] = []
    with pytest.raises(LLMUnavailable, match="LLMTimeout: the role's deadline passed"):
        llm.text("narrator", "s", "u", on_token=tokens.append)
    assert tokens  # some of it arrived (whole sentences: llm.hygiene holds back the broken one)
    assert [name for name, b in llm.breakers.items() if not b.allow()] == ["narrator"]
    with pytest.raises(LLMUnavailable, match=r"^narrator: fallback, circuit open after a call cut off at its "
                                             r"deadline after 1\.\d s \(60 s left\)$"):
        llm.text("narrator", "s", "u")
    assert json.loads(llm.text("director", "s", "u")[0]) == BRIEF


# -- what the player keeps of a streamed narration -----------------------------------------------------------------

def stream(db: Path, pack: EraPack, llm: LLMClient, line: str) -> list[tuple[str, Any]]:
    """``graph.stream_turn`` of one turn on a new campaign."""
    conn = connect(db)
    state = start_campaign(conn, pack, seed=3, campaign_id="streamed")
    try:
        return list(stream_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm,
                                retriever=None))
    finally:
        conn.close()


def test_a_narration_cut_by_the_budget_keeps_what_the_player_read(server: FakeOllama, pack: EraPack,
                                                                 tmp_path: Path) -> None:
    """The narrator streams two lines, then stalls past the turn's budget: the turn keeps those two lines, closes
    the broken sentence and adds the outcome; the refiner, left without budget, is skipped."""
    gate = Gate()  # never released: the stream stalls after two lines
    server.queue("nar", held(PROSE, gate, after=2, chunk_chars=30))
    events = stream(tmp_path / "cut.db", pack, online(server.url), "look around")
    seen = "".join(payload for kind, payload in events if kind == "token")
    final: GameState = events[-1][1]
    # the player reads whole sentences (llm.hygiene): the one the stall broke never reached them
    assert seen == FIRST_SENTENCE and "replace" not in [kind for kind, _ in events]
    assert final.final_text.startswith(seen)
    assert final.mechanic_result is not None and final.mechanic_result.summary in final.final_text
    assert "narrator: fallback after LLMTimeout: the turn budget ran out" in final.warnings
    assert any(w.startswith("narrator: kept the ") for w in final.warnings)
    assert [(c.role, c.outcome) for c in final.llm_calls] == [
        ("narrator", "fallback"), ("suggestion_refiner", "budget_spent")]
    assert final.view is not None and not final.view.prose_replaced


# -- the same, through the HTTP API's event stream ----------------------------------------------------------------

def sse(client: httpx.Client, path: str, body: dict[str, Any], headers: dict[str, str]) -> list[tuple[str, Any]]:
    """(event, decoded data) pairs of a text/event-stream reply (comments skipped)."""
    events: list[tuple[str, Any]] = []
    kind, data = None, []
    with client.stream("POST", path, json=body, headers=headers) as reply:
        assert reply.status_code == 200, reply.read()
        for line in reply.iter_lines():
            if line == "":
                if kind is not None:
                    events.append((kind, json.loads("\n".join(data)) if data else None))
                kind, data = None, []
            elif line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
    return events


def api_turn(db: Path, llm: LLMClient, line: str) -> list[tuple[str, Any]]:
    """One streamed turn through a live API server on a new campaign."""
    with LiveServer(create_app(db, llm=llm, retriever=None)) as live, \
            httpx.Client(base_url=live.url, timeout=30) as client:
        made = client.post("/campaigns", json={"pack": "cinder_reach", "seed": 3}).json()
        return sse(client, f"/campaigns/{made['campaign_id']}/turns/stream", {"input": line},
                   {"Authorization": f"Bearer {made['token']}"})


def test_a_stream_that_breaks_after_its_first_words_is_kept_and_finished(server: FakeOllama,
                                                                        tmp_path: Path) -> None:
    """The model's stream breaks mid-sentence (Ollama's error line). The player read the start; the stored turn
    starts with exactly that, so nothing is replaced, and goes on with the outcome as the rules decided it."""
    broken = PROSE[:70]  # "... work a loose tile free. Beneath it si"
    server.always("nar", Reply(content=broken, chunk_chars=20, stream_error="model runner crashed"))
    events = api_turn(tmp_path / "broken.db", online(server.url, turn_budget_s=30), "look around")  # not about time
    kinds = [kind for kind, _ in events]
    assert "".join(data["text"] for kind, data in events if kind == "token") == FIRST_SENTENCE  # whole sentences
    assert "replace" not in kinds and kinds[-1] == "turn"
    turn = events[-1][1]
    assert turn["text"].startswith(FIRST_SENTENCE) and not turn["prose_replaced"]
    assert turn["mechanic"]["summary"] in turn["text"]
    assert "narrator: fallback after ResponseError: model runner crashed (status code: -1)" in turn["warnings"]


def test_replaced_prose_is_announced_by_a_replace_event_before_the_turn(server: FakeOllama, tmp_path: Path) -> None:
    """The model streams a victory the rules refused ("I win"). The validator replaces it with the offline narrator's
    prose; the stream says so with a ``replace`` event (the new text) after the tokens and before ``turn``."""
    server.always("nar", Reply(content=BOASTS, chunk_chars=24))
    events = api_turn(tmp_path / "boast.db", online(server.url, turn_budget_s=30), "[ACTION] I win")  # not about time
    kinds = [kind for kind, _ in events]
    assert "".join(data["text"] for kind, data in events if kind == "token") == BOASTS
    assert kinds.count("replace") == 1
    last_token = len(kinds) - 1 - kinds[::-1].index("token")
    assert last_token < kinds.index("replace") < kinds.index("turn") == len(kinds) - 1
    replace, turn = events[kinds.index("replace")][1], events[-1][1]
    assert turn["prose_replaced"] and replace["text"] == turn["text"] and "It works" not in turn["text"]
    assert replace["reason"] == ("validator: replaced the streamed prose with the offline narrator's, which tells the "
                                 "outcome as the rules decided it")
    assert replace["reason"] in turn["warnings"]
