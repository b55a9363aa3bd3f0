"""Director node: scene instructions for the Narrator and the four deterministic suggestions."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald import events as ev
from skald.context import TurnContext
from skald.llm import lore, offline, prompts
from skald.llm.ask import ask
from skald.rules import clock, memory, suggestions
from skald.rules.candidates import ThisTurn
from skald.state import GameState, SceneInstructions
from skald.store import memories
from skald.vocab import Outcome

MUST_CONVEY = (ev.Damage, ev.CombatStart, ev.CompanionJoin, ev.QuestUpdate, ev.Defeated, ev.RumorHeard)
MOOD_BY_TAG = {"dark": "shadowed", "crowded": "busy", "lawless": "tense", "quiet": "hushed", "hot": "sweltering",
               "dusty": "gritty"}


def _beat(state: GameState) -> str:
    kinds = {type(e) for e in state.staged_events}
    result = state.mechanic_result
    if ev.Defeated in kinds:
        return "a defeat"
    if ev.CombatStart in kinds or state.combat is not None:
        return "a fight"
    if result and result.action_class.value == "RECOVER":
        return "a recovery"
    if ev.Move in kinds:
        return "an arrival"
    if ev.QuestUpdate in kinds or ev.Discovery in kinds:
        return "a turn in the story"
    if result and result.outcome == Outcome.NO_ROLL:
        return "a quiet exchange"
    return "a small win" if result and result.outcome.succeeded else "a setback"


def episode_note(state: GameState, pack) -> str | None:
    """Where the episode stands and what this turn must do for it: open it on its first turn, steer toward the close
    as the budget runs down, land the ending on its last turn."""
    shown = state.episode_progress
    if shown is None or shown.episode not in pack.episodes:
        return None
    running = pack.episodes[shown.episode]
    note = f"'{shown.title}', story turn {shown.turn_count}, beat {shown.beat}."
    if shown.ending is not None:
        return note + " This turn ends the episode: land the ending, close what its premise opened."
    if shown.started:
        return note + f" The episode begins: {running.premise}"
    if shown.remaining is not None and shown.remaining <= 2:
        return note + f" {shown.remaining} story turn(s) left: steer toward a close."
    steer = {"complication": "let a problem surface", "escalation": "raise the stakes",
             "pivot": "this is the turning point", "resolution": "let things settle"}.get(shown.beat)
    return note + (f" {steer[:1].upper()}{steer[1:]}." if steer else "")


def _memories(ctx: TurnContext, state: GameState, query: str, warnings: list[str]) -> list[memory.Memory]:
    """Older turns worth remembering now (episodic memory), when a retriever can embed them."""
    if ctx.retriever is None:
        return []
    try:
        rows = memories.recent(ctx.conn, state.campaign.id, state.turn - 1, memory.WINDOW)
        return memory.recall(rows, state.turn, query, lambda texts: ctx.retriever.embed(ctx.pack, texts))
    except Exception as exc:  # noqa: BLE001 - memory is a nicety; the turn goes on without it
        warnings.append(f"memory: recall failed ({type(exc).__name__}); playing on without it")
        return []


def director(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: mechanic_result, present_npcs, staged events, arc_stage, after. Writes: director_instructions,
    suggested_actions (exactly 4, linted, padded), llm_calls, warnings, lore_citations. The director's note comes
    from the ``director`` LLM role when it answers (its prompt gets the hooks lane and recalled older turns, both
    fetched here through the context) within the turn's budget (``TurnContext.deadline``), otherwise from
    ``llm.offline.director_note``."""
    ctx = runtime.context
    pack = ctx.pack
    location = pack.locations[state.after.location]
    tags = [MOOD_BY_TAG[t] for t in location.tags if t in MOOD_BY_TAG]
    mood = ", ".join(tags[:2] + [clock.time_of_day(state.after.world.time_minutes)])
    beat = _beat(state)
    target = state.router_output.target_npc if state.router_output else None
    focus = target if any(p.id == target for p in state.present_npcs) else next(
        (p.id for p in state.present_npcs if not p.companion), None)
    banter = next((e for e in state.staged_events if isinstance(e, ev.BanterQueued)), None)
    banter_line = None
    if banter is not None:  # an exchange from banter.yaml is already written as 'Name: line' lines
        banter_line = banter.line if banter.banter else (
            f'{pack.companions[banter.companion].name} says, "{banter.line}"')
    must = [state.mechanic_result.summary] if state.mechanic_result else []
    must += [e.type for e in state.staged_events if isinstance(e, MUST_CONVEY)]
    instructions = SceneInstructions(beat=beat, mood=mood, focus_npc=focus, must_convey=must, banter=banter_line,
                                     episode=episode_note(state, pack))
    found: list[lore.Retrieved] = []  # what the index gave the prompt, if the role was called
    recall_warnings: list[str] = []

    def prompt() -> prompts.Prompt:  # built only when the role can be called
        scene = state.model_copy(update={"director_instructions": instructions})
        retrieved = lore.for_director(ctx.retriever, scene, pack)
        found.extend([retrieved] if retrieved else [])
        return prompts.director_prompt(scene, pack, retrieved,
                                       _memories(ctx, state, prompts.scene_text(scene, pack), recall_warnings))

    asked = ask(ctx.llm, "director", prompt, deadline=ctx.deadline)
    instructions.notes = asked.value.strip()[:400] if asked.value else offline.director_note(state, pack, beat, mood)
    update = asked.update()
    update["warnings"] = update["warnings"] + recall_warnings + [w for r in found for w in r.warnings]
    update["lore_citations"] = [hit.id for r in found for hit in r.hooks]
    now = ThisTurn(result=state.mechanic_result, target=target)
    picks, _ = suggestions.suggest(state.after, pack, state.present_npcs, now)
    return update | {"director_instructions": instructions, "suggested_actions": picks}
