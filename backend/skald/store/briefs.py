"""Reading back the scene brief a campaign's turns used. Commit stores a scene's brief (JSON: the brief and its
origin) in ``turns.brief`` of the turn that first used it, and again only when it changes; the other turns of the
scene keep NULL there, and their scene key."""

from __future__ import annotations

import json
import sqlite3

from skald.core.brief import SceneBrief
from skald.store.packing import unpack


def latest(conn: sqlite3.Connection, campaign_id: str, scene_key: str, branch: str,
           up_to: int) -> tuple[SceneBrief, str] | None:
    """The brief the latest turn in scene ``scene_key`` on the branch's line, at or before turn ``up_to``, used, and
    its origin (``llm`` or ``offline``); None when no such turn played in that scene (or its brief no longer reads,
    e.g. a save from another version: the scene is then briefed again)."""
    stored = latest_kept(conn, campaign_id, scene_key, branch, up_to)
    if stored is None:
        return None
    try:
        return SceneBrief.model_validate(stored["brief"]), str(stored.get("origin", "offline"))
    except (ValueError, KeyError, TypeError):
        return None


def latest_kept(conn: sqlite3.Connection, campaign_id: str, scene_key: str, branch: str, up_to: int) -> dict | None:
    """The JSON :func:`latest` reads, as stored (``{"brief": ..., "origin": ...}``; a save from before briefs were
    kept once per change also has ``source``), or None (no such turn, or it does not read as JSON)."""
    row = conn.execute("SELECT t.brief FROM turns t JOIN branch_turns p ON p.turn_id = t.turn_id AND p.campaign_id = "
                       "t.campaign_id AND p.branch = ? WHERE t.campaign_id = ? AND t.scene_key = ? AND t.brief IS NOT "
                       "NULL AND p.turn_number <= ? ORDER BY t.turn_number DESC LIMIT 1",
                       (branch, campaign_id, scene_key, up_to)).fetchone()
    if row is None:
        return None
    try:
        stored = json.loads(unpack(row[0]))
    except ValueError:
        return None
    return stored if isinstance(stored, dict) else None
