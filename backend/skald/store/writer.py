"""The one writer: campaign creation, the turn commit and campaign deletion, each in a single ``BEGIN IMMEDIATE``
transaction.

``commit_turn`` folds the turn's staged events into the persistent state (``rules.events.apply_events``),
then, in one transaction: checks and advances the campaign's turn number (compare-and-swap on the number
the turn was based on), appends every event to ``turn_events``, writes the changed projection rows
(characters, inventory, party, reputation, known NPCs, quests, world state), the rendered turn (with its lore
citations) and a one-line memory of the turn for episodic recall. Any exception rolls all of it back. No
embedding work happens here: memories are embedded when they are recalled.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import UTC, datetime
from typing import Any

from skald.errors import TurnConflictError
from skald.packs.models import EraPack
from skald.rules import memory
from skald.rules.events import apply_events
from skald.state import Campaign, GameState, Intent, PersistentState, Player, World
from skald.store.db import writing
from skald.store.reads import turn_number


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def new_state(pack: EraPack, *, seed: int, background: str | None = None, name: str = "Wren",
              campaign_id: str | None = None) -> GameState:
    """The starting state of a campaign: background stats, HP, credits, items and reputation; the pack's starting
    meters; public rumors. It starts at the background's start location, else at one of the pack's
    ``start_locations`` chosen by the seed.

    :raises ValueError: unknown background id.
    """
    bg_id = background or next(iter(pack.backgrounds))
    if bg_id not in pack.backgrounds:
        raise ValueError(f"unknown background {bg_id!r}; choose one of: {', '.join(pack.backgrounds)}")
    bg = pack.backgrounds[bg_id]
    inventory: dict[str, int] = {}
    for item in bg.items:
        inventory[item] = inventory.get(item, 0) + 1
    state = GameState(
        campaign=Campaign(id=campaign_id or uuid.uuid4().hex[:12], pack_id=pack.id, seed=seed),
        player=Player(name=name, background=bg_id, stats=bg.stats.model_dump(), hp=bg.hp, max_hp=bg.hp,
                      credits=bg.credits, inventory=inventory),
        location=bg.start_location or pack.era.start_locations[seed % len(pack.era.start_locations)],
        world=World(time_minutes=pack.era.calendar.start_minutes,
                    tick=pack.era.calendar.start_minutes // pack.era.rules.world_tick_minutes,
                    faction_power={f.id: f.power for f in pack.factions.values()},
                    public_rumors=[r.id for r in pack.rumors.values() if r.public]),
        reputation=_starting_reputation(pack, bg.reputation),
    )
    state.player.stress = min(pack.era.rules.starting.stress, pack.era.rules.max_stress)
    return state


def _starting_reputation(pack: EraPack, background: dict[str, int]) -> dict[str, int]:
    """0 for every faction, plus the pack's starting reputation, plus the background's (clamped to -10..10)."""
    rep = {f: 0 for f in pack.factions}
    for extra in (pack.era.rules.starting.reputation, background):
        for faction, value in extra.items():
            rep[faction] = max(-10, min(10, rep.get(faction, 0) + value))
    return rep


def create_campaign(conn: sqlite3.Connection, pack: EraPack, *, seed: int, background: str | None = None,
                    name: str = "Wren", campaign_id: str | None = None) -> GameState:
    """Create and store a new campaign at turn 0; return its state."""
    state = new_state(pack, seed=seed, background=background, name=name, campaign_id=campaign_id)
    now = _now()
    with writing(conn):
        conn.execute(
            "INSERT INTO campaigns (id, pack_id, pack_hash, seed, turn_number, story_turns, initial_state, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?)",
            (state.campaign.id, pack.id, pack.content_hash, seed, state.model_dump_json(), now, now),
        )
        _write_projections(conn, state.campaign.id, None, state)
    return state


def commit_turn(conn: sqlite3.Connection, state: GameState, pack: EraPack) -> PersistentState:
    """Persist one played turn. Returns the new persistent state (not yet reloaded).

    :raises TurnConflictError: another turn committed on this campaign first; nothing was written.
    :raises sqlite3.Error: on a storage failure; nothing was written.
    """
    cid = state.campaign.id
    expected = state.campaign.turn_number
    turn = expected + 1
    after = apply_events(state.persistent(), state.staged_events, pack, turn)
    after.campaign.turn_number = turn
    if state.intent != Intent.META:
        after.campaign.story_turns += 1
    result = state.mechanic_result
    with writing(conn):
        swapped = conn.execute(
            "UPDATE campaigns SET turn_number = ?, story_turns = ?, updated_at = ? WHERE id = ? AND turn_number = ?",
            (turn, after.campaign.story_turns, _now(), cid, expected),
        ).rowcount
        if swapped != 1:
            raise TurnConflictError(cid, expected, turn_number(conn, cid))
        conn.executemany(
            "INSERT INTO turn_events (campaign_id, turn_number, seq, type, data) VALUES (?, ?, ?, ?, ?)",
            [(cid, turn, seq, e.type, json.dumps(e.data, sort_keys=True)) for seq, e in enumerate(state.staged_events)],
        )
        _write_projections(conn, cid, state, after)
        if state.intent != Intent.META:
            conn.execute("INSERT INTO turn_memories (campaign_id, turn_number, location, summary) VALUES (?, ?, ?, ?)",
                         (cid, turn, after.location, memory.summarize(state, pack)))
        conn.execute(
            "INSERT INTO turns (campaign_id, turn_number, input, intent, action_class, outcome, text, suggestions, "
            "warnings, mechanic, llm_calls, location, world_time_minutes, created_at, lore_citations) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (cid, turn, state.player_input, state.intent.value if state.intent else None,
             state.router_output.action_class.value if state.router_output else None,
             result.outcome.value if result else None, state.final_text,
             json.dumps([s.model_dump(mode="json") for s in state.suggested_actions]),
             json.dumps(state.warnings), result.model_dump_json() if result else None,
             json.dumps([c.model_dump(mode="json") for c in state.llm_calls]),
             after.location, after.world.time_minutes, _now(), json.dumps(state.lore_citations)),
        )
    return after


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


def _diff_rows(before: dict[str, Any], after: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(keys to upsert, keys to delete)."""
    return [k for k, v in after.items() if before.get(k) != v], [k for k in before if k not in after]


def _write_projections(conn: sqlite3.Connection, cid: str, old: PersistentState | None, new: PersistentState) -> None:
    """Write the rows that differ between ``old`` and ``new`` (everything when ``old`` is None)."""
    p = new.player
    if old is None or old.player != p:
        conn.execute(
            "INSERT OR REPLACE INTO characters (campaign_id, char_id, name, background, hp, max_hp, credits, stress, "
            "stats, defeated) VALUES (?, 'player', ?, ?, ?, ?, ?, ?, ?, ?)",
            (cid, p.name, p.background, p.hp, p.max_hp, p.credits, p.stress, json.dumps(p.stats), int(p.defeated)),
        )
    empty = PersistentState.model_construct(
        player=Player.model_construct(inventory={}), reputation={}, companions={}, known_npcs={}, quests={})
    base = old or empty
    upsert, delete = _diff_rows(base.player.inventory, p.inventory)
    conn.executemany("INSERT OR REPLACE INTO inventory (campaign_id, item_id, qty) VALUES (?, ?, ?)",
                     [(cid, k, p.inventory[k]) for k in upsert])
    conn.executemany("DELETE FROM inventory WHERE campaign_id = ? AND item_id = ?", [(cid, k) for k in delete])
    upsert, _ = _diff_rows(base.reputation, new.reputation)
    conn.executemany("INSERT OR REPLACE INTO reputation (campaign_id, faction_id, value) VALUES (?, ?, ?)",
                     [(cid, k, new.reputation[k]) for k in upsert])
    upsert, _ = _diff_rows(base.companions, new.companions)
    conn.executemany(
        "INSERT INTO party (campaign_id, companion_id, affinity, loyalty, in_party, joined_turn) VALUES "
        "(?, ?, ?, ?, ?, ?) ON CONFLICT (campaign_id, companion_id) DO UPDATE SET affinity = excluded.affinity, "
        "loyalty = excluded.loyalty, in_party = excluded.in_party, joined_turn = excluded.joined_turn",
        [(cid, c.id, c.affinity, c.loyalty, int(c.in_party), c.joined_turn)
         for c in (new.companions[k] for k in upsert)])
    upsert, delete = _diff_rows(base.known_npcs, new.known_npcs)
    conn.executemany(
        "INSERT OR REPLACE INTO known_npcs (campaign_id, npc_id, name, first_met_turn, procedural, location, role, "
        "description) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(cid, n.id, n.name, n.first_met_turn, int(n.procedural), n.location, n.role, n.description)
         for n in (new.known_npcs[k] for k in upsert)])
    conn.executemany("DELETE FROM known_npcs WHERE campaign_id = ? AND npc_id = ?", [(cid, k) for k in delete])
    upsert, _ = _diff_rows(base.quests, new.quests)
    conn.executemany(
        "INSERT INTO quests (campaign_id, quest_id, status, stage) VALUES (?, ?, ?, ?) ON CONFLICT "
        "(campaign_id, quest_id) DO UPDATE SET status = excluded.status, stage = excluded.stage",
        [(cid, q.id, q.status, q.stage) for q in (new.quests[k] for k in upsert)])
    conn.execute(
        "INSERT OR REPLACE INTO world_state (campaign_id, location, time_minutes, arc_stage, arc_stage_turn, combat, "
        "world) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (cid, new.location, new.world.time_minutes, new.arc_stage.value, new.arc_stage_turn,
         new.combat.model_dump_json() if new.combat else None, new.world.model_dump_json()),
    )
