"""SQLite connections for the engine: a small pool of connections for a save file, or one shared connection for an
in-memory database (``store.db.open_pool`` picks; PostgreSQL has its own, ``store.postgres.PgPool``).

Each request borrows a connection (``with pool.connection() as conn``) and gives it back; a connection is used
by one thread at a time, never shared concurrently. Connections come from the SQLite backend's ``connect`` (handed
in: this module imports no backend): WAL, a 10 s busy timeout, and ``query_only`` outside the writer's
transactions. The pool's first connection checks the file
(``quick_check``) before anything is written to it, and a storage failure inside ``connection()`` comes out as
:class:`~skald.errors.SaveFileError` (``store.faults``).
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from skald.store.faults import raise_storage

Opener = Callable[..., sqlite3.Connection]  # (path, *, readonly, synchronous) -> a connection
Verifier = Callable[..., None]  # (connection, path) -> None, raising SaveFileError when the file is damaged


class ConnectionPool:
    """Connections to one database file; at most ``max_idle`` are kept open between requests.

    :param readonly: open every connection with ``mode=ro`` (listing, inspecting): never creates or writes the file.
    :param synchronous: SQLite's ``synchronous`` mode for every connection (``NORMAL`` or ``FULL``).
    :raises SaveFileError: the file cannot be opened, is damaged, or is from a newer Skald.
    """

    def __init__(self, path: str | Path, connect: Opener, verify: Verifier, max_idle: int = 16, *,
                 readonly: bool = False, synchronous: str = "NORMAL"):
        if str(path) == ":memory:":
            raise ValueError("the API needs a database file (each connection to :memory: is a separate database)")
        self.path = Path(path)
        self.max_idle = max_idle
        self.readonly = readonly
        self.synchronous = synchronous
        self._open = connect
        self._idle: queue.LifoQueue[sqlite3.Connection] = queue.LifoQueue()
        self._closed = False
        self._lock = threading.Lock()
        first = self._connect()  # creates and migrates the file once, before any request
        try:
            verify(first, self.path)
        except BaseException:
            first.close()
            raise
        self._idle.put(first)

    def _connect(self) -> sqlite3.Connection:
        return self._open(self.path, readonly=self.readonly, synchronous=self.synchronous)

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """Borrow a connection. :raises SaveFileError: a storage failure (the body's, or opening one)."""
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = self._connect()
        healthy = True
        try:
            yield conn
        except sqlite3.Error as exc:
            healthy = False
            raise_storage(exc, self.path, readonly=self.readonly)
            raise
        finally:
            self._give_back(conn, healthy)

    def _give_back(self, conn: sqlite3.Connection, healthy: bool) -> None:
        """Keep the connection for the next request, unless the pool is closed or full, or the request failed (a
        connection that saw a storage error is closed: it may hold a broken transaction or file handle)."""
        try:
            if conn.in_transaction:  # never hand on a connection with an open transaction
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            healthy = False
        with self._lock:
            keep = healthy and not self._closed and self._idle.qsize() < self.max_idle
        if keep:
            self._idle.put(conn)
        else:
            conn.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return


class SharedConnection:
    """One connection to ``:memory:`` (each new connection would be a separate, empty database), lent to one thread
    at a time."""

    def __init__(self, connect: Opener) -> None:
        self.path = ":memory:"
        self._conn = connect(":memory:")
        self._lock = threading.RLock()

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._conn

    def close(self) -> None:
        self._conn.close()
