"""Difficulty classes: SRD-scaled tiers, arc-stage and difficulty adjustments, clamped to 2..30."""

from __future__ import annotations

import pytest
from skald.core.vocab import ArcStage, Risk
from skald.rules.dc import MAX_DC, MIN_DC, difficulty_class


@pytest.mark.parametrize("risk, dc", [(Risk.SAFE, 5), (Risk.RISKY, 12), (Risk.DANGEROUS, 16)])
def test_tier_dcs_in_rising_normal(risk, dc):
    got, notes = difficulty_class(risk, ArcStage.RISING, "normal")
    assert got == dc
    assert notes == [f"{risk.value} base {dc}"]  # no zero adjustments are listed


@pytest.mark.parametrize("stage, delta", [(ArcStage.SETUP, -2), (ArcStage.RISING, 0), (ArcStage.CLIMAX, 3),
                                          (ArcStage.RESOLUTION, -1)])
def test_arc_stage_adjusts_dc(stage, delta):
    dc, notes = difficulty_class(Risk.RISKY, stage, "normal")
    assert dc == 12 + delta
    if delta:
        assert f"arc {stage.value} {delta:+d}" in notes


def test_setup_is_easier_and_climax_is_harder():
    setup, _ = difficulty_class(Risk.DANGEROUS, ArcStage.SETUP, "normal")
    climax, _ = difficulty_class(Risk.DANGEROUS, ArcStage.CLIMAX, "normal")
    assert (setup, climax) == (14, 19)


@pytest.mark.parametrize("difficulty, delta", [("story", -2), ("normal", 0), ("hard", 2)])
def test_difficulty_setting_adjusts_dc(difficulty, delta):
    dc, notes = difficulty_class(Risk.RISKY, ArcStage.RISING, difficulty)
    assert dc == 12 + delta
    assert any(difficulty in n for n in notes) == bool(delta)


def test_adjustments_stack_and_are_explained():
    dc, notes = difficulty_class(Risk.DANGEROUS, ArcStage.CLIMAX, "hard")
    assert dc == 16 + 3 + 2
    assert notes == ["DANGEROUS base 16", "arc CLIMAX +3", "difficulty hard +2"]


def test_dc_is_clamped_to_minimum():
    dc, _ = difficulty_class(Risk.SAFE, ArcStage.SETUP, "story")  # 5 - 2 - 2 = 1
    assert dc == MIN_DC == 2


def test_dc_never_leaves_range_for_any_combination():
    for risk in Risk:
        for stage in ArcStage:
            for diff in ("story", "normal", "hard"):
                dc, _ = difficulty_class(risk, stage, diff)
                assert MIN_DC <= dc <= MAX_DC


def test_unknown_difficulty_is_an_error():
    with pytest.raises(KeyError):
        difficulty_class(Risk.SAFE, ArcStage.RISING, "nightmare")
