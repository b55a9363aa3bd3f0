"""Episodes where players and clients see them: the HTTP API (a turn's ``episode``, the SSE ``episode_complete``
event, ``GET /campaigns/{id}/episodes``, ``/next`` as a turn), the terminal's boxed result, ``--json`` turns, and
the ``evaluator`` LLM role against a loopback server that speaks Ollama's API (a good reply, and a broken one that
falls back to the deterministic evaluation)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fake_ollama import FakeOllama, json_reply, text
from skald.engine import start_campaign
from skald.graph import run_turn
from skald.llm.client import LLMClient
from skald.packs.loader import load_pack
from skald.settings import Settings
from skald.store import episodes as stored
from skald.store.db import connect
from test_api import live

MINI = Path(__file__).resolve().parent / "fixtures" / "packs" / "mini"
FIRST_SHIFT = 8  # cinder_reach's first episode: turn_limited, 8 story turns


def test_the_api_streams_episode_complete_and_lists_episodes(tmp_path: Path) -> None:
    with live(tmp_path / "api.db") as api:
        cid, auth = api.new_campaign(seed=3)
        first = api.turn(cid, auth, "look around").json()
        assert first["episode"]["id"] == "first_shift" and first["episode"]["started"]
        shown = load_pack("cinder_reach").episodes["first_shift"].progress_visible
        assert (first["episode"]["beat"] is not None) == shown == (first["episode"]["progress"] is not None)
        for _ in range(FIRST_SHIFT - 2):
            assert not api.turn(cid, auth, "look around").json()["episode"]["ended"]
        reply, events = api.stream(cid, auth, "look around")
        kinds = [kind for kind, _ in events]
        assert kinds.index("episode_complete") == len(kinds) - 2 and kinds[-1] == "turn"
        complete, turn = events[-2][1], events[-1][1]
        assert complete["trigger"] == "turn_limit" and complete["evaluation"] == turn["episode"]["evaluation"]
        assert turn["episode"]["ended"] and turn["episode"]["turn_count"] == FIRST_SHIFT
        listed = api.client.get(f"/campaigns/{cid}/episodes", headers=auth).json()
        assert listed["current"] is None and [e["share_id"] for e in listed["evaluations"]] == [
            complete["evaluation"]["share_id"]]
        assert listed["suggested"]["id"] == complete["evaluation"]["next_episode"]
        assert {o["id"] for o in listed["available"]} >= {listed["suggested"]["id"]}
        started = api.turn(cid, auth, "/next").json()
        assert started["intent"] == "META" and started["episode"]["started"]
        assert started["episode"]["id"] == listed["suggested"]["id"]
        assert api.client.get(f"/campaigns/{cid}/episodes").status_code == 401  # the campaign's token is needed
        share = complete["evaluation"]["share_id"]
        public = api.client.get(f"/episodes/{share}")  # no token: a share id is meant to be passed around
        assert public.status_code == 200, public.text
        body = public.json()
        assert body["summary"] == complete["evaluation"]["summary"] and body["pack"] == "Cinder Reach"
        assert cid not in public.text and "campaign_id" not in body and "next_hook" not in body
        assert api.client.get("/episodes/0123456789ab").status_code == 404
        assert api.client.get("/episodes/not-a-share-id").status_code == 422


def test_the_terminal_prints_the_boxed_result_and_json_turns_carry_the_episode(tmp_path: Path) -> None:
    lines = "\n".join(["look around"] * FIRST_SHIFT + ["/journal", "/quit"]) + "\n"
    run = [sys.executable, "-m", "skald", "play", "--db", str(tmp_path / "t.db"), "--seed", "3"]
    plain = subprocess.run(run, input=lines, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert "Episode 1 begins: First Shift" in plain.stdout
    assert "+-- Episode 1: First Shift - " in plain.stdout and "Share id: " in plain.stdout
    assert "Type /next to begin it" in plain.stdout and "Journal:" in plain.stdout
    as_json = subprocess.run([*run[:-2], "--seed", "4", "--json"], input=lines.replace("/journal\n", ""),
                             capture_output=True, text=True, timeout=120)
    turns = [json.loads(line) for line in as_json.stdout.splitlines() if line.startswith("{")]
    story = [t for t in turns if t.get("intent") != "META" and "episode" in t]
    assert story[-1]["episode"]["ended"] and story[-1]["episode"]["evaluation"]["story_turns"] == FIRST_SHIFT


def play_mini(tmp_path: Path, llm: LLMClient):
    pack = load_pack(MINI)
    conn = connect(tmp_path / "mini.db")
    state = start_campaign(conn, pack, seed=2, campaign_id="mini-llm")
    for _ in range(4):  # first_night is turn_limited, 4 story turns
        state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=pack, llm=llm,
                         retriever=None)
    return conn, state


def online(url: str) -> LLMClient:
    return LLMClient(Settings(llm="on", ollama_base_url=url, director_model="d", narrator_model="n",
                              suggestion_refiner_model="r", evaluator_model="e", llm_timeout_s=30,
                              retry_backoff_s=0.01))


def test_the_evaluator_role_writes_the_summary(tmp_path: Path) -> None:
    summary = "You spent four quiet turns at the Lantern Inn and left it as you found it, only wiser."
    with FakeOllama(models=["d", "n", "r", "e"]) as fake:
        fake.always("d", text("Keep it quiet.")).always("n", text("You sit by the fire. The inn is quiet."))
        fake.always("r", json_reply({"suggestions": []})).always("e", json_reply({"summary": summary}))
        conn, state = play_mini(tmp_path, online(fake.url))
        asked = fake.chat_requests("e")
    evaluation = stored.evaluations(conn, "mini-llm")[0]
    assert len(asked) == 1 and evaluation.summary == summary and evaluation.written_by == "evaluator"
    assert "Plain summary to improve on:" in asked[0]["messages"][-1]["content"]
    assert [c.role for c in state.llm_calls if c.role == "evaluator"] == ["evaluator"]


def test_an_ending_the_episode_never_had_is_not_shown(tmp_path: Path) -> None:
    """The model's summary claims a dragon slain, a wedding and an election: none of it happened, so the rules' own
    summary stands, and the turn says why (rules.model_text)."""
    grand = ("You slew the dragon of the Old Road, married Mara Vell in the Lantern Inn and were elected mayor of "
             "the whole vale by a grateful crowd.")
    with FakeOllama(models=["d", "n", "r", "e"]) as fake:
        fake.always("d", text("Keep it quiet.")).always("n", text("You sit by the fire. The inn is quiet."))
        fake.always("r", json_reply({"suggestions": []})).always("e", json_reply({"summary": grand}))
        conn, state = play_mini(tmp_path, online(fake.url))
    evaluation = stored.evaluations(conn, "mini-llm")[0]
    assert evaluation.written_by == "offline" and "dragon" not in evaluation.summary
    assert any(w.startswith("evaluator: the model's summary was not used: it claims a killing or a defeat")
               for w in state.warnings)


def test_a_broken_evaluator_reply_gets_feedback_then_the_deterministic_evaluation(tmp_path: Path) -> None:
    with FakeOllama(models=["d", "n", "r", "e"]) as fake:
        fake.always("d", text("Keep it quiet.")).always("n", text("You sit by the fire. The inn is quiet."))
        fake.always("r", json_reply({"suggestions": []})).always("e", json_reply({"summary": "too short"}))
        conn, state = play_mini(tmp_path, online(fake.url))
        asked = fake.chat_requests("e")
    evaluation = stored.evaluations(conn, "mini-llm")[0]
    assert len(asked) == Settings().role("evaluator").attempts  # each retry carried the validation feedback
    assert evaluation.written_by == "offline" and evaluation.summary.startswith("Episode 1, The First Night")
    assert any(w.startswith("evaluator: fallback") for w in state.warnings)


def test_following_the_first_suggestion_reaches_each_base_packs_first_result_within_its_budget(tmp_path: Path,
                                                                                                offline_llm) -> None:
    for pack_id in ("cinder_reach", "saltmarsh_reach"):
        pack = load_pack(pack_id)
        first = next(iter(pack.episodes.values()))
        conn = connect(tmp_path / f"{pack_id}.db")
        state = start_campaign(conn, pack, seed=11, campaign_id=f"follow-{pack_id}")
        ended = None
        for _ in range(first.turn_budget):
            state = run_turn(conn, state.model_copy(update={"player_input": "1"}), pack=pack, llm=offline_llm,
                             retriever=None)
            if state.view.episode is not None and state.view.episode.ended:
                ended = state.view.episode
                break
        conn.close()
        assert ended is not None and ended.id == first.id, pack_id
        assert ended.evaluation.next_episode in pack.episodes and ended.evaluation.next_episode != first.id


def test_the_beat_classifier_moves_a_beat_one_step_forward_and_never_back(tmp_path: Path) -> None:
    pack = load_pack(MINI)
    with FakeOllama(models=["d", "n", "r", "e", "b"]) as fake:
        fake.always("d", text("Keep it quiet.")).always("n", text("You sit by the fire. The inn is quiet."))
        fake.always("r", json_reply({"suggestions": []})).always("b", json_reply({"beat": "resolution"}))
        llm = LLMClient(Settings(llm="on", ollama_base_url=fake.url, director_model="d", narrator_model="n",
                                 suggestion_refiner_model="r", evaluator_model="e", beat_classifier_model="b",
                                 beat_classifier_enabled=True, llm_timeout_s=30, retry_backoff_s=0.01))
        conn = connect(tmp_path / "beats.db")
        state = start_campaign(conn, pack, seed=2, campaign_id="beats")
        state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=pack, llm=llm,
                         retriever=None)
        assert state.director.current_beat == "complication"  # asked for resolution: one step, no more
        assert state.episode_progress.beat_changed == "classifier"
        fake.always("b", json_reply({"beat": "establishment"}))  # backward: ignored
        state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=pack, llm=llm,
                         retriever=None)
        assert state.director.current_beat == "escalation"  # by position (turn 2 of 4), not by the model
        assert state.episode_progress.beat_changed == "position"
        fake.always("b", json_reply({"beat": "climax"}))  # not a beat: validation feedback, then the fallback
        state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=pack, llm=llm,
                         retriever=None)
        assert any(w.startswith("beat_classifier: fallback") for w in state.warnings)
        assert len(fake.chat_requests("b")) == 2 + Settings().role("beat_classifier").attempts
        conn.close()
