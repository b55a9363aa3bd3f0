"""``skald playtest --html``: the pack map with a heat of visits and the tension curves, drawn from what the JSON report
holds (``coverage.visits``, ``tension``), as inline SVG in one self-contained page. Small seeded runs of
``cinder_reach`` (a few seconds); the map's layout is the pack map's (Graphviz's ``dot``), and without ``dot`` the
page lists the visits instead."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from skald.cli.main import app
from skald.packs import map as pack_map
from skald.packs.loader import available_packs, get_pack
from skald.playtest import heatmap, playtest
from skald.playtest.html import page
from skald.playtest.record import CampaignRecord
from skald.playtest.tension import tension
from typer.testing import CliRunner

SVG = "{http://www.w3.org/2000/svg}"
RUN = ["--campaigns", "6", "--turns", "20", "--seed", "3", "--workers", "1"]  # one campaign of each policy
needs_dot = pytest.mark.skipif(not pack_map.dot_available(), reason="no Graphviz dot here: the map has no layout")


def _svg(html: str, css_class: str) -> ET.Element:
    """The page's ``<svg class="css_class">``, parsed (it must be well-formed XML)."""
    found = re.search(rf'<svg class="{css_class}".*?</svg>', html, re.S)
    assert found, css_class
    return ET.fromstring(found.group(0))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The command line's JSON report and HTML page of one small mixed run."""
    target = tmp_path_factory.mktemp("page") / "report.html"
    said = CliRunner().invoke(app, ["playtest", "cinder_reach", *RUN, "--json", "--html", str(target)])
    assert said.exit_code == 0, said.output
    return json.loads(said.stdout), target.read_text(encoding="utf-8")


@needs_dot
def test_the_map_draws_every_place_shaded_by_the_visits_the_json_report_counts(run):
    report, html = run
    pack = get_pack("cinder_reach")
    visits, went = report["coverage"]["visits"], report["coverage"]["places"]["campaigns"]
    assert list(visits) == list(pack.locations)  # every place, in the pack's order
    assert visits["slag_and_lantern"] >= 6  # each of the 6 campaigns began there
    assert sum(visits.values()) >= sum(went.values())  # a place a campaign went to got at least one visit from it
    assert all((visits[p] > 0) == (went[p] > 0) for p in visits)
    drawn = _svg(html, "heatmap")
    places = {g.get("id").removeprefix("place-"): g for g in drawn.iter(f"{SVG}g") if "place" in g.get("class", "")}
    assert list(places) == list(pack.locations)
    fills = {}
    for place, g in places.items():
        n = visits[place]
        title = g.find(f"{SVG}title").text
        assert g.get("data-visits") == str(n)
        assert title.startswith(f"{pack.locations[place].name} ({place}): {n} visit")
        assert f"in {went[place]} of 6 campaign(s)" in title
        assert pack.locations[place].name in [t.text for t in g.iter(f"{SVG}text")]
        fills[place] = g.find(f"{SVG}rect").get("fill")
        assert g.get("class") == ("place visited" if n else "place unvisited")
    visited = [p for p in places if visits[p]]
    never = [p for p in places if not visits[p]]
    assert visited and never  # a short run leaves places unreached
    assert {fills[p] for p in never} == {"url(#heat-never)"}
    assert all(fills[p] in heatmap.PALETTE for p in visited)
    most = max(visited, key=lambda p: visits[p])
    assert fills[most] == heatmap.PALETTE[-1]  # the most visited place is the darkest
    shade = {p: heatmap.PALETTE.index(fills[p]) for p in visited}
    assert all(shade[a] <= shade[b] for a in visited for b in visited if visits[a] <= visits[b])  # monotone
    ways = [p for p in drawn.iter(f"{SVG}path") if p.get("class") == "way"]
    assert len(ways) == len(pack_map._pack_ways(pack)) > 0
    legend = "".join(t.text or "" for t in drawn.iter(f"{SVG}text"))
    assert "never visited" in legend and "arrivals over all 6 campaign(s)" in legend
    assert f"{visits[most]} visits" in legend  # the top of the scale is the most visited place's count


def test_the_tension_curves_plot_the_json_report_series_one_point_per_turn_with_a_reading(run):
    report, html = run
    series = report["tension"]
    assert series["turns"] == 20 and "0.15 safe" in series["scale"]
    assert set(series["by_policy"]) == {"suggestions", "quester", "explorer", "chatter", "chaos", "idle"}
    for one in [series["all"], *series["by_policy"].values()]:
        assert {len(v) for v in one.values()} == {20}
        for n, low, mid, high in zip(one["campaigns"], one["low"], one["median"], one["high"], strict=True):
            assert (mid is None) == (n == 0) and (mid is None or 0 <= low <= mid <= high <= 1)
    everyone = series["all"]
    assert everyone["campaigns"] == [sum(p["campaigns"][i] for p in series["by_policy"].values()) for i in range(20)]
    assert sum(1 for n in everyone["campaigns"] if n) >= 15  # an episode runs from the first turn
    drawn = _svg(html, "curves")
    panels = {g.get("data-series"): g for g in drawn.iter(f"{SVG}g") if g.get("class") == "curve"}
    assert set(panels) == {"all", *series["by_policy"]}
    for name, panel in panels.items():
        data = everyone if name == "all" else series["by_policy"][name]
        points = panel.findall(f"{SVG}circle")
        assert [int(c.get("data-turn")) for c in points] == [i + 1 for i, n in enumerate(data["campaigns"]) if n]
        for c in points:
            i = int(c.get("data-turn")) - 1
            assert c.find(f"{SVG}title").text.startswith(f"turn {i + 1}: median {data['median'][i]:g}, ")
    labels = [t.text for t in drawn.iter(f"{SVG}text")]
    assert "tension" in labels and "turn" in labels and "safe 0.15" in labels
    assert "<script" not in html and "src=" not in html and "href=" not in html  # still one self-contained file


def test_an_idle_campaign_has_one_point_per_turn_played():
    """One campaign of the idle player, within its first episode: every turn is a story turn with a reading, the
    first ones those of a safe action (looking around, waiting)."""
    report = playtest("cinder_reach", campaigns=1, turns=8, policy="idle", seed=3)
    assert report.speed.turns == 8
    curve = report.tension.all
    assert curve.campaigns == [1] * 8 and curve.low == curve.high == curve.median  # one reading a turn
    assert curve.median[:5] == [0.15] * 5 and all(0.15 <= v <= 1 for v in curve.median)  # a safe turn, or worse
    drawn = _svg(page(report), "curves")
    assert len([c for c in drawn.iter(f"{SVG}circle")]) == report.speed.turns  # one panel: a single policy
    assert report.coverage.visits["slag_and_lantern"] == 1 and sum(report.coverage.visits.values()) == 1


def test_tension_quartiles_per_turn_overall_and_per_policy():
    records = [CampaignRecord(i, i, policy) for i, policy in enumerate(["quester", "quester", "idle", "idle", "idle"])]
    for r, reading in zip(records, [0.1, 0.2, 0.3, 0.4, 0.5], strict=True):
        r.tension[1] = reading
    records[0].tension[3] = 1.0
    made = tension(records, 3)
    assert made.all.campaigns == [5, 0, 1]
    assert (made.all.low, made.all.median, made.all.high) == ([0.2, None, 1.0], [0.3, None, 1.0], [0.4, None, 1.0])
    assert list(made.by_policy) == ["quester", "idle"]
    assert made.by_policy["idle"].median == [0.4, None, None] and made.by_policy["quester"].campaigns == [2, 0, 1]
    assert made.by_policy["quester"].low[0] == 0.125 and made.by_policy["quester"].high[0] == 0.175


def test_heat_classes_cover_every_count_and_grow_geometrically():
    assert heatmap.classes(0) == []
    assert heatmap.classes(1) == [(1, 1)]
    assert heatmap.classes(3) == [(1, 1), (2, 2), (3, 3)]
    assert heatmap.classes(189) == [(1, 3), (4, 8), (9, 23), (24, 66), (67, 189)]
    for most in range(1, 400):
        ranges = heatmap.classes(most)
        assert 1 <= len(ranges) <= len(heatmap.PALETTE) and ranges[0][0] == 1 and ranges[-1][1] == most
        pairs = zip(ranges, ranges[1:], strict=False)
        assert all(low <= high and low == before + 1 for (_, before), (low, high) in pairs)


@needs_dot
def test_no_two_places_overlap_on_the_map_of_a_shipped_pack():
    for pack_id in available_packs():
        pack = get_pack(pack_id)
        boxes = heatmap.layout(pack).boxes
        assert list(boxes) == list(pack.locations), pack_id
        placed = list(boxes.items())
        for n, (a, one) in enumerate(placed):
            for b, other in placed[n + 1:]:
                apart = (abs(one.x - other.x) >= (one.width + other.width) / 2
                         or abs(one.y - other.y) >= (one.height + other.height) / 2)
                assert apart, (pack_id, a, b)


def test_without_dot_the_page_lists_the_visits_instead_of_the_map(monkeypatch):
    def no_dot(pack):
        raise pack_map.MapError("Graphviz's dot is not installed here")

    monkeypatch.setattr(heatmap, "layout", no_dot)
    report = playtest("cinder_reach", campaigns=1, turns=4, policy="idle", seed=3)
    html = page(report)
    assert 'class="heatmap"' not in html and "No map here: Graphviz's dot is not installed here" in html
    assert "<td>The Slag &amp; Lantern</td><td>1 visit</td><td>1</td>" in html and "never visited" in html
