"""Suggestion Refiner node: an LLM rewrite of the four suggestions to fit the prose; the Director's stand
on any failure."""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, ConfigDict, Field

from skald.context import TurnContext
from skald.llm import prompts
from skald.llm.ask import ask
from skald.rules import suggestions
from skald.state import GameState, Suggestion
from skald.vocab import Risk, Tone


class RefinedSuggestion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field(description="the action, imperative, at most 80 characters")
    tone: Tone
    risk: Risk


class RefinedSuggestions(BaseModel):
    """Exactly four suggestions, tones in the order PARAGON, INVESTIGATE, RENEGADE, NEUTRAL."""

    model_config = ConfigDict(extra="forbid")

    suggestions: list[RefinedSuggestion] = Field(
        min_length=4, max_length=4, description="exactly four, tones in the order PARAGON, INVESTIGATE, RENEGADE, "
        "NEUTRAL")


def refiner(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: suggested_actions, final_text, present_npcs. Writes: suggested_actions (refined, or unchanged),
    llm_calls, warnings. A refined label must keep its tone and risk and pass the Director's lint. The call ends by
    the turn's deadline (``TurnContext.deadline``); with the budget spent the Director's suggestions stand."""
    ctx = runtime.context
    original = state.suggested_actions
    asked = ask(ctx.llm, "suggestion_refiner", lambda: prompts.refiner_prompt(state, ctx.pack, original),
                schema=RefinedSuggestions, deadline=ctx.deadline)
    if asked.value is None:
        return asked.update()
    reply = asked.value
    scene = suggestions.scene_of(state.after, ctx.pack, state.present_npcs)
    refined = []
    for old, new in zip(original, reply.suggestions, strict=True):
        candidate = Suggestion(label=new.label.strip(), tone=old.tone, risk=old.risk, action_class=old.action_class)
        if new.tone != old.tone or new.risk != old.risk or suggestions.lint(candidate, scene, ctx.pack):
            asked.warnings.append("suggestion_refiner: reply changed a tone or risk or failed lint; kept the "
                                  "Director's suggestions")
            return asked.update()
        refined.append(candidate)
    return asked.update() | {"suggested_actions": refined}
