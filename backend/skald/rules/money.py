"""Money as players read it: an amount in the pack's own words (``1 grey``, ``25 greys``; ``era.currency``).

The engine counts whole units and calls them ``credits`` in code, saves and the API; only the words change.
"""

from __future__ import annotations

import re

from skald.core.pack import EraPack

NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "a single": 1, "two": 2, "a couple of": 2, "a couple": 2, "three": 3,
                "a few": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                "a dozen": 12, "twelve": 12, "twenty": 20, "fifty": 50, "a hundred": 100}
_DIGITS = re.compile(r"\b(\d[\d,]*)\b")


def money(amount: int, pack: EraPack) -> str:
    """``amount`` with the pack's currency word, singular for exactly 1 (or -1)."""
    currency = pack.era.currency
    return f"{amount} {currency.one if abs(amount) == 1 else currency.many}"


def amount_in(text: str, pack: EraPack) -> int | None:
    """The sum a line names: digits ('give juno 10 credits', 'pay her 1,000'), or a number word before the pack's
    currency word or 'coin' ('a grey', 'two greys', 'a couple of coins'; 'a quarter grey' is 1: no coin is smaller),
    or the coin named bare after giving ('give coin to amos', 'tip her grey': 1); None when it names none."""
    found = _DIGITS.search(text)
    if found:
        return int(found.group(1).replace(",", ""))
    currency = pack.era.currency
    units = "|".join(re.escape(w) for w in {currency.one.lower(), currency.many.lower(), "coin", "coins"})
    numbers = "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
    worded = re.search(rf"\b({numbers})(?: (?:half|quarter|whole|single|few|spare|little))? (?:{units})\b", text)
    if worded:
        return NUMBER_WORDS[worded.group(1)]
    one = "|".join(re.escape(w) for w in {currency.one.lower(), "coin"})
    bare = re.search(rf"\b(?:give|pay|tip|hand|slip|toss|flip|offer)(?: (?!the\b|my\b)[a-z]+)? (?:{one})\b", text)
    return 1 if bare else None  # "give coin to amos": one
