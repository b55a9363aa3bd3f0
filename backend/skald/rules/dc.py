"""Difficulty classes.

The scale is the d20 SRD's (5 very easy, 10 easy, 15 medium, 20 hard, 25 very hard); Skald places its three
risk tiers on it. The arc-stage and difficulty adjustments are Skald's own.
"""

from __future__ import annotations

from skald.core.vocab import ArcStage, Risk

TIER_DC = {Risk.SAFE: 5, Risk.RISKY: 12, Risk.DANGEROUS: 16}
ARC_ADJUST = {ArcStage.SETUP: -2, ArcStage.RISING: 0, ArcStage.CLIMAX: 3, ArcStage.RESOLUTION: -1}
DIFFICULTY_ADJUST = {"story": -2, "normal": 0, "hard": 2}
MIN_DC, MAX_DC = 2, 30


def difficulty_class(risk: Risk, arc_stage: ArcStage, difficulty: str) -> tuple[int, list[str]]:
    """DC for a check and the notes that explain it.

    :returns: (DC clamped to 2..30, human-readable notes such as ``"RISKY base 12"``).
    :raises KeyError: on an unknown difficulty name.
    """
    base = TIER_DC[risk]
    arc = ARC_ADJUST[arc_stage]
    diff = DIFFICULTY_ADJUST[difficulty]
    notes = [f"{risk.value} base {base}"]
    if arc:
        notes.append(f"arc {arc_stage.value} {arc:+d}")
    if diff:
        notes.append(f"difficulty {difficulty} {diff:+d}")
    return max(MIN_DC, min(MAX_DC, base + arc + diff)), notes
