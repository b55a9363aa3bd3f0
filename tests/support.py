"""Paths and helpers shared by test modules (import as ``support``; ``conftest`` names collide across folders)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT_30 = ROOT / "data" / "scripts" / "cinder_reach_30.txt"


def script_lines(path: Path = SCRIPT_30) -> list[str]:
    """The non-blank lines of a scripted session."""
    return [line.rstrip("\n") for line in path.read_text().splitlines() if line.strip()]
