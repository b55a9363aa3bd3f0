"""Hot reload of an era pack while playing (``skald play --watch``).

:class:`PackWatcher` is polled before each turn. It compares a cheap fingerprint (path, size and modification
time of each file the loader reads, over the pack and the packs it extends) with the last one; only when that
changes does it hash the contents, and only when those changed does it reload the pack. A pack that fails to load,
or that no longer fits the running campaign (the player's location or an active quest was removed, ...), is
reported and the last good pack stays in use.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from skald.core.pack import EraPack
from skald.packs.loader import DOC_FOLDERS, FILES, PackError, load_pack, pack_layers, resolve_pack_dir

Fingerprint = tuple[tuple[str, int, int], ...]


def pack_files(pack: str | Path) -> list[Path]:
    """The files the loader reads (the YAML files and lore/style/voices documents) of the pack and its bases;
    editor swap and backup files are left out. Never raises: a pack whose ``extends`` is broken gives its own
    folder's files, and a missing folder none."""
    try:
        roots = pack_layers(pack)
    except PackError:
        try:
            roots = [resolve_pack_dir(pack)]
        except PackError:
            return []
    files = []
    for root in roots:
        files += [root / name for name in FILES if (root / name).is_file()]
        for folder in DOC_FOLDERS:
            files += sorted((root / folder).glob("*.md"))
    return files


def fingerprint(pack: str | Path) -> Fingerprint:
    """(path, size, mtime_ns) of every file the pack is loaded from: cheap, no file is read."""
    out = []
    for path in pack_files(pack):
        try:
            stat = path.stat()
        except OSError:  # deleted while we looked
            continue
        out.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(out)


def digest(pack: str | Path) -> str:
    """A hash of the contents of the files the pack is loaded from (read only after the fingerprint changed)."""
    sha = hashlib.sha256()
    for path in pack_files(pack):
        try:
            sha.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            continue
    return sha.hexdigest()


class PackWatcher:
    """Reload ``pack`` (an id or a folder) when its files change.

    ``poll()`` returns ``(new_pack, [])`` after a successful reload, ``(None, errors)`` when the edited pack has
    errors (reported once per edit; the caller keeps its last good pack), and ``(None, [])`` when nothing changed.
    """

    def __init__(self, pack: str | Path, current: EraPack | None = None):
        self.pack = pack
        self.current = current
        self._stamp = fingerprint(pack)
        self._digest = digest(pack)

    def changed(self) -> bool:
        """Whether the files changed since the last poll (cheap: stats only)."""
        return fingerprint(self.pack) != self._stamp

    def poll(self, fits: Callable[[EraPack], list[str]] | None = None) -> tuple[EraPack | None, list[str]]:
        """Reload if the files changed. ``fits(pack)`` lists what a running campaign would lose with the new pack
        (``rules.pack_fit.problems``); a pack with any such problem is refused."""
        stamp = fingerprint(self.pack)
        if stamp == self._stamp:
            return None, []
        self._stamp = stamp
        content = digest(self.pack)
        if content == self._digest:
            return None, []  # touched or saved without a change
        self._digest = content
        try:
            pack = load_pack(self.pack)
        except PackError as exc:
            return None, [str(issue) for issue in exc.issues] or [str(exc)]
        except Exception as exc:  # noqa: BLE001 - keep playing; the designer sees what went wrong
            return None, [f"unexpected error while loading: {type(exc).__name__}: {exc}"]
        problems = fits(pack) if fits is not None else []
        if problems:
            return None, problems
        self.current = pack
        return pack, []
