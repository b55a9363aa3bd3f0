"""The API's contract against a real uvicorn server on a loopback port (issue 12, defects 5 and 7): every error is
JSON as docs/api.md says and is declared in the OpenAPI schema, the schema states the constraints the validators
enforce, text that is not text is refused at the edge, campaign creation is bounded per client, /health names no
model or URL to strangers, request heads are bounded, and in-memory state does not grow with campaigns."""

from __future__ import annotations

import re
import socket
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_ollama import FakeOllama, json_reply, text
from jsonschema import Draft202012Validator
from pydantic import ValidationError
from skald.api import create_app
from skald.api.edge import MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_JSON_DEPTH
from skald.api.models import NewCampaign, TurnRequest
from skald.api.server import HTTP_LIMITS, LiveServer
from skald.graph import build_graph
from skald.llm.client import LLMClient
from skald.settings import Settings, get_settings
from test_api import TIMEOUT, Api, bearer, live

PACK = "cinder_reach"
JSON = {"Content-Type": "application/json"}
HTTP_LIMITS_BYTES = HTTP_LIMITS["h11_max_incomplete_event_size"]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with live(tmp_path_factory.mktemp("contract") / "skald.db", admin_key="admin-secret") as server:
        yield server


@pytest.fixture(scope="module")
def spec(api: Api) -> dict[str, Any]:
    return api.client.get("/openapi.json").json()


def conforms(spec: dict[str, Any], schema: dict[str, Any], value: Any) -> list[str]:
    """The ways ``value`` breaks ``schema`` (which may $ref the spec's components)."""
    validator = Draft202012Validator({**schema, "components": spec["components"]})
    return [error.message for error in validator.iter_errors(value)]


def error_body(spec: dict[str, Any], reply: httpx.Response, status: int) -> dict[str, Any]:
    """``reply``'s body, once it is the documented JSON error with that status."""
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"] == "application/json", (status, reply.headers, reply.text)
    body = reply.json()
    assert isinstance(body["detail"], str) and body["detail"], body
    assert not conforms(spec, {"$ref": "#/components/schemas/ErrorBody"}, body), body
    for leak in ("Traceback", ".py", "/work/"):
        assert leak not in body["detail"], body
    return body


# ---------------------------------------------------------------------------------------------- every error is JSON


def test_every_error_answer_is_the_documented_json(api: Api, spec: dict[str, Any], tmp_path: Path) -> None:
    cid, auth = api.new_campaign()
    big = b'{"input": "' + b"a" * (MAX_BODY_BYTES + 1) + b'"}'
    # 413: by Content-Length, on any route, and counted as a chunked body arrives
    for method, path in (("POST", f"/campaigns/{cid}/turns"), ("POST", "/campaigns"), ("GET", "/health"),
                         ("POST", "/no/such/route")):
        error_body(spec, api.client.request(method, path, content=big, headers=auth | JSON), 413)
    chunks = (b"a" * 4096 for _ in range(MAX_BODY_BYTES // 4096 + 2))
    error_body(spec, api.client.post("/campaigns", content=chunks, headers=JSON), 413)
    # 422 for a body that is not JSON the API reads (FastAPI answered 400 "There was an error parsing the body")
    deep = b'{"input": ' + b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1) + b"}"
    for raw, words in ((deep, f"more than {MAX_JSON_DEPTH} levels"), (b"[" * 50_000, "levels"),
                       (b'{"input": "look \xff"}', "not UTF-8"), (b'{"input": "look', "not valid JSON")):
        body = error_body(spec, api.client.post(f"/campaigns/{cid}/turns", content=raw, headers=auth | JSON), 422)
        assert words in body["detail"] and body["errors"][0]["loc"][0] == "body", body
    # 404 and 405 are written for a person; Allow names every method of the path, not the first route's
    assert "/docs" in error_body(spec, api.client.get("/no/such/route"), 404)["detail"]
    not_allowed = api.client.patch(f"/campaigns/{cid}", headers=auth)
    assert "DELETE, GET" in error_body(spec, not_allowed, 405)["detail"]
    assert not_allowed.headers["allow"] == "DELETE, GET"
    assert api.client.put("/packs").headers["allow"] == "GET"
    # 401, 403-less 422 and 409 keep their shapes
    error_body(spec, api.client.get(f"/campaigns/{cid}"), 401)
    assert error_body(spec, api.turn(cid, auth, "look", expected_turn=5), 409)["turn_number"] == 0
    assert error_body(spec, api.client.post("/campaigns", json={"pack": PACK, "seed": -1}), 422)["errors"]
    # 431: headers over the bound (arriving whole; see the header test for heads still arriving)
    error_body(spec, api.client.get("/health", headers={"X-Big": "a" * (MAX_HEADER_BYTES + 1)}), 431)
    # 429 and 500 on servers set up for them
    with live(tmp_path / "limited.db", create_per_minute=1) as limited:
        limited.new_campaign()
        over = limited.client.post("/campaigns", json={"pack": PACK})
        assert error_body(spec, over, 429) and 1 <= int(over.headers["retry-after"]) <= 60

    def broken(state, runtime):
        raise RuntimeError(f"boom in {Path(__file__).resolve()}")

    with live(tmp_path / "broken.db", graph=build_graph({"encounter": broken}).compile()) as failing:
        bad_cid, bad_auth = failing.new_campaign()
        assert set(error_body(spec, failing.turn(bad_cid, bad_auth, "look around"), 500)) == {"detail"}


# ---------------------------------------------------------------------------------------------- the schema


def test_the_schema_declares_each_error_a_route_can_answer(spec: dict[str, Any]) -> None:
    error_ref = {"$ref": "#/components/schemas/ErrorBody"}
    operations = {(method.upper(), path): op for path, ops in spec["paths"].items() for method, op in ops.items()}
    assert len(operations) >= 13
    for (method, path), op in operations.items():
        responses = op["responses"]
        assert {"405", "413", "431", "500"} <= set(responses), (method, path)
        assert "Allow" in responses["405"]["headers"], (method, path)
        for status, answer in responses.items():
            if int(status) >= 400 and not (path == "/health" and status == "503"):  # 503 /health: the Health body
                assert answer["content"] == {"application/json": {"schema": error_ref}}, (method, path, status)
        if path.startswith("/campaigns/{campaign_id}"):
            assert {"401", "404", "422", "503"} <= set(responses), (method, path)
            assert "WWW-Authenticate" in responses["401"]["headers"]
        if path.startswith("/campaigns/{campaign_id}/turns") and method == "POST":
            assert "409" in responses
    create = operations[("POST", "/campaigns")]["responses"]
    assert {"404", "422", "429"} <= set(create) and "Retry-After" in create["429"]["headers"]
    assert {"401", "403"} <= set(operations[("GET", "/campaigns")]["responses"])


def test_stream_events_in_the_schema_are_the_ones_sent(spec: dict[str, Any], tmp_path: Path) -> None:
    stream = spec["paths"]["/campaigns/{campaign_id}/turns/stream"]["post"]["responses"]["200"]
    branches = {branch["properties"]["event"]["const"]: branch["properties"]["data"]["contentSchema"]
                for branch in stream["content"]["text/event-stream"]["itemSchema"]["oneOf"]}
    # replace: tests/test_turn_budget.py; episode_complete: tests/test_episodes_api.py; cancelled (its data checked
    # against this schema there too): tests/test_turn_cancel.py
    assert set(branches) == {"progress", "token", "replace", "episode_complete", "turn", "error", "cancelled"}
    assert branches["error"]["properties"]["status"]["enum"] == [409, 422, 500, 503]

    def broken(state, runtime):
        raise RuntimeError("boom")

    with live(tmp_path / "stream.db") as good, live(tmp_path / "broken.db",
                                                     graph=build_graph({"narrator": broken}).compile()) as bad:
        cid, auth = good.new_campaign()
        events = good.stream(cid, auth, "look around")[1]
        bad_cid, bad_auth = bad.new_campaign()
        events += bad.stream(bad_cid, bad_auth, "look around")[1]
    assert {kind for kind, _ in events} == {"progress", "turn", "error"}
    for kind, data in events:
        assert not conforms(spec, branches[kind], data), (kind, data)


def _refused(model: type, field: str, value: str, **other: Any) -> bool:
    try:
        model.model_validate({field: value, **other})
    except ValidationError:
        return True
    return False


@pytest.mark.parametrize("model, field, allowed, other", [
    (NewCampaign, "name", "", {"pack": PACK}), (TurnRequest, "input", "\t\n", {})])
def test_the_schema_states_the_text_rules_the_validators_enforce(spec: dict[str, Any], model: type, field: str,
                                                                 allowed: str, other: dict[str, Any]) -> None:
    """Every code point of the Basic Multilingual Plane, between two letters: the schema's pattern and the validator
    agree, except on unassigned code points, which the validator refuses as the schema's description says."""
    schema = spec["components"]["schemas"][model.__name__]["properties"][field]
    pattern = re.compile(schema["pattern"])
    assert "unassigned" in schema["description"] and "surrogate" in schema["description"]
    disagree = []
    for cp in (*range(0xD800), *range(0xE000, 0x10000)):
        sample = f"a{chr(cp)}b"
        if bool(pattern.search(sample)) == _refused(model, field, sample, **other):
            disagree.append(cp)
    assert disagree and all(unicodedata.category(chr(cp)) == "Cn" for cp in disagree)
    for ch in "\u202a\u202e\u2066\u2069\u200b\u200c\u200d\u2060\ufeff\x00\x7f":
        assert not pattern.search(f"a{ch}b") and _refused(model, field, f"a{ch}b", **other), hex(ord(ch))
    for ch in allowed:
        assert pattern.search(f"a{ch}b") and not _refused(model, field, f"a{ch}b", **other)
    for blank in (" ", "  \t "):
        assert not pattern.search(blank) and _refused(model, field, blank, **other)
    longest = schema["maxLength"]
    assert longest == (40 if field == "name" else get_settings().max_input_chars)
    assert schema["minLength"] == 1
    assert not _refused(model, field, "x" * longest, **other) and _refused(model, field, "x" * (longest + 1), **other)


def test_the_schema_states_the_path_header_and_query_bounds(api: Api, spec: dict[str, Any]) -> None:
    cid, auth = api.new_campaign()
    params = {p["name"]: p["schema"] for p in spec["paths"]["/campaigns/{campaign_id}/turns"]["post"]["parameters"]}
    key = params["Idempotency-Key"]["anyOf"][0]
    assert (key["minLength"], key["maxLength"]) == (1, 255)
    assert api.turn(cid, auth, "look", headers={"Idempotency-Key": "k" * 256}).status_code == 422
    assert not re.search(key["pattern"], "bad key") and api.turn(
        cid, auth, "look", headers={"Idempotency-Key": "bad key"}).status_code == 422
    query = {p["name"]: p["schema"] for p in spec["paths"]["/campaigns/{campaign_id}/turns"]["get"]["parameters"]}
    assert (query["limit"]["minimum"], query["limit"]["maximum"]) == (1, 100)
    for limit, status in ((0, 422), (1, 200), (100, 200), (101, 422)):
        assert api.client.get(f"/campaigns/{cid}/turns", params={"limit": limit}, headers=auth).status_code == status


# ---------------------------------------------------------------------------------------------- text that is not text


def test_a_lone_surrogate_anywhere_in_a_body_is_refused_with_422(api: Api, spec: dict[str, Any]) -> None:
    """'\\ud800' is valid JSON but not text: it passed validation and crashed Commit with a 500."""
    cid, auth = api.new_campaign()
    cases = [(f"/campaigns/{cid}/turns", b'{"input": "look \\ud800around"}', ["body", "input"]),
             (f"/campaigns/{cid}/turns/stream", b'{"input": "\\udfff"}', ["body", "input"]),
             ("/campaigns", b'{"pack": "cinder_reach", "name": "Ada\\ud83d"}', ["body", "name"]),
             ("/campaigns", b'{"pack": "\\ud800"}', ["body", "pack"]),
             ("/campaigns", b'{"pack": "cinder_reach", "background": "\\udc00x"}', ["body", "background"]),
             ("/campaigns", b'{"pack": "cinder_reach", "\\ud800": 1}', ["body", "\\ud800"])]
    for path, raw, loc in cases:
        body = error_body(spec, api.client.post(path, content=raw, headers=auth | JSON), 422)
        assert "lone surrogate" in body["detail"] and body["errors"][0]["loc"] == loc, body
    assert api.client.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"] == 0
    paired = api.client.post(f"/campaigns/{cid}/turns", content=b'{"input": "wave \\ud83d\\ude00"}',
                             headers=auth | JSON)
    assert paired.status_code == 200 and paired.json()["input"] == "wave \U0001f600"


@pytest.mark.parametrize("ch", ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
                                "\u2069", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
def test_bidi_and_zero_width_characters_are_refused_in_input_as_in_names(api: Api, spec: dict[str, Any],
                                                                          ch: str) -> None:
    cid, auth = api.new_campaign()
    code = f"U+{ord(ch):04X}"
    assert code in error_body(spec, api.turn(cid, auth, f"sell{ch} the sword"), 422)["detail"]
    assert code in error_body(spec, api.client.post("/campaigns", json={"pack": PACK, "name": f"Ad{ch}a"}),
                              422)["detail"]
    assert api.client.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"] == 0


# ---------------------------------------------------------------------------------------------- rate limit


def test_creating_campaigns_is_bounded_per_client_ip_and_per_token(tmp_path: Path, spec: dict[str, Any]) -> None:
    """The bound is per client: uvicorn takes the client from X-Forwarded-For when the peer is a trusted proxy
    (127.0.0.1 by default), which lets one test be several clients."""
    with live(tmp_path / "limited.db", create_per_minute=3) as api:
        def create(ip: str, **headers: str) -> httpx.Response:
            return api.client.post("/campaigns", json={"pack": PACK, "seed": 1},
                                   headers={"X-Forwarded-For": ip} | headers)

        assert [create("203.0.113.1").status_code for _ in range(3)] == [201, 201, 201]
        over = create("203.0.113.1")
        body = error_body(spec, over, 429)
        assert "3 a minute" in body["detail"] and 1 <= int(over.headers["retry-after"]) <= 60
        assert create("203.0.113.2").status_code == 201  # another client is not affected
        # one token, three addresses: the token's own bound applies
        token = {"Authorization": "Bearer shared-front-end"}
        assert [create(f"198.51.100.{n}", **token).status_code for n in range(4)] == [201, 201, 201, 429]
    with live(tmp_path / "default.db", create_per_minute=None) as api:  # the setting: 10 a minute
        assert get_settings().api_create_per_minute == 10
        statuses = [api.client.post("/campaigns", json={"pack": "no_such_pack"}).status_code for _ in range(11)]
        assert statuses == [404] * 10 + [429]  # every request counts, whatever its answer


# ---------------------------------------------------------------------------------------------- /health


def test_health_names_models_and_urls_only_to_the_admin_key(tmp_path: Path) -> None:
    with FakeOllama(models=["dir-model-x", "nar-model-y", "ref-model-z"]) as fake:
        fake.always("dir-model-x", text("Keep it quiet.")).always("nar-model-y", text("The lamps hum."))
        fake.always("ref-model-z", json_reply({"suggestions": []}))
        llm = LLMClient(Settings(ollama_base_url=fake.url, llm="on", llm_timeout_s=30, director_model="dir-model-x",
                                 narrator_model="nar-model-y", suggestion_refiner_model="ref-model-z",
                                 evaluator_model="ref-model-z"))
        with live(tmp_path / "health.db", llm=llm, admin_key="ops-key") as api:
            secrets = ["dir-model-x", "nar-model-y", "ref-model-z", fake.url, "127.0.0.1"]
            for headers in ({}, bearer("wrong")):
                public = api.client.get("/health", headers=headers)
                assert public.status_code == 200 and public.json()["llm"]["online"] is True
                roles = public.json()["llm"]["roles"]
                assert all(r["reachable"] for name, r in roles.items() if r["enabled"])  # off roles are not probed
                assert not [s for s in secrets if s in public.text], public.text
            full = api.client.get("/health", headers=bearer("ops-key")).json()
            assert full["llm"]["roles"]["narrator"]["model"] == "nar-model-y"
            assert full["llm"]["roles"]["director"]["base_url"] == fake.url


# ---------------------------------------------------------------------------------------------- request heads


def _raw(url: str, head: bytes) -> bytes:
    """Send a request head on a fresh connection; what the server answers before it closes (5 s at most)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as conn:
        conn.sendall(head)
        answer = b""
        while chunk := conn.recv(65536):  # a server that waits for more makes this time out: the test fails
            answer += chunk
            if b"\r\n\r\n" in answer and answer.rstrip().endswith((b"}", b".")):
                break
        return answer


def test_an_oversized_request_head_gets_a_4xx_not_a_hang(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    url = str(api.client.base_url).rstrip("/")
    whole = _raw(url, b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (2 * MAX_HEADER_BYTES) + b"\r\n\r\n")
    assert whole.startswith(b"HTTP/1.1 431 ") and b'"detail"' in whole
    # a head still arriving past uvicorn's bound (it never ends here): refused, not waited for
    trickle = _raw(url, b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (HTTP_LIMITS_BYTES + 100))
    assert trickle.startswith(b"HTTP/1.1 400 "), trickle[:80]
    fine = _raw(url, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Ok: " + b"a" * 4000 + b"\r\n\r\n")
    assert fine.startswith(b"HTTP/1.1 200 ")
    # skald serve runs uvicorn with the same bound
    from skald.api import server

    seen: dict[str, Any] = {}
    monkeypatch.setattr(server, "create_app", lambda *args, **kw: None)
    monkeypatch.setattr(server.uvicorn, "run", lambda app, **kw: seen.update(kw))
    server.serve(port=0)
    assert seen["http"] == "h11" and seen["h11_max_incomplete_event_size"] == HTTP_LIMITS_BYTES


# ---------------------------------------------------------------------------------------------- memory


def test_in_memory_state_does_not_grow_with_campaigns(tmp_path: Path) -> None:
    """What the server keeps per campaign (the busy set, the pack each campaign last played) or per client (the
    creation counts) stays bounded by what is in flight and by clients, not by campaigns played or deleted."""
    app = create_app(tmp_path / "many.db", reload_packs=True, pack_poll_s=0, create_per_minute=1000)
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=TIMEOUT) as client:
        api = Api(client, tmp_path / "many.db")
        for n in range(40):
            cid, auth = api.new_campaign(seed=n)
            assert api.turn(cid, auth, "look around").status_code == 200
            if n % 4 == 0:
                assert api.stream(cid, auth, "look around")[1][-1][0] == "turn"
            assert api.client.delete(f"/campaigns/{cid}", headers=auth).status_code == 204
        engine = app.state.engine
        assert engine._busy == {}  # no campaign held, no slot kept
        assert engine.packs._campaign_packs == {}
        assert len(app.state.create_limit.storage.events) == 1  # one client, however many campaigns


def test_error_bodies_in_docs_name_every_status(spec: dict[str, Any]) -> None:
    """docs/api.md's error table lists each status the schema declares."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
    table = doc[doc.index("## Errors"):doc.index("## Turns, races and retries")]
    declared = {int(status) for ops in spec["paths"].values() for op in ops.values() for status in op["responses"]
                if int(status) >= 400}
    listed = {int(m) for m in re.findall(r"^\| (\d{3}) \|", table, re.M)}
    assert declared <= listed, declared - listed
