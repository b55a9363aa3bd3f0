"""The broken-pack corpus: every case under ``tests/fixtures/packs/broken/`` is one designer mistake, and the
loader reports it as a :class:`PackError` naming the file, line, field path and what is wrong; nothing else escapes.

Each case folder holds an ``expected.txt`` (see ``tests/fixtures/packs/README.md``). A case under
``tests/fixtures/packs/warnings/`` loads, and ``EraPack.warnings`` names what can never happen in it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from skald.cli.pack_commands import pack_app
from skald.packs.loader import PackError, load_pack
from support import Expected, read_expected, same_file
from typer.testing import CliRunner

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "packs"
MINI = FIXTURES / "mini"
BROKEN = FIXTURES / "broken"
WARNINGS = FIXTURES / "warnings"
CASES = sorted(p for p in BROKEN.iterdir() if p.is_dir())

# Every kind of mistake the corpus must keep covering (a case folder each).
REQUIRED_CASES = {
    "yaml_syntax_list_file", "yaml_syntax_era", "wrong_type", "unknown_key_top_level", "unknown_key_nested",
    "missing_required_field", "chance_out_of_range", "hp_zero", "bad_enum_risk", "duplicate_id",
    "dangling_npc_location", "dangling_npc_faction", "dangling_companion_location", "dangling_companion_faction",
    "dangling_companion_requires_quest", "dangling_quest_giver", "dangling_quest_stage_location",
    "dangling_quest_stage_npc", "dangling_quest_stage_item", "dangling_link_location", "dangling_rumor_location",
    "dangling_rumor_faction", "dangling_event_location", "dangling_event_faction", "dangling_event_rumor",
    "dangling_event_npc", "dangling_background_start_location", "dangling_background_item",
    "dangling_banter_speaker", "dangling_discovery_item", "dangling_shop_item", "dangling_era_start_location",
    "dangling_defeat_recover_location", "dangling_doc_related", "disable_missing_id", "extends_missing_pack",
    "extends_cycle", "doc_no_front_matter", "doc_type_mismatch", "doc_empty_body", "list_file_is_mapping",
    "unquoted_true_key", "ambiguous_alias", "episode_unknown_mode", "episode_dangling_next",
    "episode_dangling_start_location", "episode_turn_limited_without_budget", "episode_objective_without_flags",
    "yaml_tab_indent", "yaml_unclosed_double_quote", "yaml_unclosed_single_quote", "yaml_unclosed_bracket",
    "yaml_unclosed_brace", "yaml_missing_colon", "yaml_indent_deeper", "yaml_indent_shallower",
    "doc_front_matter_syntax", "doc_front_matter_unclosed_quote",
}

# PyYAML's terms, which must not reach the first line of a YAML syntax error; and what that line must tell the designer
# to do (type a character, add or remove something, line a key up, quote a value).
YAML_JARGON = ("could not find expected", "while scanning", "while parsing", "found character",
               "cannot start any token", "<block end>", "<block mapping start>", "<scalar>", "quoted scalar",
               "flow sequence", "simple key")
YAML_FIX = re.compile(r"\b(add|replace|put|line it up|write|remove)\b")


def load_error(case: Path) -> PackError:
    """The PackError the case raises; any other exception fails the test (pytest shows it)."""
    with pytest.raises(PackError) as info:
        load_pack(case)
    return info.value


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


def assert_reported(err: PackError, case: Path, want: Expected) -> None:
    hits = [i for i in err.issues if same_file(i, case, want.file) and i.line == want.line and i.field == want.field]
    assert hits, f"expected {want.file}:{want.line} {want.field} in:\n{err}"
    assert any(want.message in i.message for i in hits), f"expected {want.message!r} in:\n{err}"


def test_the_mini_pack_loads_cleanly():
    pack = load_pack(MINI)
    assert pack.id == "mini" and pack.layers == []
    assert set(pack.locations) == {"lantern_inn", "old_road"}
    assert pack.events and pack.banter
    assert {rel.split("/")[0] for rel in pack.docs} == {"lore", "style", "voices"}
    assert sorted(e.completion_mode for e in pack.episodes.values()) == ["beat_gated", "objective", "open",
                                                                         "turn_limited"]
    assert pack.warnings == []


def test_the_corpus_covers_every_kind_of_mistake():
    names = {case.name for case in CASES}
    assert len(CASES) >= 30
    assert REQUIRED_CASES <= names, f"missing cases: {sorted(REQUIRED_CASES - names)}"
    for case in CASES:
        assert (case / "expected.txt").is_file(), f"{case.name} has no expected.txt"


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_broken_pack_is_reported_at_its_line(case: Path):
    count, wanted = read_expected(case)
    err = load_error(case)
    for want in wanted:
        assert_reported(err, case, want)
    if count is not None:
        assert len(err.issues) == count, f"expected {count} issue(s), got:\n{err}"
    text = str(err)
    assert "Traceback" not in text
    assert text.startswith("era pack ") and f"has {len(err.issues)} error(s):" in text.splitlines()[0]
    for issue in err.issues:
        assert issue.line >= 1 and issue.column >= 1 and issue.message


def test_yaml_syntax_errors_are_in_plain_words_with_the_parser_wording_below():
    """Every YAML syntax error in the corpus: the first line stands alone (where the mistake starts, what to do, no
    PyYAML terms); PyYAML's own wording follows on a second line for experts."""
    syntax = {}
    for case in CASES:
        try:
            load_pack(case)
        except PackError as err:
            found = [i for i in err.issues if i.message.startswith("YAML syntax error")]
            if found:
                syntax[case.name] = found
    assert {name for name in REQUIRED_CASES if name.startswith(("yaml_", "doc_front_matter_"))} <= set(syntax)
    for name, issues in syntax.items():
        for issue in issues:
            first, *rest = issue.message.splitlines()
            assert not [w for w in YAML_JARGON if w in first], f"{name}: PyYAML's terms in {first!r}"
            assert YAML_FIX.search(first), f"{name}: {first!r} does not say what to do"
            assert len(rest) == 1 and rest[0].startswith("    (YAML parser: ") and rest[0].endswith(")"), \
                f"{name}: no PyYAML wording below {first!r}"


def test_an_unclosed_quote_is_reported_where_it_opens_not_where_yaml_gave_up():
    case = BROKEN / "yaml_unclosed_double_quote"
    npcs = case / "npcs.yaml"
    (issue,) = load_error(case).issues
    opening = line_of(npcs, 'name: "Mara Vell')
    assert (issue.line, issue.column) == (opening, npcs.read_text().splitlines()[opening - 1].index('"') + 1)
    assert f"line {line_of(npcs, 'description:')}" in issue.message.splitlines()[1]  # where PyYAML gave up


def test_front_matter_errors_count_lines_from_the_top_of_the_document():
    case = BROKEN / "doc_front_matter_unclosed_quote"
    doc = case / "lore" / "the_old_road.md"
    (issue,) = load_error(case).issues
    assert issue.line == line_of(doc, 'title: "The Old Road') and issue.column == len('title: "')
    assert f"on line {issue.line}" in issue.message.splitlines()[0]


def test_pack_validate_prints_the_plain_words_first_and_the_parser_wording_under_them():
    case = BROKEN / "yaml_indent_deeper"
    result = CliRunner().invoke(pack_app, ["validate", str(case)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    at = next(k for k, line in enumerate(lines) if "npcs.yaml:4:5  -  YAML syntax error: " in line)
    assert lines[at].startswith("  ") and "line it up with its siblings, at column 3" in lines[at]
    assert lines[at + 1].startswith("    (YAML parser: mapping values are not allowed here")


def test_two_mistakes_in_two_files_are_reported_in_one_run():
    case = FIXTURES / "two_mistakes"
    count, wanted = read_expected(case)
    err = load_error(case)
    assert count == 2 and len(err.issues) == 2
    for want in wanted:
        assert_reported(err, case, want)
    assert {Path(i.file).name for i in err.issues} == {"era.yaml", "npcs.yaml"}


def test_extends_is_relative_to_the_pack_folder_not_the_working_directory(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert load_pack(BROKEN / "dangling_npc_location" / ".." / ".." / "mini").id == "mini"
    err = load_error(BROKEN / "dangling_npc_location")
    assert len(err.issues) == 1 and err.issues[0].field == "npcs[0].location"


# --- warnings: the pack loads, but something in it can never happen -------------------------------------------------

WARNING = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<column>\d+)  (?P<field>\S+)  (?P<message>.+)$")


def test_an_objective_flag_nothing_sets_is_a_warning_not_an_error():
    case = WARNINGS / "episode_flag_never_set"
    episodes = case / "episodes.yaml"
    pack = load_pack(case)  # loads: a pack that extends this one might set the flag
    assert pack.episodes["the_toll"].completion_criteria.objective.all == ["toll_explaned"]
    assert len(pack.warnings) == 1, pack.warnings
    found = WARNING.match(pack.warnings[0])
    assert found, pack.warnings[0]
    assert Path(found["file"]).resolve() == episodes.resolve()
    assert int(found["line"]) == line_of(episodes, "all: [toll_explaned]")
    assert found["field"] == "episodes[0].completion_criteria.objective.all[0]"
    assert "'toll_explaned'" in found["message"] and "set by no quest stage, event or scene" in found["message"]


def test_pack_validate_prints_the_warning_and_passes():
    case = WARNINGS / "episode_flag_never_set"
    result = CliRunner().invoke(pack_app, ["validate", str(case)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("ok  ")
    warned = [line for line in lines if line.startswith("  warning: ")]
    assert len(warned) == 1, result.output
    line = line_of(case / "episodes.yaml", "all: [toll_explaned]")
    assert f"episodes.yaml:{line}:" in warned[0] and "episodes[0].completion_criteria.objective.all[0]" in warned[0]
    assert "'toll_explaned'" in warned[0]
    assert "1 pack(s) checked, 0 error(s)" in result.output


def test_the_designer_guide_names_every_field_of_every_model():
    from pydantic import BaseModel
    from skald.core import pack as models

    guide = (Path(__file__).resolve().parents[1] / "docs" / "era-packs.md").read_text(encoding="utf-8")
    kinds = [m for m in vars(models).values() if isinstance(m, type) and issubclass(m, models.Strict)
             and m is not models.Strict and m is not models.Doc and issubclass(m, BaseModel)]
    missing = [f"{m.__name__}.{name}" for m in kinds for name in m.model_fields
               if f"`{name}`" not in guide and f'`"{name}"`' not in guide]
    assert not missing, f"docs/era-packs.md does not describe: {missing}"
