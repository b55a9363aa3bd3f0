"""Checks on what a turn told the player: an ordinary line refused, a sentence told again too soon, an episode won by
doing nothing, an outcome the prose leaves out. Each returns ``(key, detail)`` pairs like ``invariants.broken`` (the
key groups a defect across campaigns)."""

from __future__ import annotations

import re

from skald.core import events as ev
from skald.core.pack import EraPack
from skald.rules.prose import missing_facts, outcome_facts
from skald.text import sentences

REFUSAL = "Nothing comes of that here"  # the rules' honest "nothing happens" (rules.interact.UNANSWERED)
WINDOW = 15  # story turns: a sentence told again within this many is a repeat
MIN_WORDS = 4  # shorter sentences ("Nothing yet.") are allowed to come back


def refused(text: str, line: str, policy: str) -> list[tuple[str, str]]:
    """The refusal in answer to an ordinary line (any policy but ``chaos``, whose lines are meant to be refused)."""
    if policy == "chaos" or REFUSAL not in text:
        return []
    return [(line, f"{line!r} was answered '{REFUSAL}'")]


class Repeats:
    """Sentences of the story turns' prose told again within :data:`WINDOW` story turns. The rules' own outcome
    sentence (the check's summary) is left out: the same action has the same outcome."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[int, int]] = {}  # sentence -> (story turn, step) it was last told at
        self.story = 0

    def told(self, text: str, summary: str, step: int) -> list[tuple[str, str]]:
        """Note a story turn's prose (``summary``: its check's outcome sentence); the repeats it holds."""
        self.story += 1
        skip = {" ".join(s.split()) for s in sentences(summary)}
        out = []
        for sentence in sentences(text):
            said = " ".join(sentence.split())
            if len(said.split()) < MIN_WORDS or said in skip:
                continue
            before = self.last.get(said)
            if before is not None and self.story - before[0] <= WINDOW:
                gap = self.story - before[0]
                out.append((said, f"{said!r}: told at turn {before[1]} and again {gap} story turn(s) later, at "
                             f"turn {step}"))
            self.last[said] = (self.story, step)
        return out


def idle_wins(staged: list[ev.BaseEvent], policy: str, pack: EraPack) -> list[tuple[str, str]]:
    """Episodes that ended ``won`` under the ``idle`` policy (looking around and waiting)."""
    if policy != "idle":
        return []
    out = []
    for event in staged:
        if isinstance(event, ev.EpisodeCompleted) and event.evaluation.outcome == "won":
            title = pack.episodes[event.episode].title if event.episode in pack.episodes else event.episode
            out.append((event.episode, f"episode {title!r} ended won ({event.trigger}) though the player only looked "
                        "around and waited"))
    return out


def missing_outcome(staged: list[ev.BaseEvent], text: str, warnings: list[str], hp: int, max_hp: int,
                    pack: EraPack) -> list[tuple[str, str]]:
    """A story turn whose outcome the prose leaves out: each fact of ``rules.prose.outcome_facts`` (HP lost or
    regained, money, items gained or lost) that ``text`` does not state, and each ``validator:`` warning (the
    validator had to mend the prose). ``hp``/``max_hp``: the player's before the turn. Keys are the fact with its
    numbers as ``N`` (one defect for every "You lose N HP.") or the warning's kind."""
    out = [(_NUMBER.sub("N", fact.line), f"the prose does not tell {fact.line!r}")
           for fact in missing_facts(text, outcome_facts(staged, hp, max_hp, pack))]
    for warning in warnings:
        if warning.startswith("validator:"):
            out.append((_warning_key(warning), warning[:300]))
    return out


_NUMBER = re.compile(r"\d+")


def _warning_key(warning: str) -> str:
    """A validator warning without what varies from turn to turn (numbers, what it added or quoted)."""
    head = re.split(r"[:;(]", warning.removeprefix("validator:").strip(), maxsplit=1)[0]
    return "validator: " + _NUMBER.sub("N", head).strip()
