"""Only ``skald.store`` writes to the database: no other module holds writing SQL, and none executes any while the
engine plays turns, serves the API and replays a recording."""

from __future__ import annotations

import ast
import re
import sqlite3
import sys
from pathlib import Path

import httpx
import pytest
from skald.engine import Engine
from skald.store.sqlite import SqliteBackend
from support import ROOT, script_lines

PACKAGE = ROOT / "backend" / "skald"
WRITES = re.compile(r"^\s*(?:INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|VACUUM|BEGIN|COMMIT|ROLLBACK)\b"
                    r"|\bPRAGMA\s+\w+\s*=", re.IGNORECASE)
SQL_LIKE = re.compile(r"^\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|REPLACE\s+INTO|"
                      r"CREATE\s+(?:TABLE|INDEX)|DROP\s+(?:TABLE|INDEX)|ALTER\s+TABLE)\b")


def _sql_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL_LIKE.search(node.value)]


def test_no_module_outside_the_store_holds_writing_sql():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "store":
            continue
        found += [f"{path.relative_to(ROOT)}:{line}: {text[:60]!r}" for line, text in _sql_literals(path)]
    assert found == []
    assert _sql_literals(PACKAGE / "store" / "writer.py")  # the scan does see writing SQL where it is


class _Tracer:
    """Records every statement that writes, with the first module of the package on the stack that ran it."""

    def __init__(self) -> None:
        self.writes: list[tuple[str, str]] = []
        self.by_store = 0

    def __call__(self, statement: str) -> None:
        if not WRITES.search(statement):
            return
        frame = sys._getframe(1)
        while frame is not None:
            module = frame.f_globals.get("__name__", "")
            if module.startswith("skald.") and not module.startswith("skald.store"):
                self.writes.append((module, statement.strip().split("\n")[0][:80]))
                return
            if module.startswith("skald.store"):
                self.by_store += 1
                return
            frame = frame.f_back


@pytest.fixture
def tracer(monkeypatch):
    tracer = _Tracer()
    real = SqliteBackend.connect

    def traced(self, path, **options):  # every SQLite connection opens here: store.db's and the pools'
        conn = real(self, path, **options)
        conn.set_trace_callback(tracer)
        return conn

    monkeypatch.setattr(SqliteBackend, "connect", traced)
    return tracer


def test_playing_serving_and_replaying_write_only_through_the_store(tracer, tmp_path, offline_llm):
    engine = Engine(tmp_path / "game.db", llm=offline_llm, retriever=None)
    made = engine.create_campaign("cinder_reach", seed=3, with_token=True)
    cid = made.state.campaign.id
    for n, line in enumerate(script_lines()[:12]):
        engine.play_turn(cid, line, key=f"k{n}")
    engine.play_turn(cid, script_lines()[0], key="k0")  # an idempotent retry
    engine.turns(cid, after_turn=3)
    engine.party(cid), engine.quests(cid), engine.rumors(cid), engine.news(cid), engine.inventory(cid)
    engine.delete_campaign(cid)
    engine.close()

    from skald.api import create_app
    from skald.api.server import LiveServer

    with LiveServer(create_app(tmp_path / "api.db", llm=offline_llm, retriever=None)) as server:
        with httpx.Client(base_url=server.url) as http:
            body = http.post("/campaigns", json={"pack": "cinder_reach", "seed": 1}).json()
            auth = {"Authorization": f"Bearer {body['token']}"}
            for line in ("look around", "/status", "talk to the bartender"):
                assert http.post(f"/campaigns/{body['campaign_id']}/turns", json={"input": line},
                                 headers=auth).status_code == 200
            assert http.delete(f"/campaigns/{body['campaign_id']}", headers=auth).status_code == 204

    from skald.replay.session import replay

    assert replay(ROOT / "data" / "recordings" / "frontier_day").ok
    assert tracer.writes == []
    assert tracer.by_store > 200  # the trace did watch: every turn, campaign and key was written by the store


def test_the_tracer_would_see_a_write_from_elsewhere(tracer):
    """Control: a statement that writes, run by a module of the package outside the store, is caught."""
    sneaky = sqlite3.connect(":memory:")
    sneaky.set_trace_callback(tracer)
    exec(compile("sneaky.execute('CREATE TABLE t (x)')", "<skald.graph>", "exec"),
         {"__name__": "skald.graph", "sneaky": sneaky})
    assert tracer.writes == [("skald.graph", "CREATE TABLE t (x)")]


def test_each_storage_backend_implements_the_whole_port():
    from skald.store.backend import Backend
    from skald.store.postgres import POSTGRES
    from skald.store.sqlite import SQLITE

    wanted = {name for name in vars(Backend) if not name.startswith("_")} | {"name"}
    for implementation in (SQLITE, POSTGRES):
        missing = [name for name in wanted if not hasattr(implementation, name)]
        assert missing == [], implementation.name
    assert {SQLITE.name, POSTGRES.name} == {"sqlite", "postgresql"}


def test_no_caller_asks_which_database_it_is_on():
    """What differs by database is the backends' (``store/sqlite.py``, ``store/postgres.py``); everyone else goes
    through ``store.db`` and the connection's backend, so no module names the PostgreSQL connection or branches on a
    dialect."""
    allowed = {PACKAGE / "store" / name for name in ("sqlite.py", "postgres.py", "backend.py", "pg_schema.py")}
    allowed.add(PACKAGE / "store_targets.py")  # where a target's scheme is read
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if named in ("is_postgres", "PgConnection", "dialect", "POSTGRES", "SQLITE"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {named}")
    assert found == []
