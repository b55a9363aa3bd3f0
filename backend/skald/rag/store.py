"""The lore index: one Chroma collection per pack in a persistent store, kept in step with the pack's files.

Each collection (``skald-<pack>``, cosine space) records in its metadata the embedding model that made its
vectors, the chunker version and a manifest of the sources it holds (path -> content hash, see
:mod:`skald.rag.chunking`). :func:`ingest` is incremental: an unchanged source is skipped, a changed one has its
old chunks deleted and is chunked again, a source that no longer exists has its chunks removed. A collection
made by another embedding model (or chunker version) is dropped and rebuilt, never mixed.

Chunks of a source are always deleted (by ``path``) before being written, and the manifest is written after
every source, so an interrupted ingest leaves an index that the next ingest repairs.

A process has one Chroma client per store folder, made under a lock the first time any thread needs it and shared
by every :class:`LoreIndex` on that folder (Chroma's clients are thread-safe, but making two for one folder at once is
not: its ``SharedSystemClient`` caches one ``System`` per folder without a lock, so a second thread can get that
system before it has started, or lose it to the first's clean-up, which showed as ``'RustBindingsAPI' object has no
attribute 'bindings'`` or ``KeyError: '<folder>'``). Calls into the store run inside :meth:`LoreIndex.using`, so that
:func:`close_stores` can wait for them before it closes the clients: a thread still inside Chroma's native code when
the interpreter finalizes kills the process (``skald.shutdown``).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import skald.shutdown  # noqa: F401 - registers close_all at exit, which closes every store
from skald.core.pack import EraPack
from skald.rag.chunking import CHUNKER_VERSION, Source, pack_sources, source_hashes
from skald.rag.embeddings import Embedder

State = Literal["ok", "missing", "stale"]
Progress = Callable[[str, int, int, str], None]  # (pack id, sources done, sources total, path just done)


def collection_name(pack_id: str) -> str:
    """``skald-<pack>``, made valid for Chroma (3-512 chars of ``[a-zA-Z0-9._-]``, alphanumeric at both ends)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", pack_id).strip("._-") or "pack"
    return f"skald-{safe}"[:512]


@dataclass(frozen=True)
class IndexStatus:
    state: State
    reason: str = ""


@dataclass
class IngestReport:
    """Counts of sources (documents, quests, rumors) per outcome; ``chunks`` is the number of chunks written."""

    added: int = 0
    updated: int = 0
    skipped: int = 0
    removed: int = 0
    seconds: float = 0.0
    chunks: int = 0
    rebuilt: dict[str, str] = field(default_factory=dict)  # pack id -> why its collection was dropped first
    packs: dict[str, IngestReport] = field(default_factory=dict)

    def add(self, other: IngestReport) -> None:
        for name in ("added", "updated", "skipped", "removed", "chunks"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def summary(self) -> str:
        return (f"{self.added} added, {self.updated} updated, {self.skipped} unchanged, {self.removed} removed; "
                f"{self.chunks} chunks written in {self.seconds:.2f} s")


class IndexClosed(RuntimeError):
    """The store was closed by :func:`close_stores` (the process is ending); open a new :class:`LoreIndex`."""


@dataclass(eq=False)
class _Folder:
    """One store folder of this process: its Chroma client (made on first use) and the calls in progress on it."""

    path: Path
    client: Any = None
    busy: int = 0
    closed: bool = False


_FOLDERS: dict[Path, _Folder] = {}
_LOCK = threading.Condition()  # guards _FOLDERS and every folder's fields; notified when a call ends


def _folder(path: Path) -> _Folder:
    key = path.resolve()
    with _LOCK:
        return _FOLDERS.setdefault(key, _Folder(key))


def close_stores(timeout: float | None = None) -> bool:
    """Close every Chroma client of the process, for a process that is ending: no new call starts (they raise
    :class:`IndexClosed`), the calls in progress are waited for (``timeout`` seconds at most, None: as long as they
    take; a lane's calls take milliseconds), then each client is closed. A folder still busy at the timeout keeps its
    client open. Idempotent; a :class:`LoreIndex` made afterwards opens its folder again.

    :returns: True when every client was closed."""
    with _LOCK:
        folders = list(_FOLDERS.values())
        _FOLDERS.clear()
        for folder in folders:
            folder.closed = True
        _LOCK.wait_for(lambda: all(f.busy == 0 for f in folders), timeout)
        idle = [f for f in folders if f.busy == 0]
        clients = [f.client for f in idle if f.client is not None]
        for folder in idle:
            folder.client = None
    for client in clients:
        client.close()
    return len(idle) == len(folders)


class LoreIndex:
    """The Chroma store at ``path``, embedded with ``embed``. Opening it creates nothing; :func:`ingest` does.
    Thread-safe: every index on one folder shares the process's one client for it."""

    def __init__(self, path: Path | str, embed: Embedder) -> None:
        self.path = Path(path)
        self.embed = embed
        self._folder = _folder(self.path)

    # --- the store -------------------------------------------------------------------------------------------
    def exists(self) -> bool:
        return (self.path / "chroma.sqlite3").is_file()

    @property
    def client(self) -> Any:
        """The process's Chroma client for this folder (made, and the folder created, on first use; a call that
        began before :func:`close_stores` keeps it until it ends).

        :raises IndexClosed: :func:`close_stores` closed it, or began to before it was made."""
        folder = self._folder
        with _LOCK:
            if folder.client is None:
                if folder.closed:
                    raise IndexClosed(f"the lore index at {self.path} was closed")
                import chromadb

                folder.path.mkdir(parents=True, exist_ok=True)
                folder.client = chromadb.PersistentClient(path=str(folder.path),
                                                          settings=chromadb.Settings(anonymized_telemetry=False))
            return folder.client

    @contextmanager
    def using(self) -> Iterator[None]:
        """Hold the store open while the block runs: :func:`close_stores` waits for it to end.

        :raises IndexClosed: the store was closed before the block started."""
        folder = self._folder
        with _LOCK:
            if folder.closed:
                raise IndexClosed(f"the lore index at {self.path} was closed")
            folder.busy += 1
        try:
            yield
        finally:
            with _LOCK:
                folder.busy -= 1
                _LOCK.notify_all()

    def collection(self, pack_id: str) -> Any | None:
        """The pack's collection, or ``None`` when the store or the collection does not exist, or when it was
        made by another kind of embedding function (which Chroma refuses to open with this one)."""
        if not self.exists():
            return None
        from chromadb.errors import NotFoundError

        try:
            return self.client.get_collection(collection_name(pack_id), embedding_function=self.embed)
        except NotFoundError:
            return None
        except ValueError as exc:  # Chroma: "embedding function conflict" (made by another kind of embedder)
            return _Foreign(str(exc))

    def packs(self) -> list[str]:
        """Pack ids with a collection in the store."""
        if not self.exists():
            return []
        return sorted(str(m.get("pack", c.name)) for c in self.client.list_collections()
                      if (m := c.metadata or {}).get("skald") == "lore")

    def drop(self, pack_id: str) -> bool:
        """Delete the pack's collection; ``False`` when there was none."""
        if not self.exists():
            return False
        from chromadb.errors import NotFoundError

        try:
            self.client.delete_collection(collection_name(pack_id))
        except NotFoundError:
            return False
        return True

    def create(self, pack_id: str) -> Any:
        return self.client.create_collection(
            collection_name(pack_id), embedding_function=self.embed, configuration={"hnsw": {"space": "cosine"}},
            metadata=self._metadata(pack_id, {}))

    def _metadata(self, pack_id: str, manifest: dict[str, str]) -> dict[str, Any]:
        return {"skald": "lore", "pack": pack_id, "embedding_model": self.embed.model_name,
                "chunker": CHUNKER_VERSION, "manifest": json.dumps(manifest, sort_keys=True)}

    def write_manifest(self, collection: Any, pack_id: str, manifest: dict[str, str]) -> None:
        collection.modify(metadata=self._metadata(pack_id, manifest))  # modify replaces the whole metadata

    # --- state -----------------------------------------------------------------------------------------------
    def check(self, pack: EraPack) -> IndexStatus:
        """``ok``, ``missing`` or ``stale`` (the pack's sources differ from the manifest, or another embedding
        model or chunker made the index), with the reason."""
        collection = self.collection(pack.id)
        if collection is None:
            return IndexStatus("missing", "no index")
        mismatch = self.mismatch(collection)
        if mismatch:
            return IndexStatus("stale", mismatch)
        manifest = read_manifest(collection)
        current = source_hashes(pack)
        if manifest != current:
            changed = sorted(p for p in set(manifest) | set(current) if manifest.get(p) != current.get(p))
            shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
            return IndexStatus("stale", f"files changed since ingest: {shown}")
        return IndexStatus("ok")

    def status(self, pack: EraPack) -> State:
        return self.check(pack).state

    def mismatch(self, collection: Any) -> str:
        """Why the collection cannot be used with this embedder, or ``""``."""
        if isinstance(collection, _Foreign):
            return f"embedding model changed ({collection.reason})"
        meta = collection.metadata or {}
        if meta.get("embedding_model") != self.embed.model_name:
            return f"embedding model changed: indexed with {meta.get('embedding_model')}, now {self.embed.model_name}"
        if meta.get("chunker") != CHUNKER_VERSION:
            return f"chunker changed: indexed with version {meta.get('chunker')}, now {CHUNKER_VERSION}"
        return ""


@dataclass(frozen=True)
class _Foreign:
    """A collection Chroma would not open with our embedding function (made by another kind of embedder)."""

    reason: str
    metadata: dict[str, Any] = field(default_factory=dict)


def read_manifest(collection: Any) -> dict[str, str]:
    try:
        value = json.loads((collection.metadata or {}).get("manifest") or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def ingest(index: LoreIndex, packs: Iterable[EraPack], rebuild: bool = False,
           progress: Progress | None = None) -> IngestReport:
    """Bring each pack's collection up to date with its documents, quests and rumors.

    :param rebuild: drop each pack's collection first and index everything again.
    :param progress: called after each source as ``progress(pack_id, done, total, path)``.
    :returns: totals, with one report per pack in ``packs`` and the packs rebuilt (with why) in ``rebuilt``.
    :raises IndexClosed: the process is closing its stores (:func:`close_stores`).
    """
    total = IngestReport()
    started = time.perf_counter()
    with index.using():
        for pack in packs:
            report = _ingest_pack(index, pack, rebuild, progress)
            total.packs[pack.id] = report
            total.rebuilt.update(report.rebuilt)
            total.add(report)
    total.seconds = time.perf_counter() - started
    return total


def _ingest_pack(index: LoreIndex, pack: EraPack, rebuild: bool, progress: Progress | None) -> IngestReport:
    started = time.perf_counter()
    report = IngestReport()
    sources = pack_sources(pack)
    collection = index.collection(pack.id)
    if collection is not None:
        why = "--rebuild" if rebuild else index.mismatch(collection)
        if why:
            index.drop(pack.id)
            report.rebuilt[pack.id] = why
            collection = None
    if collection is None:
        collection = index.create(pack.id)
    manifest = read_manifest(collection)
    batch = max(1, int(index.client.get_max_batch_size()))
    for done, source in enumerate(sources, 1):
        if manifest.get(source.path) == source.hash:
            report.skipped += 1
        else:
            if source.path in manifest:
                report.updated += 1
            else:
                report.added += 1
            report.chunks += _write(index, collection, source, batch)
            manifest[source.path] = source.hash
            index.write_manifest(collection, pack.id, manifest)
        if progress:
            progress(pack.id, done, len(sources), source.path)
    current = {source.path for source in sources}
    for path in sorted(set(manifest) - current):
        collection.delete(where={"path": path})
        del manifest[path]
        report.removed += 1
        index.write_manifest(collection, pack.id, manifest)
    report.seconds = time.perf_counter() - started
    return report


def _write(index: LoreIndex, collection: Any, source: Source, batch: int) -> int:
    collection.delete(where={"path": source.path})
    if not source.chunks:
        return 0
    vectors = index.embed.embed([chunk.for_embedding for chunk in source.chunks])
    for start in range(0, len(source.chunks), batch):
        part = source.chunks[start:start + batch]
        collection.add(ids=[c.id for c in part], documents=[c.text for c in part],
                       metadatas=[c.metadata for c in part], embeddings=vectors[start:start + batch])
    return len(source.chunks)
