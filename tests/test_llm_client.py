"""``LLMClient`` and ``probe_ollama`` driving the real ``ChatOllama`` against a fake Ollama on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import ollama
import pytest
from fake_ollama import ANY, FakeOllama, Reply, empty, hang, http_error, json_reply, slow, text
from skald.llm.client import LLMClient, LLMUnavailable, probe_ollama
from skald.nodes.refiner import RefinedSuggestions
from skald.settings import Settings

MODELS = {"director_model": "dir", "narrator_model": "nar", "suggestion_refiner_model": "ref"}
TONES = ["PARAGON", "INVESTIGATE", "RENEGADE", "NEUTRAL"]
VALID = {"suggestions": [{"label": f"Do the {t.lower()} thing", "tone": t, "risk": "SAFE"} for t in TONES]}


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


def client_for(url: str, timeout_s: float = 2.0, **kw: object) -> LLMClient:
    settings = Settings(ollama_base_url=url, llm="on", llm_timeout_s=timeout_s, **MODELS | kw)
    return LLMClient(settings)


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


# -- replies --------------------------------------------------------------------------------------------------

def test_text_reply_and_metric(server: FakeOllama) -> None:
    server.always("nar", text("You look around. The bar is loud and hot."))
    reply, call = client_for(server.url).text("narrator", "system rules", "the scene")
    assert reply == "You look around. The bar is loud and hot."
    assert (call.role, call.model, call.ok) == ("narrator", "nar", True)
    assert call.latency_ms >= 0 and call.fallback_reason is None
    [body] = server.chat_requests()
    assert body["model"] == "nar"
    assert body["stream"] is True  # ChatOllama streams even for invoke()
    assert body["messages"] == [{"role": "system", "content": "system rules"}, {"role": "user", "content": "the scene"}]
    assert body["options"]["temperature"] == 0.7
    assert "format" not in body


def test_each_role_uses_its_own_model(server: FakeOllama) -> None:
    for model in ("dir", "nar", "ref"):
        server.always(model, text(f"from {model}"))
    client = client_for(server.url)
    replies = {role: client.text(role, "s", "u")[0] for role in ("director", "narrator", "suggestion_refiner")}
    assert replies == {"director": "from dir", "narrator": "from nar", "suggestion_refiner": "from ref"}
    assert [b["model"] for b in server.chat_requests()] == ["dir", "nar", "ref"]


def test_a_trickling_stream_is_cut_at_the_deadline(server: FakeOllama) -> None:
    """The role's timeout bounds the whole call, not each read: a steady trickle cannot outlast it."""
    content = "You wait. " * 6
    server.queue("nar", slow(content, chunk_delay_s=0.12, chunk_chars=10))  # 7 lines, ~0.84 s in all
    tokens: list[str] = []
    with pytest.raises(LLMUnavailable, match="narrator: fallback after LLMTimeout") as caught:
        client_for(server.url, timeout_s=0.5).text("narrator", "s", "u", on_token=tokens.append)
    assert tokens and "".join(tokens) != content  # some tokens arrived before the deadline cut the call
    call = caught.value.call
    assert call is not None and not call.ok and call.ttft_ms is not None
    assert 450 <= call.latency_ms < 800


def test_a_stream_inside_the_deadline_arrives_token_by_token(server: FakeOllama) -> None:
    content = "You wait. " * 6
    server.queue("nar", slow(content, chunk_delay_s=0.02, chunk_chars=10))
    tokens: list[str] = []
    reply, call = client_for(server.url, timeout_s=5).text("narrator", "s", "u", on_token=tokens.append)
    assert reply == content and "".join(tokens) == content and len(tokens) >= 6
    assert call.ok and call.ttft_ms is not None and call.ttft_ms <= call.latency_ms


def test_structured_reply_is_parsed_into_the_schema(server: FakeOllama) -> None:
    server.always("ref", json_reply(VALID))
    value, call = client_for(server.url).structured("suggestion_refiner", RefinedSuggestions, "rules", "scene")
    assert isinstance(value, RefinedSuggestions)
    assert [s.tone.value for s in value.suggestions] == TONES
    assert value.suggestions[0].label == "Do the paragon thing"
    assert (call.role, call.model, call.ok) == ("suggestion_refiner", "ref", True)
    [body] = server.chat_requests("ref")
    assert body["format"] == RefinedSuggestions.model_json_schema()  # method="json_schema": Ollama's format
    assert body["stream"] is True
    assert body["options"]["temperature"] == 0.2
    assert not body.get("tools")


def test_client_recovers_after_a_timeout(server: FakeOllama) -> None:
    server.queue("nar", hang(30)).always("nar", text("Back again."))
    client = client_for(server.url, timeout_s=0.5)
    with pytest.raises(LLMUnavailable, match="Timeout"):
        client.text("narrator", "s", "u")
    assert client.text("narrator", "s", "u")[0] == "Back again."


# -- failures -------------------------------------------------------------------------------------------------

FAILURES = {
    "timeout": (hang(30), "ReadTimeout"),
    "http_500": (http_error(500), "status code: 500"),
    "unknown_model": (None, "status code: 404"),
    "error_mid_stream": (Reply(content="You look", stream_error="model runner crashed"), "model runner crashed"),
}


@pytest.mark.parametrize("case", FAILURES)
@pytest.mark.parametrize("role", ["narrator", "suggestion_refiner"])
def test_transport_failures_raise_llm_unavailable(server: FakeOllama, case: str, role: str) -> None:
    reply, expected = FAILURES[case]
    if reply is not None:
        server.always(ANY, reply)
    client = client_for(server.url, timeout_s=0.5)
    with pytest.raises(LLMUnavailable, match=expected) as info:
        if role == "narrator":
            client.text(role, "s", "u")
        else:
            client.structured(role, RefinedSuggestions, "s", "u")
    assert str(info.value).startswith(f"{role}: fallback after ")
    assert "\n" not in str(info.value)
    assert len(server.chat_requests()) == 1  # no retries


@pytest.mark.parametrize("reply", [
    text("Sure! Here are four suggestions: 1. Help 2. Look 3. Punch 4. Wait"),
    json_reply({"suggestions": VALID["suggestions"][:3]}),
    json_reply({"suggestions": [s | {"tone": "HEROIC"} for s in VALID["suggestions"]]}),
    json_reply(["not", "an", "object"]),
    empty(),
], ids=["not_json", "three_items", "bad_enum", "json_array", "empty"])
def test_invalid_structured_replies_raise_llm_unavailable(server: FakeOllama, reply: Reply) -> None:
    server.always("ref", reply)
    with pytest.raises(LLMUnavailable, match=r"^suggestion_refiner: fallback after OutputParserException"):
        client_for(server.url).structured("suggestion_refiner", RefinedSuggestions, "s", "u")


@pytest.mark.parametrize("content", ["", "   \n  "])
def test_empty_text_reply_raises_llm_unavailable(server: FakeOllama, content: str) -> None:
    server.always("dir", text(content))
    with pytest.raises(LLMUnavailable, match=r"^director: fallback after an empty reply"):
        client_for(server.url).text("director", "s", "u")


def test_offline_client_raises_without_calling_the_server(server: FakeOllama) -> None:
    server.always(ANY, text("never sent"))
    client = LLMClient(Settings(ollama_base_url=server.url, llm="on", **MODELS), online=False)
    with pytest.raises(LLMUnavailable, match=r"^narrator: offline fallback"):
        client.text("narrator", "s", "u")
    with pytest.raises(LLMUnavailable, match=r"^suggestion_refiner: offline fallback"):
        client.structured("suggestion_refiner", RefinedSuggestions, "s", "u")
    assert server.requests == []


def test_llm_off_setting_never_probes(server: FakeOllama) -> None:
    client = LLMClient(Settings(ollama_base_url=server.url, llm="off", **MODELS))
    assert not client.online
    with pytest.raises(LLMUnavailable, match="SKALD_LLM=off"):
        client.text("director", "s", "u")
    assert server.requests == []


# -- the fake server itself -----------------------------------------------------------------------------------

def test_fake_server_answers_non_streaming_chat(server: FakeOllama) -> None:
    server.queue("nar", text("One reply."))
    with ollama.Client(host=server.url, timeout=2) as raw:
        reply = raw.chat(model="nar", messages=[{"role": "user", "content": "hi"}], stream=False)
        assert reply.message.content == "One reply."
        assert reply.done and reply.done_reason == "stop"
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
    fake.always("nar", hang(30))  # stop() must wake this, not wait it out
    with pytest.raises(LLMUnavailable, match="Timeout"):
        client_for(fake.url, timeout_s=0.2).text("narrator", "s", "u")
    fake.stop()
    assert {t.ident for t in threading.enumerate()} <= before
