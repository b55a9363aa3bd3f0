"""The ``--db`` option every command that opens the store shares: a save file's path, ``sqlite:///PATH`` or a
PostgreSQL URL (``store.db.target``); without it, ``SKALD_DB_URL``, else ``SKALD_DB_PATH``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

DbOption = Annotated[str | None, typer.Option(
    "--db", help="the store: a save file, sqlite:///PATH or postgresql://... (default: SKALD_DB_URL, else "
    "SKALD_DB_PATH)")]


def chosen(db: str | None) -> str | Path:
    """The store ``--db`` names, or the settings' one; exits 2 with why for a URL of an unknown kind."""
    from skald.settings import settings_or_exit
    from skald.store.db import target

    if db is None:
        return settings_or_exit().database
    try:
        return target(db)
    except ValueError as exc:
        typer.echo(f"skald: --db {db}: {exc}", err=True)
        raise typer.Exit(2) from None


def absent(store: str | Path) -> bool:
    """Whether ``store`` is a save file that does not exist yet (a server database always may be opened)."""
    return isinstance(store, Path) and not store.exists()
