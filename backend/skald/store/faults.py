"""Storage failures in plain words: every SQLite error that is about the save file itself (not a database, damaged,
locked, read-only, disk full, unreadable) becomes one :class:`~skald.errors.SaveFileError` whose message says what
happened, that nothing committed was lost, and what to do.

SQLite's primary result codes are named in ``sqlite3.Error.sqlite_errorname`` (Python 3.11+); see
https://www.sqlite.org/rescode.html for their meanings.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from skald.errors import SaveFileError

_KEEP = "nothing already saved was lost"


def _writable(path: Path) -> bool:
    target = path if path.exists() else path.parent
    return os.access(target, os.W_OK) and os.access(path.parent, os.W_OK)


def corrupt(path: str | Path, detail: str) -> SaveFileError:
    """The error for a damaged save file, with how to recover what is readable."""
    return SaveFileError(path, "corrupt", f"is damaged ({detail}); Skald will not write into it. Restore a backup, "
                         f"or recover what is readable: sqlite3 {path} .recover | sqlite3 recovered.db, then play "
                         "recovered.db with --db")


def explain(exc: sqlite3.Error, path: str | Path, *, readonly: bool = False) -> SaveFileError | None:
    """The :class:`SaveFileError` for a storage failure on the save file at ``path``, or None when ``exc`` is not
    about the file (a constraint, a programming error), which callers re-raise as it is. ``readonly``: the file was
    opened read-only on purpose, so any attempt to write it is reported as such."""
    path = Path(path)
    name = (getattr(exc, "sqlite_errorname", "") or "").split("_")
    code = "_".join(name[:2])  # SQLITE_IOERR_WRITE -> SQLITE_IOERR
    detail = str(exc)
    if code == "SQLITE_NOTADB":
        return SaveFileError(path, "not_a_database", "is not a Skald save (not an SQLite database); it was not "
                             "changed. Use another file with --db, or move this one aside")
    if code == "SQLITE_CORRUPT":
        return corrupt(path, detail)
    if code == "SQLITE_FULL":
        return SaveFileError(path, "disk_full", f"the disk is full; this action was not saved and {_KEEP}. "
                             "Free some space and try again")
    if code in ("SQLITE_BUSY", "SQLITE_LOCKED"):
        return SaveFileError(path, "locked", f"is locked by another process past the wait ({detail}); this action "
                             f"was not saved and {_KEEP}. Try again, or close the other program using it")
    if code == "SQLITE_READONLY" and readonly:
        return SaveFileError(path, "read_only", f"was opened read-only, for reading ({detail}); this action was not "
                             f"saved and {_KEEP}. Play it with skald play --db {path}")
    if code == "SQLITE_READONLY" and not _writable(path):
        return SaveFileError(path, "read_only", f"is read-only here ({detail}); this action was not saved and "
                             f"{_KEEP}. Make the file and its folder writable, or copy it and play the copy with --db")
    if code == "SQLITE_CANTOPEN":
        return SaveFileError(path, "cannot_open", f"cannot be opened ({detail}): check the path, that its folder "
                             "exists and that you may read and write there")
    if code == "SQLITE_IOERR":
        return SaveFileError(path, "io", f"the disk reported an error ({detail}); this action was not saved and "
                             f"{_KEEP}. Check the disk, then try again")
    return None


def raise_storage(exc: sqlite3.Error, path: str | Path, *, readonly: bool = False) -> None:
    """Raise the :class:`SaveFileError` for ``exc`` (chained to it) when it is about the file; else return, and the
    caller re-raises ``exc`` as it is."""
    problem = explain(exc, path, readonly=readonly)
    if problem is not None:
        raise problem from exc


def tables_missing(missing: list[str]) -> str:
    """'the table turns is missing' / 'the tables turns, branches are missing'."""
    plural = len(missing) > 1
    return f"the table{'s' if plural else ''} {', '.join(missing)} {'are' if plural else 'is'} missing"
