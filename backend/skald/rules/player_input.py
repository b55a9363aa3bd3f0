"""Checks and cleaning of what the player typed, before any node runs."""

from __future__ import annotations

import re
import unicodedata

from skald.errors import PlayerInputError

_MARKUP = re.compile(r"\[[^\]]*\]|<[^>]*>|\{[^}]*\}|[*_`#~|]")
_SPACES = re.compile(r"\s+")


def check_player_input(text: str, max_chars: int) -> str:
    """Validate raw input; return it with surrounding whitespace trimmed.

    :raises PlayerInputError: when the input is empty, longer than ``max_chars`` characters, or contains
        control characters (other than tab and newline). Nothing is played or written in those cases.
    """
    if len(text) > max_chars:
        raise PlayerInputError(
            f"that input is {len(text):,} characters long; the limit is {max_chars:,}. Say it in fewer words."
        )
    text = text.replace("\r\n", "\n")  # Windows line endings are not control input
    bad = sorted({f"U+{ord(ch):04X}" for ch in text if unicodedata.category(ch) == "Cc" and ch not in "\t\n"})
    if bad:
        raise PlayerInputError(
            f"that input contains control characters ({', '.join(bad[:5])}); type plain text and try again."
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
