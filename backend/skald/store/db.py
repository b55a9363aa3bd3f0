"""The store's front: opening a store (a SQLite save file, or a PostgreSQL database) and the few things that differ
between them, each handed to the connection's backend (the storage port, :mod:`skald.store.backend`: SQLite in
:mod:`skald.store.sqlite`, PostgreSQL in :mod:`skald.store.postgres`). No caller asks which database it is on.

A connection from :func:`connect` refuses writes outside :func:`writing`, which runs one transaction, committed on
success and rolled back on any exception; Commit (and campaign creation) use it. Every failure that is about the
store (not a database, damaged, locked, read-only, disk full, unreachable) is raised as
:class:`~skald.errors.SaveFileError` (see :mod:`skald.store.faults`).

A target is a save file's path (or ``sqlite:///path``) or a PostgreSQL URL (``postgresql://...``); the rest of the
store writes its SQL once, in the dialect both speak.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from skald.store import backend, schema
from skald.store.backend import Connection
from skald.store.sqlite import SYNCHRONOUS
from skald.store_targets import MEMORY, SQLITE_URL, target

T = TypeVar("T")
__all__ = ["MEMORY", "SQLITE_URL", "target"]  # the targets' names, read here too


def connect(path: str | Path, *, readonly: bool = False, synchronous: str = "NORMAL") -> Any:
    """Open the store ``path`` names (:func:`target`; ``":memory:"`` works for tests), creating its schema or bringing
    it up to date unless ``readonly``. The connection is in autocommit mode (transactions are explicit) and usable
    from other threads.

    :param synchronous: SQLite's ``synchronous`` mode: ``NORMAL`` (a crash of the process loses nothing committed;
        a power loss may lose the last turns) or ``FULL`` (also survives power loss, one more fsync per turn).
        PostgreSQL keeps its server's settings.
    :raises SaveFileError: the store cannot be opened, is damaged, or holds another schema than this Skald's.
    :raises ValueError: ``synchronous`` is not one of :data:`SYNCHRONOUS`, or the target's scheme is unknown.
    """
    if synchronous not in SYNCHRONOUS:
        raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}, not {synchronous!r}")
    path = target(path)
    return backend.for_target(path).connect(path, readonly=readonly, synchronous=synchronous)


def open_pool(path: str | Path, *, readonly: bool = False, synchronous: str = "NORMAL") -> Any:
    """The pool for ``path`` (a save file, ``sqlite:///path`` or a PostgreSQL URL; :func:`target`): a shared
    connection for ``":memory:"`` and a pool of connections for a save file (``store.pool``), or
    ``store.postgres.PgPool`` for PostgreSQL. ``synchronous`` is SQLite's only (PostgreSQL keeps its server's
    settings). Each has ``connection()`` (a context manager lending one) and ``close()``."""
    path = target(path)
    return backend.for_target(path).open_pool(path, readonly=readonly, synchronous=synchronous)


def verify(conn: Connection, path: str | Path, *, full: bool = False) -> None:
    """Check the store's own structure before anything is written to it (SQLite: ``PRAGMA quick_check``, or
    ``integrity_check`` with ``full``, as ``skald doctor`` runs it; PostgreSQL checks its own pages).

    :raises SaveFileError: it is damaged (reason ``corrupt``) or cannot be read.
    """
    backend.of(conn).verify(conn, path, full=full)


def missing_tables(conn: Connection) -> list[str]:
    """The tables of this schema (``schema.TABLES``) the store does not have; empty when it has them all."""
    return schema.missing(tables(conn))


def check(conn: Connection) -> int:
    """Read the schema version and touch the campaigns table: a cheap proof the database answers (``/health``).
    :raises sqlite3.Error: it does not."""
    conn.execute("SELECT 1 FROM campaigns LIMIT 1").fetchone()
    return version_of(conn)


def version_of(conn: Connection) -> int:
    """The store's schema version (SQLite: ``PRAGMA user_version``; PostgreSQL: the ``skald_schema`` row)."""
    return backend.of(conn).version(conn)


def tables(conn: Connection) -> list[str]:
    """The store's tables, by name (not the database's own, nor the migration and version bookkeeping)."""
    return backend.of(conn).tables(conn)


def columns(conn: Connection, table: str) -> list[str]:
    """The table's columns in order (PostgreSQL's ``row_order`` stand-in for row ids left out: it is no data)."""
    return backend.of(conn).columns(conn, table)


def primary_key(conn: Connection, table: str) -> list[str]:
    """The table's primary key columns, in key order."""
    return backend.of(conn).primary_key(conn, table)


def packed(conn: Connection, text: str | None) -> Any:
    """A bulky text column's value (``store.packing.COLUMNS``: a turn's prose and JSON records, a state snapshot) as
    ``conn``'s store keeps it: compressed in a SQLite save file when that is shorter, as it is on PostgreSQL.
    ``store.packing.unpack`` reads either."""
    return backend.of(conn).packed(text)


def write_retrying(work: Callable[[], T], conn: Connection) -> T:
    """Run ``work`` (a whole write transaction: it opens :func:`writing` itself) again when it failed for a reason
    that rolled it back whole and may pass on a second run (PostgreSQL's serialization failure or deadlock, a
    bounded number of times); any other error, and the last transient one, are raised. A run that committed is never
    run again, so a turn is never played twice; on SQLite nothing is transient (the busy timeout waits instead), and
    ``work`` runs once."""
    return backend.of(conn).write_retrying(work)


@contextmanager
def read_snapshot(conn: Connection) -> Iterator[None]:
    """A read transaction: every read inside sees the store as of its first read (SQLite: a deferred ``BEGIN``
    under WAL; PostgreSQL: ``REPEATABLE READ READ ONLY``). Nested use reads inside the outer transaction."""
    if conn.in_transaction:
        yield
        return
    backend.of(conn).snapshot(conn)
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


@contextmanager
def writing(conn: Connection, campaign: str | None = None) -> Iterator[Connection]:
    """One write transaction, committed on success and rolled back on any exception. SQLite: ``BEGIN IMMEDIATE``,
    the one writer of the file. PostgreSQL: READ COMMITTED with, given ``campaign``, that campaign's row locked, so
    its writers follow each other as SQLite's do.

    :raises SaveFileError: the store was opened read-only (PostgreSQL; SQLite's read-only files refuse the write).
    """
    with backend.of(conn).writing(conn, campaign):
        yield conn
