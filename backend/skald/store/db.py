"""Opening a Skald save file: WAL, busy timeout, foreign keys, the schema check, migrations, and the read-only guard.

A connection from :func:`connect` is in ``PRAGMA query_only = ON`` mode. The only way to write is inside
:func:`writing`, which lifts the guard for one ``BEGIN IMMEDIATE`` transaction and restores it after,
committing on success and rolling back on any exception. Commit (and campaign creation) use it; any
other write fails with ``sqlite3.OperationalError: attempt to write a readonly database``.

Opening writes nothing to a save file that is up to date: the schema version is one read of ``PRAGMA
user_version``. A new or older file is migrated once, by one process, under an exclusive lock file
(``<save>.lock``, via ``filelock``), so many processes opening one new file at once all succeed. A file from a newer
Skald is refused with both versions named. ``readonly=True`` opens the file with ``mode=ro``: listing campaigns and
other reads never wait for, or take, the write lock.

Every failure that is about the file (not a database, damaged, locked, read-only, disk full) is raised as
:class:`~skald.errors.SaveFileError` (see :mod:`skald.store.faults`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from skald.errors import SaveFileError
from skald.store.faults import corrupt, raise_storage
from skald.store.schema import SCHEMA_VERSION, migrate, schema_version

BUSY_TIMEOUT_MS = 10_000
SYNCHRONOUS = ("NORMAL", "FULL")
MEMORY = ":memory:"


def connect(path: str | Path, *, readonly: bool = False, synchronous: str = "NORMAL") -> sqlite3.Connection:
    """Open the save file at ``path`` (creating and migrating it if needed, unless ``readonly``); ``":memory:"``
    works for tests. The connection is in autocommit mode (transactions are explicit) and usable from other threads.

    :param synchronous: SQLite's ``synchronous`` mode: ``NORMAL`` (a crash of the process loses nothing committed;
        a power loss may lose the last turns) or ``FULL`` (also survives power loss, one more fsync per turn).
    :raises SaveFileError: the file is not a database, is from a newer Skald, is locked past the busy timeout,
        cannot be created or read, or (``readonly``) does not exist.
    """
    if synchronous not in SYNCHRONOUS:
        raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}, not {synchronous!r}")
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
    """Refuse a newer schema; bring an older (or new, empty) file up to date exactly once across processes."""
    version = _checked_version(conn, path)
    if version == SCHEMA_VERSION:
        return
    if memory:
        conn.execute("PRAGMA query_only = OFF")
        migrate(conn)
        return
    if readonly:  # upgrade through a writable connection first, then read
        connect(path).close()
        _checked_version(conn, path)
        return
    from filelock import FileLock

    with FileLock(f"{path}.lock", timeout=BUSY_TIMEOUT_MS / 1000):
        if _checked_version(conn, path) < SCHEMA_VERSION:  # another process may have migrated while we waited
            conn.execute("PRAGMA journal_mode = WAL")
            migrate(conn)


def _checked_version(conn: sqlite3.Connection, path: str | Path) -> int:
    version = schema_version(conn)
    if version > SCHEMA_VERSION:
        raise SaveFileError(path, "newer_schema", f"was written by a newer Skald (schema version {version}; this "
                            f"Skald knows up to {SCHEMA_VERSION}). It was not changed: upgrade Skald to play it")
    return version


def verify(conn: sqlite3.Connection, path: str | Path, *, full: bool = False) -> None:
    """Check the file's structure: ``PRAGMA quick_check`` (``integrity_check`` with ``full``, as ``skald doctor``
    runs it). Run once when a save file is opened for play, before anything is written to it.

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


def check(conn: sqlite3.Connection) -> int:
    """Read the schema version and touch the campaigns table: a cheap proof the database answers (``/health``).
    :raises sqlite3.Error: it does not."""
    conn.execute("SELECT 1 FROM campaigns LIMIT 1").fetchone()
    return schema_version(conn)


@contextmanager
def writing(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: lift ``query_only``, ``BEGIN IMMEDIATE``, COMMIT or ROLLBACK, restore the guard."""
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
