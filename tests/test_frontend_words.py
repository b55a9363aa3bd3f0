"""Replies that point the player at a move that is not story (after an undo, what redoes it; after a fork, what goes
back; between episodes, what starts the next; on /quit or /save, how to come back) name it in the words of the
frontend that asked (``skald.words``): the terminal's commands, the play page's buttons (the ``Skald-Words: page``
header), the API's endpoints (the API's default). Only those phrases differ."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from skald.api import create_app
from skald.api.server import LiveServer
from skald.engine import Engine
from skald.llm.client import LLMClient
from skald.settings import Settings
from skald.words import API, PAGE, TERMINAL, named

PAGE_WORDS = {"Skald-Words": "page"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    app = create_app(tmp_path_factory.mktemp("words") / "skald.db", create_per_minute=0,
                     llm=LLMClient(Settings(llm="off"), online=False), retriever=None)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=20) as client:
        yield client


def _campaign(client: httpx.Client, seed: int = 3) -> tuple[str, dict[str, str]]:
    made = client.post("/campaigns", json={"pack": "cinder_reach", "seed": seed}).json()
    return made["campaign_id"], {"Authorization": f"Bearer {made['token']}"}


def _said(client: httpx.Client, cid: str, auth: dict[str, str], line: str, **headers: str) -> str:
    reply = client.post(f"/campaigns/{cid}/turns", json={"input": line}, headers=auth | headers)
    assert reply.status_code == 200, reply.text
    return reply.json()["text"]


def test_an_undo_and_a_fork_name_the_pages_buttons_or_the_apis_endpoints(server) -> None:
    cid, auth = _campaign(server)
    _said(server, cid, auth, "look around")
    undone = server.post(f"/campaigns/{cid}/undo", json={}, headers=auth | PAGE_WORDS).json()["text"]
    assert "“Redo” replays what was undone" in undone and "/redo" not in undone
    server.post(f"/campaigns/{cid}/redo", json={}, headers=auth)
    undone = server.post(f"/campaigns/{cid}/undo", json={}, headers=auth).json()["text"]  # no header: the API's
    assert f"POST /campaigns/{cid}/redo replays what was undone" in undone
    forked = server.post(f"/campaigns/{cid}/branches", json={"name": "bolder"}, headers=auth | PAGE_WORDS).json()
    assert "“Switch” beside main under Branches goes back." in forked["text"]
    typed = _said(server, cid, auth, "/fork other", **{"Skald-Words": "terminal"})  # typed, the terminal's words
    assert "/switch bolder goes back." in typed


def test_quit_save_and_help_on_the_page_point_at_the_page(server) -> None:
    cid, auth = _campaign(server, seed=4)
    quit_ = _said(server, cid, auth, "/quit", **PAGE_WORDS)
    assert "“Your campaigns”, at the top of this page, resumes it" in quit_ and "skald play" not in quit_
    assert "skald play" not in _said(server, cid, auth, "/save", **PAGE_WORDS)
    assert f"GET /campaigns/{cid}/scene" in _said(server, cid, auth, "/save")
    helped = _said(server, cid, auth, "/help", **PAGE_WORDS)
    assert "/journal" in helped and "/quit" not in helped and "/load" not in helped  # what the page takes
    assert "/quit" in _said(server, cid, auth, "/help", **{"Skald-Words": "terminal"})


def test_between_episodes_the_next_episode_is_named_in_the_frontends_words(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "skald.db", llm=LLMClient(Settings(llm="off"), online=False), retriever=None)
    try:
        created = engine.create_campaign("cinder_reach", seed=5, campaign_id="c")
        assert created.scene is not None
        for _ in range(12):
            played = engine.play_turn("c", "look around")
            if played.view.episode is not None and played.view.episode.ended:
                break
        else:
            pytest.fail("the first episode did not end in 12 turns of looking around")
        assert "/next starts" in engine.scene("c").text  # the engine's own words: the terminal's
        assert "“Next episode” (or /next) starts" in engine.scene("c", PAGE).text
        status = engine.play_turn("c", "/episode", words=PAGE).view.text
        assert "“Next episode” (or /next) starts it." in status
    finally:
        engine.close()


def test_words_by_name_and_their_phrases() -> None:
    assert named("PAGE") is PAGE and named(None) is API and named("nonsense", TERMINAL) is TERMINAL
    assert TERMINAL.opening("switch", branch="main") == "/switch main"
    assert API.opening("next") == "A turn whose input is /next"
    assert PAGE.say("switch", branch="main") == "“Switch” beside main under Branches"
    assert API.say("redo") == "POST /campaigns/{campaign}/redo"  # a placeholder given no value stays


def test_a_job_that_sends_you_elsewhere_is_offered_with_the_journeys_minutes(tmp_path: Path) -> None:
    """The travel a quest asks for shows what it costs, as plain travel does: '... to keep your word (140 min)'."""
    engine = Engine(tmp_path / "skald.db", llm=LLMClient(Settings(llm="off"), online=False), retriever=None)
    try:
        engine.create_campaign("cinder_reach", seed=3, campaign_id="c")
        engine.play_turn("c", "talk to tobin")
        offered = engine.play_turn("c", "yes").view.suggestions
        keep = next(s for s in offered if "to keep your" in s.label or "Keep your word" in s.label)
        assert keep.label.endswith(f"({keep.minutes} min)") and keep.minutes > 60
    finally:
        engine.close()
