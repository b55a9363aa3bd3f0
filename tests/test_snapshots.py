"""The state at any turn (the first step of timelines, issue 17): a snapshot every K turns, written by the turn's own
Commit, and the events after it folded in. For every turn of a played campaign, ``reads.state_at`` equals the state
that turn committed, with or without snapshots, and a crash inside Commit leaves no snapshot behind."""

from __future__ import annotations

import sqlite3

import pytest
from skald.core.events import limits_of
from skald.engine import start_campaign
from skald.graph import run_turn
from skald.store import reads, writer
from skald.store.db import connect
from support import script_lines

BOTH_STORES = True  # every test runs on SQLite and on PostgreSQL (conftest)


def _play(conn, pack, llm, turns: int, campaign_id: str = "snap"):
    state = start_campaign(conn, pack, seed=5, campaign_id=campaign_id)
    committed = {0: state.persistent().model_dump(mode="json")}
    lines = script_lines()
    for n in range(turns):
        state = run_turn(conn, state.model_copy(update={"player_input": lines[n % len(lines)]}), pack=pack, llm=llm,
                         retriever=None)
        committed[state.campaign.turn_number] = state.persistent().model_dump(mode="json")
    return state, committed


@pytest.mark.parametrize("every", [4, 1000])  # snapshots every few turns, and none at all
def test_the_state_at_every_turn_is_the_state_that_turn_committed(fresh_db, pack, offline_llm, monkeypatch, every):
    monkeypatch.setattr(writer, "SNAPSHOT_EVERY", every)
    conn = connect(fresh_db("s.db"))
    state, committed = _play(conn, pack, offline_llm, 26)
    limits = limits_of(pack)
    for turn, expected in committed.items():
        assert reads.state_at(conn, "snap", turn, limits).model_dump(mode="json") == expected, turn
    snaps = [r[0] for r in conn.execute("SELECT turn_number FROM turn_snapshots WHERE campaign_id = 'snap'")]
    assert snaps == ([t for t in committed if t and t % every == 0])
    head = reads.load_state(conn, "snap").persistent().model_dump(mode="json")
    assert reads.state_at(conn, "snap", state.campaign.turn_number, limits).model_dump(mode="json") == head
    with pytest.raises(ValueError, match="has turns 0 to"):
        reads.state_at(conn, "snap", state.campaign.turn_number + 1, limits)
    conn.close()


def test_a_crash_inside_commit_leaves_no_snapshot(fresh_db, pack, offline_llm, monkeypatch):
    monkeypatch.setattr(writer, "SNAPSHOT_EVERY", 2)
    conn = connect(fresh_db("c.db"))
    state, _ = _play(conn, pack, offline_llm, 1, "crash")
    real = writer._write_projections

    def fail(*args):
        real(*args)
        raise sqlite3.OperationalError("disk I/O error (injected)")

    monkeypatch.setattr(writer, "_write_projections", fail)
    with pytest.raises(sqlite3.OperationalError):
        run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=pack, llm=offline_llm,
                 retriever=None)
    assert conn.execute("SELECT COUNT(*) FROM turn_snapshots").fetchone()[0] == 0
    assert reads.turn_number(conn, "crash") == 1
    conn.close()
