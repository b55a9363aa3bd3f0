"""Retrieval in real turns: lore reaches the prompts and is cited, a missing index is a warning (and `skald ingest`
restores it), older turns are recalled by the Director (as it writes a scene's brief in the background, between
turns), and offline turns never open the index."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing

import httpx
import pytest
from fake_ollama import FakeOllama, json_reply, text
from skald.core.brief import MARKER
from skald.engine import Created, Engine, start_campaign
from skald.graph import run_turn
from skald.llm import prompts
from skald.llm.client import LLMClient
from skald.packs.loader import load_pack
from skald.rag.embeddings import embedder
from skald.rag.handle import LazyRetriever, private_index
from skald.rag.retrieve import Found
from skald.rag.store import LoreIndex, ingest
from skald.rules.start import new_state
from skald.settings import Settings
from skald.store.db import connect
from skald.store.reads import rendered_turns

MODELS = {"director_model": "dir", "narrator_model": "nar", "suggestion_refiner_model": "ref"}
BRIEF = {"summary": "Keep it close.", "key_facts": [], "npc_intentions": [], "suggested_topics": []}  # a BriefDraft
PROSE = "You stand in the heat of the bar. Hesper nods at you. The taps hiss. You find 15 credits. Nobody hurries."


def echo_refiner(body: dict) -> object:
    sent = json.loads(body["messages"][1]["content"].rsplit("Suggestions to rewrite:\n", 1)[1])
    return json_reply(sent)


@pytest.fixture(scope="module")
def pack():
    return load_pack("cinder_reach")


@pytest.fixture(scope="module")
def index(pack) -> LazyRetriever:
    return private_index([pack])


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(models=["dir", "nar", "ref"]) as fake:
        fake.always("dir", json_reply(BRIEF)).always("nar", text(PROSE)).always("ref", echo_refiner)
        yield fake


def online(server: FakeOllama) -> LLMClient:
    return LLMClient(Settings(ollama_base_url=server.url, llm="on", llm_timeout_s=30, **MODELS))


def play(conn, state, pack, llm, retriever, *lines):
    """Play ``lines``, waiting after each turn for the scene brief it started in the background (if any)."""
    for line in lines:
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm,
                         retriever=retriever)
        llm.briefs.settle()
    return state


def test_retrieved_lore_reaches_the_narrator_and_is_cited(tmp_path, pack, index, server):
    conn = connect(tmp_path / "r.db")
    state = start_campaign(conn, pack, seed=3, campaign_id="r")
    state = play(conn, state, pack, online(server), index, "talk to the bartender")
    assert state.lore_citations, state.warnings
    assert all(c.startswith("cinder_reach:") for c in state.lore_citations)
    [nar] = server.chat_requests("nar")
    user = nar["messages"][1]["content"]
    cited_files = {c.split(":", 1)[1].split("#")[0] for c in state.lore_citations}
    assert any(f"({path})" in user for path in cited_files)  # the cited chunks are in the prompt
    style = [c for c in state.lore_citations if ":style/" in c]
    assert style, state.lore_citations  # the style lane feeds the system prompt
    [first, *_] = server.chat_requests("nar")
    assert first["messages"][0]["content"] == nar["messages"][0]["content"]
    [row] = rendered_turns(conn, "r")
    assert row["lore_citations"] == state.lore_citations  # Commit stored them with the turn
    assert not [w for w in state.warnings if w.startswith("retrieval")]
    conn.close()


def test_the_lore_found_for_a_turn_comes_after_the_scene_so_the_scene_part_holds(tmp_path, pack, index, server):
    """The index is asked with each turn's outcome, so what it finds changes from turn to turn: it sits just before
    this turn's facts, and the player, the place and the scene's lore ahead of the brief read the same on both turns
    of one scene (the Director's own brief lands between them)."""
    conn = connect(tmp_path / "r.db")
    state = start_campaign(conn, pack, seed=3, campaign_id="r")
    play(conn, state, pack, online(server), index, "ask Hesper about the water", "ask Hesper about the Rustwake")
    users = [body["messages"][1]["content"] for body in server.chat_requests("nar")]
    assert len(users) == 2
    for user in users:
        found = [chunk for chunk in user.split("\n\n") if chunk.startswith("Lore, ")]
        assert found and len(found) <= prompts.TURN_LORE
        assert user.index(found[-1]) < user.index("This turn:") and user.index("Present: ") < user.index(found[0])
    heads = {user.partition(MARKER)[0] for user in users}
    assert len(heads) == 1, "the scene's part of the prompt changed between two turns of one scene"
    conn.close()


def test_a_missing_index_warns_and_ingest_restores_it(tmp_path, pack, server):
    path = tmp_path / "chroma"
    retriever = LazyRetriever(path)
    conn = connect(tmp_path / "m.db")
    state = start_campaign(conn, pack, seed=3, campaign_id="m")
    state = play(conn, state, pack, online(server), retriever, "look around")
    assert state.campaign.turn_number == 1 and state.final_text.startswith(PROSE)  # the turn is played all the same
    assert any("lore index for cinder_reach is missing" in w and "skald ingest cinder_reach" in w
               for w in state.warnings)
    assert state.lore_citations == []
    ingest(LoreIndex(path, embedder("wordllama")), [pack])
    fresh = LazyRetriever(path)  # a new session, as after `skald ingest`
    state = play(conn, state, pack, online(server), fresh, "talk to the bartender")
    assert state.lore_citations and not [w for w in state.warnings if w.startswith("retrieval")]
    conn.close()


def test_the_director_recalls_older_turns(tmp_path, pack, index, server):
    conn = connect(tmp_path / "e.db")
    state = start_campaign(conn, pack, seed=3, campaign_id="e")
    state = play(conn, state, pack, online(server), index, "talk to the bartender", "ask Rhea to join me",
                 "buy a drink", "look around", "talk to the bartender")
    summaries = [r[0] for r in conn.execute("SELECT summary FROM turn_memories WHERE campaign_id = 'e' "
                                            "ORDER BY turn_number")]
    assert len(summaries) == 5 and summaries[1].startswith("Turn 2, The Slag & Lantern: ask Rhea to join me")
    assert server.chat_requests("dir"), "no scene brief was asked of the director in five turns"
    last = server.chat_requests("dir")[-1]["messages"][1]["content"]
    assert "Remembered, turn" in last and "ask Rhea to join me" in last
    conn.close()


def test_offline_turns_never_open_the_index(tmp_path, pack):
    retriever = LazyRetriever(tmp_path / "never")
    conn = connect(tmp_path / "o.db")
    state = start_campaign(conn, pack, seed=3, campaign_id="o")
    state = play(conn, state, pack, LLMClient(Settings(), online=False), retriever, "look around", "rest")
    assert retriever._real is None and not (tmp_path / "never").exists()
    assert conn.execute("SELECT COUNT(*) FROM turn_memories").fetchone()[0] == 2  # memories are kept offline too
    conn.close()


def test_hidden_rumors_are_not_offered_as_hooks(pack, index):
    from skald.core.records import PresentNpc
    from skald.llm import lore

    hesper = pack.npcs["hesper_quill"]
    state = new_state(pack, seed=3)  # the scene the Director briefs: where the player stands, with Hesper there
    people = [PresentNpc(id=hesper.id, name=hesper.name, role=hesper.role, description=hesper.description)]
    rumor = "short_water_allotment"  # the hooks lane ranks it in the top 3 for this scene
    public = [hit.id for hit in lore.for_director(index, state, people, pack).hooks]
    assert f"cinder_reach:rumors.yaml#{rumor}" in public  # control: offered while the town talks about it
    state.world.public_rumors.remove(rumor)
    hidden = [hit.id for hit in lore.for_director(index, state, people, pack).hooks]
    assert f"cinder_reach:rumors.yaml#{rumor}" not in hidden


def fresh_copy(index: LazyRetriever, folder) -> LazyRetriever:
    """A handle on a copy of ``index``'s store that no one in this process has opened yet (a player's ``data/chroma``
    on the first turn after start)."""
    shutil.copytree(index.path, folder)
    return LazyRetriever(folder)


def test_lanes_opening_the_index_from_many_threads_at_once_all_find_lore(tmp_path, pack, index):
    """The first lanes of a process, on several threads at once (API turns, the background brief), share one Chroma
    client: none fails while another is still creating it."""
    threads = 8
    for round_ in range(3):
        retriever = fresh_copy(index, tmp_path / f"chroma-{round_}")
        lanes = retriever.real(pack)  # the embedding model is loaded; the store is not opened yet
        start = threading.Barrier(threads)

        def lane(n: int, lanes=lanes, start=start) -> Found:
            start.wait()
            return lanes.hooks(pack.id, "water", k=2) if n % 2 else lanes.lore(pack.id, "water", k=2)

        with ThreadPoolExecutor(threads) as pool:
            found = list(pool.map(lane, range(threads)))
        assert [f.warnings for f in found] == [[]] * threads
        assert all(f.hits for f in found)
    assert LoreIndex(retriever.path, lanes.index.embed).client is lanes.index.client  # one client per folder


def test_api_turns_on_many_threads_retrieve_without_a_failed_lane(tmp_path, pack, index, server):
    """LLM turns served by the API on several threads at once, each with its lanes, and the Director's background
    briefs between them, all over one lore store on disk opened by none of them yet: no lane fails."""
    from skald.api import create_app
    from skald.api.server import LiveServer

    players, turns = 4, 3
    db = tmp_path / "api.db"
    with closing(Engine(db, llm=LLMClient(Settings(), online=False), retriever=None)) as maker:
        made = [maker.create_campaign(pack.id, seed=seed, with_token=True) for seed in range(players)]
    retriever = fresh_copy(index, tmp_path / "chroma")
    app = create_app(db, llm=online(server), retriever=retriever)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=60) as http:
        start = threading.Barrier(players)

        def play_campaign(campaign: Created) -> list[dict]:
            auth = {"Authorization": f"Bearer {campaign.token}"}
            start.wait()  # the first turns open the store together
            views = []
            for line in ("talk to the bartender", "look around", "ask Hesper about work")[:turns]:
                reply = http.post(f"/campaigns/{campaign.state.campaign.id}/turns", json={"input": line}, headers=auth)
                assert reply.status_code == 200, reply.text
                views.append(reply.json())
            return views

        with ThreadPoolExecutor(players) as pool:
            played = [view for views in pool.map(play_campaign, made) for view in views]
        app.state.engine.settle()
    assert len(played) == players * turns and not [v for v in played if v["offline"]]
    failed = [w for v in played for w in v["warnings"] if w.startswith("retrieval")]
    assert failed == []
    narrated = server.chat_requests("nar")
    assert len(narrated) == players * turns
    assert all("(lore/" in body["messages"][1]["content"] for body in narrated)  # every prompt had its lore
