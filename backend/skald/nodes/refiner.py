"""Suggestion Refiner node: an LLM rewrite of the four suggestions to fit the prose; the Director's stand
on any failure."""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from skald.context import TurnContext
from skald.llm import prompts
from skald.llm.client import LLMUnavailable
from skald.packs.models import Risk, Tone
from skald.rules import suggestions
from skald.state import GameState, Suggestion


class RefinedSuggestion(BaseModel):
    label: str = Field(description="the action, imperative, at most 80 characters")
    tone: Tone
    risk: Risk


class RefinedSuggestions(BaseModel):
    """Exactly four suggestions, tones in the order PARAGON, INVESTIGATE, RENEGADE, NEUTRAL."""

    suggestions: list[RefinedSuggestion] = Field(min_length=4, max_length=4)


def refiner(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: suggested_actions, final_text, present_npcs. Writes: suggested_actions (refined, or unchanged),
    llm_calls, warnings. A refined label must keep its tone and risk and pass the Director's lint."""
    ctx = runtime.context
    original = state.suggested_actions
    try:
        reply, call = ctx.llm.structured("suggestion_refiner", RefinedSuggestions, prompts.REFINER_RULES,
                                         prompts.refiner_user(state, ctx.pack, original))
    except LLMUnavailable as exc:
        return {"warnings": [str(exc)], "llm_calls": [exc.call] if exc.call else []}
    scene = suggestions.scene_of(state, ctx.pack, state.present_npcs)
    refined = []
    for old, new in zip(original, reply.suggestions, strict=True):
        candidate = Suggestion(label=new.label.strip(), tone=old.tone, risk=old.risk, action_class=old.action_class)
        if new.tone != old.tone or new.risk != old.risk or suggestions.lint(candidate, scene, ctx.pack):
            return {"warnings": ["suggestion_refiner: reply changed a tone or risk or failed lint; kept the "
                                 "Director's suggestions"], "llm_calls": [call]}
        refined.append(candidate)
    return {"suggested_actions": refined, "llm_calls": [call]}
