"""How the terminal shows the episode layer: a line when an episode begins, and the boxed result when one ends
(``EpisodeView``; the same text in plain and in Rich output)."""

from __future__ import annotations

import textwrap

from skald.core.views import EpisodeView
from skald.text import counted

SPARKS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
WIDTH = 76


def sparkline(curve: list[float]) -> str:
    """Tension 0..1 per story turn as block characters, lowest to highest."""
    return "".join(SPARKS[min(len(SPARKS) - 1, int(v * len(SPARKS)))] for v in curve)


def begins(episode: EpisodeView) -> str:
    """'Episode 2 begins: Last Orders' and the premise, wrapped."""
    lines = [f"Episode {episode.number} begins: {episode.title}"]
    lines += textwrap.wrap(episode.premise, WIDTH - 2)
    return "\n".join(lines)


def result_title(episode: EpisodeView) -> str:
    outcome = episode.evaluation.outcome.upper() if episode.evaluation else ""
    return f"Episode {episode.number}: {episode.title} - {outcome}"


def result_body(episode: EpisodeView) -> str:
    """The episode's result: turns and playstyle with scores, the summary, key moments, the tension curve, what
    comes next and how to get to it, and the share id."""
    e = episode.evaluation
    if e is None:
        return ""
    scores = ", ".join(f"{k} {round(v * 100)}%" for k, v in sorted(e.playstyle_scores.items(), key=lambda x: -x[1])
                       if v > 0)
    head = f"{counted(e.story_turns, 'story turn')}, played as {e.playstyle}" + (f" ({scores})" if scores else "") + "."
    lines = [*textwrap.wrap(head, WIDTH - 4), ""]
    lines += textwrap.wrap(e.summary, WIDTH - 4)
    if e.key_moments:
        lines += ["", "Key moments:"]
        for moment in e.key_moments:
            lines += textwrap.wrap(f"turn {moment.turn}: {moment.line}", WIDTH - 4, initial_indent="  ",
                                   subsequent_indent="    ")
    if e.tension_curve:
        lines += ["", f"Tension: {sparkline(e.tension_curve)}"]
    lines.append("")
    if e.next_episode:
        lines += textwrap.wrap(f"Next: {e.next_title}. {e.next_hook}", WIDTH - 4)
        lines.append("Type /next to begin it, /episode to see the others, or just play on.")
    else:
        lines += textwrap.wrap(e.next_hook, WIDTH - 4)
    lines.append(f"Share id: {e.share_id}   (/journal lists every episode)")
    return "\n".join(lines)


def boxed(title: str, body: str) -> str:
    """``body`` framed in plain characters, ``title`` in the top edge."""
    top = f"+-- {title} " + "-" * max(3, WIDTH - len(title) - 5) + "+"
    inner = [f"| {line:<{WIDTH - 3}}|" if len(line) <= WIDTH - 3 else f"| {line}" for line in body.splitlines()]
    return "\n".join([top, *inner, "+" + "-" * (WIDTH - 1) + "+"])


def plain(episode: EpisodeView | None) -> str | None:
    """The plain-text episode notice of a turn: the boxed result, the beginning line, or None."""
    if episode is None:
        return None
    if episode.ended and episode.evaluation is not None:
        return boxed(result_title(episode), result_body(episode))
    if episode.started:
        return begins(episode)
    return None
