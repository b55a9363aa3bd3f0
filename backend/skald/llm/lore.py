"""What each LLM role's prompt asks the lore index for, done by the node through its context (``TurnContext.
retriever``) and handed to the prompt builders (``llm.prompts``) as plain data.

The narrator gets the style lane (queried with the era's tone, so its system prompt stays the same every turn), the
lore lane (the place, the outcome and the people on stage) and the voice lane (how the people on stage talk); the
Director gets the hooks lane, less rumors the town has not heard. Every lane's warnings (an index missing or stale,
a failed query) come back with the hits, for the node to report on its own turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.records import PresentNpc
from skald.core.state import GameState


@dataclass(frozen=True)
class Retrieved:
    """Hits per lane for one prompt, and the warnings of those lane calls. ``unavailable`` is True when the index
    gave nothing because it could not be used (the prompt then falls back to the pack's own documents)."""

    style: list[Any] = field(default_factory=list)
    lore: list[Any] = field(default_factory=list)
    voice: list[Any] = field(default_factory=list)
    hooks: list[Any] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def unavailable(self) -> bool:
        return bool(self.warnings) and not (self.style or self.lore or self.voice or self.hooks)


def scene_entities(state: GameState, pack: EraPack,
                   cast: list[PresentNpc] | None = None) -> tuple[list[str], list[str]]:
    """(ids of the people on stage, or of ``cast`` when given; ids of their factions and of the place's owner)."""
    location = pack.locations[state.after.location]
    cast = state.present_npcs if cast is None else cast
    factions = {p.faction for p in cast if p.faction} | ({location.faction} - {None})
    return [p.id for p in cast], sorted(factions)


def for_narrator(retriever: Any, state: GameState, pack: EraPack) -> Retrieved | None:
    """The narrator's lanes; None without a retriever (retrieval off)."""
    if retriever is None:
        return None
    lanes = retriever.real(pack)
    location = pack.locations[state.after.location]
    people, factions = scene_entities(state, pack)
    query = f"{location.name}. {state.mechanic_result.summary if state.mechanic_result else ''} " + \
        " ".join(p.name for p in state.present_npcs)
    style = lanes.style(pack.id, pack.era.tone, k=2, budget=300)
    lore = lanes.lore(pack.id, query, entities=[location.id, *people, *factions], k=4, budget=600)
    voice = lanes.voice(pack.id, people, k=2, budget=300)
    warnings = list(dict.fromkeys(style.warnings + lore.warnings + voice.warnings))
    return Retrieved(style=style.hits, lore=lore.hits, voice=voice.hits, warnings=warnings)


def for_director(retriever: Any, state: PersistentState, people: list[PresentNpc], pack: EraPack) -> Retrieved | None:
    """The Director's hooks for the scene ``state`` stands in with ``people`` there (quests, and rumors the town
    already talks about); None without a retriever."""
    if retriever is None:
        return None
    location = pack.locations[state.location]
    query = f"{location.name} " + " ".join(p.name for p in people)
    entities = [location.id, *(p.id for p in people)]
    found = retriever.real(pack).hooks(pack.id, query, k=3, budget=300, entities=entities)
    public = set(state.world.public_rumors)
    hooks = [hit for hit in found.hits  # a rumor the town has not heard is no hook for the Director
             if not ("rumors.yaml#" in hit.id and hit.id.rsplit("#", 1)[1] not in public)]
    return Retrieved(hooks=hooks, warnings=found.warnings)


def for_characters(retriever: Any, pack: EraPack, ids: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """The voice lane for each scene character (id -> chunk texts, their own voice document first) and the lane's
    warnings; nothing without a retriever."""
    if retriever is None or not ids:
        return {}, []
    found = retriever.real(pack).voice(pack.id, ids, k=1, budget=150 * len(ids))
    out: dict[str, list[str]] = {}
    for hit in found.hits:
        for cid in ids:
            if cid in hit.related:
                out.setdefault(cid, []).append(hit.text)
    return out, list(found.warnings)
