"""Reading scene transcripts back: the SCENE_OPENED / SCENE_CLOSED events of ``turn_events`` and the lines of
``turn_dialogue`` (``skald.core.transcripts``)."""

from __future__ import annotations

import json
import sqlite3

from skald.core.pack import EraPack
from skald.core.transcripts import SceneEnd, SceneTranscript, TranscriptLine
from skald.store import timeline
from skald.store.packing import unpack


def _name(pack: EraPack | None, cid: str, spoken: dict[str, str] | None = None) -> str:
    """A character's name: the pack's, else as their own lines name them, else their id."""
    entry = pack.person(cid) if pack else None
    return entry.name if entry else (spoken or {}).get(cid, cid)


def scenes(conn: sqlite3.Connection, campaign_id: str, pack: EraPack | None = None,
           scene: str | None = None, branch: str | None = None) -> list[SceneTranscript]:
    """Every scene on the line of ``branch`` (default: the current one) up to its head (or those with id
    ``scene``), oldest first, with their lines.

    :raises CampaignNotFoundError: no such campaign. :raises BranchError: no such branch.
    """
    at = timeline.head(conn, campaign_id, branch)
    line = (campaign_id, at.branch, at.turn_number)
    lines = conn.execute(
        "SELECT p.turn_number, d.scene_id, d.beat, d.speaker, d.name, d.target, d.action, d.tone, d.content, "
        "d.nonverbal FROM branch_turns p JOIN turn_dialogue d ON d.turn_id = p.turn_id WHERE p.campaign_id = ? AND "
        "p.branch = ? AND p.turn_number <= ? ORDER BY p.turn_number, d.seq", line).fetchall()
    spoken = {x["speaker"]: x["name"] for x in lines}
    marks = conn.execute(
        "SELECT p.turn_number, e.type, e.data FROM branch_turns p JOIN turn_events e ON e.turn_id = p.turn_id WHERE "
        "p.campaign_id = ? AND p.branch = ? AND p.turn_number <= ? AND e.type IN ('SCENE_OPENED', 'SCENE_CLOSED') "
        "ORDER BY p.turn_number, e.seq", line).fetchall()
    found: list[SceneTranscript] = []
    running: dict[str, SceneTranscript] = {}
    for mark in marks:
        data = json.loads(mark["data"])
        if mark["type"] == "SCENE_OPENED":
            place = pack.locations[data["location"]].name if pack and data["location"] in pack.locations else \
                data["location"]
            t = SceneTranscript(scene=data["scene"], location=place, goal=data["goal"],
                                characters=[_name(pack, c, spoken) for c in data["characters"]],
                                opened_turn=mark["turn_number"], reason=data["reason"],
                                opened_minutes=data.get("minutes"))
            running[t.scene] = t
            found.append(t)
        elif data["scene"] in running:
            running.pop(data["scene"]).end = SceneEnd(
                turn=mark["turn_number"], reason=data["reason"], goal_achieved=data.get("goal_achieved", False),
                beats=data["beats"], tokens=data.get("tokens", 0), minutes=data.get("minutes", 0))
    player = conn.execute("SELECT name FROM characters WHERE campaign_id = ? AND char_id = 'player'",
                          (campaign_id,)).fetchone()
    names = {"player": player["name"] if player else "You", "all": "everyone"}
    for x in lines:
        owner = next((t for t in reversed(found) if t.scene == x["scene_id"] and t.opened_turn <= x["turn_number"]),
                     None)
        if owner is None:
            continue
        target = x["target"]
        owner.lines.append(TranscriptLine(
            turn=x["turn_number"], beat=x["beat"], speaker=x["name"], speaker_id=x["speaker"],
            target=names.get(target) or (_name(pack, target, spoken) if target else None), action=x["action"],
            tone=x["tone"], content=x["content"] or "", nonverbal=x["nonverbal"]))
    spent = _processing(conn, line, min(t.opened_turn for t in found)) if found else {}
    for t in found:
        last = t.end.turn if t.end else at.turn_number
        t.processing_ms = sum(ms for turn, ms in spent.items() if t.opened_turn <= turn <= last)
    return [t for t in found if scene is None or t.scene == scene]


def _processing(conn: sqlite3.Connection, line: tuple, first_turn: int) -> dict[int, int]:
    """Per turn on the line from ``first_turn`` on, the milliseconds its ``character`` and ``moderator`` calls took
    (``turns.llm_calls``, as measured when the turn was played: wall-clock time, so kept out of the events a replay
    compares)."""
    out: dict[int, int] = {}
    for r in conn.execute("SELECT p.turn_number, t.llm_calls FROM branch_turns p JOIN turns t ON t.turn_id = "
                          "p.turn_id WHERE p.campaign_id = ? AND p.branch = ? AND p.turn_number <= ? AND "
                          "p.turn_number >= ?", (*line, first_turn)):
        try:
            calls = json.loads(unpack(r["llm_calls"]) or "[]")
        except ValueError:
            continue
        ms = sum(float(c.get("latency_ms") or 0) for c in calls if isinstance(c, dict)
                 and c.get("role") in ("character", "moderator"))
        if ms:
            out[r["turn_number"]] = round(ms)
    return out
