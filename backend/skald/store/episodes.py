"""Reading the episode layer back: an episode's turns for its evaluation, and the stored evaluations (Commit writes
them, in the EPISODE_COMPLETED event and the ``episode_evaluations`` table, in the turn's transaction)."""

from __future__ import annotations

import sqlite3

from skald.events import from_row
from skald.persistent import EpisodeEvaluation
from skald.rules.episodes import Moment

MOMENT_WINDOW = 200  # at most this many of an episode's latest turns are read for its evaluation


def moments(conn: sqlite3.Connection, campaign_id: str, first_turn: int, before_turn: int) -> list[Moment]:
    """The committed turns ``first_turn`` .. ``before_turn - 1`` (the latest ``MOMENT_WINDOW``), oldest first, each
    with its one-line memory ('' for a META turn) and its events."""
    low = max(first_turn, before_turn - MOMENT_WINDOW)
    memories = dict(conn.execute(
        "SELECT turn_number, summary FROM turn_memories WHERE campaign_id = ? AND turn_number >= ? AND turn_number < ?",
        (campaign_id, low, before_turn)).fetchall())
    events: dict[int, list] = {}
    for r in conn.execute("SELECT turn_number, type, data FROM turn_events WHERE campaign_id = ? AND turn_number >= ? "
                          "AND turn_number < ? ORDER BY turn_number, seq", (campaign_id, low, before_turn)):
        events.setdefault(r[0], []).append(from_row(r[1], r[2]))
    turns = sorted(set(memories) | set(events))
    return [Moment(turn=t, memory=memories.get(t, ""), events=tuple(events.get(t, ()))) for t in turns]


def evaluations(conn: sqlite3.Connection, campaign_id: str) -> list[EpisodeEvaluation]:
    """Every evaluated episode of the campaign, first first."""
    return [EpisodeEvaluation.model_validate_json(r[0]) for r in conn.execute(
        "SELECT evaluation FROM episode_evaluations WHERE campaign_id = ? ORDER BY number", (campaign_id,))]


def by_share_id(conn: sqlite3.Connection, share_id: str) -> tuple[str, EpisodeEvaluation] | None:
    """(campaign id, evaluation) for a share id, or None."""
    row = conn.execute("SELECT campaign_id, evaluation FROM episode_evaluations WHERE share_id = ?",
                       (share_id,)).fetchone()
    return (row[0], EpisodeEvaluation.model_validate_json(row[1])) if row else None
