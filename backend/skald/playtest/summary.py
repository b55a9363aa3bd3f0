"""The playtest report as text a designer reads (``skald playtest`` without ``--json``), drawn with Rich: the run and
its speed, coverage with bars, quests and episodes, what each policy reached, dead content with its reasons, and the
defects by kind with the command that replays each."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from skald.playtest.coverage import Tally
from skald.playtest.report import KIND_TITLES, KINDS, Report

SHOWN = 8  # defects listed per kind (the JSON has them all)
BAR = 20


def bar(share: float, width: int = BAR) -> str:
    full = round(share * width)
    return "█" * full + "·" * (width - full)


def render(report: Report, console: Console) -> None:
    """Print ``report`` on ``console``."""
    run, speed = report.run, report.speed
    console.print(f"[bold]Playtest of {report.pack}[/bold]: {run.campaigns} campaign(s) of {run.turns} turns, "
                  f"policy {run.policy}, seed {run.seed}, {run.workers} worker(s)")
    console.print(f"speed: {speed.per_worker} turns/s per worker (the engine alone {speed.engine_per_worker}), "
                  f"{speed.overall} turns/s overall; {speed.turns} turns in {speed.wall_seconds} s"
                  + (f"; {speed.rejected} line(s) refused before play" if speed.rejected else ""))
    _coverage(report, console)
    _quests(report, console)
    _episodes(report, console)
    _policies(report, console)
    _dead(report, console)
    _defects(report, console)


def _coverage(report: Report, console: Console) -> None:
    c = report.coverage
    rows: list[tuple[str, Tally]] = [
        ("places visited", c.places), ("NPCs met", c.npcs), ("companions recruited", c.companions_recruited),
        ("quests taken up", c.quests.started), ("quests completed", c.quests.completed),
        ("quest stages completed", c.quests.stages), ("episodes started", c.episodes.started),
        ("episodes completed", c.episodes.completed), ("scenes opened", c.scenes.opened),
        ("scene goals met", c.scenes.goal_met), ("items bought (of those on sale)", c.items.bought),
        ("items sold (of those worth something)", c.items.sold), ("items found (of those hidden)", c.items.found),
        ("discoveries found", c.discoveries)]
    table = Table(title="Coverage: what at least one campaign reached", title_justify="left")
    for column in ("", "reached", "of", "share", ""):
        table.add_column(column, justify="right" if column in ("reached", "of", "share") else "left")
    for name, t in rows:
        table.add_row(name, str(t.reached), str(t.defined), f"{t.share:.0%}", bar(t.share))
    console.print(table)


def _quests(report: Report, console: Console) -> None:
    table = Table(title="Quests: campaigns that got this far", title_justify="left")
    for column in ("quest", "offered", "taken up", "stages completed, in order", "completed"):
        table.add_column(column)
    for q in report.coverage.quests.by_quest:
        stages = "  ".join(f"{s.id} {s.completed}" for s in q.stages)
        table.add_row(q.title, str(q.offered), str(q.started), stages, str(q.completed))
    console.print(table)


def _episodes(report: Report, console: Console) -> None:
    e = report.coverage.episodes
    table = Table(title="Episodes (times, over every campaign)", title_justify="left")
    for column in ("episode", "started", "won", "mixed", "lost", "ended by"):
        table.add_column(column)
    for ep in e.by_episode:
        triggers = ", ".join(f"{k} {v}" for k, v in ep.triggers.items()) or "-"
        table.add_row(ep.title, str(ep.started), str(ep.outcomes["won"]), str(ep.outcomes["mixed"]),
                      str(ep.outcomes["lost"]), triggers)
    console.print(table)


def _policies(report: Report, console: Console) -> None:
    table = Table(title="By policy: a campaign's mean share, and episodes won per campaign", title_justify="left")
    for column in ("policy", "campaigns", "places", "NPCs", "quest stages", "episodes won"):
        table.add_column(column)
    for name, p in report.coverage.by_policy.items():
        table.add_row(name, str(p.campaigns), f"{p.places:.0%}", f"{p.npcs:.0%}", f"{p.stages:.0%}",
                      f"{p.episodes_won:.2f}")
    console.print(table)


def _dead(report: Report, console: Console) -> None:
    if not report.dead_content:
        console.print("[green]dead content: none; every place, NPC, quest stage and episode was reached[/green]")
        return
    table = Table(title=f"Dead content: {len(report.dead_content)} thing(s) no run reached", title_justify="left")
    for column in ("kind", "what", "why"):
        table.add_column(column)
    for d in report.dead_content:
        table.add_row(d.kind.replace("_", " "), d.name, d.reason + (" [dim](lint names it)[/dim]" if d.named_by_lint
                                                                    else ""))
    console.print(table)


def _defects(report: Report, console: Console) -> None:
    counts = {kind: report.count(kind) for kind in KINDS}
    console.print("[bold]Defects[/bold]: " + ", ".join(f"{KIND_TITLES[k]} {n}" for k, n in counts.items()))
    for kind in KINDS:
        mine = [d for d in report.defects if d.kind == kind]
        if not mine:
            continue
        table = Table(title=f"{KIND_TITLES[kind]}: {len(mine)}" + (f" (the first {SHOWN})" if len(mine) > SHOWN
                                                                 else ""), title_justify="left")
        for column in ("what", "campaigns", "first seen", "replay"):
            table.add_column(column, overflow="fold")
        for d in mine[:SHOWN]:
            turns = ", ".join(map(str, d.turns[:6])) + ("..." if len(d.turns) > 6 else "")
            table.add_row(d.detail, str(d.campaigns), f"{d.policy}, seed {d.seed}, turn(s) {turns}", d.replay)
        console.print(table)
