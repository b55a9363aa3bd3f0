"""Opening a Skald database: WAL, busy timeout, foreign keys, migrations, and the read-only guard.

A connection from :func:`connect` is in ``PRAGMA query_only = ON`` mode. The only way to write is inside
:func:`writing`, which lifts the guard for one ``BEGIN IMMEDIATE`` transaction and restores it after,
committing on success and rolling back on any exception. Commit (and campaign creation) use it; any
other write fails with ``sqlite3.OperationalError: attempt to write a readonly database``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from skald.store.schema import migrate, schema_version

BUSY_TIMEOUT_MS = 10_000


def connect(path: str | Path) -> sqlite3.Connection:
    """Open (creating and migrating if needed) the database at ``path``; ``":memory:"`` works for tests.

    The connection is in autocommit mode (transactions are explicit) and usable from other threads.
    """
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    if str(path) != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    migrate(conn)
    conn.execute("PRAGMA query_only = ON")
    return conn


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
