"""Prompts for the LLM roles, laid out for prefix-cache reuse.

The system message is static for a campaign: role rules, then the pack's style guide, then the critical rules
again (models weigh the start and the end of a long system prompt most). Everything that changes per turn
goes into the user message as budgeted sections (``llm.budget``): the scene (never trimmed), lore about the
place and the people on stage (trimmed least relevant first), and recent turns (trimmed oldest first).
"""

from __future__ import annotations

import json

from skald.llm.budget import Prompt, Section, SectionKind
from skald.packs.models import EraPack
from skald.rules import clock
from skald.rules.scene import current_location
from skald.state import GameState, Suggestion

NARRATOR_RULES = (
    "You narrate one turn of a text role-playing game. Write 5 to 8 sentences, at most 250 words, in the second "
    "person, present tense. Narrate exactly the outcome you are given: never change whether the action succeeded. "
    "Name only the people listed as present. Do not list options, ask what the player does, or add notes."
)
DIRECTOR_RULES = (
    "You are the director of a text role-playing game. In one or two sentences, tell the narrator what to "
    "emphasise in this scene. Do not write the narration itself."
)
REFINER_RULES = (
    "Rewrite four suggested player actions so they fit the narration. Keep each action's meaning, tone and "
    "risk; keep the tone order PARAGON, INVESTIGATE, RENEGADE, NEUTRAL; each label at most 80 characters, in "
    "the imperative; name only people who are present. Reply with JSON only."
)


def _system(rules: str, pack: EraPack) -> str:
    return f"{rules}\n\nStyle guide for {pack.era.name} ({pack.era.era}):\n{pack.era.style}\n\nRemember: {rules}"


def scene_text(state: GameState, pack: EraPack) -> str:
    location = pack.locations[current_location(state)]
    result = state.mechanic_result
    lines = [
        f"Location: {location.name}.",
        f"Time: {clock.clock_text(state.world.time_minutes + (result.minutes if result else 0))}",
        "Present: " + (", ".join(f"{p.name} ({p.role})" for p in state.present_npcs) or "nobody"),
        f"Player input: {state.router_output.text if state.router_output else state.player_input}",
    ]
    if result is not None:
        lines.append(f"Outcome: {result.outcome.value}. {result.summary}")
    events = [e.type for e in state.staged_events if e.type not in ("TIME_ADVANCE", "WORLD_TICK")]
    if events:
        lines.append("Consequences: " + ", ".join(events))
    if state.director_instructions:
        d = state.director_instructions
        lines.append(f"Director: beat {d.beat}; mood {d.mood}. {d.notes}")
        if d.banter:
            lines.append(f"Include this companion line: {d.banter}")
    return "\n".join(lines)


def lore_sections(state: GameState, pack: EraPack) -> list[Section]:
    """The place and the people on stage; the focus NPC ranks highest, then the place, then the others."""
    location = pack.locations[current_location(state)]
    focus = state.director_instructions.focus_npc if state.director_instructions else None
    out = [Section(SectionKind.LORE, f"{location.description} " + " ".join(location.details), rank=50,
                   title=f"About {location.name}:")]
    for index, person in enumerate(state.present_npcs):
        rank = 100 if person.id == focus else 40 - index
        out.append(Section(SectionKind.LORE, person.description, rank=rank, title=f"About {person.name}:"))
    return out


def history_sections(state: GameState) -> list[Section]:
    return [Section(SectionKind.HISTORY, " ".join(t.sentences), rank=t.turn,
                    title=f"Turn {t.turn} ({t.input}):") for t in state.recent]


def narrator_prompt(state: GameState, pack: EraPack) -> Prompt:
    return Prompt(_system(NARRATOR_RULES, pack), (Section(SectionKind.SCENE, scene_text(state, pack)),
                                                  *lore_sections(state, pack), *history_sections(state)))


def director_prompt(state: GameState, pack: EraPack) -> Prompt:
    return Prompt(_system(DIRECTOR_RULES, pack), (Section(SectionKind.SCENE, scene_text(state, pack)),
                                                  *history_sections(state)))


def refiner_prompt(state: GameState, pack: EraPack, suggestions: list[Suggestion]) -> Prompt:
    listed = json.dumps({"suggestions": [s.model_dump(include={"label", "tone", "risk"}, mode="json")
                                         for s in suggestions]})
    return Prompt(_system(REFINER_RULES, pack), (
        Section(SectionKind.SCENE, scene_text(state, pack)),
        Section(SectionKind.SCENE, state.final_text, title="Narration:"),
        Section(SectionKind.SCENE, listed, title="Suggestions to rewrite:"),
    ))
