"""Guided creation's unfinished sessions (table ``setup_sessions``, m013): kept in the store, not in a server process,
so with several API workers any of them answers a session's next message.

A session is its id (the secret the player holds), the pack and seed it creates a campaign with, its state as JSON
(the answers so far, or the model conversation), and how many messages it took. While one message is answered the
session is **leased** (``busy_until``): a second message meanwhile, on any worker, is refused; a lease left by a
worker that died ends by itself after :data:`LEASE_S` seconds. Sessions idle longer than the API's bound are pruned
when a new one opens, and at most ``limit`` are kept (the oldest idle ones go first).

Times are ISO 8601 UTC strings (``wallclock.stamp``); they compare as text. ``now`` is always the caller's clock.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from skald import wallclock
from skald.store.db import writing

LEASE_S = 300.0  # a message is answered (the setup model's calls included) well within this


class Busy(Exception):
    """The session is answering another message."""


@dataclass(frozen=True)
class Stored:
    id: str
    pack_id: str
    seed: int | None
    state: dict[str, Any]
    messages: int


_stamp = wallclock.stamp


def put(conn: sqlite3.Connection, stored: Stored, now: datetime, *, idle_s: float, limit: int) -> None:
    """Store a new session, after pruning sessions idle over ``idle_s`` seconds and, past ``limit``, the oldest idle
    ones (a leased session is never pruned)."""
    with writing(conn):
        conn.execute("DELETE FROM setup_sessions WHERE touched_at < ? AND (busy_until IS NULL OR busy_until < ?)",
                     (_stamp(now - timedelta(seconds=idle_s)), _stamp(now)))
        over = conn.execute("SELECT COUNT(*) FROM setup_sessions").fetchone()[0] - limit + 1
        if over > 0:
            conn.execute("DELETE FROM setup_sessions WHERE id IN (SELECT id FROM setup_sessions WHERE busy_until IS "
                         "NULL OR busy_until < ? ORDER BY touched_at, rowid LIMIT ?)", (_stamp(now), over))
        conn.execute("INSERT INTO setup_sessions (id, pack_id, seed, state, messages, touched_at) VALUES (?, ?, ?, ?, "
                     "?, ?)", (stored.id, stored.pack_id, stored.seed, json.dumps(stored.state), stored.messages,
                               _stamp(now)))


def take(conn: sqlite3.Connection, setup_id: str, now: datetime, *, idle_s: float) -> Stored | None:
    """Lease the session for one message and return it; None when there is none (or it was idle over ``idle_s``).

    :raises Busy: another message holds its lease.
    """
    with writing(conn):
        row = conn.execute("SELECT id, pack_id, seed, state, messages, touched_at, busy_until FROM setup_sessions "
                           "WHERE id = ?", (setup_id,)).fetchone()
        if row is None or row[5] < _stamp(now - timedelta(seconds=idle_s)) and not (row[6] and row[6] > _stamp(now)):
            return None
        if row[6] is not None and row[6] > _stamp(now):
            raise Busy(setup_id)
        conn.execute("UPDATE setup_sessions SET busy_until = ? WHERE id = ?",
                     (_stamp(now + timedelta(seconds=LEASE_S)), setup_id))
    return Stored(row[0], row[1], row[2], json.loads(row[3]), row[4])


def give(conn: sqlite3.Connection, stored: Stored, now: datetime) -> None:
    """Store the session's new state and message count, and end its lease."""
    with writing(conn):
        conn.execute("UPDATE setup_sessions SET state = ?, messages = ?, touched_at = ?, busy_until = NULL WHERE "
                     "id = ?", (json.dumps(stored.state), stored.messages, _stamp(now), stored.id))


def drop(conn: sqlite3.Connection, setup_id: str) -> None:
    """Remove the session (it was finished: its campaign exists)."""
    with writing(conn):
        conn.execute("DELETE FROM setup_sessions WHERE id = ?", (setup_id,))
