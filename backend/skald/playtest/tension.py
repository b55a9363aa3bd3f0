"""Tension over a run: per line typed, how tense the story was across the campaigns, overall and per policy.

The measure is the engine's own: each story turn of a running episode records a tension reading, 0..1
(``rules.episodes.tension_of``, the EPISODE_TURN event; the episode result's tension curve): 0.15 / 0.35 / 0.55 by the
turn's risk (safe / risky / dangerous), more for a failed check, HP lost or a fight, 1.0 when the player goes down.
A campaign has no reading at a step where no episode runs (between episodes), at a META turn (``/next``...) or on a
line refused before play; it ends early on a crash.

A :class:`Series` is columnar, one entry per step (line typed) 1..``turns``: ``campaigns[i]`` campaigns had a reading
at step ``i + 1``, and ``median[i]``, ``low[i]`` and ``high[i]`` are the median and the first and third quartiles of
those readings (0..1, rounded to 3 places; ``None`` where no campaign had one). :class:`Tension` holds the series of
every campaign (``all``) and of each policy's (``by_policy``, in the order the policies first play).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from skald.playtest.record import CampaignRecord

SCALE = "0..1 per story turn: 0.15 safe, 0.35 risky, 0.55 dangerous, more for a failure, HP lost or a fight, 1 down"


@dataclass
class Series:
    campaigns: list[int] = field(default_factory=list)
    median: list[float | None] = field(default_factory=list)
    low: list[float | None] = field(default_factory=list)  # first quartile
    high: list[float | None] = field(default_factory=list)  # third quartile

    def points(self) -> int:
        """Steps at which at least one campaign had a reading."""
        return sum(1 for n in self.campaigns if n)


@dataclass
class Tension:
    scale: str
    turns: int  # steps (lines typed) per campaign: each series' length
    all: Series
    by_policy: dict[str, Series]


def series(records: list[CampaignRecord], turns: int) -> Series:
    """The :class:`Series` of ``records`` over steps 1..``turns``."""
    out = Series()
    for step in range(1, turns + 1):
        readings = sorted(r.tension[step] for r in records if step in r.tension)
        out.campaigns.append(len(readings))
        low = mid = high = None
        if len(readings) == 1:
            low = mid = high = readings[0]
        elif readings:
            low, mid, high = (round(q, 3) for q in statistics.quantiles(readings, n=4, method="inclusive"))
        out.median.append(mid)
        out.low.append(low)
        out.high.append(high)
    return out


def tension(records: list[CampaignRecord], turns: int) -> Tension:
    """The run's tension: every campaign's, and each policy's."""
    policies = dict.fromkeys(r.policy for r in records)
    return Tension(SCALE, turns, series(records, turns),
                   {p: series([r for r in records if r.policy == p], turns) for p in policies})
