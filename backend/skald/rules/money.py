"""Money as players read it: an amount in the pack's own words (``1 grey``, ``25 greys``; ``era.currency``).

The engine counts whole units and calls them ``credits`` in code, saves and the API; only the words change.
"""

from __future__ import annotations

from skald.packs.models import EraPack


def money(amount: int, pack: EraPack) -> str:
    """``amount`` with the pack's currency word, singular for exactly 1 (or -1)."""
    currency = pack.era.currency
    return f"{amount} {currency.one if abs(amount) == 1 else currency.many}"
