"""Reading episodic memories back (Commit writes them; ``rules.memory`` scores them)."""

from __future__ import annotations

import sqlite3


def recent(conn: sqlite3.Connection, campaign_id: str, branch: str, before_turn: int,
           limit: int) -> list[tuple[int, str]]:
    """Up to ``limit`` (turn number, summary) pairs of the turns on the branch's line before ``before_turn`` (and
    the character's memory of turn 0, from guided creation), newest first: never a turn of another branch, or one
    an undo took back."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT m.turn_number, m.summary FROM turn_memories m WHERE m.campaign_id = ? AND m.turn_number < ? AND "
        "(m.turn_id = 0 OR m.turn_id IN (SELECT p.turn_id FROM branch_turns p WHERE p.campaign_id = ? AND p.branch "
        "= ? AND p.turn_number < ?)) ORDER BY m.turn_number DESC LIMIT ?",
        (campaign_id, before_turn, campaign_id, branch, before_turn, limit))]
