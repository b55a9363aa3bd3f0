"""Overlays: the shipped ``cinder_reach_nightshift`` extends ``cinder_reach`` and moves Hesper Quill to the union
hall. It loads, differs from its base only where its files say, merges deeply, reports errors at the right
layer's lines, honours ``disabled: true``, and a game played on it meets Hesper at her new place."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from skald.engine import start_campaign
from skald.graph import run_turn
from skald.llm.client import LLMClient
from skald.packs.loader import PACKS_DIR, PackError, load_pack
from skald.rules.scene import pack_npcs_at
from skald.settings import Settings
from skald.store.db import connect

OVERLAY = "cinder_reach_nightshift"
MOVED = "hesper_quill"
OLD_PLACE, NEW_PLACE = "slag_and_lantern", "union_hall"
NEW_RUMOR = "hesper_at_the_hall"
MINI = Path(__file__).resolve().parent / "fixtures" / "packs" / "mini"


@pytest.fixture(scope="module")
def base():
    return load_pack("cinder_reach")


@pytest.fixture(scope="module")
def night():
    return load_pack(OVERLAY)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def line_of(path: Path, text: str) -> int:
    return path.read_text(encoding="utf-8").splitlines().index(text) + 1


def load_error(root: Path) -> PackError:
    with pytest.raises(PackError) as info:
        load_pack(root)
    return info.value


def overlay_of(tmp_path: Path, base: str | Path, **files: str) -> Path:
    """A throw-away overlay pack of ``base`` (a pack id or folder) with the given files (``npcs_yaml=...``)."""
    root = tmp_path / "overlay"
    write(root / "era.yaml", f"id: overlay\nextends: {base}\n")
    for name, text in files.items():
        write(root / name.replace("_yaml", ".yaml"), text)
    return root


# --- the shipped overlay ---------------------------------------------------------------------------------------------


def test_the_overlay_loads_on_top_of_its_base(night):
    assert night.id == OVERLAY
    assert night.layers == ["cinder_reach", OVERLAY]
    assert night.era.extends == "cinder_reach"


def test_the_moved_npc_is_at_the_overlays_location(night, base):
    assert base.npcs[MOVED].location == OLD_PLACE
    assert night.npcs[MOVED].location == NEW_PLACE
    assert list(night.npcs) == list(base.npcs), "an overridden entry keeps its place in pack order"


def test_deep_merge_keeps_the_base_fields_the_overlay_does_not_set(night, base):
    hesper, was = night.npcs[MOVED], base.npcs[MOVED]
    changed = {name for name in type(hesper).model_fields if getattr(hesper, name) != getattr(was, name)}
    assert changed == {"location", "description"}
    assert (hesper.name, hesper.role, hesper.faction, hesper.hp, hesper.lines) == (
        was.name, was.role, was.faction, was.hp, was.lines)


def test_everything_else_equals_the_base(night, base):
    for kind in ("locations", "factions", "companions", "backgrounds", "quests", "events", "banter", "docs"):
        assert getattr(night, kind) == getattr(base, kind), kind
    assert {k: v for k, v in night.npcs.items() if k != MOVED} == {k: v for k, v in base.npcs.items() if k != MOVED}
    assert {k: v for k, v in night.rumors.items() if k != NEW_RUMOR} == base.rumors
    assert night.rumors[NEW_RUMOR].public and night.rumors[NEW_RUMOR].location == NEW_PLACE
    assert night.namebank == base.namebank
    assert night.items == base.items
    differs = {"id", "extends", "name"}
    assert night.era.model_dump(exclude=differs) == base.era.model_dump(exclude=differs)
    assert night.content_hash != base.content_hash


# --- overlay rules on throw-away packs -------------------------------------------------------------------------------


def test_an_error_in_an_overlay_entry_is_reported_at_the_overlays_line(tmp_path):
    root = tmp_path / "night"
    shutil.copytree(PACKS_DIR / OVERLAY, root)
    npcs = root / "npcs.yaml"
    write(npcs, npcs.read_text(encoding="utf-8").replace(f"location: {NEW_PLACE}", "location: union_hal"))
    err = load_error(root)
    assert len(err.issues) == 1, str(err)
    issue = err.issues[0]
    assert Path(issue.file).resolve() == npcs.resolve()
    assert (issue.line, issue.field) == (line_of(npcs, "  location: union_hal"), "npcs[0].location")
    assert "'union_hal' is not a location" in issue.message


def test_an_error_left_in_the_base_is_reported_at_the_bases_line(tmp_path):
    base = tmp_path / "base"
    shutil.copytree(MINI, base)
    npcs = base / "npcs.yaml"
    write(npcs, npcs.read_text(encoding="utf-8").replace("  role: toll keeper", "  role: toll keeper\n  hp: zero"))
    root = overlay_of(tmp_path, "../base", npcs_yaml="- id: tam_rook\n  disposition: wary\n")
    err = load_error(root)
    assert len(err.issues) == 1, str(err)
    issue = err.issues[0]
    assert Path(issue.file).resolve() == npcs.resolve()
    assert (issue.line, issue.field) == (line_of(npcs, "  hp: zero"), "npcs[1].hp")


def test_disabled_removes_an_entry(tmp_path, base):
    root = overlay_of(tmp_path, "cinder_reach", rumors_yaml="- id: dagny_bounty\n  disabled: true\n")
    pack = load_pack(root)
    assert "dagny_bounty" in base.rumors and "dagny_bounty" not in pack.rumors
    assert set(pack.rumors) == set(base.rumors) - {"dagny_bounty"}
    assert pack.npcs == base.npcs


def test_disabling_an_entry_that_is_still_used_reports_the_users(tmp_path):
    root = overlay_of(tmp_path, "cinder_reach", rumors_yaml="- id: rigged_scales\n  disabled: true\n")
    err = load_error(root)
    locations = PACKS_DIR / "cinder_reach" / "locations.yaml"
    assert [(Path(i.file).resolve(), i.line) for i in err.issues] == [
        (locations.resolve(), line_of(locations, "      rumor: rigged_scales"))]
    assert "'rigged_scales' is not a rumor" in err.issues[0].message


def test_mappings_merge_key_by_key_and_lists_replace(tmp_path):
    root = overlay_of(tmp_path, MINI, companions_yaml="- id: ivo_brand\n  recruit:\n    min_affinity: 10\n"
                                                      "  likes: [RENEGADE]\n")
    ivo, was = load_pack(root).companions["ivo_brand"], load_pack(MINI).companions["ivo_brand"]
    assert ivo.recruit.min_affinity == 10 and ivo.recruit.cost_credits == was.recruit.cost_credits
    assert ivo.likes == ["RENEGADE"]
    assert (ivo.bonus, ivo.banter) == (was.bonus, was.banter)


# --- a game on the overlay -------------------------------------------------------------------------------------------


def play(conn, state, pack, llm, line):
    return run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm)


def test_a_game_on_the_overlay_meets_the_npc_at_the_new_place(tmp_path, night):
    llm = LLMClient(Settings(), online=False)
    conn = connect(tmp_path / "night.db")
    try:
        state = start_campaign(conn, night, seed=1, campaign_id="night-1")
        assert state.campaign.pack_id == OVERLAY and state.location == OLD_PLACE
        assert MOVED not in [n.id for n in pack_npcs_at(state, night, OLD_PLACE)]

        state = play(conn, state, night, llm, "talk to Hesper")  # she is not behind her bar any more
        assert state.router_output.target_npc is None and state.router_output.absent_npc == MOVED
        assert MOVED not in [n.id for n in state.present_npcs]

        state = play(conn, state, night, llm, "go to Kettle Row")
        state = play(conn, state, night, llm, "go to the union hall")
        assert state.location == NEW_PLACE
        assert MOVED in [n.id for n in state.present_npcs]

        state = play(conn, state, night, llm, "talk to Hesper")
        assert state.router_output.intent == "TALK" and state.router_output.target_npc == MOVED
        assert "Hesper Quill" in state.final_text
        assert state.campaign.turn_number == 4
    finally:
        conn.close()


def test_the_same_words_on_the_base_pack_find_her_behind_her_bar(tmp_path, base):
    conn = connect(tmp_path / "base.db")
    try:
        state = start_campaign(conn, base, seed=1, campaign_id="base-1")
        state = play(conn, state, base, LLMClient(Settings(), online=False), "talk to Hesper")
        assert state.location == OLD_PLACE and state.router_output.target_npc == MOVED
    finally:
        conn.close()


def test_the_worked_example_in_the_guide_loads(tmp_path):
    guide = (Path(__file__).resolve().parents[1] / "docs" / "era-packs.md").read_text(encoding="utf-8")
    section = guide.split("## Worked example", 1)[1].split("## Tools", 1)[0]
    files = re.findall(r"`my_ferry/([a-z_]+\.yaml)`:\n\n```yaml\n(.*?)```", section, re.S)
    assert {name for name, _ in files} == {"era.yaml", "locations.yaml", "npcs.yaml", "quests.yaml"}
    shutil.copytree(MINI, tmp_path / "mini")
    for name, text in files:
        write(tmp_path / "my_ferry" / name, text)
    pack = load_pack(tmp_path / "my_ferry")
    assert pack.layers == ["mini", "my_ferry"]
    assert pack.npcs["osk_farrow"].location == "ferry_landing"
    assert pack.quests["crossing"].giver == "osk_farrow"
    assert "ferry_landing" in {link.to for link in pack.locations["old_road"].links}
