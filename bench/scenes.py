"""Multi-character scenes (issue 15): what a scene costs the engine, model time excluded (the offline characters and
narrator: every figure is Skald's and LangGraph's own work), and what a turn without a scene pays for the feature.

One campaign at the Slag & Lantern alternates scenes (Hesper and Rhea addressed together, then "go on" until the
scene closes) with quiet turns that open none. Reported: p50 of a turn without a scene and of a scene turn; the
engine overhead of one scene beat (the scene and character nodes, measured inside them, and the whole turn's excess
over a quiet turn, per beat); and the Director's scene check (``nodes.scene.after_director``), the only work scenes
add to a turn without one.

Targets: a turn without a scene pays nothing measurable (the check, in microseconds, against a 4 ms p50 budget); a
beat's overhead is reported (no target in the issue; compare with the 4 ms of a whole turn).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from skald.engine import start_campaign
from skald.graph import NODES, build_graph, run_turn
from skald.llm.client import LLMClient
from skald.nodes import director as director_module
from skald.packs.loader import load_pack
from skald.settings import Settings
from skald.store.db import connect

TURNS = 240
GROUP = "Hesper, Rhea, what do you both make of the water?"
QUIET = ("drink at the bar quietly", "look around", "wait at the bar")


def run(turns: int = TURNS, seed: int = 7) -> list[str]:
    pack = load_pack("cinder_reach")
    llm = LLMClient(Settings(retrieval=False), online=False)
    inside: dict[str, float] = {"scene": 0.0, "character": 0.0}
    edges: list[float] = []

    def timed(name: str, fn: Callable) -> Callable:
        def node(state, runtime):
            started = time.perf_counter()
            try:
                return fn(state, runtime)
            finally:
                inside[name] += time.perf_counter() - started
        return node

    real_check = director_module.after_director

    def check(state, pack):
        started = time.perf_counter()
        try:
            return real_check(state, pack)
        finally:
            edges.append(time.perf_counter() - started)

    compiled = build_graph({"scene": timed("scene", NODES["scene"]),
                            "character": timed("character", NODES["character"])}).compile()
    director_module.after_director = check  # the same check, timed
    try:
        return _play(pack, llm, compiled, inside, edges, turns, seed)
    finally:
        director_module.after_director = real_check


def _play(pack, llm, compiled, inside, edges, turns: int, seed: int) -> list[str]:
    quiet_ms: list[float] = []
    scene_ms: list[float] = []
    beat_inside: list[float] = []
    beats_seen: list[int] = []
    quiet_edges: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(Path(tmp) / "scenes.db")
        state = start_campaign(conn, pack, seed=seed, campaign_id="scenes")
        quiet_left = 2
        for turn in range(1, turns + 1):
            running = state.scenes.scene is not None
            if running:
                text = "go on, I am listening"
            elif quiet_left > 0:
                text = QUIET[turn % len(QUIET)]
                quiet_left -= 1
            else:
                text, quiet_left = GROUP, 2
            inside.update(scene=0.0, character=0.0)
            edges.clear()
            started = time.perf_counter()
            state = run_turn(conn, state.model_copy(update={"player_input": text}), pack=pack, llm=llm,
                             graph=compiled, retriever=None)
            elapsed = (time.perf_counter() - started) * 1000
            if turn <= 10:
                continue  # warm-up
            if state.scene_beats:
                scene_ms.append(elapsed)
                beats_seen.append(state.scene_beats)
                beat_inside.append((inside["scene"] + inside["character"]) * 1000 / state.scene_beats)
            else:
                quiet_ms.append(elapsed)
                quiet_edges += edges
        conn.close()
    quiet, scened = statistics.median(quiet_ms), statistics.median(scene_ms)
    beats = statistics.median(beats_seen)
    edge_us = statistics.median(quiet_edges) * 1e6 if quiet_edges else 0.0
    return [
        f"scenes, offline characters and narrator, {turns} turns at the Slag & Lantern (cinder_reach, seed {seed})",
        f"  turn without a scene: p50 {quiet:6.2f} ms over {len(quiet_ms)} turns   (target p50 <= 4 ms on the "
        "reference machine, as every turn)",
        f"  the Director's scene check on such a turn (the only work scenes add to it): p50 {edge_us:6.1f} us   "
        "(target: nothing measurable against the 4 ms budget)",
        f"  scene turn: p50 {scened:6.2f} ms over {len(scene_ms)} turns, {beats:.0f} beats a turn",
        f"  one scene beat, engine overhead excluding model time: {statistics.median(beat_inside):6.2f} ms inside the "
        f"scene and character nodes; {(scened - quiet) / beats:6.2f} ms of whole-turn time over a quiet turn   "
        "(reported: no target)",
    ]


if __name__ == "__main__":
    for line in run():
        print(line)
