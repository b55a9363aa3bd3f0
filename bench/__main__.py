"""``python -m bench [--long]``: print every benchmark's figures. ``--long`` adds a window at turn 10,000."""

from __future__ import annotations

import sys

from bench import api, engine, packs, rag


def main(argv: list[str]) -> None:
    windows = (10, 1000, 10_000) if "--long" in argv else (10, 1000)
    for line in packs.run():
        print(line, flush=True)
    for line in rag.run():
        print(line, flush=True)
    for line in engine.run(windows):
        print(line, flush=True)
    for line in api.run():
        print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
