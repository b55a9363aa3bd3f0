"""Moving a campaign between save files (``skald db export`` / ``skald db import``, issue 19's first step): lossless by
round trip, with turn ids given anew, and a damaged or foreign file writes nothing."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest
from skald.cli.main import app
from skald.core.events import limits_of
from skald.engine import Engine
from skald.packs.loader import get_pack
from skald.store import memories, reads, timeline, transfer
from skald.store.db import connect
from skald.store.schema import SCHEMA_VERSION
from support import ROOT
from typer.testing import CliRunner

BOTH_STORES = True  # the campaigns move from a save file into SQLite and into PostgreSQL (conftest)
TURN_COLUMNS = ("turn_id", "parent_turn_id", "head_turn_id")


@pytest.fixture
def source(tmp_path, offline_llm):
    """The save file made before timelines (three campaigns), migrated, with a branch, an undo and a retry."""
    path = tmp_path / "source.db"
    with gzip.open(ROOT / "tests" / "fixtures" / "saves" / "main-c517d4e.db.gz") as packed, open(path, "wb") as out:
        shutil.copyfileobj(packed, out)
    engine = Engine(path, llm=offline_llm, retriever=None)
    engine.fork("bar-7", "later", at_turn=12)
    engine.play_turn("bar-7", "look around")
    engine.switch("bar-7", "main")
    engine.undo("long-cinder-7", 3)
    engine.play_turn("long-cinder-7", "/retry")
    engine.close()
    return path


def _normal(lines: list[str]) -> list[dict]:
    """The exported rows with turn ids replaced by their rank in the file and event row ids dropped (both are the
    save file's own numbering), the header's campaign and counts kept, the end line (a checksum of the ids) left
    out."""
    items = [json.loads(line) for line in lines]
    assert items[-1]["end"] == "skald-campaign" and items[-1]["lines"] == len(items) - 1
    items = items[:-1]
    ids = sorted({r["row"]["turn_id"] for r in items[1:] if r["table"] == "turns"})
    rank = {0: 0} | {old: n for n, old in enumerate(ids, 1)}
    for item in items[1:]:
        item["row"].pop("id", None) if item["table"] == "turn_events" else None
        for column in TURN_COLUMNS:
            if item["row"].get(column) is not None:
                item["row"][column] = rank[item["row"][column]]
    return items


def _facts(conn, cid: str) -> dict:
    """Everything a player or the engine reads of a campaign, on every branch."""
    limits = limits_of(get_pack(reads.pack_id(conn, cid)))
    out = {"head": reads.load_state(conn, cid).persistent().model_dump(mode="json")}
    for branch in timeline.branches(conn, cid):
        name, head = branch.name, branch.head.turn_number
        out[name] = {
            "head": head, "tip": branch.tip, "current": branch.current,
            "states": [reads.state_at(conn, cid, t, limits, name).model_dump(mode="json") for t in range(head + 1)],
            "turns": [{k: v for k, v in r.items() if k not in TURN_COLUMNS}
                      for r in reads.rendered_turns(conn, cid, name)],
            "events": [(n, e.model_dump(mode="json")) for n, e in reads.event_log(conn, cid, name)],
            "memories": memories.recent(conn, cid, name, head + 1, 10_000),
        }
    return out


def test_every_campaign_round_trips_without_loss(source, fresh_db, tmp_path):
    conn = connect(source)
    where = fresh_db("target.db")
    target = connect(where)
    engine = Engine(where, retriever=None)  # turns already there: the imported ids must move
    engine.create_campaign("cinder_reach", seed=2, campaign_id="already")
    engine.play_turn("already", "look around")
    engine.close()
    for cid, _ in reads.list_campaigns(conn):
        exported = list(transfer.export(conn, cid))
        assert transfer.import_campaign(target, exported) == cid
        assert _facts(target, cid) == _facts(conn, cid), cid
        assert _normal(list(transfer.export(target, cid))) == _normal(exported), cid
    renamed = transfer.import_campaign(target, transfer.export(conn, "api-11"), rename="api-11-copy")
    assert renamed == "api-11-copy" and reads.load_state(target, renamed).campaign.id == "api-11-copy"
    back = connect(tmp_path / "back.db")  # and from the target (PostgreSQL too) into a new save file again
    for cid, _ in reads.list_campaigns(conn):
        transfer.import_campaign(back, transfer.export(target, cid))
        assert _facts(back, cid) == _facts(conn, cid), cid
    back.close()
    conn.close()
    target.close()


def test_a_damaged_or_foreign_file_writes_nothing(source, fresh_db):
    conn = connect(source)
    lines = list(transfer.export(conn, "bar-7"))
    conn.close()
    target = connect(fresh_db("t.db"))

    def campaigns() -> int:
        return target.execute("SELECT COUNT(*) FROM campaigns").fetchone()[0] + target.execute(
            "SELECT COUNT(*) FROM turns").fetchone()[0]

    header = json.loads(lines[0])
    cases = {
        "cut mid-line": [*lines[:-1], lines[-1][:20]],
        "not json": [lines[0], "{nope", *lines[1:]],
        "unknown column": [lines[0], json.dumps({"table": "turns", "row": {"bogus": 1}}), *lines[1:]],
        "unknown table": [lines[0], json.dumps({"table": "sqlite_master", "row": {}}), *lines[1:]],
        "another schema": [json.dumps(header | {"schema_version": 3}), *lines[1:]],
        "not a campaign file": [json.dumps({"kind": "something else"}), *lines[1:]],
        "empty": [],
        "a turn id nothing names": [*lines, json.dumps({"table": "turn_memories", "row": {
            "turn_number": 99, "turn_id": 123456, "location": "x", "summary": "x"}})],
    }
    for name, bad in cases.items():
        with pytest.raises(transfer.TransferError) as refused:
            transfer.import_campaign(target, bad)
        assert campaigns() == 0, name
        if name in ("cut mid-line", "not json"):
            assert "line" in str(refused.value), name
    transfer.import_campaign(target, lines)
    with pytest.raises(transfer.TransferError, match="already in this save file"):
        transfer.import_campaign(target, lines)
    target.close()


def test_the_cli_exports_to_standard_output_and_imports_from_it(source, fresh_db, tmp_path):
    runner = CliRunner()
    exported = runner.invoke(app, ["db", "export", "api-11", "--db", str(source)])
    assert exported.exit_code == 0 and exported.output.startswith('{"kind": "skald-campaign"')
    target = fresh_db("cli.db")
    imported = runner.invoke(app, ["db", "import", "-", "--db", str(target)], input=exported.output)
    assert imported.exit_code == 0 and "imported campaign api-11" in imported.output
    again = runner.invoke(app, ["db", "import", "-", "--db", str(target)], input=exported.output)
    assert again.exit_code == 2 and "--as NEW_ID" in again.output
    (tmp_path / "latin1.jsonl").write_bytes(b"\xff\xfe not utf-8")
    broken = runner.invoke(app, ["db", "import", str(tmp_path / "latin1.jsonl"), "--db", str(target)])
    assert broken.exit_code == 2 and "not UTF-8" in broken.output
    missing = runner.invoke(app, ["db", "export", "nope", "--db", str(source)])
    assert missing.exit_code == 2 and "no campaign 'nope'" in missing.output
    upgraded = runner.invoke(app, ["db", "upgrade", "--db", str(target)])
    assert upgraded.exit_code == 0 and f"schema version {SCHEMA_VERSION}" in upgraded.output
