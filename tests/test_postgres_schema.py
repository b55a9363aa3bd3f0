"""The PostgreSQL schema on a real server: derived from the SQLite migrations, it has the
same tables, columns, primary keys, foreign keys and indexes, numbers turns itself, and is created once."""

from __future__ import annotations

import pytest
from skald.store import pg_schema
from skald.store.schema import SCHEMA_VERSION

psycopg = pytest.importorskip("psycopg")
import postgres  # noqa: E402


@pytest.fixture
def pg_url(pg_server):
    """A new, empty database on the session's PostgreSQL server (conftest), dropped after."""
    url = postgres.new_database(pg_server, template=None)
    yield url
    postgres.drop_database(url)


def _pg_shape(conn) -> dict:
    columns = {}
    for table, column in conn.execute("SELECT table_name, column_name FROM information_schema.columns WHERE "
                                      "table_schema = 'public' ORDER BY table_name, ordinal_position"):
        columns.setdefault(table, []).append(column)
    keys = {}
    for table, column in conn.execute(
            "SELECT tc.table_name, kcu.column_name FROM information_schema.table_constraints tc JOIN "
            "information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name WHERE "
            "tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = 'public' ORDER BY tc.table_name, "
            "kcu.ordinal_position"):
        keys.setdefault(table, []).append(column)
    indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")}
    return {"columns": columns, "keys": keys, "indexes": indexes}


def _sqlite_shape() -> dict:
    conn = pg_schema.sqlite_shape()
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                                         "'sqlite_%' AND name != '_sqlite_migrations'")]
    columns = {t: [r["name"] for r in conn.execute(f'PRAGMA table_info("{t}")')] for t in tables}
    keys = {t: [r["name"] for r in sorted((r for r in conn.execute(f'PRAGMA table_info("{t}")') if r["pk"]),
                                          key=lambda r: r["pk"])] for t in tables}
    indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                                          "AND tbl_name != '_sqlite_migrations'")}
    return {"columns": columns, "keys": keys, "indexes": indexes}


def test_the_postgres_schema_is_the_sqlite_one(pg_url):
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert pg_schema.create(conn) == SCHEMA_VERSION
        assert pg_schema.create(conn) == SCHEMA_VERSION  # a second run leaves it as it is
        pg, lite = _pg_shape(conn), _sqlite_shape()
        assert conn.execute("SELECT version FROM skald_schema").fetchall() == [(SCHEMA_VERSION,)]
    pg["columns"].pop("skald_schema")
    for table in pg_schema.ROW_ORDER:  # PostgreSQL's stand-in for SQLite's row ids
        assert pg["columns"][table].pop() == "row_order"
    assert pg["columns"] == lite["columns"]
    assert {t: k for t, k in pg["keys"].items() if t != "skald_schema"} == lite["keys"]
    assert lite["indexes"] <= pg["indexes"]


def test_turn_ids_number_themselves_and_foreign_keys_hold(pg_url):
    with psycopg.connect(pg_url) as conn:
        pg_schema.create(conn)
        with conn.transaction():
            conn.execute("INSERT INTO campaigns (id, pack_id, seed, turn_number) VALUES ('c', 'cinder_reach', 1, 0)")
            first = conn.execute("INSERT INTO turns (campaign_id, turn_number, parent_turn_id, input) VALUES "
                                 "('c', 1, 0, 'look around') RETURNING turn_id").fetchone()[0]
            second = conn.execute("INSERT INTO turns (campaign_id, turn_number, parent_turn_id, input) VALUES "
                                  "('c', 2, %s, 'wait') RETURNING turn_id", (first,)).fetchone()[0]
            assert second > first
            conn.execute("INSERT INTO known_npcs (campaign_id, npc_id, name) VALUES ('c', 'b', 'B'), ('c', 'a', 'A')")
            assert [r[0] for r in conn.execute("SELECT npc_id FROM known_npcs ORDER BY row_order")] == ["b", "a"]
            conn.execute("DELETE FROM known_npcs")
            conn.execute("DELETE FROM turns")
            conn.execute("DELETE FROM campaigns")
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute("INSERT INTO turns (campaign_id, turn_number) VALUES ('nobody', 1)")


def test_an_older_database_gets_what_the_migrations_since_added_and_a_newer_one_is_refused(pg_url):
    from skald.errors import SaveFileError

    with psycopg.connect(pg_url, autocommit=True) as conn:
        pg_schema.create(conn)
        whole = _pg_shape(conn)
        conn.execute("DROP TABLE setup_sessions")  # as a database made before m013 was
        conn.execute("ALTER TABLE turns DROP COLUMN brief")  # and, say, before m008's column
        conn.execute("UPDATE skald_schema SET version = 12")
        assert pg_schema.create(conn) == SCHEMA_VERSION
        again = _pg_shape(conn)
        assert again["columns"].pop("turns")[-1] == "brief"  # an added column comes last
        assert sorted(whole["columns"].pop("turns")) == sorted(_pg_shape(conn)["columns"]["turns"])
        assert again == whole
        assert conn.execute("SELECT version FROM skald_schema").fetchone()[0] == SCHEMA_VERSION
        conn.execute("UPDATE skald_schema SET version = 12")
        conn.execute("ALTER TABLE turns ALTER COLUMN variant TYPE TEXT")  # more than new tables and columns
        with pytest.raises(SaveFileError, match="more than new tables") as refused:
            pg_schema.create(conn)
        assert refused.value.reason == "old_schema"
        assert conn.execute("SELECT version FROM skald_schema").fetchone()[0] == 12  # nothing changed
        conn.execute(f"UPDATE skald_schema SET version = {SCHEMA_VERSION + 1}")
        with pytest.raises(SaveFileError, match="newer Skald"):
            pg_schema.create(conn)
