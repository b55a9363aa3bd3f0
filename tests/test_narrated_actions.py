"""The narrator rewords the turn's four suggestions after its prose (llm.tail), so a story turn costs one call.

The real ``ChatOllama`` client talks to the loopback Ollama stand-in (``fake_ollama``) on a real SQLite campaign. What
is tested: the player never sees the actions; a story turn makes no ``suggestion_refiner`` call when the narrator's
reply has them; each label is checked by the rules and a bad one leaves the Director's in its place; tones, risks and
actions never change; a reply without them (or whose prose the Validator replaced) falls back to the refiner's call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_ollama import FakeOllama, json_reply, text
from skald.core.state import GameState
from skald.engine import start_campaign
from skald.graph import run_turn
from skald.llm.client import LLMClient
from skald.packs.loader import load_pack
from skald.settings import Settings
from skald.store.db import connect

PROSE = ("Ash ticks against the window of the Slag & Lantern. Hesper Quill wipes the same glass twice and watches "
         "the door. The fan in the ceiling turns, slow and patient.")


def online(server: FakeOllama) -> LLMClient:
    roles = {f"{r}_model": "m" for r in ("narrator", "director", "suggestion_refiner")}
    return LLMClient(Settings(ollama_base_url=server.url, llm="on", llm_timeout_s=30.0, retry_backoff_s=0.01,
                              turn_budget_s=120.0, retrieval=False, **roles), clock=lambda: 1000.0)


def first_turn(tmp_path: Path, server: FakeOllama, line: str = "wait a while") -> tuple[GameState, GameState]:
    pack = load_pack("cinder_reach")
    conn = connect(tmp_path / "t.db")
    llm = online(server)
    try:
        before = start_campaign(conn, pack, seed=1, campaign_id="acts")
        after = run_turn(conn, before.model_copy(update={"player_input": line}), pack=pack, llm=llm, retriever=None)
        return before, after
    finally:
        conn.close()
        llm.close()


def narrated(labels: list[str]) -> str:
    return f"{PROSE}\n\n[ACTIONS]\n" + "\n".join(f"{i}. {label}" for i, label in enumerate(labels, 1))


@pytest.fixture
def server():
    with FakeOllama(models=["m"]) as fake:
        yield fake


def refiner_calls(server: FakeOllama) -> list[dict[str, Any]]:
    return [r for r in server.chat_requests() if "Rewrite four suggested player actions" in str(r.get("messages"))]


def test_the_narrators_reworded_actions_are_used_and_never_shown(tmp_path: Path, server: FakeOllama) -> None:
    labels = ["Tell Hesper you will help", "Study the faces at the bar", "Lean on Hesper for a name",
              "Order whatever is cheapest"]
    server.always("m", text(narrated(labels)))
    _, state = first_turn(tmp_path, server)
    assert "[ACTIONS]" not in state.final_text and "Order whatever" not in state.final_text
    assert state.final_text.startswith("Ash ticks against the window")
    assert [s.label for s in state.suggested_actions] == labels
    assert refiner_calls(server) == []  # one call for the prose and the actions


def test_tones_risks_and_actions_stay_and_a_bad_label_leaves_the_directors(tmp_path: Path, server: FakeOllama) -> None:
    # the third names someone who is not in the bar, the fourth is far too long
    labels = ["Tell Hesper you will help", "Study the faces at the bar", "Shake down Juno Farrow",
              "Order " + "a very long drink " * 6]
    server.always("m", text(narrated(labels)))
    _, with_model = first_turn(tmp_path / "a", server)
    quiet = FakeOllama(models=["m"])
    with quiet:
        quiet.always("m", text(PROSE))  # no actions: the refiner is asked, and its reply is refused (not JSON)
        _, plain = first_turn(tmp_path / "b", quiet)
    got, director = with_model.suggested_actions, plain.suggested_actions
    assert [(s.tone, s.risk, s.action_class) for s in got] == [(s.tone, s.risk, s.action_class) for s in director]
    assert [s.label for s in got[:2]] == labels[:2]
    assert [s.label for s in got[2:]] == [s.label for s in director[2:]]
    assert any("2 of the narrator's reworded actions failed lint" in w for w in with_model.warnings)


def test_a_reply_without_actions_asks_the_refiner(tmp_path: Path, server: FakeOllama) -> None:
    server.always("m", text(PROSE))
    server.queue("m", text(PROSE), json_reply({"suggestions": []}))  # narrator, then the refiner (refused: not four)
    _, state = first_turn(tmp_path, server)
    assert len(refiner_calls(server)) >= 1
    assert len(state.suggested_actions) == 4


@pytest.mark.parametrize("tail", ["[ACTIONS]\n1. Only one", "[ACTIONS]\nSure! Here are some ideas."])
def test_a_broken_actions_part_asks_the_refiner_and_is_never_shown(tmp_path: Path, server: FakeOllama,
                                                                   tail: str) -> None:
    server.always("m", text(f"{PROSE}\n\n{tail}"))
    _, state = first_turn(tmp_path, server)
    assert "ideas" not in state.final_text and "Only one" not in state.final_text
    assert len(refiner_calls(server)) >= 1
