"""Reading a campaign back from SQLite into a :class:`GameState` (persistent fields only)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from skald.errors import CampaignNotFoundError
from skald.events import BaseEvent, Limits, from_row, replay_log
from skald.state import (
    PERSISTENT_FIELDS,
    RECENT_TURNS,
    Campaign,
    Combat,
    CompanionState,
    DirectorState,
    GameState,
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
from skald.text import sentences
from skald.views import CampaignSummary, SuggestionView, TurnRecordView
from skald.vocab import ArcStage


def load_state(conn: sqlite3.Connection, campaign_id: str) -> GameState:
    """The campaign's committed state. :raises CampaignNotFoundError: no such campaign."""
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
    recent = _recent(conn, campaign_id, row["turn_number"])
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
        offer=_offer(conn, campaign_id, ws["offer"]),
    )


def _recent(conn: sqlite3.Connection, campaign_id: str, up_to: int) -> list[TurnSummary]:
    """The last ``RECENT_TURNS`` story turns at or before turn ``up_to``, oldest first (``PersistentState.recent``)."""
    return [
        TurnSummary(turn=r["turn_number"], input=r["input"], action_class=r["action_class"], outcome=r["outcome"],
                    location=r["location"], sentences=sentences(r["text"]))
        for r in reversed(conn.execute(
            "SELECT turn_number, input, action_class, outcome, location, text FROM turns WHERE campaign_id = ? "
            "AND turn_number <= ? AND intent != 'META' ORDER BY turn_number DESC LIMIT ?",
            (campaign_id, up_to, RECENT_TURNS)).fetchall())]


def _offer(conn: sqlite3.Connection, campaign_id: str, stored: str | None) -> list[Suggestion]:
    """The standing suggestions; a save from before m005 has none stored: its last story turn's stand."""
    if stored is None:
        row = conn.execute("SELECT suggestions FROM turns WHERE campaign_id = ? AND intent != 'META' ORDER BY "
                           "turn_number DESC LIMIT 1", (campaign_id,)).fetchone()
        stored = row[0] if row is not None else "[]"
    return [Suggestion.model_validate(s) for s in json.loads(stored or "[]")]


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


def turn_records(conn: sqlite3.Connection, campaign_id: str, after_turn: int, limit: int) -> list[TurnRecordView]:
    """Up to ``limit`` rendered turns numbered above ``after_turn``, oldest first (by the primary key)."""
    return [TurnRecordView(
        turn_number=r["turn_number"], input=r["input"], intent=r["intent"], action_class=r["action_class"],
        outcome=r["outcome"], text=r["text"], warnings=json.loads(r["warnings"]) if r["warnings"] else [],
        suggestions=[SuggestionView(label=s["label"], tone=s["tone"], risk=s["risk"])
                     for s in (json.loads(r["suggestions"]) if r["suggestions"] else [])],
        location=r["location"], world_time_minutes=r["world_time_minutes"], created_at=r["created_at"])
        for r in conn.execute("SELECT turn_number, input, intent, action_class, outcome, text, suggestions, warnings, "
                              "location, world_time_minutes, created_at FROM turns WHERE campaign_id = ? AND "
                              "turn_number > ? ORDER BY turn_number LIMIT ?", (campaign_id, after_turn, limit))]


def turn_number(conn: sqlite3.Connection, campaign_id: str) -> int:
    row = conn.execute("SELECT turn_number FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
    if row is None:
        raise CampaignNotFoundError(campaign_id)
    return row[0]


def rendered_turns(conn: sqlite3.Connection, campaign_id: str) -> list[dict[str, Any]]:
    """Every rendered turn, oldest first, with JSON columns decoded."""
    out = []
    for r in conn.execute("SELECT * FROM turns WHERE campaign_id = ? ORDER BY turn_number", (campaign_id,)):
        row = dict(r)
        for key in ("suggestions", "warnings", "mechanic", "llm_calls", "lore_citations"):
            row[key] = json.loads(row[key]) if row[key] else None
        out.append(row)
    return out


def event_log(conn: sqlite3.Connection, campaign_id: str) -> list[tuple[int, BaseEvent]]:
    """Every stored event of the campaign as (turn number, typed event), in order; rows written before events
    were typed read the same (their JSON has the same field names).

    :raises pydantic.ValidationError: a row no event class accepts (a corrupt log, or a type this engine does not
        know), naming the type and the field.
    """
    return [(r["turn_number"], from_row(r["type"], r["data"])) for r in conn.execute(
        "SELECT turn_number, type, data FROM turn_events WHERE campaign_id = ? ORDER BY turn_number, seq",
        (campaign_id,))]


def turn_events(conn: sqlite3.Connection, campaign_id: str) -> list[dict[str, Any]]:
    """The stored event rows as they are on disk (``type`` and the decoded ``data`` JSON)."""
    return [{"turn_number": r["turn_number"], "seq": r["seq"], "type": r["type"], "data": json.loads(r["data"])}
            for r in conn.execute("SELECT * FROM turn_events WHERE campaign_id = ? ORDER BY turn_number, seq",
                                  (campaign_id,))]


def state_at(conn: sqlite3.Connection, campaign_id: str, turn: int, limits: Limits) -> PersistentState:
    """The campaign's persistent state as turn ``turn`` committed it (0: as it started): the newest snapshot at or
    before it (``turn_snapshots``, every ``writer.SNAPSHOT_EVERY`` turns; the initial state when there is none), the
    events of the turns after the snapshot folded in (``events.replay_log``), and what Commit keeps beside the
    events (the story-turn count, the recent turns, the standing offer) read from the turn rows. Costs at most
    ``SNAPSHOT_EVERY`` turns of events, however long the campaign.

    :raises CampaignNotFoundError: no such campaign. :raises ValueError: ``turn`` is not between 0 and the last turn.
    """
    head = turn_number(conn, campaign_id)
    if not 0 <= turn <= head:
        raise ValueError(f"campaign {campaign_id} has turns 0 to {head}, not {turn}")
    snap = conn.execute("SELECT turn_number, state FROM turn_snapshots WHERE campaign_id = ? AND turn_number <= ? "
                        "ORDER BY turn_number DESC LIMIT 1", (campaign_id, turn)).fetchone()
    start = PersistentState.model_validate_json(snap["state"]) if snap else initial_state(conn, campaign_id)
    log = [(r["turn_number"], from_row(r["type"], r["data"])) for r in conn.execute(
        "SELECT turn_number, type, data FROM turn_events WHERE campaign_id = ? AND turn_number > ? AND "
        "turn_number <= ? ORDER BY turn_number, seq", (campaign_id, snap["turn_number"] if snap else 0, turn))]

    state = replay_log(start, log, limits)
    since = snap["turn_number"] if snap else 0
    story = start.campaign.story_turns + conn.execute(  # counted from the snapshot on: O(K), not O(turns)
        "SELECT COUNT(*) FROM turns WHERE campaign_id = ? AND turn_number > ? AND turn_number <= ? AND "
        "intent != 'META'", (campaign_id, since, turn)).fetchone()[0]
    recent = _recent(conn, campaign_id, turn)
    row = conn.execute("SELECT suggestions FROM turns WHERE campaign_id = ? AND turn_number = ?",
                       (campaign_id, turn)).fetchone()
    offer = _offer(conn, campaign_id, row["suggestions"]) if row else start.offer
    campaign = state.campaign.model_copy(update={"turn_number": turn, "story_turns": story})
    return state.model_copy(update={"campaign": campaign, "recent": recent, "offer": offer})


def initial_state(conn: sqlite3.Connection, campaign_id: str) -> PersistentState:
    """The campaign's state at turn 0. Save files written before events were typed stored a whole ``GameState``
    here (its per-turn fields empty, some of them since removed); only the persistent fields are read."""
    row = conn.execute("SELECT initial_state FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
    if row is None:
        raise CampaignNotFoundError(campaign_id)
    stored = json.loads(row[0])
    return PersistentState.model_validate({k: v for k, v in stored.items() if k in PERSISTENT_FIELDS})
