"""Commit is the only writer; failures anywhere write nothing; racing turns commit one and reject the other."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from skald import graph as graph_module
from skald.engine import start_campaign
from skald.errors import PlayerInputError, TurnConflictError
from skald.graph import NODES, build_graph, run_turn
from skald.llm.client import LLMClient
from skald.settings import Settings
from skald.store import writer
from skald.store.db import connect
from skald.store.reads import load_state
from skald.store.schema import SCHEMA_VERSION

BOTH_STORES = True  # every test runs on SQLite and on PostgreSQL (conftest), unless marked sqlite_only
TABLES = ("campaigns", "world_state", "characters", "inventory", "party", "reputation", "known_npcs", "quests",
          "turns", "turn_events", "turn_memories")


def dump(conn: sqlite3.Connection) -> dict[str, list[tuple]]:
    return {t: sorted(tuple(r) for r in conn.execute(f"SELECT * FROM {t}")) for t in TABLES}


def play(conn, state, text, pack, llm, **kw):
    return run_turn(conn, state.model_copy(update={"player_input": text}), pack=pack, llm=llm, **kw)


def test_a_node_that_writes_fails_and_nothing_is_written(conn, campaign, pack, offline_llm):
    def sneaky_encounter(state, runtime):
        runtime.context.conn.execute("UPDATE characters SET credits = 9999")
        return {}

    before = dump(conn)
    rogue = build_graph({"encounter": sneaky_encounter}).compile()
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        play(conn, campaign, "look around", pack, offline_llm, graph=rogue)
    assert dump(conn) == before


@pytest.mark.parametrize("node", [n for n in NODES if n != "commit"])
def test_failure_in_any_node_leaves_the_db_unchanged(conn, campaign, pack, offline_llm, node):
    def broken(state, runtime):
        raise RuntimeError(f"injected failure in {node}")

    # route every input through the node under test: META for meta, ACTION for mechanic, a group addressed for the
    # scene and its characters (the campaign starts at the Slag & Lantern, Hesper and Rhea there), TALK otherwise
    # and for the interpreter a line the rules cannot place, with a model said to answer (the node never calls it)
    text = {"meta": "/status", "mechanic": "look around", "scene": "Hesper, Rhea, what do you both make of this?",
            "character": "Hesper, Rhea, what do you both make of this?",
            "timeline": "/fork other", "interpreter": "flibbertigibbet"}.get(node, "look around")
    llm = LLMClient(Settings(llm="on", ollama_base_url="http://127.0.0.1:9", retrieval=False), online=True) \
        if node == "interpreter" else offline_llm
    before = dump(conn)
    with pytest.raises(RuntimeError, match="injected failure"):
        play(conn, campaign, text, pack, llm, graph=build_graph({node: broken}).compile())
    assert dump(conn) == before


def test_failure_inside_the_commit_transaction_rolls_back(conn, campaign, pack, offline_llm, monkeypatch):
    real = writer._write_projections

    def half_then_fail(conn_, cid, old, new):
        real(conn_, cid, old, new)  # projections written inside the transaction...
        raise sqlite3.OperationalError("disk I/O error (injected)")  # ...then the disk fails

    before = dump(conn)
    monkeypatch.setattr(writer, "_write_projections", half_then_fail)
    with pytest.raises(sqlite3.OperationalError, match="injected"):
        play(conn, campaign, "look around", pack, offline_llm)
    assert dump(conn) == before
    monkeypatch.undo()
    after = play(conn, campaign, "look around", pack, offline_llm)  # the campaign plays on
    assert after.campaign.turn_number == 1


def test_a_transient_failure_is_run_again_whole_at_most_three_times_and_never_doubles_the_turn(
        conn, campaign, pack, offline_llm, monkeypatch, store):
    import psycopg
    from skald.store import postgres

    real = writer._write_projections
    runs = []

    def serialization_failure_once(conn_, cid, old, new):
        runs.append(1)
        real(conn_, cid, old, new)  # the first run writes half its rows, then PostgreSQL gives up on it
        if len(runs) == 1:
            raise postgres.mapped(psycopg.errors.SerializationFailure("could not serialize access (injected)"))

    monkeypatch.setattr(writer, "_write_projections", serialization_failure_once)
    if store == "sqlite":  # nothing on SQLite is retried (its busy timeout waits instead): the error, nothing written
        before = dump(conn)
        with pytest.raises(sqlite3.OperationalError, match="serialize"):
            play(conn, campaign, "look around", pack, offline_llm)
        assert len(runs) == 1 and dump(conn) == before
        return
    after = play(conn, campaign, "look around", pack, offline_llm)
    assert after.campaign.turn_number == 1 and len(runs) == 2
    assert conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == 1
    assert conn.execute("SELECT COUNT(DISTINCT turn_number) FROM turn_events").fetchone()[0] == 1

    def always(conn_, cid, old, new):
        runs.append(1)
        raise postgres.mapped(psycopg.errors.DeadlockDetected("deadlock detected (injected)"))

    monkeypatch.setattr(writer, "_write_projections", always)
    before, runs[:] = dump(conn), []
    with pytest.raises(sqlite3.OperationalError, match="deadlock"):
        play(conn, after, "rest", pack, offline_llm)
    assert len(runs) == 3 and dump(conn) == before  # bounded, and nothing of it written


def test_connection_stays_read_only_outside_commit(conn, campaign, pack, offline_llm):
    play(conn, campaign, "look around", pack, offline_llm)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("DELETE FROM turns")


def test_two_racing_turns_commit_one_and_reject_the_other(db_path, pack, offline_llm):
    setup = connect(db_path)
    base = start_campaign(setup, pack, seed=4, campaign_id="race")
    barrier = threading.Barrier(2, timeout=20)

    def commit_after_both_ready(state, runtime):
        barrier.wait()  # both turns have run every node on the same turn number
        return graph_module.commit(state, runtime)

    racing = build_graph({"commit": commit_after_both_ready}).compile()
    results: dict[str, object] = {}

    def worker(name: str, text: str) -> None:
        conn = connect(db_path)
        try:
            results[name] = play(conn, base, text, pack, offline_llm, graph=racing)
        except Exception as exc:  # noqa: BLE001 - the test inspects what each thread got
            results[name] = exc
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(n, t)) for n, t in (("a", "look around"), ("b", "rest"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    errors = [r for r in results.values() if isinstance(r, Exception)]
    wins = [r for r in results.values() if not isinstance(r, Exception)]
    assert len(wins) == 1 and len(errors) == 1
    assert isinstance(errors[0], TurnConflictError)
    assert "moved on to turn 1" in str(errors[0]) and "nothing was saved" in str(errors[0])
    assert errors[0].current_turn == 1
    assert setup.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == 1
    assert setup.execute("SELECT COUNT(DISTINCT turn_number) FROM turn_events").fetchone()[0] == 1
    assert load_state(setup, "race").campaign.turn_number == 1
    setup.close()


def test_a_stale_state_is_rejected(conn, campaign, pack, offline_llm):
    play(conn, campaign, "look around", pack, offline_llm)
    before = dump(conn)
    with pytest.raises(TurnConflictError):
        play(conn, campaign, "rest", pack, offline_llm)  # still based on turn 0
    assert dump(conn) == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "nothing to play"),
        ("   \n\t ", "nothing to play"),
        ("x" * 10_000, "the limit is 2,000"),
        ("look\x07 around", "control characters (U+0007)"),
        ("\x1b[31mred\x1b[0m", "control characters (U+001B)"),
    ],
)
def test_bad_input_gets_a_clear_error_and_no_write(conn, campaign, pack, offline_llm, text, message):
    before = dump(conn)
    with pytest.raises(PlayerInputError) as caught:
        play(conn, campaign, text, pack, offline_llm)
    assert message in str(caught.value)
    assert dump(conn) == before


@pytest.mark.sqlite_only
def test_schema_pragmas_and_version(conn):
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    names = [r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = 'skald'")]
    assert names == ["m001_initial", "m002_retrieval", "m003_api", "m004_views", "m005_offer", "m006_quest_hints",
                     "m007_episodes", "m008_scene_briefs", "m009_scenes",
                     "m010_profiles", "m011_snapshots", "m012_timelines", "m013_setup_sessions", "m014_unique_variants"]


@pytest.mark.sqlite_only
def test_reopening_a_database_does_not_migrate_twice(db_path):
    connect(db_path).close()
    again = connect(db_path)
    assert again.execute("SELECT COUNT(*) FROM _sqlite_migrations").fetchone()[0] == SCHEMA_VERSION
    again.close()


@pytest.mark.sqlite_only
def test_a_version_1_save_file_is_migrated_and_keeps_its_campaigns(db_path, pack, offline_llm):
    import sqlite_utils
    from skald.store.schema import registry

    migrations = registry()

    old = sqlite3.connect(db_path, isolation_level=None)
    migrations.apply(sqlite_utils.Database(old), stop_before="m002_retrieval")  # a save file from before m002
    old.execute("PRAGMA user_version = 1")
    new = connect(":memory:")  # a campaign saved before the upgrade: its rows, as far as version 1 had columns
    start_campaign(new, pack, seed=2, campaign_id="old")
    for table in ("campaigns", "world_state", "characters", "inventory", "party", "reputation", "known_npcs",
                  "quests"):
        columns = [r[1] for r in old.execute(f"PRAGMA table_info({table})")]
        for row in new.execute(f"SELECT {', '.join(columns)} FROM {table}"):
            old.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                        tuple(row))
    new.close()
    old.close()
    conn = connect(db_path)  # opening it applies m002 (and every later migration)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    state = load_state(conn, "old")
    after = play(conn, state, "look around", pack, offline_llm)
    assert after.campaign.turn_number == 1
    assert conn.execute("SELECT COUNT(*) FROM turn_memories").fetchone()[0] == 1
    conn.close()


@pytest.mark.sqlite_only
def test_a_commit_that_fails_at_commit_time_rolls_back_and_restores_the_guard(conn, campaign):
    from skald.store.db import writing

    before = dump(conn)
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        with writing(conn):
            conn.execute("PRAGMA defer_foreign_keys = ON")  # the violation surfaces only at COMMIT
            conn.execute("INSERT INTO inventory (campaign_id, item_id, qty) VALUES ('ghost', 'x', 1)")
    assert not conn.in_transaction
    assert dump(conn) == before
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("DELETE FROM turns")


@pytest.mark.sqlite_only
def test_schema_version_counts_every_migration(conn):
    from skald.store.schema import MIGRATIONS, SCHEMA_VERSION, registry, schema_version

    assert schema_version(conn) == SCHEMA_VERSION == len(MIGRATIONS) == len(registry()._migrations)
