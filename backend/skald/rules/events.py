"""Folding events into the persistent state.

Every change to the player, party, reputation, known NPCs, quests and world is an event; ``apply_events``
is the one function that turns events into state. Commit uses it to build the projections it writes, and
the tests replay a campaign's ``turn_events`` through it to prove the stored projections match the events.

Clamps: HP 0..max_hp, stress 0..max_stress, reputation -10..10, faction power 0..10, tension 0..10.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from skald.packs.models import EraPack
from skald.state import (
    NEWS_KEPT,
    PERSISTENT_FIELDS,
    PROCEDURAL_NPCS_KEPT,
    ArcStage,
    Combat,
    CompanionState,
    Event,
    GameState,
    KnownNpc,
    PersistentState,
    QuestState,
)

# Events that only inform the narrator or the log and change no state.
INFORMATIONAL = {"WORLD_TICK", "INTRO_THROTTLED", "COMPANION_ACTS", "CHECK"}


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


class _Folder:
    def __init__(self, state: PersistentState, pack: EraPack, turn: int):
        self.s = state
        self.pack = pack
        self.turn = turn

    # player
    def TIME_ADVANCE(self, d):
        self.s.world.time_minutes += d["minutes"]

    def DAMAGE(self, d):
        self.s.player.hp = _clamp(self.s.player.hp - d["amount"], 0, self.s.player.max_hp)

    def HEAL(self, d):
        self.s.player.hp = _clamp(self.s.player.hp + d["amount"], 0, self.s.player.max_hp)

    def STRESS_CHANGE(self, d):
        self.s.player.stress = _clamp(self.s.player.stress + d["delta"], 0, self.pack.era.rules.max_stress)

    def CREDITS_CHANGE(self, d):
        self.s.player.credits = max(0, self.s.player.credits + d["delta"])

    def ITEM_GET(self, d):
        inv = self.s.player.inventory
        inv[d["item"]] = inv.get(d["item"], 0) + d.get("qty", 1)

    def ITEM_LOSE(self, d):
        inv = self.s.player.inventory
        left = inv.get(d["item"], 0) - d.get("qty", 1)
        if left > 0:
            inv[d["item"]] = left
        else:
            inv.pop(d["item"], None)

    def MOVE(self, d):
        self.s.location = d["to"]

    def DEFEATED(self, d):
        self.s.player.defeated = True
        self.s.player.hp = 0

    def RECOVERED(self, d):
        self.s.player.defeated = False
        self.s.player.hp = _clamp(d["hp"], 1, self.s.player.max_hp)

    def REPUTATION_CHANGE(self, d):
        rep = self.s.reputation
        rep[d["faction"]] = _clamp(rep.get(d["faction"], 0) + d["delta"], -10, 10)

    # combat
    def COMBAT_START(self, d):
        self.s.combat = Combat(enemy_id=d["enemy_id"], enemy_name=d["enemy_name"], enemy_hp=d["enemy_hp"],
                               enemy_damage=d["enemy_damage"], reward_credits=d.get("reward_credits", 0))

    def ENEMY_DAMAGE(self, d):
        if self.s.combat is not None:
            self.s.combat.enemy_hp = max(0, self.s.combat.enemy_hp - d["amount"])
            self.s.combat.round += 1

    def COMBAT_END(self, d):
        self.s.combat = None

    def NPC_DEFEATED(self, d):
        if d["npc"] not in self.s.world.defeated_npcs:
            self.s.world.defeated_npcs.append(d["npc"])

    # NPCs
    def NPC_MET(self, d):
        if d["npc"] not in self.s.known_npcs:
            self.s.known_npcs[d["npc"]] = KnownNpc(id=d["npc"], name=d["name"], first_met_turn=self.turn)

    def NPC_SPAWN(self, d):
        self.s.known_npcs[d["npc"]] = KnownNpc(
            id=d["npc"], name=d["name"], first_met_turn=self.turn, procedural=True, location=d["location"],
            role=d["role"], description=d["description"])
        procedural = [k for k in self.s.known_npcs.values() if k.procedural]
        for old in procedural[:-PROCEDURAL_NPCS_KEPT]:
            del self.s.known_npcs[old.id]
        self.s.world.last_intro_turn = self.turn

    def NPC_INTRODUCED(self, d):
        self.s.world.last_intro_turn = self.turn

    def NPC_MOVE(self, d):
        self.s.world.npc_locations[d["npc"]] = d["to"]

    # world
    def WORLD_TICK(self, d):
        self.s.world.tick = max(self.s.world.tick, d["tick"])

    def FACTION_MOVE(self, d):
        power = self.s.world.faction_power
        power[d["faction"]] = _clamp(power.get(d["faction"], self.pack.factions[d["faction"]].power) + d["delta"],
                                     0, 10)

    def NEWS(self, d):
        self.s.world.news = (self.s.world.news + [d["text"]])[-NEWS_KEPT:]

    def EVENT_FIRED(self, d):
        if d.get("once") and d["event"] not in self.s.world.fired_events:
            self.s.world.fired_events.append(d["event"])

    def RUMOR_SPREAD(self, d):
        if d["rumor"] not in self.s.world.public_rumors:
            self.s.world.public_rumors.append(d["rumor"])

    def RUMOR_HEARD(self, d):
        if d["rumor"] not in self.s.world.known_rumors:
            self.s.world.known_rumors.append(d["rumor"])

    def DISCOVERY(self, d):
        if d["discovery"] not in self.s.world.discoveries:
            self.s.world.discoveries.append(d["discovery"])

    # companions
    def _companion(self, cid: str) -> CompanionState:
        return self.s.companions.setdefault(cid, CompanionState(id=cid))

    def AFFINITY_CHANGE(self, d):
        comp = self._companion(d["companion"])
        comp.affinity = _clamp(comp.affinity + d["delta"], -100, 100)

    def LOYALTY_CHANGE(self, d):
        comp = self._companion(d["companion"])
        comp.loyalty = _clamp(comp.loyalty + d["delta"], 0, 10)

    def COMPANION_JOIN(self, d):
        comp = self._companion(d["companion"])
        comp.in_party = True
        comp.joined_turn = self.turn

    def COMPANION_LEAVE(self, d):
        comp = self._companion(d["companion"])
        comp.in_party = False

    def TENSION_CHANGE(self, d):
        self.s.world.tension = _clamp(self.s.world.tension + d["delta"], 0, 10)

    def BANTER_QUEUED(self, d):
        self.s.world.banter = (self.s.world.banter + [f"{d['companion']}|{d['line']}"])[-3:]
        self.s.world.last_banter_turn = self.turn

    # story
    def QUEST_UPDATE(self, d):
        self.s.quests[d["quest"]] = QuestState(id=d["quest"], status=d["status"], stage=d["stage"])

    def ARC_STAGE(self, d):
        self.s.arc_stage = ArcStage(d["stage"])
        self.s.arc_stage_turn = d["story_turn"]


_HANDLERS: dict[str, Callable] = {name: getattr(_Folder, name) for name in vars(_Folder) if name.isupper()}
KNOWN_EVENTS = frozenset(_HANDLERS) | INFORMATIONAL


def apply_events(state: PersistentState, events: Iterable[Event], pack: EraPack, turn: int) -> PersistentState:
    """A new state with ``events`` (all from turn ``turn``) applied in order; ``state`` is not modified.

    :raises ValueError: on an event type no rule knows (a programming error, caught in tests).
    """
    folded = state.model_copy(deep=True)
    folder = _Folder(folded, pack, turn)
    for event in events:
        handler = _HANDLERS.get(event.type)
        if handler is not None:
            handler(folder, event.data)
        elif event.type not in INFORMATIONAL:
            raise ValueError(f"unknown event type {event.type!r}")
    return folded


def projected(state: GameState, pack: EraPack) -> GameState:
    """The state as it will be after this turn's staged events, with the turn's cast on stage: what the
    suggestions offered for the next turn must fit (the Director picks them and the Refiner checks them here)."""
    after = apply_events(state.persistent(), state.staged_events, pack, state.campaign.turn_number + 1)
    return GameState(**{name: getattr(after, name) for name in PERSISTENT_FIELDS}, present_npcs=state.present_npcs)
