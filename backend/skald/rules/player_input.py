"""Checks and cleaning of what the player typed, before any node runs."""

from __future__ import annotations

import re
import unicodedata

from skald.core.persistent import Suggestion
from skald.errors import PlayerInputError

_MARKUP = re.compile(r"\[[^\]]*\]|<[^>]*>|\{[^}]*\}|[*_`#~|]")
_SPACES = re.compile(r"\s+")


def check_player_input(text: str, max_chars: int) -> str:
    """Validate raw input; return it with surrounding whitespace trimmed.

    :raises PlayerInputError: when the input is empty, longer than ``max_chars`` characters, or contains
        characters of Unicode category C other than tab and newline: control characters (Cc), invisible format
        characters such as bidi overrides U+202A-U+202E, isolates U+2066-U+2069 and zero-width U+200B-U+200D,
        U+2060, U+FEFF (Cf), lone surrogates (Cs, which no UTF-8 text can hold), private-use (Co) and unassigned
        (Cn) code points: the same rule as a character's name. Nothing is played or written in those cases.
    """
    if len(text) > max_chars:
        raise PlayerInputError(
            f"that input is {len(text):,} characters long; the limit is {max_chars:,}. Say it in fewer words."
        )
    text = text.replace("\r\n", "\n")  # Windows line endings are not control input
    bad = sorted({ch for ch in text if unicodedata.category(ch)[0] == "C" and ch not in "\t\n"})
    if bad:
        kind = "control" if all(unicodedata.category(ch) == "Cc" for ch in bad) else "control or invisible"
        raise PlayerInputError(
            f"that input contains {kind} characters ({', '.join(f'U+{ord(ch):04X}' for ch in bad[:5])}); type "
            "plain text and try again."
        )
    stripped = text.strip()
    if not stripped:
        raise PlayerInputError("nothing to play: type what your character does, or /help for commands.")
    return stripped


def strip_markup(text: str) -> str:
    """Remove bracketed tags, HTML-like tags, braces and markdown marks; collapse whitespace.

    The router classifies only what is left, so ``[tone: PARAGON]`` or ``<system>`` typed by a player
    cannot change the intent, the action class or the tone.
    """
    return _SPACES.sub(" ", _MARKUP.sub(" ", text)).strip()


_NUMBER = re.compile(r"^[+-]?\d+[.)]?$")


def resolve_choice(text: str, offer: list[Suggestion]) -> str:
    """A bare number picks that suggestion of the standing offer (1-4): the suggestion's label is what is played.
    Any other input is returned as it is.

    :raises PlayerInputError: a number outside 1..len(offer) ("7", "0", "-1"), or any number when nothing is on
        offer; nothing is played.
    """
    if not _NUMBER.match(text):
        return text
    number = int(text.rstrip(".)"))
    if not offer:
        raise PlayerInputError("there are no suggestions to pick from yet: type what your character does.")
    if not 1 <= number <= len(offer):
        raise PlayerInputError(f"choose 1-{len(offer)} to play a suggestion, or type what your character does.")
    return offer[number - 1].label
