"""The one writer: campaign creation, the turn commit and campaign deletion, each in a single ``BEGIN IMMEDIATE``
transaction.

``commit_turn`` stores what the Commit node hands it and computes nothing about the game: the turn's events (typed,
``skald.events``), the state after the turn (already folded by the graph), the rendered turn and its one-line memory.
In one transaction it checks and advances the campaign's turn number (a compare-and-swap on the number the turn was
based on), appends every event to ``turn_events``, writes the projection rows that changed between the state the
turn started from and the state after it (characters, inventory, party, reputation, known NPCs, quests, world
state), the lines its scene beats spoke (``turn_dialogue``), every ``SNAPSHOT_EVERY`` turns a snapshot of the whole
state (``turn_snapshots``), the rendered turn (with its lore citations), the memory and, for a turn played under an
idempotency key,
the key with the turn's response. Any exception rolls all of it back.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from skald.errors import TurnConflictError
from skald.events import BaseEvent, EpisodeCompleted, SceneBeat
from skald.persistent import PersistentState
from skald.store import idempotency
from skald.store.db import writing
from skald.store.idempotency import KeyedTurn
from skald.store.reads import turn_number

SNAPSHOT_EVERY = 50  # K: a snapshot of the state every K turns, so loading any turn folds at most K turns of events


def now() -> str:
    """The current UTC time as stored in ``created_at`` / ``updated_at`` columns (ISO 8601, milliseconds)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


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
    brief: str | None = None  # the scene brief the turn used, with its origin and source (JSON)


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


def create_campaign(conn: sqlite3.Connection, state: PersistentState, pack_hash: str,
                    token_hash: str | None = None, memory: str | None = None) -> None:
    """Store a new campaign at turn 0 (and, with ``token_hash``, its API token; with ``memory``, the character's
    first episodic memory, at turn 0: the summary of guided creation) in one transaction.

    :raises sqlite3.IntegrityError: a campaign with this id exists; nothing was written.
    """
    stamp = now()
    with writing(conn):
        conn.execute(
            "INSERT INTO campaigns (id, pack_id, pack_hash, seed, turn_number, story_turns, initial_state, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?)",
            (state.campaign.id, state.campaign.pack_id, pack_hash, state.campaign.seed,
             state.persistent().model_dump_json(), stamp, stamp),
        )
        _write_projections(conn, state.campaign.id, None, state)
        if token_hash is not None:
            conn.execute("INSERT INTO api_tokens (campaign_id, token_hash, created_at) VALUES (?, ?, ?)",
                         (state.campaign.id, token_hash, stamp))
        if memory:
            conn.execute("INSERT INTO turn_memories (campaign_id, turn_number, location, summary) VALUES (?, 0, ?, ?)",
                         (state.campaign.id, state.location, memory))


def commit_turn(conn: sqlite3.Connection, turn: CommittedTurn) -> None:
    """Persist one played turn.

    :raises TurnConflictError: another turn committed on this campaign first; nothing was written.
    :raises KeyTaken: another turn already holds the turn's idempotency key; nothing was written.
    :raises sqlite3.Error: on a storage failure; nothing was written.
    """
    before, after = turn.before, turn.after
    cid = before.campaign.id
    expected = before.campaign.turn_number
    number = after.campaign.turn_number
    row = turn.row
    stamp = now()
    with writing(conn):
        swapped = conn.execute(
            "UPDATE campaigns SET turn_number = ?, story_turns = ?, updated_at = ? WHERE id = ? AND turn_number = ?",
            (number, after.campaign.story_turns, stamp, cid, expected),
        ).rowcount
        if swapped != 1:
            raise TurnConflictError(cid, expected, turn_number(conn, cid))
        _many(
            conn, "INSERT INTO turn_events (campaign_id, turn_number, seq, type, data) VALUES (?, ?, ?, ?, ?)",
            [(cid, number, seq, e.type, json.dumps(e.data, sort_keys=True)) for seq, e in enumerate(turn.events)],
        )
        _write_projections(conn, cid, before, after)
        if turn.memory is not None:
            conn.execute("INSERT INTO turn_memories (campaign_id, turn_number, location, summary) VALUES (?, ?, ?, ?)",
                         (cid, number, after.location, turn.memory))
        conn.execute(
            "INSERT INTO turns (campaign_id, turn_number, input, intent, action_class, outcome, text, suggestions, "
            "warnings, mechanic, llm_calls, location, world_time_minutes, created_at, lore_citations, offline, "
            "scene_key, brief) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (cid, number, row.input, row.intent, row.action_class, row.outcome, row.text, row.suggestions,
             row.warnings, row.mechanic, row.llm_calls, after.location, after.world.time_minutes, stamp,
             row.lore_citations, int(row.offline), row.scene_key, row.brief),
        )
        _many(
            conn, "INSERT INTO episode_evaluations (campaign_id, number, episode_id, share_id, turn_number, trigger, "
            "outcome, playstyle, evaluation, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(cid, e.evaluation.number, e.episode, e.evaluation.share_id, number, e.trigger, e.evaluation.outcome,
              e.evaluation.playstyle, e.evaluation.model_dump_json(), stamp)
             for e in turn.events if isinstance(e, EpisodeCompleted)])
        _many(
            conn, "INSERT INTO turn_dialogue (campaign_id, turn_number, seq, scene_id, beat, speaker, name, target, "
            "action, tone, content, nonverbal, after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(cid, number, seq, scene, x.beat, x.speaker, x.name, x.target, x.action, x.tone, x.content, x.nonverbal,
              x.after) for seq, (scene, x) in enumerate(
                (e.scene, x) for e in turn.events if isinstance(e, SceneBeat) for x in e.lines)])
        if number % SNAPSHOT_EVERY == 0:
            conn.execute("INSERT OR REPLACE INTO turn_snapshots (campaign_id, turn_number, state) VALUES (?, ?, ?)",
                         (cid, number, after.persistent().model_dump_json()))
        if turn.keyed is not None:
            idempotency.record(conn, cid, turn.keyed, expected, number, stamp)
            idempotency.prune(conn, cid)


def delete_campaign(conn: sqlite3.Connection, campaign_id: str) -> bool:
    """Remove a campaign and every row that belongs to it (each table with a ``campaign_id`` column, so tables
    added by later migrations are covered too) in one transaction. Returns whether the campaign existed."""
    with writing(conn):
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        for table in tables:
            columns = {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}
            if table != "campaigns" and "campaign_id" in columns:
                conn.execute(f'DELETE FROM "{table}" WHERE campaign_id = ?', (campaign_id,))
        existed = conn.execute("DELETE FROM campaigns WHERE id = ?", (campaign_id,)).rowcount == 1
    return existed


def _changed(before: dict[str, Any], after: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(keys to upsert, keys to delete) between two versions of a mapping; nothing when they are the same object."""
    if before is after:
        return [], []
    return [k for k, v in after.items() if before.get(k) != v], [k for k in before if k not in after]


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
            "INSERT OR REPLACE INTO characters (campaign_id, char_id, name, background, hp, max_hp, credits, stress, "
            "stats, defeated, profile) VALUES (?, 'player', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (cid, p.name, p.background, p.hp, p.max_hp, p.credits, p.stress, json.dumps(p.stats), int(p.defeated),
             p.profile.model_dump_json()),
        )
    upsert, delete = _changed(old.player.inventory if old else {}, p.inventory)
    _many(conn, "INSERT OR REPLACE INTO inventory (campaign_id, item_id, qty) VALUES (?, ?, ?)",
                     [(cid, k, p.inventory[k]) for k in upsert])
    _many(conn, "DELETE FROM inventory WHERE campaign_id = ? AND item_id = ?", [(cid, k) for k in delete])
    upsert, _ = _changed(old.reputation if old else {}, new.reputation)
    _many(conn, "INSERT OR REPLACE INTO reputation (campaign_id, faction_id, value) VALUES (?, ?, ?)",
                     [(cid, k, new.reputation[k]) for k in upsert])
    upsert, _ = _changed(old.companions if old else {}, new.companions)
    _many(
        conn, "INSERT INTO party (campaign_id, companion_id, affinity, loyalty, in_party, joined_turn) VALUES "
        "(?, ?, ?, ?, ?, ?) ON CONFLICT (campaign_id, companion_id) DO UPDATE SET affinity = excluded.affinity, "
        "loyalty = excluded.loyalty, in_party = excluded.in_party, joined_turn = excluded.joined_turn",
        [(cid, c.id, c.affinity, c.loyalty, int(c.in_party), c.joined_turn)
         for c in (new.companions[k] for k in upsert)])
    upsert, delete = _changed(old.known_npcs if old else {}, new.known_npcs)
    _many(  # a replaced row moves to the end, as a re-spawned NPC moves to the end of known_npcs
        conn, "INSERT OR REPLACE INTO known_npcs (campaign_id, npc_id, name, first_met_turn, procedural, location, "
        "role, description) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(cid, n.id, n.name, n.first_met_turn, int(n.procedural), n.location, n.role, n.description)
         for n in (new.known_npcs[k] for k in upsert)])
    _many(conn, "DELETE FROM known_npcs WHERE campaign_id = ? AND npc_id = ?", [(cid, k) for k in delete])
    upsert, _ = _changed(old.quests if old else {}, new.quests)
    _many(
        conn, "INSERT INTO quests (campaign_id, quest_id, status, stage, hint) VALUES (?, ?, ?, ?, ?) ON CONFLICT "
        "(campaign_id, quest_id) DO UPDATE SET status = excluded.status, stage = excluded.stage, hint = excluded.hint",
        [(cid, q.id, q.status.value, q.stage, q.hint) for q in (new.quests[k] for k in upsert)])
    if old is None or old.world is not new.world or old.combat is not new.combat or old.offer != new.offer or (
            old.director is not new.director) or old.scenes is not new.scenes or (
            (old.location, old.arc_stage, old.arc_stage_turn) != (new.location, new.arc_stage, new.arc_stage_turn)):
        conn.execute(
            "INSERT OR REPLACE INTO world_state (campaign_id, location, time_minutes, arc_stage, arc_stage_turn, "
            "combat, world, offer, director, scenes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (cid, new.location, new.world.time_minutes, new.arc_stage.value, new.arc_stage_turn,
             new.combat.model_dump_json() if new.combat else None, new.world.model_dump_json(),
             json.dumps([s.model_dump(mode="json") for s in new.offer]), new.director.model_dump_json(),
             new.scenes.model_dump_json()),
        )
