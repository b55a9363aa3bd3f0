"""Files that are not Skald's, and damaged ones (issue 34). Another application's SQLite database is refused by
every command that opens a save file (read-only or not), with what to do, and left byte for byte as it was: no Skald
tables, no schema version, no WAL mode, no -wal or -shm file; ``doctor`` says so too, and an empty file is not a
crash. ``doctor`` also finds what SQLite's integrity_check cannot see (a table gone, a branch head pointing at no
turn, an event that does not parse) and changes nothing."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from skald.errors import SaveFileError
from skald.store.db import connect
from support import ROOT


def _foreign(path: Path) -> str:
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    raw.execute("INSERT INTO notes (body) VALUES ('keep me')")
    raw.commit()
    raw.close()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _skald(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKALD_")} | {"SKALD_LLM": "off",
                                                                                  "SKALD_RETRIEVAL": "false"}
    return subprocess.run([sys.executable, "-m", "skald", *args], input="look around\n", capture_output=True,
                          text=True, env=env, timeout=120, cwd=ROOT)


@pytest.mark.parametrize("readonly", [True, False])
def test_opening_another_applications_database_changes_nothing(tmp_path: Path, readonly: bool) -> None:
    path = tmp_path / "other.db"
    before = _foreign(path)
    with pytest.raises(SaveFileError) as refused:
        connect(path, readonly=readonly)
    assert refused.value.reason == "not_skald" and "tables: notes" in str(refused.value)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


@pytest.mark.parametrize("command", [["campaigns"], ["db", "export", "x"], ["play"], ["db", "upgrade"]])
def test_every_command_refuses_it_and_leaves_it_as_it_was(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "other.db"
    before = _foreign(path)
    done = _skald(*command, "--db", str(path))
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert "another application's SQLite database" in done.stdout + done.stderr
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_doctor_names_a_foreign_file_and_an_empty_one_without_crashing(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    before = _foreign(other)
    said = _skald("doctor", "--db", str(other))
    assert said.returncode == 1 and "Traceback" not in said.stderr
    assert "PROBLEM" in said.stdout and "another application's SQLite database" in said.stdout
    assert hashlib.sha256(other.read_bytes()).hexdigest() == before
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    said = _skald("doctor", "--db", str(empty))
    assert "Traceback" not in said.stderr and "is an empty file" in said.stdout
    assert empty.read_bytes() == b""
