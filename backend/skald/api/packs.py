"""The era packs the server plays: loaded once per pack id, or with ``--reload-packs`` swapped in when their files
change (``packs.watch.PackWatcher``), keeping the last good version when an edit has errors or no longer fits a
campaign."""

from __future__ import annotations

import logging
import threading
import time

from skald.packs.loader import PackError, available_packs, get_pack
from skald.packs.models import EraPack
from skald.packs.watch import PackWatcher, state_problems
from skald.state import GameState

log = logging.getLogger("skald.api")


class UnknownPackError(LookupError):
    """Not one of the shipped packs (``available_packs()``); the API never loads a pack from an arbitrary path."""


class PackCache:
    """Packs by id. ``reload``: poll each pack's files (at most every ``poll_s`` seconds) before a turn."""

    def __init__(self, reload: bool = False, poll_s: float = 1.0):
        self.reload = reload
        self.poll_s = poll_s
        self._packs: dict[str, EraPack] = {}
        self._watchers: dict[str, PackWatcher] = {}
        self._polled: dict[str, float] = {}
        self._campaign_packs: dict[str, EraPack] = {}  # the pack each campaign last played (reload mode)
        self.errors: dict[str, list[str]] = {}  # the last reload errors per pack id
        self._lock = threading.Lock()

    def ids(self) -> list[str]:
        return available_packs()

    def get(self, pack_id: str) -> EraPack:
        """:raises UnknownPackError: not a shipped pack. :raises PackError: the pack does not load."""
        with self._lock:
            if pack_id in self._packs:
                return self._packs[pack_id]
        if pack_id not in available_packs():
            raise UnknownPackError(pack_id)
        pack = get_pack(pack_id)
        with self._lock:
            pack = self._packs.setdefault(pack_id, pack)
            if self.reload and pack_id not in self._watchers:
                self._watchers[pack_id] = PackWatcher(pack_id, current=pack)
                self._polled[pack_id] = time.monotonic()
        return pack

    def for_turn(self, state: GameState) -> EraPack:
        """The pack to play ``state``'s next turn with (reloaded first when its files changed)."""
        pack_id = state.campaign.pack_id
        pack = self.get(pack_id)
        if not self.reload:
            return pack
        with self._lock:
            watcher = self._watchers[pack_id]
            now = time.monotonic()
            if now - self._polled[pack_id] >= self.poll_s:
                self._polled[pack_id] = now
                new, errors = watcher.poll(state)
                if errors:
                    self.errors[pack_id] = errors
                    log.warning("pack %s: edit refused, still playing the last good version:\n  %s", pack_id,
                                "\n  ".join(errors))
                elif new is not None:
                    self._packs[pack_id] = new
                    self.errors.pop(pack_id, None)
                    log.info("pack %s reloaded (%s)", pack_id, new.content_hash)
            pack = self._packs[pack_id]
            previous = self._campaign_packs.get(state.campaign.id)
            if previous is not None and previous is not pack and state_problems(pack, state):
                return previous  # the new version does not fit this campaign: it keeps the one it played
            self._campaign_packs[state.campaign.id] = pack
            return pack

    def for_view(self, state: GameState) -> EraPack:
        """The pack to describe ``state`` with: the version the campaign last played, else the current one."""
        with self._lock:
            played = self._campaign_packs.get(state.campaign.id)
        return played or self.get(state.campaign.pack_id)

    def forget(self, campaign_id: str) -> None:
        with self._lock:
            self._campaign_packs.pop(campaign_id, None)


__all__ = ["PackCache", "PackError", "UnknownPackError"]
