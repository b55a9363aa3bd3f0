"""A damaged-save corpus: real save files (two campaigns played), one of them damaged with plain SQLite in a way
``PRAGMA integrity_check`` cannot see. ``skald doctor``, ``skald play``, ``skald db export`` and ``skald db upgrade``
each name the problem, print no traceback and leave the file byte for byte as it was; the sound campaign still
exports (the way out ``doctor`` points to)."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from skald.cli.main import app
from skald.engine import Engine
from skald.store import db as store_db
from skald.store import fsck, schema
from skald.store.pg_schema import sqlite_shape
from typer.testing import CliRunner

runner = CliRunner()
HURT, SOUND = "hurt", "sound"


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A save file with two campaigns of three turns each, checkpointed into one file."""
    path = tmp_path_factory.mktemp("damaged") / "base.db"
    engine = Engine(path, retriever=None)
    for cid, seed in ((HURT, 2), (SOUND, 3)):
        engine.create_campaign("cinder_reach", seed=seed, campaign_id=cid)
        for line in ("look around", "wait", "talk to the barkeep"):
            engine.play_turn(cid, line)
    engine.close()
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    return path


def _damaged(base: Path, tmp_path: Path, *statements: str) -> tuple[Path, str]:
    path = tmp_path / "save.db"
    shutil.copy(base, path)
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA foreign_keys = OFF")
    for statement in statements:
        raw.execute(statement.replace("{c}", f"'{HURT}'"))
    raw.commit()
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    return path, _digest(path)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


TURN2 = "(SELECT turn_id FROM turns WHERE campaign_id = {c} AND turn_number = 2)"
CASES = {
    "a table gone": (["DROP TABLE turn_memories"], "the table turn_memories is missing"),
    "head at no turn": (["UPDATE branches SET head_turn_id = 99999 WHERE campaign_id = {c}"],
                        "has its head at turn id 99999, which is not there"),
    "head off its line": (["UPDATE branches SET head_turn = 2 WHERE campaign_id = {c}"],
                          "but its line has another turn there"),
    "a gap in the line": (["DELETE FROM branch_turns WHERE campaign_id = {c} AND turn_number = 1"],
                          "line has no turn at number 1"),
    "a turn from nowhere": ([f"UPDATE turns SET parent_turn_id = 0, variant = 7 WHERE turn_id = {TURN2}"],
                            "not played from the turn before them (number 2)"),
    "event JSON cut": (["UPDATE turn_events SET data = '{\"half' WHERE campaign_id = {c} AND turn_number = 1"],
                       "not parse"),
    "event of no type": (["UPDATE turn_events SET type = 'NO_SUCH_EVENT' WHERE campaign_id = {c}"],
                         "not parse"),
    "world_state gone": (["DELETE FROM world_state WHERE campaign_id = {c}"], "its world_state row is gone"),
    "player gone": (["DELETE FROM characters WHERE campaign_id = {c}"], "its player's characters row is gone"),
    "state JSON cut": (["UPDATE world_state SET world = '{' WHERE campaign_id = {c}"], "saved state does not load"),
    "state and events disagree": (["UPDATE characters SET credits = credits + 500 WHERE campaign_id = {c}"],
                                  "differs from its events folded at turn 3 (in player)"),
    "current branch gone": (["DELETE FROM branches WHERE campaign_id = {c}"], "its current branch 'main' is gone"),
}


def test_the_tables_a_save_file_must_have_are_what_the_migrations_make() -> None:
    shape = sqlite_shape()
    try:
        assert tuple(store_db.tables(shape)) == schema.TABLES
    finally:
        shape.close()


def test_a_sound_save_has_no_problems(base: Path) -> None:
    conn = store_db.connect(base, readonly=True)
    try:
        from skald.cli.doctor import pack_limits

        assert fsck.problems(conn, pack_limits) == []
    finally:
        conn.close()
    said = runner.invoke(app, ["doctor", "--db", str(base)])
    assert "Skald's own checks" in said.output and "against its events folded" in said.output


@pytest.mark.parametrize("case", CASES)
def test_every_command_names_the_damage_and_changes_nothing(base: Path, tmp_path: Path, case: str) -> None:
    statements, said = CASES[case]
    path, before = _damaged(base, tmp_path, *statements)
    whole_file = case == "a table gone"
    checks = {
        "doctor": (["doctor", "--db", str(path)], 1),
        "play": (["play", "--db", str(path), "--campaign", HURT], 2),
        "export": (["db", "export", HURT, "--db", str(path), "--out", str(tmp_path / "out.jsonl")], 2),
        "upgrade": (["db", "upgrade", "--db", str(path)], 2 if whole_file else 1),
    }
    for name, (args, code) in checks.items():
        result = runner.invoke(app, args, input="look around\n")
        assert result.exit_code == code, (name, result.output)
        assert said in result.output, (name, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (name, result.exception)
        assert "Traceback" not in result.output, name
        assert _digest(path) == before, name
    assert not (tmp_path / "out.jsonl").exists()
    rescued = runner.invoke(app, ["db", "export", SOUND, "--db", str(path)])
    assert (rescued.exit_code != 0) == whole_file, rescued.output
    if not whole_file:  # the sound campaign moves to a new file and plays there
        target = tmp_path / "rescued.db"
        moved = runner.invoke(app, ["db", "import", "-", "--db", str(target)], input=rescued.output)
        assert moved.exit_code == 0, moved.output
        played = runner.invoke(app, ["play", "--db", str(target), "--campaign", SOUND], input="wait\n")
        assert played.exit_code == 0 and "Traceback" not in played.output, played.output


def test_the_api_answers_503_for_a_damaged_campaign_and_serves_the_others(tmp_path: Path) -> None:
    from test_api import live

    path = tmp_path / "api.db"
    with live(path) as api:
        hurt, auth = api.new_campaign(seed=2)
        sound, sound_auth = api.new_campaign(seed=3)
        assert api.turn(hurt, auth, "look around").status_code == 200
        raw = sqlite3.connect(path)
        raw.execute("DELETE FROM characters WHERE campaign_id = ?", (hurt,))
        raw.commit()
        raw.close()
        for reply in (api.client.get(f"/campaigns/{hurt}", headers=auth), api.turn(hurt, auth, "wait")):
            assert reply.status_code == 503, reply.text
            assert reply.json()["reason"] == "campaign_damaged" and "characters" not in reply.text
        assert api.turn(sound, sound_auth, "wait").status_code == 200
