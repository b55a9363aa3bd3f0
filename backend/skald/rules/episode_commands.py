"""What the episode commands say and do: ``/episode`` (where the episode stands), ``/journal`` (every evaluation),
``/end`` (close an open episode) and ``/next [ID]`` (start the suggested episode, or another). ``/end`` and
``/next`` are committed (their events go through Commit) without counting as story turns; the others only read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from skald.core import events as ev
from skald.core.pack import Episode, EraPack
from skald.core.persistent import EpisodeEvaluation, PersistentState
from skald.rules import episodes
from skald.text import counted, name_key
from skald.words import TERMINAL, Words


@dataclass(frozen=True)
class Act:
    """A command that changes the campaign: what to say, the events to commit, and the trigger when it ends the
    running episode."""

    text: str
    events: list[ev.BaseEvent] = field(default_factory=list)
    ending: str | None = None


def how_it_ends(episode: Episode, turn_count: int) -> str:
    """'It ends after 8 story turns (3 left).' and the like, by completion mode."""
    mode, budget = episode.completion_mode, episode.turn_budget
    left = f" ({max(0, budget - turn_count)} left)" if budget else ""
    if mode == "open":
        return "It runs as long as you like: type /end to close it and see how it went."
    if mode == "turn_limited":
        return f"It ends after {counted(budget, 'story turn')}{left}."
    limit = f" or after {counted(budget, 'story turn')}{left}" if budget else ""
    if mode == "beat_gated":
        gate = "its turning point" if episode.completion_criteria.required_beat == "pivot" else \
            f"its {episode.completion_criteria.required_beat}"
        after = " and what follows" if episode.completion_criteria.require_resolution else ""
        return f"It ends at {gate}{after}{limit}."
    return f"It ends when you do what it asks{limit}."


def episode_status(state: PersistentState, pack: EraPack, words: Words = TERMINAL) -> str:
    """The /episode text: the running episode (its beat only when the pack shows progress), or what comes next
    (what starts it in the frontend's ``words``)."""
    d = state.director
    running = pack.episodes.get(d.episode or "")
    if running is not None:
        lines = [f"Episode {d.number}: {running.title}", f"  {running.premise}",
                 f"  {how_it_ends(running, d.turn_count)} Story turns so far: {d.turn_count}."]
        if running.progress_visible:
            beat = d.current_beat or ev.BEAT_ORDER[0]
            dots, total = episodes.progress(pack, d, running.id, d.number, beat)
            lines.append(f"  Beat: {beat} {dots}   Episode {d.number} of {total}")
        return "\n".join(lines)
    first = episodes.upcoming(state, pack)
    if first is not None:  # before the first move: the first episode starts with it
        return "\n".join([f"Episode 1: {first.title} (begins with your first move)", f"  {first.premise.strip()}",
                          f"  {how_it_ends(first, 0)}"])
    lines = ["No episode is running: you are playing open."]
    suggested = pack.episodes.get(d.suggested or "")
    left = episodes.playable(pack, d)
    if suggested is not None and suggested in left:
        lines.append(f"Suggested next: {suggested.title} ({suggested.id}). {suggested.hook or suggested.premise}")
        lines.append(f"  {words.opening('next', campaign=state.campaign.id)} starts it.")
    others = [e for e in left if e is not suggested]
    if others:
        lines.append("Other episodes: " + "; ".join(f"{e.title} (/next {e.id})" for e in others))  # typed, anywhere
    if not left:
        lines.append("You have played every episode this pack has. Play on as you like.")
    return "\n".join(lines)


def journal(evaluations: list[EpisodeEvaluation]) -> str:
    """The /journal text: every evaluated episode, newest last, the latest with its key moments."""
    if not evaluations:
        return "Journal: no episode finished yet. /episode shows the one you are in."
    lines = ["Journal:"]
    for evaluation in evaluations:
        lines.append(f"  Episode {evaluation.number}: {evaluation.title} - {evaluation.outcome}, as "
                     f"{evaluation.playstyle}, {counted(evaluation.story_turns, 'story turn')} "
                     f"(share id {evaluation.share_id})")
        lines.append(f"    {evaluation.summary}")
    lines += [f"    turn {k.turn}: {k.line}" for k in evaluations[-1].key_moments]
    return "\n".join(lines)


CONFIRM = ("yes", "y", "confirm", "abandon", "now")  # '/end yes': abandon an episode that is not open


def end(state: PersistentState, pack: EraPack, args: str = "") -> Act | str:
    """/end: closes an open episode (an Act); any other running episode only when confirmed ('/end yes'), so that a
    stray /end abandons nothing; or says why it cannot (text). Either way the episode is evaluated as it stands."""
    d = state.director
    running = pack.episodes.get(d.episode or "")
    if running is None and d.episode is not None:  # a pack edit removed it: ending it needs no confirmation
        return Act(text="You draw a line under an episode this pack no longer has.", ending="abandoned")
    if running is None:
        return "No episode is running, so there is nothing to end. /episode shows what comes next."
    if running.completion_mode != "open" and args.strip().lower() not in CONFIRM:
        return (f"Episode {d.number}, {running.title}, is not over: {how_it_ends(running, d.turn_count)} "
                "Type /end yes to abandon it now; it is evaluated as it stands.")
    verb = "draw a line under" if running.completion_mode == "open" else "abandon"
    return Act(text=f"You {verb} {running.title}.", ending="player_end")


def start(state: PersistentState, pack: EraPack, wanted: str) -> Act | str:
    """/next [ID or title]: starts the suggested episode (or the one named) when none is running (an Act), or says
    why it cannot (text)."""
    d = state.director
    running = pack.episodes.get(d.episode or "")
    if running is not None:
        return f"Episode {d.number}, {running.title}, is still running. {how_it_ends(running, d.turn_count)}"
    left = episodes.playable(pack, d)
    if not left:
        return "You have played every episode this pack has. Play on as you like."
    key = name_key(wanted) if wanted.strip() else ""
    if key:
        chosen = next((e for e in left if key in (name_key(e.id), name_key(e.title))), None)
        if chosen is None:
            listed = "; ".join(f"{e.title} ({e.id})" for e in left)
            return f"No episode called {wanted.strip()!r} is left to play. Left: {listed}."
        reason = "suggested" if chosen.id == d.suggested else "chosen"
    else:
        chosen = pack.episodes.get(d.suggested or "")
        ready = [e for e in left if episodes.starts_now(e, state)]  # the others start when the story reaches them
        if chosen not in left and not ready:
            return ("No episode is waiting to start: the ones left begin by themselves when the story reaches them "
                    "(/next ID starts one anyway). Play on as you like.")
        chosen, reason = (chosen, "suggested") if chosen in left else (ready[0], "chosen")
    number = d.number + 1
    return Act(text=f"You take up episode {number}: {chosen.title}.",
               events=[ev.EpisodeStarted(episode=chosen.id, number=number, reason=reason)])
