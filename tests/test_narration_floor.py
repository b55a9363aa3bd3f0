"""The offline narrator's floor, on the fixed 50-turn script of each base pack (``data/scripts/<pack>_50.txt``),
played offline through the real engine on a real SQLite file, seed 1 (``bench/narration.py`` measures; ``make
bench`` prints the same figures). These are deterministic quality gates, not timings:

1. at least 95% of the story turns' sentences are distinct;
2. no one's description is told again within 15 story turns;
3. at least 60% of the suggestion labels shown are distinct (``rules.suggestions``: the offer follows the scene);
4. every turn tells its outcome: the summary, and every change to the player without the validator's help.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest
from support import ROOT

_spec = importlib.util.spec_from_file_location("bench_narration", ROOT / "bench" / "narration.py")
narration = sys.modules.setdefault(_spec.name, importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(narration)


@pytest.fixture(scope="module", params=narration.PACKS)
def figures(request):
    return narration.play(request.param, seed=1)


def test_the_script_is_fifty_story_turns(figures):
    assert len(figures.turns) == 50
    assert any(line.startswith("/") for line in narration.script(figures.pack))


def test_sentences_are_distinct(figures):
    told = figures.sentences
    assert figures.distinct >= narration.DISTINCT_TARGET, (
        f"{figures.pack}: {figures.distinct:.1%} distinct ({len(set(told))} of {len(told)})")


def test_nobody_is_described_twice_within_fifteen_turns(figures):
    assert not figures.repeats, f"{figures.pack}: " + "; ".join(
        f"{who} described at turns {a} and {b}" for who, a, b in figures.repeats)


def test_every_outcome_is_in_the_prose(figures):
    assert not figures.missing, f"{figures.pack}: " + "; ".join(
        f"turn {t.number} ({t.input!r}): {', '.join(t.missing)}" for t in figures.missing)


def test_suggestion_labels_are_distinct(figures):
    shown = sum(len(t.labels) for t in figures.turns)
    assert shown == 4 * len(figures.turns)
    assert figures.labels >= narration.LABELS_TARGET, f"{figures.pack}: {figures.labels:.1%} distinct of {shown}"
