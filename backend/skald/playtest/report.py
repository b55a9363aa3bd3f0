"""The playtest report: a tree of dataclasses, built from the campaigns' records, serialised by ``--json``.

Top-level keys of the JSON document: ``pack`` (its id), ``run`` (the settings), ``coverage``
(``playtest.coverage``), ``tension`` (``playtest.tension``), ``dead_content`` (``playtest.deadcontent``),
``defects`` and ``speed``. Every part but
``speed`` is a function of the pack, the settings and the seed: the same run gives the same document.

A defect is grouped over campaigns by its kind and key (an input line, a sentence, an invariant's name, a place):
``seed``, ``policy`` and ``turns`` are those of the first campaign it happened in (turns are the numbers of the
lines the machine player typed, 1-based), ``replay`` plays that campaign again up to its last listed turn, and
``campaigns`` / ``occurrences`` count it over the whole run.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from dataclasses import dataclass
from typing import Any

from skald.core.pack import EraPack
from skald.playtest.coverage import Coverage, coverage
from skald.playtest.deadcontent import DeadEntry, dead_content
from skald.playtest.record import CampaignRecord
from skald.playtest.tension import Tension, tension

KINDS = ("crash", "invariant", "event_condition", "log_mismatch", "soft_lock", "idle_win", "missing_outcome",
         "refused_input", "repeated_sentence")
KIND_TITLES = {"crash": "engine crashes", "invariant": "state invariants broken",
               "event_condition": "events whose condition did not hold, or values not moved by their events",
               "log_mismatch": "event log and state disagreeing", "soft_lock": "soft locks",
               "idle_win": "episodes won by idling", "missing_outcome": "outcomes missing from the prose",
               "refused_input": "ordinary inputs refused",
               "repeated_sentence": "sentences repeated within 15 turns"}


@dataclass
class RunSettings:
    pack: str  # as given on the command line: an id or a folder
    campaigns: int
    turns: int  # lines each campaign's player types
    policy: str
    seed: int
    workers: int


@dataclass
class Defect:
    kind: str  # one of KINDS
    key: str
    detail: str
    pack: str
    policy: str
    seed: int
    turns: list[int]
    replay: str
    campaigns: int  # campaigns it happened in
    occurrences: int  # times, over every campaign


@dataclass
class Speed:
    """Turns per second. ``per_worker``: turns / the seconds the campaigns' loops took in their workers (policy,
    engine and checks); ``engine_per_worker``: the engine's share alone; ``overall``: turns / wall seconds of the
    whole run (process start and save files included)."""

    workers: int
    turns: int
    steps: int
    rejected: int  # lines refused before play (they count as steps, not turns)
    wall_seconds: float
    per_worker: float
    engine_per_worker: float
    overall: float


@dataclass
class Report:
    pack: str
    run: RunSettings
    coverage: Coverage
    tension: Tension
    dead_content: list[DeadEntry]
    defects: list[Defect]
    speed: Speed

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def count(self, kind: str) -> int:
        """Distinct defects of ``kind``."""
        return sum(1 for d in self.defects if d.kind == kind)


def replay_command(pack: str, seed: int, policy: str, turns: int) -> str:
    """The command that plays one campaign again, turn for turn."""
    return f"skald playtest {shlex.quote(pack)} --campaigns 1 --seed {seed} --policy {policy} --turns {turns}"


def defects(records: list[CampaignRecord], settings: RunSettings, pack_id: str) -> list[Defect]:
    """The run's defects, grouped by (kind, key): worst kinds first, then the most widespread."""
    groups: dict[tuple[str, str], list] = {}
    for record in records:
        for key, raw in record.defects.items():
            groups.setdefault(key, []).append((record, raw))
    out = []
    for (kind, key), hits in groups.items():
        record, raw = hits[0]
        out.append(Defect(kind, key, raw.detail, pack_id, record.policy, record.seed, sorted(raw.steps),
                          replay_command(settings.pack, record.seed, record.policy, max(raw.steps)),
                          len(hits), sum(h.count for _, h in hits)))
    return sorted(out, key=lambda d: (KINDS.index(d.kind), -d.campaigns, -d.occurrences, d.key))


def speed(records: list[CampaignRecord], wall: float, workers: int) -> Speed:
    turns = sum(r.turns for r in records)
    loop = sum(r.seconds for r in records)
    engine = sum(r.engine_seconds for r in records)
    return Speed(workers, turns, sum(r.steps for r in records), sum(r.rejected for r in records), round(wall, 3),
                 round(turns / loop, 1) if loop else 0.0, round(turns / engine, 1) if engine else 0.0,
                 round(turns / wall, 1) if wall else 0.0)


def build(pack: EraPack, records: list[CampaignRecord], settings: RunSettings, wall: float) -> Report:
    """The report of a run: ``records`` in campaign order, ``wall`` its wall seconds."""
    return Report(pack.id, settings, coverage(pack, records), tension(records, settings.turns),
                  dead_content(pack, records, settings.turns),
                  defects(records, settings, pack.id), speed(records, wall, settings.workers))
