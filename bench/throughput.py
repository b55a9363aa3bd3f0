"""Turns per second of ``skald serve`` under concurrent load, by store and worker count: SQLite with 1 worker (the
baseline), PostgreSQL with 1 worker, and PostgreSQL with 4 workers (with its ratio to 1 worker).

Each figure is a real ``skald serve --workers N`` subprocess (offline narrator) on a new store, driven by
``bench/load.py``: 20 client threads of this process over 5 new campaigns, 200 turns in all, every 409 retried
(clients, servers and PostgreSQL share the machine's cores). Before the clock starts, every worker has said its
application started and a short warm-up load has played a few turns on another campaign. The run is checked like
``tests/test_api_load.py`` checks it (each turn stored once, per its acknowledgement); a violation is printed beside the
figure. PostgreSQL is a server of this bench's own (``tests/postgres.py``: ``initdb`` and ``pg_ctl`` in a temporary
directory), a new database per figure; without PostgreSQL's binaries those figures are skipped, and the bench says so.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bench import load

if str(load.ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(load.ROOT / "tests"))
import postgres  # noqa: E402 - tests/postgres.py: a throwaway PostgreSQL server

CLIENTS = 20
CAMPAIGNS = 5
TURNS = 200
DEADLINE_S = 120.0


def measure(db: str | Path, workers: int, workdir: Path) -> tuple[load.Result, list[str]]:
    """Serve ``db`` with ``workers`` processes, warm them up, then drive the load; (its result, what broke)."""
    server = load.Serve(db, workdir, workers=workers, name=f"w{workers}")
    try:
        server.start()
        warm = load.drive(server.url, campaigns=1, clients=2 * workers, turns=5 * workers, deadline_s=30)
        result = load.drive(server.url, campaigns=CAMPAIGNS, clients=CLIENTS, turns=TURNS, deadline_s=DEADLINE_S)
    finally:
        server.stop()
    broken = load.check(warm) + load.check(result) + load.check_store(result, db)
    return result, broken + [f"server log: {line}" for line in server.errors()]


@contextmanager
def pg_databases() -> Iterator[Callable[[], str]]:
    """``make()``: a new database, with Skald's schema, on a PostgreSQL server that lives as long as this."""
    from skald.store.db import connect

    with postgres.server() as url:
        def make() -> str:
            db = postgres.new_database(url, template=None)
            connect(db).close()  # the schema, before the workers start side by side
            return db

        yield make


def line(label: str, result: load.Result, broken: list[str], target: str) -> str:
    text = (f"  {label:<22} {result.turns_per_s:6.1f} turns/s   ({len(result.acks)} turns in {result.elapsed:.1f} s, "
            f"{result.statuses[409]} 409s retried)   (target: {target})")
    return text + (f"\n    {len(broken)} violation(s), first: {broken[0]}" if broken else "")


def run() -> list[str]:
    lines = [f"HTTP API under load, offline narrator: `skald serve` subprocesses, {CLIENTS} clients over {CAMPAIGNS} "
             f"campaigns, {TURNS} turns (bench/load.py)"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        base, broken = measure(work / "bench.db", 1, work)
        lines.append(line("SQLite, 1 worker:", base, broken, "reported; SQLite with 1 worker is the baseline"))
        if postgres.binaries() is None:
            return lines + ["  PostgreSQL figures skipped: no PostgreSQL binaries (initdb, pg_ctl); install Debian's "
                            "postgresql"]
        with pg_databases() as make:
            one, broken = measure(make(), 1, work)
            ratio = one.turns_per_s / base.turns_per_s if base.turns_per_s else 0.0
            lines.append(line("PostgreSQL, 1 worker:", one, broken, f"reported; {ratio:.2f} x SQLite with 1 worker"))
            four, broken = measure(make(), 4, work)
            ratio = four.turns_per_s / one.turns_per_s if one.turns_per_s else 0.0
            lines.append(line("PostgreSQL, 4 workers:", four, broken,
                              f"reported; {ratio:.2f} x PostgreSQL with 1 worker"))
    return lines
