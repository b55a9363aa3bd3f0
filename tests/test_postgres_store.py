"""What is PostgreSQL's own in the store (the rest runs on both stores: ``BOTH_STORES`` modules): choosing it by URL,
a read-only store, the server dropping connections, a server that is not there, passwords kept out of messages,
and ``skald doctor`` / ``skald db upgrade`` on it."""

from __future__ import annotations

import psycopg
import pytest
from postgres import drop_database, new_database
from skald.cli.main import app
from skald.engine import Engine
from skald.errors import SaveFileError
from skald.settings import Settings
from skald.store.db import target
from skald.store.postgres import PgPool, shown
from skald.store.schema import SCHEMA_VERSION
from typer.testing import CliRunner


@pytest.fixture
def url(pg_server):
    made = new_database(pg_server)
    yield made
    drop_database(made)


def test_the_store_is_chosen_by_url():
    assert target("postgresql://u:p@h:5432/d") == "postgresql://u:p@h:5432/d"
    assert str(target("sqlite:///data/saves/skald.db")) == "data/saves/skald.db"
    assert str(target("sqlite:////srv/skald.db")) == "/srv/skald.db"
    with pytest.raises(ValueError, match="mysql:// is not a store"):
        target("mysql://h/d")
    assert Settings(db_url="postgresql://u@h/d").database == "postgresql://u@h/d"
    assert str(Settings(db_url=None).database) == "data/saves/skald.db"
    with pytest.raises(ValueError):
        Settings(db_url="mysql://h/d")
    assert shown("postgresql://skald:hunter2@db:5432/game") == "postgresql://skald:***@db:5432/game"


def test_a_read_only_store_reads_and_refuses_a_turn(url):
    engine = Engine(url, retriever=None)
    cid = engine.create_campaign("cinder_reach", seed=1).state.campaign.id
    engine.play_turn(cid, "look around")
    engine.close()
    reader = Engine(url, retriever=None, readonly=True)
    try:
        assert reader.load(cid).campaign.turn_number == 1
        with pytest.raises(SaveFileError) as refused:
            reader.play_turn(cid, "rest")
        assert refused.value.reason == "read_only"
        assert reader.load(cid).campaign.turn_number == 1
    finally:
        reader.close()


def test_a_read_only_open_of_an_empty_database_creates_nothing(pg_server):
    empty = new_database(pg_server, template=None)
    try:
        with pytest.raises(SaveFileError) as refused:
            Engine(empty, retriever=None, readonly=True)
        assert refused.value.reason == "no_schema"
        with psycopg.connect(empty) as conn:
            assert conn.execute("SELECT to_regclass('skald_schema')").fetchone()[0] is None
    finally:
        drop_database(empty)


def test_connections_the_server_drops_are_replaced_and_no_turn_is_lost(url, pg_server):
    engine = Engine(url, retriever=None)
    try:
        cid = engine.create_campaign("cinder_reach", seed=2).state.campaign.id
        engine.play_turn(cid, "look around")
        with psycopg.connect(pg_server, autocommit=True) as admin:  # as a server restart does to every session
            name = url.rsplit("/", 1)[1]
            dropped = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
                                    "%s AND pid != pg_backend_pid()", (name,)).fetchone()[0]
        assert dropped >= 1
        assert engine.play_turn(cid, "rest").view.turn_number == 2
        assert engine.load(cid).campaign.turn_number == 2
    finally:
        engine.close()


def test_a_server_that_is_not_there_is_one_plain_error_without_the_password():
    with pytest.raises(SaveFileError) as gone:
        PgPool("postgresql://skald:hunter2@127.0.0.1:1/nowhere")
    assert gone.value.reason == "cannot_open" and "SKALD_DB_URL" in str(gone.value)
    assert "hunter2" not in str(gone.value) and "***" in str(gone.value)


def test_doctor_and_db_upgrade_report_the_schema_version(pg_server):
    runner = CliRunner()
    empty = new_database(pg_server, template=None)
    try:
        said = runner.invoke(app, ["doctor", "--db", empty])
        assert "answers and is empty" in said.output
        upgraded = runner.invoke(app, ["db", "upgrade", "--db", empty])
        assert upgraded.exit_code == 0 and f"schema version {SCHEMA_VERSION}" in upgraded.output
        said = runner.invoke(app, ["doctor", "--db", empty])
        assert f"answers (PostgreSQL, schema version {SCHEMA_VERSION})" in said.output
        nowhere = runner.invoke(app, ["doctor", "--db", "postgresql://skald:hunter2@127.0.0.1:1/x"])
        assert "PROBLEM" in nowhere.output and "hunter2" not in nowhere.output
    finally:
        drop_database(empty)


def test_doctor_runs_skalds_own_checks_on_postgresql_and_names_a_damaged_campaign(url):
    import psycopg

    engine = Engine(url, retriever=None)
    for cid, seed in (("hurt", 2), ("sound", 3)):
        engine.create_campaign("cinder_reach", seed=seed, campaign_id=cid)
        engine.play_turn(cid, "look around")
        engine.play_turn(cid, "wait")
    engine.close()
    runner = CliRunner()
    said = runner.invoke(app, ["doctor", "--db", url])
    assert "passes Skald's own checks" in said.output, said.output
    with psycopg.connect(url, autocommit=True) as raw:
        raw.execute("DELETE FROM branch_turns WHERE campaign_id = 'hurt' AND turn_number = 1")
        raw.execute("UPDATE characters SET credits = credits + 500 WHERE campaign_id = 'sound'")
    said = runner.invoke(app, ["doctor", "--db", url])
    assert said.exit_code == 1, said.output
    line = next(row for row in said.output.splitlines() if "but is damaged" in row)
    assert "campaign hurt: branch main's line has no turn at number 1" in line
    assert "campaign sound: its saved state differs from its events folded at turn 2 (in player)" in line
    played = runner.invoke(app, ["play", "--db", url, "--campaign", "hurt"], input="wait\n")
    assert played.exit_code == 2 and "campaign hurt is damaged" in played.output, played.output
