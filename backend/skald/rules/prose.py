"""Narration rules: post-processing of narrator prose and the validator's consistency checks.

Targets: 5-8 sentences, at most 250 words, second person. Post-processing strips option lists and
meta-game sections, then cuts overlong prose at a sentence boundary.
"""

from __future__ import annotations

import re
from functools import lru_cache

from skald.packs.models import EraPack
from skald.state import MechanicResult, PresentNpc
from skald.text import sentences
from skald.vocab import Outcome

MAX_WORDS = 250
MAX_SENTENCES = 8
MIN_SENTENCES = 5

_OPTION_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*\u2022]|\(?[a-d]\))\s+")
_META_HEAD = re.compile(r"^\s*(?:#+\s*|\*\*)?(?:(?:options|choices|suggested actions|what do you do|"
                        r"ooc|out of character|note|as an ai|stats|status|game state)\b|\[)", re.IGNORECASE)
_PROMPT = re.compile(r"^what (?:do|will|would) you do(?: now| next)?\?$", re.IGNORECASE)  # inline "What do you do?"
_CAPWORDS = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")

SUCCESS_WORDS = re.compile(r"\byou (?:succeed|manage|pull it off|win)\b", re.IGNORECASE)
FAILURE_WORDS = re.compile(r"\byou (?:fail|failed|cannot|can't|miss|missed|are spotted|fall short)\b",
                           re.IGNORECASE)


def clean_narration(text: str) -> tuple[str, list[str]]:
    """Strip option lists and meta-game sections, cap length at a sentence boundary.

    :returns: (clean prose, warnings describing what was removed or cut).
    """
    warnings: list[str] = []
    kept: list[str] = []
    for line in text.replace("\r", "").split("\n"):
        if _META_HEAD.match(line):
            warnings.append("narrator: removed a meta-game section")
            break  # everything after a meta heading is the section's body
        if _OPTION_LINE.match(line):
            warnings.append("narrator: removed an option list")
            continue
        kept.append(line.strip())
    prose = re.sub(r"\s+", " ", " ".join(k for k in kept if k)).strip()
    parts = sentences(prose)
    out: list[str] = []
    words = 0
    for sentence in parts:
        if _PROMPT.match(sentence):
            warnings.append("narrator: removed a meta-game section")
            continue
        n = len(sentence.split())
        if out and (words + n > MAX_WORDS or len(out) >= MAX_SENTENCES):
            warnings.append(f"narrator: cut prose to {len(out)} sentences / {words} words")
            break
        out.append(sentence)
        words += n
    if words > MAX_WORDS:  # a single sentence longer than the whole budget: cut it at a word
        out = [" ".join(out[0].split()[:MAX_WORDS]).rstrip(",;:") + "..."]
        warnings.append(f"narrator: cut one overlong sentence to {MAX_WORDS} words")
    return " ".join(out), sorted(set(warnings), key=warnings.index)


_YOU = re.compile(r"\byou(?:r|rs|rself)?\b", re.IGNORECASE)


def second_person(text: str) -> bool:
    """True when the prose addresses the player as "you"."""
    return _YOU.search(text) is not None


def unknown_names(text: str, pack: EraPack, present: list[PresentNpc], extra_known: set[str]) -> list[str]:
    """Pack NPC or companion names mentioned in ``text`` who are not on stage."""
    on_stage = {p.name for p in present} | extra_known
    return [name for name in _pack_names(pack)
            if name not in on_stage and name in text and _name_pattern(name).search(text)]


def _pack_names(pack: EraPack) -> list[str]:
    return [p.name for p in [*pack.npcs.values(), *pack.companions.values()]]


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"\b" + re.escape(name) + r"\b")


def invented_names(text: str, known: set[str]) -> list[str]:
    """Capitalised multi-word names in ``text`` that match no known entity name (a hint, not proof)."""
    found = []
    for match in _CAPWORDS.findall(text):
        if not any(match in name or name in match for name in known):
            found.append(match)
    return sorted(set(found))


def outcome_conflicts(text: str, result: MechanicResult) -> list[str]:
    """Contradictions between the prose and the check: success told as failure or the reverse."""
    if result.outcome == Outcome.NO_ROLL:
        return []
    if result.outcome.succeeded and FAILURE_WORDS.search(text) and not SUCCESS_WORDS.search(text):
        return [f"prose reads as a failure but the check succeeded ({result.total} vs DC {result.dc})"]
    if not result.outcome.succeeded and SUCCESS_WORDS.search(text) and not FAILURE_WORDS.search(text):
        return [f"prose reads as a success but the check failed ({result.total} vs DC {result.dc})"]
    return []
