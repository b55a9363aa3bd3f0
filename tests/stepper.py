"""A turn played in its own process, one step at a time, for tests/test_interleavings.py.

The parent sends ``("play", campaign_id, text, key, expected)``; the worker plays it on its own :class:`Engine` (its
own connections and busy set: another process in all but name), stopping at each of ``engine.PAUSE_POINTS`` to
send ``("at", point)`` and wait for ``"go"``; at the end it sends ``("done", reply)`` or ``("error", class name)``.
"""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any


def serve(path: str, pipe: Connection) -> None:
    os.environ["SKALD_LLM"] = "off"
    from skald.engine import Engine
    from skald.llm.client import LLMClient
    from skald.settings import get_settings

    engine = Engine(path, llm=LLMClient(get_settings(), online=False), retriever=None)

    def pause(point: str) -> None:
        pipe.send(("at", point))
        if pipe.recv() != "go":
            raise SystemExit(0)

    engine.pause = pause
    while True:
        message = pipe.recv()
        if message == "stop":
            engine.close()
            return
        _, campaign_id, text, key, expected = message
        try:
            played = engine.play_turn(campaign_id, text, key=key, expected=expected)
        except Exception as exc:  # noqa: BLE001 - the parent checks which errors are allowed
            pipe.send(("error", type(exc).__name__))
            continue
        pipe.send(("done", {"turn_number": played.body["turn_number"], "input": played.body["input"],
                            "text": played.body["text"], "replayed": played.replayed}))


@dataclass
class Worker:
    """The parent's end of one worker process."""

    process: Any
    pipe: Connection
    finished: tuple[str, Any] | None = None

    @classmethod
    def start(cls, path: str) -> Worker:
        ctx = multiprocessing.get_context("spawn")
        ours, theirs = ctx.Pipe()
        process = ctx.Process(target=serve, args=(path, theirs), daemon=True)
        process.start()
        return cls(process, ours)

    def begin(self, campaign_id: str, text: str, key: str | None, expected: int | None) -> None:
        self.finished = None
        self.pipe.send(("play", campaign_id, text, key, expected))

    def step(self, timeout_s: float = 60.0) -> str:
        """Run to the next pause point (or the end); return the point's name, or "done"."""
        if not self.pipe.poll(timeout_s):
            raise TimeoutError("the worker neither paused nor finished: a step is blocked")
        kind, payload = self.pipe.recv()
        if kind == "at":
            return payload
        self.finished = (kind, payload)
        return "done"

    def go(self) -> None:
        self.pipe.send("go")

    def stop(self) -> None:
        self.pipe.send("stop")
        self.process.join(30)
