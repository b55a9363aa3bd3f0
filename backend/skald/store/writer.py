"""The one writer: campaign creation, the turn commit, timeline moves and campaign deletion, each in a single
write transaction (``store.db.writing``: SQLite's ``BEGIN IMMEDIATE``, or PostgreSQL's READ COMMITTED with the
campaign's row locked).

``commit_turn`` stores what the Commit node hands it and computes nothing about the game: the turn's events (typed,
``skald.core.events``), the state after the turn (already folded by the graph), the rendered turn and its one-line
memory. In one transaction it inserts the turn as a child of its position's parent and moves its branch's head (a
compare-and-swap on the head the turn was played from), appends every event to ``turn_events``, writes (for the
current branch) the projection rows that changed between the state the turn started from and the state after it
(characters, inventory, party, reputation, known NPCs, quests, world state), the lines its scene beats spoke
(``turn_dialogue``), every ``SNAPSHOT_EVERY`` turns a snapshot of the whole state (``turn_snapshots``), the rendered
turn (with its lore citations), the memory and, for a turn played under an idempotency key, the key with the turn's
response. ``apply_move`` carries out a timeline command (undo, redo, pick, switch, fork, delete a branch). Any
exception rolls all of it back.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from skald import wallclock
from skald.core.events import BaseEvent, EpisodeCompleted, Limits, SceneBeat
from skald.core.persistent import PersistentState
from skald.core.records import Move
from skald.errors import BranchError, TurnConflictError, VariantTaken
from skald.store import db, idempotency, reads, timeline
from skald.store.db import write_retrying, writing
from skald.store.idempotency import KeyedTurn
from skald.store.timeline import MAIN, Position
from skald.wallclock import WallClock

SNAPSHOT_EVERY = 50  # K: a snapshot of the state every K turns, so loading any turn folds at most K turns of events


@dataclass(frozen=True)
class TurnRow:
    """The rendered turn, as the ``turns`` table keeps it (JSON columns already encoded)."""

    input: str
    intent: str | None
    action_class: str | None
    outcome: str | None
    text: str
    suggestions: str
    warnings: str
    mechanic: str | None
    llm_calls: str
    lore_citations: str
    offline: bool = False
    scene_key: str | None = None
    brief: str | None = None  # the scene's brief with its origin (JSON), when it is new on the line; else None


@dataclass(frozen=True)
class CommittedTurn:
    """Everything one turn writes. ``before`` is the state the turn was played from; ``after`` the state after it,
    with ``campaign.turn_number`` already advanced by one."""

    before: PersistentState
    after: PersistentState
    events: Sequence[BaseEvent]
    row: TurnRow
    memory: str | None = None  # the one-line summary kept for episodic recall (story turns only)
    keyed: KeyedTurn | None = None  # the idempotency key the turn is played under, with its response
    position: Position | None = None  # where in the turn tree (None: after the current branch's head)


def create_campaign(conn: sqlite3.Connection, state: PersistentState, pack_hash: str,
                    token_hash: str | None = None, memory: str | None = None, *,
                    clock: WallClock = wallclock.system) -> None:
    """Store a new campaign at turn 0 (and, with ``token_hash``, its API token; with ``memory``, the character's
    first episodic memory, at turn 0: the summary of guided creation) in one transaction, stamped ``clock()``.

    :raises sqlite3.IntegrityError: a campaign with this id exists; nothing was written.
    """
    at = wallclock.stamp(clock())
    with writing(conn):
        conn.execute(
            "INSERT INTO campaigns (id, pack_id, pack_hash, seed, turn_number, story_turns, initial_state, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?)",
            (state.campaign.id, state.campaign.pack_id, pack_hash, state.campaign.seed,
             db.packed(conn, state.persistent().model_dump_json()), at, at),
        )
        conn.execute("INSERT INTO branches (campaign_id, name, head_turn_id, head_turn, created_at, updated_at) VALUES "
                     "(?, ?, 0, 0, ?, ?)", (state.campaign.id, MAIN, at, at))
        _write_projections(conn, state.campaign.id, None, state)
        if token_hash is not None:
            conn.execute("INSERT INTO api_tokens (campaign_id, token_hash, created_at) VALUES (?, ?, ?)",
                         (state.campaign.id, token_hash, at))
        if memory:
            conn.execute("INSERT INTO turn_memories (campaign_id, turn_number, turn_id, location, summary) VALUES "
                         "(?, 0, 0, ?, ?)", (state.campaign.id, state.location, memory))


def commit_turn(conn: sqlite3.Connection, turn: CommittedTurn, *, clock: WallClock = wallclock.system) -> None:
    """Persist one played turn as a child of its position's parent and move its branch's head to it, stamped
    ``clock()`` (which also decides which idempotency keys are old enough to prune).

    The compare-and-swap is on the branch's head: it must still be ``position.expect`` (without a position: the
    current branch's head must still be at ``before``'s turn number). The turn's line (``branch_turns``) gets the
    new turn at its number and loses what was above it (nothing left to redo). The projection tables are written
    only when the branch is the current one: the rows that changed since ``before``, or all of them for a retry
    (the projections showed the head the retry replaces, not its parent).

    :raises TurnConflictError: another turn (or a timeline command) moved the branch's head first; nothing was
        written.
    :raises KeyTaken: another turn already holds the turn's idempotency key; nothing was written.
    :raises VariantTaken: a turn played from the same parent (on another branch) took the dice variant first;
        nothing was written (the variant is checked here, in the write transaction; ``(campaign, parent, variant)``
        is unique in the schema too).
    :raises sqlite3.Error: on a storage failure; nothing was written. A transient failure on PostgreSQL
        (serialization, deadlock) is retried whole a bounded number of times first (``db.write_retrying``); the
        compare-and-swap makes a retry after another turn won a :class:`TurnConflictError`, never a second turn.
    """
    write_retrying(lambda: _commit(conn, turn, clock()), conn)


def _commit(conn: sqlite3.Connection, turn: CommittedTurn, now: datetime) -> None:
    before, after = turn.before, turn.after
    cid = before.campaign.id
    number = after.campaign.turn_number
    row = turn.row
    stamp = wallclock.stamp(now)
    with writing(conn, campaign=cid):
        current = timeline.current_branch(conn, cid)
        pos = turn.position or _at_head(conn, cid, current, before.campaign.turn_number)
        if conn.execute("SELECT 1 FROM turns WHERE campaign_id = ? AND parent_turn_id = ? AND variant = ?",
                        (cid, pos.parent, pos.variant)).fetchone() is not None:
            raise VariantTaken(cid, pos.parent, pos.variant)
        turn_id = conn.execute(
            "INSERT INTO turns (campaign_id, turn_number, parent_turn_id, branch, variant, input, intent, "
            "action_class, outcome, text, suggestions, warnings, mechanic, llm_calls, location, world_time_minutes, "
            "created_at, lore_citations, offline, scene_key, brief) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "?, ?, ?, ?, ?, ?, ?) RETURNING turn_id",
            (cid, number, pos.parent, pos.branch, pos.variant, row.input, row.intent, row.action_class, row.outcome,
             row.text, db.packed(conn, row.suggestions), row.warnings, db.packed(conn, row.mechanic),
             db.packed(conn, row.llm_calls), after.location, after.world.time_minutes, stamp, row.lore_citations,
             int(row.offline), row.scene_key, db.packed(conn, row.brief)),
        ).fetchall()[0][0]
        _move(conn, cid, pos.branch, pos.expect, turn_id, number, stamp)
        _set_line(conn, cid, pos.branch, number, [turn_id])
        if pos.branch == current:
            conn.execute("UPDATE campaigns SET turn_number = ?, story_turns = ?, updated_at = ? WHERE id = ?",
                         (number, after.campaign.story_turns, stamp, cid))
            if pos.retried:
                _rewrite_projections(conn, cid, after)
            else:
                _write_projections(conn, cid, before, after)
        else:
            conn.execute("UPDATE campaigns SET updated_at = ? WHERE id = ?", (stamp, cid))
        _many(
            conn, "INSERT INTO turn_events (campaign_id, turn_number, turn_id, seq, type, data) VALUES "
            "(?, ?, ?, ?, ?, ?)",
            [(cid, number, turn_id, seq, e.type, json.dumps(e.data, sort_keys=True))
             for seq, e in enumerate(turn.events)],
        )
        if turn.memory is not None:
            conn.execute("INSERT INTO turn_memories (campaign_id, turn_number, turn_id, location, summary) VALUES "
                         "(?, ?, ?, ?, ?)", (cid, number, turn_id, after.location, turn.memory))
        _many(
            conn, "INSERT INTO episode_evaluations (campaign_id, number, turn_id, episode_id, share_id, turn_number, "
            "trigger, outcome, playstyle, evaluation, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(cid, e.evaluation.number, turn_id, e.episode, e.evaluation.share_id, number, e.trigger,
              e.evaluation.outcome, e.evaluation.playstyle, e.evaluation.model_dump_json(), stamp)
             for e in turn.events if isinstance(e, EpisodeCompleted)])
        _many(
            conn, "INSERT INTO turn_dialogue (campaign_id, turn_number, turn_id, seq, scene_id, beat, speaker, name, "
            "target, action, tone, content, nonverbal, after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(cid, number, turn_id, seq, scene, x.beat, x.speaker, x.name, x.target, x.action, x.tone, x.content,
              x.nonverbal, x.after) for seq, (scene, x) in enumerate(
                (e.scene, x) for e in turn.events if isinstance(e, SceneBeat) for x in e.lines)])
        if number % SNAPSHOT_EVERY == 0:
            conn.execute("INSERT INTO turn_snapshots (campaign_id, turn_number, turn_id, state) VALUES (?, ?, ?, ?)",
                         (cid, number, turn_id, db.packed(conn, after.persistent().model_dump_json())))
        if turn.keyed is not None:
            idempotency.record(conn, cid, turn.keyed, before.campaign.turn_number, number, stamp)
            idempotency.prune(conn, cid, now)


def _at_head(conn: sqlite3.Connection, cid: str, branch: str, expected_number: int) -> Position:
    """The position of a turn played without one (direct callers of ``run_turn``): from the head of the current
    branch, which must be at the turn number the turn was played from."""
    at = timeline.head(conn, cid, branch)
    if at.turn_number != expected_number:
        raise TurnConflictError(cid, expected_number, at.turn_number)
    return timeline.position_at(conn, cid, at)


def _set_line(conn: sqlite3.Connection, cid: str, branch: str, number: int, ids: list[int]) -> None:
    """The branch's line from turn ``number`` on becomes ``ids`` (one turn id a number, in order); what was there
    and above goes (a new turn leaves nothing to redo; a picked variant brings its own continuation)."""
    conn.execute("DELETE FROM branch_turns WHERE campaign_id = ? AND branch = ? AND turn_number >= ?",
                 (cid, branch, number))
    _many(conn, "INSERT INTO branch_turns (campaign_id, branch, turn_number, turn_id) VALUES (?, ?, ?, ?)",
          [(cid, branch, number + i, t) for i, t in enumerate(ids)])


def _move(conn: sqlite3.Connection, cid: str, branch: str, expect: int, turn_id: int, number: int, stamp: str) -> None:
    """The compare-and-swap: move the branch's head from ``expect`` to ``turn_id`` (at ``number``), or raise
    :class:`TurnConflictError` (the caller's transaction rolls back)."""
    swapped = conn.execute("UPDATE branches SET head_turn_id = ?, head_turn = ?, updated_at = ? WHERE campaign_id = ? "
                           "AND name = ? AND head_turn_id = ?", (turn_id, number, stamp, cid, branch, expect)).rowcount
    if swapped != 1:
        at = timeline.head(conn, cid, branch)
        was = conn.execute("SELECT turn_number FROM turns WHERE turn_id = ?", (expect,)).fetchone()
        raise TurnConflictError(cid, was[0] if was else 0, at.turn_number)


def apply_move(conn: sqlite3.Connection, campaign_id: str, move: Move, limits: Limits, keyed: KeyedTurn | None = None,
               respond: Callable[[PersistentState], str] | None = None, *,
               clock: WallClock = wallclock.system) -> PersistentState:
    """Carry out a timeline command's move (``rules.timeline``) in one transaction (stamped ``clock()``) and return
    the state at the head of the branch the player is then on (the moved or new branch; for a delete, the current
    one). When that branch is the current one, the projection tables are rewritten to its head in the same
    transaction. ``respond(state)`` makes the answer inside the transaction; under an idempotency key it is stored
    with the key there, so a retry of the request gets that answer and never moves the head twice.

    :raises TurnConflictError: the head the command was planned on moved meanwhile; nothing was changed.
    :raises BranchError: the branch is gone, its name is taken, or it became the current one (delete).
    """
    return write_retrying(lambda: _apply(conn, campaign_id, move, limits, keyed, respond, clock()), conn)


def _apply(conn: sqlite3.Connection, cid: str, move: Move, limits: Limits, keyed: KeyedTurn | None,
           respond: Callable[[PersistentState], str] | None, now: datetime) -> PersistentState:
    stamp = wallclock.stamp(now)
    with writing(conn, campaign=cid):
        current = timeline.current_branch(conn, cid)
        if move.kind == "delete":
            if move.branch == current:
                raise BranchError(cid, move.branch, "current_branch", f"{move.branch} is the current branch: switch "
                                  "to another before deleting it")
            timeline.head(conn, cid, move.branch)  # raises for a branch already gone
            _delete_branch(conn, cid, move.branch)
            state = reads.state_at(conn, cid, timeline.head(conn, cid, current).turn_number, limits, current)
            _keep_key(conn, cid, keyed, respond, state, stamp)
            return state
        if move.kind == "fork":
            turn_id = timeline.line_at(conn, cid, move.source, move.to_number)
            if turn_id is None:
                raise TurnConflictError(cid, move.to_number, timeline.tip(conn, cid, move.source))
            try:
                conn.execute("INSERT INTO branches (campaign_id, name, head_turn_id, head_turn, forked_from, "
                             "forked_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             (cid, move.branch, turn_id, move.to_number, move.source, move.to_number, stamp, stamp))
            except sqlite3.IntegrityError:
                raise BranchError(cid, move.branch, "name_taken", f"there is already a branch {move.branch}") from None
            conn.execute("INSERT INTO branch_turns (campaign_id, branch, turn_number, turn_id) SELECT campaign_id, ?, "
                         "turn_number, turn_id FROM branch_turns WHERE campaign_id = ? AND branch = ? AND "
                         "turn_number <= ?", (move.branch, cid, move.source, move.to_number))
        elif move.kind in ("undo", "redo", "pick"):
            if move.kind == "pick":
                _set_line(conn, cid, move.branch, move.to_number,
                          [move.pick, *timeline.newest_descendants(conn, cid, move.pick)])
            target = timeline.line_at(conn, cid, move.branch, move.to_number)
            if target is None:
                raise TurnConflictError(cid, move.to_number, timeline.tip(conn, cid, move.branch))
            _move(conn, cid, move.branch, move.expect, target, move.to_number, stamp)
        at = timeline.head(conn, cid, move.branch)
        state = reads.state_at(conn, cid, at.turn_number, limits, move.branch)
        if move.kind in ("switch", "fork") or move.branch == current:
            conn.execute("UPDATE campaigns SET branch = ?, turn_number = ?, story_turns = ?, updated_at = ? WHERE "
                         "id = ?", (move.branch, at.turn_number, state.campaign.story_turns, stamp, cid))
            _rewrite_projections(conn, cid, state)
        _keep_key(conn, cid, keyed, respond, state, stamp)
        return state


def _keep_key(conn: sqlite3.Connection, cid: str, keyed: KeyedTurn | None,
              respond: Callable[[PersistentState], str] | None, state: PersistentState, stamp: str) -> None:
    """Make a timeline command's answer and, under an idempotency key, store the key with it (inside the command's
    transaction)."""
    response = respond(state) if respond is not None else None
    if keyed is not None and response is not None:
        turn = state.campaign.turn_number
        idempotency.record(conn, cid, dataclasses.replace(keyed, response=response), turn, turn, stamp)


def _delete_branch(conn: sqlite3.Connection, cid: str, name: str) -> None:
    """Remove the branch, its line, and every turn that is then of no branch: on no branch's line, played on a
    branch that no longer exists, and with no turn below it that is of a branch (a turn another branch played and
    undid keeps the turns it was played from). So nothing played on another branch is lost, as the README says."""
    conn.execute("DELETE FROM branches WHERE campaign_id = ? AND name = ?", (cid, name))
    conn.execute("DELETE FROM branch_turns WHERE campaign_id = ? AND branch = ?", (cid, name))
    doomed = [r[0] for r in conn.execute(
        "WITH RECURSIVE kept(id) AS (SELECT t.turn_id FROM turns t WHERE t.campaign_id = ? AND (EXISTS (SELECT 1 "
        "FROM branch_turns p WHERE p.turn_id = t.turn_id) OR EXISTS (SELECT 1 FROM branches b WHERE b.campaign_id = "
        "t.campaign_id AND b.name = t.branch)) UNION SELECT t.parent_turn_id FROM turns t JOIN kept ON t.turn_id = "
        "kept.id WHERE t.parent_turn_id != 0) SELECT turn_id FROM turns WHERE campaign_id = ? AND turn_id NOT IN "
        "(SELECT id FROM kept)", (cid, cid))]
    for table in ("turn_events", "turn_memories", "turn_dialogue", "turn_snapshots", "episode_evaluations", "turns"):
        _many(conn, f"DELETE FROM {table} WHERE turn_id = ?", [(t,) for t in doomed])


def _rewrite_projections(conn: sqlite3.Connection, cid: str, state: PersistentState) -> None:
    """Make the projection tables show ``state`` (a head the current branch moved to): every row written anew."""
    for table in ("characters", "inventory", "party", "reputation", "known_npcs", "quests", "world_state"):
        conn.execute(f"DELETE FROM {table} WHERE campaign_id = ?", (cid,))
    _write_projections(conn, cid, None, state)


def delete_campaign(conn: sqlite3.Connection, campaign_id: str) -> bool:
    """Remove a campaign and every row that belongs to it (each table with a ``campaign_id`` column, so tables
    added by later migrations are covered too) in one transaction. Returns whether the campaign existed."""
    with writing(conn, campaign=campaign_id):
        for table in db.tables(conn):
            if table != "campaigns" and "campaign_id" in db.columns(conn, table):
                conn.execute(f'DELETE FROM "{table}" WHERE campaign_id = ?', (campaign_id,))
        existed = conn.execute("DELETE FROM campaigns WHERE id = ?", (campaign_id,)).rowcount == 1
    return existed


def _changed(before: dict[str, Any], after: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(keys to upsert, keys to delete) between two versions of a mapping; nothing when they are the same object."""
    if before is after:
        return [], []
    return [k for k, v in after.items() if before.get(k) != v], [k for k in before if k not in after]


def upsert(table: str, columns: str, key: str) -> str:
    """``INSERT ... ON CONFLICT (key) DO UPDATE`` of every other column (SQLite and PostgreSQL say it alike)."""
    names = [c.strip() for c in columns.split(",")]
    keys = {k.strip() for k in key.split(",")}
    sets = ", ".join(f"{c} = excluded.{c}" for c in names if c not in keys)
    return (f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)}) ON CONFLICT ({key}) "
            f"DO UPDATE SET {sets}")


UPSERT_CHARACTER = upsert("characters", "campaign_id, char_id, name, background, hp, max_hp, credits, stress, stats, "
                          "defeated, profile", "campaign_id, char_id")
UPSERT_ITEM = upsert("inventory", "campaign_id, item_id, qty", "campaign_id, item_id")
UPSERT_REPUTATION = upsert("reputation", "campaign_id, faction_id, value", "campaign_id, faction_id")
UPSERT_COMPANION = upsert("party", "campaign_id, companion_id, affinity, loyalty, in_party, joined_turn",
                          "campaign_id, companion_id")
UPSERT_QUEST = upsert("quests", "campaign_id, quest_id, status, stage, hint", "campaign_id, quest_id")
UPSERT_WORLD = upsert("world_state", "campaign_id, location, time_minutes, arc_stage, arc_stage_turn, combat, world, "
                      "offer, director, scenes", "campaign_id")


def _many(conn: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]]) -> None:
    """``executemany`` when there are rows (most turns change few tables)."""
    if rows:
        conn.executemany(sql, rows)


def _write_projections(conn: sqlite3.Connection, cid: str, old: PersistentState | None, new: PersistentState) -> None:
    """Write the rows that differ between ``old`` and ``new`` (everything when ``old`` is None). Parts an event did
    not touch are the same objects in both (copy-on-write), so they cost an identity check."""
    p = new.player
    if old is None or (old.player is not p and old.player != p):
        conn.execute(
            UPSERT_CHARACTER,
            (cid, "player", p.name, p.background, p.hp, p.max_hp, p.credits, p.stress, json.dumps(p.stats),
             int(p.defeated), p.profile.model_dump_json()),
        )
    upsert, delete = _changed(old.player.inventory if old else {}, p.inventory)
    _many(conn, UPSERT_ITEM, [(cid, k, p.inventory[k]) for k in upsert])
    _many(conn, "DELETE FROM inventory WHERE campaign_id = ? AND item_id = ?", [(cid, k) for k in delete])
    upsert, _ = _changed(old.reputation if old else {}, new.reputation)
    _many(conn, UPSERT_REPUTATION, [(cid, k, new.reputation[k]) for k in upsert])
    upsert, _ = _changed(old.companions if old else {}, new.companions)
    _many(
        conn, UPSERT_COMPANION,
        [(cid, c.id, c.affinity, c.loyalty, int(c.in_party), c.joined_turn)
         for c in (new.companions[k] for k in upsert)])
    upsert, delete = _changed(old.known_npcs if old else {}, new.known_npcs)
    # a changed row is stored anew, so it moves to the end, as a re-spawned NPC moves to the end of known_npcs
    _many(conn, "DELETE FROM known_npcs WHERE campaign_id = ? AND npc_id = ?", [(cid, k) for k in upsert])
    _many(
        conn, "INSERT INTO known_npcs (campaign_id, npc_id, name, first_met_turn, procedural, location, role, "
        "description) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(cid, n.id, n.name, n.first_met_turn, int(n.procedural), n.location, n.role, n.description)
         for n in (new.known_npcs[k] for k in upsert)])
    _many(conn, "DELETE FROM known_npcs WHERE campaign_id = ? AND npc_id = ?", [(cid, k) for k in delete])
    upsert, _ = _changed(old.quests if old else {}, new.quests)
    _many(
        conn, UPSERT_QUEST,
        [(cid, q.id, q.status.value, q.stage, q.hint) for q in (new.quests[k] for k in upsert)])
    if old is None or old.world is not new.world or old.combat is not new.combat or old.offer != new.offer or (
            old.director is not new.director) or old.scenes is not new.scenes or (
            (old.location, old.arc_stage, old.arc_stage_turn) != (new.location, new.arc_stage, new.arc_stage_turn)):
        conn.execute(
            UPSERT_WORLD,
            (cid, new.location, new.world.time_minutes, new.arc_stage.value, new.arc_stage_turn,
             new.combat.model_dump_json() if new.combat else None, new.world.model_dump_json(),
             json.dumps([s.model_dump(mode="json") for s in new.offer]), new.director.model_dump_json(),
             new.scenes.model_dump_json()),
        )
