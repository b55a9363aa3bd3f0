"""A stranger's first session (``data/scripts/stranger_first_session.txt``): thirty lines a helper wrote from the
player docs and the pack's data alone, never the parser, played offline before anything was fixed. Eight of them
were refused or answered about something else; each is held here to an answer about what was asked."""

from __future__ import annotations

import pytest
from skald.engine import start_campaign
from skald.graph import run_turn
from skald.store.db import connect
from support import ROOT, script_lines

SCRIPT = ROOT / "data" / "scripts" / "stranger_first_session.txt"


@pytest.fixture(scope="module")
def answers(tmp_path_factory, pack, offline_llm):
    """Each line of the script and what the game answered, in order."""
    conn = connect(tmp_path_factory.mktemp("stranger") / "s.db")
    state = start_campaign(conn, pack, seed=7, campaign_id="stranger")
    said = []
    for line in script_lines(SCRIPT):
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=offline_llm,
                         retriever=None)
        said.append((line, state.final_text))
    conn.close()
    return dict(said)


@pytest.fixture(scope="module")
def pack():
    from skald.packs.loader import load_pack

    return load_pack("cinder_reach")


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


def test_nothing_is_refused(answers):
    refused = [line for line, told in answers.items() if "Nothing comes of that here" in told]
    assert refused == []
