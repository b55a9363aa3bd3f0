"""Reading back the scene brief a campaign's turns used (Commit stores it with each turn, ``turns.brief``)."""

from __future__ import annotations

import json
import sqlite3

from skald.core.brief import SceneBrief


def latest(conn: sqlite3.Connection, campaign_id: str, scene_key: str, branch: str,
           up_to: int) -> tuple[SceneBrief, str] | None:
    """The brief the latest turn in scene ``scene_key`` on the branch's line, at or before turn ``up_to``, used, and
    its origin (``llm`` or ``offline``); None when no such turn played in that scene (or its brief no longer reads,
    e.g. a save from another version: the scene is then briefed again)."""
    row = conn.execute("SELECT t.brief FROM turns t JOIN branch_turns p ON p.turn_id = t.turn_id AND p.campaign_id = "
                       "t.campaign_id AND p.branch = ? WHERE t.campaign_id = ? AND t.scene_key = ? AND t.brief IS NOT "
                       "NULL AND p.turn_number <= ? ORDER BY t.turn_number DESC LIMIT 1",
                       (branch, campaign_id, scene_key, up_to)).fetchone()
    if row is None:
        return None
    try:
        stored = json.loads(row[0])
        return SceneBrief.model_validate(stored["brief"]), str(stored.get("origin", "offline"))
    except (ValueError, KeyError, TypeError):
        return None
