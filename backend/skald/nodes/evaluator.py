"""Evaluator node: when the episode ends this turn, its evaluation, written at once (after the narration, before
Commit): key moments, playstyle, outcome, tension curve and the next episode, by ``rules.episodes``; the summary
from the ``evaluator`` LLM role when it answers and its summary holds to what happened (``rules.model_text``: known
names, no deed the episode never held, the player's content limits), else the deterministic one."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.state import GameState
from skald.core.vocab import Intent
from skald.llm import prompts
from skald.llm.ask import ask
from skald.rules import episodes, memory, model_text
from skald.store import episodes as stored


def evaluator(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: episode_progress, after (the director's counters), staged events, and the episode's earlier turns
    (events and memories) through the read-only connection. Writes, only on the turn an episode ends: the staged
    EPISODE_COMPLETED carrying the evaluation, after, ``episode_progress.evaluation``, llm_calls, warnings."""
    shown = state.episode_progress
    if shown is None or shown.ending is None:
        return {}
    ctx = runtime.context
    pack = ctx.pack
    running = pack.episodes.get(shown.episode) or episodes.gone(shown.episode)  # a pack edit removed it
    director = state.after.director
    earlier = stored.moments(ctx.conn, state.before.campaign.id, state.branch, director.started_turn, state.turn)
    now = memory.summarize(state, pack) if state.intent != Intent.META else ""
    moments = [*earlier, episodes.Moment(turn=state.turn, memory=now, events=tuple(state.staged_events))]
    evaluation = episodes.evaluate(state, pack, running, shown.ending, moments)
    asked = ask(ctx.llm, "evaluator", lambda: prompts.evaluator_prompt(pack, running, evaluation),
                schema=prompts.EvaluationProse, deadline=ctx.deadline)
    warnings = list(asked.warnings)
    if asked.value is not None:
        written = asked.value.summary.strip()
        events = [e for m in moments for e in m.events]
        wrong = model_text.problems(written, state, pack, model_text.grounding(state, evaluation.summary, moments),
                                    model_text.defeats_in(events))
        if wrong:  # an ending the episode never had: the rules' own summary stands
            warnings.append(f"evaluator: the model's summary was not used: {wrong[0]}")
        else:
            evaluation = evaluation.model_copy(update={"summary": written, "written_by": "evaluator"})
    done = ev.EpisodeCompleted(episode=running.id, trigger=shown.ending, evaluation=evaluation)
    return asked.update() | {"warnings": warnings} | ev.stage(state.after, [done], ctx.limits) | {
        "episode_progress": shown.model_copy(update={"evaluation": evaluation})}
