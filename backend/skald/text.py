"""Plain-text helpers shared by rules, the store and the frontends (no game rules here)."""

from __future__ import annotations

import math
import re
import zlib
from functools import lru_cache
from typing import Protocol

_SENTENCE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'\u201d)]))\s+(?=[\"'\u201c(]?[A-Z])")


def sentences(text: str) -> list[str]:
    """``text`` split into sentences: after ``.``, ``!`` or ``?`` (optionally closed by a quote or bracket) and
    before a capital letter (optionally opened by a quote or bracket)."""
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


_ARTICLE = re.compile(r"^(?:the|a|an)\s+")


@lru_cache(maxsize=8192)
def name_key(name: str) -> str:
    """A name as compared: lower case, spaces collapsed, without a leading article ("The See" == "the see")."""
    return _ARTICLE.sub("", " ".join(name.lower().split()))


_A_SOUND = re.compile(r"(?:uni|use|usu|uti|ure|eu|ewe|one\b|once)", re.IGNORECASE)  # vowels read as "y"/"w"
_AN_SOUND = re.compile(r"(?:hour|honest|honou?r|heir)", re.IGNORECASE)  # a silent "h"


def with_article(noun: str) -> str:
    """``noun`` with "a" or "an" in front, by its sound ("an ore sample", "a union steward", "an honest broker"),
    unless it already starts with an article ("the See")."""
    noun = noun.strip()
    if noun[:4].lower() in ("the ", "an ") or noun[:2].lower() == "a ":
        return noun
    vowel = noun[:1].lower() in "aeiou" and not _A_SOUND.match(noun) or bool(_AN_SOUND.match(noun))
    return f"{'an' if vowel else 'a'} {noun[:1].lower()}{noun[1:]}"


_OF_NAME = re.compile(r"^[A-Z][\w'-]* of ")  # "Hall of the Ninth Shift": a common noun, named by what it is of


def inner(text: str) -> str:
    """'The Slag & Lantern' -> 'the Slag & Lantern' (inside a sentence); other names as they are."""
    first, _, rest = text.partition(" ")
    return f"{first.lower()} {rest}" if first in ("The", "A", "An") and rest else text


class Place(Protocol):
    """A place as prose names it: an era pack's location (``core.pack.Location``)."""

    @property
    def name(self) -> str: ...

    @property
    def prose_name(self) -> str | None: ...


def the_place(place: str | Place) -> str:
    """A place's name as it reads inside a sentence. A place whose pack sets ``prose_name`` reads as that ("the
    Cistern Yard"); any other name by the rule: "the Slag & Lantern" for "The Slag & Lantern" (:func:`inner`), "the
    Hall of the Ninth Shift" for a name that says what it is of, any other name as it is ("Kettle Row"). Pass the
    location itself, not its ``name``, so its ``prose_name`` is read; a bare name (a faction's) goes by the rule."""
    if not isinstance(place, str):
        if place.prose_name:
            return place.prose_name
        place = place.name
    inside = inner(place)
    return f"the {place}" if inside == place and _OF_NAME.match(place) else inside


def told_key(sentence: str) -> int:
    """A sentence's key in ``PersistentState.told``: its CRC-32 (the same in every process), 0..2**32-1."""
    return zlib.crc32(sentence.encode())


def told_keys(sentence: str) -> list[int]:
    """The keys a told sentence leaves in ``PersistentState.told``: its own, and the key of what follows its first
    colon read as a sentence of its own ("You meet Pim Oakes, the linkboy: a skinny boy of twelve..." also leaves
    "A skinny boy of twelve...": a description told inside an introduction counts as told)."""
    _, colon, after = sentence.partition(": ")
    after = after.strip()
    return [told_key(sentence)] + ([told_key(after[:1].upper() + after[1:])] if colon and after else [])


def the_group(name: str) -> str:
    """A faction's name inside a sentence: "the Ninth Shift Union" for a name of several words without its article
    (a group is named by what it is), "the Wellkeepers" for "The Wellkeepers", a one-word name as it is."""
    inside = inner(name)
    return f"the {name}" if inside == name and " " in name else inside


def place_at_start(place: str | Place) -> str:
    """A place's name opening a sentence: "The Hall of the Ninth Shift", "The Slag & Lantern", "Kettle Row"
    (:func:`the_place`, its first letter a capital)."""
    inside = the_place(place)
    return inside[:1].upper() + inside[1:]


def or_list(words: list[str], last: str = "or") -> str:
    """"a", "a or b", "a, b or c" (``last`` = "and" for a list of things together)."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {last} " + words[-1]


def plural_of(name: str) -> str:
    """'smoked eels', 'flasks of lamp oil', 'ash goggles', 'torches', 'berries': a thing's name with its head word
    (before any 'of') made plural by the regular English rules; a head word already ending in s is left as it is."""
    head, of, rest = name.partition(" of ")
    if head.endswith("s"):
        plural = head
    elif head.endswith(("ch", "sh", "x")):
        plural = head + "es"
    elif head.endswith("y") and head[-2:-1] not in "aeiou":
        plural = head[:-1] + "ies"
    else:
        plural = head + "s"
    return f"{plural}{of}{rest}"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """'1 story turn', '3 story turns' (``plural``: the plural when it is not ``noun`` + 's')."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def end(text: str) -> str:
    """``text`` stripped, closed with a full stop unless it already ends a sentence (".", "!", "?" or a closing
    quote)."""
    text = text.strip()
    return text if text[-1:] in ".!?\"" else text + "."


def estimate_tokens(text: str) -> int:
    """Tokens in ``text`` by the uncalibrated estimate, four characters a token (a rule of thumb for English text with
    BPE tokenizers): the one estimator Skald has, used by retrieval budgets and, calibrated, by prompt budgets
    (``llm.budget.TokenCounter``). 0 for the empty string."""
    return math.ceil(round(len(text) / 4, 9)) if text else 0


def strings_in(value: object) -> list[str]:
    """Every string in ``value`` and the dicts' values, lists and tuples nested in it, depth first, in order."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
    return found
