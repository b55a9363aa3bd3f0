"""Skald's own checks of a store: what SQLite's ``integrity_check`` cannot see, each problem named.

Used by ``skald doctor`` (the whole store), by resuming a campaign for play and by ``skald db export`` (that
campaign), by ``skald db import`` (the imported campaign, inside the import's transaction, before it commits) and by
``skald db upgrade`` (after upgrading). The checks:

- every Skald table is there (a missing one cannot be rebuilt from the others);
- every campaign has its state rows (``world_state``, the player's ``characters`` row) and its current branch;
- every branch head resolves: a turn of the campaign, and the turn on the branch's line at the head's number;
- every branch's line is contiguous: one turn at each number from 1 to its tip, each played from the one before
  (``turns.parent_turn_id``; 0 for turn 1);
- every event parses as the typed event its ``type`` names (:func:`skald.core.events.from_row`);
- the projection (the state tables ``skald play`` reads) equals the fold of the events: the newest snapshot at or
  before the head with the line's events after it applied (:func:`skald.store.reads.state_at`), compared field by
  field with :func:`skald.store.reads.load_state`.

On a large store the whole-store pass samples: the newest :data:`MAX_EVENTS_CHECKED` events are parsed and the
:data:`MAX_CAMPAIGNS_FOLDED` most recently played campaigns folded; one campaign is always checked whole.
Nothing here writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from skald.core.events import Limits, from_row
from skald.store import db, faults

MAX_EVENTS_CHECKED = 200_000
MAX_CAMPAIGNS_FOLDED = 100
SHOWN = 5  # ids listed per problem before "..."

LimitsFor = Callable[[str], Limits | None]  # a pack id -> its Limits, or None when the pack is not installed
Found = list[tuple[str, str]]  # (campaign id, the problem as shown)


def problems(conn: sqlite3.Connection, limits_for: LimitsFor) -> list[str]:
    """Every problem in the store, each named (``campaign ID: ...``, its branch and turn), in the order of the module
    docstring; empty when there is none. ``limits_for`` gives a campaign's pack numbers for the fold (a campaign
    whose pack is not installed is not folded)."""
    missing = db.missing_tables(conn)
    if missing:
        return [faults.tables_missing(missing)]
    found = _state_rows(conn, None) + _heads(conn, None) + _lines(conn, None) + _events(conn, None)
    damaged = {cid for cid, _ in found}
    for cid, pack_id in conn.execute("SELECT id, pack_id FROM campaigns ORDER BY updated_at DESC, id LIMIT ?",
                                     (MAX_CAMPAIGNS_FOLDED,)).fetchall():
        if cid not in damaged:
            found += _fold(conn, cid, limits_for(pack_id))
    return [f"campaign {cid}: {what}" for cid, what in found]


def campaign_problems(conn: sqlite3.Connection, campaign_id: str, limits: Limits | None, *,
                      events: bool = True) -> list[str]:
    """Every problem of one campaign (its state loaded, and its current branch folded when ``limits`` is given), each
    a clause about the campaign ("branch main has its head at ..."); empty when there is none. ``events``: parse
    every event of the campaign (an import), not only those the fold reads (resuming play, whose cost then stays
    within the snapshot interval). The caller has checked :func:`skald.store.db.missing_tables`."""
    found = _state_rows(conn, campaign_id) + _heads(conn, campaign_id) + _lines(conn, campaign_id)
    if events:
        found += _events(conn, campaign_id)
    if not found:
        found = _fold(conn, campaign_id, limits)
    return [what for _, what in found]


def _where(campaign_id: str | None, column: str) -> tuple[str, tuple[Any, ...]]:
    return ("", ()) if campaign_id is None else (f" AND {column} = ?", (campaign_id,))


def _listed(items: list[Any]) -> str:
    return ", ".join(str(i) for i in items[:SHOWN]) + (", ..." if len(items) > SHOWN else "")


def _state_rows(conn: sqlite3.Connection, cid: str | None) -> Found:
    """A campaign without its state rows or its current branch."""
    where, args = _where(cid, "c.id")
    out = []
    for campaign, branch, ws, pc, known in conn.execute(
            "SELECT c.id, c.branch, EXISTS (SELECT 1 FROM world_state w WHERE w.campaign_id = c.id), EXISTS (SELECT 1 "
            "FROM characters p WHERE p.campaign_id = c.id AND p.char_id = 'player'), EXISTS (SELECT 1 FROM branches b "
            f"WHERE b.campaign_id = c.id AND b.name = c.branch) FROM campaigns c WHERE 1 = 1{where} ORDER BY c.id",
            args):
        gone = [what for what, there in (("its world_state row", ws), ("its player's characters row", pc),
                                         (f"its current branch {branch!r}", known)) if not there]
        if gone:
            out.append((campaign, f"{' and '.join(gone)} {'are' if len(gone) > 1 else 'is'} gone"))
    return out


def _heads(conn: sqlite3.Connection, cid: str | None) -> Found:
    """A branch head that is not a turn of the campaign, or not the turn on its line at the head's number."""
    where, args = _where(cid, "b.campaign_id")
    out = []
    for c, name, number, head, there, on_line in conn.execute(
            "SELECT b.campaign_id, b.name, b.head_turn, b.head_turn_id, EXISTS (SELECT 1 FROM turns t WHERE t.turn_id "
            "= b.head_turn_id AND t.campaign_id = b.campaign_id), COALESCE((SELECT p.turn_id FROM branch_turns p WHERE "
            "p.campaign_id = b.campaign_id AND p.branch = b.name AND p.turn_number = b.head_turn), 0) FROM branches b "
            f"WHERE 1 = 1{where} ORDER BY 1, 2", args):
        if head != 0 and not there:
            out.append((c, f"branch {name} has its head at turn id {head}, which is not there"))
        elif head != on_line:
            out.append((c, f"branch {name} has its head at turn {number}, but its line has another turn there"))
    return out


def _lines(conn: sqlite3.Connection, cid: str | None) -> Found:
    """A branch's line with numbers missing, a number naming no turn of the campaign, or a turn not played from the
    turn before it on the line."""
    where, args = _where(cid, "p.campaign_id")
    out: Found = []
    for c, name in conn.execute(
            "SELECT p.campaign_id, p.branch FROM branch_turns p "
            f"WHERE 1 = 1{where} GROUP BY p.campaign_id, p.branch HAVING MIN(p.turn_number) != 1 OR COUNT(*) != "
            "MAX(p.turn_number) ORDER BY 1, 2", args).fetchall():
        have = {r[0] for r in conn.execute("SELECT turn_number FROM branch_turns WHERE campaign_id = ? AND branch = ? "
                                           "AND turn_number IS NOT NULL", (c, name))}
        gaps = [n for n in range(1, max(have, default=1)) if n not in have] or ["(none numbered)"]
        out.append((c, f"branch {name}'s line has no turn at number{'s' if len(gaps) > 1 else ''} {_listed(gaps)}"))
    broken: dict[tuple[str, str], list[int]] = {}
    for c, name, number in conn.execute(
            "SELECT p.campaign_id, p.branch, p.turn_number FROM branch_turns p LEFT JOIN turns t ON t.turn_id = "
            "p.turn_id AND t.campaign_id = p.campaign_id LEFT JOIN branch_turns q ON q.campaign_id = p.campaign_id AND "
            "q.branch = p.branch AND q.turn_number = p.turn_number - 1 WHERE (t.turn_id IS NULL OR t.turn_number != "
            f"p.turn_number OR t.parent_turn_id != COALESCE(q.turn_id, 0)){where} ORDER BY 1, 2, 3", args):
        broken.setdefault((c, name), []).append(number)
    out += [(c, f"branch {name}'s line has turns that are not there or were not played from the turn before them "
                f"(number{'s' if len(numbers) > 1 else ''} {_listed(numbers)})")
            for (c, name), numbers in broken.items()]
    return out


def _events(conn: sqlite3.Connection, cid: str | None) -> Found:
    """Events whose data is not the typed event their type names (the newest :data:`MAX_EVENTS_CHECKED` of the
    store; all of one campaign's)."""
    where, args = _where(cid, "campaign_id")
    limit = "" if cid is not None else f" LIMIT {MAX_EVENTS_CHECKED}"
    broken: dict[str, list[str]] = {}
    for c, turn_id, seq, kind, data in conn.execute(
            f"SELECT campaign_id, turn_id, seq, type, data FROM turn_events WHERE 1 = 1{where} ORDER BY turn_id DESC, "
            f"seq{limit}", args):
        try:
            from_row(kind, data)
        except (TypeError, ValueError):  # pydantic's ValidationError is a ValueError
            broken.setdefault(c, []).append(f"{turn_id}/{seq}")
    return [(c, f"{len(ids)} event{' does' if len(ids) == 1 else 's do'} not parse (turn id/seq: {_listed(ids)})")
            for c, ids in sorted(broken.items())]


def _fold(conn: sqlite3.Connection, cid: str, limits: Limits | None) -> Found:
    """The projection loads, and equals the fold of the events at the current branch's head (the fold is left out
    when ``limits`` is None: the campaign's pack is not installed)."""
    from skald.errors import CampaignDamagedError
    from skald.store import reads, timeline

    try:
        stored = reads.load_state(conn, cid).persistent().model_dump(mode="json")
    except CampaignDamagedError as exc:
        return [(cid, exc.problems[0])]
    if limits is None:
        return []
    try:
        at = timeline.head(conn, cid)
        folded = reads.state_at(conn, cid, at.turn_number, limits, at.branch).model_dump(mode="json")
    except (ValueError, TypeError, KeyError, AttributeError) as exc:  # pydantic's ValidationError: a ValueError
        return [(cid, f"its current branch does not fold: an event or snapshot on it does not parse ({_short(exc)})")]
    differ = sorted(k for k in stored if stored[k] != folded.get(k))
    if differ:
        return [(cid, f"its saved state differs from its events folded at turn {at.turn_number} (in "
                      f"{', '.join(differ)})")]
    return []


def _short(exc: BaseException) -> str:
    """The first line of an error, shortened."""
    first = (str(exc).splitlines() or [type(exc).__name__])[0]
    return first if len(first) <= 160 else first[:157] + "..."
