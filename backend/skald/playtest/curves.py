"""The tension curves of the playtest page (``skald playtest --html``): inline SVG, one panel per series of
``playtest.tension`` (every campaign; then, when the run mixes policies, one smaller panel per policy, on the same
scales).

In a panel the x axis is the turn (the line typed, 1..the run's ``--turns``) and the y axis the episode's tension
(0..1, no unit: the engine's reading of each story turn). The line is the median over the campaigns that had a
reading at that turn, the band around it the middle half of them (first to third quartile), and each turn with a
reading has a dot whose ``<title>`` gives the figures. The line breaks where no campaign had a reading (between
episodes, a ``/next``). Dashed guides on the first panel mark a safe (0.15), risky (0.35) and dangerous (0.55) turn.

In the SVG each panel is a group with the class ``curve`` and ``data-series`` (``all`` or the policy); each dot is a
``circle`` with the class ``point`` and ``data-turn``.
"""

from __future__ import annotations

from html import escape

from skald.playtest.tension import Series, Tension

WIDTH = 960  # px of the whole drawing
BIG, SMALL = 250, 165  # px: the height of the first panel and of each policy's
COLUMNS = 3  # policy panels per row
LEFT, TOP, BOTTOM = 58, 26, 44  # px of margin around each panel's plot area
RIGHT, GUIDED = 18, 100  # px of margin at the right of a panel without and with the guides' labels
COLOURS = {"all": "#1d1b18", "suggestions": "#1f5fa8", "quester": "#2e7d32", "explorer": "#7b3fa0",
           "chatter": "#00838f", "chaos": "#c62828", "idle": "#757575"}
GUIDES = ((0.15, "safe"), (0.35, "risky"), (0.55, "dangerous"))
STYLE = (".curves text { font: 11px system-ui, sans-serif; fill: #333; } .curves .title { font-weight: bold;"
         " font-size: 12px; } .curves .guide { font-size: 10px; fill: #8a5a00; } svg.curves { max-width: 100%;"
         " height: auto; }")


def _step(turns: int) -> int:
    """The x axis' tick spacing: at most about 10 ticks."""
    return next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 10**9) if turns / s <= 10)


def _runs(values: list[float | None]) -> list[list[int]]:
    """The indices of ``values`` in runs without a None."""
    out: list[list[int]] = []
    for i, v in enumerate(values):
        if v is None:
            continue
        if out and out[-1][-1] == i - 1:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def panel(name: str, title: str, data: Series, turns: int, x0: float, y0: float, width: float, height: float,
          guides: bool) -> str:
    """One series' panel (``name``: ``all`` or the policy) with its plot area at (x0, y0), ``width`` x ``height``
    px of margins included."""
    colour = COLOURS.get(name, "#3f51b5")
    left, top = x0 + LEFT, y0 + TOP
    w, h = width - LEFT - (GUIDED if guides else RIGHT), height - TOP - BOTTOM

    def x(i: int) -> float:  # i: 0-based step
        return round(left + (i / (turns - 1) if turns > 1 else 0.5) * w, 1)

    def y(v: float) -> float:
        return round(top + (1 - v) * h, 1)

    out = [f'<g class="curve" data-series="{escape(name)}">',
           f'<text class="title" x="{left}" y="{y0 + 15}" style="fill:{colour}">{escape(title)}</text>',
           f'<text x="{x0 + 14}" y="{top + h / 2}" text-anchor="middle" transform="rotate(-90 {x0 + 14} {top + h / 2})"'
           ">tension</text>"]
    for v in (0, 0.25, 0.5, 0.75, 1):
        out.append(f'<line x1="{left}" x2="{left + w}" y1="{y(v)}" y2="{y(v)}" stroke="#e4e4e4"/>'
                   f'<text x="{left - 6}" y="{y(v) + 4}" text-anchor="end">{v:g}</text>')
    if guides:
        out += [f'<line x1="{left}" x2="{left + w}" y1="{y(v)}" y2="{y(v)}" stroke="#d9b36c" stroke-dasharray="4 4"/>'
                f'<text class="guide" x="{left + w + 6}" y="{y(v) + 4}">{label} {v:g}</text>' for v, label in GUIDES]
    ticks = [1, *range(_step(turns), turns + 1, _step(turns))] if turns > 1 else [1]
    for t in dict.fromkeys(ticks):
        out.append(f'<line x1="{x(t - 1)}" x2="{x(t - 1)}" y1="{top + h}" y2="{top + h + 4}" stroke="#666"/>'
                   f'<text x="{x(t - 1)}" y="{top + h + 16}" text-anchor="middle">{t}</text>')
    out.append(f'<text x="{left + w / 2}" y="{top + h + 31}" text-anchor="middle">turn</text>'
               f'<line x1="{left}" x2="{left + w}" y1="{top + h}" y2="{top + h}" stroke="#666"/>'
               f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + h}" stroke="#666"/>')
    for run in _runs(data.median):
        if len(run) > 1:
            edge = [f"{x(i)},{y(data.high[i])}" for i in run] + [f"{x(i)},{y(data.low[i])}" for i in reversed(run)]
            out.append(f'<polygon class="band" points="{" ".join(edge)}" fill="{colour}" fill-opacity="0.16"/>'
                       f'<polyline class="median" points="{" ".join(f"{x(i)},{y(data.median[i])}" for i in run)}" '
                       f'fill="none" stroke="{colour}" stroke-width="1.8" stroke-linejoin="round"/>')
    for i, median in enumerate(data.median):
        if median is not None:
            said = (f"turn {i + 1}: median {median:g}, middle half {data.low[i]:g} to {data.high[i]:g}, "
                    f"{data.campaigns[i]} campaign(s) with a reading")
            out.append(f'<circle class="point" data-turn="{i + 1}" cx="{x(i)}" cy="{y(median)}" r="2.2" '
                       f'fill="{colour}"><title>{said}</title></circle>')
    return "".join(out) + "</g>"


def svg(tension: Tension, campaigns: dict[str, int]) -> str:
    """Every panel as one ``<svg>``: ``campaigns`` counts the campaigns of each series (``all`` and each policy)."""
    policies = list(tension.by_policy) if len(tension.by_policy) > 1 else []
    rows = -(-len(policies) // COLUMNS)
    height = BIG + rows * SMALL + 24
    out = [f'<svg class="curves" role="img" aria-label="tension per turn" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" xmlns="http://www.w3.org/2000/svg">',
           panel("all", f"All {campaigns['all']} campaign(s)", tension.all, tension.turns, 0, 0, WIDTH, BIG, True)]
    width = WIDTH / COLUMNS
    for n, policy in enumerate(policies):
        out.append(panel(policy, f"{policy} ({campaigns.get(policy, 0)})", tension.by_policy[policy], tension.turns,
                         n % COLUMNS * width, BIG + n // COLUMNS * SMALL, width, SMALL, False))
    out.append(f'<text x="{WIDTH / 2}" y="{height - 6}" text-anchor="middle">turn: the line the player typed, 1 to '
               f"{tension.turns}; tension: the episode's reading of the turn, 0 (calm) to 1 (the player down), no unit"
               "</text>")
    return "".join(out) + "</svg>"


def section(tension: Tension, campaigns: dict[str, int]) -> str:
    """The page's tension section: a heading, how to read it, and :func:`svg`."""
    return ("<h2>Tension: how tense the story was, turn by turn</h2><p>The engine's own reading of each story turn "
            "of an episode (0 to 1: a safe turn 0.15, a risky one 0.35, a dangerous one 0.55, more for a failed "
            "check, HP lost or a fight, 1 when the player goes down). The line is the median over the campaigns, the "
            "band the middle half of them (first to third quartile); a gap is a turn with no episode running. Hover "
            "a dot for its figures.</p>" + svg(tension, campaigns))
