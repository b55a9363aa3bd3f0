"""Suggestion Refiner node: the four suggestions reworded to fit the prose, checked by the rules; the Director's stand
wherever a rewording fails.

The narrator rewords them after its prose (``llm.tail``), in the same call, so a story turn costs one LLM call; only
when its reply had no usable ``[ACTIONS]`` part does the ``suggestion_refiner`` role get a call of its own."""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, ConfigDict, Field

from skald.context import TurnContext
from skald.core.persistent import Suggestion
from skald.core.state import GameState
from skald.core.views import PROSE_REPLACED
from skald.core.vocab import Risk, Tone
from skald.llm import prompts
from skald.llm.ask import ask
from skald.rules import suggestions


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
    """Reads: suggested_actions, narrated_actions, final_text, present_npcs, warnings. Writes: suggested_actions
    (refined, or unchanged), llm_calls, warnings.

    The narrator's rewording (``narrated_actions``) is used label by label: each keeps its suggestion's tone, risk
    and action, and a label that fails the Director's lint (``rules.suggestions.lint``: an absent person, too long,
    not an action) leaves the Director's own in its place. It is not used when the Validator replaced the prose it
    was written for. Without it the ``suggestion_refiner`` role is asked, and its reply is all or nothing: a changed
    tone or risk, or one label failing lint, keeps the Director's four. That call ends by the turn's deadline
    (``TurnContext.deadline``); with the budget spent the Director's suggestions stand."""
    ctx = runtime.context
    original = state.suggested_actions
    scene = suggestions.scene_of(state.after, ctx.pack, state.present_npcs)
    replaced = any(PROSE_REPLACED in w for w in state.warnings)
    if state.narrated_actions and len(state.narrated_actions) == len(original) and not replaced:
        refined, failed = [], 0
        for old, label in zip(original, state.narrated_actions, strict=True):
            candidate = old.model_copy(update={"label": label.strip()})
            bad = not candidate.label or suggestions.lint(candidate, scene, ctx.pack)
            failed += bool(bad)
            refined.append(old if bad else candidate)
        warnings = [f"suggestion_refiner: {failed} of the narrator's reworded actions failed lint; kept the "
                    "Director's for those"] if failed else []
        return {"suggested_actions": refined, "warnings": warnings}
    asked = ask(ctx.llm, "suggestion_refiner", lambda: prompts.refiner_prompt(state, ctx.pack, original),
                schema=RefinedSuggestions, deadline=ctx.deadline)
    if asked.value is None:
        return asked.update()
    reply = asked.value
    refined = []
    for old, new in zip(original, reply.suggestions, strict=True):
        candidate = Suggestion(label=new.label.strip(), tone=old.tone, risk=old.risk, action_class=old.action_class)
        if new.tone != old.tone or new.risk != old.risk or suggestions.lint(candidate, scene, ctx.pack):
            asked.warnings.append("suggestion_refiner: reply changed a tone or risk or failed lint; kept the "
                                  "Director's suggestions")
            return asked.update()
        refined.append(candidate)
    return asked.update() | {"suggested_actions": refined}
