"""The bulky JSON columns of a SQLite save file, stored compressed.

A turn's JSON records (suggestions, the check, the scene brief, the model calls) and every state snapshot are much of
what a save file grows by. SQLite stores them as zlib streams (RFC 1950: a checksum, so a damaged value is found,
not misread) when that is shorter; a short value, and every value a save file from before this change holds, stays
text. PostgreSQL keeps them as text: it compresses large values itself (TOAST), and its rows never hold these bytes.

The prose (``turns.text``) stays text: loading the state reads the last 30 turns' prose (what was told lately), and
decompressing it there cost 0.3 ms a load (measured: 2.70 against 2.31 ms for a state load and a state-at), for
0.11 KiB a turn. It also keeps what the player read readable with plain SQL.

Readers call :func:`unpack` on what they select, which takes either form; writers hand values to
``store.db.packed``, which asks the connection's backend.

:data:`COLUMNS` names the columns; nothing else in a save file is packed.
"""

from __future__ import annotations

import zlib

COLUMNS = {
    "turns": ("suggestions", "mechanic", "llm_calls", "brief"),
    "turn_snapshots": ("state",),
    "campaigns": ("initial_state",),
}
SHORTEST = 96  # characters: below this a zlib stream saves too little to be worth a decompression on every read
LEVEL = 6  # zlib's default: within a few percent of level 9's size here, at about half its time


class PackedValueError(ValueError):
    """A packed value that does not decompress (the file was damaged after it was written)."""


def pack(text: str | None) -> str | bytes | None:
    """``text`` as a SQLite save file stores it: a zlib stream of its UTF-8 when that is shorter, else ``text``
    itself (None stays None)."""
    if text is None or len(text) < SHORTEST:
        return text
    raw = text.encode("utf-8")
    packed = zlib.compress(raw, LEVEL)
    return packed if len(packed) < len(raw) else text


def unpack(value: str | bytes | memoryview | None) -> str | None:
    """The text a stored value holds, packed (:func:`pack`) or not.

    :raises PackedValueError: bytes that are not a whole zlib stream of UTF-8 text.
    """
    if value is None or isinstance(value, str):
        return value
    try:
        return zlib.decompress(value).decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as exc:
        raise PackedValueError(f"a compressed value in the save file does not read back ({exc})") from exc
