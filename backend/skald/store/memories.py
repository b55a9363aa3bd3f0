"""Reading episodic memories back (Commit writes them; ``rules.memory`` scores them)."""

from __future__ import annotations

import sqlite3


def recent(conn: sqlite3.Connection, campaign_id: str, before_turn: int, limit: int) -> list[tuple[int, str]]:
    """Up to ``limit`` (turn number, summary) pairs of turns before ``before_turn``, newest first."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT turn_number, summary FROM turn_memories WHERE campaign_id = ? AND turn_number < ? "
        "ORDER BY turn_number DESC LIMIT ?", (campaign_id, before_turn, limit))]
