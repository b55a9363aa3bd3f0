"""The floor of the offline narrator: a fixed 50-turn script per base pack (``data/scripts/<pack>_50.txt``), played
offline through the real engine (a real SQLite file, seed 1), and four figures read from what the player saw.

1. distinct sentences / all sentences of the story turns' prose (``skald.text.sentences``): target >= 95%;
2. an NPC's pack description (or any sentence of it) told again within 15 story turns of the last time: target 0;
3. distinct suggestion labels / all labels shown (four per story turn): target >= 60% (measured here; the
   suggestions are ``rules.suggestions``' work, not the narrator's);
4. story turns whose outcome is missing from the prose (the mechanic summary not in it, a change to the player the
   validator had to add, or any ``validator:`` warning): target 0.

These are deterministic quality figures, not timings: ``tests/test_narration_floor.py`` gates 1, 2 and 4.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from skald.core.pack import EraPack
from skald.core.state import GameState
from skald.core.vocab import Intent
from skald.engine import start_campaign
from skald.graph import run_turn
from skald.llm.client import LLMClient
from skald.packs.loader import load_pack
from skald.rules.prose import missing_facts, outcome_facts
from skald.settings import Settings
from skald.store.db import connect
from skald.text import sentences

SCRIPTS = Path(__file__).resolve().parents[1] / "data" / "scripts"
PACKS = ("cinder_reach", "saltmarsh_reach")
DISTINCT_TARGET = 0.95
DESCRIPTION_WINDOW = 15  # story turns
LABELS_TARGET = 0.60
FRESH = "{pack}_fresh_50.txt"  # a second script per pack, played by hand after the code was written, never tuned on
FRESH_DISTINCT_TARGET = 0.90
FRESH_LABELS_TARGET = 0.50


@dataclass
class Turn:
    """One story turn as the player saw it."""

    number: int
    input: str
    text: str
    labels: list[str]
    warnings: list[str]
    missing: list[str]  # why the turn's outcome is not all in the prose (empty: it is)


@dataclass
class Figures:
    pack: str
    turns: list[Turn] = field(default_factory=list)
    repeats: list[tuple[str, int, int]] = field(default_factory=list)  # (who, story turn, told again at)

    @property
    def sentences(self) -> list[str]:
        return [s for t in self.turns for s in sentences(t.text)]

    @property
    def distinct(self) -> float:
        told = self.sentences
        return len(set(told)) / len(told) if told else 1.0

    @property
    def labels(self) -> float:
        shown = [label for t in self.turns for label in t.labels]
        return len(set(shown)) / len(shown) if shown else 1.0

    @property
    def missing(self) -> list[Turn]:
        return [t for t in self.turns if t.missing]


def script(pack_id: str, name: str | None = None) -> list[str]:
    """The pack's 50-turn script (``name``, a file in data/scripts; default ``<pack>_50.txt``): one input a line
    (``/commands`` included; they are not turns)."""
    path = SCRIPTS / (name or f"{pack_id}_50.txt")
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def play(pack_id: str, seed: int = 1, name: str | None = None) -> Figures:
    """Play the pack's script (``name``, default ``<pack>_50.txt``) offline on a fresh SQLite file and measure what
    the player saw."""
    pack = load_pack(pack_id)
    llm = LLMClient(Settings(), online=False)
    figures = Figures(pack_id)
    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(Path(tmp) / "narration.db")
        try:
            state = start_campaign(conn, pack, seed=seed, campaign_id=f"narration-{pack_id}")
            for line in script(pack_id, name):
                before = state
                state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm,
                                 retriever=None)
                if state.intent is None or state.intent == Intent.META:
                    continue
                figures.turns.append(Turn(len(figures.turns) + 1, line, state.final_text,
                                          [s.label for s in state.suggested_actions], list(state.warnings),
                                          _missing(state, before, pack)))
        finally:
            conn.close()
    figures.repeats = description_repeats(figures.turns, pack, state)
    return figures


def _missing(state: GameState, before: GameState, pack: EraPack) -> list[str]:
    why = []
    result = state.mechanic_result
    if result is not None and result.summary.strip().rstrip(".") not in state.final_text:
        why.append(f"summary not told: {result.summary}")
    facts = outcome_facts(state.staged_events, before.player.hp, before.player.max_hp, pack)
    why += [f"not told: {f.line}" for f in missing_facts(state.final_text, facts)]
    why += [w for w in state.warnings if w.startswith("validator:")]
    return why


def description_repeats(turns: list[Turn], pack: EraPack, last: GameState) -> list[tuple[str, int, int]]:
    """Each time a person's description (any sentence of it) is told again within DESCRIPTION_WINDOW story turns
    of the previous telling: (name, previous story turn, this story turn)."""
    people = {p.name: p.description for p in [*pack.npcs.values(), *pack.companions.values()]}
    people |= {k.name: k.description for k in last.known_npcs.values() if k.procedural and k.description}
    found = []
    for name, description in people.items():
        parts = [s.lower() for s in sentences(description) if len(s.split()) >= 4]  # "a broad woman" or "A broad..."
        told = [t.number for t in turns if any(part in t.text.lower() for part in parts)]
        found += [(name, a, b) for a, b in zip(told, told[1:], strict=False) if b - a <= DESCRIPTION_WINDOW]
    return sorted(found, key=lambda r: (r[2], r[0]))


def run(seed: int = 1) -> list[str]:
    lines = [f"offline narration, the 50-turn scripts (data/scripts/<pack>_50.txt), seed {seed}"]
    for pack_id in PACKS:
        lines += _report(play(pack_id, seed))
    lines.append(f"fresh scripts (written after the code, never tuned on: data/scripts/<pack>_fresh_50.txt), "
                 f"seed {seed}")
    for pack_id in PACKS:
        lines += _report(play(pack_id, seed, FRESH.format(pack=pack_id)), FRESH_DISTINCT_TARGET, FRESH_LABELS_TARGET)
    return lines


def _report(f: Figures, distinct_target: float = DISTINCT_TARGET, labels_target: float = LABELS_TARGET) -> list[str]:
    told = f.sentences
    shown = sum(len(t.labels) for t in f.turns)
    lines = [f"  {f.pack}: {len(f.turns)} story turns"]
    lines.append(f"    distinct sentences: {f.distinct:6.1%} ({len(set(told))} of {len(told)})   "
                 f"(target >= {distinct_target:.0%})")
    lines.append(f"    a description told again within {DESCRIPTION_WINDOW} turns: {len(f.repeats)}   (target 0)")
    lines.append(f"    distinct suggestion labels: {f.labels:6.1%} of {shown}   (target >= {labels_target:.0%})")
    lines.append(f"    turns whose outcome is missing from the prose: {len(f.missing)}   (target 0)")
    for who, a, b in f.repeats[:3]:
        lines.append(f"      {who}: described at turn {a} and again at turn {b}")
    for turn in f.missing[:3]:
        lines.append(f"      turn {turn.number} ({turn.input!r}): {turn.missing[0]}")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
