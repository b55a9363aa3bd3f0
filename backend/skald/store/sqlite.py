"""The store on SQLite: a save file (WAL, a busy timeout, foreign keys, the schema check, migrations, and the
read-only guard), as the storage port's SQLite backend (:data:`SQLITE`; ``store.backend``).

A connection is in ``PRAGMA query_only = ON`` mode. The only way to write is inside :meth:`SqliteBackend.writing`,
which lifts the guard for one ``BEGIN IMMEDIATE`` transaction and restores it after, committing on success and
rolling back on any exception; any other write fails with ``sqlite3.OperationalError: attempt to write a readonly
database``.

Opening writes nothing to a save file that is up to date: the schema version is one read of ``PRAGMA user_version``.
A new or older file is migrated once, by one process, under an exclusive lock file (``<save>.lock``, via
``filelock``), so many processes opening one new file at once all succeed. A file from a newer Skald is refused with
both versions named. ``readonly=True`` opens the file with ``mode=ro``: listing campaigns and other reads never wait
for, or take, the write lock.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from skald.errors import SaveFileError
from skald.store import packing, schema
from skald.store.faults import corrupt, raise_storage, tables_missing
from skald.store.schema import SCHEMA_VERSION, migrate, schema_version
from skald.store_targets import MEMORY

T = TypeVar("T")
BUSY_TIMEOUT_MS = 10_000
SYNCHRONOUS = ("NORMAL", "FULL")


class SqliteBackend:
    """The store on a SQLite save file (``":memory:"`` for tests)."""

    name = "sqlite"

    def connect(self, path: str | Path, *, readonly: bool = False, synchronous: str = "NORMAL") -> sqlite3.Connection:
        """Open the save file at ``path`` (creating and migrating it if needed, unless ``readonly``). The connection
        is in autocommit mode (transactions are explicit) and usable from other threads.

        :param synchronous: SQLite's ``synchronous`` mode: ``NORMAL`` (a crash of the process loses nothing
            committed; a power loss may lose the last turns) or ``FULL`` (also survives power loss, one more fsync
            per turn).
        :raises SaveFileError: the file is not a database, is from a newer Skald, is locked past the busy timeout,
            cannot be created or read, or (``readonly``) does not exist.
        """
        memory = str(path) == MEMORY
        try:
            conn = _open(path, readonly=readonly, memory=memory)
            try:
                conn.execute(f"PRAGMA synchronous = {synchronous}")
                _ensure_schema(conn, path, readonly=readonly, memory=memory)
                conn.execute("PRAGMA query_only = ON")
            except BaseException:
                conn.close()
                raise
        except sqlite3.Error as exc:
            raise_storage(exc, path)
            raise
        return conn

    def open_pool(self, path: str | Path, *, readonly: bool = False, synchronous: str = "NORMAL") -> Any:
        """One shared connection for ``":memory:"``, else a pool of connections to the file (``store.pool``)."""
        from skald.store.pool import ConnectionPool, SharedConnection

        if str(path) == MEMORY:
            return SharedConnection(self.connect)
        return ConnectionPool(path, self.connect, self.verify, readonly=readonly, synchronous=synchronous)

    def verify(self, conn: sqlite3.Connection, path: str | Path, *, full: bool = False) -> None:
        """``PRAGMA quick_check`` (``integrity_check`` with ``full``, as ``skald doctor`` runs it). Run once when a
        save file is opened for play, before anything is written to it.

        :raises SaveFileError: the file is damaged (reason ``corrupt``) or cannot be read.
        """
        pragma = "integrity_check" if full else "quick_check"
        try:
            problems = [row[0] for row in conn.execute(f"PRAGMA {pragma}(5)")]
        except sqlite3.Error as exc:
            raise_storage(exc, path)
            raise
        if problems != ["ok"]:
            raise corrupt(path, "; ".join(problems))

    def version(self, conn: sqlite3.Connection) -> int:
        return schema_version(conn)  # PRAGMA user_version

    def tables(self, conn: sqlite3.Connection) -> list[str]:
        return [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND "
            "name != '_sqlite_migrations' ORDER BY name")]

    def columns(self, conn: sqlite3.Connection, table: str) -> list[str]:
        return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]

    def primary_key(self, conn: sqlite3.Connection, table: str) -> list[str]:
        info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
        return [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]

    def packed(self, text: str | None) -> str | bytes | None:
        return packing.pack(text)

    def snapshot(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN")  # deferred: under WAL, the first read fixes what every later read sees

    @contextmanager
    def writing(self, conn: sqlite3.Connection, campaign: str | None = None) -> Iterator[sqlite3.Connection]:
        """Lift ``query_only``, ``BEGIN IMMEDIATE`` (the one writer of the file), restore the guard after. A
        campaign's writers follow each other as every writer of the file does."""
        conn.execute("PRAGMA query_only = OFF")
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # the body or the COMMIT itself failed
                    conn.execute("ROLLBACK")
                raise
        finally:
            conn.execute("PRAGMA query_only = ON")

    def write_retrying(self, work: Callable[[], T]) -> T:
        return work()  # nothing is transient on SQLite (the busy timeout waits instead): no retry machinery


SQLITE = SqliteBackend()


def _open(path: str | Path, *, readonly: bool, memory: bool) -> sqlite3.Connection:
    if memory:
        target, uri = MEMORY, False
    elif readonly:
        if not Path(path).exists():
            raise SaveFileError(path, "cannot_open", "does not exist: play once to create it, or pass --db")
        # a file nobody may write cannot change under us: immutable lets SQLite read it without a -shm file
        flags = "mode=ro" if os.access(path, os.W_OK) else "mode=ro&immutable=1"
        target, uri = f"file:{quote(str(Path(path).resolve()))}?{flags}", True
    else:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        target, uri = str(path), False
    conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000,
                           uri=uri)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def _ensure_schema(conn: sqlite3.Connection, path: str | Path, *, readonly: bool, memory: bool) -> None:
    """Refuse a newer schema, and another application's database; bring an older (or new, empty) file up to date
    exactly once across processes."""
    version = _checked_version(conn, path)
    if version == SCHEMA_VERSION:
        _check_tables(conn, path)
        return
    if version == 0:
        foreign = foreign_tables(conn)
        if foreign:
            shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
            raise SaveFileError(path, "not_skald", f"is another application's SQLite database (tables: {shown}), not "
                                "a Skald save file. Nothing in it was changed: pass a Skald save file, or a new "
                                "path, with --db")
    if memory:
        conn.execute("PRAGMA query_only = OFF")
        migrate(conn)
        return
    if readonly:  # upgrade through a writable connection first, then read
        SQLITE.connect(path, readonly=False, synchronous="NORMAL").close()
        _checked_version(conn, path)
        return
    from filelock import FileLock

    with FileLock(f"{path}.lock", timeout=BUSY_TIMEOUT_MS / 1000):
        if _checked_version(conn, path) < SCHEMA_VERSION:  # another process may have migrated while we waited
            conn.execute("PRAGMA journal_mode = WAL")
            migrate(conn)


def foreign_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables of a SQLite file Skald never migrated (``user_version`` 0) that are not Skald's: another
    application's database, which Skald must neither migrate nor switch to WAL. Empty for a new file, and for a
    Skald file from before its first migration recorded itself."""
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                                        "'sqlite_%' ORDER BY name")]
    return [] if not names or "_sqlite_migrations" in names or "campaigns" in names else names


def _check_tables(conn: sqlite3.Connection, path: str | Path) -> None:
    """Refuse an up-to-date save file that has lost a table (one read of ``sqlite_master``).

    :raises SaveFileError: reason ``damaged``, naming the tables.
    """
    missing = schema.missing(SQLITE.tables(conn))
    if missing:
        raise SaveFileError(path, "damaged", f"is damaged: {tables_missing(missing)}, and no other table holds what it "
                            "did. Nothing in it was changed: restore the file from a copy")


def _checked_version(conn: sqlite3.Connection, path: str | Path) -> int:
    version = schema_version(conn)
    if version > SCHEMA_VERSION:
        raise SaveFileError(path, "newer_schema", f"was written by a newer Skald (schema version {version}; this "
                            f"Skald knows up to {SCHEMA_VERSION}). It was not changed: upgrade Skald to play it")
    return version
