"""``skald db ...``: the save file's own tools: upgrade it, and move a campaign between save files (export, import).
The work is done in :mod:`skald.store` (``schema``, ``transfer``); this module only parses options and prints."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from skald.cli.store_option import DbOption, chosen
from skald.store.postgres import shown

db_app = typer.Typer(help="The store (a save file or a PostgreSQL database): upgrade it, export a campaign, import "
                     "one.", no_args_is_help=True)


@contextmanager
def _opened(db: str | None, *, readonly: bool = False) -> Iterator[tuple[str, Any]]:
    """(the store as messages name it, a connection to it), closed after; a store that cannot be opened exits 2 with
    why."""
    from skald.errors import SaveFileError
    from skald.store.db import connect

    store = chosen(db)
    path = str(store) if not isinstance(store, str) else shown(store)
    try:
        conn = connect(store, readonly=readonly)
    except SaveFileError as exc:
        typer.echo(f"skald db: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        yield path, conn
    finally:
        conn.close()


def _stream(path: Path | None, mode: str, standard: IO[str]) -> AbstractContextManager[IO[str]]:
    """The file at ``path`` (UTF-8, strictly), or ``standard`` (left open) when there is none."""
    return nullcontext(standard) if path is None else path.open(mode, encoding="utf-8", errors="strict")


@db_app.command("upgrade")
def upgrade_cmd(db: DbOption = None) -> None:
    """Bring the store up to this Skald's schema (once, keeping every turn; a new PostgreSQL database gets it), print
    its schema version, then check it as `skald doctor` does: exits 1 naming each problem when it is damaged."""
    from skald.cli.doctor import structure
    from skald.errors import SaveFileError
    from skald.store.db import verify, version_of
    from skald.store.schema import SCHEMA_VERSION

    with _opened(db) as (path, conn):
        typer.echo(f"{path}: schema version {version_of(conn)} (this Skald's: {SCHEMA_VERSION})")
        try:
            verify(conn, path)
            damage = structure(conn)
        except SaveFileError as exc:
            damage = [exc.problem]
    if damage:
        typer.echo(f"skald db upgrade: {path} is damaged: " + "; ".join(damage) + ". Restore it from a copy, or move "
                   "the campaigns that still load to a new file with skald db export / import", err=True)
        raise typer.Exit(1)


@db_app.command("export")
def export_cmd(
    campaign: Annotated[str, typer.Argument(help="campaign id (see `skald campaigns`)")],
    db: DbOption = None,
    out: Annotated[Path | None, typer.Option(help="write here instead of standard output")] = None,
) -> None:
    """Write one campaign, every row of it, as JSON lines: `skald db export ID > ID.jsonl` (README: Save files)."""
    from skald.errors import CampaignNotFoundError
    from skald.store.transfer import export

    with _opened(db, readonly=True) as (_, conn):
        try:
            damage = _damage(conn, campaign)
            if damage:
                typer.echo(f"skald db export: campaign {campaign} is damaged in this save file: {'; '.join(damage)}. "
                           "Nothing was written: export the campaigns `skald doctor` does not name, or restore the "
                           "file from a copy", err=True)
                raise typer.Exit(2)
            with _stream(out, "w", sys.stdout) as target:
                for line in export(conn, campaign):
                    target.write(line + "\n")
        except CampaignNotFoundError:
            typer.echo(f"skald db export: no campaign {campaign!r} in this save file (see `skald campaigns`)",
                       err=True)
            raise typer.Exit(2) from None


def _damage(conn: Any, campaign: str) -> list[str]:
    """What is damaged in the campaign (``store.fsck``), every event parsed, its state folded with its pack's
    numbers (``doctor.pack_limits``). :raises CampaignNotFoundError."""
    from skald.cli.doctor import pack_limits
    from skald.store import fsck, reads

    with reads.snapshot(conn):
        return fsck.campaign_problems(conn, campaign, pack_limits(reads.pack_id(conn, campaign)))


@db_app.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(help="a file `skald db export` wrote ('-': standard input)")],
    db: DbOption = None,
    as_id: Annotated[str | None, typer.Option("--as", help="store the campaign under this id instead")] = None,
) -> None:
    """Store a campaign `skald db export` wrote, in one transaction, after checking every line, the row counts, the
    checksum and the campaign as a whole (nothing is written if any of it fails)."""
    from skald.cli.doctor import pack_limits
    from skald.store.transfer import TransferError, import_campaign

    notes: list[str] = []
    with _opened(db) as (_, conn):
        try:
            with _stream(None if str(file) == "-" else file, "r", sys.stdin) as source:
                cid = import_campaign(conn, source, rename=as_id, limits_for=pack_limits,
                                      notes=notes)
        except (TransferError, UnicodeDecodeError, OSError) as exc:
            reason = "the file is not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else str(exc)
            typer.echo(f"skald db import: {reason}", err=True)
            raise typer.Exit(2) from None
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    typer.echo(f"imported campaign {cid}: play it with skald play --campaign {cid}" + (f" --db {db}" if db else ""))
