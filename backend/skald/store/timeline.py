"""Reading a campaign's turn tree: branches, their heads and lines, and the variants of a turn (schema m012).

A campaign is a tree of turns. Each turn row has a ``turn_id`` (unique in the save file) and a ``parent_turn_id``
(0 for the campaign's start, turn 0, which has no row); its ``turn_number`` is its depth. A **branch** has a name and
a **head** (the turn it stands at) and a **line**: the turn at each number from 1 to its tip (``branch_turns``).
The line below and at the head is the branch's story; the rows above the head are what ``/redo`` replays. The
**current** branch (``campaigns.branch``) is the one the projection tables (characters, quests, world state...)
show; any other branch is read with ``reads.state_at``.

Writes (moving heads, forking, deleting a branch) are in ``store.writer``; the rules that choose where a head moves
are in ``rules.timeline``.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from skald.errors import BranchError, CampaignNotFoundError

MAIN = "main"


@dataclass(frozen=True)
class Head:
    """Where a branch stands: its name, the head turn's id (0: the campaign's start) and number."""

    branch: str
    turn_id: int
    turn_number: int


@dataclass(frozen=True)
class Position:
    """Where a turn is played: on ``branch``, from the turn ``parent`` (its id; 0 for the start), while the branch's
    head is still ``expect`` (the compare-and-swap Commit does), with the dice ``variant`` (0 for the first turn
    played from ``parent``; a retry takes the next one)."""

    branch: str
    parent: int
    expect: int
    variant: int = 0

    @property
    def retried(self) -> bool:
        """The turn replaces the head (a retry) instead of following it."""
        return self.parent != self.expect


@dataclass(frozen=True)
class Turn:
    """One node of the tree, as the timeline commands show it."""

    turn_id: int
    turn_number: int
    parent: int
    variant: int
    branch: str
    input: str
    text: str
    outcome: str | None
    location: str


_TURN_COLUMNS = "turn_id, turn_number, parent_turn_id, variant, branch, input, text, outcome, location"


@dataclass(frozen=True)
class Branch:
    """One branch: its head, how far its line goes (``tip``: the redo end), and where it was forked from."""

    name: str
    head: Head
    tip: int
    forked_from: str | None
    forked_at: int | None
    current: bool


def current_branch(conn: sqlite3.Connection, campaign_id: str) -> str:
    """The branch the campaign's projections show. :raises CampaignNotFoundError."""
    row = conn.execute("SELECT branch FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
    if row is None:
        raise CampaignNotFoundError(campaign_id)
    return row[0]


def head(conn: sqlite3.Connection, campaign_id: str, branch: str | None = None) -> Head:
    """The head of ``branch`` (default: the current one).

    :raises CampaignNotFoundError: no such campaign. :raises BranchError: no such branch.
    """
    name = branch or current_branch(conn, campaign_id)
    row = conn.execute("SELECT head_turn_id, head_turn FROM branches WHERE campaign_id = ? AND name = ?",
                       (campaign_id, name)).fetchone()
    if row is None:
        current_branch(conn, campaign_id)  # raises for a missing campaign
        raise BranchError(campaign_id, name, "no_branch", f"there is no branch {name!r} (/branches lists them)")
    return Head(name, row[0], row[1])


def next_variant(conn: sqlite3.Connection, campaign_id: str, parent: int) -> int:
    """The variant the next turn played from ``parent`` takes: one more than its children's highest (0 for the
    first)."""
    row = conn.execute("SELECT MAX(variant) FROM turns WHERE campaign_id = ? AND parent_turn_id = ?",
                       (campaign_id, parent)).fetchone()
    return 0 if row[0] is None else row[0] + 1


def position_at(conn: sqlite3.Connection, campaign_id: str, at: Head) -> Position:
    """Where the next turn of the branch standing at ``at`` is played: from its head."""
    return Position(at.branch, at.turn_id, at.turn_id, next_variant(conn, campaign_id, at.turn_id))


def turn(conn: sqlite3.Connection, campaign_id: str, turn_id: int) -> Turn | None:
    """The turn with id ``turn_id`` of the campaign, or None (0, the start, has no row)."""
    row = conn.execute(f"SELECT {_TURN_COLUMNS} FROM turns WHERE campaign_id = ? AND turn_id = ?",
                       (campaign_id, turn_id)).fetchone()
    return None if row is None else Turn(*row)


def line_at(conn: sqlite3.Connection, campaign_id: str, branch: str, number: int) -> int | None:
    """The id of the turn at ``number`` on the branch's line (0 for number 0), or None past its tip."""
    if number == 0:
        return 0
    row = conn.execute("SELECT turn_id FROM branch_turns WHERE campaign_id = ? AND branch = ? AND turn_number = ?",
                       (campaign_id, branch, number)).fetchone()
    return None if row is None else row[0]


def tip(conn: sqlite3.Connection, campaign_id: str, branch: str) -> int:
    """The highest number on the branch's line (its head when there is nothing to redo)."""
    row = conn.execute("SELECT MAX(turn_number) FROM branch_turns WHERE campaign_id = ? AND branch = ?",
                       (campaign_id, branch)).fetchone()
    return row[0] or 0


def variants(conn: sqlite3.Connection, campaign_id: str, at: Head) -> list[Turn]:
    """Every turn played from the same turn as the head (the head and its retries, and turns played there after an
    undo), by variant. Empty at the campaign's start."""
    if at.turn_id == 0:
        return []
    parent = conn.execute("SELECT parent_turn_id FROM turns WHERE turn_id = ?", (at.turn_id,)).fetchone()[0]
    return [Turn(*r) for r in conn.execute(
        f"SELECT {_TURN_COLUMNS} FROM turns WHERE campaign_id = ? AND parent_turn_id = ? ORDER BY variant",
        (campaign_id, parent))]


def newest_descendants(conn: sqlite3.Connection, campaign_id: str, turn_id: int) -> list[int]:
    """The ids below ``turn_id`` following its most recently played child at each step (what ``/redo`` replays
    after a ``/pick``), nearest first."""
    rows = conn.execute(
        "WITH RECURSIVE down(id, depth) AS (SELECT CAST(? AS BIGINT), 0 UNION ALL SELECT (SELECT MAX(t.turn_id) FROM "
        "turns t WHERE t.campaign_id = ? AND t.parent_turn_id = down.id), depth + 1 FROM down WHERE (SELECT "
        "MAX(t.turn_id) FROM turns t WHERE t.campaign_id = ? AND t.parent_turn_id = down.id) IS NOT NULL) SELECT id "
        "FROM down WHERE depth > 0 ORDER BY depth", (turn_id, campaign_id, campaign_id)).fetchall()
    return [r[0] for r in rows]


def branches(conn: sqlite3.Connection, campaign_id: str) -> list[Branch]:
    """Every branch of the campaign, ``main`` first, then by name. :raises CampaignNotFoundError."""
    current = current_branch(conn, campaign_id)
    rows = conn.execute(
        "SELECT b.name, b.head_turn_id, b.head_turn, b.forked_from, b.forked_at, (SELECT MAX(p.turn_number) FROM "
        "branch_turns p WHERE p.campaign_id = b.campaign_id AND p.branch = b.name) FROM branches b WHERE "
        "b.campaign_id = ? ORDER BY b.name != 'main', b.name", (campaign_id,)).fetchall()
    return [Branch(r[0], Head(r[0], r[1], r[2]), max(r[5] or 0, r[2]), r[3], r[4], r[0] == current) for r in rows]
