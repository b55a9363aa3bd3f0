"""Whole turns through the real graph with the online LLM client talking to a fake Ollama.

Each role has its own model name (director "dir", narrator "nar", refiner "ref"), so the fake answers per role.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_ollama import FakeOllama, Gate, Reply, hang, held, http_error, json_reply, prompt_tokens, text
from skald.engine import start_campaign
from skald.graph import PIPELINE, run_turn, stream_turn
from skald.llm.client import LLMClient
from skald.packs.loader import load_pack
from skald.packs.models import EraPack
from skald.settings import Settings
from skald.state import GameState
from skald.store.db import connect
from skald.store.reads import rendered_turns

MODELS = {"director_model": "dir", "narrator_model": "nar", "suggestion_refiner_model": "ref"}
TONES = ["PARAGON", "INVESTIGATE", "RENEGADE", "NEUTRAL"]
DIRECTOR_NOTE = "Keep the room loud and the tin quiet."
PROSE = ("You crouch behind the taps and work a loose tile free. Beneath it sits a dented cash tin. "
         "Inside are 15 credits and a folded note about short water. The bar keeps up its noise around you. "
         "Nobody seems to have seen you take it.")
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
        fake.always("dir", text(DIRECTOR_NOTE)).always("nar", text(PROSE)).always("ref", refine)
        yield fake


def play(db: Path, cinder: EraPack, llm: LLMClient, *inputs: str) -> tuple[Any, GameState]:
    conn = connect(db)
    state = start_campaign(conn, cinder, seed=3, campaign_id="llm-turns")
    for line in inputs:
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=cinder, llm=llm)
    return conn, state


def online(server: FakeOllama, timeout_s: float = 2.0) -> LLMClient:
    return LLMClient(Settings(ollama_base_url=server.url, llm="on", llm_timeout_s=timeout_s, retry_backoff_s=0.01,
                              **MODELS))


def test_every_role_answers(server: FakeOllama, cinder: EraPack, tmp_path: Path) -> None:
    conn, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    assert state.campaign.turn_number == 1
    assert state.final_text == PROSE
    assert state.director_instructions is not None and state.director_instructions.notes == DIRECTOR_NOTE
    assert not [w for w in state.warnings if w.startswith(("director", "narrator", "suggestion_refiner"))]
    assert [s.label for s in state.suggested_actions] == [REFINED[t] for t in TONES]
    assert [s.tone.value for s in state.suggested_actions] == TONES
    # one call per role, in graph order; the narrator sees the director's note, the refiner the narration
    assert [b["model"] for b in server.chat_requests()] == ["dir", "nar", "ref"]
    [nar] = server.chat_requests("nar")
    assert DIRECTOR_NOTE in nar["messages"][1]["content"]
    assert cinder.era.style.strip() in nar["messages"][0]["content"]
    [ref] = server.chat_requests("ref")
    assert PROSE in ref["messages"][1]["content"]
    assert ref["format"]["required"] == ["suggestions"]
    # the stored turn carries the same text, suggestions and one metric per role
    [row] = rendered_turns(conn, state.campaign.id)
    assert row["text"] == PROSE
    assert [s["label"] for s in row["suggestions"]] == [REFINED[t] for t in TONES]
    assert [(c["role"], c["model"], c["ok"]) for c in row["llm_calls"]] == [
        ("director", "dir", True), ("narrator", "nar", True), ("suggestion_refiner", "ref", True)]
    assert all(isinstance(c["latency_ms"], float) and c["latency_ms"] >= 0 for c in row["llm_calls"])
    assert [(c["outcome"], c["attempts"], c["retries"], c["feedback"]) for c in row["llm_calls"]] == [
        ("ok", 1, 0, [])] * 3
    # usage as the model reported it (the fake's prompt_eval_count and eval_count), and ttft for the stream
    bodies = server.chat_requests()
    assert [c["prompt_tokens"] for c in row["llm_calls"]] == [prompt_tokens(b) for b in bodies]
    assert [c["completion_tokens"] for c in row["llm_calls"]] == [
        len(DIRECTOR_NOTE.split()), len(PROSE.split()), len(refine(bodies[2]).content.split())]
    narrated = row["llm_calls"][1]
    assert narrated["ttft_ms"] is not None and 0 <= narrated["ttft_ms"] <= narrated["latency_ms"]


def test_refined_suggestions_keep_the_directors_tones_risks_and_actions(server: FakeOllama, cinder: EraPack,
                                                                        tmp_path: Path) -> None:
    _, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    sent = sent_suggestions(server.chat_requests("ref")[0])
    assert len(state.suggested_actions) == 4
    assert [(s.tone.value, s.risk.value) for s in state.suggested_actions] == [(s["tone"], s["risk"]) for s in sent]
    assert all(s.action_class for s in state.suggested_actions)


@pytest.mark.parametrize(("reply", "warning"), [
    (Reply(content=PROSE + "\nOptions:\n1. Pocket the tin\n2. Put it back"), "narrator: removed a meta-game section"),
    (Reply(content=PROSE + "\n1. Pocket the tin\n2. Put it back"), "narrator: removed an option list"),
    (Reply(content=PROSE + "\n\n**What do you do?**"), "narrator: removed a meta-game section"),
], ids=["options_heading", "bare_list", "what_do_you_do"])
def test_narration_is_cleaned(server: FakeOllama, cinder: EraPack, tmp_path: Path, reply: Reply,
                              warning: str) -> None:
    server.always("nar", reply)
    _, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    assert state.final_text == PROSE
    assert warning in state.warnings


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
    refined = row["llm_calls"][2]
    assert (refined["ok"], refined["attempts"], refined["feedback"]) == (True, 2, [feedback])


def test_every_call_failing_still_commits_with_offline_prose(server: FakeOllama, cinder: EraPack,
                                                             tmp_path: Path) -> None:
    for model in ("dir", "nar", "ref"):
        server.always(model, http_error(500))
    conn, state = play(tmp_path / "online.db", cinder, online(server), "look around")
    offline_conn, offline_state = play(tmp_path / "offline.db", cinder, LLMClient(Settings(**MODELS), online=False),
                                       "look around")
    assert state.campaign.turn_number == 1
    assert state.final_text == offline_state.final_text  # the offline narrator, exactly
    assert [s.label for s in state.suggested_actions] == [s.label for s in offline_state.suggested_actions]
    assert state.warnings == [f"{role}: fallback after ResponseError: internal server error (status code: 500)"
                              for role in ("director", "narrator", "suggestion_refiner")]
    # each role tried, and retried twice (transient), in graph order
    assert [b["model"] for b in server.chat_requests()] == ["dir"] * 3 + ["nar"] * 3 + ["ref"] * 3
    [row] = rendered_turns(conn, state.campaign.id)
    assert row["turn_number"] == 1 and row["text"] == offline_state.final_text
    assert [(c["role"], c["ok"], c["outcome"], c["retries"]) for c in row["llm_calls"]] == [  # all on record
        ("director", False, "fallback", 2), ("narrator", False, "fallback", 2),
        ("suggestion_refiner", False, "fallback", 2)]
    offline_conn.close()
    conn.close()


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
    assert calls == [("director", "ok"), ("narrator", "fallback"), ("suggestion_refiner", "circuit_open")]
    failed = first["llm_calls"][1]
    assert failed["fallback_reason"] == "narrator: fallback after LLMTimeout: the role's deadline passed"
    assert 500 <= failed["latency_ms"] < 2000  # the turn waited out the deadline, and no longer
    assert failed["retries"] == 0
    # no reply at all: the server is taken to be hung, and every role on it falls back at once until the breakers'
    # time has passed (the refiner above, every role of the next turn), with no request
    assert [c["outcome"] for c in second["llm_calls"]] == ["circuit_open"] * 3
    assert len(server.chat_requests()) == 2  # the director's and the narrator's on the first turn
    now[0] += 60  # SKALD_BREAKER_SECONDS later the roles are tried again, and the narrator is back
    state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=cinder, llm=llm)
    assert state.final_text.startswith(PROSE) and state.campaign.turn_number == 3
    assert [c.outcome for c in state.llm_calls] == ["ok"] * 3
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
    server.queue("nar", held(PROSE, gate, after=1, chunk_chars=24))
    tokens: list[str] = []
    held_at_first_token: list[bool] = []

    def on_token(token: str) -> None:
        if not tokens:
            held_at_first_token.append(gate.reached.wait(2) and not gate.opened.is_set())
            gate.release()
        tokens.append(token)

    conn = connect(tmp_path / "t.db")
    state = start_campaign(conn, cinder, seed=3, campaign_id="llm-stream")
    state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=cinder, llm=online(server),
                     on_token=on_token)
    assert held_at_first_token == [True]  # the first token arrived while the stream was still held
    assert tokens[0] == PROSE[:24] and len(tokens) == -(-len(PROSE) // 24)
    assert "".join(tokens) == PROSE == state.final_text  # in order, nothing lost
    [row] = rendered_turns(conn, state.campaign.id)
    assert row["llm_calls"][1]["ok"] and not [w for w in row["warnings"] if w.startswith("narrator")]


def test_a_held_stream_released_by_another_thread_after_the_first_token(server: FakeOllama, cinder: EraPack,
                                                                      tmp_path: Path) -> None:
    gate = Gate()
    server.queue("nar", held(PROSE, gate, after=1, chunk_chars=24))
    first_token = threading.Event()
    seen: list[tuple[str, bool]] = []

    def on_token(token: str) -> None:
        seen.append((token, gate.opened.is_set()))
        first_token.set()

    releaser = threading.Thread(target=lambda: first_token.wait(5) and gate.release())
    releaser.start()
    conn = connect(tmp_path / "t.db")
    state = start_campaign(conn, cinder, seed=3, campaign_id="llm-stream")
    state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=cinder, llm=online(server),
                     on_token=on_token)
    releaser.join()
    assert seen[0] == (PROSE[:24], False)  # delivered before the server was allowed to send the rest
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
    assert "".join(tokens) == PROSE and len(tokens) == -(-len(PROSE) // 40)
    # the tokens stream while the narrator runs: after the director finished, before the narrator's update
    positions = {name: events.index(("progress", name)) for name in ("director", "narrator")}
    token_positions = [i for i, (kind, _) in enumerate(events) if kind == "token"]
    assert positions["director"] < min(token_positions) and max(token_positions) < positions["narrator"]

    meta = list(stream_turn(conn, final.model_copy(update={"player_input": "/status"}), pack=cinder, llm=llm))
    assert [e for e in meta if e[0] != "turn"] == [("progress", "router"), ("progress", "meta")]
    assert meta[-1][1].campaign.turn_number == 1  # answered, not committed: not a turn
    assert len(server.chat_requests()) == 3  # META made no request
    conn.close()


def test_llm_prose_that_tells_an_impossible_action_as_done_is_replaced(server: FakeOllama, cinder: EraPack,
                                                                      tmp_path: Path) -> None:
    """The rules said nothing happened ("I win"); a narrator that says it worked is not believed."""
    server.always("dir", text(DIRECTOR_NOTE)).always("ref", refine)
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
