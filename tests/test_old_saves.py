"""A save file written before events were typed still loads, folds to what it stored, and plays on."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest
from skald import events
from skald.graph import run_turn
from skald.packs.loader import get_pack
from skald.store import reads
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
        assert reads.load_state(old_save, cid).persistent().model_dump(mode="json") == expected, cid


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
    assert state.campaign.turn_number == start + 3
    again = reads.load_state(old_save, cid)
    assert again.persistent().model_dump(mode="json") == state.persistent().model_dump(mode="json")
