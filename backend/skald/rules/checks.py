"""Resolve an action into a d20 check, an outcome and the events it stages.

A check is d20 + ability modifier (d20 SRD, counted once) + environment modifiers against a DC
(``rules.dc``). A natural 20 always succeeds and a natural 1 always fails (criticals, as in the d20 SRD's
attack rolls; Skald applies them to every check). Events are plain :class:`Event` records that Commit
folds into the projections; nothing here touches the database.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from skald import events as ev
from skald.packs.models import EraPack, Link
from skald.rules import clock, dice, party
from skald.rules.dc import difficulty_class
from skald.rules.scene import RISK_ORDER, everyone_at, held, link_to, route
from skald.state import GameState, MechanicResult, PresentNpc, RouterOutput
from skald.vocab import ActionClass, Outcome, Risk

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
ROUGH_PLACES = {"wilds", "ruin", "mine"}


@dataclass
class Resolution:
    result: MechanicResult
    events: list[ev.BaseEvent] = field(default_factory=list)


@dataclass
class _Check:
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


NEEDS_TARGET = {ActionClass.PERSUADE, ActionClass.DECEIVE, ActionClass.INTIMIDATE, ActionClass.RECRUIT,
                ActionClass.ATTACK, ActionClass.DIALOGUE_ONLY}


def _absent(person_id: str, state: GameState, pack: EraPack) -> str:
    """'X is not here.' plus where the player last knew them to be, if they have met."""
    person = pack.npcs.get(person_id) or pack.companions[person_id]
    if person_id in state.known_npcs and person_id in pack.npcs:
        where = pack.locations[state.world.npc_locations.get(person_id, person.location)].name
        return f"{person.name} is not here; last you knew, they were at {where}."
    return f"{person.name} is not here."


def talk_result(router: RouterOutput, state: GameState, pack: EraPack) -> Resolution:
    """TALK needs no check: a synthesised NO_ROLL result costing 8 minutes; may pass on a rumor."""
    minutes = clock.time_cost(ActionClass.DIALOGUE_ONLY)
    events = [ev.TimeAdvance(minutes=minutes)]
    people = {p.id: p for p in everyone_at(state, pack, state.location)}
    target = people.get(router.target_npc or "")
    if target is None and router.absent_npc:
        summary = _absent(router.absent_npc, state, pack)
    elif target:
        summary = f"You talk with {target.name}."
        rumor = _rumor_for(state, pack, target)
        if rumor:
            events.append(ev.RumorHeard(rumor=rumor, source=target.id))
    else:
        summary = "You speak up; whoever is near can hear you."
    result = MechanicResult(
        action_class=ActionClass.DIALOGUE_ONLY, risk=Risk.SAFE, outcome=Outcome.NO_ROLL, minutes=minutes,
        summary=summary,
    )
    return Resolution(result, events)


def _rumor_for(state: GameState, pack: EraPack, person: PresentNpc) -> str | None:
    """The first public rumor tied to the speaker's location or faction that the player has not heard."""
    known = set(state.world.known_rumors)
    for rumor_id in state.world.public_rumors:
        rumor = pack.rumors.get(rumor_id)
        if rumor and rumor_id not in known and (rumor.location == state.location or
                                                 (rumor.faction and rumor.faction == person.faction)):
            return rumor_id
    return next((r for r in state.world.public_rumors if r not in known), None)


def resolve(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """Resolve an ACTION. Reads the router output, player sheet, scene, arc stage and combat.

    :returns: the :class:`MechanicResult` and the staged events (TIME_ADVANCE first).
    """
    resolver = _RESOLVERS.get(router.action_class, _generic)
    if router.absent_npc and router.action_class in NEEDS_TARGET:
        res = Resolution(_result(router, None, 2, _absent(router.absent_npc, state, pack)))
    else:
        res = resolver(router, state, pack, rng)
    events = [ev.TimeAdvance(minutes=res.result.minutes), *res.events]
    if res.result.stress_delta:
        events.append(ev.StressChange(delta=res.result.stress_delta))
    events.extend(_defeat_if_dying(state, events, pack))
    return Resolution(res.result, events)


# ------------------------------------------------------------------ shared pieces


def _check(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random, risk: Risk,
           stat: str | None = None, env: list[tuple[str, int]] | None = None) -> _Check:
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
    return _Check(stat, risk, [e for e in env if e[1]], roll, modifier, dc, notes)


def _result(router: RouterOutput, chk: _Check | None, minutes: int, summary: str, stress: int = 0,
            outcome: Outcome | None = None, risk: Risk = Risk.SAFE) -> MechanicResult:
    if chk is None:
        return MechanicResult(action_class=router.action_class, risk=risk, outcome=outcome or Outcome.NO_ROLL,
                              minutes=minutes, summary=summary, stress_delta=stress)
    return MechanicResult(
        action_class=router.action_class, risk=chk.risk, stat=chk.stat, roll=chk.roll,
        stat_modifier=chk.stat_modifier, env_modifier=chk.env_modifier, total=chk.total, dc=chk.dc,
        outcome=chk.outcome, margin=chk.total - chk.dc, minutes=minutes, summary=summary, stress_delta=stress,
        notes=chk.dc_notes + [f"{name} {value:+d}" for name, value in chk.env],
    )


def _fail_stress(chk: _Check) -> int:
    if chk.outcome.succeeded:
        return 0
    base = {Risk.SAFE: 0, Risk.RISKY: 1, Risk.DANGEROUS: 2}[chk.risk]
    return base + (1 if chk.outcome == Outcome.CRITICAL_FAILURE else 0)


def _enemy_hits(state: GameState, rng: random.Random, critical: bool) -> list[ev.BaseEvent]:
    if state.combat is None:
        return []
    amount = dice.roll(rng, state.combat.enemy_damage) + (2 if critical else 0)
    return [ev.Damage(amount=amount, source=state.combat.enemy_id)]


def _defeat_if_dying(state: GameState, events: list[ev.BaseEvent], pack: EraPack) -> list[ev.BaseEvent]:
    hp = state.player.hp
    for e in events:
        if isinstance(e, ev.Damage):
            hp -= e.amount
        elif isinstance(e, ev.Heal):
            hp = min(state.player.max_hp, hp + e.amount)
    if hp > 0 or state.player.defeated:
        return []
    out = [ev.Defeated(location=state.location)]
    if state.combat is not None and not any(isinstance(e, ev.CombatEnd) for e in events):
        out.insert(0, ev.CombatEnd(outcome="defeat", enemy=state.combat.enemy_id))
    return out


def _target(router: RouterOutput, state: GameState, pack: EraPack) -> PresentNpc | None:
    return next((p for p in everyone_at(state, pack, state.location) if p.id == router.target_npc), None)


def _faction_rep(faction: str | None, delta: int, reason: str) -> list[ev.BaseEvent]:
    return [ev.ReputationChange(faction=faction, delta=delta, reason=reason)] if faction and delta else []


# ------------------------------------------------------------------ per action class


def _attack(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    minutes = clock.time_cost(ActionClass.ATTACK)
    events: list[ev.BaseEvent] = []
    combat = state.combat
    if combat is None:
        target = _target(router, state, pack)
        if target is None or target.companion:
            summary = "You square up, but there is no one here to fight." if target is None else (
                f"{target.name} is on your side; you think better of it.")
            return Resolution(_result(router, None, minutes, summary))
        npc = pack.npcs.get(target.id)
        hp, damage = (npc.hp, npc.damage) if npc else (6, 4)
        events.append(ev.CombatStart(enemy_id=target.id, enemy_name=target.name, enemy_hp=hp,
                         enemy_damage=damage, reward_credits=0))
        events += _faction_rep(target.faction, -2, f"attacked {target.name}")
        enemy_id, enemy_name, enemy_hp, enemy_damage = target.id, target.name, hp, damage
    else:
        enemy_id, enemy_name, enemy_hp, enemy_damage = (combat.enemy_id, combat.enemy_name, combat.enemy_hp,
                                                        combat.enemy_damage)
    risk = Risk.DANGEROUS if enemy_damage >= 5 else Risk.RISKY
    chk = _check(router, state, pack, rng, risk)
    if chk.outcome.succeeded:
        dmg = max(1, dice.roll(rng, 6) + chk.stat_modifier) * (2 if chk.outcome == Outcome.CRITICAL_SUCCESS else 1)
        events.append(ev.EnemyDamage(amount=dmg, enemy=enemy_id))
        if enemy_hp - dmg <= 0:
            reward = combat.reward_credits if combat else 0
            events.append(ev.CombatEnd(outcome="victory", enemy=enemy_id))
            events.append(ev.NpcDefeated(npc=enemy_id))
            if reward:
                events.append(ev.CreditsChange(delta=reward, reason=f"taken from {enemy_name}"))
            summary = f"You hit {enemy_name} for {dmg} and they go down."
        else:
            summary = f"You hit {enemy_name} for {dmg}; they are still standing."
    else:
        amount = dice.roll(rng, enemy_damage) + (2 if chk.outcome == Outcome.CRITICAL_FAILURE else 0)
        events.append(ev.Damage(amount=amount, source=enemy_id))
        summary = f"You miss {enemy_name}, and they hurt you for {amount}."
    return Resolution(_result(router, chk, minutes, summary, _fail_stress(chk)), events)


def _travel(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    here = pack.locations[state.location]
    dest = router.target_location
    if state.combat is not None:  # leaving mid-fight is fleeing: a dangerous agility check
        chk = _check(router, state, pack, rng, Risk.DANGEROUS)
        flee_to = dest if dest and link_to(pack, state.location, dest) else here.links[0].to
        if chk.outcome.succeeded:
            events = [ev.CombatEnd(outcome="fled", enemy=state.combat.enemy_id),
                      ev.Move(origin=state.location, to=flee_to)]
            link = link_to(pack, state.location, flee_to)
            summary = f"You break away from {state.combat.enemy_name} and run for {pack.locations[flee_to].name}."
            return Resolution(_result(router, chk, link.minutes if link else 10, summary, _fail_stress(chk)), events)
        events = _enemy_hits(state, rng, chk.outcome == Outcome.CRITICAL_FAILURE)
        summary = f"You try to run, but {state.combat.enemy_name} cuts you off and lands a blow."
        return Resolution(_result(router, chk, 2, summary, _fail_stress(chk)), events)
    if dest is None or dest == state.location:
        names = ", ".join(pack.locations[link.to].name for link in here.links)
        summary = ("You are already here." if dest == state.location else
                   f"You hesitate, unsure where to go. Routes from {here.name} lead to {names}.")
        return Resolution(_result(router, None, 2, summary))
    path = route(pack, state.location, dest)
    if path is None:
        names = ", ".join(pack.locations[lk.to].name for lk in here.links)
        summary = f"No road leads to {pack.locations[dest].name} from here; from {here.name} you can reach {names}."
        return Resolution(_result(router, None, 2, summary))
    link = Link(to=dest, minutes=sum(lk.minutes for lk in path), risk=max((lk.risk for lk in path),
                                                                           key=RISK_ORDER.__getitem__),
                description=" ".join(lk.description for lk in path if lk.description))
    target = pack.locations[dest]
    move = ev.Move(origin=state.location, to=dest, via=[lk.to for lk in path[:-1]])
    way = f" {link.description}" if link.description else ""
    if link.risk == Risk.SAFE:
        return Resolution(_result(router, None, link.minutes, f"You travel to {target.name}.{way}"), [move])
    chk = _check(router, state, pack, rng, link.risk)
    if chk.outcome.succeeded:
        return Resolution(_result(router, chk, link.minutes, f"You make it to {target.name} without trouble.{way}"),
                          [move])
    hurt = dice.roll(rng, 4 if link.risk == Risk.RISKY else 6) + (2 if chk.outcome == Outcome.CRITICAL_FAILURE else 0)
    summary = f"The way to {target.name} goes badly: you arrive late and hurt ({hurt} damage)."
    return Resolution(_result(router, chk, link.minutes * 3 // 2, summary, _fail_stress(chk)),
                      [move, ev.Damage(amount=hurt, source="route")])


def _social(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    action = router.action_class
    minutes = clock.time_cost(action)
    target = _target(router, state, pack)
    env: list[tuple[str, int]] = []
    faction = None
    if target is not None:
        env.append((f"{target.disposition} {target.name}", DISPOSITION_MOD.get(target.disposition, 0)))
        faction = target.faction
        if faction:
            env.append((f"reputation with {faction}", state.reputation.get(faction, 0) // 3))
    risk = Risk.DANGEROUS if target is not None and target.disposition == "hostile" else Risk.RISKY
    chk = _check(router, state, pack, rng, risk, env=env)
    who = target.name if target else "the people around you"
    verb = {ActionClass.PERSUADE: "persuade", ActionClass.DECEIVE: "deceive", ActionClass.INTIMIDATE: "intimidate"}[
        action]
    events: list[ev.BaseEvent] = []
    if chk.outcome.succeeded:
        summary = f"You {verb} {who}."
        if action == ActionClass.PERSUADE:
            events += _faction_rep(faction, 1, f"persuaded {who}")
        if action == ActionClass.INTIMIDATE:
            events += _faction_rep(faction, -1, f"intimidated {who}")
        if target is not None:
            rumor = _rumor_for(state, pack, target)
            if rumor and action != ActionClass.PERSUADE:
                events.append(ev.RumorHeard(rumor=rumor, source=target.id))
    else:
        summary = f"You try to {verb} {who}, and it does not work."
        penalty = {ActionClass.PERSUADE: 0, ActionClass.DECEIVE: -2, ActionClass.INTIMIDATE: -1}[action]
        events += _faction_rep(faction, penalty, f"failed to {verb} {who}")
        if action == ActionClass.INTIMIDATE and target is not None and target.disposition == "hostile" and \
                state.combat is None and not target.companion:
            npc = pack.npcs.get(target.id)
            events.append(ev.CombatStart(enemy_id=target.id, enemy_name=target.name,
                             enemy_hp=npc.hp if npc else 6, enemy_damage=npc.damage if npc else 4,
                             reward_credits=0))
            summary += f" {target.name} goes for you."
        events += _enemy_hits(state, rng, chk.outcome == Outcome.CRITICAL_FAILURE)
    return Resolution(_result(router, chk, minutes, summary, _fail_stress(chk)), events)


def _recruit(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    minutes = clock.time_cost(ActionClass.RECRUIT)
    target = _target(router, state, pack)
    if target is None or not target.companion:
        who = target.name if target else "anyone here"
        return Resolution(_result(router, None, minutes, f"You ask {who} to join you, but they are not looking "
                                                          "for a crew."))
    if state.companions.get(target.id) and state.companions[target.id].in_party:
        return Resolution(_result(router, None, minutes, f"{target.name} is already with you."))
    blockers = party.recruitment_blockers(state, pack, target.id)
    if blockers:
        return Resolution(_result(router, None, minutes, f"{target.name} will not join yet: {'; '.join(blockers)}."))
    chk = _check(router, state, pack, rng, Risk.SAFE)
    if not chk.outcome.succeeded:
        return Resolution(_result(router, chk, minutes, f"{target.name} hears you out but wants to sleep on it."))
    cost = pack.companions[target.id].recruit.cost_credits
    events = [ev.CompanionJoin(companion=target.id)]
    if cost:
        events.append(ev.CreditsChange(delta=-cost, reason=f"{target.name}'s fee"))
    return Resolution(_result(router, chk, minutes, f"{target.name} agrees to join you."), events)


def _sneak(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    here = pack.locations[state.location]
    risk = Risk.DANGEROUS if "lawless" in here.tags or state.combat else Risk.RISKY
    chk = _check(router, state, pack, rng, risk)
    target = _target(router, state, pack)
    events: list[ev.BaseEvent] = []
    stealing = "steal" in router.text or "pickpocket" in router.text
    if chk.outcome.succeeded:
        if state.combat is not None:
            events = [ev.CombatEnd(outcome="fled", enemy=state.combat.enemy_id)]
            summary = f"You slip out of {state.combat.enemy_name}'s sight and the fight is over."
        elif stealing and target is not None:
            take = dice.roll(rng, 10)
            events.append(ev.CreditsChange(delta=take, reason=f"lifted from {target.name}"))
            summary = f"You lift {take} credits from {target.name} unseen."
        else:
            summary = "You move unseen."
    else:
        summary = "You are spotted."
        events += _faction_rep(here.faction, -1, "caught sneaking")
        events += _enemy_hits(state, rng, chk.outcome == Outcome.CRITICAL_FAILURE)
    return Resolution(_result(router, chk, clock.time_cost(ActionClass.SNEAK), summary, _fail_stress(chk)), events)


def _investigate(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    here = pack.locations[state.location]
    risk = Risk.RISKY if here.type in ROUGH_PLACES else Risk.SAFE
    chk = _check(router, state, pack, rng, risk)
    events: list[ev.BaseEvent] = []
    found = next((d for d in here.discoveries if d.id not in state.world.discoveries), None)
    if chk.outcome.succeeded and found is not None:
        events.append(ev.Discovery(discovery=found.id, location=here.id))
        if found.item:
            events.append(ev.ItemGet(item=found.item, qty=1))
        if found.credits:
            events.append(ev.CreditsChange(delta=found.credits, reason="found"))
        if found.rumor and found.rumor not in state.world.known_rumors:
            events.append(ev.RumorHeard(rumor=found.rumor, source=here.id))
        summary = f"You find something: {found.text}"
    elif chk.outcome.succeeded:
        summary = f"You take in {here.name} carefully; nothing here is hidden from you now."
    else:
        summary = "You look, but nothing useful turns up."
        events += _enemy_hits(state, rng, chk.outcome == Outcome.CRITICAL_FAILURE)
    minutes = clock.time_cost(ActionClass.INVESTIGATE)
    return Resolution(_result(router, chk, minutes, summary, _fail_stress(chk)), events)


def _buy(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    here = pack.locations[state.location]
    minutes = clock.time_cost(ActionClass.BUY)
    item = pack.items.get(router.target_item or "")
    if item is None and here.type == "bar":
        if state.player.credits < 2:
            return Resolution(_result(router, None, minutes, "You cannot cover even a drink."))
        return Resolution(_result(router, None, minutes, "You buy a drink and let it take the edge off.", stress=-1),
                          [ev.CreditsChange(delta=-2, reason="a drink")])
    if item is None or item.id not in here.shop:
        stock = ", ".join(pack.items[i].name for i in here.shop) or "nothing"
        return Resolution(_result(router, None, minutes, f"That is not for sale here; on offer: {stock}."))
    if state.player.credits < item.value:
        return Resolution(_result(router, None, minutes, f"{item.name} costs {item.value} credits; you have "
                                                          f"{state.player.credits}."))
    events = [ev.CreditsChange(delta=-item.value, reason=f"bought {item.name}"), ev.ItemGet(item=item.id,
                                                                                           qty=1)]
    return Resolution(_result(router, None, minutes, f"You buy {item.name} for {item.value} credits."), events)


def _use_item(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    minutes = clock.time_cost(ActionClass.USE_ITEM)
    item = pack.items[router.target_item] if router.target_item else None
    if item is None or not held(state, item.id):
        name = item.name if item else "that"
        return Resolution(_result(router, None, minutes, f"You reach for {name}, but you do not have it."))
    if item.heal:
        events = [ev.ItemLose(item=item.id, qty=1), ev.Heal(amount=item.heal, source=item.id)]
        return Resolution(_result(router, None, minutes, f"You use {item.name} and feel steadier."), events)
    return Resolution(_result(router, None, minutes, f"You put {item.name} to use."))


def _rest(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    if state.combat is not None:
        events = _enemy_hits(state, rng, False)
        return Resolution(_result(router, None, 2, f"There is no resting with {state.combat.enemy_name} on you.",
                                  outcome=Outcome.FAILURE, risk=Risk.DANGEROUS), events)
    heal = max(1, state.player.max_hp // 4)
    events = [ev.Heal(amount=heal, source="rest")]
    return Resolution(_result(router, None, clock.time_cost(ActionClass.REST), "You rest and recover some strength.",
                              stress=-min(2, state.player.stress)), events)


def _recover(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    rule = pack.era.rules.defeat
    restored = max(1, int(state.player.max_hp * rule.hp_fraction))
    lost = int(state.player.credits * rule.credits_lost_fraction)
    events = [ev.Recovered(hp=restored, location=rule.recover_location)]
    if state.location != rule.recover_location:
        events.insert(0, ev.Move(origin=state.location, to=rule.recover_location))
    if lost:
        events.append(ev.CreditsChange(delta=-lost, reason="lost while you were down"))
    stress = min(rule.stress, pack.era.rules.max_stress - state.player.stress)
    return Resolution(_result(router, None, rule.minutes, rule.text, stress=stress), events)


def _generic(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    chk = _check(router, state, pack, rng, Risk.SAFE)
    summary = "You do it." if chk.outcome.succeeded else "It does not go as planned."
    events = [] if chk.outcome.succeeded else _enemy_hits(state, rng, chk.outcome == Outcome.CRITICAL_FAILURE)
    return Resolution(_result(router, chk, clock.time_cost(router.action_class), summary, _fail_stress(chk)),
                      events)


_RESOLVERS = {
    ActionClass.ATTACK: _attack,
    ActionClass.TRAVEL: _travel,
    ActionClass.PERSUADE: _social,
    ActionClass.DECEIVE: _social,
    ActionClass.INTIMIDATE: _social,
    ActionClass.RECRUIT: _recruit,
    ActionClass.SNEAK: _sneak,
    ActionClass.INVESTIGATE: _investigate,
    ActionClass.BUY: _buy,
    ActionClass.USE_ITEM: _use_item,
    ActionClass.REST: _rest,
    ActionClass.RECOVER: _recover,
}
