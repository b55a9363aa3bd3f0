"""Save files that never surprise (issue 12, defects 3, 5, 6 and 8): a corpus of broken files, each refused with one
clear message and left unchanged; read-only work that never takes the write lock; many processes opening one new
file; invalid UTF-8 on the command line; and the durability setting."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from skald.cli.doctor import _save_file
from skald.engine import Engine
from skald.errors import SaveFileError
from skald.store import sqlite as store_sqlite
from skald.store.db import connect
from skald.store.schema import SCHEMA_VERSION

SKALD = [sys.executable, "-m", "skald"]
ENV = {**os.environ, "SKALD_LLM": "off", "SKALD_RETRIEVAL": "false"}
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def skald(*args: str, stdin: bytes = b"", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*SKALD, *args], input=stdin, capture_output=True, env=ENV, timeout=timeout)


def played_save(path: Path, turns: int = 12) -> str:
    """A real save file with one campaign and ``turns`` turns, checkpointed (no -wal left)."""
    engine = Engine(path, retriever=None)
    created = engine.create_campaign("cinder_reach", seed=7, campaign_id="c1")
    for text in ["look around", "talk to the bartender", "rest", "walk to Kettle Row"] * (turns // 4):
        engine.play_turn("c1", text)
    engine.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return created.state.campaign.id


# ------------------------------------------------------------------------------------------ the corpus


def _not_a_database(path: Path) -> None:
    path.write_text("campaign: c1\nturn: 12\n# a YAML file saved with the wrong name\n" * 40)


def _truncated(path: Path) -> None:
    played_save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _corrupt_page(path: Path) -> None:
    played_save(path)
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'turns'").fetchone()[0]
    conn.close()
    with path.open("r+b") as handle:  # scribble over the turns table's root page, past its header
        handle.seek((root - 1) * page_size + 8)
        handle.write(b"\xa5" * (page_size - 16))


def _newer_schema(path: Path) -> None:
    played_save(path, turns=4)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    conn.close()


@dataclass(frozen=True)
class Broken:
    make: Callable[[Path], None]
    reason: str
    words: tuple[str, ...]


CORPUS = {
    "not_a_database": Broken(_not_a_database, "not_a_database", ("is not a Skald save", "was not changed")),
    "truncated": Broken(_truncated, "corrupt", ("is damaged", ".recover")),
    "corrupt_page": Broken(_corrupt_page, "corrupt", ("is damaged", "will not write into it")),
    "newer_schema": Broken(_newer_schema, "newer_schema",
                           (f"schema version {SCHEMA_VERSION + 3}", f"knows up to {SCHEMA_VERSION}", "not changed")),
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_a_broken_save_file_is_refused_with_one_clear_message_and_left_unchanged(tmp_path, name):
    """Defect 6: a corrupt file was played into, and a newer one opened and written, without a word."""
    broken = CORPUS[name]
    path = tmp_path / "save.db"
    broken.make(path)
    before = path.read_bytes()
    with pytest.raises(SaveFileError) as err:
        Engine(path, retriever=None)
    assert err.value.reason == broken.reason
    for words in broken.words:
        assert words in str(err.value), str(err.value)
    assert str(path) in str(err.value)
    assert path.read_bytes() == before  # nothing was written to it


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_play_and_doctor_name_the_problem_without_a_traceback(tmp_path, name):
    broken = CORPUS[name]
    path = tmp_path / "save.db"
    broken.make(path)
    out = skald("play", "--db", str(path), "--campaign", "c1", stdin=b"look around\n")
    err = out.stderr.decode()
    assert out.returncode == 2 and "Traceback" not in err and broken.words[0] in err, err
    check = _save_file(path)
    assert not check.ok and broken.words[0] in check.what


def test_doctor_runs_integrity_check_on_a_good_file(tmp_path):
    path = tmp_path / "good.db"
    played_save(path, turns=4)
    check = _save_file(path)
    assert check.ok and "integrity_check" in check.what and f"schema version {SCHEMA_VERSION}" in check.what


def test_a_save_opened_read_only_reads_but_refuses_a_turn_in_plain_words(tmp_path):
    path = tmp_path / "ro.db"
    played_save(path, turns=4)
    before = path.read_bytes()
    engine = Engine(path, retriever=None, readonly=True)
    assert engine.load("c1").campaign.turn_number == 4 and engine.campaigns()[0].campaign_id == "c1"
    with pytest.raises(SaveFileError) as err:
        engine.play_turn("c1", "look around")
    assert err.value.reason == "read_only" and "nothing already saved was lost" in str(err.value)
    engine.close()
    assert path.read_bytes() == before


@pytest.mark.skipif(ROOT, reason="root may write a read-only file")
def test_a_read_only_save_can_be_listed_and_read_but_not_played(tmp_path):
    """Defect 3: an immutable or read-only file ended in a traceback."""
    path = tmp_path / "ro.db"
    played_save(path, turns=4)
    path.chmod(0o444)
    try:
        out = skald("campaigns", "--db", str(path))
        assert out.returncode == 0 and "c1\tturn 4" in out.stdout.decode(), out.stderr.decode()
        engine = Engine(path, retriever=None, readonly=True)
        assert engine.load("c1").campaign.turn_number == 4
        with pytest.raises(SaveFileError) as err:
            engine.play_turn("c1", "look around")
        assert err.value.reason in ("read_only", "cannot_open") and "nothing already saved was lost" in str(err.value)
        engine.close()
        out = skald("play", "--db", str(path), "--campaign", "c1", stdin=b"look around\n")
        text = out.stdout.decode() + out.stderr.decode()
        assert "Traceback" not in text and "read-only" in text, text
    finally:
        path.chmod(0o644)
    assert Engine(path, retriever=None).load("c1").campaign.turn_number == 4


# ------------------------------------------------------------------------------------------ locks and processes


def test_listing_campaigns_does_not_wait_for_a_writer(tmp_path):
    """Defect 3: ``skald campaigns`` failed after 11 s while another process was writing."""
    path = tmp_path / "busy.db"
    played_save(path, turns=4)
    writer = connect(path)
    writer.execute("PRAGMA query_only = OFF")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE campaigns SET updated_at = 'now'")
    try:
        # the writer holds its lock until this block ends: a reader that waited on it would have failed after the
        # busy timeout, so a listing that succeeds never waited (no clock needed to tell)
        out = skald("campaigns", "--db", str(path), timeout=60)
        assert out.returncode == 0 and "c1\tturn 4" in out.stdout.decode(), out.stderr.decode()
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_writer_locked_out_past_the_busy_timeout_gets_a_clear_message(tmp_path, monkeypatch):
    path = tmp_path / "locked.db"
    played_save(path, turns=4)
    monkeypatch.setattr(store_sqlite, "BUSY_TIMEOUT_MS", 200)
    engine = Engine(path, retriever=None)
    holder = connect(path)
    holder.execute("PRAGMA query_only = OFF")
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(SaveFileError) as err:
            engine.play_turn("c1", "look around")
        assert err.value.reason == "locked" and "nothing already saved was lost" in str(err.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert engine.play_turn("c1", "look around").view.turn_number == 5  # nothing was half-written
    engine.close()


OPEN_ONE = "import sys; from skald.store.db import connect; connect(sys.argv[1]).close()"


def test_many_processes_opening_one_new_file_at_once_all_succeed(tmp_path):
    """Defect 3: 6 of 30 processes opening a new file at once died with "database is locked"."""
    path = tmp_path / "new.db"
    procs = [subprocess.Popen([sys.executable, "-c", OPEN_ONE, str(path)], stderr=subprocess.PIPE) for _ in range(16)]
    errors = [p.communicate(timeout=120)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0] * len(procs), [e for e in errors if e][:1]
    conn = connect(path, readonly=True)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0] == SCHEMA_VERSION  # once each
    conn.close()


def test_opening_an_up_to_date_file_writes_nothing(tmp_path):
    path = tmp_path / "quiet.db"
    played_save(path, turns=4)
    before = path.read_bytes()
    for readonly in (False, True):
        conn = connect(path, readonly=readonly)
        conn.execute("SELECT count(*) FROM turns").fetchone()
        conn.close()
    assert path.read_bytes() == before


@pytest.mark.parametrize("mode, expected", [("NORMAL", 1), ("FULL", 2)])
def test_synchronous_is_a_setting(tmp_path, monkeypatch, mode, expected):
    """Defect 8: durability is a choice (README, "What a crash can cost")."""
    from skald.settings import get_settings

    monkeypatch.setenv("SKALD_DB_SYNCHRONOUS", mode)
    get_settings.cache_clear()
    try:
        engine = Engine(tmp_path / "sync.db", retriever=None)
        with engine.pool.connection() as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == expected
        engine.close()
    finally:
        get_settings.cache_clear()


# ------------------------------------------------------------------------------------------ encoding


def test_invalid_utf8_in_piped_input_is_reported_and_play_goes_on(tmp_path):
    """Defect 5: invalid UTF-8 on stdin ended the session with a traceback."""
    out = skald("play", "--db", str(tmp_path / "u.db"), "--seed", "3", "--json",
                stdin=b"look around\nsell my \xff\xfe lamp\nrest\n")
    lines = [line for line in out.stdout.decode().splitlines() if line.strip()]
    assert out.returncode == 0 and "Traceback" not in out.stderr.decode()
    assert '"line": 2' in lines[1] and "not UTF-8" in lines[1] and "0xff" in lines[1]
    assert '"turn_number": 2' in lines[2]  # the next line played as the next turn


def test_invalid_utf8_in_a_script_file_is_reported_and_play_goes_on(tmp_path):
    script = tmp_path / "latin1.txt"
    script.write_bytes("look around\ntalk to the bartender about the café\nrest\n".encode("latin-1"))
    out = skald("play", "--db", str(tmp_path / "s.db"), "--seed", "3", "--script", str(script))
    text = out.stdout.decode()
    assert out.returncode == 0 and "Traceback" not in out.stderr.decode()
    assert "line 2 is not UTF-8 text (byte 0xe9" in text and "[turn 2] > rest" in text


def test_surrogates_from_a_non_utf8_terminal_are_refused_not_stored(tmp_path):
    """Under a C locale Python reads undecodable bytes as lone surrogates: they are refused with a message."""
    env = {**ENV, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": "ascii:surrogateescape"}
    code = ("import sys; from skald.cli.play import play_lines; from skald.cli.session import Session; "
            "from skald.llm.client import LLMClient; from skald.settings import get_settings; "
            "s = Session.open(sys.argv[1], LLMClient(get_settings(), online=False), seed=1, retriever=None); "
            "play_lines(s, sys.stdin, as_json=True)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "c.db")], input=b"look \xe9 around\nrest\n",
                         capture_output=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr.decode()
    lines = out.stdout.decode("ascii", "replace").splitlines()
    assert "invisible characters (U+DCE9)" in lines[0] and '"turn_number": 1' in lines[1]
