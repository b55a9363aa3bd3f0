"""The price of ``SKALD_DB_SYNCHRONOUS=FULL`` (issue 12, defect 8): a whole offline turn on a save file, with
``synchronous`` NORMAL (the default: a process crash loses nothing committed) and FULL (power loss loses nothing
either; one more fsync per commit). Alternating runs of 60 turns each, p50 per turn for each mode; the default
stays NORMAL while FULL costs more than ~10% of a turn on this machine's disk."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from skald.engine import Engine
from skald.llm.client import LLMClient
from skald.settings import get_settings

TURNS = 60
ROUNDS = 3
SCRIPT = ("look around", "talk to the bartender", "rest", "walk to Kettle Row", "look around", "walk to the bar")


def _turns(folder: Path, mode: str, n: int) -> list[float]:
    engine = Engine(folder / f"{mode}-{n}.db", llm=LLMClient(get_settings(), online=False), retriever=None,
                    synchronous=mode)
    engine.create_campaign("cinder_reach", seed=1, campaign_id="d")
    times = []
    for i in range(TURNS):
        started = time.perf_counter()
        engine.play_turn("d", SCRIPT[i % len(SCRIPT)])
        times.append(time.perf_counter() - started)
    engine.close()
    return times[5:]


def run() -> list[str]:
    results: dict[str, list[float]] = {"NORMAL": [], "FULL": []}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(ROUNDS):
            for mode in results:
                results[mode] += _turns(Path(tmp), mode, n)
    normal, full = (statistics.median(results[m]) * 1000 for m in ("NORMAL", "FULL"))
    return [f"durability, a whole offline turn on a save file ({ROUNDS} x {TURNS} turns per mode, alternating)",
            f"  synchronous=NORMAL p50 {normal:.2f} ms, FULL p50 {full:.2f} ms: FULL costs {full - normal:+.2f} ms "
            f"({(full / normal - 1) * 100:+.0f}%) per turn   (NORMAL is the default; FULL is a setting)"]


if __name__ == "__main__":
    print("\n".join(run()))
