"""What names a store: a save file's path (or ``sqlite:///path``), ``":memory:"``, or a PostgreSQL URL. On the base
floor, importing nothing of Skald's, so the settings read a target without importing the store, and every store
module reads one without importing a backend."""

from __future__ import annotations

from pathlib import Path

SQLITE_URL = "sqlite:///"
MEMORY = ":memory:"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(target: object) -> bool:
    """Whether ``target`` names a PostgreSQL database (``postgresql://...`` or ``postgres://...``)."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def target(db: str | Path) -> str | Path:
    """What a ``--db`` value or ``SKALD_DB_URL`` names: a PostgreSQL URL (kept as a string), or a save file's path
    (``sqlite:///data/saves/skald.db`` → ``data/saves/skald.db``; ``sqlite:////abs/path`` for an absolute one).

    :raises ValueError: a URL of another scheme.
    """
    text = str(db)
    if is_postgres(text):
        return text
    if text.startswith(SQLITE_URL):
        return Path(text[len(SQLITE_URL):]) if text != f"{SQLITE_URL}{MEMORY}" else MEMORY
    if "://" in text:
        raise ValueError(f"{text.split('://')[0]}:// is not a store Skald knows: use sqlite:///PATH or "
                         "postgresql://USER@HOST:PORT/DATABASE")
    return db
