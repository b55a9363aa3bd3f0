"""Episode node: the Director's episode layer for one story turn, between the arc planner and the director. It sets
story flags, starts an episode when one is due, counts the turn, moves the beat and checks completion
(``rules.episodes``); the evaluation is written later in the turn, by the evaluator node, once the prose is told."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.pack import Episode
from skald.core.persistent import PersistentState
from skald.core.records import EpisodeProgress
from skald.core.state import GameState
from skald.llm import prompts
from skald.llm.ask import ask
from skald.rules import episodes


def progress(after: PersistentState, episode: Episode, **fields) -> EpisodeProgress:
    """The turn's :class:`EpisodeProgress` for the running ``episode`` as ``after`` has it."""
    d = after.director
    return EpisodeProgress(episode=episode.id, title=episode.title, number=d.number, mode=episode.completion_mode,
                           turn_count=d.turn_count, budget=episode.turn_budget,
                           remaining=episodes.remaining(d, episode), beat=d.current_beat or ev.BEAT_ORDER[0], **fields)


def episode(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: staged events (quest stages completed, world events fired), router_output, mechanic_result, after.
    Writes: staged FLAG_SET, EPISODE_STARTED, EPISODE_TURN and BEAT_REACHED, after, and ``episode_progress`` (None
    when no episode runs). With the ``beat_classifier`` role enabled (off by default: it is an LLM call before the
    narrator), its verdict may move the beat one step further forward, never back."""
    ctx = runtime.context
    pack = ctx.pack
    staging = ev.Staging(state.after, ctx.limits)
    flags_now = list(episodes.flags_set(state.staged_events, pack, state.after.director.flags))
    after = staging.add(*flags_now)
    begin = episodes.starting(after, pack, [*state.staged_events, *flags_now])
    if begin is not None:
        after = staging.add(ev.EpisodeStarted(episode=begin[0].id, number=after.director.number + 1, reason=begin[1]))
    running = pack.episodes.get(after.director.episode or "")
    if running is None and after.director.episode is not None:  # a pack edit removed it: it ends, and is evaluated
        shown = progress(after, episodes.gone(after.director.episode), ending="abandoned")
        return staging.update() | {"episode_progress": shown}
    if running is None:  # between episodes: nothing counts
        return staging.update()
    after = staging.add(ev.EpisodeTurn(signal=episodes.signal_of(state), tension=episodes.tension_of(state),
                                       quest_steps=len(episodes.stages_done(state.staged_events)),
                                       defeated=any(isinstance(e, ev.Defeated) for e in state.staged_events)))
    changed = None
    beat = episodes.next_beat(after.director, running, state, flags_now)
    if beat is not None:
        after = staging.add(ev.BeatReached(beat=beat[0], turn_count=after.director.turn_count, reason=beat[1]))
        changed = beat[1]
    classified, update = _classified(state, runtime, running, after)
    if classified is not None:
        after, changed = staging.add(classified), "classifier"
    done, trigger = episodes.check_completion(after.director, running)
    if done and after.director.current_beat != "resolution":
        after = staging.add(ev.BeatReached(beat="resolution", turn_count=after.director.turn_count, reason="ending"))
        changed = "ending"
    shown = progress(after, running, beat_changed=changed, started=begin is not None, ending=trigger)
    return update | staging.update() | {"episode_progress": shown}


def _classified(state: GameState, runtime: Runtime[TurnContext], running: Episode, after: PersistentState
                ) -> tuple[ev.BeatReached | None, dict]:
    """The ``beat_classifier`` role's verdict as a BEAT_REACHED one step forward (None: not enabled, a fallback, or
    a verdict that would not move the beat forward), and the call's records for the state."""
    ctx = runtime.context
    if not ctx.llm.asks("beat_classifier"):
        return None, {}
    now = after.director.current_beat or ev.BEAT_ORDER[0]
    asked = ask(ctx.llm, "beat_classifier", lambda: prompts.beat_prompt(state, ctx.pack, running, now),
                schema=prompts.BeatVerdict, deadline=ctx.deadline)
    if asked.value is None or ev.BEAT_ORDER.index(asked.value.beat) <= ev.BEAT_ORDER.index(now):
        return None, asked.update()
    forward = ev.BEAT_ORDER[ev.BEAT_ORDER.index(now) + 1]  # one step at most, whatever the model says
    if not episodes.classifier_may_reach(running, forward):  # the pivot is the rules' to see, not the model's
        return None, asked.update()
    return ev.BeatReached(beat=forward, turn_count=after.director.turn_count, reason="classifier"), asked.update()
