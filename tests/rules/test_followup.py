"""Follow-up questions (``rules.followup``): a question that leans on what the last turn told is answered from that,
the job just offered or the topic just asked about, on the shipped packs; a question that names its own subject is
left to the rules for it."""

from __future__ import annotations

import pytest
from skald.llm.client import LLMClient
from skald.settings import Settings
from support import second_move


@pytest.fixture(scope="module")
def llm():
    return LLMClient(Settings(), online=False)


@pytest.mark.parametrize(("pack_id", "first", "line", "said"), [
    # after a job: its next step when nothing in it matches the words, else the sentence of it that does
    ("cinder_reach", "ask the innkeeper for work", "Who do you suspect, if you had to guess?",
     "Convince Juno Farrow at the Scrip Market to say why the bar's water allotment was cut."),
    ("saltmarsh_reach", "ask the innkeeper for work", "Who do you suspect, if you had to guess?",
     "Look along Cockle Row for whoever has been chalking the reeve's mitres on doorposts."),
    ("cinder_reach", "ask the old man about work", "is that gonna get me killed",
     "The work takes you to the Drill Graveyard"),
    ("saltmarsh_reach", "talk to the innkeeper", "Could you show me on a map where I ought to begin?",
     "Look along Cockle Row for whoever has been chalking the reeve's mitres on doorposts. It starts at Cockle Row."),
    # after a question about something: what the pack tells of it, fitted to the question
    ("saltmarsh_reach", "ask the innkeeper about the auditor", "when's he supposed to show up",
     "auditor is said to be coming down the Maund before midsummer"),
    # a question that takes up words just said: what the pack tells of them, something not told last turn first
    ("saltmarsh_reach", "talk to the old man", "Lights on the marsh? Who'd be carrying them, if not a person?",
     "wandering glims"),
    # a question that names what it asks of, where nothing leans on last turn: what the pack says of it
    ("saltmarsh_reach", "ask the bartender what's new", "Wait, the bell rings all on its own? Since when?",
     "the Drowned Abbey"),
    # where is this graveyard (not: where am I), how far is that on foot, where a person buys water
    ("cinder_reach", "talk to the old man", "so where's this graveyard at, and how long a walk is it",
     "Tobin Marsh tells you that the Drill Graveyard is 140 minutes away"),
    ("cinder_reach", "look around", "Where does a person buy water around here?",
     "Hesper Quill tells you that a water ration can be had at the Slag & Lantern (where you stand)"),
    # a manner between commas is read through
    ("cinder_reach", "look around", "I ask Hesper, quietly, if she's heard anything about the Charter's ore scales.",
     "Hesper Quill tells you what everyone knows of the Halvard Charter Authority"),
])
def test_a_follow_up_or_a_strangers_question_is_answered_about_what_it_asks(tmp_path, llm, pack_id, first, line, said):
    _, state = second_move(tmp_path, pack_id, first, line, llm)
    summary = state.mechanic_result.summary
    assert said in summary, summary


@pytest.mark.parametrize(("pack_id", "first", "line", "not_said"), [
    ("cinder_reach", "ask the innkeeper about rumors", "tell me more about this auditor", "tells you more"),
    ("saltmarsh_reach", "talk to the barkeep", "ask her about the water", "tells you more"),
    ("cinder_reach", "look around", "who is tobin", "tells you more"),
])
def test_a_question_that_names_its_own_subject_is_not_taken_for_a_follow_up(tmp_path, llm, pack_id, first, line,
                                                                             not_said):
    _, state = second_move(tmp_path, pack_id, first, line, llm)
    assert not_said not in state.mechanic_result.summary, state.mechanic_result.summary


def test_a_round_for_the_house_is_a_drink_for_everyone_here_and_each_takes_it_as_a_gift(tmp_path, llm):
    before, state = second_move(tmp_path, "saltmarsh_reach", "look around", "round for the whole bar on me", llm)
    assert state.mechanic_result.summary.startswith("You stand the house a round, 5 drinks for 10 greys; Odile, Amos, "
                                                    "Saffy and Ottilie raise a cup to you.")
    assert before.player.credits - state.player.credits == 10


def test_who_do_you_suspect_after_the_job_was_spoken_of_is_its_next_step(tmp_path, llm):
    _, state = second_move(tmp_path, "cinder_reach", "ask the bartender about work", "who do you suspect?", llm)
    assert "Convince Juno Farrow" in state.mechanic_result.summary, state.mechanic_result.summary


def test_asking_a_name_after_taking_the_job_is_about_the_one_asked(tmp_path, llm):
    _, state = second_move(tmp_path, "cinder_reach", "ask the bartender about work", "whats your name", llm)
    assert "Hesper" in state.mechanic_result.summary and "tab" not in state.mechanic_result.summary, \
        state.mechanic_result.summary
