"""Idempotency records of turn requests (table ``api_idempotency``): a client's key, a hash of its input, the turn
the key played and that turn's response.

A record is written by Commit, in the same transaction as its turn (``writer.commit_turn``), so a key and its turn
exist together or not at all, whichever process plays it; a second process that plays the same key loses the
turn's compare-and-swap or the key's primary key, and its whole transaction rolls back. Records older than
:data:`RETENTION_HOURS` are pruned by later turns of the same campaign, and until then are not looked up: a key
older than that plays as a new turn (its old record is taken over), as the API documents.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from skald import wallclock

RETENTION_HOURS = 24  # a retry older than this plays as a new turn (a client retries within seconds or minutes)


class KeyTaken(Exception):
    """Raised inside the commit transaction when another turn already holds the key (it rolls the turn back)."""


@dataclass(frozen=True)
class Stored:
    input_hash: str
    turn_number: int | None
    response: str | None  # the turn's TurnView as JSON; None only in records left pending by engines before m004


@dataclass(frozen=True)
class KeyedTurn:
    """The key a turn is played under, its input's hash, and (set by Commit) the response to store with it."""

    key: str
    input_hash: str
    response: str = ""


def input_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _cutoff(now: datetime) -> str:
    return wallclock.stamp(now - timedelta(hours=RETENTION_HOURS))


def lookup(conn: sqlite3.Connection, campaign_id: str, key: str, now: datetime) -> Stored | None:
    """The record of ``key`` on the campaign, unless it is older than :data:`RETENTION_HOURS` at ``now`` (the wall
    clock, ``wallclock``): then None, as if it had been pruned."""
    row = conn.execute("SELECT input_hash, turn_number, response FROM api_idempotency WHERE campaign_id = ? AND "
                       "key = ? AND created_at >= ?", (campaign_id, key, _cutoff(now))).fetchone()
    return None if row is None else Stored(row[0], row[1], row[2])


def record(conn: sqlite3.Connection, campaign_id: str, keyed: KeyedTurn, based_on: int, turn_number: int,
           created_at: str) -> None:
    """Store the key with its turn's response (inside the commit transaction). A record left pending by an older
    engine, or older than :data:`RETENTION_HOURS` at ``created_at``, is taken over; any other record with this key
    raises :class:`KeyTaken`."""
    cutoff = _cutoff(wallclock.parse(created_at))
    written = conn.execute(
        "INSERT INTO api_idempotency (campaign_id, key, input_hash, based_on, turn_number, response, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (campaign_id, key) DO UPDATE SET input_hash = excluded.input_hash, "
        "based_on = excluded.based_on, turn_number = excluded.turn_number, response = excluded.response, "
        "created_at = excluded.created_at WHERE api_idempotency.response IS NULL OR api_idempotency.created_at < ?",
        (campaign_id, keyed.key, keyed.input_hash, based_on, turn_number, keyed.response, created_at,
         cutoff)).rowcount
    if written != 1:
        raise KeyTaken(keyed.key)


def prune(conn: sqlite3.Connection, campaign_id: str, now: datetime) -> int:
    """Delete the campaign's records stamped more than :data:`RETENTION_HOURS` before ``now`` (the committing turn's
    wall clock, ``wallclock``), inside the commit transaction; returns how many."""
    cutoff = _cutoff(now)
    return conn.execute("DELETE FROM api_idempotency WHERE campaign_id = ? AND created_at < ?",
                        (campaign_id, cutoff)).rowcount
