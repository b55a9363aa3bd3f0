"""Read-only research tools over a pack, for guided creation's Discuss phase (``llm.conversation``):
``list_backgrounds``, ``list_locations``, ``list_factions``, ``list_companions`` and ``lookup_lore(query)`` (the
retrieval lanes when the lore index is on, else the pack's documents whose words match). Each returns plain JSON the
model reads; none changes anything."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from skald.core.pack import EraPack
from skald.llm.conversation import Tool

MAX_HITS = 4


class NoArgs(BaseModel):
    """No arguments."""


class LoreQuery(BaseModel):
    query: str = Field(..., min_length=1, max_length=200, description="what to look up, in a few words")


def tools(pack: EraPack, retriever: Any = None) -> list[Tool]:
    """The five research tools over ``pack`` (``retriever``: a lore index handle, or None)."""

    def backgrounds(_: BaseModel) -> list[dict[str, Any]]:
        return [{"id": b.id, "name": b.name, "description": b.description, "start_location": b.start_location,
                 "questions": [{"text": q.text, "choices": [c.label for c in q.choices]} for q in b.questions]}
                for b in pack.backgrounds.values()]

    def locations(_: BaseModel) -> list[dict[str, Any]]:
        return [{"id": x.id, "name": x.name, "type": x.type, "description": x.description[:200],
                 "start": x.id in pack.era.start_locations} for x in pack.locations.values()]

    def factions(_: BaseModel) -> list[dict[str, Any]]:
        return [{"id": f.id, "name": f.name, "description": f.description[:200], "agenda": f.agenda[:200]}
                for f in pack.factions.values()]

    def companions(_: BaseModel) -> list[dict[str, Any]]:
        return [{"id": c.id, "name": c.name, "role": c.role, "location": c.location,
                 "description": c.description[:200]} for c in pack.companions.values()]

    def lore(args: LoreQuery) -> list[dict[str, Any]]:
        if retriever is not None:
            found = retriever.real(pack).lore(pack.id, args.query, k=MAX_HITS, budget=600)
            if found.hits:
                return [{"source": h.source_path, "text": h.text} for h in found.hits]
        words = {w for w in re.findall(r"[a-z]{4,}", args.query.lower())}
        scored = []
        for rel, doc in sorted(pack.docs.items()):
            if doc.meta.doc_type != "lore":
                continue
            score = sum(1 for w in words if w in doc.body.lower() or w in doc.meta.title.lower())
            if score:
                scored.append((-score, rel, doc))
        return [{"source": rel, "title": doc.meta.title, "text": doc.body[:500]}
                for _, rel, doc in sorted(scored)[:MAX_HITS]]

    return [
        Tool("list_backgrounds", "The backgrounds a character may have: ids, names, descriptions, their questions.",
             NoArgs, backgrounds),
        Tool("list_locations", "The places of the setting: ids, names, kinds; 'start' marks usual starting places.",
             NoArgs, locations),
        Tool("list_factions", "The powers of the setting: ids, names, what they want.", NoArgs, factions),
        Tool("list_companions", "The people who may join the player's party: ids, names, where they wait.", NoArgs,
             companions),
        Tool("lookup_lore", "Look up the setting's lore about something.", LoreQuery, lore),
    ]
