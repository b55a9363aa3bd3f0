"""Episodic memory: a one-line summary of each turn (stored by Commit) and how past turns are recalled.

Recall score = 0.7 x relevance + 0.3 x recency, where relevance is the cosine similarity between the current
scene and the remembered summary (embedded with the lore index's embedding model) and recency halves every
20 turns: 0.5 ** ((now - then) / 20). Only the most recent ``WINDOW`` turns are considered, so recall costs
the same at turn 10,000 as at turn 100.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.state import GameState

RELEVANCE_WEIGHT = 0.7
RECENCY_WEIGHT = 0.3
HALF_LIFE_TURNS = 20
WINDOW = 200
SHOWN_EVENTS: dict[type[ev.BaseEvent], str] = {
    ev.CompanionJoin: "{companion} joined", ev.CombatStart: "a fight with {enemy_name}",
    ev.QuestUpdate: "quest {quest} {status}", ev.Defeated: "you went down", ev.Discovery: "found {discovery}"}


def summarize(state: GameState, pack: EraPack) -> str:
    """'Turn 12, The Scrip Market: persuade Juno ... -> You persuade Juno Farrow. (quest short_pour active)'."""
    location = pack.locations[state.after.location].name
    outcome = state.mechanic_result.summary if state.mechanic_result else state.final_text[:120]
    notes = [SHOWN_EVENTS[type(e)].format(**e.data) for e in state.staged_events if type(e) in SHOWN_EVENTS]
    tail = f" ({'; '.join(notes)})" if notes else ""
    text = f"Turn {state.turn}, {location}: {state.player_input} -> {outcome}{tail}"
    return text[:300]


def score(relevance: float, now: int, then: int) -> float:
    recency = 0.5 ** (max(0, now - then) / HALF_LIFE_TURNS)
    return RELEVANCE_WEIGHT * relevance + RECENCY_WEIGHT * recency


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


@dataclass(frozen=True)
class Memory:
    turn: int
    summary: str
    score: float


_VECTORS: dict[str, tuple[float, ...]] = {}  # embeddings per summary text, kept for this process


def recall(rows: list[tuple[int, str]], now: int, query: str, embed: Callable[[list[str]], list[list[float]]],
           k: int = 3) -> list[Memory]:
    """The ``k`` best-scoring of ``rows`` ((turn, summary) of the last ``WINDOW`` turns before the last one, from
    ``store.memories.recent``) for ``query``. Embeddings are computed here, outside any transaction, and cached per
    summary text in this process."""
    if not rows:
        return []
    missing = [text for _, text in rows if text not in _VECTORS]
    if missing:
        if len(_VECTORS) > 20_000:
            _VECTORS.clear()
        for text, vector in zip(missing, embed(missing), strict=True):
            _VECTORS[text] = tuple(float(x) for x in vector)
    target = list(embed([query])[0])
    scored = [Memory(turn, text, score(cosine(target, list(_VECTORS[text])), now, turn)) for turn, text in rows]
    return sorted(scored, key=lambda m: m.score, reverse=True)[:k]
