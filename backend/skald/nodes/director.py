"""Director node: scene instructions for the Narrator and the four deterministic suggestions."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.llm import offline, prompts
from skald.llm.ask import ask
from skald.rules import clock, suggestions
from skald.rules.events import projected
from skald.rules.scene import current_location
from skald.state import GameState, Outcome, SceneInstructions
from skald.store import memories

MOOD_BY_TAG = {"dark": "shadowed", "crowded": "busy", "lawless": "tense", "quiet": "hushed", "hot": "sweltering",
               "dusty": "gritty"}


def _beat(state: GameState) -> str:
    kinds = {e.type for e in state.staged_events}
    result = state.mechanic_result
    if "DEFEATED" in kinds:
        return "a defeat"
    if "COMBAT_START" in kinds or state.combat is not None:
        return "a fight"
    if result and result.action_class.value == "RECOVER":
        return "a recovery"
    if "MOVE" in kinds:
        return "an arrival"
    if "QUEST_UPDATE" in kinds or "DISCOVERY" in kinds:
        return "a turn in the story"
    if result and result.outcome == Outcome.NO_ROLL:
        return "a quiet exchange"
    return "a small win" if result and result.outcome.succeeded else "a setback"


def _memories(ctx: TurnContext, state: GameState, query: str, warnings: list[str]) -> list[memories.Memory]:
    """Older turns worth remembering now (episodic memory), when a retriever can embed them."""
    if ctx.retriever is None:
        return []
    try:
        return memories.recall(ctx.conn, state.campaign.id, state.campaign.turn_number + 1, query,
                               lambda texts: ctx.retriever.embed(ctx.pack, texts))
    except Exception as exc:  # noqa: BLE001 - memory is a nicety; the turn goes on without it
        warnings.append(f"memory: recall failed ({type(exc).__name__}); playing on without it")
        return []


def director(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: mechanic_result, present_npcs, staged events, arc_stage, location. Writes: director_instructions,
    suggested_actions (exactly 4, linted, padded), llm_calls, warnings. The director's note comes from the
    ``director`` LLM role when it answers, otherwise from ``llm.offline.director_note``."""
    ctx = runtime.context
    pack = ctx.pack
    location = pack.locations[current_location(state)]
    tags = [MOOD_BY_TAG[t] for t in location.tags if t in MOOD_BY_TAG]
    minutes = state.world.time_minutes + (state.mechanic_result.minutes if state.mechanic_result else 0)
    mood = ", ".join(tags[:2] + [clock.time_of_day(minutes)])
    beat = _beat(state)
    target = state.router_output.target_npc if state.router_output else None
    focus = target if any(p.id == target for p in state.present_npcs) else next(
        (p.id for p in state.present_npcs if not p.companion), None)
    banter = next((e for e in state.staged_events if e.type == "BANTER_QUEUED"), None)
    banter_line = None
    if banter is not None:  # an exchange from banter.yaml is already written as 'Name: line' lines
        banter_line = banter.data["line"] if banter.data.get("banter") else (
            f'{pack.companions[banter.data["companion"]].name} says, "{banter.data["line"]}"')
    must = [state.mechanic_result.summary] if state.mechanic_result else []
    must += [e.type for e in state.staged_events if e.type in ("DAMAGE", "COMBAT_START", "COMPANION_JOIN",
                                                              "QUEST_UPDATE", "DEFEATED", "RUMOR_HEARD")]
    instructions = SceneInstructions(beat=beat, mood=mood, focus_npc=focus, must_convey=must, banter=banter_line)
    cited: list[str] = []
    recall_warnings: list[str] = []

    def prompt() -> prompts.Prompt:
        scene = state.model_copy(update={"director_instructions": instructions})
        return prompts.director_prompt(scene, pack, ctx.retriever, cited,
                                       _memories(ctx, state, prompts.scene_text(scene, pack), recall_warnings))

    asked = ask(ctx.llm, "director", prompt)
    instructions.notes = asked.value.strip()[:400] if asked.value else offline.director_note(state, pack, beat, mood)
    update = asked.update()
    update["warnings"] = update["warnings"] + recall_warnings  # retrieval warnings: reported once, by the narrator
    update["lore_citations"] = cited
    picks, _ = suggestions.suggest(projected(state, pack), pack, state.present_npcs)
    return update | {"director_instructions": instructions, "suggested_actions": picks}
