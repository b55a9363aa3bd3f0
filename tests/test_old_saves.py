"""A save file written before events were typed still loads, folds to what it stored, and plays on."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest
from skald.core import events
from skald.core.persistent import TOLD_TURNS, DirectorState, Profile, Scenes
from skald.graph import run_turn
from skald.packs.loader import get_pack
from skald.store import idempotency, reads
from skald.store.db import connect
from support import ROOT

SAVES = ROOT / "tests" / "fixtures" / "saves"
OLD = "main-f344d5d"


@pytest.fixture
def old_save(tmp_path):
    path = tmp_path / "old.db"
    with gzip.open(SAVES / f"{OLD}.db.gz") as packed, open(path, "wb") as out:
        shutil.copyfileobj(packed, out)
    conn = connect(path)
    yield conn
    conn.close()


EXPECTED = json.loads((SAVES / f"{OLD}.states.json").read_text())


def test_the_reader_reads_what_the_old_engine_read(old_save):
    assert {cid for cid, _ in reads.list_campaigns(old_save)} == set(EXPECTED)
    for cid, expected in EXPECTED.items():
        state = reads.load_state(old_save, cid).persistent().model_dump(mode="json")
        offer = state.pop("offer")  # new since: the standing suggestions, read from the last story turn
        told = state.pop("told")  # new since: what the last 30 story turns told, read from their text
        hints = {q.pop("hint") for q in state["quests"].values()}  # new since: quest hints, none in an old save
        assert state.pop("director") == DirectorState().model_dump(mode="json"), cid  # new since: episodes
        assert state.pop("scenes") == Scenes().model_dump(mode="json"), cid  # new since: multi-character scenes
        assert state["player"].pop("profile") == Profile().model_dump(mode="json"), cid  # new since: guided creation
        assert state == expected, cid
        assert hints <= {None}, cid
        assert len(offer) == 4, cid
        assert told and len(told) <= TOLD_TURNS and all(told), cid


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_the_old_event_log_parses_and_folds_to_the_stored_state(old_save, cid):
    state = reads.load_state(old_save, cid)
    log = reads.event_log(old_save, cid)  # every stored row is a typed event now
    assert log and all(isinstance(e, events.BaseEvent) for _, e in log)
    folded = events.replay_log(reads.initial_state(old_save, cid), log,
                               events.limits_of(get_pack(state.campaign.pack_id)))
    for field in ("player", "location", "world", "reputation", "companions", "known_npcs", "quests", "arc_stage",
                  "arc_stage_turn", "combat"):
        assert getattr(folded, field) == getattr(state, field), (cid, field)


def test_the_old_log_covers_most_event_types(old_save):
    kinds = {e.type for cid in EXPECTED for _, e in reads.event_log(old_save, cid)}
    assert len(kinds) >= 33 and kinds <= set(events.EVENT_TYPES)


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_an_old_campaign_plays_on(old_save, cid, offline_llm):
    state = reads.load_state(old_save, cid)
    pack = get_pack(state.campaign.pack_id)
    start = state.campaign.turn_number
    for line in ("look around", "/status", "rest"):
        state = run_turn(old_save, state.model_copy(update={"player_input": line}), pack=pack, llm=offline_llm,
                         retriever=None)
        assert state.final_text
    assert state.campaign.turn_number == start + 2  # /status is not a turn
    again = reads.load_state(old_save, cid)
    assert again.persistent().model_dump(mode="json") == state.persistent().model_dump(mode="json")


def _unpacked(tmp_path) -> str:
    path = tmp_path / "pending.db"
    with gzip.open(SAVES / f"{OLD}.db.gz") as packed, open(path, "wb") as out:
        shutil.copyfileobj(packed, out)
    return str(path)


def test_keys_left_pending_by_an_old_engine_are_settled_when_the_save_is_opened(tmp_path, offline_llm):
    """An engine before m004 wrote a key, then the turn, then the response: a crash in between left the key pending.
    Opening the save settles each one once: the turn committed -> its transcript is the stored response (a retry
    is not played again); it did not -> the key is dropped (a retry plays it).

    Time is an input: the engine's clock stands an hour after the newest key the old engine stored, whatever the
    date the test runs on, and the keys this test adds are stamped a minute before that clock."""
    import hashlib
    import sqlite3
    from datetime import timedelta

    from skald import wallclock
    from skald.engine import Engine

    path = _unpacked(tmp_path)
    cid = "4f0c293091a1"
    raw = sqlite3.connect(path)  # the old schema, as the old engine left it (no migration has run yet)
    [newest] = raw.execute("SELECT MAX(created_at) FROM api_idempotency").fetchone()
    clock = wallclock.fixed(wallclock.parse(newest) + timedelta(hours=1))
    pending = wallclock.stamp(clock() - timedelta(minutes=1))
    turn = raw.execute("SELECT turn_number, input FROM turns WHERE campaign_id = ? ORDER BY turn_number DESC",
                       (cid,)).fetchone()
    sha = hashlib.sha256(turn[1].encode()).hexdigest()
    raw.execute("INSERT INTO api_idempotency (campaign_id, key, input_hash, based_on, created_at) VALUES "
                "(?, 'played', ?, ?, ?)", (cid, sha, turn[0] - 1, pending))
    raw.execute("INSERT INTO api_idempotency (campaign_id, key, input_hash, based_on, created_at) VALUES "
                "(?, 'lost', ?, ?, ?)", (cid, hashlib.sha256(b"go outside").hexdigest(), turn[0], pending))
    raw.commit()
    raw.close()
    engine = Engine(path, llm=offline_llm, retriever=None, clock=clock)
    try:
        retried = engine.play_turn(cid, turn[1], key="played")
        assert retried.replayed and retried.body["turn_number"] == turn[0] and retried.body["recovered"]
        assert engine.load(cid).campaign.turn_number == turn[0]  # not played again
        fresh = engine.play_turn(cid, "go outside", key="lost")
        assert not fresh.replayed and fresh.view.turn_number == turn[0] + 1
        old_key = engine.play_turn(cid, "look around", key="key-0")  # stored by the old engine, in its old shape
        assert old_key.replayed and old_key.view is None and old_key.body["turn_number"] == 1
        # a day later the old engine's keys have aged out: the next committed turn prunes them, and a retry of one
        # plays as a new turn
        clock.advance(hours=idempotency.RETENTION_HOURS)
        engine.play_turn(cid, "look around", key="a-day-later")
        aged = engine.play_turn(cid, "look around", key="key-0")
        assert not aged.replayed and aged.view.turn_number == turn[0] + 3
    finally:
        engine.close()
