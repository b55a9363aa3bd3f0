"""The PostgreSQL adapter of the store: a connection that reads and writes like the SQLite one, and a pool of them.

The store's SQL is written once, in the dialect both databases speak (upserts with ``ON CONFLICT``, ``RETURNING``,
recursive CTEs). :class:`PgConnection` runs it on PostgreSQL (psycopg 3) with the few differences made in one place,
:func:`translate`: ``?`` placeholders become ``%s`` (a literal ``%`` becomes ``%%``), and ``rowid`` (SQLite's order
of insertion) becomes ``row_order``, the identity column :mod:`skald.store.pg_schema` gives the tables read back in
that order. Rows read like ``sqlite3.Row``: by position, by column name, and ``dict(row)``.

**Errors.** The store's callers catch the DB-API 2.0 classes of the ``sqlite3`` module (``sqlite3.Error``,
``IntegrityError``, ``OperationalError``); a psycopg error is raised as a subclass of the matching one
(:class:`PgIntegrityError`...), chained to the original, with its SQLSTATE in ``sqlstate``. A write outside the
writer's transaction is refused by PostgreSQL (every connection is ``default_transaction_read_only``) and raised as
``OperationalError: attempt to write a readonly database``, as SQLite's ``query_only`` does.

**Transactions** are explicit, as with SQLite (connections are in autocommit mode): ``store.db.writing`` runs
``BEGIN READ WRITE`` (READ COMMITTED) and locks the campaign's row (``FOR NO KEY UPDATE``) so one campaign's writes
follow each other as they do under SQLite's ``BEGIN IMMEDIATE``; ``reads.snapshot`` runs ``BEGIN ISOLATION LEVEL
REPEATABLE READ READ ONLY``, one snapshot for every read inside.

psycopg is imported only when a PostgreSQL store is opened (it costs about 0.15 s at start).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from skald.errors import SaveFileError
from skald.store_targets import is_postgres

DIALECT = "postgresql"
READ_ONLY = "-c default_transaction_read_only=on"
READ_ONLY_STATE = "25006"  # read_only_sql_transaction
T = TypeVar("T")
RETRIES = 3  # runs of a write transaction that failed for a transient reason (serialization, deadlock)
TRANSIENT = ("40001", "40P01")  # serialization_failure, deadlock_detected: the whole transaction may be run again


is_url = is_postgres  # whether a target names a PostgreSQL database (``store_targets``)


def shown(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


@lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """The store's SQL in psycopg's terms: ``?`` → ``%s``, ``%`` → ``%%``, ``rowid`` → ``row_order``."""
    sql = sql.replace("%", "%%").replace("?", "%s")
    return re.sub(r"\browid\b", "row_order", sql)


class Row(tuple):
    """A row read by position, by column name (``row["turn_id"]``), or as ``dict(row)`` (``keys()``)."""

    __slots__ = ()
    names: tuple[str, ...] = ()
    index: dict[str, int] = {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> tuple[str, ...]:
        return self.names


@lru_cache(maxsize=256)
def _row_class(names: tuple[str, ...]) -> type[Row]:
    return type("Row", (Row,), {"__slots__": (), "names": names, "index": {n: i for i, n in enumerate(names)}})


def _rows(cursor: Any) -> Any:
    """psycopg's row factory: one :class:`Row` class per column list."""
    if cursor.description is None:
        return tuple
    cls = _row_class(tuple(c.name for c in cursor.description))
    return cls


class PgIntegrityError(sqlite3.IntegrityError):
    """A constraint failed on PostgreSQL (a duplicate key, a missing reference)."""


class PgOperationalError(sqlite3.OperationalError):
    """PostgreSQL refused or could not run the statement (read-only transaction, lost connection, serialization)."""


class PgError(sqlite3.DatabaseError):
    """Any other PostgreSQL error (a programming error, bad data)."""


def mapped(exc: Exception) -> sqlite3.Error:
    """The store's error for a psycopg error (see the module docstring); ``sqlstate`` is PostgreSQL's code."""
    import psycopg

    state = getattr(exc, "sqlstate", None) or ""
    if state == READ_ONLY_STATE:
        out: sqlite3.Error = PgOperationalError(f"attempt to write a readonly database (PostgreSQL: {exc})")
    elif isinstance(exc, psycopg.IntegrityError):
        out = PgIntegrityError(str(exc))
    elif isinstance(exc, psycopg.OperationalError) or state in TRANSIENT:
        out = PgOperationalError(str(exc))
    else:
        out = PgError(str(exc))
    out.sqlstate = state  # type: ignore[attr-defined]
    return out


def transient(exc: BaseException) -> bool:
    """Whether a failed transaction may be run again whole (a serialization failure or a deadlock on PostgreSQL)."""
    return getattr(exc, "sqlstate", None) in TRANSIENT


class PgConnection:
    """One psycopg connection, used like the store's ``sqlite3.Connection``: ``execute`` (``?`` placeholders),
    ``executemany``, ``in_transaction``, ``close``. Used by one thread at a time."""

    def __init__(self, raw: Any, url: str, *, readonly: bool = False):
        self.raw = raw
        self.url = url
        self.path = shown(url)  # what messages name (never the password)
        self.readonly = readonly  # the store was opened for reading only: store.db.writing refuses

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        import psycopg

        cursor = self.raw.cursor(row_factory=_rows)
        try:
            cursor.execute(translate(sql), tuple(params))
        except psycopg.Error as exc:
            raise mapped(exc) from exc
        return cursor

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        import psycopg

        cursor = self.raw.cursor()
        try:
            cursor.executemany(translate(sql), [tuple(r) for r in rows])
        except psycopg.Error as exc:
            raise mapped(exc) from exc
        return cursor

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.raw.info.transaction_status != TransactionStatus.IDLE

    def close(self) -> None:
        self.raw.close()

    @property
    def backend(self) -> PostgresBackend:
        return POSTGRES


def _configure(raw: Any) -> None:
    raw.autocommit = True


def open_raw(url: str, *, readonly: bool = True) -> Any:
    """One psycopg connection in autocommit mode (read-only by default, as the store's connections are).
    :raises SaveFileError: the server cannot be reached or refuses the connection (reason ``cannot_open``)."""
    import psycopg

    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=10, **({"options": READ_ONLY} if readonly else {}))
    except psycopg.Error as exc:
        raise unreachable(url, exc) from exc


def unreachable(url: str, exc: Exception) -> SaveFileError:
    return SaveFileError(shown(url), "cannot_open", f"the PostgreSQL server cannot be used ({str(exc).strip()}): "
                         "check SKALD_DB_URL, that the server runs and that the user may connect")


def ensure_schema(url: str, *, readonly: bool = False) -> int:
    """Give the database the store's schema when it has none, or bring an older one up to date
    (``pg_schema.create``), and return its version. ``readonly``: change nothing, only check that the schema is
    there and this Skald's.

    :raises SaveFileError: the server cannot be reached; the database holds a newer schema (``newer_schema``) or one
        that cannot be upgraded (``old_schema``); or, ``readonly``, it has no schema or an older one (``no_schema``,
        ``old_schema``).
    """
    from skald.store import pg_schema
    from skald.store.schema import SCHEMA_VERSION

    raw = open_raw(url, readonly=readonly)
    try:
        if not readonly:
            return pg_schema.create(raw, shown(url))
        found = pg_schema.version(raw)
    finally:
        raw.close()
    if found is None:
        raise SaveFileError(shown(url), "no_schema", "has no Skald schema yet, and was opened read-only; play once "
                            "(or run skald db upgrade) to create it")
    if found != SCHEMA_VERSION:
        reason = "newer_schema" if found > SCHEMA_VERSION else "old_schema"
        raise SaveFileError(shown(url), reason, f"has schema version {found}; this Skald has {SCHEMA_VERSION}, and "
                            "it was opened read-only: open it for play (or run skald db upgrade) first")
    return found


class PgPool:
    """Connections to one PostgreSQL database (``psycopg_pool.ConnectionPool``), lent one request at a time, each
    wrapped as a :class:`PgConnection`. The schema is checked (and created in an empty database) once, at open.

    :param max_size: connections kept open at most (requests wait for one past that).
    :raises SaveFileError: the server cannot be reached, or the database holds a newer schema.
    """

    def __init__(self, url: str, *, readonly: bool = False, max_size: int = 8):
        from psycopg_pool import ConnectionPool

        self.path = shown(url)  # what messages name (never the password)
        self.url = url
        self.readonly = readonly
        ensure_schema(url, readonly=readonly)
        # check: a connection is tried before it is lent, so after a server restart the dead ones are replaced
        # instead of failing one request each (one empty query's round trip per request)
        self._pool = ConnectionPool(url, min_size=1, max_size=max_size, open=False, configure=_configure,
                                    check=ConnectionPool.check_connection, name="skald", timeout=30.0,
                                    kwargs={"options": READ_ONLY, "connect_timeout": 10})
        try:
            self._pool.open(wait=True, timeout=30.0)
        except Exception as exc:
            self._pool.close()
            raise unreachable(url, exc) from exc

    @contextmanager
    def connection(self) -> Iterator[PgConnection]:
        """Borrow a connection; an open transaction is rolled back before it goes back to the pool.
        :raises SaveFileError: no connection can be had, or it broke (the server is gone or restarting)."""
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection() as raw:
                conn = PgConnection(raw, self.url, readonly=self.readonly)
                try:
                    yield conn
                finally:
                    if not raw.closed and conn.in_transaction:
                        raw.rollback()
        except (PoolTimeout, psycopg.OperationalError) as exc:
            raise unreachable(self.url, exc) from exc
        except PgOperationalError as exc:
            if getattr(exc, "sqlstate", "")[:2] in ("08", "57") or "connection" in str(exc).lower():
                raise unreachable(self.url, exc) from exc
            raise

    def close(self) -> None:
        self._pool.close()


class PostgresBackend:
    """The store on PostgreSQL, as the storage port's backend (``store.backend``)."""

    name = DIALECT

    def connect(self, url: str, *, readonly: bool = False, synchronous: str = "NORMAL") -> PgConnection:
        """One :class:`PgConnection`, the schema created in an empty database (``synchronous`` is SQLite's: the
        server keeps its own settings)."""
        ensure_schema(url, readonly=readonly)
        return PgConnection(open_raw(url), url, readonly=readonly)

    def open_pool(self, url: str, *, readonly: bool = False, synchronous: str = "NORMAL") -> PgPool:
        from skald.settings import get_settings

        return PgPool(url, readonly=readonly, max_size=get_settings().db_pool_size)

    def verify(self, conn: PgConnection, path: str, *, full: bool = False) -> None:
        """Nothing to do here: PostgreSQL checks its own pages (and ``skald doctor`` the store's rows, ``fsck``)."""

    def version(self, conn: PgConnection) -> int:
        return conn.execute("SELECT version FROM skald_schema").fetchone()[0]

    def tables(self, conn: PgConnection) -> list[str]:
        return [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND "
            "table_type = 'BASE TABLE' AND table_name != 'skald_schema' ORDER BY table_name")]

    def columns(self, conn: PgConnection, table: str) -> list[str]:
        return [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND "
            "table_name = ? AND column_name != 'row_order' ORDER BY ordinal_position", (table,))]

    def primary_key(self, conn: PgConnection, table: str) -> list[str]:
        return [r[0] for r in conn.execute(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = "
            "ANY(i.indkey) WHERE i.indrelid = CAST(? AS regclass) AND i.indisprimary ORDER BY "
            "array_position(i.indkey, a.attnum)", (table,))]

    def packed(self, text: str | None) -> str | None:
        return text  # PostgreSQL compresses large values itself (TOAST)

    def snapshot(self, conn: PgConnection) -> None:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    @contextmanager
    def writing(self, conn: PgConnection, campaign: str | None = None) -> Iterator[PgConnection]:
        """``BEGIN READ WRITE`` (READ COMMITTED), then, with ``campaign``, lock that campaign's row (``FOR NO KEY
        UPDATE``) so its writers follow each other as SQLite's do; every statement after the lock sees what they
        committed. :raises SaveFileError: the store was opened read-only."""
        if conn.readonly:
            raise SaveFileError(conn.path, "read_only", "was opened read-only, for reading; this action was not "
                                "saved and nothing already saved was lost")
        conn.execute("BEGIN READ WRITE")
        try:
            if campaign is not None:
                conn.execute("SELECT 1 FROM campaigns WHERE id = ? FOR NO KEY UPDATE", (campaign,))
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def write_retrying(self, work: Callable[[], T]) -> T:
        """``work`` again after a serialization failure or a deadlock (the transaction rolled back whole), at most
        :data:`RETRIES` runs in all, with a short random wait (tenacity)."""
        from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

        for attempt in Retrying(retry=retry_if_exception(transient), stop=stop_after_attempt(RETRIES),
                                wait=wait_random_exponential(multiplier=0.02, max=0.2), reraise=True):
            with attempt:
                return work()
        raise AssertionError("unreachable: tenacity re-raises the last error")


POSTGRES = PostgresBackend()
