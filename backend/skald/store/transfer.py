"""Moving one campaign between save files: every row that belongs to it as JSON lines, and back (``skald db export``,
``skald db import``).

The file (format 2), one JSON object a line:

- the header: ``{"kind": "skald-campaign", "format": 2, "schema_version": N, "campaign": ID, "tables": [...],
  "rows": {table: count}}``;
- one line per row, ``{"table": T, "row": {column: value}}``, table by table (``campaigns`` first, then the others by
  name), each table's rows in the order they were stored (the order some of them are read back in);
- the end line: ``{"end": "skald-campaign", "lines": L, "sha256": H}``, L the number of lines before it and H the
  SHA-256 of those lines, each as UTF-8 followed by one ``\n`` (a line's own ``\r\n`` or ``\n`` is not counted).

The values are SQLite's own (text, integer, real, null), so the round trip is lossless: importing a file and
exporting the campaign again gives the same rows.

An import is one transaction, and writes nothing unless all of this holds: the end line is there and its line count
and checksum match (so a file cut short or changed anywhere is refused); each table has the rows the header counts;
every value has its column's type and range (an integer within 64 bits, a finite real, text without NUL or lone
surrogates, the JSON columns parsing); and the campaign the rows make is whole by ``store.fsck.campaign_problems``
(its state rows, branch heads and lines, every event, and its state against its events folded when the pack is
given). Format 1 files (before row counts) are read with every check but the counts and the checksum, which they do
not carry: a cut between two rows of one table cannot be seen there, and the import notes so.

Turn ids (``turns.turn_id``, unique in a save file) are given anew on import, and every column that refers to one
(``parent_turn_id``, ``turn_id``, ``head_turn_id``) is mapped to the new ids; the event rows' own ``id`` likewise.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from skald.core.pack import PACK_ID
from skald.errors import CampaignNotFoundError, SkaldError
from skald.store import db, fsck, packing
from skald.store.db import writing
from skald.store.pg_schema import ROW_ORDER, sqlite_shape
from skald.store.schema import SCHEMA_VERSION

KIND = "skald-campaign"
FORMAT = 2
FORMATS = (1, 2)  # what import reads
INT64 = (-(1 << 63), (1 << 63) - 1)
JSON_COLUMNS = {  # text columns holding JSON (checked to parse on import)
    "campaigns": ("initial_state",), "characters": ("stats", "profile"), "episode_evaluations": ("evaluation",),
    "turn_events": ("data",), "turn_snapshots": ("state",), "api_idempotency": ("response",),
    "turns": ("suggestions", "warnings", "mechanic", "llm_calls", "lore_citations", "brief"),
    "world_state": ("combat", "world", "offer", "director", "scenes"),
}
TURN_REFS = {"branches": ("head_turn_id",)}  # besides each table's own turn_id (turns: parent_turn_id, mapped first)
OWN_IDS = {"turn_events": "id"}  # a table's own row id, given anew on import


class TransferError(SkaldError):
    """A campaign file that cannot be imported as asked (damaged, another schema version, an id taken). Nothing was
    written."""


def _tables(conn: sqlite3.Connection) -> list[str]:
    """``campaigns`` and every table with a ``campaign_id`` column, campaigns first, then by name."""
    owned = [t for t in db.tables(conn) if t != "campaigns" and "campaign_id" in db.columns(conn, t)]
    return ["campaigns", *owned]


def _order(conn: sqlite3.Connection, table: str) -> str:
    """The order a table's rows are written to the file in, the same from either store: the order they were stored
    in for the tables read back in that order (SQLite's row ids, PostgreSQL's ``row_order``), else the primary
    key's (turn ids grow as turns are played, so a parent always comes before its children)."""
    if table in ROW_ORDER:
        return "rowid"
    return ", ".join(f'"{k}"' for k in db.primary_key(conn, table))


def export(conn: sqlite3.Connection, campaign_id: str) -> Iterator[str]:
    """The campaign as JSON lines (see the module docstring), read in one read transaction.

    :raises CampaignNotFoundError: no such campaign.
    """
    from skald.store.reads import snapshot

    with snapshot(conn):
        if conn.execute("SELECT 1 FROM campaigns WHERE id = ?", (campaign_id,)).fetchone() is None:
            raise CampaignNotFoundError(campaign_id)
        tables = _tables(conn)
        counts = {t: conn.execute(f'SELECT COUNT(*) FROM "{t}" WHERE {_key(t)} = ?', (campaign_id,)).fetchone()[0]
                  for t in tables}
        digest, lines = hashlib.sha256(), 0

        def counted(line: str) -> str:
            nonlocal lines
            digest.update(line.encode("utf-8") + b"\n")
            lines += 1
            return line

        yield counted(json.dumps({"kind": KIND, "format": FORMAT, "schema_version": db.version_of(conn),
                                  "campaign": campaign_id, "tables": tables, "rows": counts}))
        for table in tables:
            names = db.columns(conn, table)
            listed = ", ".join(f'"{c}"' for c in names)
            packed = set(packing.COLUMNS.get(table, ()))  # written out as the text they hold
            for row in conn.execute(f'SELECT {listed} FROM "{table}" WHERE {_key(table)} = ? ORDER BY '
                                    f'{_order(conn, table)}', (campaign_id,)):
                values = {c: packing.unpack(v) if c in packed else v for c, v in zip(names, row, strict=True)}
                yield counted(json.dumps({"table": table, "row": values}, ensure_ascii=False))
        yield json.dumps({"end": KIND, "lines": lines, "sha256": digest.hexdigest()})


def _key(table: str) -> str:
    """The column naming the campaign a row of ``table`` belongs to."""
    return "id" if table == "campaigns" else "campaign_id"


def import_campaign(conn: sqlite3.Connection, lines: Iterable[str], rename: str | None = None, *,
                    limits_for: fsck.LimitsFor | None = None, notes: list[str] | None = None) -> str:
    """Store the campaign the JSON ``lines`` hold (as ``rename`` when given) in one transaction, after every check of
    the module docstring; return its id. ``limits_for``: a pack id (the campaign row's) to its numbers, to check the
    state against its events folded (None, or it giving None: the pack is not installed here; that check is left
    out). ``notes`` gets what the caller
    should tell (a format 1 file's missing counts).

    :raises TransferError: the first check that fails (a line by its number, a table, a column, the campaign's
        problems), a file from another schema version or of another kind, or the campaign id taken. Nothing is
        written.
    """
    reader = _Reader(lines)
    header = _header(reader)
    cid = rename or header["campaign"]
    if header["schema_version"] != SCHEMA_VERSION:
        raise TransferError(f"the file was written by schema version {header['schema_version']}; this Skald has "
                            f"{SCHEMA_VERSION}: import it with the Skald that exported it, upgrade that save file, "
                            "and export again")
    if header["format"] == 1 and notes is not None:
        notes.append("this file is format 1 (from before exports carried row counts and a checksum): every row and "
                     "the campaign as a whole were checked, but a cut between two rows of one table cannot be seen")
    try:
        with writing(conn):
            if conn.execute("SELECT 1 FROM campaigns WHERE id = ?", (cid,)).fetchone() is not None:
                raise TransferError(f"campaign {cid} is already in this save file; import it under another id with "
                                    "--as NEW_ID")
            counts = _insert_all(conn, reader, cid, ended=header["format"] >= 2)
            if header["format"] >= 2:
                for table in sorted(set(counts) | set(header["rows"])):
                    if counts.get(table, 0) != header["rows"].get(table, 0):
                        raise TransferError(f"the file has {counts.get(table, 0)} {table} rows where its header counts "
                                            f"{header['rows'].get(table, 0)}; nothing was imported")
            if counts.get("campaigns", 0) != 1:
                raise TransferError("the file has no campaigns row (cut short?); nothing was imported")
            pack_id = conn.execute("SELECT pack_id FROM campaigns WHERE id = ?", (cid,)).fetchone()[0]
            if not isinstance(pack_id, str) or not PACK_ID.match(pack_id):
                raise TransferError(f"the campaign's pack_id {pack_id!r} is not a pack id (lower-case words joined by "
                                    "_); nothing was imported")
            limits = limits_for(pack_id) if limits_for is not None else None
            if limits is None and notes is not None:
                notes.append(f"pack {pack_id} is not one of this Skald's pack folders: the campaign's state was not "
                             "checked against its events folded (it plays once the pack is installed)")
            problems = fsck.campaign_problems(conn, cid, limits)
            if problems:
                raise TransferError(f"the campaign in the file is not whole: {'; '.join(problems)}; nothing was "
                                    "imported")
    except sqlite3.IntegrityError as exc:
        raise TransferError(f"the file's rows do not fit together ({exc}); nothing was imported") from None
    return cid


def _insert_all(conn: sqlite3.Connection, reader: _Reader, cid: str, *, ended: bool) -> dict[str, int]:
    """Insert every row line (turns first, so references to turn ids can be mapped); the rows per table. ``ended``:
    the file has an end line, checked once every line is read (before any reference is followed, so a file cut short
    is named as such)."""
    known = {t: set(db.columns(conn, t)) for t in _tables(conn)}
    counts: dict[str, int] = {}
    turn_ids: dict[int, int] = {0: 0}
    later: list[tuple[int, str, dict[str, Any]]] = []
    for number, line in reader:
        table, row = _row(number, line, known)
        counts[table] = counts.get(table, 0) + 1
        if table == "campaigns":
            _insert(conn, number, table, row, cid)
        elif table == "turns":  # before the rest, so every reference to a turn id can be mapped
            old = row.pop("turn_id", None)  # a parent is always stored before its children
            if old is None or old in turn_ids:
                raise TransferError(f"line {number}: a turns row {'without a' if old is None else 'with a repeated'} "
                                    "turn_id; nothing was imported")
            row["parent_turn_id"] = _mapped(turn_ids, row.get("parent_turn_id") or 0, number, "parent_turn_id")
            turn_ids[old] = _insert(conn, number, table, row, cid)
        else:
            later.append((number, table, row))
    if ended:
        reader.check_end()
    for number, table, row in later:
        row.pop(OWN_IDS.get(table, ""), None)
        for column in ("turn_id", *TURN_REFS.get(table, ())):
            if row.get(column) is not None:
                row[column] = _mapped(turn_ids, row[column], number, column)
        _insert(conn, number, table, row, cid)
    return counts


class _Reader:
    """The file's lines numbered from 1, hashed as they are read (the end line's checksum covers every line before
    it); iterating stops at the end line, which :meth:`check_end` then holds to what was read."""

    def __init__(self, lines: Iterable[str]):
        self._lines = iter(lines)
        self._digest = hashlib.sha256()
        self.number = 0
        self.end: dict[str, Any] | None = None
        self.end_number = 0

    def next_line(self) -> str | None:
        for line in self._lines:
            self.number += 1
            text = line.rstrip("\r\n")
            if self.end is None and _is_end(text):
                self.end = json.loads(text)
                self.end_number = self.number
                return None
            if self.end is not None:
                if text.strip():
                    raise TransferError(f"line {self.number} follows the file's end line (line {self.end_number}); "
                                        "nothing was imported")
                continue
            try:
                self._digest.update(text.encode("utf-8") + b"\n")
            except UnicodeEncodeError:
                raise TransferError(f"line {self.number} is not UTF-8 text; nothing was imported") from None
            return text
        return None

    def __iter__(self) -> Iterator[tuple[int, str]]:
        while (line := self.next_line()) is not None:
            yield self.number, line

    def check_end(self) -> None:
        """:raises TransferError: no end line (the file is cut short), or its line count or checksum is not what was
        read (a line changed, added or lost)."""
        if self.end is None:
            raise TransferError(f"the file ends at line {self.number} without its end line: it was cut short (a copy "
                                "or download that stopped?); nothing was imported")
        while self.next_line() is not None:  # only blank lines may follow: raises at any other
            pass
        read = self.end_number - 1
        if self.end.get("lines") != read:
            raise TransferError(f"the end line counts {self.end.get('lines')!r} lines before it, and the file has "
                                f"{read}; nothing was imported")
        if self.end.get("sha256") != self._digest.hexdigest():
            raise TransferError("the file's checksum does not match its lines: something in it was changed after "
                                "it was exported; nothing was imported")


def _is_end(text: str) -> bool:
    if not text.startswith('{"end"'):
        return False
    try:
        item = json.loads(text)
    except ValueError:
        return False
    return isinstance(item, dict) and item.get("end") == KIND


def _header(reader: _Reader) -> dict[str, Any]:
    line = reader.next_line()
    if line is None:
        raise TransferError("the file is empty: expected a campaign exported by `skald db export`")
    try:
        header = json.loads(line)
    except ValueError:
        raise TransferError("line 1 is not JSON: expected the header of `skald db export`") from None
    if not isinstance(header, dict) or header.get("kind") != KIND or header.get("format") not in FORMATS or \
            not isinstance(header.get("campaign"), str) or type(header.get("schema_version")) is not int:
        raise TransferError(f"line 1 is not the header of a campaign file (kind {KIND!r}, format "
                            f"{' or '.join(map(str, FORMATS))})")
    if header["format"] >= 2:
        rows = header.get("rows")
        if not isinstance(rows, dict) or not all(isinstance(k, str) and type(v) is int and v >= 0
                                                 for k, v in rows.items()):
            raise TransferError("line 1, the header, has no row count per table; nothing was imported")
    return header


def _row(number: int, line: str, known: dict[str, set[str]]) -> tuple[str, dict[str, Any]]:
    try:
        item = json.loads(line)
    except ValueError:
        raise TransferError(f"line {number} is not JSON (a damaged or cut file?); nothing was imported") from None
    if not isinstance(item, dict) or not isinstance(item.get("row"), dict) or item.get("table") not in known:
        raise TransferError(f"line {number} is not a row of a known table; nothing was imported")
    table, row = item["table"], item["row"]
    unknown = set(row) - known[table]
    if unknown:
        raise TransferError(f"line {number}: table {table} has no column {sorted(unknown)[0]!r}; nothing was imported")
    types = _types()[table]
    for column, value in row.items():
        wrong = _wrong(types.get(column, "TEXT"), value, column in JSON_COLUMNS.get(table, ()))
        if wrong:
            raise TransferError(f"line {number}: {table}.{column} {wrong}; nothing was imported")
    return table, row


def _wrong(kind: str, value: Any, is_json: bool) -> str:
    """Why ``value`` cannot be stored in a column of SQLite type ``kind`` (empty when it can)."""
    if value is None:
        return ""
    if kind == "INTEGER":
        if type(value) is not int:
            return "is not an integer"
        return "" if INT64[0] <= value <= INT64[1] else "is an integer beyond 64 bits"
    if kind == "REAL":
        if type(value) not in (int, float):
            return "is not a number"
        return "" if math.isfinite(value) else "is not a finite number"
    if not isinstance(value, str):
        return "is not text"
    if "\x00" in value:
        return "holds a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "holds a lone surrogate (not Unicode text)"
    if is_json:
        try:
            json.loads(value)
        except ValueError:
            return "is not the JSON it should hold"
    return ""


_TYPES: dict[str, dict[str, str]] = {}


def _types() -> dict[str, dict[str, str]]:
    """Each table's columns and their declared SQLite types, from this Skald's schema (read once)."""
    if not _TYPES:
        shape = sqlite_shape()
        try:
            for table in db.tables(shape):
                _TYPES[table] = {r[1]: (r[2] or "TEXT").upper() for r in shape.execute(f'PRAGMA table_info("{table}")')}
        finally:
            shape.close()
    return _TYPES


def _renamed(state: str, cid: str) -> str:
    """A stored state (JSON) naming campaign ``cid`` instead (left as it is when it is not a state)."""
    try:
        data = json.loads(state)
    except ValueError:
        return state
    if not isinstance(data, dict) or not isinstance(data.get("campaign"), dict):
        return state
    data["campaign"]["id"] = cid
    return json.dumps(data, ensure_ascii=False)


def _mapped(turn_ids: dict[int, int], old: Any, number: int, column: str) -> int:
    if old not in turn_ids:
        raise TransferError(f"line {number}: {column} {old!r} names no turn of the file; nothing was imported")
    return turn_ids[old]


STATE_COLUMNS = {"campaigns": "initial_state", "turn_snapshots": "state"}  # whole states, which name the campaign


def _insert(conn: sqlite3.Connection, number: int, table: str, row: dict[str, Any], cid: str) -> int:
    row = dict(row)
    key = "id" if table == "campaigns" else "campaign_id"
    state = STATE_COLUMNS.get(table)
    if state and row.get(key) != cid and isinstance(row.get(state), str):  # renamed: the states name the new id
        row[state] = _renamed(row[state], cid)
    row[key] = cid
    for column in packing.COLUMNS.get(table, ()):
        if isinstance(row.get(column), str):
            row[column] = db.packed(conn, row[column])
    columns = list(row)
    returning = " RETURNING turn_id" if table == "turns" else ""
    try:
        names = ", ".join(f'"{c}"' for c in columns)
        cursor = conn.execute(f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" for _ in columns)}){returning}',
                              [row[c] for c in columns])
    except sqlite3.IntegrityError as exc:
        raise TransferError(f"line {number}: {table} row does not fit ({exc}); nothing was imported") from None
    return cursor.fetchall()[0][0] if returning else 0
