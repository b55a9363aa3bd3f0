"""Packs with planted defects for ``tests/test_playtest.py``: copies of ``cinder_reach`` in a temporary folder with
their YAML edited, each planting a mistake a designer makes and the playtest must name.

``planted(folder)``:
- ``sealed_vault``: a place nothing links to (an unreachable place);
- ``dead_drill`` stage ``pull_core`` needs the player at ``sealed_vault`` (a stage that can never complete, and lint
  says so);
- ``short_pour`` stage ``ask_juno`` needs Hesper at the union hall, where only an event of chance 0 would move her
  (a stage whose condition never holds, which lint does not see: only play finds it);
- ``lost_signal``: an episode that starts on a flag nothing sets;
- ``charter_truce``: an episode that starts on a flag only an event of chance 0 sets (lint cannot see it; before
  a designer's pack written without the code found it, the game offered it and /next started it anyway);
- scene ``clinic_ledger``: Sefa Lind and Aurel Castell at the clinic, where Aurel never goes (lint names it);
- the first episode is an objective one that a world event completes by itself: an idle player wins it.

``trapped(folder)``: the bar's only way out leads to ``sinkhole``, a place with no way out (a soft lock).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml
from support import ROOT

BASE = ROOT / "data" / "era_packs" / "cinder_reach"


def _copy(folder: Path, pack_id: str) -> Path:
    target = folder / pack_id
    shutil.copytree(BASE, target)
    _edit(target, "era.yaml", lambda era: era | {"id": pack_id})
    return target


def _edit(pack: Path, name: str, change) -> None:
    path = pack / name
    data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    path.write_text(yaml.safe_dump(change(data), sort_keys=False, allow_unicode=True), encoding="utf-8")


def _by_id(entries: list[dict], entry_id: str) -> dict:
    return next(e for e in entries if e["id"] == entry_id)


def _stage(quests: list[dict], quest: str, stage: str, when: dict) -> list[dict]:
    _by_id(_by_id(quests, quest)["stages"], stage)["when"] = when
    return quests


def planted(folder: Path) -> Path:
    pack = _copy(folder, "cinder_planted")
    vault = {"id": "sealed_vault", "name": "The Sealed Vault", "type": "ruin",
             "description": "A vault behind a door that nobody has opened since the charter was signed.",
             "links": [{"to": "kettle_row", "minutes": 10}]}
    _edit(pack, "locations.yaml", lambda places: [*places, vault])
    _edit(pack, "quests.yaml", lambda quests: _stage(quests, "dead_drill", "pull_core", {"location": "sealed_vault"}))
    _edit(pack, "quests.yaml", lambda quests: _stage(quests, "short_pour", "ask_juno",
                                                     {"npc": "hesper_quill", "location": "union_hall"}))
    called_away = {"id": "hesper_called_away", "news": "Hesper Quill is called to the union hall.",
                   "trigger": {"chance": 0.0}, "effects": {"npc_moves": {"hesper_quill": "union_hall"}}}
    handed = {"id": "handed_a_win", "news": "The shift horn sounds, and the day is somehow already won.",
              "trigger": {"every_ticks": 1, "once": True}, "effects": {"set_flag": "day_won"}}
    signed = {"id": "truce_signed", "news": "The Charter and the union sign a truce.", "trigger": {"chance": 0.0},
              "effects": {"set_flag": "truce_signed"}}
    _edit(pack, "events.yaml", lambda events: [*events, called_away, handed, signed])
    lost = {"id": "lost_signal", "title": "Lost Signal", "premise": "The relay mast goes quiet.",
            "completion_mode": "turn_limited", "turn_budget": 6, "starts_at": {"flag": "signal_lost"},
            "hook": "The relay mast has gone quiet."}
    truce = {"id": "charter_truce", "title": "The Charter Truce", "premise": "The Charter and the union have signed a "
             "truce, and nobody trusts it.", "completion_mode": "turn_limited", "turn_budget": 6,
             "starts_at": {"flag": "truce_signed"}, "hook": "A truce has been signed."}
    ledger = {"id": "clinic_ledger", "prompt": "Sefa Lind and Aurel Castell go over the clinic's debts to the "
              "Charter.", "location": "lowvent_clinic", "characters": ["sefa_lind", "aurel_castell"]}
    _edit(pack, "scenes.yaml", lambda scenes: [*scenes, ledger])

    def episodes(entries: list[dict]) -> list[dict]:
        first = entries[0]
        first.update({"completion_mode": "objective", "turn_budget": 30,
                      "completion_criteria": {"objective": {"any": ["day_won"]}}})
        return [*entries, lost, truce]

    _edit(pack, "episodes.yaml", episodes)
    return pack


def trapped(folder: Path) -> Path:
    pack = _copy(folder, "cinder_trapped")
    sinkhole = {"id": "sinkhole", "name": "The Sinkhole", "type": "ruin",
                "description": "A collapsed cellar under the bar; the ladder that led down into it is gone.",
                "links": []}

    def places(entries: list[dict]) -> list[dict]:
        _by_id(entries, "slag_and_lantern")["links"] = [{"to": "sinkhole", "minutes": 5}]
        return [*entries, sinkhole]

    _edit(pack, "locations.yaml", places)
    return pack
