"""``python -m bench [--long]``: print every benchmark's figures beside its target. ``--long`` adds a window at
turn 10,000."""

from __future__ import annotations

import sys

from bench import (
    api,
    briefs,
    durability,
    engine,
    hung,
    narration,
    packs,
    rag,
    replay,
    scenes,
    startup,
    throughput,
    ttft,
    understanding,
)


def main(argv: list[str]) -> None:
    windows = (10, 1000, 10_000) if "--long" in argv else (10, 1000)
    for part in (packs.run, rag.run, lambda: engine.run(windows), narration.run, understanding.run, briefs.run,
                 ttft.run, scenes.run, replay.run, startup.run, api.run, throughput.run, hung.run, durability.run):
        for line in part():
            print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
