"""Smaller contract breaks (issue 34): an integer too long to parse is a 422 like any other bad body, and an
idempotency key older than its 24 hours plays as a new turn (its old record taken over), as documented."""

from __future__ import annotations

from pathlib import Path

import httpx
from skald import wallclock
from skald.api import create_app
from skald.api.server import LiveServer
from skald.engine import Engine
from skald.llm.client import LLMClient
from skald.settings import Settings
from skald.store.idempotency import RETENTION_HOURS


def test_a_five_thousand_digit_integer_is_422_not_400(tmp_path: Path) -> None:
    app = create_app(tmp_path / "skald.db", create_per_minute=0, llm=LLMClient(Settings(llm="off"), online=False),
                     retriever=None)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=20) as client:
        body = '{"pack": "cinder_reach", "seed": ' + "9" * 5000 + "}"
        reply = client.post("/campaigns", content=body, headers={"Content-Type": "application/json"})
        assert reply.status_code == 422, reply.text
        assert "far too long" in reply.text and "Traceback" not in reply.text


def test_an_idempotency_key_older_than_its_retention_plays_as_a_new_turn(tmp_path: Path) -> None:
    clock = wallclock.fixed("2031-05-06T07:08:09+00:00")
    engine = Engine(tmp_path / "skald.db", llm=LLMClient(Settings(llm="off"), online=False), retriever=None,
                    clock=clock)
    try:
        engine.create_campaign("cinder_reach", seed=3, campaign_id="c")
        first = engine.play_turn("c", "look around", key="k-1")
        clock.advance(hours=1)
        again = engine.play_turn("c", "look around", key="k-1")  # a retry within the day: the same turn
        assert again.view.turn_number == first.view.turn_number == 1
        clock.advance(hours=RETENTION_HOURS)
        later = engine.play_turn("c", "look around", key="k-1")  # a day on: a new turn, not a replay
        assert later.view.turn_number == 2
        clock.advance(minutes=5)
        assert engine.play_turn("c", "look around", key="k-1").view.turn_number == 2  # that one is the key's now
    finally:
        engine.close()
