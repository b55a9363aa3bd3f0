"""The facade every frontend plays through: start a campaign, play a turn. (Grows into the full facade.)"""

from __future__ import annotations

import sqlite3

from skald.packs.models import EraPack
from skald.rules.start import new_state
from skald.state import GameState
from skald.store import writer


def start_campaign(conn: sqlite3.Connection, pack: EraPack, *, seed: int, background: str | None = None,
                   name: str = "Wren", campaign_id: str | None = None, token_hash: str | None = None) -> GameState:
    """Create and store a new campaign at turn 0 (with its API token's hash, in the same transaction); return its
    state. :raises ValueError: unknown background. :raises sqlite3.IntegrityError: the campaign id is taken."""
    state = new_state(pack, seed=seed, background=background, name=name, campaign_id=campaign_id)
    writer.create_campaign(conn, state, pack.content_hash, token_hash)
    return state
