"""Connections for the engine: a small pool of SQLite connections for a save file, or one shared connection for an
in-memory database.

Each request borrows a connection (``with pool.connection() as conn``) and gives it back; a connection is used
by one thread at a time, never shared concurrently. Connections come from ``store.db.connect``: WAL, a 10 s busy
timeout, and ``query_only`` outside the writer's transactions.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from skald.store.db import connect


class ConnectionPool:
    """Connections to one database file; at most ``max_idle`` are kept open between requests."""

    def __init__(self, path: str | Path, max_idle: int = 16):
        if str(path) == ":memory:":
            raise ValueError("the API needs a database file (each connection to :memory: is a separate database)")
        self.path = Path(path)
        self.max_idle = max_idle
        self._idle: queue.LifoQueue[sqlite3.Connection] = queue.LifoQueue()
        self._closed = False
        self._lock = threading.Lock()
        self._idle.put(connect(self.path))  # creates and migrates the file once, before any request

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = connect(self.path)
        try:
            yield conn
        finally:
            if conn.in_transaction:  # never hand on a connection with an open transaction
                conn.execute("ROLLBACK")
            with self._lock:
                keep = not self._closed and self._idle.qsize() < self.max_idle
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

    def __init__(self) -> None:
        self.path = ":memory:"
        self._conn = connect(":memory:")
        self._lock = threading.RLock()

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._conn

    def close(self) -> None:
        self._conn.close()


def open_pool(path: str | Path) -> ConnectionPool | SharedConnection:
    """The pool for ``path``: :class:`SharedConnection` for ``":memory:"``, else a :class:`ConnectionPool`."""
    return SharedConnection() if str(path) == ":memory:" else ConnectionPool(path)
