"""Seeded dice. Every random choice in Skald comes from an RNG derived here, so a campaign replays exactly.

Ability modifiers follow the d20 SRD: modifier = floor((score - 10) / 2).
"""

from __future__ import annotations

import hashlib
import random

from skald.core.records import turn_key


def rng_for(seed: int, *keys: object) -> random.Random:
    """A ``random.Random`` seeded from the campaign seed and any keys, stable across processes.

    Python's ``hash()`` of a str changes per process, so the seed is derived with BLAKE2b instead.
    """
    material = repr((seed, *keys)).encode()
    return random.Random(int.from_bytes(hashlib.blake2b(material, digest_size=8).digest(), "big"))


def turn_rng(seed: int, turn_number: int, variant: int = 0) -> random.Random:
    """The RNG for turn ``turn_number`` (the turn being played, 1-based) of a campaign, in its ``variant``."""
    return rng_for(seed, "turn", turn_key(turn_number, variant))


def d20(rng: random.Random) -> int:
    return rng.randint(1, 20)


def roll(rng: random.Random, sides: int) -> int:
    """One die of ``sides`` faces (1..sides); ``sides`` < 1 rolls 0."""
    return rng.randint(1, sides) if sides >= 1 else 0


def ability_modifier(score: int) -> int:
    """d20 SRD ability modifier: 10-11 -> +0, 12-13 -> +1, 8-9 -> -1."""
    return (score - 10) // 2
