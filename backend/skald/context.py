"""TurnContext: the run-time handles a node may use. Passed as LangGraph ``context``, never stored in state."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass

from skald import wallclock
from skald.core.events import Limits
from skald.core.pack import EraPack
from skald.llm.client import LLMClient
from skald.rag.handle import LazyRetriever
from skald.store.idempotency import KeyedTurn
from skald.store.timeline import Position
from skald.turn_cancel import TurnCancel
from skald.wallclock import WallClock
from skald.words import TERMINAL, Words


@dataclass(frozen=True)
class TurnContext:
    """Read-only handles for one turn.

    ``conn`` is read-only while the graph runs (SQLite's ``PRAGMA query_only``; on PostgreSQL a read-only
    transaction mode); only Commit writes, through ``store.db.writing``.
    ``rng`` is seeded from (campaign seed, turn number, dice variant), so a turn's dice are reproducible.
    ``limits`` are the pack's numbers events clamp to (``events.stage`` takes them).
    ``retriever`` serves lore, style, voice and hook chunks (None: retrieval off); it opens on first use.
    ``keyed`` is the idempotency key the turn is played under (Commit stores it with the turn's response).
    ``position`` is where in the campaign's turn tree the turn is played (branch, parent turn, the head Commit's
    compare-and-swap expects, dice variant); None: after the current branch's head.
    ``resume`` is how the frontend resumes this campaign (e.g. ``skald play --campaign ID --db PATH``), for /quit.
    ``words`` are how the frontend names the moves that are not story (``skald.words``: a button, a command).
    ``cancel`` lets another request stop the turn before Commit (``turn_cancel``; None: it cannot be stopped).
    ``deadline`` is when the turn's LLM budget runs out, in ``time.monotonic()`` seconds (the start of the turn plus
    ``SKALD_TURN_BUDGET_S``): every LLM call ends by it, and a role left without time uses its offline fallback
    (None: no turn budget, each call has only its role's timeout).
    ``clock`` is the wall clock Commit stamps the turn with and ages idempotency keys by (``wallclock``; tests fix
    it).
    """

    conn: sqlite3.Connection
    pack: EraPack
    llm: LLMClient
    rng: random.Random
    limits: Limits
    retriever: LazyRetriever | None = None
    keyed: KeyedTurn | None = None
    position: Position | None = None
    resume: str | None = None
    words: Words = TERMINAL
    cancel: TurnCancel | None = None
    deadline: float | None = None
    clock: WallClock = wallclock.system
