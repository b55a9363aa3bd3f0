"""Evaluator node: when the episode ends this turn, its evaluation, written at once (after the narration, before
Commit): key moments, playstyle, outcome, tension curve and the next episode, by ``rules.episodes``; the summary
from the ``evaluator`` LLM role when it answers, else the deterministic one."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald import events as ev
from skald.context import TurnContext
from skald.llm import prompts
from skald.llm.ask import ask
from skald.rules import episodes, memory
from skald.state import GameState
from skald.store import episodes as stored
from skald.vocab import Intent


def evaluator(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: episode_progress, after (the director's counters), staged events, and the episode's earlier turns
    (events and memories) through the read-only connection. Writes, only on the turn an episode ends: the staged
    EPISODE_COMPLETED carrying the evaluation, after, ``episode_progress.evaluation``, llm_calls, warnings."""
    shown = state.episode_progress
    if shown is None or shown.ending is None:
        return {}
    ctx = runtime.context
    pack = ctx.pack
    running = pack.episodes[shown.episode]
    director = state.after.director
    earlier = stored.moments(ctx.conn, state.campaign.id, state.branch, director.started_turn, state.turn)
    now = memory.summarize(state, pack) if state.intent != Intent.META else ""
    moments = [*earlier, episodes.Moment(turn=state.turn, memory=now, events=tuple(state.staged_events))]
    evaluation = episodes.evaluate(state, pack, running, shown.ending, moments)
    asked = ask(ctx.llm, "evaluator", lambda: prompts.evaluator_prompt(pack, running, evaluation),
                schema=prompts.EvaluationProse, deadline=ctx.deadline)
    if asked.value is not None:
        evaluation = evaluation.model_copy(update={"summary": asked.value.summary.strip(), "written_by": "evaluator"})
    done = ev.EpisodeCompleted(episode=running.id, trigger=shown.ending, evaluation=evaluation)
    return asked.update() | ev.stage(state.after, [done], ctx.limits) | {
        "episode_progress": shown.model_copy(update={"evaluation": evaluation})}
