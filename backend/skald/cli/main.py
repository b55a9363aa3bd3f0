"""The ``skald`` command."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Annotated

import typer

from skald.errors import SkaldError
from skald.llm.client import LLMClient
from skald.packs.loader import PackError
from skald.settings import get_settings

app = typer.Typer(help="Skald: text role-playing games with deterministic rules and LLM-written prose.",
                  no_args_is_help=True, pretty_exceptions_enable=False)


@app.command()
def play(
    pack: Annotated[str | None, typer.Option(help="era pack id (default: SKALD_DEFAULT_PACK)")] = None,
    db: Annotated[Path | None, typer.Option(help="save file (default: SKALD_DB_PATH)")] = None,
    campaign: Annotated[str | None, typer.Option(help="resume this campaign id")] = None,
    seed: Annotated[int | None, typer.Option(help="seed for a new campaign (default: random)")] = None,
    script: Annotated[Path | None, typer.Option(help="play these inputs, one per line, without prompts",
                                                exists=True, dir_okay=False)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object per turn")] = False,
    background: Annotated[str | None, typer.Option(help="background id for a new campaign")] = None,
    name: Annotated[str, typer.Option(help="your character's name")] = "Wren",
) -> None:
    """Play a campaign: interactive on a terminal, or turns from --script / piped stdin."""
    from skald.cli.play import run
    from skald.cli.session import Session

    settings = get_settings()
    try:
        session = Session.open(db or settings.db_path, LLMClient(settings), pack_id=pack, campaign=campaign,
                               seed=random.randrange(1 << 31) if seed is None else seed,
                               background=background, name=name)
    except (SkaldError, PackError, ValueError) as exc:
        typer.echo(f"skald play: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        run(session, str(script) if script else None, json_out)
    finally:
        session.close()


@app.command()
def campaigns(db: Annotated[Path | None, typer.Option(help="save file")] = None) -> None:
    """List the campaigns in a save file."""
    from skald.store.db import connect
    from skald.store.reads import list_campaigns

    conn = connect(db or get_settings().db_path)
    rows = list_campaigns(conn)
    for cid, turn in rows:
        typer.echo(f"{cid}\tturn {turn}")
    if not rows:
        typer.echo("no campaigns yet; start one with: skald play")


if __name__ == "__main__":
    app()
