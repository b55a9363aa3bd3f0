"""The pack map with a heat of visits, for the playtest page (``skald playtest --html``): one inline SVG, nothing
fetched.

The layout is the pack map's own (``skald.packs.map``, as ``skald pack map`` draws it): Graphviz's ``dot`` ranks the
places in links away from the first one and draws each way once; its coordinates are read back (``dot``'s JSON
output, in points, y upwards) and drawn here. Each place is a box shaded by its visits over every campaign of the run
(``Coverage.visits``: arrivals, the start included), in classes that grow geometrically from 1 to the most visited
place (:func:`classes`), with the name and the count inside and, as its ``<title>`` tooltip, the exact visits and
how many campaigns went there. A place never visited is white, hatched, with a dashed outline and "never visited".
A start place has a thick dark border. The legend, on the right, gives each class's range of visits.

In the SVG each place is a group with the id ``place-<location id>``, the classes ``place`` and ``visited`` or
``unvisited``, and ``data-visits``; each way is a path with the id ``way-<a>-<b>``.

Without ``dot`` (:class:`~skald.packs.map.MapError`) there is no layout: :func:`section` says so and lists the
places with their visits instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from skald.core.pack import EraPack
from skald.packs import map as pack_map
from skald.packs.map import INK, LINE, MUTED, MapError
from skald.playtest.coverage import Coverage

PALETTE = ("#fde8c8", "#f7bd7c", "#ea8443", "#c2521c", "#7f3410")  # light to dark: few to many visits
LIGHT_TEXT = 3  # palette entries from this one on take white text
LIGHT = ' class="light"'  # the labels' group on a dark shade
SIZING = "000,000 visits"  # the count line dot sizes each box for, so the layout does not move with the counts
SCALE = 1.3  # CSS px per point of dot's layout
PAD = 6.0  # points around the map
LEGEND = 190.0  # points of legend to the right of the map
STYLE = (".heatmap text { font: 11px Helvetica, Arial, sans-serif; fill: #1d1b18; }"
         " .heatmap .count { font-size: 9.5px; } .heatmap .head { font-weight: bold; }"
         " .heatmap .light text { fill: #fff; } .heatmap .muted { fill: #5a554d; }"
         " svg.heatmap { max-width: 100%; height: auto; }")


@dataclass(frozen=True)
class Box:
    """A place's box in SVG coordinates (points, y downwards): its centre and size."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Layout:
    """The laid-out map in points: its size, each place's box (pack order), and each way as an SVG path (a, b, d)."""

    width: float
    height: float
    boxes: dict[str, Box]
    ways: list[tuple[str, str, str]]


def layout(pack: EraPack) -> Layout:
    """The pack map's layout, from ``dot``. :raises MapError: no ``dot`` (or no ``graphviz`` package), or it failed."""
    drawn = pack_map.laid_out(pack, lambda loc: [loc.name, SIZING])
    _, _, width, height = (float(v) for v in drawn["bb"].split(","))
    names = {node["_gvid"]: node["name"] for node in drawn.get("objects", [])}

    def point(text: str) -> tuple[float, float]:
        x, y = (float(v) for v in text.split(","))
        return round(x + PAD, 1), round(height - y + PAD, 1)

    boxes = {}
    for node in drawn.get("objects", []):
        x, y = point(node["pos"])
        boxes[node["name"]] = Box(x, y, float(node["width"]) * 72, float(node["height"]) * 72)
    ways = []
    for edge in drawn.get("edges", []):
        spline = [point(p) for p in edge["pos"].split() if not p.startswith(("e,", "s,"))]
        d = f"M{spline[0][0]},{spline[0][1]}" + "".join(
            f" C{a[0]},{a[1]} {b[0]},{b[1]} {c[0]},{c[1]}" for a, b, c in zip(*[iter(spline[1:])] * 3, strict=False))
        ways.append((names[edge["tail"]], names[edge["head"]], d))
    ordered = {p: boxes[p] for p in pack.locations if p in boxes}
    return Layout(width + 2 * PAD, height + 2 * PAD, ordered, ways)


def classes(most: int) -> list[tuple[int, int]]:
    """The heat classes for visit counts 1..``most``: up to five ranges (lowest, highest visits), each about three
    times as wide as the one before (a start place gets a visit from every campaign, most places far fewer: a linear
    scale would leave all but one place pale). [] when ``most`` < 1."""
    if most < 1:
        return []
    steps = min(len(PALETTE), most)
    tops = sorted({max(1, round(most ** (k / steps))) for k in range(1, steps + 1)})
    return [(1 if n == 0 else tops[n - 1] + 1, top) for n, top in enumerate(tops)]


def _colours(count: int) -> list[int]:
    """Palette indices for ``count`` classes, spread from light to dark (the darkest always used)."""
    return [min(len(PALETTE) - 1, max(0, round((k + 1) * len(PALETTE) / count) - 1)) for k in range(count)]


def _visits(n: int) -> str:
    return f"{n:,} visit" + ("" if n == 1 else "s")


def _span(low: int, high: int) -> str:
    return _visits(low) if low == high else f"{low:,}–{high:,} visits"


def svg(pack: EraPack, coverage: Coverage, drawn: Layout) -> str:
    """The map as one ``<svg>`` element: places shaded by ``coverage.visits`` on ``drawn``, the legend at the right."""
    visits, went = coverage.visits, coverage.places.campaigns
    ranges = classes(max(visits.values(), default=0))
    shades = _colours(len(ranges))
    starts = set(pack.era.start_locations)
    width, height = drawn.width + LEGEND, max(drawn.height, 60 + 20 * len(ranges) + 60)
    out = [f'<svg class="heatmap" role="img" aria-label="map of {escape(pack.era.name)}: visits per place" '
           f'width="{round(width * SCALE)}" height="{round(height * SCALE)}" viewBox="0 0 {width} {height}" '
           'xmlns="http://www.w3.org/2000/svg"><defs><pattern id="heat-never" width="6" height="6" '
           'patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/>'
           '<line x1="0" y1="0" x2="0" y2="6" stroke="#c4b8a5" stroke-width="2.2"/></pattern></defs>']
    out += [f'<path id="way-{escape(a)}-{escape(b)}" class="way" d="{d}" fill="none" stroke="{LINE}" '
            'stroke-width="1.3"/>' for a, b, d in drawn.ways]
    for place, box in drawn.boxes.items():
        n = visits.get(place, 0)
        level = next((k for k, (_, top) in enumerate(ranges) if n <= top), None) if n else None
        shade = PALETTE[shades[level]] if level is not None else None
        name = pack.locations[place].name
        tip = (f"{name} ({place}): {_visits(n)}, in {went.get(place, 0)} of {coverage.campaigns} campaign(s)"
               + ("; a start place" if place in starts else ""))
        light = level is not None and shades[level] >= LIGHT_TEXT
        left, top = round(box.x - box.width / 2, 1), round(box.y - box.height / 2, 1)
        border = (f'stroke="{INK}" stroke-width="2.6"' if place in starts else
                  f'stroke="{MUTED}" stroke-width="1"' + ("" if n else ' stroke-dasharray="4 3"'))
        out.append(
            f'<g id="place-{escape(place)}" class="place {"visited" if n else "unvisited"}" data-visits="{n}">'
            f"<title>{escape(tip)}</title>"
            f'<rect x="{left}" y="{top}" width="{round(box.width, 1)}" height="{round(box.height, 1)}" rx="5" '
            f'fill="{shade or "url(#heat-never)"}" {border}/>'
            f'<g{LIGHT if light else ""} text-anchor="middle">'
            f'<text x="{box.x}" y="{round(box.y - 2, 1)}">{escape(name)}</text>'
            f'<text class="count{"" if n else " muted"}" x="{box.x}" y="{round(box.y + 11, 1)}">'
            f'{_visits(n) if n else "never visited"}</text></g></g>')
    out.append(_legend(drawn.width + 14, ranges, shades, coverage.campaigns, bool(starts)))
    return "".join(out) + "</svg>"


def _legend(x: float, ranges: list[tuple[int, int]], shades: list[int], campaigns: int, starts: bool) -> str:
    out = [f'<g class="legend"><text x="{x}" y="18" class="head">Visits per place</text>'
           f'<text class="count muted" x="{x}" y="32">arrivals over all {campaigns} campaign(s)</text>']
    y = 44.0
    for (low, high), shade in zip(reversed(ranges), reversed(shades), strict=True):
        out.append(f'<rect x="{x}" y="{y}" width="22" height="14" rx="2" fill="{PALETTE[shade]}" stroke="{MUTED}" '
                   f'stroke-width=".6"/><text x="{x + 30}" y="{y + 11}">{_span(low, high)}</text>')
        y += 20
    out.append(f'<rect x="{x}" y="{y}" width="22" height="14" rx="2" fill="url(#heat-never)" stroke="{MUTED}" '
               f'stroke-dasharray="4 3"/><text x="{x + 30}" y="{y + 11}">never visited</text>')
    if starts:
        y += 20
        out.append(f'<rect x="{x}" y="{y}" width="22" height="14" rx="2" fill="none" stroke="{INK}" '
                   f'stroke-width="2.6"/><text x="{x + 30}" y="{y + 11}">a start place</text>')
    return "".join(out) + "</g>"


def section(pack: EraPack, coverage: Coverage) -> str:
    """The page's map section: a heading, a line on how to read it, and the map (without ``dot``: a note and the
    places with their visits, most first)."""
    head = "<h2>The map: where the campaigns went</h2>"
    try:
        drawn = layout(pack)
    except MapError as exc:
        rows = sorted(coverage.visits.items(), key=lambda kv: (-kv[1], kv[0]))
        went = coverage.places.campaigns
        listed = "".join(f"<tr><td>{escape(pack.locations[p].name)}</td><td>{_visits(n) if n else 'never visited'}"
                         f"</td><td>{went.get(p, 0)}</td></tr>" for p, n in rows)
        return (f"{head}<p>No map here: {escape(str(exc), quote=False)}. The places and their visits:</p>"
                f"<table><tr><th>place</th><th>visits</th><th>campaigns</th></tr>{listed}</table>")
    return (f"{head}<p>Darker places were visited more often (arrivals, the start of each campaign included); hatched "
            "places no campaign reached. Hover a place for its exact visits.</p>" + svg(pack, coverage, drawn))
