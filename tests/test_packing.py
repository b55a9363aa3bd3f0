"""The bulky text columns of a SQLite save file are stored compressed (``store.packing``): what is read back, shown,
exported and imported is the same text, older saves that hold plain text read as before, and a damaged compressed
value is reported as damage, never shown."""

from __future__ import annotations

import json
import zlib

import pytest
from skald.core.events import limits_of
from skald.engine import start_campaign
from skald.graph import run_turn
from skald.store import fsck, packing, reads, transfer, writer
from skald.store.db import connect
from skald.store.packing import PackedValueError, pack, unpack
from support import script_lines

BOTH_STORES = True  # SQLite packs; PostgreSQL keeps text: the same reads either way (conftest)

LONG = "The lamps along the quay gutter and steady as the tide goes out. " * 6


def test_long_text_is_packed_and_reads_back_the_same():
    stored = pack(LONG)
    assert isinstance(stored, bytes) and len(stored) < len(LONG.encode()) / 2
    assert unpack(stored) == LONG
    assert unpack(memoryview(stored)) == LONG  # what some drivers hand back for a BLOB


def test_short_or_incompressible_text_stays_text():
    assert pack("You wait.") == "You wait."
    noise = "".join(chr(33 + i) for i in range(94)) + "abcdef"  # 100 characters, none repeated: zlib adds bytes
    assert pack(noise) == noise
    assert pack(None) is None and unpack(None) is None
    assert unpack("plain, as older saves hold it") == "plain, as older saves hold it"


def test_a_damaged_packed_value_is_an_error_not_text():
    stored = bytearray(pack(LONG))
    stored[len(stored) // 2] ^= 0xFF
    with pytest.raises(PackedValueError, match="does not read back"):
        unpack(bytes(stored))
    with pytest.raises(PackedValueError):
        unpack(zlib.compress(b"\xff\xfe not utf-8"))


@pytest.fixture
def played(fresh_db, pack, offline_llm, monkeypatch):
    monkeypatch.setattr(writer, "SNAPSHOT_EVERY", 4)
    path = fresh_db("packed.db")
    conn = connect(path)
    state = start_campaign(conn, pack, seed=3, campaign_id="packed")
    for line in script_lines()[:9]:
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=offline_llm,
                         retriever=None)
    yield conn, state
    conn.close()


@pytest.mark.sqlite_only
def test_a_save_file_keeps_the_bulky_columns_compressed(played):
    conn, _ = played
    kinds = {column: {r[0] for r in conn.execute(f"SELECT DISTINCT typeof({column}) FROM turns")}
             for column in packing.COLUMNS["turns"]}
    assert "blob" in kinds["suggestions"] and "blob" in kinds["mechanic"]
    assert {r[0] for r in conn.execute("SELECT typeof(text) FROM turns")} == {"text"}  # the prose stays readable
    assert {r[0] for r in conn.execute("SELECT typeof(state) FROM turn_snapshots")} == {"blob"}
    assert conn.execute("SELECT typeof(initial_state) FROM campaigns").fetchone()[0] == "blob"
    assert conn.execute("SELECT typeof(warnings) FROM turns LIMIT 1").fetchone()[0] == "text"  # not one of them


def test_what_is_read_back_is_what_was_played(played, pack):
    conn, state = played
    assert reads.load_state(conn, "packed").persistent() == state.persistent()
    at = reads.state_at(conn, "packed", state.campaign.turn_number, limits_of(pack))
    assert at.model_dump(mode="json") == state.persistent().model_dump(mode="json")
    rendered = reads.rendered_turns(conn, "packed")
    assert all(isinstance(t["text"], str) and t["text"] for t in rendered)
    assert all(isinstance(t["suggestions"], list) for t in rendered)
    assert rendered[-1]["text"] == state.final_text


def test_an_export_holds_text_and_an_import_packs_it_again(played, fresh_db, pack):
    conn, state = played
    lines = list(transfer.export(conn, "packed"))
    rows = [json.loads(line)["row"] for line in lines[1:-1] if json.loads(line).get("table") == "turns"]
    assert rows and all(isinstance(r["text"], str) and isinstance(r["suggestions"], str) for r in rows)
    into = connect(fresh_db("into.db"))
    try:
        transfer.import_campaign(into, lines, "again", limits_for=lambda _pack: limits_of(pack))
        assert reads.load_state(into, "again").persistent().player == state.persistent().player
        assert [t["text"] for t in reads.rendered_turns(into, "again")] == \
            [t["text"] for t in reads.rendered_turns(conn, "packed")]
    finally:
        into.close()


@pytest.mark.sqlite_only
def test_a_damaged_compressed_value_is_reported_not_shown(played, pack):
    conn, state = played
    conn.execute("PRAGMA query_only = OFF")
    conn.execute("UPDATE turns SET suggestions = X'789c00ff' WHERE turn_number = ?", (state.campaign.turn_number,))
    with pytest.raises(PackedValueError, match="does not read back"):
        reads.state_at(conn, "packed", state.campaign.turn_number, limits_of(pack))
    assert any("does not read back" in found for found in fsck.problems(conn, lambda _pack: limits_of(pack)))
    conn.execute("UPDATE campaigns SET initial_state = X'789c00ff'")
    with pytest.raises(PackedValueError):
        reads.initial_state(conn, "packed")
