"""The HTTP API against a real uvicorn server on a loopback port (httpx as the client): campaigns, turns, streaming,
the transcript, authentication, idempotency, races and error responses."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_ollama import FakeOllama, json_reply, text
from history import free_port
from skald.api import create_app
from skald.api.server import LiveServer
from skald.graph import PIPELINE, build_graph
from skald.llm.client import LLMClient
from skald.nodes.director import director
from skald.packs import loader
from skald.settings import ROLES, Settings
from skald.store.db import connect
from skald.store.schema import SCHEMA_VERSION

BOTH_STORES = True  # tests that take the fresh_db fixture run on SQLite and on PostgreSQL (conftest)
PACK = "cinder_reach"
TIMEOUT = httpx.Timeout(20.0)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclasses.dataclass
class Api:
    """A client of one live server, plus the save file it plays on."""

    client: httpx.Client
    db: Path

    def new_campaign(self, seed: int = 7, **extra: Any) -> tuple[str, dict[str, str]]:
        reply = self.client.post("/campaigns", json={"pack": PACK, "seed": seed} | extra)
        assert reply.status_code == 201, reply.text
        body = reply.json()
        return body["campaign_id"], bearer(body["token"])

    def turn(self, cid: str, auth: dict[str, str], line: str, **kw: Any) -> httpx.Response:
        headers = auth | kw.pop("headers", {})
        return self.client.post(f"/campaigns/{cid}/turns", json={"input": line} | kw, headers=headers)

    def stream(self, cid: str, auth: dict[str, str], line: str, **kw: Any) -> tuple[httpx.Response, list]:
        headers = auth | kw.pop("headers", {})
        with self.client.stream("POST", f"/campaigns/{cid}/turns/stream", json={"input": line} | kw,
                                headers=headers) as reply:
            if reply.status_code == 200:
                events = sse_events(reply.iter_lines())
            else:
                events = []
                reply.read()
        return reply, events


def sse_events(lines: Iterator[str]) -> list[tuple[str, Any]]:
    """(event, decoded data) pairs of a text/event-stream body (comments such as keep-alive pings skipped)."""
    events, kind, data = [], None, []
    for line in lines:
        if line == "":
            if kind is not None or data:
                events.append((kind or "message", json.loads("\n".join(data)) if data else None))
            kind, data = None, []
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if kind is not None or data:
        events.append((kind or "message", json.loads("\n".join(data)) if data else None))
    return events


@contextmanager
def live(db: Path, **app_kw: Any) -> Iterator[Api]:
    """A live server on ``db``; campaigns are not rate-limited unless ``create_per_minute`` says so."""
    app = create_app(db, **{"create_per_minute": 0} | app_kw)
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=TIMEOUT) as client:
        yield Api(client, db)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with live(tmp_path_factory.mktemp("api") / "skald.db", admin_key="admin-secret") as server:
        yield server


class Gated:
    """A turn graph whose Director waits for :meth:`open` (so a test can hold a turn in flight)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.graph = build_graph({"director": self._director}).compile()

    def _director(self, state, runtime):
        self.entered.set()
        assert self.gate.wait(20), "test never opened the gate"
        return director(state, runtime)

    def open(self) -> None:
        self.gate.set()


# ---------------------------------------------------------------------------------------------- server


def test_health_reports_the_database_and_each_llm_role_offline(api: Api) -> None:
    body = api.client.get("/health").json()
    assert body["status"] == "ok" and body["db"]["ok"] and body["db"]["schema_version"] == SCHEMA_VERSION
    assert set(body["llm"]["roles"]) == set(ROLES)
    assert body["llm"]["online"] is False
    assert all(role["reachable"] is None for role in body["llm"]["roles"].values())


def test_packs_list_backgrounds_and_start_locations(api: Api) -> None:
    packs = {p["id"]: p for p in api.client.get("/packs").json()}
    assert PACK in packs
    cinder = packs[PACK]
    assert cinder["backgrounds"] and all(b["id"] and b["name"] for b in cinder["backgrounds"])
    assert cinder["start_locations"] and all(loc["name"] for loc in cinder["start_locations"])


def test_openapi_docs_are_served(api: Api) -> None:
    assert api.client.get("/docs").status_code == 200
    spec = api.client.get("/openapi.json").json()
    assert {"/health", "/packs", "/campaigns", "/campaigns/{campaign_id}/turns",
            "/campaigns/{campaign_id}/turns/stream"} <= set(spec["paths"])


# ---------------------------------------------------------------------------------------------- playing


def test_create_play_ten_turns_and_page_the_transcript(api: Api) -> None:
    reply = api.client.post("/campaigns", json={"pack": PACK, "name": "Ada", "seed": 11})
    assert reply.status_code == 201
    created = reply.json()
    cid, auth = created["campaign_id"], bearer(created["token"])
    assert created["state"]["name"] == "Ada" and created["state"]["turn_number"] == 0
    assert len(created["scene"]["suggestions"]) == 4 and "Ada" in created["scene"]["text"]
    lines = ["look around", "talk to the bartender", "/status", "ask about work", "search the room", "/inventory",
             "go outside", "look around", "listen to the crowd", "/quests", "wait a while", "look around"]
    story = [line for line in lines if not line.startswith("/")]  # a /command is answered, not played as a turn
    number = 0
    for line in lines:
        reply = api.turn(cid, auth, line)
        assert reply.status_code == 200, reply.text
        body = reply.json()
        number += not line.startswith("/")
        assert body["turn_number"] == number and body["input"] == line
        assert body["text"] and len(body["suggestions"]) == 4 and isinstance(body["warnings"], list)
        assert body["intent"] in ("ACTION", "TALK", "META")
        assert {"location", "hp", "credits", "time_of_day"} <= set(body["state"])
    state = api.client.get(f"/campaigns/{cid}", headers=auth).json()
    assert state["turn_number"] == len(story) == 9 and state["name"] == "Ada"

    page = api.client.get(f"/campaigns/{cid}/turns", params={"after_turn": 3, "limit": 4}, headers=auth).json()
    assert page["total"] == 9 and page["next_after_turn"] == 7
    assert [t["turn_number"] for t in page["turns"]] == [4, 5, 6, 7]
    assert [t["input"] for t in page["turns"]] == story[3:7]
    everything = api.client.get(f"/campaigns/{cid}/turns", params={"limit": 100}, headers=auth).json()["turns"]
    assert [t["turn_number"] for t in everything] == list(range(1, 10))
    last = api.client.get(f"/campaigns/{cid}/turns", params={"after_turn": 7}, headers=auth).json()
    assert [t["turn_number"] for t in last["turns"]] == [8, 9] and last["next_after_turn"] is None
    assert api.client.get(f"/campaigns/{cid}/turns", params={"after_turn": 9}, headers=auth).json()["turns"] == []
    assert api.client.get(f"/campaigns/{cid}/turns", params={"limit": 0}, headers=auth).status_code == 422

    scene = api.client.get(f"/campaigns/{cid}/scene", headers=auth).json()
    assert scene["turn_number"] == 9 and scene["text"].startswith("You are back in") and len(scene["suggestions"]) == 4
    for part in ("rumors", "party", "quests", "news", "inventory"):
        assert api.client.get(f"/campaigns/{cid}/{part}", headers=auth).status_code == 200
    rumors = api.client.get(f"/campaigns/{cid}/rumors", headers=auth).json()
    assert rumors["public"] and all(r["text"] for r in rumors["public"])


def test_a_streamed_turn_sends_progress_in_graph_order_then_the_turn(api: Api) -> None:
    cid, auth = api.new_campaign()
    reply, events = api.stream(cid, auth, "look around")
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/event-stream")
    kinds = [kind for kind, _ in events]
    assert [data["node"] for kind, data in events if kind == "progress"] == ["router", "mechanic", *PIPELINE]
    assert kinds[-1] == "turn" and kinds.count("turn") == 1 and "error" not in kinds
    turn = events[-1][1]
    assert turn["turn_number"] == 1 and len(turn["suggestions"]) == 4
    # the same shape as the plain endpoint, and the campaign moved on by one turn
    plain = api.turn(cid, auth, "look around").json()
    assert set(plain) == set(turn) and plain["turn_number"] == 2


def test_streamed_tokens_arrive_before_the_turn_with_an_online_narrator(tmp_path: Path) -> None:
    prose = "The lamps hum over the bar. Someone laughs too loudly. You watch the door and wait for a sign."
    with FakeOllama(models=["dir", "nar", "ref"]) as fake:
        fake.always("dir", text("Keep it quiet.")).always("nar", dataclasses.replace(text(prose), chunk_chars=12))
        fake.always("ref", json_reply({"suggestions": []}))  # rejected: the engine's own suggestions stay
        llm = LLMClient(Settings(ollama_base_url=fake.url, llm="on", llm_timeout_s=30, retry_backoff_s=0.01,
                                 director_model="dir", narrator_model="nar", suggestion_refiner_model="ref",
                                 evaluator_model="ref"))
        with live(tmp_path / "online.db", llm=llm) as api:
            health = api.client.get("/health").json()
            roles = health["llm"]["roles"]
            assert health["llm"]["online"] and all(r["reachable"] for k, r in roles.items() if r["enabled"])
            cid, auth = api.new_campaign()
            reply, events = api.stream(cid, auth, "look around")
    kinds = [kind for kind, _ in events]
    tokens = [data["text"] for kind, data in events if kind == "token"]
    assert "".join(tokens) == prose and len(tokens) == 3  # a sentence at a time, each as soon as it is whole
    first_token, last_token = kinds.index("token"), len(kinds) - 1 - kinds[::-1].index("token")
    assert kinds.index("progress") < first_token and last_token < kinds.index("turn") == len(kinds) - 1
    narrator_done = events.index(("progress", {"node": "narrator"}))
    assert last_token < narrator_done  # streamed while the narrator ran, not replayed afterwards
    assert events[-1][1]["text"].startswith(prose) and len(events[-1][1]["suggestions"]) == 4


# ---------------------------------------------------------------------------------------------- access


def test_tokens_are_per_campaign_and_a_wrong_token_learns_nothing(api: Api) -> None:
    a, auth_a = api.new_campaign(seed=1)
    b, auth_b = api.new_campaign(seed=2)
    assert api.turn(b, auth_b, "look around").status_code == 200
    attempts = [("GET", f"/campaigns/{b}", None), ("GET", f"/campaigns/{b}/turns", None),
                ("GET", f"/campaigns/{b}/rumors", None), ("GET", f"/campaigns/{b}/party", None),
                ("GET", f"/campaigns/{b}/quests", None), ("GET", f"/campaigns/{b}/map", None),
                ("GET", f"/campaigns/{b}/map.svg", None), ("POST", f"/campaigns/{b}/turns", {"input": "look"}),
                ("POST", f"/campaigns/{b}/turns/stream", {"input": "look"}), ("DELETE", f"/campaigns/{b}", None)]
    answers = set()
    for method, path, body in attempts:
        for headers in (auth_a, {}, bearer("x" * 43), {"Authorization": "Basic abc"}, {"Authorization": "Bearer"}):
            reply = api.client.request(method, path, json=body, headers=headers)
            assert reply.status_code == 401, (method, path, headers, reply.text)
            assert reply.headers["www-authenticate"] == "Bearer"
            answers.add(reply.text)
    # a campaign that does not exist answers exactly the same
    for path in ("/campaigns/nope", "/campaigns/nope/turns"):
        reply = api.client.get(path, headers=auth_a)
        assert reply.status_code == 401
        answers.add(reply.text)
    assert len(answers) == 1 and b not in answers.pop()
    assert api.client.get(f"/campaigns/{b}", headers=auth_b).json()["turn_number"] == 1  # untouched
    assert api.client.get(f"/campaigns/{a}", headers=auth_a).json()["turn_number"] == 0


def test_the_map_marks_where_you_are_and_have_been(api: Api) -> None:
    """GET .../map: every place and each way once, the current place and the visited ones (the drawing of it,
    .../map.svg, is tests/test_pack_map.py's)."""
    cid, auth = api.new_campaign(seed=8)
    start = api.client.get(f"/campaigns/{cid}", headers=auth).json()["location"]
    assert api.turn(cid, auth, "go to the union hall").json()["state"]["location"] == "union_hall"
    body = api.client.get(f"/campaigns/{cid}/map", headers=auth).json()
    pack = loader.get_pack(PACK)
    assert [p["id"] for p in body["locations"]] == list(pack.locations)
    assert [p["id"] for p in body["locations"] if p["current"]] == ["union_hall"]
    assert {p["id"] for p in body["locations"] if p["visited"]} >= {start, "union_hall"}
    pairs = [frozenset((link["a"], link["b"])) for link in body["links"]]
    assert len(pairs) == len(set(pairs)) == len({frozenset((p.id, k.to)) for p in pack.locations.values()
                                                 for k in p.links})
    assert not {"hazards", "npcs", "people"} & {key for p in body["locations"] for key in p}


def test_tokens_are_stored_only_as_hashes(api: Api) -> None:
    reply = api.client.post("/campaigns", json={"pack": PACK, "seed": 5}).json()
    conn = connect(api.db)
    row = conn.execute("SELECT token_hash FROM api_tokens WHERE campaign_id = ?", (reply["campaign_id"],)).fetchone()
    conn.close()
    assert row[0] == hashlib.sha256(reply["token"].encode()).hexdigest() and reply["token"] not in row[0]
    assert len(reply["token"]) >= 43


def test_only_the_admin_key_lists_campaigns(api: Api, tmp_path: Path) -> None:
    cid, _ = api.new_campaign()
    assert api.client.get("/campaigns").status_code == 401
    assert api.client.get("/campaigns", headers=bearer("wrong")).status_code == 401
    listed = api.client.get("/campaigns", headers=bearer("admin-secret")).json()["campaigns"]
    assert cid in {c["campaign_id"] for c in listed}
    with live(tmp_path / "noadmin.db") as other:
        reply = other.client.get("/campaigns", headers=bearer("admin-secret"))
        assert reply.status_code == 403 and "SKALD_ADMIN_KEY" in reply.json()["detail"]


def test_delete_removes_every_row_and_the_token_stops_working(api: Api) -> None:
    cid, auth = api.new_campaign()
    for line in ("look around", "talk to the bartender"):
        assert api.turn(cid, auth, line, headers={"Idempotency-Key": line.replace(" ", "-")}).status_code == 200
    assert api.client.delete(f"/campaigns/{cid}", headers=auth).status_code == 204
    assert api.client.get(f"/campaigns/{cid}", headers=auth).status_code == 401
    conn = connect(api.db)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        columns = {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}
        column = "id" if table == "campaigns" else "campaign_id" if "campaign_id" in columns else None
        if column:
            count = conn.execute(f'SELECT COUNT(*) FROM "{table}" WHERE {column} = ?', (cid,)).fetchone()[0]
            assert count == 0, table
    conn.close()


# ---------------------------------------------------------------------------------------------- idempotency


def test_a_retry_with_the_same_idempotency_key_returns_the_original_result(api: Api) -> None:
    cid, auth = api.new_campaign()
    first = api.turn(cid, auth, "look around", headers={"Idempotency-Key": "turn-1"})
    again = api.turn(cid, auth, "look around", headers={"Idempotency-Key": "turn-1"})
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    # the streamed endpoint honours the same keys
    reply, events = api.stream(cid, auth, "look around", headers={"Idempotency-Key": "turn-1"})
    assert events == [("turn", first.json())]
    assert api.client.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"] == 1
    # a new key plays a new turn; an old key with another input is refused
    assert api.turn(cid, auth, "look around", headers={"Idempotency-Key": "turn-2"}).json()["turn_number"] == 2
    reused = api.turn(cid, auth, "go outside", headers={"Idempotency-Key": "turn-1"})
    assert reused.status_code == 422 and "Idempotency-Key" in reused.json()["detail"]
    # keys are per campaign
    other, other_auth = api.new_campaign()
    assert api.turn(other, other_auth, "look around", headers={"Idempotency-Key": "turn-1"}).json()["turn_number"] == 1
    assert api.client.get(f"/campaigns/{cid}/turns", headers=auth).json()["total"] == 2


def test_a_failure_inside_the_commit_leaves_neither_the_turn_nor_its_key(api: Api, monkeypatch) -> None:
    from skald.store import idempotency

    cid, auth = api.new_campaign()

    def disk_full(*args, **kwargs):  # runs inside the turn's transaction, after the key was written
        exc = sqlite3.OperationalError("database or disk is full")
        exc.sqlite_errorcode, exc.sqlite_errorname = 13, "SQLITE_FULL"  # as SQLite sets them
        raise exc

    monkeypatch.setattr(idempotency, "prune", disk_full)
    failed = api.turn(cid, auth, "look around", headers={"Idempotency-Key": "k1"})
    assert failed.status_code == 503 and failed.headers["retry-after"] == "5"
    assert failed.json()["reason"] == "disk_full" and "nothing already saved was lost" in failed.json()["detail"]
    assert str(api.db) not in failed.text  # the server's paths are not the client's business
    conn = connect(api.db)
    assert conn.execute("SELECT COUNT(*) FROM api_idempotency WHERE campaign_id = ?", (cid,)).fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM turns WHERE campaign_id = ?", (cid,)).fetchone()[0] == 0
    conn.close()
    monkeypatch.undo()
    first = api.turn(cid, auth, "look around", headers={"Idempotency-Key": "k1"})
    assert first.status_code == 200 and first.json()["turn_number"] == 1 and "idempotent-replayed" not in first.headers
    again = api.turn(cid, auth, "look around", headers={"Idempotency-Key": "k1"})
    assert again.headers["idempotent-replayed"] == "true" and again.json() == first.json()
    assert api.client.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"] == 1


def _sha(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()


# ---------------------------------------------------------------------------------------------- races


def test_two_racing_turns_on_one_campaign_one_commits_and_the_other_gets_409(api: Api) -> None:
    cid, auth = api.new_campaign()
    assert api.turn(cid, auth, "look around").status_code == 200
    barrier = threading.Barrier(2)
    for _ in range(3):  # a few rounds: whichever way the race goes, exactly one wins
        number = api.client.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"]
        barrier.reset()

        def play_at(line: str, number: int = number) -> httpx.Response:
            barrier.wait(30)
            return api.turn(cid, auth, line, expected_turn=number)

        with ThreadPoolExecutor(2) as pool:
            replies = list(pool.map(play_at, ["search the room", "talk to the bartender"]))
        statuses = sorted(r.status_code for r in replies)
        assert statuses == [200, 409], [r.text for r in replies]
        lost = next(r for r in replies if r.status_code == 409).json()
        assert lost["turn_number"] in (number, number + 1) and "detail" in lost
        won = next(r for r in replies if r.status_code == 200).json()
        assert won["turn_number"] == number + 1
    turns = api.client.get(f"/campaigns/{cid}/turns", params={"limit": 100}, headers=auth).json()["turns"]
    assert [t["turn_number"] for t in turns] == [1, 2, 3, 4]
    stale = api.turn(cid, auth, "look around", expected_turn=2)
    assert stale.status_code == 409 and stale.json()["turn_number"] == 4


def test_a_turn_in_flight_makes_others_on_that_campaign_409_but_not_other_campaigns(tmp_path: Path) -> None:
    gated = Gated()
    with live(tmp_path / "gated.db", graph=gated.graph) as api:
        cid, auth = api.new_campaign()
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(api.turn, cid, auth, "look around", headers={"Idempotency-Key": "a"})
            assert gated.entered.wait(10)
            busy = api.turn(cid, auth, "search the room")
            assert busy.status_code == 409 and busy.json()["turn_number"] == 0
            retry = api.turn(cid, auth, "look around", headers={"Idempotency-Key": "a"})
            assert retry.status_code == 409  # the original is still being played
            assert api.client.delete(f"/campaigns/{cid}", headers=auth).status_code == 409
            assert api.client.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"] == 0  # reads still work
            gated.open()
            assert first.result(20).json()["turn_number"] == 1
        assert api.turn(cid, auth, "look around", headers={"Idempotency-Key": "a"}).json()["turn_number"] == 1
        assert api.turn(cid, auth, "search the room").json()["turn_number"] == 2


def test_a_turn_that_loses_the_commit_race_to_another_server_gets_409_and_nothing_applies_twice(fresh_db) -> None:
    """Two servers on one store, a save file or PostgreSQL (two processes, as far as the campaign locks know): the
    engine's compare-and-swap refuses the turn that was based on the older state."""
    db = fresh_db("shared.db")
    gated = Gated()
    with live(db, graph=gated.graph) as slow:
        cid, auth = slow.new_campaign()
        with live(db) as fast:
            with ThreadPoolExecutor(1) as pool:
                held = pool.submit(slow.turn, cid, auth, "search the room", headers={"Idempotency-Key": "s"})
                assert gated.entered.wait(10)
                assert fast.turn(cid, auth, "look around").json()["turn_number"] == 1
                gated.open()
                lost = held.result(20)
            assert lost.status_code == 409 and lost.json()["turn_number"] == 1
            # the key of the lost turn is free again: the retry plays it, once
            retry = slow.turn(cid, auth, "search the room", headers={"Idempotency-Key": "s"})
            assert retry.status_code == 200 and retry.json()["turn_number"] == 2
            turns = fast.client.get(f"/campaigns/{cid}/turns", headers=auth).json()["turns"]
            assert [(t["turn_number"], t["input"]) for t in turns] == [(1, "look around"), (2, "search the room")]


# ---------------------------------------------------------------------------------------------- errors


def test_limits_and_invalid_requests_get_clear_4xx_messages(api: Api) -> None:
    cid, auth = api.new_campaign()
    too_long = api.turn(cid, auth, "a" * 2001)
    assert too_long.status_code == 422 and "2,001 characters" in too_long.json()["detail"]
    assert "2,000" in too_long.json()["detail"]
    assert api.turn(cid, auth, "a" * 2000).status_code == 200
    for empty in ("", "   \n "):
        reply = api.turn(cid, auth, empty)
        assert reply.status_code == 422 and "nothing to play" in reply.json()["detail"]
    control = api.turn(cid, auth, "look\x07around")
    assert control.status_code == 422 and "control characters" in control.json()["detail"]
    reply, events = api.stream(cid, auth, "")
    assert reply.status_code == 422 and events == []

    malformed = api.client.post(f"/campaigns/{cid}/turns", content=b'{"input": "look', headers=auth | {
        "Content-Type": "application/json"})
    assert malformed.status_code == 422 and "JSON" in malformed.json()["detail"]
    assert api.client.post(f"/campaigns/{cid}/turns", json={"text": "look"}, headers=auth).status_code == 422
    assert api.client.post(f"/campaigns/{cid}/turns", json=["look"], headers=auth).status_code == 422

    unknown = api.client.post("/campaigns", json={"pack": "no_such_pack"})
    assert unknown.status_code == 404 and PACK in unknown.json()["detail"]
    for path_like in ("../../etc", "/tmp"):
        assert api.client.post("/campaigns", json={"pack": path_like}).status_code == 404
    background = api.client.post("/campaigns", json={"pack": PACK, "background": "astronaut"})
    assert background.status_code == 422 and "astronaut" in background.json()["detail"]
    assert api.client.post("/campaigns", json={"pack": PACK, "seed": -1}).status_code == 422
    assert api.client.post("/campaigns", json={"pack": PACK, "seed": 2**40}).status_code == 422
    assert api.client.post("/campaigns", json={"pack": PACK, "name": "\x00"}).status_code == 422
    huge = api.client.post(f"/campaigns/{cid}/turns", content=b'{"input": "' + b"a" * 100_000 + b'"}',
                           headers=auth | {"Content-Type": "application/json"})
    assert huge.status_code == 413
    assert api.client.get("/no/such/route").status_code == 404
    assert api.client.put("/packs").status_code == 405
    assert api.turn(cid, auth, "look", headers={"Idempotency-Key": "bad key with spaces"}).status_code == 422
    assert api.client.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"] == 1  # only the valid turn


def test_internal_errors_answer_500_without_a_trace_or_a_path(tmp_path: Path) -> None:
    def broken(state, runtime):
        raise RuntimeError(f"boom in {Path(__file__).resolve()}")

    graph = build_graph({"encounter": broken}).compile()
    with live(tmp_path / "broken.db", graph=graph) as api:
        cid, auth = api.new_campaign()
        reply = api.turn(cid, auth, "look around", headers={"Idempotency-Key": "x"})
        assert reply.status_code == 500
        assert set(reply.json()) == {"detail"}
        for leak in ("Traceback", "boom", "/", ".py", "RuntimeError"):
            assert leak not in reply.json()["detail"], leak
        stream, events = api.stream(cid, auth, "look around")
        assert stream.status_code == 200 and events[-1][0] == "error" and events[-1][1]["status"] == 500
        assert "boom" not in json.dumps(events) and "Traceback" not in json.dumps(events)
        assert api.client.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"] == 0


# ---------------------------------------------------------------------------------------------- serving


def test_reload_packs_swaps_in_an_edited_pack_and_keeps_the_last_good_one_on_errors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packs_dir = tmp_path / "era_packs"
    shutil.copytree(loader.PACKS_DIR / PACK, packs_dir / PACK)
    monkeypatch.setattr(loader, "PACKS_DIR", packs_dir)
    locations = packs_dir / PACK / "locations.yaml"
    with live(tmp_path / "reload.db", reload_packs=True, pack_poll_s=0, admin_key="designer") as api:
        cid, auth = api.new_campaign(seed=1, background=None)
        start = api.client.get(f"/campaigns/{cid}", headers=auth).json()
        assert start["location_name"] == "The Slag & Lantern"
        locations.write_text(locations.read_text().replace("name: The Slag & Lantern", "name: The Slag & Lamp", 1))
        assert api.turn(cid, auth, "look around").json()["state"]["location_name"] == "The Slag & Lamp"
        locations.write_text(locations.read_text() + "\n  - id: [broken\n")
        reply = api.turn(cid, auth, "look around")
        assert reply.status_code == 200 and reply.json()["state"]["location_name"] == "The Slag & Lamp"
        errors = api.client.get("/health", headers=bearer("designer")).json()["pack_errors"]
        assert PACK in errors and any("YAML" in e for e in errors[PACK])
        public = api.client.get("/health").json()["pack_errors"]  # no file paths without the admin key
        assert list(public) == [PACK] and "problem" in public[PACK][0] and ".yaml" not in str(public)


def test_skald_serve_runs_the_api_and_claims_the_admin_key(tmp_path: Path) -> None:
    skald = Path(sys.executable).with_name("skald")
    env = os.environ | {"SKALD_ADMIN_KEY": "serve-admin"}
    server, url = _serving(lambda port: subprocess.Popen(
        [str(skald), "serve", "--port", str(port), "--db", str(tmp_path / "served.db")], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
    try:
        created = httpx.post(f"{url}/campaigns", json={"pack": PACK, "seed": 1}).json()
        listed = httpx.get(f"{url}/campaigns", headers=bearer("serve-admin")).json()["campaigns"]
        assert [c["campaign_id"] for c in listed] == [created["campaign_id"]]
    finally:
        server.terminate()
        server.wait(15)


def _serving(start: Callable[[int], subprocess.Popen]) -> tuple[subprocess.Popen, str]:
    """``start(port)`` on a free port, once it answers: (the process, its URL). A port taken between the probe and
    the bind (the server exits saying so) is replaced by another."""
    for attempt in range(3):
        port = free_port()
        server = start(port)
        try:
            _wait_until_serving(server, f"http://127.0.0.1:{port}")
        except AssertionError as failed:
            server.kill()
            server.wait(15)
            if "address already in use" not in str(failed).lower() or attempt == 2:
                raise
            continue
        return server, f"http://127.0.0.1:{port}"
    raise AssertionError("unreachable")


def _wait_until_serving(server: subprocess.Popen, url: str) -> None:
    """Wait until the ``skald serve`` process ``server`` answers ``GET url/health``; fail with its stderr if it ends
    first, or after 30 s (a bound a working server never comes near)."""
    deadline = time.monotonic() + 30
    while True:
        if server.poll() is not None:
            err = server.stderr.read()
            raise AssertionError((err.decode() if isinstance(err, bytes) else err)[-2000:])
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "skald serve did not answer within 30 s"
        time.sleep(0.1)


@pytest.mark.parametrize("access_log", [False, True])
def test_skald_serve_logs_requests_to_the_log_file_unless_asked_to_print_them(tmp_path: Path, access_log) -> None:
    env = os.environ | {"SKALD_LOG_FILE": str(tmp_path / "logs" / "skald.log")}

    def start(port: int) -> subprocess.Popen:
        command = [sys.executable, "-m", "skald", "serve", "--port", str(port), "--db", str(tmp_path / "served.db")]
        return subprocess.Popen(command + (["--access-log"] if access_log else []), env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    server, _ = _serving(start)
    server.terminate()
    out, err = server.communicate(timeout=15)
    assert "Uvicorn running on" in err and "Application shutdown complete" in err  # its own lines stay on stderr
    log = tmp_path / "logs" / "skald.log"
    logged = log.read_text(encoding="utf-8") if log.exists() else ""  # made when its first line is written
    assert ('"GET /health HTTP/1.1" 200' in out) is access_log
    assert ('"GET /health HTTP/1.1" 200' in logged) is not access_log


def test_a_stream_whose_client_goes_away_still_finishes_its_turn_and_frees_the_campaign(tmp_path: Path) -> None:
    gated = Gated()
    with live(tmp_path / "gone.db", graph=gated.graph) as api:
        cid, auth = api.new_campaign()
        with api.client.stream("POST", f"/campaigns/{cid}/turns/stream", json={"input": "look around"},
                               headers=auth | {"Idempotency-Key": "gone"}) as reply:
            assert reply.status_code == 200
            assert gated.entered.wait(60)
        # the client hung up mid-turn; the turn goes on and commits
        gated.open()
        deadline = time.monotonic() + 60  # a bound for a busy machine, not a timing
        while (retry := api.turn(cid, auth, "look around", headers={"Idempotency-Key": "gone"})).status_code == 409:
            assert time.monotonic() < deadline, "the abandoned turn never finished"  # 409: still being played
            time.sleep(0.02)
        assert retry.status_code == 200 and retry.json()["turn_number"] == 1
        assert retry.headers["idempotent-replayed"] == "true"
        assert api.turn(cid, auth, "search the room").json()["turn_number"] == 2


def test_timeline_endpoints_undo_redo_retry_pick_fork_switch_delete_and_list(tmp_path: Path) -> None:
    with live(tmp_path / "timeline.db") as api:
        cid, auth = api.new_campaign()
        base = f"/campaigns/{cid}"
        for line in ("look around", "talk to the bartender", "search the room"):
            assert api.turn(cid, auth, line).status_code == 200
        undone = api.client.post(f"{base}/undo", json={"turns": 2}, headers=auth)
        assert undone.status_code == 200 and undone.json()["turn_number"] == 1
        assert undone.json()["timeline"] == {"command": "undo", "done": True, "reason": None}
        assert api.client.get(base, headers=auth).json()["turn_number"] == 1
        stale = api.client.post(f"{base}/redo", json={"expected_turn": 3}, headers=auth)
        assert stale.status_code == 409 and stale.json()["turn_number"] == 1
        keyed = {"Idempotency-Key": "redo-1"} | auth
        redone = api.client.post(f"{base}/redo", json={}, headers=keyed)
        again = api.client.post(f"{base}/redo", json={}, headers=keyed)
        assert redone.json()["turn_number"] == 2 and again.headers.get("Idempotent-Replayed") == "true"
        assert again.json() == redone.json()
        retried = api.client.post(f"{base}/retry", json={}, headers=auth)
        assert (retried.json()["turn_number"], retried.json()["variant"]) == (2, 1)
        assert api.client.post(f"{base}/pick", json={"variant": 0}, headers=auth).json()["variant"] == 0
        missing = api.client.post(f"{base}/pick", json={"variant": 7}, headers=auth)
        assert missing.status_code == 404 and missing.json()["reason"] == "no_variant"
        forked = api.client.post(f"{base}/branches", json={"name": "side", "at_turn": 1}, headers=auth)
        assert forked.status_code == 201 and (forked.json()["branch"], forked.json()["turn_number"]) == ("side", 1)
        assert api.client.post(f"{base}/branches", json={"name": "side"}, headers=auth).status_code == 409
        assert api.client.post(f"{base}/branches", json={"name": "../x"}, headers=auth).status_code == 422
        on_main = api.turn(cid, auth, "ask about work", branch="main")  # plays main without switching to it
        assert (on_main.json()["branch"], on_main.json()["turn_number"]) == ("main", 3)
        listed = api.client.get(f"{base}/branches", headers=auth).json()
        assert [(b["name"], b["head_turn"], b["current"]) for b in listed] == [("main", 3, False), ("side", 1, True)]
        page = api.client.get(f"{base}/turns", params={"branch": "main"}, headers=auth).json()
        assert page["branch"] == "main" and [t["turn_number"] for t in page["turns"]] == [1, 2, 3]
        assert api.client.get(f"{base}/turns", headers=auth).json()["total"] == 1
        assert api.client.get(f"{base}/turns", params={"branch": "nope"}, headers=auth).status_code == 404
        refused = api.client.delete(f"{base}/branches/side", headers=auth)
        assert refused.status_code == 409 and refused.json()["reason"] == "current_branch"
        assert api.client.post(f"{base}/branches/main/switch", headers=auth).json()["branch"] == "main"
        assert api.client.delete(f"{base}/branches/side", headers=auth).status_code == 204
        assert api.client.post(f"{base}/branches/side/switch", headers=auth).status_code == 404
        other, other_auth = api.new_campaign()
        assert api.client.post(f"{base}/undo", json={}, headers=other_auth).status_code == 401
        at_start = api.client.post(f"/campaigns/{other}/retry", json={}, headers=other_auth)
        assert at_start.status_code == 409 and at_start.json()["reason"] == "nothing_to_retry"


def test_turns_on_two_branches_of_one_campaign_both_commit_while_one_is_in_flight(fresh_db) -> None:
    entered, gate = threading.Event(), threading.Event()

    def held_on_main(state, runtime):  # the Director waits only for turns of branch main
        if state.branch == "main":
            entered.set()
            assert gate.wait(20), "test never opened the gate"
        return director(state, runtime)

    with live(fresh_db("branches.db"), graph=build_graph({"director": held_on_main}).compile()) as api:
        cid, auth = api.new_campaign()
        assert api.client.post(f"/campaigns/{cid}/branches", json={"name": "side"}, headers=auth).status_code == 201
        with ThreadPoolExecutor(1) as pool:
            held = pool.submit(api.turn, cid, auth, "search the room", branch="main")
            assert entered.wait(10)
            assert api.turn(cid, auth, "look around", branch="main").status_code == 409  # same branch: busy
            side = api.turn(cid, auth, "talk to the bartender")  # the current branch, side, while main is in flight
            assert side.status_code == 200 and (side.json()["branch"], side.json()["turn_number"]) == ("side", 1)
            gate.set()
            main = held.result(20)
            assert main.status_code == 200 and (main.json()["branch"], main.json()["turn_number"]) == ("main", 1)
        heads = {b["name"]: b["head_turn"] for b in api.client.get(f"/campaigns/{cid}/branches", headers=auth).json()}
        assert heads == {"main": 1, "side": 1}
        assert api.client.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"] == 1  # side's projections
