"""``skald pack validate/new/schema/show`` and ``skald play --watch``'s pack watcher. Packs are copied into
tmp_path; nothing under data/era_packs is modified."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from skald.cli.pack_commands import pack_app
from skald.packs import tools
from skald.packs.loader import PACKS_DIR, load_pack
from skald.packs.watch import PackWatcher
from skald.rules import pack_fit
from typer.testing import CliRunner

TEMPLATE = PACKS_DIR / "_template"
ENV = {**os.environ, "SKALD_LLM": "off"}
runner = CliRunner()


def skald_pack(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "skald", "pack", *args], capture_output=True, text=True,
                          env=ENV, cwd=cwd, timeout=60)


def copy_pack(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + "\n" + text)


# --- validate ---------------------------------------------------------------------------------------------------------


def test_validate_good_and_broken_packs(tmp_path):
    good = skald_pack("validate", "cinder_reach", str(TEMPLATE), cwd=tmp_path)
    assert good.returncode == 0, good.stdout + good.stderr
    assert re.search(r"^ok  cinder_reach \(\d+ locations, \d+ NPCs", good.stdout, re.M)
    assert "2 pack(s) checked, 0 error(s)" in good.stdout

    broken = copy_pack(PACKS_DIR / "cinder_reach", tmp_path / "broken")
    npcs, locations = broken / "npcs.yaml", broken / "locations.yaml"
    npcs.write_text(npcs.read_text().replace("location: kettle_row", "location: kettle_rowe", 1))
    locations.write_text(locations.read_text().replace("minutes: 5\n", "minutes: five\n", 1))
    result = skald_pack("validate", "broken", cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert f"broken/npcs.yaml:{line_of(npcs, 'kettle_rowe')}:" in result.stdout
    assert "'kettle_rowe' is not a location" in result.stdout
    assert f"broken/locations.yaml:{line_of(locations, 'minutes: five')}:" in result.stdout
    assert "FAIL  broken: 2 error(s)" in result.stdout
    assert result.stdout.rstrip().endswith("1 pack(s) checked, 2 error(s)")


def test_validate_reports_an_unexpected_exception_as_an_error_line(monkeypatch):
    def explode(ref):
        raise RuntimeError("loader bug")

    monkeypatch.setattr(tools, "load_pack", explode)
    result = runner.invoke(pack_app, ["validate", "cinder_reach"])
    assert result.exit_code == 1
    assert "unexpected error while loading: RuntimeError: loader bug" in result.output
    assert "1 pack(s) checked, 1 error(s)" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_validate_an_unknown_pack_is_an_error_not_a_crash():
    result = runner.invoke(pack_app, ["validate", "no_such_pack"])
    assert result.exit_code == 1
    assert "no such era pack" in result.output


# --- the template and pack new ----------------------------------------------------------------------------------------


def test_template_is_not_listed_and_comments_every_field():
    from skald.packs.loader import available_packs

    assert "_template" not in available_packs()
    key = re.compile(r'^\s*(- )?"?[A-Za-z_]+"?:')
    for path in sorted(TEMPLATE.rglob("*")):
        if path.suffix not in (".yaml", ".md"):
            continue
        lines = path.read_text().splitlines()
        if path.suffix == ".md":
            lines = lines[1:lines.index("---", 1)]  # only the front matter has fields
        bare = [line for line in lines if key.match(line) and "#" not in line]
        assert not bare, f"{path.relative_to(TEMPLATE)}: fields without a comment: {bare}"


def test_pack_new_copies_a_valid_template_and_refuses_to_overwrite(tmp_path):
    result = runner.invoke(pack_app, ["new", "river_town", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    pack = load_pack(tmp_path / "river_town")
    assert pack.id == "river_town"
    counts = tools.counts(pack)
    assert counts["locations"] >= 2 and counts["NPCs"] >= 2 and counts["quests"] >= 1 and counts["events"] >= 1
    assert {d.split("/")[0] for d in pack.docs} == {"lore", "style", "voices"}
    assert not tools.analyse(pack).problem_count  # the template is fully playable

    again = runner.invoke(pack_app, ["new", "river_town", "--dir", str(tmp_path)])
    assert again.exit_code == 2
    assert "already exists" in again.output
    bad = runner.invoke(pack_app, ["new", "River-Town", "--dir", str(tmp_path)])
    assert bad.exit_code == 2
    assert "snake_case" in bad.output
    assert not (tmp_path / "River-Town").exists()


def test_pack_new_extends_writes_an_overlay_that_loads_with_the_base(tmp_path):
    result = runner.invoke(pack_app, ["new", "my_mod", "--extends", "cinder_reach", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    era_file = tmp_path / "my_mod" / "era.yaml"
    assert yaml.safe_load(era_file.read_text()) == {"id": "my_mod", "extends": "cinder_reach"}
    base, overlay = load_pack("cinder_reach"), load_pack(tmp_path / "my_mod")
    assert overlay.id == "my_mod" and overlay.layers == ["cinder_reach", "my_mod"]
    assert overlay.npcs == base.npcs and overlay.quests == base.quests

    # the commented npcs.yaml / rumors.yaml examples work once uncommented
    text = era_file.read_text()

    def example(header: str) -> str:
        block = text.split(header, 1)[1].split("\n#\n", 1)[0]
        return "\n".join(line[2:] for line in block.splitlines()[1:])

    (era_file.parent / "npcs.yaml").write_text(example("# npcs.yaml: override") + "\n" +
                                               example("# npcs.yaml: add"))
    (era_file.parent / "rumors.yaml").write_text(example("# rumors.yaml: remove"))
    edited = load_pack(tmp_path / "my_mod")
    first = next(iter(base.npcs))
    assert edited.npcs[first].disposition == "wary" and edited.npcs[first].name == base.npcs[first].name
    assert "new_stranger" in edited.npcs
    assert len(edited.rumors) == len(base.rumors) - 1

    missing = runner.invoke(pack_app, ["new", "other_mod", "--extends", "no_such_base", "--dir", str(tmp_path)])
    assert missing.exit_code == 2 and not (tmp_path / "other_mod").exists()


# --- schema -----------------------------------------------------------------------------------------------------------


def _refs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def test_schema_files_are_json_schema_for_each_file_kind(tmp_path):
    result = runner.invoke(pack_app, ["schema", "--out", str(tmp_path / "schema")])
    assert result.exit_code == 0, result.output
    assert "# yaml-language-server: $schema=" in result.output
    files = {p.name: json.loads(p.read_text()) for p in (tmp_path / "schema").glob("*.schema.json")}
    assert set(files) == {f"{k}.schema.json" for k in ("era", "locations", "npcs", "factions", "companions",
                                                       "backgrounds", "rumors", "quests", "events", "banter",
                                                       "episodes", "scenes", "namebanks", "doc")}
    for name, schema in files.items():
        for ref in _refs(schema):  # every reference resolves inside the file
            assert ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in schema["$defs"], (name, ref)

    def entry(name: str) -> dict:
        schema = files[name]
        assert schema["type"] == "array"
        return schema["$defs"][schema["items"]["$ref"].removeprefix("#/$defs/")]

    assert {"links", "hazards", "discoveries", "shop"} <= set(entry("locations.schema.json")["properties"])
    assert {"giver", "stages", "reward"} <= set(entry("quests.schema.json")["properties"])
    assert {"completion_mode", "turn_budget", "starts_at", "next"} <= set(entry("episodes.schema.json")["properties"])
    assert "true" in entry("rumors.schema.json")["properties"]
    assert entry("npcs.schema.json")["additionalProperties"] is False
    assert {"start_locations", "rules", "items", "extends"} <= set(files["era.schema.json"]["properties"])
    assert {"doc_type", "section_kind", "related"} <= set(files["doc.schema.json"]["properties"])
    assert {"given", "family", "roles", "looks"} <= set(files["namebanks.schema.json"]["properties"])

    try:
        import jsonschema
    except ImportError:
        return  # not a dependency; the structural checks above stand
    for kind in ("era", "locations", "npcs", "quests", "rumors", "events", "episodes"):
        schema = files[f"{kind}.schema.json"]
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.validate(yaml.safe_load((PACKS_DIR / "cinder_reach" / f"{kind}.yaml").read_text()), schema)


# --- show -------------------------------------------------------------------------------------------------------------

BROKEN_LOCATION = """
- id: hermit_hut
  name: Hermit's Hut
  type: wilds
  description: A hut nobody can find.
  links:
    - to: market_square
      minutes: 60
"""
BROKEN_NPC = """
- id: hermit_ida
  name: Ida Rusk
  role: hermit
  location: hermit_hut
  description: A hermit in a hut nobody can find.
"""
BROKEN_FACTION = """
- id: river_pirates
  name: River Pirates
  description: Nobody has joined them yet.
  agenda: Take the ferry.
  moves: ["{faction} lurk."]
"""
BROKEN_QUESTS = """
- id: hermits_plea
  title: The Hermit's Plea
  giver: hermit_ida
  summary: Only the hermit can give it.
  stages:
    - id: talk
      objective: Talk to her.
      when: {npc: hermit_ida}
- id: lost_ring
  title: The Lost Ring
  giver: maren_holt
  summary: Nobody sells or hides the ring.
  stages:
    - id: bring
      objective: Bring the ring.
      when: {npc: maren_holt, item: silver_ring}
- id: bad_action
  title: A Typo
  giver: maren_holt
  summary: The action class is misspelt.
  stages:
    - id: look
      objective: Look around.
      when: {location: crossing_inn, action_class: INVESTIGATE}
- id: wrong_place
  title: Wrong Place
  giver: maren_holt
  summary: Ott is never at the mill.
  stages:
    - id: meet
      objective: Meet Ott at the mill.
      when: {location: old_mill, npc: ott_brenner}
- id: sealed_letter
  title: The Sealed Letter
  giver: maren_holt
  summary: Needs the seal that The Still Wheel rewards; possible.
  stages:
    - id: show
      objective: Show the seal.
      when: {npc: maren_holt, item: guild_seal}
"""
BROKEN_ITEMS = """  - id: silver_ring  # nobody provides it
    name: Silver Ring
    description: A ring.
  - id: guild_seal  # only a quest reward
    name: Guild Seal
    description: A wax seal.
"""


@pytest.fixture
def broken_template(tmp_path):
    root = copy_pack(TEMPLATE, tmp_path / "broken")
    append(root / "locations.yaml", BROKEN_LOCATION)
    append(root / "npcs.yaml", BROKEN_NPC)
    append(root / "factions.yaml", BROKEN_FACTION)
    append(root / "quests.yaml", BROKEN_QUESTS)
    (root / "era.yaml").write_text((root / "era.yaml").read_text().rstrip("\n") + "\n" + BROKEN_ITEMS)
    quests = root / "quests.yaml"
    quests.write_text(quests.read_text().replace("items: [river_tonic]", "items: [river_tonic, guild_seal]"))
    companions = root / "companions.yaml"
    companions.write_text(companions.read_text().replace("# requires_quest: the_still_wheel",
                                                         "requires_quest: lost_ring"))
    return root


def test_show_analysis_finds_unplayable_content(broken_template):
    pack = load_pack(broken_template)  # it loads: every reference exists
    report = tools.analyse(pack)
    assert report.graph.unreachable == ["hermit_hut"]
    assert report.graph.one_way == [("hermit_hut", "market_square")]
    assert len(report.graph.components) == 1
    assert report.empty_factions == ["river_pirates"]
    people = {(p.what, p.id): p.problem for p in report.people}
    assert "never at a reachable location" in people[("npc", "hermit_ida")]
    assert "requires quest lost_ring" in people[("companion", "lise_varga")]
    quests = {}
    for problem in report.quests:
        quests.setdefault(problem.id, []).append(problem.problem)
    assert set(quests) == {"hermits_plea", "lost_ring", "wrong_place"}  # sealed_letter and bad_action are possible
    assert any("giver hermit_ida" in p for p in quests["hermits_plea"])
    assert any("silver_ring is not sold, found or given" in p for p in quests["lost_ring"])
    assert any("ott_brenner is never at old_mill" in p for p in quests["wrong_place"])


def test_shipped_pack_has_no_unplayable_content():
    report = tools.analyse(load_pack("cinder_reach"))
    assert report.graph.unreachable == [] and report.quests == [] and report.empty_factions == []


def test_show_prints_tables(broken_template):
    result = runner.invoke(pack_app, ["show", str(broken_template)])
    assert result.exit_code == 0, result.output
    for text in ("locations", "Travel graph", "hermit_hut", "river_pirates", "lost_ring", "Problems"):
        assert text in result.output
    assert runner.invoke(pack_app, ["show", "no_such_pack"]).exit_code == 1


# --- watch ------------------------------------------------------------------------------------------------------------


def test_watcher_reloads_good_edits_and_keeps_the_last_good_pack(tmp_path):
    root = copy_pack(TEMPLATE, tmp_path / "watched")
    era = root / "era.yaml"
    watcher = PackWatcher(root, current=load_pack(root))
    assert watcher.poll() == (None, [])
    os.utime(era, ns=(era.stat().st_atime_ns, era.stat().st_mtime_ns + 10**9))  # saved without a change
    (root / ".era.yaml.swp").write_text("editor state")  # not a pack file
    assert watcher.poll() == (None, [])

    era.write_text(era.read_text().replace("name: The Millwater Crossing", "name: Millwater Renamed"))
    pack, errors = watcher.poll()
    assert errors == [] and pack is not None and pack.era.name == "Millwater Renamed"
    assert watcher.poll() == (None, [])

    era.write_text(era.read_text().replace("max_stress: 10", "max_stress: lots"))
    pack, errors = watcher.poll()
    assert pack is None and len(errors) == 1
    assert errors[0].startswith(f"{era}:{line_of(era, 'max_stress: lots')}:")
    assert "era.rules.max_stress" in errors[0]
    assert watcher.poll() == (None, [])  # reported once per edit
    assert watcher.current.era.name == "Millwater Renamed"  # the last good pack

    era.write_text(era.read_text().replace("max_stress: lots", "max_stress: 9"))
    pack, errors = watcher.poll()
    assert errors == [] and pack.era.rules.max_stress == 9


def test_play_watch_swaps_the_session_pack(tmp_path, offline_llm, capsys):
    from skald.cli.play import play_lines
    from skald.cli.session import Session

    root = copy_pack(TEMPLATE, tmp_path / "watched")
    era, backgrounds = root / "era.yaml", root / "backgrounds.yaml"
    session = Session.open(tmp_path / "play.db", offline_llm, pack_id=str(root), seed=1, watch=True)

    def lines():
        yield "look around"
        era.write_text(era.read_text().replace("name: The Millwater Crossing", "name: Millwater Renamed"))
        yield "/status"
        era.write_text(era.read_text().replace("max_stress: 10", "max_stress: lots"))
        yield "/status"
        era.write_text(era.read_text().replace("max_stress: lots", "max_stress: 10"))
        backgrounds.write_text(backgrounds.read_text().replace("id: river_trader", "id: river_trader_2"))
        yield "/status"

    try:
        assert play_lines(session, lines(), as_json=False) == 4
    finally:
        session.close()
    out = capsys.readouterr().out
    assert out.count("pack reloaded") == 1
    assert out.count("pack edit has errors; still playing the last good version:") == 2
    assert "max_stress" in out and "background 'river_trader' is gone" in out
    assert session.pack.era.name == "Millwater Renamed" and session.pack.era.rules.max_stress == 10
    assert "river_trader" in session.pack.backgrounds


def test_state_problems_names_what_a_campaign_would_lose(campaign, pack):
    assert pack_fit.problems(pack, campaign) == []
    gone = pack.model_copy(update={"locations": {}, "quests": {}})
    problems = pack_fit.problems(gone, campaign.model_copy(update={"quests": {}}))
    assert any(f"player is at {campaign.location!r}" in p for p in problems)


@pytest.mark.parametrize("flag", [True, False])
def test_play_watch_option_reaches_the_play_loop(tmp_path, monkeypatch, flag):
    import skald.cli.play as play
    from skald.commands import app

    seen = []
    monkeypatch.setattr(play, "play_lines", lambda session, lines, as_json, debug=False:
                        seen.append(session.engine.packs.reload) or 0)
    script = tmp_path / "turns.txt"
    script.write_text("look around\n")
    args = ["play", "--pack", str(TEMPLATE), "--db", str(tmp_path / "w.db"), "--script", str(script), "--seed", "1"]
    result = runner.invoke(app, args + (["--watch"] if flag else []))
    assert result.exit_code == 0, result.output
    assert seen == [flag]


def test_pack_show_lists_a_scene_that_can_never_open():
    case = Path(__file__).resolve().parent / "fixtures" / "packs" / "lint" / "scene_character_never_there"
    report = tools.analyse(load_pack(case))
    assert [(p.id, p.path) for p in report.scenes] == [("road_toll_quarrel", ("characters", 1))]
    assert report.problem_count == 1
    shown = runner.invoke(pack_app, ["show", str(case)])
    assert "road_toll_quarrel" in shown.output and "Mara Vell is never at old_road" in shown.output
