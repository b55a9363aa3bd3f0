"""The era packs an engine plays: loaded once per pack, or with reloading on, swapped in when their files change
(``packs.watch.PackWatcher``), keeping the last good version when an edit has errors or no longer fits a campaign.

Used by the engine for every frontend: ``skald play --watch`` (polled before every turn) and ``skald serve
--reload-packs`` (polled at most every ``poll_s`` seconds).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from skald.core.pack import EraPack
from skald.packs.loader import PackError, available_packs, get_pack
from skald.packs.watch import PackWatcher

log = logging.getLogger("skald.packs")

Notice = Callable[[str, list[str]], None]  # (pack id, lines to show) after a reload or a refused edit


class UnknownPackError(LookupError):
    """Not one of the shipped packs (``available_packs()``), and loading from a folder is not allowed here (the API
    never loads a pack from an arbitrary path)."""


class PackCache:
    """Packs by id.

    :param reload: poll each pack's files before a turn (at most every ``poll_s`` seconds) and swap in a good edit.
    :param allow_paths: accept a pack folder as well as a shipped pack id (the terminal; never the API).
    :param on_notice: called with (pack id, lines) when a pack is reloaded or an edit is refused; default: logged.
    """

    def __init__(self, reload: bool = False, poll_s: float = 1.0, allow_paths: bool = False,
                 on_notice: Notice | None = None):
        self.reload = reload
        self.poll_s = poll_s
        self.allow_paths = allow_paths
        self.on_notice = on_notice or _log_notice
        self._packs: dict[str, EraPack] = {}
        self._watchers: dict[str, PackWatcher] = {}
        self._polled: dict[str, float] = {}
        self._campaign_packs: dict[str, EraPack] = {}  # the pack each campaign last played (reload mode)
        self.errors: dict[str, list[str]] = {}  # the last refused edit's problems per pack id
        self._lock = threading.Lock()

    def ids(self) -> list[str]:
        return available_packs()

    def get(self, ref: str | Path) -> EraPack:
        """The pack with id ``ref`` (or, with ``allow_paths``, loaded from the folder ``ref``).

        :raises UnknownPackError: not a shipped pack (and folders are not allowed). :raises PackError: it does not
            load.
        """
        key = str(ref)
        with self._lock:
            if key in self._packs:
                return self._packs[key]
        if not self.allow_paths and key not in available_packs():
            raise UnknownPackError(key)
        pack = get_pack(ref)
        with self._lock:
            pack = self._packs.setdefault(pack.id, pack)
            self._packs.setdefault(key, pack)
            if self.reload and pack.id not in self._watchers:
                self._watchers[pack.id] = PackWatcher(ref, current=pack)
                self._polled[pack.id] = time.monotonic() - self.poll_s
        return pack

    def for_turn(self, campaign_id: str, pack_id: str, fits: Callable[[EraPack], list[str]]) -> EraPack:
        """The pack to play the campaign's next turn with: reloaded first when its files changed and the edit loads
        and ``fits(pack)`` finds nothing the campaign would lose."""
        pack = self.get(pack_id)
        if not self.reload:
            return pack
        with self._lock:
            watcher = self._watchers[pack.id]
            now = time.monotonic()
            if now - self._polled[pack.id] >= self.poll_s:
                self._polled[pack.id] = now
                new, problems = watcher.poll(fits)
                if problems:
                    self.errors[pack.id] = problems
                    self.on_notice(pack.id, ["pack edit has errors; still playing the last good version:",
                                             *(f"  {p}" for p in problems)])
                elif new is not None:
                    for key, held in list(self._packs.items()):
                        if held.id == pack.id:
                            self._packs[key] = new
                    self.errors.pop(pack.id, None)
                    self.on_notice(pack.id, [f"pack reloaded ({new.id}, {new.content_hash})"])
            current = self._packs[pack.id]
            previous = self._campaign_packs.get(campaign_id)
            if previous is not None and previous is not current:
                problems = fits(current)
                if problems:  # the new version does not fit this campaign: it keeps the one it played
                    self.on_notice(pack.id, ["pack edit does not fit this campaign; still playing the last good "
                                             "version:", *(f"  {p}" for p in problems)])
                    return previous
            self._campaign_packs[campaign_id] = current
            return current

    def for_view(self, campaign_id: str, pack_id: str) -> EraPack:
        """The pack to describe a campaign with: the version it last played, else the current one."""
        with self._lock:
            played = self._campaign_packs.get(campaign_id)
        return played or self.get(pack_id)

    def forget(self, campaign_id: str) -> None:
        with self._lock:
            self._campaign_packs.pop(campaign_id, None)


def _log_notice(pack_id: str, lines: list[str]) -> None:
    log.warning("pack %s: %s", pack_id, "\n  ".join(lines))


__all__ = ["PackCache", "PackError", "UnknownPackError"]
