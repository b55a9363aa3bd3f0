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

**Two stores, one interface.** A target is a save file's path (or ``sqlite:///path``) or a PostgreSQL URL
(``postgresql://...``, :mod:`skald.store.postgres`). The functions here that differ by dialect (:func:`connect`,
:func:`writing`, :func:`read_snapshot`, :func:`version_of`, :func:`tables`, :func:`columns`) take either connection;
the rest of the store writes its SQL once.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote

from skald.errors import SaveFileError
from skald.store.faults import corrupt, raise_storage
from skald.store.schema import SCHEMA_VERSION, TABLES, migrate, schema_version

T = TypeVar("T")
BUSY_TIMEOUT_MS = 10_000
SYNCHRONOUS = ("NORMAL", "FULL")
MEMORY = ":memory:"
SQLITE_URL = "sqlite:///"
POSTGRESQL = "postgresql"
RETRIES = 3  # runs of a write transaction that failed for a transient reason (PostgreSQL serialization, deadlock)


def target(db: str | Path) -> str | Path:
    """What a ``--db`` value or ``SKALD_DB_URL`` names: a PostgreSQL URL (kept as a string), or a save file's path
    (``sqlite:///data/saves/skald.db`` → ``data/saves/skald.db``; ``sqlite:////abs/path`` for an absolute one).

    :raises ValueError: a URL of another scheme.
    """
    from skald.store.postgres import is_url

    text = str(db)
    if is_url(text):
        return text
    if text.startswith(SQLITE_URL):
        return Path(text[len(SQLITE_URL):]) if text != f"{SQLITE_URL}{MEMORY}" else MEMORY
    if "://" in text:
        raise ValueError(f"{text.split('://')[0]}:// is not a store Skald knows: use sqlite:///PATH or "
                         "postgresql://USER@HOST:PORT/DATABASE")
    return db


def is_postgres(conn: object) -> bool:
    """Whether ``conn`` is a PostgreSQL connection (:class:`skald.store.postgres.PgConnection`)."""
    return getattr(conn, "dialect", None) == POSTGRESQL


def connect(path: str | Path, *, readonly: bool = False, synchronous: str = "NORMAL") -> sqlite3.Connection:
    """Open the save file at ``path`` (creating and migrating it if needed, unless ``readonly``); ``":memory:"``
    works for tests. The connection is in autocommit mode (transactions are explicit) and usable from other threads.
    A PostgreSQL URL (or ``sqlite:///path``, see :func:`target`) opens that store instead: one
    :class:`~skald.store.postgres.PgConnection`, the schema created in an empty database.

    :param synchronous: SQLite's ``synchronous`` mode: ``NORMAL`` (a crash of the process loses nothing committed;
        a power loss may lose the last turns) or ``FULL`` (also survives power loss, one more fsync per turn).
    :raises SaveFileError: the file is not a database, is from a newer Skald, is locked past the busy timeout,
        cannot be created or read, or (``readonly``) does not exist.
    """
    if synchronous not in SYNCHRONOUS:
        raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}, not {synchronous!r}")
    path = target(path)
    if isinstance(path, str) and "://" in path:
        from skald.store import postgres

        postgres.ensure_schema(path, readonly=readonly)
        return postgres.PgConnection(postgres.open_raw(path), path, readonly=readonly)  # type: ignore[return-value]
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
        connect(path).close()
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


def missing_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables of this schema (``schema.TABLES``) the store does not have; empty when it has them all."""
    have = set(tables(conn))
    return [t for t in TABLES if t not in have]


def _check_tables(conn: sqlite3.Connection, path: str | Path) -> None:
    """Refuse an up-to-date save file that has lost a table (one read of ``sqlite_master``).

    :raises SaveFileError: reason ``damaged``, naming the tables.
    """
    missing = missing_tables(conn)
    if missing:
        raise SaveFileError(path, "damaged", f"is damaged: {tables_missing(missing)}, and no other table holds what it "
                            "did. Nothing in it was changed: restore the file from a copy")


def tables_missing(missing: list[str]) -> str:
    """'the table turns is missing' / 'the tables turns, branches are missing'."""
    plural = len(missing) > 1
    return f"the table{'s' if plural else ''} {', '.join(missing)} {'are' if plural else 'is'} missing"


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
    return version_of(conn)


def version_of(conn: sqlite3.Connection) -> int:
    """The store's schema version (SQLite: ``PRAGMA user_version``; PostgreSQL: the ``skald_schema`` row)."""
    if is_postgres(conn):
        return conn.execute("SELECT version FROM skald_schema").fetchone()[0]
    return schema_version(conn)


def tables(conn: sqlite3.Connection) -> list[str]:
    """The store's tables, by name (not SQLite's own, nor the migration and version bookkeeping)."""
    if is_postgres(conn):
        sql = ("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND "
               "table_type = 'BASE TABLE' AND table_name != 'skald_schema' ORDER BY table_name")
    else:
        sql = ("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND "
               "name != '_sqlite_migrations' ORDER BY name")
    return [r[0] for r in conn.execute(sql)]


def columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The table's columns in order (PostgreSQL's ``row_order`` stand-in for row ids left out: it is no data)."""
    if is_postgres(conn):
        return [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND "
            "table_name = ? AND column_name != 'row_order' ORDER BY ordinal_position", (table,))]
    return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]


def primary_key(conn: sqlite3.Connection, table: str) -> list[str]:
    """The table's primary key columns, in key order."""
    if is_postgres(conn):
        return [r[0] for r in conn.execute(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = "
            "ANY(i.indkey) WHERE i.indrelid = CAST(? AS regclass) AND i.indisprimary ORDER BY "
            "array_position(i.indkey, a.attnum)", (table,))]
    info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    return [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]


def write_retrying(work: Callable[[], T], conn: object = None) -> T:
    """Run ``work`` (a whole write transaction: it opens :func:`writing` itself) again, at most :data:`RETRIES`
    times in all, when it fails for a transient reason (PostgreSQL's serialization failure or deadlock, after which
    the transaction rolled back whole); any other error, and the last transient one, are raised. A run that
    committed is never run again, so a turn is never played twice; on SQLite (``conn`` a SQLite connection) nothing
    is transient (the busy timeout waits instead), and ``work`` runs once."""
    if conn is not None and not is_postgres(conn):
        return work()  # nothing to retry on SQLite: no tenacity machinery on the hot path
    from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

    from skald.store.postgres import transient

    for attempt in Retrying(retry=retry_if_exception(transient), stop=stop_after_attempt(RETRIES),
                            wait=wait_random_exponential(multiplier=0.02, max=0.2), reraise=True):
        with attempt:
            return work()
    raise AssertionError("unreachable: tenacity re-raises the last error")


@contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """A read transaction: every read inside sees the store as of its first read (SQLite: a deferred ``BEGIN``
    under WAL; PostgreSQL: ``REPEATABLE READ READ ONLY``). Nested use reads inside the outer transaction."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" if is_postgres(conn) else "BEGIN")
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


@contextmanager
def writing(conn: sqlite3.Connection, campaign: str | None = None) -> Iterator[sqlite3.Connection]:
    """One write transaction, committed on success and rolled back on any exception.

    SQLite: lift ``query_only``, ``BEGIN IMMEDIATE`` (the one writer of the file), restore the guard after.
    PostgreSQL: ``BEGIN READ WRITE`` (READ COMMITTED), then, with ``campaign``, lock that campaign's row (``FOR NO
    KEY UPDATE``) so its writers follow each other as SQLite's do; every statement after the lock sees what they
    committed.

    :raises SaveFileError: (PostgreSQL) the store was opened read-only.
    """
    if is_postgres(conn):
        with _writing_postgres(conn, campaign):
            yield conn
        return
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


@contextmanager
def _writing_postgres(conn, campaign: str | None) -> Iterator[None]:
    if conn.readonly:
        raise SaveFileError(conn.path, "read_only", "was opened read-only, for reading; this action was not saved "
                            "and nothing already saved was lost")
    conn.execute("BEGIN READ WRITE")
    try:
        if campaign is not None:
            conn.execute("SELECT 1 FROM campaigns WHERE id = ? FOR NO KEY UPDATE", (campaign,))
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
