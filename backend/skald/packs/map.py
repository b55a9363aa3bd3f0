"""The map of a pack: its locations and the ways between them, laid out by Graphviz (the ``graphviz`` package, which
runs Graphviz's ``dot`` program) and drawn as SVG or PNG.

Two drawings of the same layout rules:

- the **designer's** (:func:`designer_graph`, ``skald pack map ID``): every place with its id and type, its hazards,
  the NPCs and companions placed there and the quest stages that happen there; every way with its travel time and
  risk (a way listed from one end only is drawn as an arrow);
- the **player's** (:func:`player_graph`, ``skald pack map ID --player`` and ``GET /campaigns/{id}/map.svg``, which
  the play page shows): built from a :class:`~skald.views.MapView` alone, so it can hold no secret the view does
  not: places, ways, travel times and risk, with the current place filled and the places visited shaded.

Each place is a node named by its location id (the SVG's ``<title>``), with the SVG ``id`` ``place-<id>`` and the
classes ``place`` (and ``current``, ``visited`` on the player's map). Ways are edges, each pair of places once.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import TYPE_CHECKING, Literal

from skald.core.vocab import Risk

if TYPE_CHECKING:
    import graphviz

    from skald.core.pack import EraPack, Location
    from skald.core.views import MapView

Format = Literal["svg", "png"]
FORMATS: tuple[Format, ...] = ("svg", "png")

FONT = "Helvetica,Arial,sans-serif"
INK, MUTED, LINE = "#1d1b18", "#5a554d", "#8f877b"  # the play page's colours (style.css)
ACCENT, VISITED, PAPER = "#8a3b12", "#e3d5bf", "#fffdf9"
DANGER, RISKY, QUEST, START = "#a23b2a", "#8a5a00", "#1a4f8b", "#2d6a2d"
PNG_DPI = 144

INSTALL = ("the pack map needs Graphviz's `dot` program, which is not installed here: install Graphviz "
           "(Debian/Ubuntu: `sudo apt-get install graphviz`, which `make test-deps` does; macOS: `brew install "
           "graphviz`) and try again")


class MapError(RuntimeError):
    """The map could not be drawn: no ``dot`` program (or no ``graphviz`` package), or ``dot`` failed."""


@dataclass(frozen=True)
class _Way:
    """One way between two places, drawn once: ``a`` is the end nearer the first place (the top of the map)."""

    a: str
    b: str
    minutes: int
    risk: Risk
    back: int | None = None  # minutes from b to a when they differ from a to b
    one_way: Literal["forward", "back"] | None = None  # listed from one end only: from a (forward) or from b


# ------------------------------------------------------------------------------------------------ the two maps


def designer_graph(pack: EraPack) -> graphviz.Graph:
    """Everything a designer checks: ids, types, hazards, people, quest stages, start places, one-way links."""
    gv = _graphviz()
    places = pack.locations
    people: dict[str, list[str]] = {loc: [] for loc in places}
    for npc in pack.npcs.values():
        if npc.location in people:
            people[npc.location].append(f"{npc.name}, {npc.role}")
    for comp in pack.companions.values():
        if comp.location in people:
            people[comp.location].append(f"companion: {comp.name}, {comp.role}")
    stages: dict[str, list[str]] = {loc: [] for loc in places}
    for quest in pack.quests.values():
        for n, stage in enumerate(quest.stages, 1):
            where = stage.when.location
            if where is None and stage.when.npc:  # a stage met by talking to someone: where they are
                person = pack.person(stage.when.npc)
                where = person.location if person else None
            if where in stages:
                stages[where].append(f"quest: {quest.title} stage {n}")
    starts = set(pack.era.start_locations)

    graph = _new_graph(gv, pack.id, f"{pack.era.name}: {pack.era.era} ({pack.id}), the designer's map")
    graph.graph_attr.update(bgcolor="white")  # a document of its own (the player's sits on the play page's panel)
    for loc in places.values():
        lines = [f"<B>{_esc(loc.name)}</B>", _small(f"{loc.id} · {loc.type}", MUTED)]
        if loc.id in starts:
            lines.append(_small("start location", START))
        lines += [_small(f"hazard: {h.name} ({round(h.chance * 100)}%)", DANGER) for h in loc.hazards]
        lines += [_small(p, INK) for p in people[loc.id]]
        lines += [_small(s, QUEST) for s in stages[loc.id]]
        graph.node(loc.id, label=_html(lines), id=f"place-{loc.id}",
                   **{"class": "place hazard" if loc.hazards else "place"},
                   color=DANGER if loc.hazards else MUTED, penwidth="1.6" if loc.hazards else "1")
    for way in _pack_ways(pack):
        _edge(graph, way, designer=True)
    return graph


def player_graph(view: MapView) -> graphviz.Graph:
    """The player's map, from what :func:`skald.views.map_of` lets a player see, and nothing else."""
    gv = _graphviz()
    graph = _new_graph(gv, "map", "")
    for place in view.locations:
        classes = "place" + (" current" if place.current else "") + (" visited" if place.visited else "")
        name = place.name.replace("\\", "\\\\")  # a plain label: centred text (text-anchor middle) in any font
        if place.current:
            look = {"label": gv.nohtml(f"{name}\\nyou are here"), "fillcolor": ACCENT, "color": INK,
                    "fontcolor": "white", "penwidth": "2"}
        else:
            look = {"label": gv.nohtml(name), "fillcolor": VISITED if place.visited else PAPER, "color": MUTED}
        graph.node(place.id, id=f"place-{place.id}", **{"class": classes}, **look)
    links = [(link.a, link.b, link.minutes, link.risk) for link in view.links]
    for way in _oriented([p.id for p in view.locations], links):
        _edge(graph, way, designer=False)
    return graph


def render(graph: graphviz.Graph, fmt: Format = "svg") -> bytes:
    """``graph`` drawn by ``dot``: SVG text (UTF-8) or PNG bytes. :raises MapError: no ``dot``, or it failed."""
    if fmt not in FORMATS:
        raise MapError(f"unknown map format {fmt!r}: one of {', '.join(FORMATS)}")
    if fmt == "png":
        graph = graph.copy()
        graph.graph_attr.update(dpi=str(PNG_DPI), bgcolor="white")
    return _pipe(graph, fmt)


def _pipe(graph: graphviz.Graph, fmt: str) -> bytes:
    """``dot``'s output for ``graph`` in ``fmt`` (any format ``dot`` knows). :raises MapError: no ``dot``, or it
    failed."""
    gv = _graphviz()
    try:
        return graph.pipe(format=fmt)
    except gv.ExecutableNotFound:
        raise MapError(INSTALL) from None
    except gv.CalledProcessError as exc:
        detail = (exc.stderr or b"").decode("utf-8", "replace").strip() if isinstance(exc.stderr, bytes) else ""
        raise MapError(f"Graphviz's dot could not draw the map: {detail or exc}") from None


def designer_map(pack: EraPack, fmt: Format = "svg") -> bytes:
    return render(designer_graph(pack), fmt)


def player_map(view: MapView, fmt: Format = "svg") -> bytes:
    return render(player_graph(view), fmt)


def player_svg(view: MapView) -> bytes:
    """:func:`player_map` as SVG, remembered for the last views drawn (the play page asks after every turn, and the
    map changes only when the player reaches a new place)."""
    return _player_svg(view.model_dump_json())


@lru_cache(maxsize=256)
def _player_svg(view_json: str) -> bytes:
    from skald.core.views import MapView

    return player_map(MapView.model_validate_json(view_json), "svg")


def laid_out(pack: EraPack, label: Callable[[Location], list[str]]) -> dict:
    """The pack map's layout as ``dot`` computes it (its JSON output: ``bb``, ``objects`` with ``name``, ``pos``,
    ``width`` and ``height`` in inches, ``edges`` with ``tail``, ``head`` and a spline ``pos``; points, y upwards),
    each place boxed around the lines ``label(location)`` and each way drawn once: what another drawing of the same
    map (the playtest's heat map) lays its own shapes on. :raises MapError: no ``dot``, or it failed."""
    gv = _graphviz()
    graph = _new_graph(gv, pack.id, "")
    for loc in pack.locations.values():
        graph.node(loc.id, label=gv.nohtml("\\n".join(line.replace("\\", "\\\\") for line in label(loc))))
    for way in _pack_ways(pack):
        graph.edge(way.a, way.b)
    return json.loads(_pipe(graph, "json"))


def dot_available() -> bool:
    """Whether maps can be drawn here (the ``graphviz`` package and its ``dot`` program)."""
    try:
        render(_graphviz().Graph(), "svg")
    except MapError:
        return False
    return True


# ------------------------------------------------------------------------------------------------ drawing


def _graphviz():
    try:
        import graphviz
    except ImportError:  # an environment installed before the dependency was added
        raise MapError("the pack map needs the Python package `graphviz` (pip install 'graphviz>=0.20,<1', or "
                       "`make install`) and Graphviz's `dot` program") from None
    return graphviz


def _new_graph(gv, name: str, title: str) -> graphviz.Graph:
    """An undirected graph laid out top to bottom by ``dot``, in ranks of links away from the first place: a pack of
    a dozen or two places comes out about as wide as it is tall, so it fits a page, and ``dot`` keeps the labels
    clear of each other (``neato`` and ``fdp`` drew a rounder map whose travel times sat on other ways)."""
    graph = gv.Graph(name, engine="dot", encoding="utf-8")
    graph.graph_attr.update(rankdir="TB", nodesep="0.3", ranksep="0.5", pad="0.2", bgcolor="transparent",
                            fontname=FONT, fontsize="14", fontcolor=INK, id="skald-map", newrank="true")
    if title:
        graph.graph_attr.update(label=gv.nohtml(title.replace("\\", "\\\\")), labelloc="t", labeljust="l")
    graph.node_attr.update(shape="box", style="rounded,filled", fillcolor=PAPER, fontname=FONT, fontsize="11",
                           fontcolor=INK, margin="0.1,0.05")
    graph.edge_attr.update(fontname=FONT, fontsize="9", color=LINE, fontcolor=MUTED, penwidth="1.3")
    return graph


def _edge(graph: graphviz.Graph, way: _Way, *, designer: bool) -> None:
    label = f"{way.minutes} min" + (f" ({way.back} back)" if way.back is not None else "")
    attrs = {"id": f"way-{way.a}-{way.b}", "class": f"way risk-{way.risk.value.lower()}"}
    if way.risk is Risk.RISKY:
        label += ", risky"
        attrs |= {"style": "dashed", "color": RISKY, "fontcolor": RISKY}
    elif way.risk is Risk.DANGEROUS:
        label += ", dangerous"
        attrs |= {"style": "dashed", "color": DANGER, "fontcolor": DANGER, "penwidth": "2"}
    if designer and way.one_way:
        label += ", one way"
        attrs |= {"dir": way.one_way, "arrowsize": "0.7"}
    graph.edge(way.a, way.b, label=label, **attrs)


def _pack_ways(pack: EraPack) -> list[_Way]:
    """Each pair of linked places once, with both directions' minutes and whether it is one-way."""
    listed: dict[tuple[str, str], tuple[int, Risk]] = {}
    for place in pack.locations.values():
        for link in place.links:
            if link.to in pack.locations and link.to != place.id:
                listed.setdefault((place.id, link.to), (link.minutes, link.risk))
    ways = _oriented(list(pack.locations), [(a, b, m, r) for (a, b), (m, r) in listed.items()])
    out = []
    for way in ways:
        there, back = listed.get((way.a, way.b)), listed.get((way.b, way.a))
        if there is None:  # listed from b only: the arrow points back, from b to a
            out.append(_Way(way.a, way.b, back[0], back[1], one_way="back"))
        elif back is None:
            out.append(_Way(way.a, way.b, there[0], there[1], one_way="forward"))
        else:
            risk = max(there[1], back[1], key=list(Risk).index)
            out.append(_Way(way.a, way.b, there[0], risk, back=back[0] if back[0] != there[0] else None))
    return out


def _oriented(order: list[str], links: Iterable[tuple[str, str, int, Risk]]) -> list[_Way]:
    """Each unordered pair once, its ``a`` the end fewer links from the first place of ``order`` (``dot`` ranks
    tails before heads, so the map reads downwards from there); places no way reaches count from the first of them
    in ``order``."""
    pairs: dict[frozenset[str], tuple[str, str, int, Risk]] = {}
    for a, b, minutes, risk in links:
        pairs.setdefault(frozenset((a, b)), (a, b, minutes, risk))
    near: dict[str, list[str]] = {p: [] for p in order}
    for a, b, _, _ in pairs.values():
        near.setdefault(a, []).append(b)
        near.setdefault(b, []).append(a)
    depth: dict[str, int] = {}
    for root in order:
        if root in depth:
            continue
        depth[root] = 0
        queue = deque([root])
        while queue:
            here = queue.popleft()
            for there in near[here]:
                if there not in depth:
                    depth[there] = depth[here] + 1
                    queue.append(there)
    index = {p: i for i, p in enumerate(order)}
    ways = []
    for a, b, minutes, risk in pairs.values():
        if (depth.get(b, 0), index.get(b, 0)) < (depth.get(a, 0), index.get(a, 0)):
            a, b = b, a
        ways.append(_Way(a, b, minutes, risk))
    return ways


def _esc(text: str) -> str:
    """``text`` for an HTML-like label: markup escaped, and backslashes doubled (dot reads ``\\N`` as the node's
    name, even in HTML-like labels, and ``\\\\`` as one backslash)."""
    return escape(text, quote=True).replace("\\", "\\\\")


def _small(text: str, colour: str) -> str:
    return f'<FONT POINT-SIZE="9" COLOR="{colour}">{_esc(text)}</FONT>'


def _html(lines: list[str]) -> str:
    """An HTML-like Graphviz label: one line each (``<...>`` tells the graphviz package not to quote it)."""
    return "<" + "<BR/>".join(lines) + ">"
