"""What a player meets around the turns themselves: a /command is not a turn, every start and resume shows the scene
with four suggestions, a number picks a suggestion (and only 1-4 do), and the resume hint names the save file."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from skald.engine import Engine
from skald.errors import PlayerInputError
from support import ROOT

SKALD = [sys.executable, "-m", "skald"]


def skald(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([*SKALD, *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.fixture
def engine(tmp_path, offline_llm):
    made = Engine(tmp_path / "flow.db", llm=offline_llm, retriever=None)
    yield made
    made.close()


def test_a_slash_command_is_not_a_turn_and_keeps_the_offer(engine):
    cid = engine.create_campaign("cinder_reach", seed=4).state.campaign.id
    played = engine.play_turn(cid, "look around").view
    for command in ("/quests", "/status", "/party", "/inventory", "/rumors", "/news", "/help", "/save"):
        shown = engine.play_turn(cid, command).view
        assert shown.turn_number == played.turn_number == 1, command  # the counter players see does not move
        assert shown.suggestions == played.suggestions, command  # nor do the suggestions "1" would play
    assert engine.load(cid).campaign.turn_number == 1
    assert engine.turns(cid).total == 1 and [t.input for t in engine.turns(cid).turns] == ["look around"]
    picked = engine.play_turn(cid, "1").view
    assert picked.input == played.suggestions[0].label and picked.turn_number == 2


def test_a_new_campaign_opens_on_its_scene_with_four_suggestions(engine):
    made = engine.create_campaign("cinder_reach", seed=4, name="Ada")
    scene = made.scene
    assert scene.turn_number == 0 and len(scene.suggestions) == 4
    assert "Ada" in scene.text and "The Slag & Lantern" in scene.text and "Hesper Quill" in scene.text
    first = engine.play_turn(made.state.campaign.id, "2").view  # a number works on the very first turn
    assert first.input == scene.suggestions[1].label and first.turn_number == 1


def test_a_resumed_campaign_shows_where_it_stands_and_what_1_plays(engine):
    cid = engine.create_campaign("cinder_reach", seed=4).state.campaign.id
    last = engine.play_turn(cid, "talk to the bartender").view
    scene = engine.scene(cid)
    assert scene.turn_number == 1 and scene.suggestions == last.suggestions
    assert scene.text.lower().startswith("you are back in the slag & lantern")


@pytest.mark.parametrize("typed", ["7", "0", "-1", "5", "12."])
def test_a_number_outside_1_to_4_is_refused_not_played(engine, typed):
    cid = engine.create_campaign("cinder_reach", seed=4).state.campaign.id
    with pytest.raises(PlayerInputError, match="choose 1-4"):
        engine.play_turn(cid, typed)
    assert engine.load(cid).campaign.turn_number == 0


def test_the_terminal_shows_the_opening_scene_and_a_resume_shows_it_again(tmp_path):
    db = str(tmp_path / "cli.db")
    first = skald("play", "--db", db, "--seed", "6", stdin="look around\n/quit\n")
    assert first.returncode == 0, first.stderr
    assert "  1. " in first.stdout.split("[turn 1]")[0]  # four suggestions before the first turn
    campaign = json.loads(skald("play", "--db", db, "--campaign", "cinder_reach-6-1", "--json",
                                stdin="/status\n").stdout.splitlines()[0])["campaign_id"]
    resumed = skald("play", "--db", db, "--campaign", campaign, stdin="9\n3\n")
    assert "You are back in" in resumed.stdout and "  4. " in resumed.stdout.split("You are back in")[1]
    assert "choose 1-4" in resumed.stdout and "[turn 2]" in resumed.stdout


def test_the_resume_hint_names_a_save_file_that_is_not_the_default(tmp_path):
    db = tmp_path / "elsewhere.db"
    out = skald("play", "--db", str(db), "--seed", "6", stdin="/save\n/quit\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count(f"skald play --campaign cinder_reach-6-1 --db {db}") == 2  # /save and /quit


def test_a_streamed_turn_frees_its_campaign_before_it_says_the_turn_is_over(engine):
    """A client that reads the ``turn`` event (or an idempotent retry's stored answer, written at Commit) may play the
    next turn at once: the campaign is given back as the turn commits, not when the stream is closed later."""
    cid = engine.create_campaign("cinder_reach", seed=2, campaign_id="freed").state.campaign.id
    stream = engine.stream(engine.claim(cid, "look around").slot)
    kinds = []
    for kind, _ in stream:
        kinds.append(kind)
        if kind == "turn":
            break  # the stream is still open: its generator has not finished
    assert kinds[-1] == "turn"
    nxt = engine.claim(cid, "search the room")  # not TurnBusy
    assert nxt.slot is not None
    assert engine.play(nxt.slot).view.turn_number == 2
    stream.close()
