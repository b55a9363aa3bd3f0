"""The scene briefs this process holds: one :class:`Briefing` (or a brief still being written in the background) per
(campaign, scene key), least recently used dropped first. It is only a cache: every turn stores the brief it used
(Commit), and a brief missing here is read back from the save file (``store.briefs``) before anything is written
again, so a restart or a second process costs no LLM call for a scene already briefed.

Background briefs run on daemon threads (a hung model never holds the process at exit); :meth:`BriefCache.settle`
waits for them (recording and replay do, so a background call always belongs to the turn that started it), and
:meth:`BriefCache.close` starts no more of them and waits for those under way (``LLMClient.close`` cuts their calls
first), so that none is still retrieving lore when the interpreter exits (``skald.shutdown``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from skald.core.brief import SceneBrief

KEYS_PER_CAMPAIGN = 32
CAMPAIGNS = 256


@dataclass
class Briefing:
    """A scene's brief (its scene-level parts) and how it came to be.

    ``origin``: ``llm`` (the director role wrote it) or ``offline`` (the rules did). ``attempted``: the director role
    was asked for this scene, so it is not asked again. ``calls``, ``warnings``, ``stats``: the records of that call,
    reported with the next turn, whether or not it uses the brief (``reported`` then becomes True; a background brief
    not yet reported is "prefetched" to the turn that uses it). ``background``: written by a prefetch, not by a
    turn.
    """

    brief: SceneBrief
    origin: str = "offline"
    attempted: bool = False
    background: bool = False
    calls: list[Any] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    stats: list[dict[str, Any]] = field(default_factory=list)
    reported: bool = False


class BriefCache:
    """Per-process cache of scene briefs, thread-safe."""

    def __init__(self, keys_per_campaign: int = KEYS_PER_CAMPAIGN, campaigns: int = CAMPAIGNS):
        self.keys_per_campaign, self.campaigns = keys_per_campaign, campaigns
        self._lock = threading.Lock()
        self._held: OrderedDict[str, OrderedDict[str, Briefing | Future]] = OrderedDict()
        self._pending: set[Future] = set()
        self._late: set[Future] = set()  # briefs being written that a turn already gave up waiting for
        self._unreported: dict[str, list[Briefing]] = {}  # background briefs whose call no turn has reported yet
        self.started = 0  # background briefs started (for tests and benchmarks)
        self.closed = False  # no background brief starts any more (close)

    def peek(self, campaign: str, key: str) -> Briefing | Future | None:
        with self._lock:
            return self._held.get(campaign, {}).get(key)

    def take(self, campaign: str, key: str, until: float | None) -> tuple[Briefing | None, bool]:
        """The brief held for the scene, waiting for one being written until ``until`` (``time.monotonic()``
        seconds; None: as long as it takes), unless a turn already waited for it in vain. Returns (briefing or
        None, whether one was being written and did not finish in time)."""
        held = self.peek(campaign, key)
        if isinstance(held, Future):
            wait = None if until is None else max(0.0, until - time.monotonic())
            if held in self._late:  # a turn already waited for it in vain: later turns do not wait again
                wait = 0.0
            try:
                held = held.result(timeout=wait)
            except FutureTimeout:
                with self._lock:
                    self._late.add(held)
                return None, True
        return held, False

    def put(self, campaign: str, key: str, briefing: Briefing) -> None:
        with self._lock:
            self._store(campaign, key, briefing)

    def wants_llm(self, campaign: str, key: str) -> bool:
        """Whether the director role should be asked for this scene: nothing is held for it, or only a brief the
        rules wrote without the role being asked."""
        held = self.peek(campaign, key)
        return held is None or (isinstance(held, Briefing) and held.origin != "llm" and not held.attempted)

    def start(self, campaign: str, key: str, job: Callable[[], Briefing]) -> Future | None:
        """Run ``job`` on a daemon thread; its brief replaces what is held for the scene when it is done. Returns its
        future, or None once the cache is closed (nothing is started)."""
        future: Future = Future()
        with self._lock:
            if self.closed:
                return None
            self._store(campaign, key, future)
            self._pending.add(future)
            self.started += 1

        def run() -> None:
            try:
                result = job()
            except BaseException as exc:  # noqa: BLE001 - reported to whoever waits; the turn falls back
                future.set_exception(exc)
                with self._lock:
                    self._drop(campaign, key, future)
                    self._pending.discard(future)
                    self._late.discard(future)
                return
            with self._lock:
                if self._held.get(campaign, {}).get(key) is future:
                    self._store(campaign, key, result)
                self._unreported.setdefault(campaign, []).append(result)
                self._pending.discard(future)
                self._late.discard(future)
            future.set_result(result)

        threading.Thread(target=run, name=f"skald-brief-{campaign}", daemon=True).start()
        return future

    def settle(self, timeout: float | None = None) -> bool:
        """Wait until no background brief is being written, ``timeout`` seconds at most (None: as long as it takes).
        Returns True when none is left."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                pending = list(self._pending)
            if not pending:
                return True
            for future in pending:
                try:
                    future.result(timeout=None if end is None else max(0.0, end - time.monotonic()))
                except FutureTimeout:
                    return False
                except Exception:  # noqa: BLE001, S112 - a failed brief is the waiting turn's business
                    continue

    def close(self, timeout: float | None = None) -> bool:
        """Start no more background briefs, and wait for those being written, ``timeout`` seconds at most (None: as
        long as they take). Idempotent. Returns True when none is left."""
        with self._lock:
            self.closed = True
        return self.settle(timeout)

    def unreported(self, campaign: str, also: Briefing | None = None) -> list[Briefing]:
        """The briefs written in the background for ``campaign`` (and ``also``) whose LLM call records no turn has
        reported yet, marked reported now: the next turn reports them, whether or not it uses them."""
        with self._lock:
            found = self._unreported.pop(campaign, [])
            if also is not None and also not in found:
                found.append(also)
            out = [b for b in found if not b.reported]
            for briefing in out:
                briefing.reported = True
        return out

    def forget(self, campaign: str) -> None:
        with self._lock:
            self._held.pop(campaign, None)
            self._unreported.pop(campaign, None)

    def _store(self, campaign: str, key: str, item: Briefing | Future) -> None:
        keys = self._held.setdefault(campaign, OrderedDict())
        keys[key] = item
        keys.move_to_end(key)
        self._held.move_to_end(campaign)
        while len(keys) > self.keys_per_campaign:
            keys.popitem(last=False)
        while len(self._held) > self.campaigns:
            self._held.popitem(last=False)

    def _drop(self, campaign: str, key: str, item: Future) -> None:
        keys = self._held.get(campaign, {})
        if keys.get(key) is item:
            del keys[key]
