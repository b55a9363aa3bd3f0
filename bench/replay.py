"""Engine time per turn replaying the shipped recordings (every LLM reply served from the recording through the real
client, so the whole online path runs: prompts, streaming, structured output, feedback, retries, breaker). Target
(issue 10): <= 10 ms per turn on the reference machine (21 ms there before issue 10)."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from skald import engine
from skald.replay.session import find_recordings, replay

RECORDINGS = Path(__file__).resolve().parents[1] / "data" / "recordings"


def run() -> list[str]:
    times: list[float] = []
    real = engine.Engine.play_turn

    def timed(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return real(self, *args, **kwargs)
        finally:
            times.append((time.perf_counter() - started) * 1000)

    folders = find_recordings([RECORDINGS])
    engine.Engine.play_turn = timed
    try:
        for folder in folders:  # a warm-up pass: clients, packs and regexes built once
            replay(folder)
        times.clear()
        reports = [replay(folder) for folder in folders]
    finally:
        engine.Engine.play_turn = real
    failed = [r.path.name for r in reports if not r.ok]
    return [f"replay, {len(times)} recorded turns of {len(folders)} recordings" +
            (f" (MISMATCH in {', '.join(failed)})" if failed else ""),
            f"  per turn: p50 {statistics.median(times):.1f} ms, mean {statistics.mean(times):.1f} ms   "
            "(target <= 10 ms on the reference machine, 21 ms there before issue 10)"]
