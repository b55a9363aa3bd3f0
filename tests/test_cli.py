"""The real ``skald`` command, run as a subprocess the way a player or CI would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support import SCRIPT_30

SKALD = [sys.executable, "-m", "skald"]
ENV = {**os.environ, "SKALD_LLM": "off"}


def skald(*args: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*SKALD, *args], input=stdin, capture_output=True, text=True, env=ENV, timeout=120,
                          cwd=cwd)


def test_piped_stdin_plays_turns_without_prompts(tmp_path):
    out = skald("play", "--db", str(tmp_path / "p.db"), "--seed", "5",
                stdin="look around\ntalk to the bartender\n/quit\n")
    assert out.returncode == 0, out.stderr
    assert "offline narrator" in out.stdout  # the mode is announced once, at start
    assert out.stdout.count("offline narrator") == 1
    assert "[turn 1] > look around" in out.stdout and "[turn 2] > talk to the bartender" in out.stdout
    assert "Resume with: skald play --campaign cinder_reach-5-1" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def test_json_output_has_the_documented_shape(tmp_path):
    out = skald("play", "--db", str(tmp_path / "j.db"), "--seed", "1", "--script", str(SCRIPT_30), "--json")
    assert out.returncode == 0, out.stderr
    turns = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(turns) == 30
    for turn in turns:
        keys = {"campaign_id", "turn_number", "input", "intent", "text", "suggestions", "warnings", "state"}
        assert keys <= set(turn)
        assert len(turn["suggestions"]) == 4
        assert all(set(s) == {"label", "tone", "risk", "minutes", "stat"} for s in turn["suggestions"])
        assert {"location", "world_time_minutes", "hp", "credits", "stress", "party"} <= set(turn["state"])
    story = [t for t in turns if t["intent"] != "META"]
    assert [t["turn_number"] for t in story] == list(range(1, len(story) + 1))  # a /command is not a turn
    for before, meta in zip(turns, turns[1:], strict=False):
        if meta["intent"] == "META":
            assert meta["turn_number"] == before["turn_number"] and meta["suggestions"] == before["suggestions"]


def test_same_seed_same_inputs_same_output(tmp_path):
    a = skald("play", "--db", str(tmp_path / "a.db"), "--seed", "9", "--script", str(SCRIPT_30), "--json")
    b = skald("play", "--db", str(tmp_path / "b.db"), "--seed", "9", "--script", str(SCRIPT_30), "--json")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout


def test_a_number_plays_that_suggestion_and_resume_continues(tmp_path):
    db = str(tmp_path / "r.db")
    first = skald("play", "--db", db, "--seed", "2", "--json", stdin="look around\n2\n")
    turns = [json.loads(line) for line in first.stdout.splitlines()]
    assert turns[1]["input"] == turns[0]["suggestions"][1]["label"]
    resumed = skald("play", "--db", db, "--campaign", turns[0]["campaign_id"], "--json", stdin="/status\n")
    again = json.loads(resumed.stdout.splitlines()[0])
    assert again["turn_number"] == 2 and again["intent"] == "META"  # /status is not a turn


def test_bad_input_in_a_script_is_reported_and_play_goes_on(tmp_path):
    out = skald("play", "--db", str(tmp_path / "e.db"), "--seed", "3", "--json",
                stdin="look around\n" + "x" * 10_000 + "\nrest\n")
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert "error" in lines[1] and "limit is 2,000" in lines[1]["error"]
    assert lines[2]["turn_number"] == 2


def test_unknown_campaign_and_pack_get_clear_errors(tmp_path):
    out = skald("play", "--db", str(tmp_path / "x.db"), "--campaign", "nope")
    assert out.returncode == 2 and "no campaign 'nope'" in out.stderr and "Traceback" not in out.stderr
    out = skald("play", "--db", str(tmp_path / "x.db"), "--pack", "atlantis")
    assert out.returncode == 2 and "no such era pack" in out.stderr and "cinder_reach" in out.stderr


def test_campaigns_lists_the_save_file(tmp_path):
    db = str(tmp_path / "l.db")
    skald("play", "--db", db, "--seed", "4", stdin="look around\n")
    out = skald("campaigns", "--db", db)
    assert "cinder_reach-4-1\tturn 1" in out.stdout
