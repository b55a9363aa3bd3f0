"""The shipped era pack loads, and a broken pack is reported with file, line and field path."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from skald.packs.loader import PACKS_DIR, PackError, load_pack

PACK_ID = "cinder_reach"
TOWN_TYPES = {"bar", "market", "street", "clinic", "office", "dock"}


@pytest.fixture(scope="module")
def pack():
    return load_pack(PACK_ID)


# --- the shipped pack ------------------------------------------------------------------------------------------------


def test_rules_and_items(pack):
    rules = pack.era.rules
    assert pack.era.calendar.start_minutes == 480
    assert rules.world_tick_minutes == 240 and rules.max_stress == 10 and rules.intro_every_turns == 2
    assert "default" in rules.encounter_caps
    assert pack.locations[rules.defeat.recover_location].type == "clinic"
    assert sum(item.heal > 0 for item in pack.items.values()) >= 2


def test_town_is_safe_and_the_wilds_are_not(pack):
    for loc in pack.locations.values():
        for link in loc.links:
            if loc.type in TOWN_TYPES and pack.locations[link.to].type in TOWN_TYPES:
                assert link.risk == "SAFE" and 5 <= link.minutes <= 90
            else:
                assert link.risk != "SAFE" and 60 <= link.minutes <= 180
        if loc.type in {"wilds", "mine", "ruin"}:
            assert 1 <= len(loc.hazards) <= 2


def test_people_companions_and_quests(pack):
    names = [npc.name for npc in pack.npcs.values()]
    assert len(set(names)) == len(names)
    assert any(npc.disposition == "hostile" for npc in pack.npcs.values())
    for npc in pack.npcs.values():
        assert npc.location in npc.roams or not npc.roams
    start = pack.era.start_locations[0]
    free = [c for c in pack.companions.values() if c.location == start and c.recruit.cost_credits == 0
            and not c.recruit.min_reputation and c.recruit.requires_quest is None and c.recruit.min_affinity <= 0]
    assert free, "one companion must be recruitable at the start bar right away"
    assert any(20 <= c.recruit.cost_credits <= 40 for c in pack.companions.values())
    assert any(c.recruit.min_reputation or c.recruit.requires_quest for c in pack.companions.values())
    for comp in pack.companions.values():
        assert len(comp.banter) >= 4


# --- broken copies of the pack ---------------------------------------------------------------------------------------


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A fresh copy of the shipped pack to break."""
    root = tmp_path / PACK_ID
    shutil.copytree(PACKS_DIR / PACK_ID, root)
    return root


def replace_line(root: Path, file: str, old: str, *new: str) -> int:
    """Replace the first line equal to ``old`` with ``new`` lines; return the 1-based number of that line."""
    path = root / file
    lines = path.read_text(encoding="utf-8").splitlines()
    index = lines.index(old)
    lines[index:index + 1] = list(new)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return index + 1


def line_of(root: Path, file: str, text: str) -> int:
    return (root / file).read_text(encoding="utf-8").splitlines().index(text) + 1


def load_error(root: Path) -> PackError:
    with pytest.raises(PackError) as info:
        load_pack(root)
    return info.value


def assert_reported(err: PackError, file: str, line: int, field: str, words: str) -> None:
    """Some line of the error text names ``file:line:``, the field path and contains ``words``."""
    text = str(err)
    hits = [row for row in text.splitlines() if f"/{file}:{line}:" in row and f"  {field}  " in row]
    assert hits, f"expected {file}:{line} {field} in:\n{text}"
    assert any(words in row for row in hits), f"expected {words!r} in:\n{text}"


def index_of(ids, wanted: str) -> int:
    return list(ids).index(wanted)


def test_yaml_syntax_error(broken, pack):
    # an unquoted ": " inside a plain string, the commonest slip when writing prose in YAML
    line = replace_line(broken, "locations.yaml", "  name: The Slag & Lantern", "  name: The Slag & Lantern: Bar")
    err = load_error(broken)
    assert_reported(err, "locations.yaml", line, "-", "YAML syntax error")
    assert len(err.issues) == 1


def test_unknown_key_points_at_the_key(broken, pack):
    i = index_of(pack.npcs, "hesper_quill")
    line = replace_line(broken, "npcs.yaml", "  hp: 12", "  hp: 12", "  moods:", "    - grumpy") + 1
    err = load_error(broken)
    assert_reported(err, "npcs.yaml", line, f"npcs[{i}].moods", "unknown key")
    # the NPC is invalid, but quests naming it are not reported as dangling references
    assert len(err.issues) == 1


def test_wrong_type(broken, pack):
    i = index_of(pack.npcs, "tobin_marsh")
    line = replace_line(broken, "npcs.yaml", "  hp: 7", "  hp: lots")
    err = load_error(broken)
    assert_reported(err, "npcs.yaml", line, f"npcs[{i}].hp", "valid integer")
    assert "'lots'" in str(err)
    assert len(err.issues) == 1


def test_dangling_npc_location(broken, pack):
    i = index_of(pack.npcs, "cass_okafor")
    line = replace_line(broken, "npcs.yaml", "  location: tether_dock", "  location: tether_docks")
    err = load_error(broken)
    assert_reported(err, "npcs.yaml", line, f"npcs[{i}].location", "'tether_docks' is not a location")
    assert len(err.issues) == 1


def test_duplicate_id(broken, pack):
    path = broken / "factions.yaml"
    path.write_text(
        path.read_text(encoding="utf-8")
        + "\n- id: charter\n  name: Second Charter\n  description: A copy.\n  agenda: Repeat.\n"
        + '  moves: ["{faction} repeats itself."]\n',
        encoding="utf-8",
    )
    lines = path.read_text(encoding="utf-8").splitlines()
    line = len(lines) - lines[::-1].index("- id: charter")
    err = load_error(broken)
    assert_reported(err, "factions.yaml", line, f"factions[{len(pack.factions)}].id", "duplicate id 'charter'")
    assert len(err.issues) == 1


def test_missing_required_field(broken, pack):
    i = index_of(pack.factions, "union")
    replace_line(broken, "factions.yaml", "  name: Ninth Shift Union")
    line = line_of(broken, "factions.yaml", "- id: union")
    err = load_error(broken)
    assert_reported(err, "factions.yaml", line, f"factions[{i}].name", "required field is missing")
    # 'union' is referenced all over the pack; an invalid entry must not cascade into dangling-reference errors
    assert len(err.issues) == 1


def test_unquoted_true_key_is_explained(broken, pack):
    replace_line(broken, "rumors.yaml", '  "true": false', "  true: false")
    err = load_error(broken)
    assert '"true": false' in str(err)
    assert all(issue.file.endswith("rumors.yaml") for issue in err.issues)


def test_two_mistakes_in_two_files_are_reported_together(broken, pack):
    i = index_of(pack.npcs, "tobin_marsh")
    npc_line = replace_line(broken, "npcs.yaml", "  hp: 7", "  hp: lots")
    era_line = replace_line(broken, "era.yaml", "  max_stress: 10", "  max_stres: 10")
    err = load_error(broken)
    assert_reported(err, "era.yaml", era_line, "era.rules.max_stres", "unknown key")
    assert_reported(err, "npcs.yaml", npc_line, f"npcs[{i}].hp", "valid integer")
    assert len(err.issues) == 2
    assert str(err).startswith(f"era pack '{PACK_ID}' has 2 error(s):")


def test_empty_mapping_file_is_reported(broken):
    (broken / "namebanks.yaml").write_text("# nothing here yet\n", encoding="utf-8")
    err = load_error(broken)
    assert_reported(err, "namebanks.yaml", 1, "-", "file is empty")
    assert len(err.issues) == 1
