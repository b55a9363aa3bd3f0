"""What players type gets a real answer, about what was asked: the corpus of ordinary inputs
(``data/corpora/player_inputs.yaml``), each played as the second move of a fresh offline game on each base pack
through the real engine and a real SQLite file (``bench/understanding.py`` measures; ``make bench`` prints the same
figures beside the issue's targets).

These are deterministic quality gates, not timings, each at the issue's target: understood 97%, addressed 90%, and
every impossible request refused, on the tuning corpus and on the held-out set (never tuned on: a failure there prints
its figure, not its lines). With the interpreter role on the scripted model every ordinary input of both sets is
understood.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest
from support import ROOT

_spec = importlib.util.spec_from_file_location("bench_understanding", ROOT / "bench" / "understanding.py")
understanding = sys.modules.setdefault(_spec.name, importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(understanding)

UNDERSTOOD_FLOOR, ADDRESSED_FLOOR = 0.97, 0.90
HOLDOUT_UNDERSTOOD_FLOOR, HOLDOUT_ADDRESSED_FLOOR, HOLDOUT_REFUSED_FLOOR = 0.97, 0.90, 1.0


@pytest.fixture(scope="module", params=understanding.PACKS)
def figures(request):
    return understanding.Figures(understanding.play(understanding.corpus(), request.param))


@pytest.fixture(scope="module", params=understanding.PACKS)
def holdout(request):
    return understanding.Figures(understanding.play(understanding.corpus("player_inputs_holdout.yaml"),
                                                    request.param))


def test_the_corpus_is_what_the_issue_asks_for():
    entries = understanding.corpus()
    ordinary = [e for e in entries if e.kind != "impossible"]
    assert len(ordinary) >= 400 and len(entries) - len(ordinary) >= 40
    assert len({e.text.lower() for e in entries}) == len(entries)
    held = {e.text.lower() for e in understanding.corpus("player_inputs_holdout.yaml")}
    assert not held & {e.text.lower() for e in entries}  # the held-out set is never the tuned one


def test_ordinary_input_is_understood(figures):
    missed = [(a.entry.text, a.summary[:60]) for a in figures.ordinary if not a.understood]
    assert figures.understood >= UNDERSTOOD_FLOOR, missed


def test_the_answer_names_what_was_asked(figures):
    assert figures.addressed >= ADDRESSED_FLOOR, f"{figures.addressed:.1%}"


def test_every_impossible_request_is_refused_honestly(figures):
    let_through = [(a.entry.text, a.summary) for a in figures.answers
                   if a.entry.kind == "impossible" and not a.refused]
    assert not let_through


def test_the_held_out_set_is_understood_answered_about_what_was_asked_and_its_impossible_requests_refused(holdout):
    assert holdout.understood >= HOLDOUT_UNDERSTOOD_FLOOR, f"{holdout.understood:.1%}"
    assert holdout.addressed >= HOLDOUT_ADDRESSED_FLOOR, f"{holdout.addressed:.1%}"
    assert holdout.refused >= HOLDOUT_REFUSED_FLOOR, f"{holdout.refused:.1%}"


def _interpreted_misses(measured) -> list:
    online = understanding.interpreted(measured, measured.answers[0].pack)
    return [(a.entry.text, a.summary[:60]) for a in online.ordinary if not a.understood]


def test_with_the_interpreter_on_the_scripted_model_every_ordinary_input_is_understood(figures):
    assert not _interpreted_misses(figures)


def test_with_the_interpreter_on_the_scripted_model_every_held_out_input_is_understood(holdout):
    assert not _interpreted_misses(holdout)
