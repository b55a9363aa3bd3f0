"""Load: 20 concurrent clients over 5 campaigns play 200 turns in all through a real loopback server
(``bench/load.py`` drives them; every loop is bounded). Every turn commits exactly once: each stored turn is one
acknowledged request's input and each request's idempotency key is stored once, for its turn, with its response;
turn numbers stay contiguous per campaign; nothing answers 5xx ("database is locked" would); every 409 carries the
campaign's turn number and a detail, and its request is then played.

Two servers: the app in this process on a SQLite file, and ``skald serve --workers 4`` (four processes) on a
PostgreSQL database."""

from __future__ import annotations

import sys
from pathlib import Path

from postgres import drop_database, new_database
from skald.api import create_app
from skald.api.server import LiveServer
from skald.store.db import connect
from support import ROOT

if str(ROOT) not in sys.path:  # `python -m pytest` from the root has it; the `pytest` script does not
    sys.path.insert(0, str(ROOT))
from bench import load  # noqa: E402

CLIENTS = 20
CAMPAIGNS = 5
TURNS = 200


def assert_played_once(result: load.Result, db: str | Path) -> None:
    assert not load.check(result), load.check(result)[:10]
    assert not load.check_store(result, db), load.check_store(result, db)
    conn = connect(db)
    try:
        assert conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == TURNS
        assert conn.execute("SELECT COUNT(*) FROM api_idempotency WHERE response IS NOT NULL").fetchone()[0] == TURNS
        assert conn.execute("SELECT COUNT(*) FROM api_idempotency WHERE response IS NULL").fetchone()[0] == 0
    finally:
        conn.close()
    print(f"\n{result.summary()}; 409s by detail: {dict(result.conflicts)}")


def test_twenty_clients_five_campaigns_two_hundred_turns(tmp_path: Path) -> None:
    db = tmp_path / "load.db"
    with LiveServer(create_app(db)) as server:
        result = load.drive(server.url, campaigns=CAMPAIGNS, clients=CLIENTS, turns=TURNS, deadline_s=60)
    assert_played_once(result, db)


def test_four_workers_on_postgresql(pg_server: str, tmp_path: Path) -> None:
    db = new_database(pg_server)
    server = load.Serve(db, tmp_path, workers=4)
    try:
        try:
            server.start()
            result = load.drive(server.url, campaigns=CAMPAIGNS, clients=CLIENTS, turns=TURNS, deadline_s=120)
        finally:
            server.stop()
        try:
            assert_played_once(result, db)
            assert not server.errors(), server.errors()[:10]
        except AssertionError:
            print(server.log_tail())
            raise
    finally:
        drop_database(db)
