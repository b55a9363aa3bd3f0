"""Reading the episode layer back: an episode's turns for its evaluation, and the stored evaluations (Commit writes
them, in the EPISODE_COMPLETED event and the ``episode_evaluations`` table, in the turn's transaction)."""

from __future__ import annotations

import sqlite3

from skald.core.events import from_row
from skald.core.persistent import EpisodeEvaluation
from skald.core.records import Moment
from skald.store import timeline

MOMENT_WINDOW = 200  # at most this many of an episode's latest turns are read for its evaluation


def moments(conn: sqlite3.Connection, campaign_id: str, branch: str, first_turn: int,
            before_turn: int) -> list[Moment]:
    """The committed turns ``first_turn`` .. ``before_turn - 1`` on the branch's line (the latest
    ``MOMENT_WINDOW``), oldest first, each with its one-line memory ('' for a META turn) and its events."""
    low = max(first_turn, before_turn - MOMENT_WINDOW)
    line = (campaign_id, branch, low, before_turn)
    memories = dict(conn.execute(
        "SELECT p.turn_number, m.summary FROM branch_turns p JOIN turn_memories m ON m.turn_id = p.turn_id WHERE "
        "p.campaign_id = ? AND p.branch = ? AND p.turn_number >= ? AND p.turn_number < ?", line).fetchall())
    events: dict[int, list] = {}
    for r in conn.execute("SELECT p.turn_number, e.type, e.data FROM branch_turns p JOIN turn_events e ON e.turn_id = "
                          "p.turn_id WHERE p.campaign_id = ? AND p.branch = ? AND p.turn_number >= ? AND "
                          "p.turn_number < ? ORDER BY p.turn_number, e.seq", line):
        events.setdefault(r[0], []).append(from_row(r[1], r[2]))
    turns = sorted(set(memories) | set(events))
    return [Moment(turn=t, memory=memories.get(t, ""), events=tuple(events.get(t, ()))) for t in turns]


def evaluations(conn: sqlite3.Connection, campaign_id: str, branch: str | None = None) -> list[EpisodeEvaluation]:
    """Every evaluated episode on the line of ``branch`` (default: the current one) up to its head, first first."""
    at = timeline.head(conn, campaign_id, branch)
    return [EpisodeEvaluation.model_validate_json(r[0]) for r in conn.execute(
        "SELECT v.evaluation FROM branch_turns p JOIN episode_evaluations v ON v.turn_id = p.turn_id WHERE "
        "p.campaign_id = ? AND p.branch = ? AND p.turn_number <= ? ORDER BY v.number",
        (campaign_id, at.branch, at.turn_number))]


def by_share_id(conn: sqlite3.Connection, share_id: str) -> tuple[str, EpisodeEvaluation] | None:
    """(campaign id, evaluation) for a share id, or None. An episode played again on another branch (or after an
    undo) has the same share id: the latest evaluation is the one shared."""
    row = conn.execute("SELECT campaign_id, evaluation FROM episode_evaluations WHERE share_id = ? ORDER BY turn_id "
                       "DESC LIMIT 1", (share_id,)).fetchone()
    return (row[0], EpisodeEvaluation.model_validate_json(row[1])) if row else None
