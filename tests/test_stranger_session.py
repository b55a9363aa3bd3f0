"""Two strangers' first sessions, thirty lines each that a helper wrote from the player docs and a pack's data alone,
never the parser, played offline before anything was fixed: ``stranger_first_session.txt`` (cinder_reach; 8 lines
refused or answered about something else) and ``stranger_second_session.txt`` (saltmarsh_reach, an impatient,
sloppy typist, written after the first set's fixes; 14 of 30 missed, some of them because an earlier line had) and
``stranger_third_session.txt`` (cinder_reach, a player of parser games and tabletop ones, written after both: 15 of
30 missed). Each line that missed and is now answered is held here to an answer about what was asked."""

from __future__ import annotations

import pytest
from skald.engine import start_campaign
from skald.graph import run_turn
from skald.store.db import connect
from support import ROOT, script_lines

SCRIPTS = ROOT / "data" / "scripts"


def _played(folder, pack_id: str, script: str, llm) -> dict[str, str]:
    """Each line of the script and what the game answered, in order."""
    from skald.packs.loader import load_pack

    pack = load_pack(pack_id)
    conn = connect(folder / "s.db")
    state = start_campaign(conn, pack, seed=7, campaign_id="stranger")
    said = []
    for line in script_lines(SCRIPTS / script):
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm, retriever=None)
        said.append((line, state.final_text))
    conn.close()
    return dict(said)


@pytest.fixture(scope="module")
def answers(tmp_path_factory, offline_llm):
    return _played(tmp_path_factory.mktemp("first"), "cinder_reach", "stranger_first_session.txt", offline_llm)


@pytest.fixture(scope="module")
def third(tmp_path_factory, offline_llm):
    return _played(tmp_path_factory.mktemp("third"), "cinder_reach", "stranger_third_session.txt", offline_llm)


@pytest.fixture(scope="module")
def second(tmp_path_factory, offline_llm):
    return _played(tmp_path_factory.mktemp("second"), "saltmarsh_reach", "stranger_second_session.txt", offline_llm)


@pytest.fixture(scope="module")
def offline_llm():
    from skald.llm.client import LLMClient
    from skald.settings import Settings

    return LLMClient(Settings(), online=False)


@pytest.mark.parametrize(("line", "about"), [
    ("whos actually in charge of this town", "Halvard Charter Authority"),  # "in charge of", with a filler word
    ("hwo much are the fungus buns", "3 credits"),  # "hwo much": how much
    ("ill take one of those", "fungus bun"),  # the item just priced, not "no one of those for sale"
    ("/inv", "You carry"),  # a command's unique beginning is the command
    ("who is juno farrow?", "water seller"),  # asked about someone elsewhere: who she is, not "she is not here"
    ("hey juno, hesper says the slag and lantern's water got cut. why?", "will need persuading"),  # the job's secret
    ("come on, just between us. nobody has to know you told me", "persuade"),  # coaxing is persuasion
])
def test_each_line_is_answered_about_what_it_asks(answers, line, about):
    assert about in answers[line], answers[line]


def test_doubt_is_met_by_someone_standing_by_what_they_said(answers):
    told = answers["you're pulling my leg lol"]
    assert "You you" not in told
    assert "stands by it" in told or "does not take it back" in told or "Believe what you like" in told, told


def test_why_me_is_answered_with_their_reason_not_the_next_step(answers):
    told = answers["why me tho"]
    assert any(reason in told for reason in ("Nobody has bought you yet", "nobody else in here would",
                                              "finishes things")), told


def test_nothing_is_refused(answers, second, third):
    refused = [line for line, told in [*answers.items(), *second.items(), *third.items()]
               if "Nothing comes of that here" in told]
    assert refused == []


@pytest.mark.parametrize(("line", "about"), [
    ("can I make a perception check on the room?", "You find something"),  # a check by its tabletop name: a search
    ("I want to roll investigation: which pipes and meters is the missing water running past?", "You find"),
    ("quick rules question: how does levelling up work here? do I earn XP?", "no levels or experience points"),
    ("what happens if my character dies?", "If your HP reaches 0"),  # the pack's own defeat rule
    ("8 credits for a crank lamp? I'll give you 4 and a smile.", "will not let the hand lamp go for 4 credits"),
    ("ok ok, 8 it is. hand it over", "You buy the hand lamp for 8 credits"),  # the price taken
])
def test_each_line_of_the_third_session_is_answered_about_what_it_asks(third, line, about):
    assert about in third[line], third[line]


@pytest.mark.parametrize(("line", "about"), [
    ("who owns this dump", "runs the Brass Eel"),  # a slighting word for the place is still the place
    ("ill have two", "2 smoked eels"),  # two of the thing just priced, paid for both
    ("oi old timer whats ur deal", "Amos Tallowby"),  # hailed without a comma: the old eeler, not the last speaker
    ("whats her deal, the one in the red shawl", "Saffy"),  # "what's her deal": who she is
    ("is that him in the black gown? whats his problem", "Ansel Mirrow"),
    ("come on love u must know who ratted u out, just tell me, i wont say a word promise", "persuade"),
    ("k back to the eel", "You travel to the Brass Eel"),  # "back to" a place is going there
    ("/q", "Did you mean /quests or /quit?"),  # one letter runs nothing, and says what it may mean
])
def test_each_line_of_the_second_session_is_answered_about_what_it_asks(second, line, about):
    assert about in second[line], second[line]


def test_stepping_away_from_the_keyboard_is_not_a_deed(second):
    told = second["lol my cat just knocked my coffee over brb"]
    assert "The world waits while you are away" in told and "coffee for" not in told  # no coffee was ordered
