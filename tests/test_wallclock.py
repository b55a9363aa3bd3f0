"""Time is an input: what the store stamps and prunes follows the engine's wall clock, never the machine's date."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from skald import wallclock
from skald.engine import Engine
from skald.packs.cache import PackCache
from skald.store import idempotency
from skald.store.db import connect

BOTH_STORES = True
NOW = "2031-02-03T04:05:06.789+00:00"  # a date that is neither today nor near it


@pytest.fixture
def clock():
    return wallclock.fixed(NOW)


@pytest.fixture
def engine(db_path, offline_llm, clock):
    played = Engine(db_path, llm=offline_llm, packs=PackCache(), retriever=None, clock=clock)
    yield played
    played.close()


def stamps(db_path, cid: str) -> dict[str, list[str]]:
    conn = connect(db_path)
    try:
        return {
            "campaign": list(conn.execute("SELECT created_at, updated_at FROM campaigns WHERE id = ?",
                                          (cid,)).fetchone()),
            "branches": [r[0] for r in conn.execute("SELECT updated_at FROM branches WHERE campaign_id = ? "
                                                    "ORDER BY name",
                                                    (cid,))],
            "turns": [r[0] for r in conn.execute("SELECT created_at FROM turns WHERE campaign_id = ? ORDER BY "
                                                 "turn_number", (cid,))],
            "keys": [r[0] for r in conn.execute("SELECT created_at FROM api_idempotency WHERE campaign_id = ? "
                                                "ORDER BY created_at", (cid,))],
        }
    finally:
        conn.close()


def test_every_stored_time_is_the_engines_clock(engine, clock, db_path):
    cid = engine.create_campaign("cinder_reach", seed=4, with_token=True).state.campaign.id
    clock.advance(minutes=3)
    engine.play_turn(cid, "look around", key="k1")
    clock.advance(minutes=2)
    engine.fork(cid, "side")
    assert stamps(db_path, cid) == {
        "campaign": ["2031-02-03T04:05:06.789+00:00", "2031-02-03T04:10:06.789+00:00"],
        "branches": ["2031-02-03T04:08:06.789+00:00", "2031-02-03T04:10:06.789+00:00"],
        "turns": ["2031-02-03T04:08:06.789+00:00"],
        "keys": ["2031-02-03T04:08:06.789+00:00"],
    }


def test_a_key_is_kept_for_the_retention_and_pruned_after_it(engine, clock, db_path):
    cid = engine.create_campaign("cinder_reach", seed=4).state.campaign.id
    first = engine.play_turn(cid, "look around", key="k1")
    clock.advance(hours=idempotency.RETENTION_HOURS, minutes=-1)  # a retry a minute inside the retention
    engine.play_turn(cid, "rest", key="k2")  # a committed turn prunes what is older than the retention: not k1
    again = engine.play_turn(cid, "look around", key="k1")
    assert again.replayed and again.body == first.body
    clock.advance(minutes=2)  # k1 is now older than the retention; k2 is not
    engine.play_turn(cid, "look around", key="k3")
    assert stamps(db_path, cid)["keys"] == ["2031-02-04T04:04:06.789+00:00", "2031-02-04T04:06:06.789+00:00"]
    late = engine.play_turn(cid, "look around", key="k1")  # played as a new turn: its key was pruned
    assert not late.replayed and late.view.turn_number == 4


def test_the_clock_keeps_time_zones_and_refuses_naive_times():
    east = datetime(2031, 2, 3, 9, 5, 6, 789000, tzinfo=timezone(timedelta(hours=5)))
    assert wallclock.stamp(east) == NOW  # stored in UTC, whatever zone the clock gives
    assert wallclock.parse(NOW) == east and wallclock.parse("2031-02-03T04:05:06.789") == east  # no zone: UTC
    assert wallclock.stamp(wallclock.system()) < "9999"  # the machine's clock stamps the same way
    with pytest.raises(ValueError, match="naive"):
        wallclock.stamp(datetime(2031, 2, 3))
    with pytest.raises(ValueError, match="naive"):
        wallclock.fixed(datetime(2031, 2, 3))
