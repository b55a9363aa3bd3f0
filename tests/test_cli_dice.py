"""The check line under a turn that rolled (the d20, the modifiers, the DC, the outcome), as the real ``skald play``
prints it, ``--no-dice``, the terminal's own ``/dice`` command, and the Rich renderer leaving pack text alone."""

from __future__ import annotations

import io
import json
import re

import pytest
from skald.cli.play import check_line, render
from skald.core.views import CheckView, TurnView
from skald.core.vocab import Outcome, Risk
from test_cli import skald

SEED = "2"
# /dice lines are the terminal's own; every other line is a turn (talk needs no roll, the others roll)
INPUTS = ["look around", "talk to the bartender", "/dice", "persuade Hesper to tell me about the water",
          "search the bar", "/dice", "threaten Tobin", "look around"]
STDIN = "\n".join(INPUTS) + "\n"
TURN_HEAD = re.compile(r"^\[turn (\d+)\] > ", re.M)


@pytest.fixture(scope="module")
def turns(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The session's turns as ``--json`` prints them: what each check line must say."""
    out = skald("play", "--db", str(tmp_path_factory.mktemp("json") / "j.db"), "--seed", SEED, "--json", stdin=STDIN)
    assert out.returncode == 0, out.stderr
    played = [json.loads(line) for line in out.stdout.splitlines()]
    assert [t["input"] for t in played] == [line for line in INPUTS if line != "/dice"]  # /dice is not a turn
    assert out.stderr.count("Dice lines off.") == 1 and out.stderr.count("Dice lines on.") == 1
    return played


def blocks(stdout: str) -> dict[int, str]:
    """Each turn's printed block, by turn number."""
    heads = list(TURN_HEAD.finditer(stdout))
    return {int(m[1]): stdout[m.start():heads[i + 1].start() if i + 1 < len(heads) else len(stdout)]
            for i, m in enumerate(heads)}


def check_lines(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.startswith("  check: ")]


def expected(turn: dict) -> str:
    return "  " + check_line(CheckView.model_validate(turn["mechanic"]))


def test_each_turn_that_rolled_shows_its_check_under_the_prose(tmp_path, turns) -> None:
    rolled = [t for t in turns if t["mechanic"] and t["mechanic"]["roll"] is not None]
    assert rolled and len(rolled) < len(turns), "the session should hold turns with and without a roll"
    out = skald("play", "--db", str(tmp_path / "p.db"), "--seed", SEED,
                stdin=STDIN.replace("/dice\n", ""))  # dice lines on all along
    assert out.returncode == 0, out.stderr
    printed = blocks(out.stdout)
    assert sorted(printed) == [t["turn_number"] for t in turns]
    for turn in turns:
        block, mechanic = printed[turn["turn_number"]], turn["mechanic"]
        if mechanic and mechanic["roll"] is not None:
            line = expected(turn)
            assert check_lines(block) == [line]
            assert f"d20 rolled {mechanic['roll']}" in line and f"vs DC {mechanic['dc']}" in line
            prose_end = block.index(turn["text"]) + len(turn["text"])
            assert block.index(line) == prose_end + 1  # right under the prose, before the suggestions
        else:
            assert check_lines(block) == [], block


def test_no_dice_hides_every_check_line(tmp_path, turns) -> None:
    out = skald("play", "--db", str(tmp_path / "n.db"), "--seed", SEED, "--no-dice",
                stdin=STDIN.replace("/dice\n", ""))
    assert out.returncode == 0, out.stderr
    assert "check:" not in out.stdout
    assert sorted(blocks(out.stdout)) == [t["turn_number"] for t in turns]


def test_slash_dice_toggles_the_line_mid_session_and_is_never_a_turn(tmp_path, turns) -> None:
    out = skald("play", "--db", str(tmp_path / "t.db"), "--seed", SEED, stdin=STDIN)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Dice lines off.") == 1 and out.stdout.count("Dice lines on.") == 1
    assert "Unknown command" not in out.stdout and "> /dice" not in out.stdout  # never sent to the engine
    printed = blocks(out.stdout)
    assert sorted(printed) == [1, 2, 3, 4, 5, 6]
    off, on = out.stdout.index("Dice lines off."), out.stdout.index("Dice lines on.")
    for turn in turns:
        number = turn["turn_number"]
        rolled = turn["mechanic"] and turn["mechanic"]["roll"] is not None
        shown = check_lines(printed[number])
        between = off < out.stdout.index(printed[number]) < on
        assert shown == ([expected(turn)] if rolled and not between else []), (number, shown)
    assert [t["turn_number"] for t in turns if t["mechanic"]["roll"] is not None
            and off < out.stdout.index(printed[t["turn_number"]]) < on], "no roll was hidden"


def test_dice_on_and_off_set_the_line_and_a_typo_says_how(tmp_path) -> None:
    out = skald("play", "--db", str(tmp_path / "s.db"), "--seed", SEED, "--no-dice",
                stdin="/dice on\n/DICE on\n/dice loud\n/dice off\n/quit\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Dice lines on.") == 2 and out.stdout.count("Dice lines off.") == 1
    assert "/dice on and /dice off set them" in out.stdout
    assert "[turn " not in out.stdout  # none of them was played


# ------------------------------------------------------------------------------------------- the wording


@pytest.fixture(scope="module")
def rolled(turns: list[dict]) -> CheckView:
    return CheckView.model_validate(next(t["mechanic"] for t in turns if t["mechanic"]["roll"] is not None))


def test_the_check_line_shows_only_the_modifiers_that_count(rolled: CheckView) -> None:
    check = rolled.model_copy(update={"roll": 14, "stat": "wits", "stat_modifier": 1, "env_modifier": -1,
                                      "total": 14, "dc": 12, "outcome": Outcome.SUCCESS, "risk": Risk.RISKY})
    assert check_line(check) == "check: d20 rolled 14 +1 wits -1 situation = 14 vs DC 12 (risky): success"
    plain = check.model_copy(update={"stat_modifier": 0, "env_modifier": 0, "roll": 9, "total": 9,
                                     "outcome": Outcome.FAILURE})
    assert check_line(plain) == "check: d20 rolled 9 vs DC 12 (risky): failure"
    crit = check.model_copy(update={"roll": 1, "stat_modifier": 3, "env_modifier": 0, "total": 4, "dc": 3,
                                    "outcome": Outcome.CRITICAL_FAILURE, "risk": Risk.SAFE})
    assert check_line(crit) == "check: d20 rolled 1 +3 wits = 4 vs DC 3 (safe): critical failure (natural 1)"
    assert check_line(check.model_copy(update={"roll": None, "total": None, "dc": None,
                                               "outcome": Outcome.NO_ROLL})) is None
    assert check_line(None) is None


# ------------------------------------------------------------------------------------------- Rich


def rich_text(view: TurnView, dice: bool = True) -> str:
    from rich.console import Console

    buffer = io.StringIO()
    render(Console(file=buffer, width=200, color_system=None), view, dice=dice)
    return buffer.getvalue()


def test_rich_shows_pack_and_player_text_as_written_never_as_markup(turns, rolled) -> None:
    turn = TurnView.model_validate(next(t for t in turns if t["mechanic"]["roll"] is not None))
    marked = turn.model_copy(update={
        "input": "read the [bold]ledger[/bold]",
        "text": "Quests:\n  Short water [done]\n  The [red]audit[/red] [active]",
        "mechanic": rolled.model_copy(update={"stat": "[wits]", "stat_modifier": 2}),
        "suggestions": [s.model_copy(update={"label": f"{s.label} [done]"}) for s in turn.suggestions],
        "warnings": ["pack note [/] [done]"]})
    shown = rich_text(marked)
    assert "Short water [done]" in shown and "The [red]audit[/red] [active]" in shown
    assert "read the [bold]ledger[/bold]" in shown
    assert shown.count("[done]") == 1 + 4 + 1  # the text, the four suggestions, the warning
    assert "+2 [wits]" in shown
    assert check_line(marked.mechanic) in shown


def test_rich_shows_the_check_line_unless_dice_are_off(turns) -> None:
    for turn in turns:
        view = TurnView.model_validate(turn)
        line = check_line(view.mechanic)
        if line is None:
            assert "check:" not in rich_text(view)
        else:
            assert line in rich_text(view)
        assert "check:" not in rich_text(view, dice=False)


def test_help_in_the_terminal_lists_the_dice_command(tmp_path) -> None:
    out = skald("play", "--db", str(tmp_path / "h.db"), "--seed", "1", stdin="/help\n")
    assert out.returncode == 0, out.stderr
    rows = out.stdout.split("> /help", 1)[1].splitlines()
    assert any(row.startswith("  /dice ") and "this terminal only" in row for row in rows)
    assert rows.index(next(r for r in rows if r.startswith("  /dice"))) < rows.index(
        next(r for r in rows if r.startswith("Otherwise")))
