"""The export corruption sweep: a real campaign's export (``skald db export``) cut at every line and at bytes within
each line, and changed at every line by every class of edit (a digit, a letter, a quote, a brace, a line doubled,
dropped or swapped, the end line's count and checksum): every one is refused with a ``TransferError`` and writes
nothing. Then edits a person could make by hand and re-checksum (a value of the wrong type, out of range, not
Unicode, a JSON column broken, a row gone), drawn by Hypothesis: each is refused, writing nothing, or makes a campaign
that passes every check and loads."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skald.cli.doctor import pack_limits
from skald.engine import Engine
from skald.store import fsck, reads, transfer
from skald.store.db import connect

CID = "swept"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> list[str]:
    """The export of a campaign of four turns (a check, a purchase, talk), as the lines of the file."""
    path = tmp_path_factory.mktemp("sweep") / "source.db"
    engine = Engine(path, retriever=None)
    engine.create_campaign("cinder_reach", seed=2, campaign_id=CID)
    for line in ("look around", "buy a burn stim", "talk to the barkeep", "wait"):
        engine.play_turn(CID, line)
    engine.close()
    conn = connect(path, readonly=True)
    try:
        return list(transfer.export(conn, CID))
    finally:
        conn.close()


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("sweep") / "target.db")
    yield conn
    conn.close()


def _rows(conn) -> int:
    return sum(conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in ("campaigns", "turns", "turn_events",
                                                                                  "world_state", "branches"))


def _refused(conn, lines: list[str], why: str) -> None:
    before = _rows(conn)
    with pytest.raises(transfer.TransferError):
        transfer.import_campaign(conn, lines, limits_for=pack_limits)
        pytest.fail(f"accepted: {why}")
    assert _rows(conn) == before, why


def test_the_export_imports_whole_and_its_end_line_checks_every_line(exported, target) -> None:
    end = json.loads(exported[-1])
    digest = hashlib.sha256("".join(line + "\n" for line in exported[:-1]).encode()).hexdigest()
    assert end == {"end": "skald-campaign", "lines": len(exported) - 1, "sha256": digest}
    header = json.loads(exported[0])
    assert header["format"] == 2 and sum(header["rows"].values()) == len(exported) - 2
    with_endings = [line + "\r\n" for line in exported] + ["\n", "  \n"]  # CRLF and trailing blank lines read the same
    assert transfer.import_campaign(target, with_endings, rename="whole", limits_for=pack_limits) == "whole"
    assert reads.load_state(target, "whole").campaign.turn_number == 4


def test_every_cut_is_refused(exported, target) -> None:
    for kept in range(len(exported)):
        _refused(target, exported[:kept], f"cut after {kept} lines")
        line = exported[kept]
        for at in sorted({1, len(line) // 3, len(line) // 2, len(line) - 1}):
            _refused(target, [*exported[:kept], line[:at]], f"line {kept + 1} cut at byte {at}")


def _edits(line: str) -> dict[str, str]:
    """One edit of each class that applies to ``line``."""
    out = {}
    digits = [i for i, ch in enumerate(line) if ch.isdigit()]
    if digits:
        i = digits[len(digits) // 2]
        out["a digit"] = line[:i] + str((int(line[i]) + 1) % 10) + line[i + 1:]
    letters = [i for i, ch in enumerate(line) if ch.isalpha()]
    if letters:
        i = letters[len(letters) // 2]
        out["a letter"] = line[:i] + ("x" if line[i] != "x" else "y") + line[i + 1:]
    for name, ch in (("a quote", '"'), ("a brace", "}"), ("a colon", ":")):
        i = line.rfind(ch)
        if i >= 0:
            out[f"{name} dropped"] = line[:i] + line[i + 1:]
    out["a space added"] = line.replace(", ", ",  ", 1) if ", " in line else line + " "
    out["non-ASCII added"] = line[:-1] + " é" + line[-1:] if line.endswith("}") else line + "é"
    return out


def test_every_edit_at_every_line_is_refused(exported, target) -> None:
    for n, line in enumerate(exported):
        for name, edited in _edits(line).items():
            if edited != line and not (name == "a space added" and n == len(exported) - 1):  # the same end line
                _refused(target, [*exported[:n], edited, *exported[n + 1:]], f"line {n + 1}: {name}")
        _refused(target, [*exported[:n], line, *exported[n:]], f"line {n + 1} doubled")
        _refused(target, [*exported[:n], *exported[n + 1:]], f"line {n + 1} dropped")
        if n + 1 < len(exported) - 1:
            _refused(target, [*exported[:n], exported[n + 1], line, *exported[n + 2:]], f"lines {n + 1}, {n + 2} "
                     "swapped")
    _refused(target, [*exported, json.dumps({"table": "inventory", "row": {}})], "a line after the end line")


def _checksummed(lines: list[str]) -> list[str]:
    """``lines`` (header and rows) with a correct end line, as a hand edit that knows the format would leave it."""
    digest = hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()
    return [*lines, json.dumps({"end": "skald-campaign", "lines": len(lines), "sha256": digest})]


VALUES = st.sampled_from([None, True, -1, 0, 1 << 70, -(1 << 64), 10 ** 30, 2.5, float("nan"), "", "x", "\ud800",
                          "a\x00b", "{", "[]", "{}", '{"x": 1}', [], {}, "slag_and_lantern", 99_999])


@settings(max_examples=120, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), value=VALUES)
def test_a_hand_edit_with_its_checksum_redone_is_refused_or_makes_a_sound_campaign(exported, target, data,
                                                                                   value) -> None:
    body = exported[:-1]
    n = data.draw(st.integers(1, len(body) - 1), label="line")
    item = json.loads(body[n])
    edit = data.draw(st.sampled_from(["value", "drop row", "drop column"]), label="edit")
    columns = sorted(item["row"])
    column = data.draw(st.sampled_from(columns), label="column")
    if edit == "value":
        item["row"][column] = value
    elif edit == "drop column":
        item["row"].pop(column)
    header = json.loads(body[0])
    rows = [json.dumps(item, ensure_ascii=True)] if edit != "drop row" else []
    if edit == "drop row":  # the header's count follows, as a careful hand edit would
        header["rows"][item["table"]] -= 1
    lines = _checksummed([json.dumps(header), *body[1:n], *rows, *body[n + 1:]])
    name = f"edited-{n}-{edit}-{column}-{abs(hash(repr(value))) % 10_000}"
    before = _rows(target)
    try:
        cid = transfer.import_campaign(target, lines, rename=name, limits_for=pack_limits)
    except transfer.TransferError:
        assert _rows(target) == before
        return
    assert fsck.campaign_problems(target, cid, pack_limits(reads.pack_id(target, cid))) == []
    assert reads.load_state(target, cid).campaign.id == cid


def test_the_cli_refuses_a_file_that_is_not_utf8_and_names_a_cut_one(exported, tmp_path: Path) -> None:
    from skald.cli.main import app
    from typer.testing import CliRunner

    runner = CliRunner()
    save = tmp_path / "t.db"
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(exported[:-3]) + "\n", encoding="utf-8")
    said = runner.invoke(app, ["db", "import", str(cut), "--db", str(save)])
    assert said.exit_code == 2 and "cut short" in said.output
    raw = tmp_path / "raw.jsonl"
    raw.write_bytes("\n".join(exported).encode()[:200] + b"\xff\xfe" + "\n".join(exported).encode()[200:])
    said = runner.invoke(app, ["db", "import", str(raw), "--db", str(save)])
    assert said.exit_code == 2 and "not UTF-8" in said.output
    whole = tmp_path / "whole.jsonl"
    whole.write_text("\n".join(exported) + "\n", encoding="utf-8")
    said = runner.invoke(app, ["db", "import", str(whole), "--db", str(save)])
    assert said.exit_code == 0 and f"imported campaign {CID}" in said.output


def test_a_format_1_file_imports_with_a_note_and_is_still_checked_whole(exported, target) -> None:
    header = json.loads(exported[0])
    header["format"] = 1
    header.pop("rows")
    old = [json.dumps(header), *exported[1:-1]]  # what exports wrote before row counts and the end line
    notes: list[str] = []
    assert transfer.import_campaign(target, old, rename="old-format", limits_for=pack_limits, notes=notes)
    assert any("format 1" in n for n in notes)
    assert reads.load_state(target, "old-format").campaign.turn_number == 4
    tables = [json.loads(line)["table"] for line in old[1:]]
    for cut, why in ((1, "no campaigns row"), (tables.index("world_state") + 1, "world_state row is gone"),
                     (tables.index("characters") + 1, "names no turn of the file")):
        with pytest.raises(transfer.TransferError, match=why):
            transfer.import_campaign(target, old[:cut], rename=f"cut-{cut}", limits_for=pack_limits)


@pytest.mark.parametrize(("column", "value", "said"), [
    ("hp", 1 << 70, "integer beyond 64 bits"), ("hp", -(1 << 64), "integer beyond 64 bits"),
    ("name", "\ud800", "lone surrogate"), ("name", "a\x00b", "NUL character"), ("hp", True, "not an integer"),
    ("hp", "12", "not an integer"), ("hp", 2.5, "not an integer"), ("name", 7, "not text"),
    ("stats", "{not json", "not the JSON"),
])
def test_values_out_of_type_or_range_are_named_by_line_and_column(exported, target, column, value, said) -> None:
    n = next(i for i, line in enumerate(exported) if '"table": "characters"' in line)
    item = json.loads(exported[n])
    item["row"][column] = value
    lines = _checksummed([*exported[:n], json.dumps(item), *exported[n + 1:-1]])
    before = _rows(target)
    with pytest.raises(transfer.TransferError, match=f"line {n + 1}: characters.{column} .*{said}"):
        transfer.import_campaign(target, lines, rename="typed")
    assert _rows(target) == before
