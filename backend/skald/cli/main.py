"""The ``skald`` command."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Annotated

import typer

from skald.errors import SkaldError
from skald.llm.client import LLMClient
from skald.packs.loader import PackError
from skald.settings import ROLES, SettingsError, get_settings

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
    debug: Annotated[bool, typer.Option(help="after each turn, show LLM call metrics and context stats")] = False,
) -> None:
    """Play a campaign: interactive on a terminal, or turns from --script / piped stdin."""
    from skald.cli.play import run
    from skald.cli.session import Session

    settings = _settings()
    try:
        session = Session.open(db or settings.db_path, LLMClient(settings), pack_id=pack, campaign=campaign,
                               seed=random.randrange(1 << 31) if seed is None else seed,
                               background=background, name=name)
    except (SkaldError, PackError, ValueError) as exc:
        typer.echo(f"skald play: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        run(session, str(script) if script else None, json_out, debug)
    finally:
        session.close()


@app.command()
def campaigns(db: Annotated[Path | None, typer.Option(help="save file")] = None) -> None:
    """List the campaigns in a save file."""
    from skald.store.db import connect
    from skald.store.reads import list_campaigns

    conn = connect(db or _settings().db_path)
    rows = list_campaigns(conn)
    for cid, turn in rows:
        typer.echo(f"{cid}\tturn {turn}")
    if not rows:
        typer.echo("no campaigns yet; start one with: skald play")


@app.command()
def models() -> None:
    """Print the resolved LLM configuration of every role (settings from SKALD_* variables)."""
    from rich.console import Console
    from rich.table import Table

    settings = _settings()
    table = Table(title=f"LLM roles (SKALD_LLM={settings.llm})")
    keys = ("provider", "model", "base_url", "temperature", "num_ctx", "num_predict", "timeout_s", "attempts",
            "enabled")
    table.add_column("role")
    for key in keys:
        table.add_column(key)
    for role in ROLES:
        cfg = settings.role(role)
        table.add_row(role, *(str(getattr(cfg, key)) for key in keys))
    console = Console(width=160)
    console.print(table)
    console.print(f"retries {settings.retries} (backoff from {settings.retry_backoff_s} s); circuit breaker opens "
                  f"after {settings.breaker_failures} failures for {settings.breaker_seconds} s")
    console.print("Override per role with SKALD_<ROLE>_<KEY>, e.g. SKALD_NARRATOR_MODEL=qwen2.5:7b")


@app.command()
def doctor(db: Annotated[Path | None, typer.Option(help="save file to check")] = None) -> None:
    """Check Ollama, each role's model, the database and the packs; print the command that fixes each problem."""
    from skald.cli.doctor import run_checks

    checks = run_checks(db)
    for check in checks:
        typer.echo(f"{'ok     ' if check.ok else 'PROBLEM'}  {check.what}")
        if not check.ok:
            typer.echo(f"         fix: {check.fix}")
    problems = sum(not c.ok for c in checks)
    typer.echo(f"\n{problems} problem(s)" if problems else "\nall good")
    raise typer.Exit(1 if problems else 0)


def _settings():
    """Settings, or a clear message and exit status 2 when the environment has unknown or invalid SKALD_*."""
    try:
        return get_settings()
    except SettingsError as exc:
        typer.echo(f"skald: {exc}", err=True)
        raise typer.Exit(2) from None


if __name__ == "__main__":
    app()
