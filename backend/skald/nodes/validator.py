"""Narrative Validator node: deterministic checks that the prose matches the outcome and the world."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.packs.models import EraPack
from skald.rules import prose
from skald.state import GameState


def known_names(state: GameState, pack: EraPack) -> set[str]:
    names = {n.name for n in pack.npcs.values()} | {c.name for c in pack.companions.values()}
    names |= {loc.name for loc in pack.locations.values()} | {f.name for f in pack.factions.values()}
    names |= {i.name for i in pack.era.items} | {pack.era.name, pack.era.era, state.player.name}
    names |= {h.name for loc in pack.locations.values() for h in loc.hazards}
    names |= {k.name for k in state.known_npcs.values()} | {p.name for p in state.present_npcs}
    names |= {q.title for q in pack.quests.values()}
    return names


def validator(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: final_text, mechanic_result, present_npcs, known_npcs. Writes: warnings only; never halts."""
    pack = runtime.context.pack
    warnings = []
    if state.mechanic_result is not None:
        warnings += [f"validator: {w}" for w in prose.outcome_conflicts(state.final_text, state.mechanic_result)]
    if state.final_text and not prose.second_person(state.final_text):
        warnings.append("validator: prose is not in the second person")
    for name in prose.invented_names(state.final_text, known_names(state, pack)):
        warnings.append(f"validator: prose names {name!r}, which is not in the pack or the scene")
    return {"warnings": warnings} if warnings else {}
