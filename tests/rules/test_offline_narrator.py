"""The offline narrator: 5-8 second-person sentences, at most 250 words, never repeating the last turn."""

from __future__ import annotations

import re

import pytest
from skald import events as ev
from skald.llm import offline
from skald.rules import checks, dice, intent
from skald.rules.population import cast
from skald.rules.prose import MAX_SENTENCES, MAX_WORDS, MIN_SENTENCES, sentences
from skald.state import GameState, SceneInstructions
from skald.vocab import ActionClass, Intent

VARIED = ["look around", "talk to the bartender", "ask Tobin about the drills", "rest", "go to Kettle Row",
          "look around", "talk to the deputy", "go to the Scrip Market", "buy a patch kit", "talk to Juno",
          "persuade Juno to lower her prices", "go to the Cistern Yard", "look around", "sneak past the guards",
          "go to the Scrip Market", "go to Kettle Row", "go to the Lowvent Clinic", "talk to Sefa",
          "go to Kettle Row", "go to the Slag & Lantern"]
MONOTONE = ["look around"]
RESTING = ["rest", "wait"]
YOU = re.compile(r"\byou(?:r|rs|rself)?\b", re.IGNORECASE)


def _play_turn(state: GameState, pack, text: str) -> tuple[GameState, str]:
    """One turn with the rules and the offline narrator; returns the next state and the narration."""
    turn = state.campaign.turn_number + 1
    state = GameState.starting(state, text)
    router = intent.classify(text, state, pack)
    assert router.intent != Intent.META
    rng = dice.turn_rng(state.campaign.seed, turn)
    if router.action_class == ActionClass.DIALOGUE_ONLY:
        res = checks.talk_result(router, state, pack)
    else:
        res = checks.resolve(router, state, pack, rng)
    state.router_output, state.intent, state.mechanic_result = router, router.intent, res.result
    _stage(state, res.events, pack)
    present, cast_events = cast(state, pack)
    state.present_npcs = present
    _stage(state, cast_events, pack)
    prose = offline.narrate(state, pack, dice.rng_for(state.campaign.seed, "narrate", turn))
    state.final_text = prose
    return GameState(**dict(state.closing())), prose


def _stage(state: GameState, events, pack) -> None:
    for name, value in ev.stage(state.after, events, ev.limits_of(pack)).items():
        setattr(state, name, getattr(state, name) + value if name == "staged_events" else value)


def _check_prose(prose: str) -> list[str]:
    parts = sentences(prose)
    assert MIN_SENTENCES <= len(parts) <= MAX_SENTENCES, prose
    assert len(prose.split()) <= MAX_WORDS, prose
    assert YOU.search(prose), prose
    assert len(parts) == len(set(parts)), prose  # no sentence twice within a turn
    return parts


def test_one_turn_of_offline_prose(state, pack):
    _, prose = _play_turn(state, pack, "look around")
    _check_prose(prose)
    assert "{" not in prose and "}" not in prose  # no unfilled template fields


@pytest.mark.parametrize("script", [VARIED, MONOTONE, RESTING], ids=["varied", "monotone", "resting"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_forty_turns_never_repeat_a_sentence_from_the_turn_before(make_state, pack, script, seed):
    state = make_state(seed=seed)
    previous: list[str] = []
    for n in range(40):
        state, prose = _play_turn(state, pack, script[n % len(script)])
        parts = _check_prose(prose)
        repeated = set(parts) & set(previous)
        assert not repeated, f"turn {n + 1} repeats {repeated}"
        assert state.recent[-1].sentences == parts
        previous = parts


def test_same_turn_same_prose(make_state, pack):
    a, b = make_state(seed=5), make_state(seed=5)
    assert _play_turn(a, pack, "look around")[1] == _play_turn(b, pack, "look around")[1]


def test_prose_states_the_outcome(state, pack):
    _, prose = _play_turn(state, pack, "go to Kettle Row")
    assert "You travel to Kettle Row." in prose
    assert "Kettle Row" in sentences(prose)[0]  # an arrival opens on the new place


def test_banter_from_the_director_is_used(state, pack):
    state = GameState.starting(state)
    state.director_instructions = SceneInstructions(beat="quiet", mood="wry",
                                                    banter='Rhea says, "Not fungus again."')
    prose = offline.narrate(state, pack, dice.rng_for(1, "narrate", 1))
    assert 'Rhea says, "Not fungus again."' in prose


def test_director_note_is_plain(state, pack):
    note = offline.director_note(state, pack, "a quiet beat", "wry")
    assert note.startswith("Play this as a quiet beat with a wry mood.")


@pytest.mark.parametrize("seed", [4, 5])
def test_every_location_holds_up_over_consecutive_turns(make_state, pack, seed):
    for location in pack.locations:
        state = make_state(seed=seed, location=location)
        previous: list[str] = []
        for n in range(8):
            state, prose = _play_turn(state, pack, ("look around", "rest")[n % 2])
            parts = _check_prose(prose)
            assert not set(parts) & set(previous), (location, n)
            previous = parts
