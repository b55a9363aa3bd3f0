"""Stopping a turn in flight (``turn_cancel``, ``Engine.cancel``, ``POST .../cancel``): a turn asked to stop
before Commit saves nothing and frees the campaign; one whose Commit has begun is saved whole; the stream says
``cancelled``. The turn is held mid-graph by a Director that waits for the test, on a real SQLite file and a real
server on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from skald.api import create_app
from skald.api.models import StreamCancelled
from skald.api.server import LiveServer
from skald.engine import Engine
from skald.errors import TurnCancelled
from skald.llm.client import LLMClient
from skald.settings import Settings
from skald.store import reads
from skald.turn_cancel import TurnCancel
from test_api import Gated


def _offline() -> LLMClient:
    return LLMClient(Settings(llm="off"), online=False)


def _events(engine: Engine, cid: str) -> int:
    with engine.pool.connection() as conn:
        return conn.execute("SELECT (SELECT COUNT(*) FROM turns WHERE campaign_id = ?) + "
                            "(SELECT COUNT(*) FROM turn_events)", (cid,)).fetchone()[0]


def test_a_turn_stopped_before_commit_saves_nothing_and_frees_the_campaign(tmp_path: Path) -> None:
    held = Gated()
    engine = Engine(tmp_path / "skald.db", llm=_offline(), retriever=None, graph=held.graph)
    try:
        engine.create_campaign("cinder_reach", seed=2, campaign_id="c")
        before = _events(engine, "c")
        assert engine.cancel("c") == "none"  # nothing is being played
        outcome: dict = {}
        worker = threading.Thread(target=lambda: outcome.update(error=_play(engine, "c", "look around")))
        worker.start()
        assert held.entered.wait(20)
        assert engine.cancel("c", branch="other") == "none"  # another branch plays nothing
        assert engine.cancel("c") == "stopping"
        held.gate.set()
        worker.join(20)
        assert isinstance(outcome["error"], TurnCancelled)
        assert _events(engine, "c") == before  # nothing of the turn was written
        with engine.pool.connection() as conn:
            assert reads.load_state(conn, "c").campaign.turn_number == 0
        assert engine.cancel("c") == "none"  # the slot is gone with the turn
        played = engine.play_turn("c", "look around")  # and the campaign plays on at once
        assert played.view.turn_number == 1
    finally:
        engine.close()


def _play(engine: Engine, cid: str, line: str) -> BaseException | None:
    try:
        engine.play_turn(cid, line)
    except BaseException as exc:  # noqa: BLE001 - handed to the test
        return exc
    return None


def test_a_stop_asked_once_commit_has_begun_is_too_late_and_the_turn_is_saved_whole() -> None:
    cancel = TurnCancel()
    cancel.committing()
    assert cancel.request() is False  # too late: Commit goes on
    early = TurnCancel()
    assert early.request() is True
    with pytest.raises(TurnCancelled):
        early.committing()


@pytest.fixture
def held_server(tmp_path: Path) -> Iterator[tuple[httpx.Client, Gated]]:
    held = Gated()
    app = create_app(tmp_path / "skald.db", llm=_offline(), retriever=None, graph=held.graph, create_per_minute=0)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as client:
        yield client, held


def test_the_api_stops_a_streamed_turn_and_says_so_in_the_stream(held_server) -> None:
    client, held = held_server
    made = client.post("/campaigns", json={"pack": "cinder_reach", "seed": 2}).json()
    cid, auth = made["campaign_id"], {"Authorization": f"Bearer {made['token']}"}
    got: dict = {}

    def stream() -> None:
        with client.stream("POST", f"/campaigns/{cid}/turns/stream", json={"input": "look around"},
                           headers=auth) as reply:
            got["body"] = "".join(reply.iter_text())

    worker = threading.Thread(target=stream)
    worker.start()
    assert held.entered.wait(20)
    assert client.post(f"/campaigns/{cid}/cancel", headers=auth).json() == {"state": "stopping"}
    held.gate.set()
    worker.join(30)
    assert "event: cancelled" in got["body"] and "event: turn" not in got["body"]
    cancelled = json.loads(got["body"].split("event: cancelled", 1)[1].split("data:", 1)[1].split("\n", 1)[0])
    StreamCancelled.model_validate(cancelled)  # the shape the schema declares
    assert cancelled["turn_number"] == 0 and "nothing was played" in cancelled["detail"]
    assert client.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"] == 0
    assert client.post(f"/campaigns/{cid}/cancel", headers={"Authorization": "Bearer wrong"}).status_code == 401
    held.entered.clear()
    held.gate.clear()  # a plain POST .../turns, held and stopped the same way: a 409 that says why
    worker = threading.Thread(target=lambda: got.update(
        plain=client.post(f"/campaigns/{cid}/turns", json={"input": "look around"}, headers=auth)))
    worker.start()
    assert held.entered.wait(20)
    assert client.post(f"/campaigns/{cid}/cancel", headers=auth).json() == {"state": "stopping"}
    held.gate.set()
    worker.join(30)
    assert got["plain"].status_code == 409 and got["plain"].json()["reason"] == "cancelled"
    again = client.post(f"/campaigns/{cid}/turns", json={"input": "look around"}, headers=auth)
    assert again.status_code == 200 and again.json()["turn_number"] == 1
