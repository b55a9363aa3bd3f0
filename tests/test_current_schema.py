"""A new save file gets ``store/current_schema.sql`` instead of running every migration: the same tables, indexes and
migration records as the migrations leave, in one transaction, without importing sqlite-utils."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest
from skald.store import schema

pytestmark = pytest.mark.sqlite_only


def _columns(conn: sqlite3.Connection) -> dict[str, list[tuple]]:
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return {t: [tuple(r) for r in conn.execute(f"PRAGMA table_xinfo({t})")] for t in tables}


def _migrated(path) -> sqlite3.Connection:
    import sqlite_utils

    conn = sqlite3.connect(path, isolation_level=None)
    schema.registry().apply(sqlite_utils.Database(conn))
    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")
    return conn


def test_the_committed_schema_is_what_the_migrations_make():
    assert schema.CURRENT_SCHEMA.read_text(encoding="utf-8") == schema.migrated_schema(), (
        "store/current_schema.sql is behind the migrations: run `python -m skald.store.schema` and commit it")


def test_a_new_file_matches_a_migrated_one_table_for_table(tmp_path):
    made = sqlite3.connect(tmp_path / "new.db", isolation_level=None)
    assert schema.migrate(made) == schema.SCHEMA_VERSION
    migrated = _migrated(tmp_path / "old.db")
    assert schema.dump_schema(made) == schema.dump_schema(migrated)
    assert _columns(made) == _columns(migrated)
    assert schema.schema_version(made) == schema.schema_version(migrated) == schema.SCHEMA_VERSION
    names = "SELECT migration_set, name FROM _sqlite_migrations ORDER BY id"
    assert made.execute(names).fetchall() == migrated.execute(names).fetchall()


def test_sqlite_utils_sees_nothing_pending_on_a_new_file(tmp_path):
    import sqlite_utils

    conn = sqlite3.connect(tmp_path / "new.db", isolation_level=None)
    schema.migrate(conn)
    assert schema.registry().pending(sqlite_utils.Database(conn)) == []


def test_a_half_made_file_is_left_empty(tmp_path, monkeypatch):
    broken = tmp_path / "broken.sql"
    broken.write_text(schema.CURRENT_SCHEMA.read_text(encoding="utf-8") + "CREATE TABLE campaigns (id TEXT);\n")
    monkeypatch.setattr(schema, "CURRENT_SCHEMA", broken)  # the last statement fails, as a crash part-way would
    conn = sqlite3.connect(tmp_path / "new.db", isolation_level=None)
    with pytest.raises(sqlite3.OperationalError, match="already exists"):
        schema.migrate(conn)
    conn.rollback()
    assert conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0
    assert schema.schema_version(conn) == 0


def test_a_file_that_is_not_empty_is_migrated_not_overwritten(tmp_path):
    import sqlite_utils

    conn = sqlite3.connect(tmp_path / "v1.db", isolation_level=None)
    schema.registry().apply(sqlite_utils.Database(conn), stop_before="m002_retrieval")
    conn.execute("PRAGMA user_version = 1")
    assert schema.migrate(conn) == schema.SCHEMA_VERSION
    assert schema.dump_schema(conn) == schema.dump_schema(_migrated(tmp_path / "all.db"))


def test_opening_a_new_save_file_does_not_import_sqlite_utils(tmp_path):
    code = ("import sys; from skald.store.db import connect; connect(sys.argv[1]).close(); "
            "print('sqlite_utils' in sys.modules, 'numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "new.db")], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["False", "False"]
