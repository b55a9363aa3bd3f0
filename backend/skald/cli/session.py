"""A play session: one campaign, one connection, one pack, one LLM client. Shared by the terminal client
(and later the API), so both play turns the same way."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skald.engine import start_campaign
from skald.graph import run_turn
from skald.llm.client import LLMClient
from skald.packs.loader import get_pack
from skald.packs.models import EraPack
from skald.packs.watch import PackWatcher
from skald.replay.session import Recorder
from skald.rules import clock
from skald.state import GameState
from skald.store import reads
from skald.store.db import connect


def next_campaign_id(conn: sqlite3.Connection, pack_id: str, seed: int) -> str:
    """``<pack>-<seed>-<n>``: deterministic for a given save file, so a replay into a new file matches."""
    taken = {cid for cid, _ in reads.list_campaigns(conn)}
    n = 1
    while f"{pack_id}-{seed}-{n}" in taken:
        n += 1
    return f"{pack_id}-{seed}-{n}"


@dataclass
class Session:
    conn: sqlite3.Connection
    pack: EraPack
    llm: LLMClient
    state: GameState
    recorder: Recorder | None = None
    retriever: Any = True  # the settings' lore index; a LazyRetriever, or None for no retrieval
    pack_ref: str = ""  # the pack id or folder the session was opened with (for --watch)

    @classmethod
    def open(cls, db: Path, llm: LLMClient, *, pack_id: str | None = None, campaign: str | None = None,
             seed: int = 0, background: str | None = None, name: str = "Wren") -> Session:
        """Resume ``campaign`` or start a new one on ``pack_id``.

        :raises CampaignNotFoundError: unknown campaign id. :raises PackError: unknown or invalid pack.
        :raises ValueError: unknown background, or a pack that does not match the resumed campaign.
        """
        conn = connect(db)
        if campaign:
            state = reads.load_state(conn, campaign)
            if pack_id and pack_id != state.campaign.pack_id:
                raise ValueError(f"campaign {campaign} was played on pack {state.campaign.pack_id!r}, not {pack_id!r}")
            pack_ref = state.campaign.pack_id
        else:
            pack_ref = pack_id or _default_pack()
        pack = get_pack(pack_ref)
        if not campaign:
            cid = next_campaign_id(conn, pack.id, seed)
            state = start_campaign(conn, pack, seed=seed, background=background, name=name, campaign_id=cid)
        return cls(conn=conn, pack=pack, llm=llm, state=state, pack_ref=pack_ref)

    def watcher(self) -> PackWatcher:
        """A watcher of this session's pack files, for :meth:`poll_pack` (``skald play --watch``)."""
        return PackWatcher(self.pack_ref or self.pack.id, current=self.pack)

    def poll_pack(self, watcher: PackWatcher) -> list[str]:
        """Before a turn: swap in the pack if its files changed and it still loads and fits this campaign.
        Returns the lines to show the player (none when nothing changed)."""
        pack, errors = watcher.poll(self.state)
        if errors:
            return ["pack edit has errors; still playing the last good version:", *(f"  {e}" for e in errors)]
        if pack is None:
            return []
        self.pack = pack
        return [f"pack reloaded ({pack.id}, {pack.content_hash})"]

    def play(self, text: str, on_token: Callable[[str], None] | None = None) -> GameState:
        """Play one turn; ``on_token`` gets narrator tokens as they stream; recorded when a recorder is set.
        Errors (PlayerInputError, TurnConflictError) leave ``self.state`` as it was."""

        def step(line: str) -> GameState:
            return run_turn(self.conn, self.state.model_copy(update={"player_input": line}), pack=self.pack,
                            llm=self.llm, on_token=on_token, retriever=self.retriever)

        self.state = self.recorder.play(step, text, self.pack) if self.recorder else step(text)
        return self.state

    def reload(self) -> None:
        self.state = reads.load_state(self.conn, self.state.campaign.id)

    def close(self) -> None:
        self.conn.close()


def _default_pack() -> str:
    from skald.settings import get_settings

    return get_settings().default_pack


def debug_json(state: GameState) -> dict[str, Any]:
    """LLM call metrics and per-role context stats of a turn (``--debug``)."""
    return {"llm_calls": [c.model_dump(mode="json", exclude={"feedback"}) | {"feedback_sent": len(c.feedback)}
                          for c in state.llm_calls],
            "context_stats": state.context_stats}


def turn_json(state: GameState, pack: EraPack, debug: bool = False) -> dict[str, Any]:
    """The ``--json`` shape of a played turn (one object per turn); ``debug`` adds :func:`debug_json`."""
    result = state.mechanic_result
    extra = {"debug": debug_json(state)} if debug else {}
    return extra | {
        "campaign_id": state.campaign.id,
        "turn_number": state.campaign.turn_number,
        "input": state.player_input,
        **state.played(),
        "mechanic": None if result is None else {
            "outcome": result.outcome.value, "roll": result.roll, "total": result.total, "dc": result.dc,
            "minutes": result.minutes},
        "warnings": state.warnings,
        "state": {
            "location": state.location,
            "location_name": pack.locations[state.location].name,
            "world_time_minutes": state.world.time_minutes,
            "time_of_day": clock.time_of_day(state.world.time_minutes),
            "hp": state.player.hp,
            "max_hp": state.player.max_hp,
            "credits": state.player.credits,
            "stress": state.player.stress,
            "defeated": state.player.defeated,
            "party": state.party,
        },
    }
