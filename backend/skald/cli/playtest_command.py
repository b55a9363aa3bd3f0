"""``skald playtest PACK``: machine players play the pack offline, many times, and the report says what to fix
(``skald.playtest``; docs/era-packs.md#playtesting-a-pack). This module only parses options and prints.

Mount with ``app.command("playtest")(playtest_command)``. Exit codes: 0 when no campaign crashed, broke a state
invariant, left its event log disagreeing with its state or reached a soft lock; 1 when one did; 2 when the pack
does not load or an option is wrong.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from skald.playtest import CHOICES, MIXED

# the defects that make the command exit 1
HARD = ("crash", "invariant", "event_condition", "log_mismatch", "soft_lock")


def playtest_command(
    pack: Annotated[str, typer.Argument(metavar="PACK", help="the pack: an id (see skald pack validate) or a folder")],
    campaigns: Annotated[int, typer.Option(min=1, help="campaigns to play")] = 24,
    turns: Annotated[int, typer.Option(min=1, help="lines the machine player types in each campaign")] = 100,
    policy: Annotated[str, typer.Option(help=f"how the machine player plays: {', '.join(CHOICES)} (mixed: each "
                                             "campaign the next policy in turn)")] = MIXED,
    seed: Annotated[int, typer.Option(help="campaign i is seeded SEED+i; the same seed gives the same report")] = 1,
    workers: Annotated[int, typer.Option(min=1, help="processes playing campaigns at once (1: this process)")] = max(
        1, min(4, os.cpu_count() or 1)),
    json_out: Annotated[bool, typer.Option("--json", help="print the report as one JSON document (keys: pack, run, "
                                                          "coverage, tension, dead_content, defects, speed)")] = False,
    html: Annotated[Path | None, typer.Option(help="also write the report as one self-contained HTML page here",
                                              dir_okay=False)] = None,
) -> None:
    """Play PACK offline with machine players and report coverage, dead content, defects and speed."""
    from rich.console import Console

    from skald.packs.loader import PackError
    from skald.playtest import playtest
    from skald.playtest.summary import render
    from skald.settings import settings_or_exit

    settings_or_exit()
    if policy not in CHOICES:
        typer.echo(f"skald playtest: unknown policy {policy!r}; choose one of {', '.join(CHOICES)}", err=True)
        raise typer.Exit(2)
    try:
        report = playtest(pack, campaigns=campaigns, turns=turns, policy=policy, seed=seed, workers=workers,
                          progress=_progress if sys.stderr.isatty() else None)
    except PackError as exc:
        typer.echo(f"skald playtest: {exc}", err=True)
        raise typer.Exit(2) from None
    if html is not None:
        from skald.playtest.html import page

        html.write_text(page(report), encoding="utf-8")
    if json_out:
        typer.echo(report.to_json())
    else:
        render(report, Console(width=max(120, Console().width), highlight=False))
        if html is not None:
            typer.echo(f"wrote {html}")
    raise typer.Exit(1 if any(d.kind in HARD for d in report.defects) else 0)


def _progress(done: int, total: int) -> None:
    end = "\n" if done == total else ""
    print(f"\rplayed {done} of {total} campaign(s)", end=end, file=sys.stderr, flush=True)
