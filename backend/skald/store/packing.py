"""The bulky text columns of a SQLite save file, stored compressed.

A turn's prose and its JSON records (suggestions, the check, the scene brief, the model calls) and every state
snapshot are most of what a save file grows by: about 1.4 of the 3.0 KiB a turn added before they were compressed.
SQLite stores them as zlib streams (RFC 1950: a checksum, so a damaged value is found, not misread) when that is
shorter; a short value, and every value a save file from before this change holds, stays text. PostgreSQL keeps them
as text: it compresses large values itself (TOAST), and its rows never hold these bytes.

Readers call :func:`unpack` on what they select, which takes either form; writers hand values to
``store.db.packed``, which asks the connection's backend.

:data:`COLUMNS` names the columns; nothing else in a save file is packed.
"""

from __future__ import annotations

import zlib

COLUMNS = {
    "turns": ("text", "suggestions", "mechanic", "llm_calls", "brief"),
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
