"""The playtest report as one self-contained HTML page (``skald playtest --html FILE``): no script, no external file.
Coverage and each quest's funnel as inline SVG bars, each episode's outcomes as a stacked bar, the pack map with a
heat of visits (``playtest.heatmap``), the tension curves (``playtest.curves``), dead content with its reasons, and
the defects with the command that replays each."""

from __future__ import annotations

from html import escape

from skald.core.pack import EraPack
from skald.playtest import curves, heatmap
from skald.playtest.coverage import Tally
from skald.playtest.report import KIND_TITLES, KINDS, Report

ROWS = 60  # defects listed per kind (the JSON has them all)
WIDTH = 320  # px of a full bar
COLOURS = {"won": "#2e7d32", "mixed": "#f9a825", "lost": "#c62828", "unfinished": "#9e9e9e", "bar": "#3f51b5"}
STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .25em .5em; vertical-align: top;
border-bottom: 1px solid #eee; } code { font-size: .85em; background: #f4f4f4; padding: .1em .3em; }
.lint { color: #666; font-size: .85em; } svg text { font: 13px system-ui, sans-serif; }
.legend span { margin-right: 1em; }
""" + heatmap.STYLE + "\n" + curves.STYLE


def _svg_bars(rows: list[tuple[str, float, str]]) -> str:
    """Horizontal bars: (label, share 0..1, the text after the bar)."""
    height = 22 * len(rows) + 4
    out = [f'<svg role="img" width="{WIDTH + 420}" height="{height}" xmlns="http://www.w3.org/2000/svg">']
    for n, (label, share, said) in enumerate(rows):
        y = 22 * n + 2
        out += [f'<text x="0" y="{y + 15}">{escape(label)}</text>',
                f'<rect x="250" y="{y + 3}" width="{WIDTH}" height="15" fill="#eee"/>',
                f'<rect x="250" y="{y + 3}" width="{round(share * WIDTH, 1)}" height="15" fill="{COLOURS["bar"]}"/>',
                f'<text x="{260 + WIDTH}" y="{y + 15}">{escape(said)}</text>']
    return "".join(out) + "</svg>"


def _tally(label: str, t: Tally) -> tuple[str, float, str]:
    return label, t.share, f"{t.reached} of {t.defined} ({t.share:.0%})"


def _coverage(report: Report) -> str:
    c = report.coverage
    rows = [_tally("places visited", c.places), _tally("NPCs met", c.npcs),
            _tally("companions recruited", c.companions_recruited), _tally("quests taken up", c.quests.started),
            _tally("quests completed", c.quests.completed), _tally("quest stages completed", c.quests.stages),
            _tally("episodes started", c.episodes.started), _tally("episodes completed", c.episodes.completed),
            _tally("scenes opened", c.scenes.opened), _tally("scene goals met", c.scenes.goal_met),
            _tally("items bought", c.items.bought), _tally("items sold", c.items.sold),
            _tally("items found", c.items.found), _tally("discoveries found", c.discoveries)]
    return "<h2>Coverage: what at least one campaign reached</h2>" + _svg_bars(rows)


def _funnels(report: Report) -> str:
    out = ["<h2>Quests: how far the campaigns got</h2>"]
    campaigns = max(1, report.coverage.campaigns)
    for q in report.coverage.quests.by_quest:
        rows = [("offered", q.offered / campaigns, str(q.offered)), ("taken up", q.started / campaigns, str(q.started))]
        rows += [(f"{n + 1}. {s.id}", s.completed / campaigns, str(s.completed)) for n, s in enumerate(q.stages)]
        out.append(f"<h3>{escape(q.title)}</h3>" + _svg_bars(rows))
    return "".join(out)


def _episodes(report: Report) -> str:
    eps = report.coverage.episodes.by_episode
    most = max([e.started for e in eps] + [1])
    out = ['<h2>Episodes: how each ended</h2><p class="legend">'
           + "".join(f'<span style="color:{COLOURS[k]}">■ {k}</span>' for k in ("won", "mixed", "lost", "unfinished"))
           + "</p>", f'<svg role="img" width="{WIDTH + 480}" height="{22 * len(eps) + 4}" '
           'xmlns="http://www.w3.org/2000/svg">']
    for n, e in enumerate(eps):
        y, x = 22 * n + 2, 250.0
        out.append(f'<text x="0" y="{y + 15}">{escape(e.title)}</text>')
        parts = [*((k, e.outcomes[k]) for k in ("won", "mixed", "lost")), ("unfinished", e.started - e.completed)]
        for kind, count in parts:
            width = round(count / most * WIDTH, 1)
            if width:
                out.append(f'<rect x="{x}" y="{y + 3}" width="{width}" height="15" fill="{COLOURS[kind]}">'
                           f"<title>{kind}: {count}</title></rect>")
            x += width
        said = ", ".join(f"{k} {v}" for k, v in parts if v) or "never started"
        out.append(f'<text x="{260 + WIDTH}" y="{y + 15}">{escape(said)}</text>')
    return "".join(out) + "</svg>"


def _dead(report: Report) -> str:
    if not report.dead_content:
        return "<h2>Dead content</h2><p>None: every place, NPC, quest stage and episode was reached.</p>"
    rows = "".join(f"<tr><td>{escape(d.kind.replace('_', ' '))}</td><td>{escape(d.name)}</td><td>{escape(d.reason)}"
                   + (' <span class="lint">(lint names it)</span>' if d.named_by_lint else "") + "</td></tr>"
                   for d in report.dead_content)
    return (f"<h2>Dead content: {len(report.dead_content)} thing(s) no run reached</h2>"
            f"<table><tr><th>kind</th><th>what</th><th>why</th></tr>{rows}</table>")


def _defects(report: Report) -> str:
    out = ["<h2>Defects</h2><p>" + escape(", ".join(f"{KIND_TITLES[k]}: {report.count(k)}" for k in KINDS)) + "</p>"]
    for kind in KINDS:
        mine = [d for d in report.defects if d.kind == kind]
        if not mine:
            continue
        shown = f" (the first {ROWS})" if len(mine) > ROWS else ""
        rows = "".join(f"<tr><td>{escape(d.detail)}</td><td>{d.campaigns}</td><td>{escape(d.policy)}, seed {d.seed}, "
                       f"turn(s) {escape(', '.join(map(str, d.turns)))}</td><td><code>{escape(d.replay)}</code></td>"
                       "</tr>" for d in mine[:ROWS])
        out.append(f"<h3>{escape(KIND_TITLES[kind])}: {len(mine)}{shown}</h3><table><tr><th>what</th>"
                   f"<th>campaigns</th><th>first seen</th><th>replay</th></tr>{rows}</table>")
    return "".join(out)


def _tension(report: Report) -> str:
    c = report.coverage
    return curves.section(report.tension, {"all": c.campaigns, **{p: v.campaigns for p, v in c.by_policy.items()}})


def page(report: Report, pack: EraPack | None = None) -> str:
    """The whole page, as one string of HTML. ``pack``: the pack played (default: loaded again from
    ``report.run.pack``), for its map."""
    if pack is None:
        from skald.packs.loader import get_pack

        pack = get_pack(report.run.pack)
    run, speed = report.run, report.speed
    head = (f"<h1>Playtest of {escape(report.pack)}</h1><p>{run.campaigns} campaign(s) of {run.turns} turns, policy "
            f"{escape(run.policy)}, seed {run.seed}, {run.workers} worker(s). {speed.per_worker} turns/s per worker, "
            f"{speed.turns} turns in {speed.wall_seconds} s.</p>")
    body = (head + _coverage(report) + heatmap.section(pack, report.coverage) + _tension(report) + _episodes(report)
            + _funnels(report) + _dead(report) + _defects(report))
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Playtest of {escape(report.pack)}'
            f"</title><style>{STYLE}</style></head><body>{body}</body></html>\n")
