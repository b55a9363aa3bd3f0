"""The map of a pack (issue 20): ``skald.packs.map`` lays out every shipped pack with Graphviz as SVG and PNG; the
designer's map shows people, hazards and quest stages, the player's none of them but where the player is and has
been; ``skald pack map`` writes the file; ``GET /campaigns/{id}/map.svg`` answers the player's map with the JSON
map's authentication (and 503 when the server has no ``dot``).

Skipped only when Graphviz's ``dot`` program is missing (``make test`` installs Debian's ``graphviz`` when it can),
and then loudly: a warning says so."""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from skald.cli.pack_commands import pack_app
from skald.packs import map as pack_map
from skald.packs.loader import available_packs, get_pack
from skald.views import map_of
from support import ROOT
from test_api import Api, bearer, live
from typer.testing import CliRunner

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
runner = CliRunner()


@pytest.fixture(scope="module", autouse=True)
def dot() -> None:
    if not pack_map.dot_available():
        message = ("NO GRAPHVIZ: the pack map tests are SKIPPED. Install Graphviz's `dot` (Debian: `apt-get install "
                   "graphviz`, which `make test` does when it can).")
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)


def places(svg: bytes) -> dict[str, tuple[set[str], list[str]]]:
    """Each drawn place of an SVG map: its node name (the location id, the node's <title>) -> (its classes, the
    lines of text in it)."""
    out = {}
    for group in ET.fromstring(svg).iter(f"{SVG}g"):
        classes = set(group.get("class", "").split())
        if "place" in classes:
            title = group.find(f"{SVG}title").text
            out[title] = (classes, [t.text or "" for t in group.iter(f"{SVG}text")])
    return out


def ways(svg: bytes) -> list[tuple[str, str, list[str]]]:
    """Each drawn way: (its classes, its id, the lines of its label)."""
    return [(group.get("class", ""), group.get("id", ""), [t.text or "" for t in group.iter(f"{SVG}text")])
            for group in ET.fromstring(svg).iter(f"{SVG}g") if "way" in group.get("class", "").split()]


def all_text(svg: bytes) -> str:
    return "\n".join(t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text"))


@pytest.mark.parametrize("pack_id", available_packs())
def test_every_shipped_pack_draws_both_maps_as_svg_and_png_with_every_place(pack_id: str) -> None:
    pack = get_pack(pack_id)
    view = map_of(pack, pack.era.start_locations[0], set())
    for svg in (pack_map.designer_map(pack), pack_map.player_map(view)):
        assert svg.lstrip().startswith(b"<?xml") and b"<svg" in svg
        assert set(places(svg)) == set(pack.locations)
        for location in pack.locations:
            assert f'id="place&#45;{location}"'.encode() in svg  # the node's SVG id, place-<location id>
        assert b"<script" not in svg and b"style=" not in svg  # nothing the play page's CSP refuses
        pairs = {frozenset((place.id, link.to)) for place in pack.locations.values() for link in place.links}
        assert len(ways(svg)) == len(pairs)  # a link listed from both ends is drawn once
        assert all(any(" min" in line for line in label) for _, _, label in ways(svg))  # each way's travel time
    for png in (pack_map.designer_map(pack, "png"), pack_map.player_map(view, "png")):
        assert png.startswith(PNG_SIGNATURE) and len(png) > 10_000


def test_the_designers_map_shows_who_is_where_hazards_and_quest_stages() -> None:
    pack = get_pack("cinder_reach")
    svg = pack_map.designer_map(pack)
    drawn = places(svg)
    for npc in pack.npcs.values():
        assert f"{npc.name}, {npc.role}" in drawn[npc.location][1]
    for companion in pack.companions.values():
        assert f"companion: {companion.name}, {companion.role}" in drawn[companion.location][1]
    hazardous = [loc for loc in pack.locations.values() if loc.hazards]
    assert hazardous
    for loc in hazardous:
        classes, lines = drawn[loc.id]
        assert "hazard" in classes
        for hazard in loc.hazards:
            assert f"hazard: {hazard.name} ({round(hazard.chance * 100)}%)" in lines
    assert not any("hazard" in classes for loc_id, (classes, _) in drawn.items() if not pack.locations[loc_id].hazards)
    staged = 0
    for quest in pack.quests.values():
        for n, stage in enumerate(quest.stages, 1):
            if stage.when.location:
                assert f"quest: {quest.title} stage {n}" in drawn[stage.when.location][1]
                staged += 1
    assert staged >= 5
    dangerous = [w for w in ways(svg) if "risk-dangerous" in w[0]]
    assert dangerous and all(any("dangerous" in line for line in label) for _, _, label in dangerous)
    assert "start location" in drawn[pack.era.start_locations[0]][1]
    assert f"({pack.id})" in all_text(svg)  # the title names the pack


def test_a_link_listed_from_one_end_is_an_arrow_on_the_designers_map() -> None:
    pack = get_pack("cinder_reach")
    hall = pack.locations["charter_house"]
    one_way = pack.model_copy(update={"locations": pack.locations | {
        "charter_house": hall.model_copy(update={"links": [link for link in hall.links if link.to != "kettle_row"]})}})
    svg = pack_map.designer_map(one_way)
    (way,) = [w for w in ways(svg) if {"charter_house", "kettle_row"} <= set(w[1].removeprefix("way-").split("-"))]
    assert any("one way" in line for line in way[2])
    group = next(g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("id") == way[1])
    assert group.find(f"{SVG}polygon") is not None  # the arrowhead


def test_names_are_drawn_as_written_markup_quotes_and_backslashes_too() -> None:
    pack = get_pack("cinder_reach")
    odd = '<b>Row & "Co"</b> \\N \\'  # markup, quotes, dot's backslash-N (the node's name), a last backslash
    row = pack.locations["kettle_row"].model_copy(update={"name": odd})
    npc = pack.npcs["hesper_quill"].model_copy(update={"name": odd})
    odd_pack = pack.model_copy(update={"locations": pack.locations | {"kettle_row": row},
                                       "npcs": pack.npcs | {"hesper_quill": npc}})
    assert odd in places(pack_map.player_map(map_of(odd_pack, "kettle_row", set())))["kettle_row"][1]
    drawn = places(pack_map.designer_map(odd_pack))
    assert odd in drawn["kettle_row"][1] and f"{odd}, {npc.role}" in drawn[npc.location][1]


def test_the_players_map_keeps_the_secrets_and_marks_where_you_are_and_have_been() -> None:
    pack = get_pack("cinder_reach")
    view = map_of(pack, "union_hall", {"slag_and_lantern", "kettle_row"})
    svg = pack_map.player_map(view)
    drawn, text = places(svg), all_text(svg)
    place_names = " ".join(loc.name for loc in pack.locations.values())
    secrets = [*(n.name for n in pack.npcs.values()), *(c.name for c in pack.companions.values()),
               *(h.name for loc in pack.locations.values() for h in loc.hazards),
               *(q.title for q in pack.quests.values())]
    assert len(secrets) > 40
    for secret in secrets:
        if secret not in place_names:
            assert secret not in text, secret
    for word in ("hazard", "quest:", "companion", "start location", "_"):  # no ids either: names only
        assert word not in text
    assert [loc for loc, (classes, _) in drawn.items() if "current" in classes] == ["union_hall"]
    assert {loc for loc, (classes, _) in drawn.items() if "visited" in classes} == {
        "union_hall", "slag_and_lantern", "kettle_row"}
    assert "you are here" in drawn["union_hall"][1] and text.count("you are here") == 1
    assert "15 min" in text and "60 min, risky" in text  # travel times and risk: not secrets (GET /map has them)


def test_the_docs_show_each_shipped_packs_map() -> None:
    """docs/era-packs.md shows docs/maps/<pack>.svg, drawn by ``skald pack map`` (redrawn by hand after an edit)."""
    doc = (ROOT / "docs" / "era-packs.md").read_text(encoding="utf-8")
    for pack_id in available_packs():
        drawn = (ROOT / "docs" / "maps" / f"{pack_id}.svg").read_bytes()
        assert set(places(drawn)) == set(get_pack(pack_id).locations), f"redraw docs/maps/{pack_id}.svg"
        assert f"(maps/{pack_id}.svg)" in doc


def test_skald_pack_map_writes_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(pack_app, ["map", "saltmarsh_reach"])
    assert result.exit_code == 0, result.output
    written = tmp_path / "saltmarsh_reach-map.svg"
    assert "wrote the designer's map of saltmarsh_reach" in result.output and "saltmarsh_reach-map.svg" in result.output
    assert set(places(written.read_bytes())) == set(get_pack("saltmarsh_reach").locations)

    result = runner.invoke(pack_app, ["map", "cinder_reach", "--format", "png", "--player", "--out", "player.png"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "player.png").read_bytes().startswith(PNG_SIGNATURE) and "player's map" in result.output

    result = runner.invoke(pack_app, ["map", "cinder_reach", "--player", "--out", "-"])
    assert result.exit_code == 0 and "<svg" in result.stdout and "wrote" not in result.output
    assert "Hesper Quill" not in all_text(result.stdout_bytes)

    result = runner.invoke(pack_app, ["map", "no_such_pack"])
    assert result.exit_code == 2 and "no such era pack" in result.output and "Traceback" not in result.output
    result = runner.invoke(pack_app, ["map", "cinder_reach", "--format", "gif"])
    assert result.exit_code == 2 and "svg, png" in result.output


def test_without_dot_the_command_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot to be found
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(pack_app, ["map", "cinder_reach"])
    assert result.exit_code == 2 and "apt-get install graphviz" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "cinder_reach-map.svg").exists()


# ---------------------------------------------------------------------------------------------- the API


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with live(tmp_path_factory.mktemp("map") / "skald.db") as server:
        yield server


def test_the_api_answers_the_players_map_as_svg_with_the_json_maps_authentication(api: Api) -> None:
    cid, auth = api.new_campaign(seed=3)
    here = api.client.get(f"/campaigns/{cid}", headers=auth).json()["location"]
    reply = api.client.get(f"/campaigns/{cid}/map.svg", headers=auth)
    assert reply.status_code == 200 and reply.headers["content-type"] == "image/svg+xml"
    drawn = places(reply.content)
    assert set(drawn) == set(get_pack("cinder_reach").locations)
    assert [loc for loc, (classes, _) in drawn.items() if "current" in classes] == [here]
    assert reply.content == pack_map.player_map(map_of(get_pack("cinder_reach"), here, {here}))  # the CLI's drawing
    assert "Hesper Quill" not in all_text(reply.content)

    for path in (f"/campaigns/{cid}/map", f"/campaigns/{cid}/map.svg"):
        assert api.client.get(path).status_code == 401
        assert api.client.get(path, headers=bearer("not-the-token")).status_code == 401
        missing = api.client.get(path.replace(cid, "no-such-campaign"), headers=auth)  # no token fits it: 401
        assert missing.status_code == 401 and missing.headers["content-type"] == "application/json"
    assert api.client.delete(f"/campaigns/{cid}", headers=auth).status_code == 204
    gone = [api.client.get(f"/campaigns/{cid}/{name}", headers=auth) for name in ("map", "map.svg")]
    assert gone[0].status_code == gone[1].status_code in (401, 404)

    operation = api.client.get("/openapi.json").json()["paths"]["/campaigns/{campaign_id}/map.svg"]["get"]
    assert "image/svg+xml" in operation["responses"]["200"]["content"]


def test_the_api_answers_503_when_the_server_cannot_draw(api: Api, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    cid, auth = api.new_campaign(seed=4)
    pack_map._player_svg.cache_clear()  # drawings already made are remembered: this one must be drawn again
    monkeypatch.setenv("PATH", str(tmp_path))
    reply = api.client.get(f"/campaigns/{cid}/map.svg", headers=auth)
    assert reply.status_code == 503 and reply.headers["content-type"] == "application/json"
    assert "apt-get install graphviz" in reply.json()["detail"]
    assert api.client.get(f"/campaigns/{cid}/map", headers=auth).status_code == 200  # the data is still there
