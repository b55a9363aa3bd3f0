"""``skald playtest``: machine players play a pack many times, offline, and the report tells its designer what to fix.

Modules: ``policies`` (the players), ``phrases`` (their lines not taken from the pack), ``runner`` (the campaigns,
through ``skald.engine.Engine``, in worker processes), ``record`` (what one campaign reached), ``checks``,
``invariants``, ``softlocks`` and ``eventlog`` (the defects), ``coverage`` and ``deadcontent`` (what was and was not
reached), ``tension`` (the story's tension per turn), ``report`` (the dataclass tree and its JSON), ``summary`` (the
text a designer reads) and ``html`` (one page, with ``heatmap``, the map of visits, and ``curves``, the tension).

From Python::

    from skald.playtest import playtest
    report = playtest("cinder_reach", campaigns=12, turns=40, seed=1, workers=2)
    report.coverage.places.share, report.dead_content, report.defects, report.speed.per_worker
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing this package stays cheap: the command line names the policies at start-up
    from skald.playtest.report import Report

from skald.playtest.names import CHOICES, MIXED, ORDER


def playtest(pack: str | Path, *, campaigns: int = 24, turns: int = 100, policy: str = MIXED, seed: int = 1,
             workers: int = 1, progress: Callable[[int, int], None] | None = None) -> Report:
    """Play ``campaigns`` campaigns of ``turns`` lines each on ``pack`` (an id or a folder) and report.

    Campaign ``i`` is seeded ``seed + i`` and plays ``policy`` (``mixed``: the policies in turn, see
    ``playtest.policies``); ``workers`` processes play them (1: this process). ``progress(done, total)`` is called as
    campaigns finish.

    :raises PackError: the pack does not load. :raises ValueError: an unknown policy, or a count below 1.
    """
    from skald.packs.loader import get_pack
    from skald.playtest.policies import policy_name
    from skald.playtest.report import RunSettings, build
    from skald.playtest.runner import play_all

    if campaigns < 1 or turns < 1 or workers < 1:
        raise ValueError("campaigns, turns and workers must each be at least 1")
    policy_name(policy, 0)
    loaded = get_pack(pack)
    records, wall = play_all(str(pack), campaigns, turns, policy, seed, workers, progress)
    return build(loaded, records, RunSettings(str(pack), campaigns, turns, policy, seed, workers), wall)


__all__ = ["CHOICES", "MIXED", "ORDER", "playtest"]
