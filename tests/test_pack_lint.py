"""``skald pack lint``: content that validates but can never happen in play. Each case under
``tests/fixtures/packs/lint/`` is an overlay of the mini pack with one such mistake, and its ``expected.txt`` names
every warning (file, line, field, a fragment of the message; the format of the broken-pack corpus). The shipped packs
lint clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from skald.designer.lint import lint
from skald.packs.loader import PackError, available_packs
from support import read_expected, same_file

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "packs"
CASES = sorted(p for p in (FIXTURES / "lint").iterdir() if p.is_dir())
KINDS = {"unreachable_location", "one_way_location", "npc_nowhere", "item_never_granted", "stage_npc_never_there",
         "stage_wording", "stage_item_never_granted", "rumor_unreachable", "event_never_fires", "style_overflow",
         "scene_character_never_there"}


def test_every_kind_of_warning_has_a_case():
    assert KINDS <= {c.name for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_each_case_is_found_at_its_file_line_and_field(case: Path):
    count, wanted = read_expected(case)
    found = lint(case).warnings
    for want in wanted:
        hits = [w for w in found if same_file(w, case, want.file) and w.line == want.line and w.field == want.field]
        assert hits, f"expected {want.file}:{want.line} {want.field} in:\n" + "\n".join(map(str, found))
        assert any(want.message in w.message for w in hits), (want.message, [w.message for w in hits])
    assert len(found) == count, "\n".join(map(str, found))


def test_the_mini_pack_and_the_shipped_packs_lint_clean():
    for ref in [FIXTURES / "mini", *available_packs()]:
        assert lint(ref).warnings == [], ref


def test_the_loaders_own_warnings_are_linted_too():
    found = lint(FIXTURES / "warnings" / "episode_flag_never_set").warnings
    assert [w.field for w in found] and all("set by no quest stage" in w.message for w in found)


def test_a_pack_that_does_not_load_is_its_errors_not_a_lint():
    with pytest.raises(PackError):
        lint(FIXTURES / "broken" / "dangling_npc_location")


def test_the_command_prints_each_warning_and_exits_by_strictness():
    from skald.cli.pack_commands import pack_app
    from typer.testing import CliRunner

    runner = CliRunner()
    case = str(FIXTURES / "lint" / "stage_wording")
    said = runner.invoke(pack_app, ["lint", case])
    assert said.exit_code == 0 and "quests.yaml:9:18  quests[0].stages[1].objective" in said.output
    assert runner.invoke(pack_app, ["lint", case, "--strict"]).exit_code == 1
    assert runner.invoke(pack_app, ["lint", "--strict"]).exit_code == 0  # the shipped packs
    broken = runner.invoke(pack_app, ["lint", str(FIXTURES / "broken" / "hp_zero")])
    assert broken.exit_code == 2 and "skald pack validate" in broken.output
