"""A turn that fails inside Skald (a bug in a node, not the player's input) is reported in the terminal as that, with
nothing of it saved and the session going on, never as a Python traceback that ends the game."""

from __future__ import annotations

import json
import logging

from skald.cli.play import play_lines
from skald.cli.session import Session
from skald.graph import build_graph
from skald.llm.client import LLMClient
from skald.settings import Settings


def _broken_narrator(state, runtime):
    raise KeyError("a bug in the narrator")


def test_a_turn_that_fails_inside_is_reported_and_play_goes_on(tmp_path, capsys, caplog):
    session = Session.open(tmp_path / "f.db", LLMClient(Settings(), online=False), seed=3, retriever=False)
    healthy = session.engine.graph
    try:
        session.engine.graph = build_graph({"narrator": _broken_narrator}).compile()
        with caplog.at_level(logging.ERROR):
            play_lines(session, ["look around"], as_json=True)
        failed = json.loads(capsys.readouterr().out.splitlines()[0])
        assert "That turn failed inside Skald (KeyError)" in failed["error"] and "Nothing of it was saved" in \
            failed["error"]
        assert "a bug in the narrator" in caplog.text  # the details go to the log, not the player
        session.engine.graph = healthy
        assert play_lines(session, ["look around"], as_json=True) == 1
        played = json.loads(capsys.readouterr().out.splitlines()[0])
        assert played["turn_number"] == 1  # the failed turn left nothing behind
    finally:
        session.close()
