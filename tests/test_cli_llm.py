"""The CLI's LLM commands against a loopback Ollama-speaking server: doctor, models, and streaming in a terminal."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest
from fake_ollama import FakeOllama, json_reply, slow, text
from history import closed_port

SKALD = [sys.executable, "-m", "skald"]
ROLES_ENV = {"SKALD_DIRECTOR_MODEL": "dir", "SKALD_NARRATOR_MODEL": "nar", "SKALD_SUGGESTION_REFINER_MODEL": "ref",
             "SKALD_EVALUATOR_MODEL": "ref", "SKALD_CHARACTER_MODEL": "ref", "SKALD_SETUP_MODEL": "ref",
             "SKALD_INTERPRETER_MODEL": "ref"}
VALID = {"suggestions": [{"label": f"Do the {t.lower()} thing", "tone": t, "risk": "SAFE"}
                         for t in ("PARAGON", "INVESTIGATE", "RENEGADE", "NEUTRAL")]}


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SKALD_")}
    return base | {"SKALD_LLM": "auto", "SKALD_LOG_FILE": ""} | extra  # no log file in the working folder


def skald(*args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([*SKALD, *args], capture_output=True, text=True, env=env(**extra), timeout=60)


def test_doctor_without_ollama_prints_how_to_start_it(tmp_path):
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}"
        out = skald("doctor", "--db", str(tmp_path / "d.db"), SKALD_OLLAMA_BASE_URL=url)
    assert out.returncode == 1
    assert f"PROBLEM  Ollama does not answer at {url}" in out.stdout
    assert f"fix: OLLAMA_HOST={url} ollama serve" in out.stdout
    assert "ok       era pack cinder_reach loads" in out.stdout and "Traceback" not in out.stdout + out.stderr


def test_doctor_names_the_missing_model_and_the_pull_command(tmp_path):
    with FakeOllama(models=["dir", "ref"]) as server:
        url = server.url
        out = skald("doctor", "--db", str(tmp_path / "d.db"), SKALD_OLLAMA_BASE_URL=url, **ROLES_ENV)
    assert out.returncode == 1
    assert "PROBLEM  narrator: model nar is not pulled" in out.stdout
    assert f"fix: OLLAMA_HOST={url} ollama pull nar" in out.stdout
    assert "ok       director: model dir is pulled" in out.stdout
    assert "1 problem(s)" in out.stdout


def test_doctor_is_happy_when_everything_is_there(tmp_path):
    with FakeOllama(models=["dir:latest", "nar", "ref"]) as server:
        out = skald("doctor", "--db", str(tmp_path / "d.db"), SKALD_OLLAMA_BASE_URL=server.url, **ROLES_ENV)
    assert out.returncode == 0, out.stdout
    assert out.stdout.rstrip().endswith("all good")


def test_doctor_reports_bad_settings_with_the_fix(tmp_path):
    out = skald("doctor", "--db", str(tmp_path / "d.db"), SKALD_NARRATOR_TEMPERATURE="hot")
    assert out.returncode == 1
    assert "SKALD_NARRATOR_TEMPERATURE='hot'" in out.stdout and "fix: correct or unset" in out.stdout


def test_models_prints_each_role_with_overrides():
    out = skald("models", SKALD_NARRATOR_MODEL="qwen2.5:7b", SKALD_SUGGESTION_REFINER_BASE_URL="http://10.0.0.9:1")
    assert out.returncode == 0, out.stderr
    rows = {line.split("│")[1].strip(): line for line in out.stdout.splitlines() if line.startswith("│")}
    assert set(rows) == {"director", "narrator", "suggestion_refiner", "evaluator", "beat_classifier",
                         "character", "moderator", "setup", "interpreter"}
    assert "qwen2.5:7b" in rows["narrator"] and "http://127.0.0.1:11434" in rows["narrator"]
    assert "http://10.0.0.9:1" in rows["suggestion_refiner"]


@pytest.mark.parametrize(("variable", "message"), [
    ("SKALD_NARATOR_MODEL", "did you mean SKALD_NARRATOR_MODEL?"),
    ("SKALD_WIZARD_MODEL", "SKALD_WIZARD_MODEL: not a Skald setting"),
])
def test_unknown_settings_fail_at_start_up(variable, message):
    out = skald("models", **{variable: "x"})
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_invalid_values_fail_at_start_up():
    out = skald("play", "--script", "/dev/null", SKALD_RETRIES="many", SKALD_DIRECTOR_NUM_CTX="12")
    assert out.returncode == 2
    assert "SKALD_RETRIES='many'" in out.stderr


def _read_until(fd: int, pattern: str, limit_s: float = 30) -> str:
    """Read the terminal until ``pattern`` shows (bounded by ``limit_s``), returning everything read."""
    seen = b""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if re.search(pattern, seen.decode(errors="replace")):
                break
    return seen.decode(errors="replace")


def test_interactive_play_shows_the_narrators_tokens_as_they_stream(tmp_path):
    pieces = ["Dust sifts down from the struts. ", "Hesper wipes the bar without looking up. ",
              "Somewhere below, a drill coughs awake. ", "You wait, and the room waits with you. ",
              "A shift bell rings twice. "]
    with FakeOllama(models=["dir", "nar", "ref"]) as server:
        server.always("dir", text("Keep it quiet."))
        server.always("nar", slow("".join(pieces), chunk_delay_s=0.25, chunk_chars=len(pieces[0])))
        server.always("ref", json_reply(VALID))
        master, slave = pty.openpty()
        proc = subprocess.Popen([*SKALD, "play", "--db", str(tmp_path / "tty.db"), "--seed", "3"], stdin=slave,
                                stdout=slave, stderr=slave, close_fds=True,
                                env=env(SKALD_LLM="on", SKALD_OLLAMA_BASE_URL=server.url, COLUMNS="200",
                                        LINES="50", TERM="xterm", **ROLES_ENV))
        os.close(slave)
        try:
            _read_until(master, r"> ")
            os.write(master, b"look around\r")
            screen = _read_until(master, r"turn 1: look around")
            os.write(master, b"/quit\r")
            _read_until(master, r"Resume with")
        finally:
            proc.wait(30)
            os.close(master)
    first, last = screen.find("Dust sifts"), screen.find("shift bell")
    final_panel = screen.find("turn 1: look around")
    assert 0 <= first < last < final_panel  # the first words were on screen before the last ones arrived
    assert "Somewhere below" in screen[first:last]  # and more streamed in between
