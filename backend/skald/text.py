"""Plain-text helpers shared by rules, the store and the frontends (no game rules here)."""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'\u201d)]))\s+(?=[\"'\u201c(]?[A-Z])")


def sentences(text: str) -> list[str]:
    """``text`` split into sentences: after ``.``, ``!`` or ``?`` (optionally closed by a quote or bracket) and
    before a capital letter (optionally opened by a quote or bracket)."""
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]
