"""Engine time per turn with the offline narrator, early and late in one campaign, and DB size per turn.

Targets (issue 2): p50 < 10 ms, p99 < 40 ms, and the late window no slower than 1.2 x the early one.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from skald.engine import start_campaign
from skald.graph import run_turn
from skald.llm.client import LLMClient
from skald.packs.loader import load_pack
from skald.settings import Settings
from skald.store.db import connect

SCRIPT = Path(__file__).resolve().parents[1] / "data" / "scripts" / "cinder_reach_30.txt"
WINDOW = 200


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(windows: tuple[int, ...] = (10, 1000), seed: int = 1) -> list[str]:
    pack = load_pack("cinder_reach")
    llm = LLMClient(Settings(), online=False)
    inputs = [line for line in SCRIPT.read_text().splitlines() if line.strip() and not line.startswith("/quit")]
    last = max(windows) + WINDOW
    timings: dict[int, list[float]] = {w: [] for w in windows}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        conn = connect(db)
        state = start_campaign(conn, pack, seed=seed, campaign_id="bench")
        for turn in range(1, last + 1):
            text = inputs[(turn - 1) % len(inputs)]
            started = time.perf_counter()
            state = run_turn(conn, state.model_copy(update={"player_input": text}), pack=pack, llm=llm)
            elapsed = (time.perf_counter() - started) * 1000
            for w in windows:
                if w <= turn < w + WINDOW:
                    timings[w].append(elapsed)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = db.stat().st_size
        conn.close()
    lines = [f"engine, offline narrator, {last} turns of one campaign (cinder_reach, seed {seed})"]
    for w in windows:
        t = timings[w]
        lines.append(f"  turns {w}-{w + WINDOW - 1}: p50 {statistics.median(t):6.2f} ms   p99 {_pct(t, 0.99):6.2f} ms")
    first, late = statistics.median(timings[windows[0]]), statistics.median(timings[windows[-1]])
    lines.append(f"  late / early p50: {late / first:.2f} x   (target <= 1.2 x)")
    lines.append(f"  DB size: {size / 1024:.0f} KiB, {size / last / 1024:.2f} KiB per turn")
    return lines
