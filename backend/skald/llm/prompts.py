"""Prompts for the LLM roles. Static text first (role rules, the pack's style guide), per-turn text last."""

from __future__ import annotations

import json

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
    "the imperative; name only people who are present."
)


def narrator_system(pack: EraPack) -> str:
    return f"{NARRATOR_RULES}\n\nStyle guide for {pack.era.name}:\n{pack.era.style}\n\n{NARRATOR_RULES}"


def scene_block(state: GameState, pack: EraPack) -> str:
    location = pack.locations[current_location(state)]
    result = state.mechanic_result
    lines = [
        f"Location: {location.name}. {location.description}",
        f"Time: {clock.clock_text(state.world.time_minutes + (result.minutes if result else 0))}",
        "Present: " + ("; ".join(f"{p.name} ({p.role}): {p.description}" for p in state.present_npcs) or "nobody"),
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


def refiner_user(state: GameState, pack: EraPack, suggestions: list[Suggestion]) -> str:
    listed = json.dumps([s.model_dump(include={"label", "tone", "risk"}) for s in suggestions])
    return f"{scene_block(state, pack)}\n\nNarration:\n{state.final_text}\n\nSuggestions:\n{listed}"
