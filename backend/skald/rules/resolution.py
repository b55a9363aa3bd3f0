"""The pieces every action resolver shares: the d20 check, the result record and the common consequences.

A check is d20 + ability modifier (d20 SRD, counted once) + environment modifiers against a DC
(``rules.dc``). A natural 20 always succeeds and a natural 1 always fails (criticals, as in the d20 SRD's
attack rolls; Skald applies them to every check). Resolvers live in ``rules.checks`` (fights, travel, talk,
stealth, search, rest), ``rules.trade`` (buying, selling, giving) and ``rules.interact`` (everything else).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from skald.core import events as ev
from skald.core.pack import Discovery, EraPack
from skald.core.records import MechanicResult, PresentNpc, RouterOutput
from skald.core.state import GameState
from skald.core.vocab import ActionClass, Outcome, QuestStatus, Risk
from skald.rules import dice, party
from skald.rules.dc import difficulty_class
from skald.rules.scene import everyone_at
from skald.text import the_place

STAT_FOR = {
    ActionClass.ATTACK: "might",
    ActionClass.INTIMIDATE: "might",
    ActionClass.SNEAK: "agility",
    ActionClass.TRAVEL: "agility",
    ActionClass.INVESTIGATE: "wits",
    ActionClass.INTERACT: "wits",
    ActionClass.PERSUADE: "presence",
    ActionClass.DECEIVE: "presence",
    ActionClass.RECRUIT: "presence",
}
DISPOSITION_MOD = {"friendly": 2, "neutral": 0, "wary": -2, "hostile": -4}
ROUGH_PLACES = {"wilds", "ruin", "mine"}  # location types where searching is RISKY and nobody hires


@dataclass
class Resolution:
    """What an action did: the result the narrator and validator read, and the events Commit writes."""

    result: MechanicResult
    events: list[ev.BaseEvent] = field(default_factory=list)


@dataclass
class Check:
    """The arithmetic of one check, kept together so the stat modifier is added exactly once."""

    stat: str
    risk: Risk
    env: list[tuple[str, int]]
    roll: int
    stat_modifier: int
    dc: int
    dc_notes: list[str]

    @property
    def env_modifier(self) -> int:
        return sum(value for _, value in self.env)

    @property
    def total(self) -> int:
        return self.roll + self.stat_modifier + self.env_modifier

    @property
    def outcome(self) -> Outcome:
        if self.roll == 20:
            return Outcome.CRITICAL_SUCCESS
        if self.roll == 1:
            return Outcome.CRITICAL_FAILURE
        return Outcome.SUCCESS if self.total >= self.dc else Outcome.FAILURE


def roll_check(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random, risk: Risk,
               stat: str | None = None, env: list[tuple[str, int]] | None = None) -> Check:
    """Roll one check for the routed action: the action class's ability (or ``stat``), the location's tags for
    sneaking and searching, -1 when stressed (70% of the pack's max stress), party bonuses, and ``env``."""
    stat = stat or STAT_FOR.get(router.action_class, "wits")
    env = list(env or [])
    tags = set(pack.locations[state.location].tags)
    if router.action_class == ActionClass.SNEAK:
        env += [("dark", 2)] if "dark" in tags else []
        env += [("crowded", 1)] if "crowded" in tags else []
    if router.action_class == ActionClass.INVESTIGATE:
        env += [("dark", -2)] if "dark" in tags else []
        env += [("quiet", 1)] if "quiet" in tags else []
    if state.player.stress >= pack.era.rules.max_stress * 7 // 10:
        env.append(("stressed", -1))
    env += party.party_bonus(state, pack, router.action_class.value)
    dc, notes = difficulty_class(risk, state.arc_stage, pack.era.rules.difficulty)
    roll = dice.d20(rng)
    modifier = dice.ability_modifier(state.player.stats.get(stat, 10))
    return Check(stat, risk, [e for e in env if e[1]], roll, modifier, dc, notes)


def make_result(router: RouterOutput, chk: Check | None, minutes: int, summary: str, stress: int = 0,
                outcome: Outcome | None = None, risk: Risk = Risk.SAFE, impossible: bool = False) -> MechanicResult:
    """The :class:`MechanicResult` of an action: with ``chk`` the roll, DC and modifiers; without, NO_ROLL (or
    ``outcome``). ``impossible``: the action did not happen (``summary`` says why and what to do instead)."""
    if chk is None:
        return MechanicResult(action_class=router.action_class, risk=risk, outcome=outcome or Outcome.NO_ROLL,
                              minutes=minutes, summary=summary, stress_delta=stress, impossible=impossible)
    return MechanicResult(
        action_class=router.action_class, risk=chk.risk, stat=chk.stat, roll=chk.roll,
        stat_modifier=chk.stat_modifier, env_modifier=chk.env_modifier, total=chk.total, dc=chk.dc,
        outcome=chk.outcome, margin=chk.total - chk.dc, minutes=minutes, summary=summary, stress_delta=stress,
        notes=chk.dc_notes + [f"{name} {value:+d}" for name, value in chk.env],
    )


def fail_stress(chk: Check) -> int:
    """Stress a failed check costs: 0 safe, 1 risky, 2 dangerous, +1 on a natural 1."""
    if chk.outcome.succeeded:
        return 0
    base = {Risk.SAFE: 0, Risk.RISKY: 1, Risk.DANGEROUS: 2}[chk.risk]
    return base + (1 if chk.outcome == Outcome.CRITICAL_FAILURE else 0)


def enemy_hits(state: GameState, rng: random.Random, critical: bool) -> list[ev.BaseEvent]:
    """In a fight, the enemy's blow when the player fumbles: 1..damage HP, +2 on a natural 1."""
    if state.combat is None:
        return []
    amount = dice.roll(rng, state.combat.enemy_damage) + (2 if critical else 0)
    return [ev.Damage(amount=amount, source=state.combat.enemy_id)]


def target_of(router: RouterOutput, state: GameState, pack: EraPack) -> PresentNpc | None:
    """The person the action is aimed at, if they are here."""
    return next((p for p in everyone_at(state, pack, state.location) if p.id == router.target_npc), None)


def faction_rep(faction: str | None, delta: int, reason: str) -> list[ev.BaseEvent]:
    return [ev.ReputationChange(faction=faction, delta=delta, reason=reason)] if faction and delta else []


def absent_line(person_id: str, state: GameState, pack: EraPack) -> str:
    """'X is not here.' plus where the player last knew them to be, if they have met, or where a job of theirs says
    to find them."""
    person = pack.person(person_id)
    if person_id in pack.npcs:
        where = the_place(pack.locations[state.world.npc_locations.get(person_id, person.location)])
        if person_id in state.known_npcs:
            return f"{person.name} is not here; last you knew, they were at {where}."
        if any(_stage_names(pack, qid, q.stage, person_id) for qid, q in state.quests.items()
               if q.status == QuestStatus.ACTIVE):
            return f"{person.name} is not here; word is you will find them at {where}."
    return f"{person.name} is not here."


def _stage_names(pack: EraPack, quest_id: str, stage: int, person_id: str) -> bool:
    quest = pack.quests.get(quest_id)
    return quest is not None and stage < len(quest.stages) and quest.stages[stage].when.npc == person_id


def rumor_for(state: GameState, pack: EraPack, person: PresentNpc) -> str | None:
    """The first public rumor tied to the speaker's location or faction that the player has not heard."""
    known = set(state.world.known_rumors)
    for rumor_id in state.world.public_rumors:
        rumor = pack.rumors.get(rumor_id)
        if rumor and rumor_id not in known and (rumor.location == state.location or
                                                 (rumor.faction and rumor.faction == person.faction)):
            return rumor_id
    return next((r for r in state.world.public_rumors if r not in known), None)


def found_events(found: Discovery, state: GameState, location: str) -> list[ev.BaseEvent]:
    """What finding a location's discovery stages: DISCOVERY, and the item, money and rumor it holds."""
    events: list[ev.BaseEvent] = [ev.Discovery(discovery=found.id, location=location)]
    if found.item:
        events.append(ev.ItemGet(item=found.item, qty=1))
    if found.credits:
        events.append(ev.CreditsChange(delta=found.credits, reason="found"))
    if found.rumor and found.rumor not in state.world.known_rumors:
        events.append(ev.RumorHeard(rumor=found.rumor, source=location))
    return events


def hidden_here(state: GameState, pack: EraPack) -> Discovery | None:
    """The next discovery at the player's location not yet found."""
    return next((d for d in pack.locations[state.location].discoveries if d.id not in state.world.discoveries), None)


def phrase(state: GameState, *options: str) -> str:
    """One of ``options`` (each saying the same thing), rotating with the turn number and never one of the last
    turn's sentences when another is left, so an action repeated turn after turn does not read the same twice."""
    used = set(state.recent[-1].sentences) if state.recent else set()
    count = len(options)
    for i in range(count):
        option = options[(state.turn + i) % count]
        if option not in used:
            return option
    return options[state.turn % count]
