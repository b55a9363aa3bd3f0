"""Reading episodic memories back (Commit writes them; see ``rules.memory`` for the scoring)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from skald.rules.memory import WINDOW, cosine, score


@dataclass(frozen=True)
class Memory:
    turn: int
    summary: str
    score: float


def recall(conn: sqlite3.Connection, campaign_id: str, now: int, query: str,
           embed: Callable[[list[str]], list[list[float]]], k: int = 3) -> list[Memory]:
    """The ``k`` best-scoring of the last ``WINDOW`` turns (older than the last one) for ``query``.

    Embeddings are computed here, outside any transaction, and cached per summary text in this process.
    """
    rows = conn.execute("SELECT turn_number, summary FROM turn_memories WHERE campaign_id = ? AND turn_number < ? "
                        "ORDER BY turn_number DESC LIMIT ?", (campaign_id, now - 1, WINDOW)).fetchall()
    if not rows:
        return []
    texts = [r[1] for r in rows]
    missing = [t for t in texts if _cached(t, None) is None]
    if missing:
        for text, vector in zip(missing, embed(missing), strict=True):
            _remember(text, tuple(float(x) for x in vector))
    target = list(embed([query])[0])
    scored = [Memory(r[0], r[1], score(cosine(target, list(_cached(r[1], None))), now, r[0])) for r in rows]
    return sorted(scored, key=lambda m: m.score, reverse=True)[:k]


_VECTORS: dict[str, tuple[float, ...]] = {}


def _remember(text: str, vector: tuple[float, ...]) -> None:
    if len(_VECTORS) > 20_000:
        _VECTORS.clear()
    _VECTORS[text] = vector


def _cached(text: str, default: tuple[float, ...] | None) -> tuple[float, ...] | None:
    return _VECTORS.get(text, default)
