"""The storage port: what the store does differently on each database, as one interface (:class:`Backend`) with two
implementations, SQLite (:data:`skald.store.sqlite.SQLITE`, a save file) and PostgreSQL
(:data:`skald.store.postgres.POSTGRES`). The rest of the store writes its SQL once, in the dialect both speak, and
asks a connection's backend (:func:`of`) for the rest; ``store.db`` is the front that does so, so no caller branches
on the database.

To add a backend: implement every method of :class:`Backend` (its docstrings say what each must guarantee), give its
connections a ``backend`` attribute naming it, teach :func:`for_target` its URLs, and run the store's tests on it
(``tests/postgres.py`` shows how the PostgreSQL ones start their own server).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from skald.store import postgres, sqlite  # neither imports this module, nor psycopg until a store is opened

T = TypeVar("T")


class Connection(Protocol):
    """What the store uses of a connection (``sqlite3.Connection`` and ``postgres.PgConnection`` both are one):
    ``?`` placeholders, rows readable by position and by column name, autocommit mode (transactions are explicit)."""

    in_transaction: bool

    def execute(self, sql: str, params: Sequence[Any] = ...) -> Any: ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any: ...

    def close(self) -> None: ...


class Backend(Protocol):
    """One database the store can run on."""

    name: str  # "sqlite" | "postgresql"

    def connect(self, target: str | Path, *, readonly: bool, synchronous: str) -> Connection:
        """Open ``target`` (the schema created or brought up to date unless ``readonly``).
        :raises SaveFileError: it cannot be opened, is damaged, or holds another schema than this Skald's."""

    def open_pool(self, target: str | Path, *, readonly: bool, synchronous: str) -> Any:
        """Connections to ``target`` lent one at a time (``pool.connection()`` is a context manager)."""

    def verify(self, conn: Connection, path: str | Path, *, full: bool = False) -> None:
        """Check the storage's own structure, before anything is written. :raises SaveFileError: it is damaged."""

    def version(self, conn: Connection) -> int:
        """The schema version the store holds."""

    def tables(self, conn: Connection) -> list[str]:
        """The store's tables by name (not the database's own, nor schema bookkeeping)."""

    def columns(self, conn: Connection, table: str) -> list[str]:
        """The table's data columns, in order."""

    def primary_key(self, conn: Connection, table: str) -> list[str]:
        """The table's primary key columns, in key order."""

    def packed(self, text: str | None) -> Any:
        """A bulky text column's value (``store.packing.COLUMNS``) as this backend stores it; ``packing.unpack``
        reads it back."""

    def snapshot(self, conn: Connection) -> None:
        """Begin a read transaction in which every read sees the store as of its first one."""

    def writing(self, conn: Connection, campaign: str | None) -> AbstractContextManager[Connection]:
        """One write transaction, committed on success and rolled back on any exception; with ``campaign``, that
        campaign's writers follow each other. :raises SaveFileError: the store was opened read-only."""

    def write_retrying(self, work: Callable[[], T]) -> T:
        """Run ``work`` (a whole write transaction), again when it failed for a reason that rolled it back whole and
        may pass on a second run (never after it committed); otherwise once."""


def for_target(target: str | Path) -> Backend:
    """The backend of a target as ``store.db.target`` gives it: PostgreSQL for a ``postgresql://`` URL, else SQLite."""
    return postgres.POSTGRES if postgres.is_url(target) else sqlite.SQLITE


def of(conn: object) -> Backend:
    """The backend a connection belongs to: its ``backend`` attribute (a ``sqlite3.Connection`` has none: SQLite)."""
    return getattr(conn, "backend", None) or sqlite.SQLITE
