"""How a `skald play` process ends, and what it prints on its way: with a lore index on disk and a model that answers
HTTP 500, a scripted game exits 0 every time (issue 31: it died of a segmentation fault at exit, a background scene
brief still inside Chroma's native code as the interpreter finalized), and no library's log line reaches the terminal
unless ``--debug`` asks for them (they go to the log file, ``SKALD_LOG_FILE``).

Every run is a real ``skald`` subprocess against the loopback fake Ollama server, over one index that ``skald ingest``
built once for the module."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fake_ollama import ANY, FakeOllama, http_error

SKALD = [sys.executable, "-m", "skald"]
# The last turn is the first the player stays for in a new place, so its Commit starts the Director's brief of that
# scene in the background, and the brief's retrieval runs while the process ends.
SCRIPT = "look around\ngo to Kettle Row\nlook around\n"
RUNS = 20
# A record as logging.basicConfig prints it (LEVEL:logger:message), or httpx's request line in any format.
LIBRARY_LINE = re.compile(r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]+:|HTTP Request:", re.MULTILINE)


@pytest.fixture(scope="module")
def failing_model():
    with FakeOllama() as server:
        server.always(ANY, http_error(500))
        yield server


@pytest.fixture(scope="module")
def lore(tmp_path_factory) -> Path:
    """A lore index of the default pack, built by ``skald ingest`` (shared by every run: they only read it)."""
    path = tmp_path_factory.mktemp("lore") / "chroma"
    out = subprocess.run([*SKALD, "ingest", "cinder_reach"], capture_output=True, text=True, timeout=120,
                         env=environment(SKALD_CHROMA_PATH=str(path)))
    assert out.returncode == 0, out.stderr
    return path


def environment(**extra: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SKALD_")} | extra


def play(folder: Path, model: FakeOllama, lore: Path, *options: str) -> subprocess.CompletedProcess:
    """``skald play --script`` in ``folder`` (its save file and log file there), retrieval on, every LLM call failing
    at once (no retries: each run costs what its imports and three turns cost)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "script.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    env = environment(SKALD_LLM="on", SKALD_OLLAMA_BASE_URL=model.url, SKALD_CHROMA_PATH=str(lore),
                      SKALD_RETRIEVAL="true", SKALD_RETRIES="0", SKALD_LOG_FILE=str(folder / "skald.log"))
    return subprocess.run([*SKALD, "play", "--script", str(script), "--db", str(folder / "save.db"), "--seed", "1",
                           *options], capture_output=True, text=True, env=env, timeout=120, cwd=folder)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, failing_model, lore) -> list[tuple[Path, subprocess.CompletedProcess]]:
    """:data:`RUNS` runs of the script, a few at a time: (the run's folder, the finished process)."""
    folders = [tmp_path_factory.mktemp("run") for _ in range(RUNS)]
    with ThreadPoolExecutor(max(2, min(4, os.cpu_count() or 1))) as pool:
        return list(zip(folders, pool.map(lambda folder: play(folder, failing_model, lore), folders), strict=True))


def test_every_run_with_retrieval_and_a_failing_model_exits_0(runs):
    codes = [run.returncode for _, run in runs]
    assert codes == [0] * RUNS, [run.stderr[-2000:] for _, run in runs if run.returncode]
    for _, run in runs:
        assert "[turn 3] > look around" in run.stdout and "[Kettle Row |" in run.stdout
        assert "retrieval:" not in run.stdout  # the lanes worked: only the model failed
        # The Director was asked: the brief prefetched when the campaign opened is waited for by turn 1 for a bounded
        # time, so turn 1 reports either its failure or that it was still being written (with retrieval on a busy
        # machine, the failed call may then be reported by no later turn of this short script).
        assert ("director: no usable brief from the model" in run.stdout
                or "director: the scene's brief was still being written" in run.stdout), run.stdout[-2000:]


def test_library_logs_stay_off_the_terminal_and_go_to_the_log_file(runs):
    for folder, run in runs:
        assert not LIBRARY_LINE.search(run.stdout + run.stderr), (run.stdout + run.stderr)[-2000:]
        logged = (folder / "skald.log").read_text(encoding="utf-8")
        assert re.search(r"INFO httpx: HTTP Request: POST http://127\.0\.0\.1:\d+/api/chat \"HTTP/1\.1 500", logged)


def test_debug_shows_library_logs_on_stderr(tmp_path, failing_model, lore):
    run = play(tmp_path, failing_model, lore, "--debug")
    assert run.returncode == 0, run.stderr[-2000:]
    assert re.search(r"INFO httpx: HTTP Request: POST .*/api/chat \"HTTP/1\.1 500", run.stderr)
    assert not LIBRARY_LINE.search(run.stdout)  # the story and the metrics stay on stdout, the logs on stderr
    assert "HTTP Request: POST" in (tmp_path / "skald.log").read_text(encoding="utf-8")
