"""Reading a campaign back from SQLite into a :class:`GameState` (persistent fields only)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import AbstractContextManager
from typing import Any

from skald.core.events import BaseEvent, Limits, from_row, replay_log
from skald.core.persistent import (
    PERSISTENT_FIELDS,
    RECENT_TURNS,
    TOLD_TURNS,
    Campaign,
    Combat,
    CompanionState,
    DirectorState,
    KnownNpc,
    PersistentState,
    Player,
    Profile,
    QuestState,
    Scenes,
    Suggestion,
    TurnSummary,
    World,
)
from skald.core.state import GameState
from skald.core.views import CampaignSummary
from skald.core.vocab import ArcStage
from skald.errors import CampaignDamagedError, CampaignNotFoundError
from skald.store import packing, timeline
from skald.store.db import read_snapshot
from skald.store.packing import unpack
from skald.text import sentences, told_keys

# The turns on a branch's line: bind (campaign id, branch) and add conditions on p.turn_number.
ON_LINE = ("FROM branch_turns p JOIN turns t ON t.turn_id = p.turn_id WHERE p.campaign_id = ? AND p.branch = ?")


def load_state(conn: sqlite3.Connection, campaign_id: str) -> GameState:
    """The campaign's committed state at the head of its current branch (read from the projection tables, which
    follow that head).

    :raises CampaignNotFoundError: no such campaign.
    :raises CampaignDamagedError: a state row is missing or does not parse (named; ``skald doctor`` finds the rest).
    """
    try:
        return _load_state(conn, campaign_id)
    except (TypeError, KeyError, ValueError, AttributeError) as exc:  # a row or value gone, JSON/pydantic refusing
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:160]
        raise CampaignDamagedError(campaign_id, [f"its saved state does not load ({type(exc).__name__}: {first})"]) \
            from exc


def _load_state(conn: sqlite3.Connection, campaign_id: str) -> GameState:
    row = conn.execute("SELECT * FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
    if row is None:
        raise CampaignNotFoundError(campaign_id)
    ws = conn.execute("SELECT * FROM world_state WHERE campaign_id = ?", (campaign_id,)).fetchone()
    pc = conn.execute("SELECT * FROM characters WHERE campaign_id = ? AND char_id = 'player'",
                      (campaign_id,)).fetchone()

    def rows(sql: str) -> list[sqlite3.Row]:
        return conn.execute(sql, (campaign_id,)).fetchall()

    inventory = {r["item_id"]: r["qty"] for r in rows("SELECT item_id, qty FROM inventory WHERE campaign_id = ? "
                                                      "ORDER BY item_id")}
    recent, told = _recent(conn, campaign_id, row["branch"], row["turn_number"])
    return GameState(
        campaign=Campaign(id=row["id"], pack_id=row["pack_id"], seed=row["seed"], turn_number=row["turn_number"],
                          story_turns=row["story_turns"]),
        player=Player(name=pc["name"], background=pc["background"], stats=json.loads(pc["stats"]), hp=pc["hp"],
                      max_hp=pc["max_hp"], credits=pc["credits"], stress=pc["stress"], inventory=inventory,
                      defeated=bool(pc["defeated"]),
                      profile=Profile.model_validate_json(pc["profile"]) if pc["profile"] else Profile()),
        location=ws["location"],
        world=World.model_validate_json(ws["world"]) if ws["world"] else World(time_minutes=ws["time_minutes"]),
        reputation={r["faction_id"]: r["value"] for r in rows(
            "SELECT faction_id, value FROM reputation WHERE campaign_id = ? ORDER BY faction_id")},
        companions={r["companion_id"]: CompanionState(id=r["companion_id"], affinity=r["affinity"],
                                                      loyalty=r["loyalty"], in_party=bool(r["in_party"]),
                                                      joined_turn=r["joined_turn"])
                    for r in rows("SELECT * FROM party WHERE campaign_id = ? ORDER BY rowid")},
        known_npcs={r["npc_id"]: KnownNpc(id=r["npc_id"], name=r["name"], first_met_turn=r["first_met_turn"],
                                          procedural=bool(r["procedural"]), location=r["location"],
                                          role=r["role"] or "", description=r["description"] or "")
                    for r in rows("SELECT * FROM known_npcs WHERE campaign_id = ? ORDER BY rowid")},
        quests={r["quest_id"]: QuestState(id=r["quest_id"], status=r["status"], stage=r["stage"], hint=r["hint"])
                for r in rows("SELECT * FROM quests WHERE campaign_id = ? ORDER BY rowid")},
        arc_stage=ArcStage(ws["arc_stage"]),
        arc_stage_turn=ws["arc_stage_turn"],
        combat=Combat.model_validate_json(ws["combat"]) if ws["combat"] else None,
        director=DirectorState.model_validate_json(ws["director"]) if ws["director"] else DirectorState(),
        scenes=Scenes.model_validate_json(ws["scenes"]) if ws["scenes"] else Scenes(),
        recent=recent,
        told=told,
        offer=_offer(conn, campaign_id, row["branch"], row["turn_number"], ws["offer"]),
    )


def _recent(conn: sqlite3.Connection, campaign_id: str, branch: str,
            up_to: int) -> tuple[list[TurnSummary], list[list[int]]]:
    """The last ``RECENT_TURNS`` story turns at or before turn ``up_to`` on the branch's line, oldest first
    (``PersistentState.recent``), and the keys of the sentences of the last ``TOLD_TURNS`` (``.told``): what Commit
    keeps of the turns it writes (``GameState.closing``), read back."""
    rows = list(reversed(conn.execute(
        f"SELECT t.turn_number, t.input, t.action_class, t.outcome, t.location, t.text {ON_LINE} AND "
        "p.turn_number <= ? AND t.intent != 'META' ORDER BY p.turn_number DESC LIMIT ?",
        (campaign_id, branch, up_to, max(RECENT_TURNS, TOLD_TURNS))).fetchall()))
    said = [sentences(r["text"]) for r in rows]
    recent = [TurnSummary(turn=r["turn_number"], input=r["input"], action_class=r["action_class"],
                          outcome=r["outcome"], location=r["location"], sentences=told)
              for r, told in zip(rows[-RECENT_TURNS:], said[-RECENT_TURNS:], strict=True)]
    return recent, [[k for s in told for k in told_keys(s)] for told in said[-TOLD_TURNS:]]


def _offer(conn: sqlite3.Connection, campaign_id: str, branch: str, up_to: int, stored: str | None) -> list[Suggestion]:
    """The standing suggestions; a save from before m005 has none stored: its last story turn's stand."""
    if stored is None:
        row = conn.execute(f"SELECT t.suggestions {ON_LINE} AND p.turn_number <= ? AND t.intent != 'META' ORDER BY "
                           "p.turn_number DESC LIMIT 1", (campaign_id, branch, up_to)).fetchone()
        stored = row[0] if row is not None else "[]"
    return [Suggestion.model_validate(s) for s in json.loads(unpack(stored) or "[]")]


def snapshot(conn: sqlite3.Connection) -> AbstractContextManager[None]:
    """A read transaction: every read inside sees the store as of its first read, so a head and the state at it are
    read together (``store.db.read_snapshot``). Nested use (already in a transaction) reads inside the outer one."""
    return read_snapshot(conn)


def visited(conn: sqlite3.Connection, campaign_id: str) -> set[str]:
    """Every location the campaign's current branch has been at, its start included."""
    at = timeline.head(conn, campaign_id)
    places = {r[0] for r in conn.execute(f"SELECT DISTINCT t.location {ON_LINE} AND p.turn_number <= ?",
                                         (campaign_id, at.branch, at.turn_number))}
    return places | {initial_state(conn, campaign_id).location}


def branch_heads(conn: sqlite3.Connection, campaign_id: str) -> list[tuple[timeline.Branch, str, str | None]]:
    """Every branch (``timeline.branches``) with where its head stands: the location id and the head turn's narration
    (the start location and None for a branch at the campaign's start). :raises CampaignNotFoundError."""
    out = []
    for branch in timeline.branches(conn, campaign_id):
        shown = timeline.turn(conn, campaign_id, branch.head.turn_id)  # None at the campaign's start
        out.append((branch, shown.location, shown.text) if shown else
                   (branch, initial_state(conn, campaign_id).location, None))
    return out


def pack_id(conn: sqlite3.Connection, campaign_id: str) -> str:
    """The id of the pack the campaign plays. :raises CampaignNotFoundError."""
    row = conn.execute("SELECT pack_id FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
    if row is None:
        raise CampaignNotFoundError(campaign_id)
    return row[0]


def list_campaigns(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """(campaign id, turn number), most recently played first."""
    return [(r["id"], r["turn_number"]) for r in conn.execute(
        "SELECT id, turn_number FROM campaigns ORDER BY updated_at DESC, id")]


def campaign_rows(conn: sqlite3.Connection) -> list[CampaignSummary]:
    """Every campaign, most recently played first (read in the order of the ``campaigns_by_update`` index)."""
    return [CampaignSummary(campaign_id=r["id"], pack=r["pack_id"], turn_number=r["turn_number"],
                            updated_at=r["updated_at"])
            for r in conn.execute("SELECT id, pack_id, turn_number, updated_at FROM campaigns "
                                  "ORDER BY updated_at DESC, id")]


def turn_records(conn: sqlite3.Connection, campaign_id: str, after_turn: int, limit: int,
                 branch: str | None = None) -> list[dict[str, Any]]:
    """Up to ``limit`` rendered turns numbered above ``after_turn`` on the line of ``branch`` (default: the current
    one) up to its head, oldest first (by the line's primary key): the fields of ``core.views.TurnRecordView``, the
    suggestions as stored (``views.turn_record`` makes the view)."""
    at = timeline.head(conn, campaign_id, branch)
    return [dict(r) | {"warnings": json.loads(r["warnings"]) if r["warnings"] else [],
                       "suggestions": json.loads(unpack(r["suggestions"]) or "[]")}
        for r in conn.execute("SELECT t.turn_number, t.input, t.intent, t.action_class, t.outcome, t.text, "
                              f"t.suggestions, t.warnings, t.location, t.world_time_minutes, t.created_at, t.variant "
                              f"{ON_LINE} AND p.turn_number > ? AND p.turn_number <= ? ORDER BY p.turn_number LIMIT ?",
                              (campaign_id, at.branch, after_turn, at.turn_number, limit))]


def turn_number(conn: sqlite3.Connection, campaign_id: str) -> int:
    row = conn.execute("SELECT turn_number FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
    if row is None:
        raise CampaignNotFoundError(campaign_id)
    return row[0]


def rendered_turns(conn: sqlite3.Connection, campaign_id: str, branch: str | None = None) -> list[dict[str, Any]]:
    """Every rendered turn on the line of ``branch`` (default: the current one) up to its head, oldest first, with
    JSON columns decoded."""
    at = timeline.head(conn, campaign_id, branch)
    out = []
    for r in conn.execute(f"SELECT t.* {ON_LINE} AND p.turn_number <= ? ORDER BY p.turn_number",
                          (campaign_id, at.branch, at.turn_number)):
        row = dict(r)
        for key in packing.COLUMNS["turns"]:
            row[key] = unpack(row[key])
        for key in ("suggestions", "warnings", "mechanic", "llm_calls", "lore_citations"):
            row[key] = json.loads(row[key]) if row[key] else None
        out.append(row)
    return out


def _event_rows(conn: sqlite3.Connection, campaign_id: str, branch: str | None, after: int = 0,
                up_to: int | None = None) -> list[sqlite3.Row]:
    """The event rows of the turns numbered ``after`` + 1 .. ``up_to`` (default: the head) on the branch's line."""
    at = timeline.head(conn, campaign_id, branch)
    return conn.execute(
        "SELECT e.turn_number, e.seq, e.type, e.data FROM branch_turns p JOIN turn_events e ON e.turn_id = p.turn_id "
        "WHERE p.campaign_id = ? AND p.branch = ? AND p.turn_number > ? AND p.turn_number <= ? ORDER BY "
        "p.turn_number, e.seq", (campaign_id, at.branch, after, at.turn_number if up_to is None else up_to)).fetchall()


def event_log(conn: sqlite3.Connection, campaign_id: str, branch: str | None = None) -> list[tuple[int, BaseEvent]]:
    """Every stored event on the line of ``branch`` (default: the current one) up to its head, as (turn number,
    typed event), in order; rows written before events were typed read the same (their JSON has the same field
    names).

    :raises pydantic.ValidationError: a row no event class accepts (a corrupt log, or a type this engine does not
        know), naming the type and the field.
    """
    return [(r["turn_number"], from_row(r["type"], r["data"])) for r in _event_rows(conn, campaign_id, branch)]


def turn_events(conn: sqlite3.Connection, campaign_id: str, branch: str | None = None) -> list[dict[str, Any]]:
    """The stored event rows on the branch's line as they are on disk (``type`` and the decoded ``data`` JSON)."""
    return [{"turn_number": r["turn_number"], "seq": r["seq"], "type": r["type"], "data": json.loads(r["data"])}
            for r in _event_rows(conn, campaign_id, branch)]


def state_at(conn: sqlite3.Connection, campaign_id: str, turn: int, limits: Limits,
             branch: str | None = None) -> PersistentState:
    """The campaign's persistent state as turn ``turn`` of the line of ``branch`` (default: the current one)
    committed it (0: as it started): the newest snapshot on that line at or before it (``turn_snapshots``, every
    ``writer.SNAPSHOT_EVERY`` turns; the initial state when there is none), the events of the line's turns after the
    snapshot folded in (``events.replay_log``), and what Commit keeps beside the events (the story-turn count, the
    recent turns, the standing offer) read from the turn rows. Costs at most ``SNAPSHOT_EVERY`` turns of events,
    however long the campaign; ``turn`` may be above the head, up to the line's tip (what /redo reaches).

    :raises CampaignNotFoundError: no such campaign. :raises BranchError: no such branch.
    :raises ValueError: ``turn`` is not between 0 and the line's tip.
    """
    name = timeline.head(conn, campaign_id, branch).branch
    top = timeline.tip(conn, campaign_id, name)
    if not 0 <= turn <= top:
        raise ValueError(f"campaign {campaign_id} has turns 0 to {top} on branch {name}, not {turn}")
    snap = conn.execute("SELECT p.turn_number, s.state FROM branch_turns p JOIN turn_snapshots s ON s.turn_id = "
                        "p.turn_id WHERE p.campaign_id = ? AND p.branch = ? AND p.turn_number <= ? ORDER BY "
                        "p.turn_number DESC LIMIT 1", (campaign_id, name, turn)).fetchone()
    start = PersistentState.model_validate_json(unpack(snap["state"])) if snap else initial_state(conn, campaign_id)
    since = snap["turn_number"] if snap else 0
    log = [(r["turn_number"], from_row(r["type"], r["data"])) for r in _event_rows(conn, campaign_id, name, since,
                                                                                   turn)]
    state = replay_log(start, log, limits)
    story = start.campaign.story_turns + conn.execute(  # counted from the snapshot on: O(K), not O(turns)
        f"SELECT COUNT(*) {ON_LINE} AND p.turn_number > ? AND p.turn_number <= ? AND t.intent != 'META'",
        (campaign_id, name, since, turn)).fetchone()[0]
    recent, told = _recent(conn, campaign_id, name, turn)
    row = conn.execute(f"SELECT t.suggestions {ON_LINE} AND p.turn_number = ?", (campaign_id, name, turn)).fetchone()
    offer = _offer(conn, campaign_id, name, turn, row["suggestions"]) if row else start.offer
    campaign = state.campaign.model_copy(update={"turn_number": turn, "story_turns": story})
    return state.model_copy(update={"campaign": campaign, "recent": recent, "told": told, "offer": offer})


def initial_state(conn: sqlite3.Connection, campaign_id: str) -> PersistentState:
    """The campaign's state at turn 0. Save files written before events were typed stored a whole ``GameState``
    here (its per-turn fields empty, some of them since removed); only the persistent fields are read."""
    row = conn.execute("SELECT initial_state FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
    if row is None:
        raise CampaignNotFoundError(campaign_id)
    stored = json.loads(unpack(row[0]))
    return PersistentState.model_validate({k: v for k, v in stored.items() if k in PERSISTENT_FIELDS})
