"""Moving one campaign between save files: every row that belongs to it as JSON lines, and back (``skald db export``,
``skald db import``).

The file: a header line ``{"kind": "skald-campaign", "format": 1, "schema_version": N, "campaign": ID, "tables":
[...]}``, then one line per row, ``{"table": T, "row": {column: value}}``, table by table (``campaigns`` first, then
the others by name), each table's rows in the order they were stored (the order some of them are read back in). The
values are SQLite's own (text, integer, real, null), so the round trip is lossless: importing a file and exporting the
campaign again gives the same rows.

Turn ids (``turns.turn_id``, unique in a save file) are given anew on import, and every column that refers to one
(``parent_turn_id``, ``turn_id``, ``head_turn_id``) is mapped to the new ids; the event rows' own ``id`` likewise.
An import is one transaction: a file that is damaged anywhere, or from another schema version, or a campaign id
already taken, writes nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from skald.errors import CampaignNotFoundError, SkaldError
from skald.store import db
from skald.store.db import writing
from skald.store.pg_schema import ROW_ORDER
from skald.store.schema import SCHEMA_VERSION

KIND = "skald-campaign"
FORMAT = 1
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
        yield json.dumps({"kind": KIND, "format": FORMAT, "schema_version": db.version_of(conn),
                          "campaign": campaign_id, "tables": tables})
        for table in tables:
            key = "id" if table == "campaigns" else "campaign_id"
            names = db.columns(conn, table)
            listed = ", ".join(f'"{c}"' for c in names)
            for row in conn.execute(f'SELECT {listed} FROM "{table}" WHERE {key} = ? ORDER BY {_order(conn, table)}',
                                    (campaign_id,)):
                yield json.dumps({"table": table, "row": dict(zip(names, row, strict=True))}, ensure_ascii=False)


def import_campaign(conn: sqlite3.Connection, lines: Iterable[str], rename: str | None = None) -> str:
    """Store the campaign the JSON ``lines`` hold (as ``rename`` when given) in one transaction; return its id.

    :raises TransferError: a line that is not JSON or not a row of a known table and column (named by its line
        number), a file from another schema version or of another kind, or the campaign id taken. Nothing is written.
    """
    rows = iter(enumerate(lines, 1))
    header = _header(rows)
    cid = rename or header["campaign"]
    if header["schema_version"] != SCHEMA_VERSION:
        raise TransferError(f"the file was written by schema version {header['schema_version']}; this Skald has "
                            f"{SCHEMA_VERSION}: import it with the Skald that exported it, upgrade that save file, "
                            "and export again")
    try:
        with writing(conn):
            if conn.execute("SELECT 1 FROM campaigns WHERE id = ?", (cid,)).fetchone() is not None:
                raise TransferError(f"campaign {cid} is already in this save file; import it under another id with "
                                    "--as NEW_ID")
            known = {t: set(db.columns(conn, t)) for t in _tables(conn)}
            turn_ids: dict[int, int] = {0: 0}
            later: list[tuple[int, str, dict[str, Any]]] = []
            for number, line in rows:
                table, row = _row(number, line, known)
                if table == "campaigns":
                    _insert(conn, number, table, row, cid)
                elif table == "turns":  # before the rest, so every reference to a turn id can be mapped
                    old = row.pop("turn_id")  # a parent is always stored before its children
                    row["parent_turn_id"] = _mapped(turn_ids, row.get("parent_turn_id") or 0, number,
                                                    "parent_turn_id")
                    turn_ids[old] = _insert(conn, number, table, row, cid)
                else:
                    later.append((number, table, row))
            for number, table, row in later:
                row.pop(OWN_IDS.get(table, ""), None)
                for column in ("turn_id", *TURN_REFS.get(table, ())):
                    if row.get(column) is not None:
                        row[column] = _mapped(turn_ids, row[column], number, column)
                _insert(conn, number, table, row, cid)
    except sqlite3.IntegrityError as exc:
        raise TransferError(f"the file's rows do not fit together ({exc}); nothing was imported") from None
    return cid


def _header(rows: Iterator[tuple[int, str]]) -> dict[str, Any]:
    try:
        number, line = next(rows)
    except StopIteration:
        raise TransferError("the file is empty: expected a campaign exported by `skald db export`") from None
    try:
        header = json.loads(line)
    except ValueError:
        raise TransferError("line 1 is not JSON: expected the header of `skald db export`") from None
    if not isinstance(header, dict) or header.get("kind") != KIND or header.get("format") != FORMAT or \
            not isinstance(header.get("campaign"), str) or not isinstance(header.get("schema_version"), int):
        raise TransferError(f"line 1 is not the header of a campaign file (kind {KIND!r}, format {FORMAT})")
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
    bad = [k for k, v in row.items() if not (v is None or isinstance(v, (str, int, float)))]
    if bad:
        raise TransferError(f"line {number}: {table}.{bad[0]} is not a text, number or null; nothing was imported")
    return table, row


def _mapped(turn_ids: dict[int, int], old: Any, number: int, column: str) -> int:
    if old not in turn_ids:
        raise TransferError(f"line {number}: {column} {old!r} names no turn of the file; nothing was imported")
    return turn_ids[old]


def _insert(conn: sqlite3.Connection, number: int, table: str, row: dict[str, Any], cid: str) -> int:
    row = dict(row)
    row["id" if table == "campaigns" else "campaign_id"] = cid
    columns = list(row)
    returning = " RETURNING turn_id" if table == "turns" else ""
    try:
        names = ", ".join(f'"{c}"' for c in columns)
        cursor = conn.execute(f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" for _ in columns)}){returning}',
                              [row[c] for c in columns])
    except sqlite3.IntegrityError as exc:
        raise TransferError(f"line {number}: {table} row does not fit ({exc}); nothing was imported") from None
    return cursor.fetchall()[0][0] if returning else 0
