"""Whole turns through the real graph with the online LLM client talking to a fake Ollama.

Each role has its own model name (director "dir", narrator "nar", refiner "ref"), so the fake answers per role.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_ollama import FakeOllama, Reply, hang, http_error, json_reply, text
from skald.graph import run_turn
from skald.llm.client import LLMClient
from skald.packs.loader import load_pack
from skald.packs.models import EraPack
from skald.settings import Settings
from skald.state import GameState
from skald.store.db import connect
from skald.store.reads import rendered_turns
from skald.store.writer import create_campaign

MODELS = {"director_model": "dir", "narrator_model": "nar", "suggestion_refiner_model": "ref"}
TONES = ["PARAGON", "INVESTIGATE", "RENEGADE", "NEUTRAL"]
DIRECTOR_NOTE = "Keep the room loud and the tin quiet."
PROSE = ("You crouch behind the taps and work a loose tile free. Beneath it sits a dented cash tin. "
         "Inside are a few credits and a folded note about short water. The bar keeps up its noise around you. "
         "Nobody seems to have seen you take it.")
REFINED = {"PARAGON": "Offer to share the find with the bar", "INVESTIGATE": "Read the note about the water again",
           "RENEGADE": "Pocket the tin and say nothing", "NEUTRAL": "Order a drink and listen"}


def sent_suggestions(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The Director's suggestions, as the refiner prompt lists them."""
    return json.loads(body["messages"][-1]["content"].rsplit("Suggestions:\n", 1)[1])


def refine(body: dict[str, Any]) -> Reply:
    """A well-behaved refiner: same tones and risks, new labels."""
    return json_reply({"suggestions": [{"label": REFINED[s["tone"]], "tone": s["tone"], "risk": s["risk"]}
                                       for s in sent_suggestions(body)]})


def swap_first_two_tones(body: dict[str, Any]) -> Reply:
    items = [{"label": REFINED[s["tone"]], "tone": s["tone"], "risk": s["risk"]} for s in sent_suggestions(body)]
    items[0]["tone"], items[1]["tone"] = items[1]["tone"], items[0]["tone"]
    return json_reply({"suggestions": items})


@pytest.fixture(scope="module")
def cinder() -> EraPack:
    return load_pack("cinder_reach")


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(models=["dir", "nar", "ref"]) as fake:
        fake.always("dir", text(DIRECTOR_NOTE)).always("nar", text(PROSE)).always("ref", refine)
        yield fake


def play(db: Path, cinder: EraPack, llm: LLMClient, *inputs: str) -> tuple[Any, GameState]:
    conn = connect(db)
    state = create_campaign(conn, cinder, seed=3, campaign_id="llm-turns")
    for line in inputs:
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=cinder, llm=llm)
    return conn, state


def online(server: FakeOllama, timeout_s: float = 2.0) -> LLMClient:
    return LLMClient(Settings(ollama_base_url=server.url, llm="on", llm_timeout_s=timeout_s, **MODELS))


def test_every_role_answers(server: FakeOllama, cinder: EraPack, tmp_path: Path) -> None:
    conn, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    assert state.campaign.turn_number == 1
    assert state.final_text == PROSE
    assert state.director_instructions is not None and state.director_instructions.notes == DIRECTOR_NOTE
    assert not [w for w in state.warnings if w.startswith(("director", "narrator", "suggestion_refiner"))]
    assert [s.label for s in state.suggested_actions] == [REFINED[t] for t in TONES]
    assert [s.tone.value for s in state.suggested_actions] == TONES
    # one call per role, in graph order; the narrator sees the director's note, the refiner the narration
    assert [b["model"] for b in server.chat_requests()] == ["dir", "nar", "ref"]
    [nar] = server.chat_requests("nar")
    assert DIRECTOR_NOTE in nar["messages"][1]["content"]
    assert cinder.era.style.strip() in nar["messages"][0]["content"]
    [ref] = server.chat_requests("ref")
    assert PROSE in ref["messages"][1]["content"]
    assert ref["format"]["required"] == ["suggestions"]
    # the stored turn carries the same text, suggestions and one metric per role
    [row] = rendered_turns(conn, state.campaign.id)
    assert row["text"] == PROSE
    assert [s["label"] for s in row["suggestions"]] == [REFINED[t] for t in TONES]
    assert [(c["role"], c["model"], c["ok"]) for c in row["llm_calls"]] == [
        ("director", "dir", True), ("narrator", "nar", True), ("suggestion_refiner", "ref", True)]
    assert all(isinstance(c["latency_ms"], float) and c["latency_ms"] >= 0 for c in row["llm_calls"])


def test_refined_suggestions_keep_the_directors_tones_risks_and_actions(server: FakeOllama, cinder: EraPack,
                                                                        tmp_path: Path) -> None:
    _, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    sent = sent_suggestions(server.chat_requests("ref")[0])
    assert len(state.suggested_actions) == 4
    assert [(s.tone.value, s.risk.value) for s in state.suggested_actions] == [(s["tone"], s["risk"]) for s in sent]
    assert all(s.action_class for s in state.suggested_actions)


@pytest.mark.parametrize(("reply", "warning"), [
    (Reply(content=PROSE + "\nOptions:\n1. Pocket the tin\n2. Put it back"), "narrator: removed a meta-game section"),
    (Reply(content=PROSE + "\n1. Pocket the tin\n2. Put it back"), "narrator: removed an option list"),
    (Reply(content=PROSE + "\n\n**What do you do?**"), "narrator: removed a meta-game section"),
], ids=["options_heading", "bare_list", "what_do_you_do"])
def test_narration_is_cleaned(server: FakeOllama, cinder: EraPack, tmp_path: Path, reply: Reply,
                              warning: str) -> None:
    server.always("nar", reply)
    _, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    assert state.final_text == PROSE
    assert warning in state.warnings


@pytest.mark.parametrize(("reply", "warning"), [
    (json_reply({"suggestions": [{"label": "Wait", "tone": "PARAGON", "risk": "SAFE"}]}),
     "suggestion_refiner: fallback after OutputParserException"),
    (text("Here are four better options for you!"), "suggestion_refiner: fallback after OutputParserException"),
    (swap_first_two_tones, "suggestion_refiner: reply changed a tone or risk"),
    (http_error(500), "suggestion_refiner: fallback after ResponseError"),
], ids=["schema_fails", "not_json", "tone_changed", "http_500"])
def test_invalid_refiner_reply_keeps_the_directors_suggestions(server: FakeOllama, cinder: EraPack, tmp_path: Path,
                                                               reply: Any, warning: str) -> None:
    server.always("ref", reply)
    conn, state = play(tmp_path / "t.db", cinder, online(server), "look around")
    sent = sent_suggestions(server.chat_requests("ref")[0])
    assert [s.model_dump(include={"label", "tone", "risk"}, mode="json") for s in state.suggested_actions] == sent
    assert any(w.startswith(warning) for w in state.warnings)
    assert state.final_text == PROSE
    [row] = rendered_turns(conn, state.campaign.id)
    assert [s["label"] for s in row["suggestions"]] == [s["label"] for s in sent]


def test_every_call_failing_still_commits_with_offline_prose(server: FakeOllama, cinder: EraPack,
                                                             tmp_path: Path) -> None:
    for model in ("dir", "nar", "ref"):
        server.always(model, http_error(500))
    conn, state = play(tmp_path / "online.db", cinder, online(server), "look around")
    offline_conn, offline_state = play(tmp_path / "offline.db", cinder, LLMClient(Settings(**MODELS), online=False),
                                       "look around")
    assert state.campaign.turn_number == 1
    assert state.final_text == offline_state.final_text  # the offline narrator, exactly
    assert [s.label for s in state.suggested_actions] == [s.label for s in offline_state.suggested_actions]
    for role in ("director", "narrator", "suggestion_refiner"):
        assert any(w.startswith(f"{role}: fallback after ResponseError") and "500" in w for w in state.warnings), role
    assert [b["model"] for b in server.chat_requests()] == ["dir", "nar", "ref"]  # each role tried once
    [row] = rendered_turns(conn, state.campaign.id)
    assert row["turn_number"] == 1 and row["text"] == offline_state.final_text
    assert [(c["role"], c["ok"]) for c in row["llm_calls"]] == [  # every failed call is on record
        ("director", False), ("narrator", False), ("suggestion_refiner", False)]
    offline_conn.close()
    conn.close()


def test_narrator_timeout_falls_back_and_the_turn_goes_on(server: FakeOllama, cinder: EraPack,
                                                          tmp_path: Path) -> None:
    server.queue("nar", hang(30))
    conn, state = play(tmp_path / "t.db", cinder, online(server, timeout_s=0.5), "look around", "look around")
    first, second = rendered_turns(conn, state.campaign.id)
    assert any(w.startswith("narrator: fallback after ReadTimeout") for w in first["warnings"])
    assert first["text"] and first["text"] != PROSE
    calls = [(c["role"], c["ok"]) for c in first["llm_calls"]]
    assert calls == [("director", True), ("narrator", False), ("suggestion_refiner", True)]
    failed = first["llm_calls"][1]
    assert failed["fallback_reason"].startswith("narrator: fallback after ReadTimeout")
    assert failed["latency_ms"] >= 400  # the time the turn waited before falling back
    assert second["text"] == PROSE  # the next turn uses the model again
    assert [c["role"] for c in second["llm_calls"]] == ["director", "narrator", "suggestion_refiner"]
    assert state.campaign.turn_number == 2
