"""Validating every shipped era pack from disk (what `skald pack validate` does). Target: under 1 s for all."""

from __future__ import annotations

import statistics
import time

from skald.packs.loader import available_packs, load_pack

RUNS = 5


def run() -> list[str]:
    packs = available_packs()
    totals = []
    for _ in range(RUNS):
        started = time.perf_counter()
        for pack in packs:
            load_pack(pack)
        totals.append(time.perf_counter() - started)
    return [f"pack validation, {len(packs)} shipped pack(s) ({', '.join(packs)}), {RUNS} runs",
            f"  all packs: median {statistics.median(totals) * 1000:.0f} ms, worst {max(totals) * 1000:.0f} ms"
            "   (target < 1000 ms)"]
