"""What someone here has said on a topic, and what the pack tells of it (``rules.recall``), on the shipped packs."""

from __future__ import annotations

import pytest
from skald.core.persistent import TurnSummary
from skald.packs.loader import load_pack
from skald.rules import recall
from skald.rules.scene import everyone_at
from skald.rules.start import new_state


@pytest.fixture(scope="module")
def saltmarsh():
    pack = load_pack("saltmarsh_reach")
    return pack, new_state(pack, seed=1)


@pytest.fixture(scope="module")
def cinder():
    pack = load_pack("cinder_reach")
    return pack, new_state(pack, seed=1)


def test_a_question_is_answered_by_the_line_that_shares_its_telling_words(saltmarsh):
    pack, state = saltmarsh
    people = everyone_at(state, pack, state.location)
    said = recall.said_line("the guys sitting by the window", None, people, state, pack)
    assert said is not None and said.who.id == "odile_pask" and "reeves" in said.line


def test_one_word_in_common_is_no_answer(saltmarsh):
    pack, state = saltmarsh
    people = everyone_at(state, pack, state.location)
    assert recall.said_line("so who is actually in charge", None, people, state, pack) is None  # "charge them full"


def test_the_one_asked_answers_for_themselves(saltmarsh):
    pack, state = saltmarsh
    people = everyone_at(state, pack, state.location)
    amos = next(p for p in people if p.id == "amos_tallowby")
    said = recall.said_line("which channels should i stay out of", amos, people, state, pack)
    assert said is not None and said.who is amos and "channels" in said.line
    odile = next(p for p in people if p.id == "odile_pask")
    assert recall.said_line("which channels should i stay out of", odile, people, state, pack) is None


def test_a_line_told_lately_is_not_told_again(saltmarsh):
    pack, state = saltmarsh
    people = everyone_at(state, pack, state.location)
    said = recall.said_line("the guys sitting by the window", None, people, state, pack)
    told = TurnSummary(turn=1, input="look around", action_class="INVESTIGATE", outcome="NO_ROLL",
                       location=state.location, sentences=[f'"{said.line}" says Odile Pask.'])
    again = recall.said_line("the guys sitting by the window", None, people, state.model_copy(
        update={"recent": [told]}), pack)
    assert said.line and (again is None or again.line != said.line)


@pytest.mark.parametrize(("text", "ref"), [
    ("Who are the salvagers everyone calls the Rustwake?", "rustwake"),
    ("Who are the Ninth Shift? I heard someone say the name", "union"),
    ("What is the Charter and who actually runs it?", "charter"),
])
def test_a_question_that_names_a_faction_is_about_it(cinder, text, ref):
    pack, state = cinder
    found = recall.record(text, state, pack)
    assert found is not None and found.record.ref == ref and found.named


def test_a_lore_title_is_named_only_with_what_the_document_says(saltmarsh, cinder):
    pack, state = saltmarsh
    found = recall.record("What happened to that abbey out in the water? People keep mentioning a bell.", state, pack)
    assert found.record.ref == "lore/the_drowned_abbey.md" and found.named and "bell" in found.sentence
    pack, state = cinder
    found = recall.record("whos the lady that lost her boat", state, pack)  # "Lamps for the lost" is not named
    assert found is None or not found.named


def test_a_secret_rumor_is_not_told_by_asking(saltmarsh):
    pack, state = saltmarsh
    assert "provost_takes_a_cut" not in state.world.public_rumors
    found = recall.record("does the provost take a cut of every sack the company runs", state, pack,
                          frozenset({"rumor"}))
    assert found is None or found.record.ref != "provost_takes_a_cut"
    told = state.model_copy(update={"world": state.world.model_copy(
        update={"known_rumors": [*state.world.known_rumors, "provost_takes_a_cut"]})})
    found = recall.record("does the provost take a cut of every sack the company runs", told, pack,
                          frozenset({"rumor"}))
    assert found is not None and found.record.ref == "provost_takes_a_cut" and found.named


def test_what_is_acted_out_is_not_asked():
    assert recall.spoken('*wanders over to the game* "Room for one more, lads?"') == "Room for one more, lads?"
    assert recall.spoken("*sniffs* what is that smell").strip() == "what is that smell"
    assert recall.spoken("who runs this place") == "who runs this place"
