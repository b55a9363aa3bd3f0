"""``LLMClient`` and ``probe_ollama`` driving the real ``ChatOllama`` against a fake Ollama on 127.0.0.1.

Retries are observed through a recording ``sleep`` (it records the backoff and returns at once) and the fake's
request log; the circuit breaker through a fake ``clock``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import ollama
import pytest
from fake_ollama import (
    ANY,
    FakeOllama,
    Gate,
    Reply,
    empty,
    hang,
    held,
    http_error,
    json_reply,
    prompt_tokens,
    slow,
    text,
)
from skald.core.records import LLMCall
from skald.llm.client import LLMClient, LLMUnavailable, probe_ollama
from skald.nodes.refiner import RefinedSuggestions
from skald.settings import Settings
from support import SLACK_S

MODELS = {"director_model": "dir", "narrator_model": "nar", "suggestion_refiner_model": "ref"}
TONES = ["PARAGON", "INVESTIGATE", "RENEGADE", "NEUTRAL"]
VALID = {"suggestions": [{"label": f"Do the {t.lower()} thing", "tone": t, "risk": "SAFE"} for t in TONES]}
ACTION = "Call RefinedSuggestions again with corrected data. Unknown fields may be typos."
TONE_PROBLEM = "Input should be 'PARAGON', 'INVESTIGATE', 'RENEGADE' or 'NEUTRAL'"


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(models=["dir", "nar", "ref"]) as fake:
        yield fake


@pytest.fixture
def closed_url() -> str:
    """The address of a server that has just been stopped: nothing listens there."""
    fake = FakeOllama().start()
    url = fake.url
    fake.stop()
    return url


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def client_for(url: str, timeout_s: float = 30.0, *, sleeps: list[float] | None = None, clock: Clock | None = None,
               **kw: object) -> LLMClient:
    """An online client; ``sleeps`` records retry waits instead of sleeping, ``clock`` drives the breakers."""
    settings = Settings(ollama_base_url=url, llm="on", llm_timeout_s=timeout_s, **MODELS | kw)
    extra: dict[str, Any] = {}
    if sleeps is not None:
        extra["sleep"] = sleeps.append
    if clock is not None:
        extra["clock"] = clock
    return LLMClient(settings, **extra)


def call(client: LLMClient, role: str) -> tuple[Any, LLMCall]:
    """``text`` for director and narrator, ``structured`` for the refiner."""
    if role == "suggestion_refiner":
        return client.structured(role, RefinedSuggestions, "s", "u")
    return client.text(role, "s", "u")


def failed(client: LLMClient, role: str) -> LLMUnavailable:
    with pytest.raises(LLMUnavailable) as info:
        call(client, role)
    return info.value


# -- probe ----------------------------------------------------------------------------------------------------

def test_probe_reachable_lists_models(server: FakeOllama) -> None:
    ok, detail = probe_ollama(server.url, 1.0)
    assert ok
    assert "3 models" in detail and server.url in detail
    assert [(r["method"], r["path"]) for r in server.requests] == [("GET", "/api/tags")]


def test_probe_unreachable(closed_url: str) -> None:
    ok, detail = probe_ollama(closed_url, 0.5)
    assert not ok
    assert "unreachable" in detail and "ConnectError" in detail


def test_auto_mode_goes_online_only_when_the_probe_answers(server: FakeOllama, closed_url: str) -> None:
    assert LLMClient(Settings(ollama_base_url=server.url, llm="auto", **MODELS)).online
    offline = LLMClient(Settings(ollama_base_url=closed_url, llm="auto", probe_timeout_s=0.5, **MODELS))
    assert not offline.online
    assert "offline narrator" in offline.mode


# -- replies and their metrics --------------------------------------------------------------------------------

def test_text_reply_and_metrics(server: FakeOllama) -> None:
    server.always("nar", text("You look around. The bar is loud and hot.", prompt_eval_count=123, eval_count=45))
    reply, metrics = client_for(server.url).text("narrator", "system rules", "the scene")
    assert reply == "You look around. The bar is loud and hot."
    assert (metrics.role, metrics.model, metrics.ok, metrics.outcome) == ("narrator", "nar", True, "ok")
    assert (metrics.attempts, metrics.retries, metrics.feedback, metrics.fallback_reason) == (1, 0, [], None)
    # usage comes from the final line's prompt_eval_count / eval_count
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (123, 45)
    assert metrics.ttft_ms is not None and 0 <= metrics.ttft_ms <= metrics.latency_ms
    [body] = server.chat_requests()
    assert body["model"] == "nar"
    assert body["stream"] is True  # ChatOllama streams even for invoke()
    assert body["messages"] == [{"role": "system", "content": "system rules"}, {"role": "user", "content": "the scene"}]
    assert body["options"]["temperature"] == 0.7
    assert "format" not in body


def test_default_usage_counts_from_the_fake(server: FakeOllama) -> None:
    server.always("dir", text("Keep it tense and short."))
    _, metrics = client_for(server.url).text("director", "system rules", "the scene")
    [body] = server.chat_requests()
    assert metrics.prompt_tokens == prompt_tokens(body) == 6  # 23 characters of messages / 4, rounded up
    assert metrics.completion_tokens == 5  # words in the reply


def test_each_role_uses_its_own_model(server: FakeOllama) -> None:
    for model in ("dir", "nar", "ref"):
        server.always(model, text(f"from {model}"))
    client = client_for(server.url)
    replies = {role: client.text(role, "s", "u")[0] for role in ("director", "narrator", "suggestion_refiner")}
    assert replies == {"director": "from dir", "narrator": "from nar", "suggestion_refiner": "from ref"}
    assert [b["model"] for b in server.chat_requests()] == ["dir", "nar", "ref"]


def test_roles_sharing_a_model_ask_it_with_one_context_size(server: FakeOllama) -> None:
    """Ollama reloads a model asked with another num_ctx: roles sharing one get the widest window of them."""
    server.always("one", text("Fine."))
    client = client_for(server.url, director_model="one", narrator_model="one", suggestion_refiner_model="one",
                        director_num_ctx=2048, suggestion_refiner_num_ctx=6144)
    for role in ("director", "narrator", "suggestion_refiner"):
        client.text(role, "s", "u")
    assert {b["options"]["num_ctx"] for b in server.chat_requests("one")} == {8192}  # the narrator's, the widest
    assert client.configs["director"].num_ctx == 8192


def test_a_trickling_stream_is_cut_at_the_deadline(server: FakeOllama) -> None:
    """The role's timeout bounds the whole call, not each read: a steady trickle cannot outlast it."""
    content = "You wait. " * 150
    server.queue("nar", slow(content, chunk_delay_s=0.12, chunk_chars=10))  # 151 lines, ~18 s in all
    tokens: list[str] = []
    sleeps: list[float] = []
    with pytest.raises(LLMUnavailable, match=r"^narrator: fallback after LLMTimeout") as caught:
        client_for(server.url, timeout_s=0.5, sleeps=sleeps).text("narrator", "s", "u", on_token=tokens.append)
    assert tokens and "".join(tokens) != content  # some tokens arrived before the deadline cut the call
    metrics = caught.value.call
    assert metrics is not None and not metrics.ok and metrics.outcome == "fallback"
    assert metrics.ttft_ms is not None and metrics.ttft_ms < metrics.latency_ms
    assert 500 <= metrics.latency_ms < (0.5 + SLACK_S) * 1000  # cut at the deadline, long before the stream ended
    assert len(server.chat_requests()) == 1 and sleeps == [] and metrics.retries == 0


def test_a_stream_inside_the_deadline_arrives_token_by_token(server: FakeOllama) -> None:
    content = "You wait. " * 6
    server.queue("nar", slow(content, chunk_delay_s=0.02, chunk_chars=10))
    tokens: list[str] = []
    reply, metrics = client_for(server.url, timeout_s=5).text("narrator", "s", "u", on_token=tokens.append)
    # whole sentences, each as soon as it is whole (llm.hygiene), not the model's chunks
    assert reply == content.strip() and "".join(tokens) == content.strip() and len(tokens) >= 5
    assert metrics.ok and metrics.ttft_ms is not None and 20 <= metrics.ttft_ms <= metrics.latency_ms


def test_the_first_token_reaches_the_caller_while_the_stream_is_held(server: FakeOllama) -> None:
    gate = Gate()
    content = "You wait by the door. Somebody laughs in the back."
    server.queue("nar", held(content, gate, after=2, chunk_chars=12))  # the first sentence, then the hold
    seen: list[tuple[str, bool]] = []

    def on_token(token: str) -> None:
        if not seen:
            assert gate.reached.wait(30), "the fake never got to the hold"
        seen.append((token, gate.opened.is_set()))
        gate.release()

    reply, metrics = client_for(server.url).text("narrator", "s", "u", on_token=on_token)
    assert seen[0] == ("You wait by the door.", False)  # delivered while the rest of the stream was still held
    assert "".join(t for t, _ in seen) == reply == content
    assert metrics.ok and metrics.ttft_ms is not None


def test_structured_reply_is_parsed_into_the_schema(server: FakeOllama) -> None:
    server.always("ref", json_reply(VALID, prompt_eval_count=321, eval_count=54))
    value, metrics = client_for(server.url).structured("suggestion_refiner", RefinedSuggestions, "rules", "scene")
    assert isinstance(value, RefinedSuggestions)
    assert [s.tone.value for s in value.suggestions] == TONES
    assert value.suggestions[0].label == "Do the paragon thing"
    assert (metrics.role, metrics.model, metrics.ok, metrics.attempts, metrics.feedback) == (
        "suggestion_refiner", "ref", True, 1, [])
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (321, 54)
    [body] = server.chat_requests("ref")
    assert body["format"] == RefinedSuggestions.model_json_schema()  # method="json_schema": Ollama's format
    assert body["stream"] is True
    assert body["options"]["temperature"] == 0.2
    assert not body.get("tools")


def test_client_recovers_after_a_timeout(server: FakeOllama) -> None:
    """A timeout opens the circuit at once (the next turns must not wait it out again); the trial call after
    ``breaker_seconds`` finds the model back."""
    server.queue("nar", hang(30)).always("nar", text("Back again."))
    clock = Clock()
    client = client_for(server.url, timeout_s=0.5, clock=clock)
    with pytest.raises(LLMUnavailable, match="LLMTimeout"):
        client.text("narrator", "s", "u")
    assert failed(client, "narrator").call.outcome == "circuit_open"
    clock.now += 60
    assert client.text("narrator", "s", "u")[0] == "Back again."


# -- transient errors are retried with backoff ----------------------------------------------------------------

@pytest.mark.parametrize("role", ["narrator", "suggestion_refiner"])
def test_http_500_is_retried_with_exponential_backoff(server: FakeOllama, role: str) -> None:
    server.always(ANY, http_error(500))
    sleeps: list[float] = []
    error = failed(client_for(server.url, sleeps=sleeps), role)
    assert str(error) == f"{role}: fallback after ResponseError: internal server error (status code: 500)"
    assert len(server.chat_requests()) == 3  # retries (2) + 1
    assert sleeps == [0.25, 0.5]  # retry_backoff_s, doubled
    assert error.call is not None and (error.call.retries, error.call.attempts, error.call.ok) == (2, 1, False)


def test_transient_errors_then_a_reply(server: FakeOllama) -> None:
    server.queue("nar", http_error(500), http_error(429, "too many requests")).always("nar", text("At last."))
    sleeps: list[float] = []
    client = client_for(server.url, sleeps=sleeps)
    reply, metrics = client.text("narrator", "s", "u")
    assert reply == "At last."
    assert (metrics.ok, metrics.retries, sleeps, len(server.chat_requests())) == (True, 2, [0.25, 0.5], 3)
    assert client.breakers["narrator"].consecutive == 0  # retried errors inside a successful call do not count


def test_ttft_counts_from_the_start_of_the_call(server: FakeOllama) -> None:
    """Time to first token is what the caller waited, retries and backoff included (as latency is)."""
    server.queue("nar", http_error(500)).always("nar", text("At last."))
    _, metrics = client_for(server.url, retry_backoff_s=0.2).text("narrator", "s", "u")  # really sleeps 0.2 s
    assert metrics.retries == 1
    assert 200 <= metrics.ttft_ms <= metrics.latency_ms


def test_backoff_follows_the_settings(server: FakeOllama) -> None:
    server.always("nar", http_error(503, "loading model"))
    sleeps: list[float] = []
    failed(client_for(server.url, sleeps=sleeps, retries=3, retry_backoff_s=0.1), "narrator")
    assert sleeps == pytest.approx([0.1, 0.2, 0.4])
    assert len(server.chat_requests()) == 4


def test_connection_refused_is_retried(closed_url: str) -> None:
    sleeps: list[float] = []
    error = failed(client_for(closed_url, sleeps=sleeps), "director")
    assert str(error).startswith("director: fallback after ConnectError")
    assert sleeps == [0.25, 0.5] and error.call is not None and error.call.retries == 2


def test_retries_never_wait_past_the_deadline(server: FakeOllama) -> None:
    server.always("nar", http_error(500))
    sleeps: list[float] = []
    failed(client_for(server.url, timeout_s=1.0, sleeps=sleeps, retry_backoff_s=0.6), "narrator")
    assert sleeps == [0.6]  # the second wait (1.2 s) would end after the 1 s deadline: no second retry
    assert len(server.chat_requests()) == 2


def test_a_stream_broken_before_any_token_is_retried(server: FakeOllama) -> None:
    server.queue("nar", Reply(content="", stream_error="model runner crashed")).always("nar", text("Steady now."))
    sleeps: list[float] = []
    reply, metrics = client_for(server.url, sleeps=sleeps).text("narrator", "s", "u")
    assert (reply, metrics.retries, sleeps, len(server.chat_requests())) == ("Steady now.", 1, [0.25], 2)


def test_structured_output_is_retried_after_a_broken_stream(server: FakeOllama) -> None:
    """Nothing of a structured reply reaches the player, so a stream that breaks mid-way can be retried."""
    server.queue("ref", Reply(content='{"suggestions": [', stream_error="model runner crashed"))
    server.always("ref", json_reply(VALID))
    sleeps: list[float] = []
    value, metrics = client_for(server.url, sleeps=sleeps).structured("suggestion_refiner", RefinedSuggestions,
                                                                      "s", "u")
    assert isinstance(value, RefinedSuggestions)
    assert (metrics.retries, metrics.attempts, sleeps, len(server.chat_requests())) == (1, 1, [0.25], 2)


# -- not retried ----------------------------------------------------------------------------------------------

NOT_RETRIED = {  # reply (None: nothing scripted, the fake answers 404), how the reason goes on
    "timeout": (hang(30), "LLMTimeout: the role's deadline passed"),
    "unknown_model": (None, 'ResponseError: model "{model}" not found, try pulling it first (status code: 404)'),
    "bad_request": (http_error(400, "invalid options"), "ResponseError: invalid options (status code: 400)"),
}


@pytest.mark.parametrize("case", NOT_RETRIED)
@pytest.mark.parametrize("role", ["narrator", "suggestion_refiner"])
def test_timeouts_and_client_errors_are_not_retried(server: FakeOllama, case: str, role: str) -> None:
    reply, reason = NOT_RETRIED[case]
    if reply is not None:
        server.always(ANY, reply)
    sleeps: list[float] = []
    started = time.monotonic()
    error = failed(client_for(server.url, timeout_s=0.3, sleeps=sleeps), role)
    assert time.monotonic() - started < 0.3 + SLACK_S  # the 0.3 s deadline held (a hang would take 30 s)
    model = MODELS[f"{role}_model"]
    assert str(error) == f"{role}: fallback after {reason.format(model=model)}"
    assert len(server.chat_requests()) == 1 and sleeps == []
    assert error.call is not None and (error.call.ok, error.call.outcome, error.call.retries) == (False, "fallback", 0)
    if case == "timeout":
        assert 300 <= error.call.latency_ms < (0.3 + SLACK_S) * 1000


def test_a_stream_broken_after_a_token_is_not_retried(server: FakeOllama) -> None:
    """The player has already seen the first words: a retry would tell the story twice."""
    server.always("nar", Reply(content="You look around. The", stream_error="model runner crashed"))
    tokens: list[str] = []
    sleeps: list[float] = []
    with pytest.raises(LLMUnavailable, match=r"^narrator: fallback after ResponseError: model runner crashed"):
        client_for(server.url, sleeps=sleeps).text("narrator", "s", "u", on_token=tokens.append)
    assert "".join(tokens) == "You look around."  # whole sentences only: the broken one never reached the player
    assert len(server.chat_requests()) == 1 and sleeps == []


@pytest.mark.parametrize("content", ["", "   \n  "])
def test_an_empty_text_reply_falls_back_without_a_retry(server: FakeOllama, content: str) -> None:
    server.always("dir", text(content))
    error = failed(client_for(server.url), "director")
    assert str(error) == "director: fallback after an empty reply"
    assert len(server.chat_requests()) == 1


# -- validation feedback --------------------------------------------------------------------------------------

TYPOS = {"suggestions": [
    {"label": "Help", "tone": "HEROIC", "risk": "SAFE"},
    {"label": "Look", "tone": "INVESTIGATE"},
    {"label": "Punch", "tone": "RENEGADE", "risk": "RISKY", "lable": "Punch"},
    {"label": "Wait", "tone": "NEUTRAL", "risk": "SAFE"},
], "note": "hope this helps"}
TYPOS_FEEDBACK = {
    "result": "validation_failed",
    "issues": {
        "invalid": [{"field": "suggestions[0].tone", "provided": "HEROIC", "problem": TONE_PROBLEM,
                     "requirement": "Tone, one of PARAGON, INVESTIGATE, RENEGADE, NEUTRAL"}],
        "missing": [{"field": "suggestions[1].risk", "requirement": "Risk, one of SAFE, RISKY, DANGEROUS"}],
        "unknown": ["suggestions[2].lable", "note"],
    },
    "issue_count": 4,
    "action": ACTION,
}


def test_an_invalid_reply_gets_feedback_and_the_fixed_reply_is_used(server: FakeOllama) -> None:
    server.queue("ref", json_reply(TYPOS), json_reply(VALID))
    value, metrics = client_for(server.url).structured("suggestion_refiner", RefinedSuggestions, "rules", "scene")
    assert [s.label for s in value.suggestions] == [s["label"] for s in VALID["suggestions"]]
    assert (metrics.ok, metrics.attempts, metrics.retries, metrics.feedback) == (True, 2, 0, [TYPOS_FEEDBACK])
    first, second = server.chat_requests("ref")
    assert first["messages"] == [{"role": "system", "content": "rules"}, {"role": "user", "content": "scene"}]
    # the retry carries the conversation on: the model's rejected reply, then the feedback as the user's turn
    assert second["messages"][:3] == first["messages"] + [{"role": "assistant", "content": json.dumps(TYPOS)}]
    sent = second["messages"][3]
    assert sent["role"] == "user" and len(second["messages"]) == 4
    feedback = json.loads(sent["content"])
    assert list(feedback) == ["result", "issues", "issue_count", "action"]
    assert list(feedback["issues"]) == ["invalid", "missing", "unknown"]
    assert feedback == TYPOS_FEEDBACK
    assert second["format"] == first["format"]  # still constrained to the schema


def reply_problem(field: str, problem: str, provided: str = "", requirement: str = "") -> dict[str, Any]:
    return {"field": field, "provided": provided, "problem": problem,
            "requirement": requirement or "a single JSON object matching the RefinedSuggestions schema"}


INVALID = {  # reply, the "invalid" issues the feedback names
    "not_json": (text("Sure! Here are four suggestions: 1. Help 2. Look 3. Punch 4. Wait"), [reply_problem(
        "(reply)", "not valid JSON (Invalid JSON: expected value at line 1 column 1)",
        "Sure! Here are four suggestions: 1. Help 2. Look 3. Punch 4. Wait")]),
    "three_items": (json_reply({"suggestions": VALID["suggestions"][:3]}), [reply_problem(
        "suggestions", "List should have at least 4 items after validation, not 3",
        json.dumps(VALID["suggestions"][:3])[:80] + "...",
        "exactly four, tones in the order PARAGON, INVESTIGATE, RENEGADE, NEUTRAL; list[RefinedSuggestion]")]),
    "bad_enum": (json_reply({"suggestions": [s | {"tone": "HEROIC"} for s in VALID["suggestions"]]}), [reply_problem(
        f"suggestions[{i}].tone", TONE_PROBLEM, "HEROIC", "Tone, one of PARAGON, INVESTIGATE, RENEGADE, NEUTRAL")
        for i in range(4)]),
    "json_array": (json_reply(["not", "an", "object"]), [reply_problem(
        "(reply)", "Input should be an object", '["not", "an", "object"]',
        "a JSON object matching the RefinedSuggestions schema")]),
    "empty": (empty(), [reply_problem("(reply)", "the reply is empty")]),
}


@pytest.mark.parametrize("case", INVALID)
def test_three_invalid_replies_fall_back(server: FakeOllama, case: str) -> None:
    reply, invalid = INVALID[case]
    server.always("ref", reply)
    sleeps: list[float] = []
    error = failed(client_for(server.url, sleeps=sleeps), "suggestion_refiner")
    assert str(error) == f"suggestion_refiner: fallback after {len(invalid)} validation issue(s) after 3 attempt(s)"
    expected = {"result": "validation_failed", "issues": {"invalid": invalid, "missing": [], "unknown": []},
                "issue_count": len(invalid), "action": ACTION}
    bodies = server.chat_requests("ref")
    assert [len(b["messages"]) for b in bodies] == [2, 4, 6]  # each retry adds the reply and its feedback
    assert [json.loads(b["messages"][-1]["content"]) for b in bodies[1:]] == [expected, expected]
    assert sleeps == []  # validation failures get feedback, not transient retries
    metrics = error.call
    assert metrics is not None and (metrics.ok, metrics.outcome, metrics.attempts) == (False, "fallback", 3)
    assert metrics.fallback_reason == str(error)
    assert metrics.feedback == [expected, expected]  # the feedback sent: none after the last attempt


def test_attempts_follow_the_role_setting(server: FakeOllama) -> None:
    server.always("ref", json_reply(TYPOS))
    error = failed(client_for(server.url, suggestion_refiner_attempts=1), "suggestion_refiner")
    assert str(error) == "suggestion_refiner: fallback after 4 validation issue(s) after 1 attempt(s)"
    assert len(server.chat_requests()) == 1
    assert error.call is not None and (error.call.attempts, error.call.feedback) == (1, [])


def test_a_transient_error_between_feedback_attempts_is_retried(server: FakeOllama) -> None:
    server.queue("ref", json_reply(TYPOS), http_error(500), json_reply(VALID))
    sleeps: list[float] = []
    _, metrics = client_for(server.url, sleeps=sleeps).structured("suggestion_refiner", RefinedSuggestions, "s", "u")
    assert (metrics.ok, metrics.attempts, metrics.retries, sleeps) == (True, 2, 1, [0.25])
    bodies = server.chat_requests("ref")
    assert len(bodies) == 3 and bodies[1]["messages"] == bodies[2]["messages"]  # the retry resends the feedback


# -- circuit breaker ------------------------------------------------------------------------------------------

OPEN = "narrator: fallback, circuit open after 3 consecutive failures ({} s left)"


def test_the_circuit_opens_after_three_failures_and_lets_a_trial_through_later(server: FakeOllama) -> None:
    server.always("nar", http_error(500)).always("dir", text("The director still answers."))
    clock, sleeps = Clock(), []
    client = client_for(server.url, sleeps=sleeps, clock=clock)
    for _ in range(3):
        assert failed(client, "narrator").call.outcome == "fallback"
    assert len(server.chat_requests("nar")) == 9  # 3 calls x (2 retries + 1)

    error = failed(client, "narrator")  # open: fails at once, no request
    assert str(error) == OPEN.format(60)
    skipped = error.call
    assert skipped is not None
    assert (skipped.role, skipped.model, skipped.ok, skipped.outcome) == ("narrator", "nar", False, "circuit_open")
    assert (skipped.attempts, skipped.latency_ms, skipped.fallback_reason) == (0, 0.0, str(error))
    clock.now += 30
    assert str(failed(client, "narrator")) == OPEN.format(30)
    clock.now += 29.9
    failed(client, "narrator")
    assert len(server.chat_requests("nar")) == 9
    assert client.text("director", "s", "u")[0] == "The director still answers."  # breakers are per role

    clock.now += 0.1  # breaker_seconds (60) have passed: one trial call goes through, and it works
    server.always("nar", text("Back in the story."))
    assert client.text("narrator", "s", "u")[0] == "Back in the story."
    assert len(server.chat_requests("nar")) == 10
    assert client.text("narrator", "s", "u")[0] == "Back in the story."  # closed again
    assert len(server.chat_requests("nar")) == 11


def test_a_failed_trial_call_opens_the_circuit_again(server: FakeOllama) -> None:
    server.always("nar", http_error(500))
    clock = Clock()
    client = client_for(server.url, sleeps=[], clock=clock)
    for _ in range(3):
        failed(client, "narrator")
    clock.now += 60
    assert failed(client, "narrator").call.outcome == "fallback"  # the trial call, retried and failed
    assert len(server.chat_requests("nar")) == 12
    error = failed(client, "narrator")
    assert str(error) == "narrator: fallback, circuit open after 4 consecutive failures (60 s left)"
    assert error.call.outcome == "circuit_open"
    assert len(server.chat_requests("nar")) == 12


def test_a_success_resets_the_failure_count(server: FakeOllama) -> None:
    server.queue("nar", *[http_error(500)] * 6, text("Fine."), *[http_error(500)] * 6).always("nar", text("Fine."))
    client = client_for(server.url, sleeps=[], clock=Clock())
    for _ in range(2):
        failed(client, "narrator")
    client.text("narrator", "s", "u")
    for _ in range(2):
        failed(client, "narrator")
    assert client.text("narrator", "s", "u")[0] == "Fine."  # 2 + 2 failures, never 3 in a row: still closed


def test_validation_failures_count_towards_the_breaker(server: FakeOllama) -> None:
    server.always("ref", text("no JSON here"))
    client = client_for(server.url, clock=Clock())
    for _ in range(3):
        failed(client, "suggestion_refiner")
    assert failed(client, "suggestion_refiner").call.outcome == "circuit_open"
    assert len(server.chat_requests("ref")) == 9  # 3 calls x 3 attempts


# -- offline --------------------------------------------------------------------------------------------------

def test_offline_client_raises_without_calling_the_server(server: FakeOllama) -> None:
    server.always(ANY, text("never sent"))
    client = LLMClient(Settings(ollama_base_url=server.url, llm="on", **MODELS), online=False)
    with pytest.raises(LLMUnavailable, match=r"^narrator: offline fallback") as info:
        client.text("narrator", "s", "u")
    assert info.value.call is None  # no call was made or skipped
    with pytest.raises(LLMUnavailable, match=r"^suggestion_refiner: offline fallback"):
        client.structured("suggestion_refiner", RefinedSuggestions, "s", "u")
    assert server.requests == []


def test_llm_off_setting_never_probes(server: FakeOllama) -> None:
    client = LLMClient(Settings(ollama_base_url=server.url, llm="off", **MODELS))
    assert not client.online
    with pytest.raises(LLMUnavailable, match="SKALD_LLM=off"):
        client.text("director", "s", "u")
    assert server.requests == []


def test_a_disabled_role_never_calls_the_server(server: FakeOllama) -> None:
    server.always(ANY, text("never sent"))
    client = client_for(server.url, narrator_enabled=False)
    with pytest.raises(LLMUnavailable, match=r"^narrator: offline fallback \(disabled by SKALD_NARRATOR_ENABLED\)"):
        client.text("narrator", "s", "u")
    assert server.requests == []


# -- the fake server itself -----------------------------------------------------------------------------------

def test_fake_server_answers_non_streaming_chat(server: FakeOllama) -> None:
    server.queue("nar", text("One reply.", eval_count=7))
    with ollama.Client(host=server.url, timeout=2) as raw:
        reply = raw.chat(model="nar", messages=[{"role": "user", "content": "hi"}], stream=False)
        assert reply.message.content == "One reply."
        assert reply.done and reply.done_reason == "stop"
        assert (reply.prompt_eval_count, reply.eval_count) == (1, 7)
        assert [m.model for m in raw.list().models] == ["dir", "nar", "ref"]
    assert server.chat_requests()[0]["stream"] is False


def test_fake_server_queue_then_standing_reply(server: FakeOllama) -> None:
    server.queue(ANY, text("any model")).queue("nar", text("nar first")).always("nar", text("standing"))
    client = client_for(server.url)
    replies = [client.text("narrator", "s", "u")[0] for _ in range(4)]
    assert replies == ["nar first", "any model", "standing", "standing"]


def test_fake_server_stops_cleanly_with_a_request_in_flight() -> None:
    before = {t.ident for t in threading.enumerate()}
    fake = FakeOllama().start()
    gate = Gate()
    fake.queue("nar", hang(30)).queue("dir", held("never finished", gate))  # stop() must wake both
    with pytest.raises(LLMUnavailable, match="LLMTimeout"):
        client_for(fake.url, timeout_s=0.2).text("narrator", "s", "u")
    with pytest.raises(LLMUnavailable, match="LLMTimeout"):
        client_for(fake.url, timeout_s=0.2).text("director", "s", "u")
    assert gate.reached.is_set() and not gate.opened.is_set()
    fake.stop()
    # the client's own worker threads ("skald-llm") end on their own; the fake must leave nothing behind
    assert [t.name for t in threading.enumerate() if t.ident not in before and t.name != "skald-llm"] == []


# -- closing --------------------------------------------------------------------------------------------------

def test_close_cuts_the_call_under_way_ends_background_work_and_calls_nothing_after(server: FakeOllama) -> None:
    gate = Gate()
    server.queue("dir", held("Keep it close.", gate, after=0))  # the model takes the request and says nothing
    client = client_for(server.url, timeout_s=600)  # no deadline of its own would end the call within the test
    running = client.briefs.start("c/main", "scene", lambda: client.text("director", "s", "u"))
    assert running is not None and gate.reached.wait(30), "the background call never reached the model"
    try:
        assert client.close(timeout=30) is True  # the call was cut, so the background job ended
        with pytest.raises(LLMUnavailable, match=r"^director: fallback after ClientClosed: the client was closed"):
            running.result(timeout=0)
        with pytest.raises(LLMUnavailable, match=r"^narrator: offline fallback \(the client is closed") as info:
            client.text("narrator", "s", "u")
        assert info.value.offline and info.value.call is None
        assert client.briefs.start("c/main", "other", lambda: client.text("director", "s", "u")) is None
        assert len(server.chat_requests()) == 1 and client.breakers["director"].consecutive == 0
    finally:
        gate.release()
