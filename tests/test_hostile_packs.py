"""A hostile-pack corpus (issue 34): files made to hang or crash the loader are refused at their file and line,
saying which bound they passed (``packs.yaml_limits``), through ``load_pack`` and through ``skald pack validate``. The
loader never walks an alias bomb's expansion and never recurses through deep nesting."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from skald.packs.loader import PACKS_DIR, PackError, load_pack
from skald.packs.yaml_limits import MAX_DEPTH, MAX_FILE_BYTES, MAX_NODES
from support import ROOT

PACK_ID = "cinder_reach"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    root = tmp_path / PACK_ID
    shutil.copytree(PACKS_DIR / PACK_ID, root)
    return root


def _bomb(levels: int = 12) -> str:
    """A 'billion laughs': each anchor a list of ten aliases of the one before (10**levels values expanded)."""
    lines = ['lol0: &l0 "lol"']
    lines += [f"lol{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def _refused(root: Path) -> str:
    with pytest.raises(PackError) as info:
        load_pack(root)
    return str(info.value)


def test_an_alias_bomb_in_era_yaml_is_refused_at_its_line(hostile: Path) -> None:
    era = hostile / "era.yaml"
    text = era.read_text(encoding="utf-8")
    era.write_text(text + _bomb(), encoding="utf-8")
    said = _refused(hostile)
    first = len(text.splitlines()) + 1
    assert "era.yaml:" in said and f"expands to more than {MAX_NODES:,} values" in said
    row = next(r for r in said.splitlines() if "expands to more than" in r)
    line = int(row.split("era.yaml:")[1].split(":")[0])
    assert first <= line <= first + 12  # at the anchor whose expansion goes over


def test_yaml_nested_20000_levels_deep_is_refused_without_a_recursion_error(hostile: Path) -> None:
    (hostile / "factions.yaml").write_text("- " + "[" * 20_000 + "]" * 20_000 + "\n", encoding="utf-8")
    said = _refused(hostile)
    assert "factions.yaml:1:" in said and f"nested more than {MAX_DEPTH} levels deep" in said


def test_a_huge_file_is_refused_before_it_is_read(hostile: Path) -> None:
    with (hostile / "rumors.yaml").open("a", encoding="utf-8") as out:
        out.write("# " + "x" * (MAX_FILE_BYTES + 10) + "\n")
    said = _refused(hostile)
    assert "rumors.yaml:1:" in said and f"at most {MAX_FILE_BYTES:,}" in said


def test_a_huge_markdown_document_is_refused_too(hostile: Path) -> None:
    lore = next((hostile / "lore").glob("*.md"))
    lore.write_text(lore.read_text(encoding="utf-8") + "word " * (MAX_FILE_BYTES // 4), encoding="utf-8")
    said = _refused(hostile)
    assert f"lore/{lore.name}:1:" in said and "bytes; a pack file may hold" in said


def test_an_alias_bomb_in_a_documents_front_matter_is_refused(hostile: Path) -> None:
    lore = next((hostile / "lore").glob("*.md"))
    text = lore.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    lore.write_text("---\n" + _bomb(7) + text[4:], encoding="utf-8")
    said = _refused(hostile)
    assert f"lore/{lore.name}:" in said and "expands to more than" in said


def test_ordinary_anchors_and_aliases_still_load(hostile: Path) -> None:
    """A designer's own anchor and alias, far inside the bounds, load as before."""
    era = hostile / "era.yaml"
    lines = era.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("themes:"))
    lines[at] = lines[at].replace("themes:", "themes: &themes", 1)
    era.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert load_pack(hostile).era.themes == load_pack(PACK_ID).era.themes


def test_skald_pack_validate_reports_the_bomb_and_exits_1(hostile: Path) -> None:
    era = hostile / "era.yaml"
    era.write_text(era.read_text(encoding="utf-8") + _bomb(15), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "skald", "pack", "validate", str(hostile)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "expands to more than" in done.stdout + done.stderr and "Traceback" not in done.stderr


def _skald(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKALD_")} | {"SKALD_LLM": "off",
                                                                                  "SKALD_RETRIEVAL": "false"}
    return subprocess.run([sys.executable, "-m", "skald", *args], input="look around\n/quit\n", capture_output=True,
                          text=True, env=env, timeout=120, cwd=cwd)


def test_a_save_never_loads_a_pack_from_outside_the_pack_folders_unless_the_command_line_names_it(
        tmp_path: Path) -> None:
    """A campaign played on a pack folder resumes only with ``--pack`` naming that folder; a stored pack id that is
    a path (an imported campaign whose ``pack_id`` is ``../../etc``) loads nothing and says what to do."""
    own = tmp_path / "my_reach"
    shutil.copytree(PACKS_DIR / PACK_ID, own)
    era = own / "era.yaml"
    era.write_text(era.read_text(encoding="utf-8").replace("id: cinder_reach", "id: my_reach", 1), encoding="utf-8")
    db = tmp_path / "s.db"
    first = _skald("play", "--db", str(db), "--seed", "2", "--pack", str(own), cwd=ROOT)
    assert first.returncode == 0, first.stdout + first.stderr
    cid = next(line.split("--campaign ")[1].split()[0] for line in first.stdout.splitlines() if "--campaign " in line)
    bare = _skald("play", "--db", str(db), "--campaign", cid, cwd=tmp_path)  # my_reach/ is right here: still not
    assert bare.returncode == 2 and "Traceback" not in bare.stderr  # the CLI's exit for a pack it cannot load
    assert "name the folder: --pack PATH" in bare.stdout + bare.stderr
    named = _skald("play", "--db", str(db), "--campaign", cid, "--pack", str(own), cwd=ROOT)
    assert named.returncode == 0, named.stdout + named.stderr
    raw = sqlite3.connect(db)
    raw.execute("UPDATE campaigns SET pack_id = '../../etc' WHERE id = ?", (cid,))
    raw.commit()
    raw.close()
    inside = tmp_path / "deep" / "er"
    inside.mkdir(parents=True)
    shutil.copytree(PACKS_DIR / PACK_ID, tmp_path / "etc")  # a pack sits at ../../etc from where skald runs
    hostile_id = _skald("play", "--db", str(db), "--campaign", cid, cwd=inside)
    assert hostile_id.returncode == 2 and "Traceback" not in hostile_id.stderr
    assert "'../../etc', not one of the pack folders" in hostile_id.stdout + hostile_id.stderr
