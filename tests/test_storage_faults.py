"""I/O faults during a turn (issue 12, "Prove it"): the disk fills up at each write of one turn in turn, and every
time the player gets one clear message, the previous state is intact, and the same turn plays once space is back."""

from __future__ import annotations

import sqlite3
import types

import pytest
from skald.engine import Engine
from skald.errors import SaveFileError
from skald.store import sqlite as store_sqlite

WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "COMMIT")


class Disk:
    """Counts the write statements sent to SQLite and fails the ``fail_at``-th one (1-based) with a real
    ``SQLITE_FULL`` error shape, as a full disk would (``sqlite_errorname`` as SQLite sets it)."""

    def __init__(self) -> None:
        self.writes = 0
        self.fail_at: int | None = None

    def write(self, sql: str) -> None:
        if not sql.lstrip().upper().startswith(WRITES):
            return
        self.writes += 1
        if self.fail_at is not None and self.writes == self.fail_at:
            exc = sqlite3.OperationalError("database or disk is full")
            exc.sqlite_errorcode, exc.sqlite_errorname = 13, "SQLITE_FULL"
            raise exc


DISK = Disk()


class FullDiskConnection(sqlite3.Connection):
    def execute(self, sql, *args):  # noqa: ANN001, ANN201 - the sqlite3.Connection signature
        DISK.write(sql)
        return super().execute(sql, *args)

    def executemany(self, sql, *args):  # noqa: ANN001, ANN201
        DISK.write(sql)
        return super().executemany(sql, *args)


@pytest.fixture
def engine(tmp_path, monkeypatch):
    def connect(*args, **kwargs):
        return sqlite3.connect(*args, factory=FullDiskConnection, **kwargs)

    monkeypatch.setattr(store_sqlite, "sqlite3", types.SimpleNamespace(
        connect=connect, Row=sqlite3.Row, Error=sqlite3.Error, Connection=sqlite3.Connection))
    DISK.fail_at, DISK.writes = None, 0
    engine = Engine(tmp_path / "fault.db", retriever=None)
    engine.create_campaign("cinder_reach", seed=3, campaign_id="c1")
    for text in ("look around", "talk to the bartender", "buy a burn stim"):
        engine.play_turn("c1", text)
    yield engine
    engine.close()


def snapshot(engine: Engine) -> tuple:
    with engine.pool.connection() as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return tuple(tuple(map(tuple, conn.execute(f'SELECT * FROM "{t}" ORDER BY 1, 2'))) for t in tables
                     if t not in ("api_idempotency",))


def test_a_full_disk_at_every_write_of_a_turn_loses_nothing_and_says_so(engine):
    DISK.writes = 0
    engine.play_turn("c1", "walk to Kettle Row", key="probe")  # count the writes of one keyed turn
    per_turn = DISK.writes
    assert per_turn >= 6  # the campaign row, events, projections, the turn, its memory, the key, COMMIT
    for fail_at in range(1, per_turn + 1):
        before = snapshot(engine)
        number = engine.load("c1").campaign.turn_number
        DISK.writes, DISK.fail_at = 0, fail_at
        with pytest.raises(SaveFileError) as err:
            engine.play_turn("c1", "rest", key=f"k{fail_at}")
        DISK.fail_at = None
        assert err.value.reason == "disk_full", fail_at
        assert "this action was not saved and nothing already saved was lost" in str(err.value)
        assert snapshot(engine) == before, f"write {fail_at} of {per_turn} left part of the turn behind"
        with engine.pool.connection() as conn:
            assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        again = engine.play_turn("c1", "rest", key=f"k{fail_at}")  # the same request, once the disk has room
        assert again.view.turn_number == number + 1 and not again.replayed


def test_a_real_sqlite_full_error_is_the_same_clear_message(engine):
    """Not injected: SQLite itself refuses to grow the file past ``max_page_count`` (set on the pooled connection
    the next turns borrow)."""
    with engine.pool.connection() as conn:
        conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
    for i in range(300):  # until a turn needs a new page
        before, number = snapshot(engine), engine.load("c1").campaign.turn_number
        try:
            engine.play_turn("c1", f"look around the bar for the {i}th time")
        except SaveFileError as err:
            assert err.reason == "disk_full" and "nothing already saved was lost" in str(err)
            break
    else:
        pytest.fail("the file never filled up")
    assert snapshot(engine) == before and engine.load("c1").campaign.turn_number == number
    assert engine.play_turn("c1", "rest").view.turn_number == number + 1  # a fresh connection has room again
