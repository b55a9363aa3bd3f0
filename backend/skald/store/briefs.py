"""Reading back the scene brief a campaign's turns used (Commit stores it with each turn, ``turns.brief``)."""

from __future__ import annotations

import json
import sqlite3

from skald.scene_brief import SceneBrief


def latest(conn: sqlite3.Connection, campaign_id: str, scene_key: str) -> tuple[SceneBrief, str] | None:
    """The brief the campaign's latest turn in scene ``scene_key`` used, and its origin (``llm`` or ``offline``);
    None when no stored turn played in that scene (or its brief no longer reads, e.g. a save from another version:
    the scene is then briefed again)."""
    row = conn.execute("SELECT brief FROM turns WHERE campaign_id = ? AND scene_key = ? AND brief IS NOT NULL "
                       "ORDER BY turn_number DESC LIMIT 1", (campaign_id, scene_key)).fetchone()
    if row is None:
        return None
    try:
        stored = json.loads(row[0])
        return SceneBrief.model_validate(stored["brief"]), str(stored.get("origin", "offline"))
    except (ValueError, KeyError, TypeError):
        return None
