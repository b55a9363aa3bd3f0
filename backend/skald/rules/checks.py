"""Resolve an action into a d20 check, an outcome and the events it stages: the dispatcher, and the resolvers for
fights, travel, social checks, recruiting, stealth, searching, items, rest and recovery.

The check itself is ``rules.resolution``; buying, selling and giving are ``rules.trade``; every other hands-on
action is ``rules.interact``. Events are plain :class:`Event` records that Commit folds into the projections;
nothing here touches the database.
"""

from __future__ import annotations

import random
import re

from skald.core import events as ev
from skald.core.pack import EraPack, Link
from skald.core.records import MechanicResult, PresentNpc, RouterOutput
from skald.core.state import GameState
from skald.core.vocab import ActionClass, Outcome, Risk
from skald.rules import (
    clock,
    conversation,
    deeds,
    dice,
    examine,
    feelings,
    interact,
    parser,
    party,
    pronouns,
    references,
    trade,
)
from skald.rules.attitude import hostile_here
from skald.rules.money import money
from skald.rules.parser import object_of
from skald.rules.resolution import (
    DISPOSITION_MOD,
    ROUGH_PLACES,
    Resolution,
    absent_line,
    enemy_hits,
    faction_rep,
    fail_stress,
    found_events,
    hidden_here,
    make_result,
    phrase,
    roll_check,
    rumor_for,
    target_of,
)
from skald.rules.scene import RISK_ORDER, everyone_at, held, link_to, route, way_label
from skald.text import end, or_list, the_place

NEEDS_TARGET = {ActionClass.PERSUADE, ActionClass.DECEIVE, ActionClass.INTIMIDATE, ActionClass.RECRUIT,
                ActionClass.ATTACK, ActionClass.DIALOGUE_ONLY, ActionClass.GIVE, ActionClass.SELL}


def talk_result(router: RouterOutput, state: GameState, pack: EraPack) -> Resolution:
    """TALK needs no check: a synthesised NO_ROLL result costing 8 minutes; may pass on a rumor. A reply or a question
    the parser read (``router.verb``) is answered from the pack (``rules.conversation``)."""
    if router.verb is not None:
        return conversation.answer(router, state, pack)
    minutes = clock.time_cost(ActionClass.DIALOGUE_ONLY)
    events = [ev.TimeAdvance(minutes=minutes)]
    people = {p.id: p for p in everyone_at(state, pack, state.location)}
    target = people.get(router.target_npc or "")
    if target is None and not router.absent_npc and references.PRONOUN_TALK.search(router.text):
        target = next((p for p in people.values() if not p.companion), None)  # "talk to her": the one at hand
    if target is None and router.absent_npc:
        summary = absent_line(router.absent_npc, state, pack)
    elif target:
        summary = phrase(state, f"You talk with {target.name}.", f"You and {target.name} talk for a while.",
                         f"You fall into conversation with {target.name}.", f"{target.name} gives you a few minutes.")
        rumor = rumor_for(state, pack, target)
        if rumor:
            events.append(ev.RumorHeard(rumor=rumor, source=target.id))
    else:
        summary = conversation.nobody_by_that_name(router, state, pack)
    result = MechanicResult(
        action_class=ActionClass.DIALOGUE_ONLY, risk=Risk.SAFE, outcome=Outcome.NO_ROLL, minutes=minutes,
        summary=summary,
    )
    return Resolution(result, events)


def resolve(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """Resolve an ACTION. Reads the router output, player sheet, scene, arc stage and combat.

    :returns: the :class:`MechanicResult` and the staged events (TIME_ADVANCE first).
    """
    resolver = VERBS.get(router.verb or "") or _RESOLVERS.get(router.action_class, interact.resolve)
    if router.absent_npc and router.action_class in NEEDS_TARGET:
        res = Resolution(make_result(router, None, 2, absent_line(router.absent_npc, state, pack), impossible=True))
    else:
        res = resolver(router, state, pack, rng)
    events = [ev.TimeAdvance(minutes=res.result.minutes), *res.events]
    if res.result.stress_delta:
        events.append(ev.StressChange(delta=res.result.stress_delta))
    events.extend(_defeat_if_dying(state, events, pack))
    return Resolution(res.result, events)


def _defeat_if_dying(state: GameState, events: list[ev.BaseEvent], pack: EraPack) -> list[ev.BaseEvent]:
    hp = state.player.hp
    for e in events:
        if isinstance(e, ev.Damage):
            hp -= e.amount
        elif isinstance(e, ev.Heal):
            hp = min(state.player.max_hp, hp + e.amount)
    if hp > 0 or state.player.defeated:
        return []
    out: list[ev.BaseEvent] = [ev.Defeated(location=state.location)]
    started = [e for e in events if isinstance(e, ev.CombatStart)]  # a fight that began this very turn
    enemy = started[-1].enemy_id if started else state.combat.enemy_id if state.combat else None
    if enemy is not None and not any(isinstance(e, ev.CombatEnd) for e in events):
        out.insert(0, ev.CombatEnd(outcome="defeat", enemy=enemy))
    return out


# ------------------------------------------------------------------ per action class


def _attack(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    minutes = clock.time_cost(ActionClass.ATTACK)
    events: list[ev.BaseEvent] = []
    combat = state.combat
    if combat is None:
        people = everyone_at(state, pack, state.location)
        target = target_of(router, state, pack)
        aimed = _aimed_at(router, state, pack, "to fight") if target is None else None
        if isinstance(aimed, str):
            return Resolution(make_result(router, None, 1, f"{aimed} {_no_fight(None, people)}", impossible=True))
        target = target or aimed
        if target is None and router.target_npc is None:  # "attack!": whoever here is spoiling for a fight
            target = next(iter(hostile_here(people, state)), None)
        if target is None or target.companion:
            return Resolution(make_result(router, None, 1, _no_fight(target, people, state), impossible=True))
        npc = pack.npcs.get(target.id)
        hp, damage = (npc.hp, npc.damage) if npc else (6, 4)
        events.append(ev.CombatStart(enemy_id=target.id, enemy_name=target.name, enemy_hp=hp,
                         enemy_damage=damage, reward_credits=0))
        events += faction_rep(target.faction, -2, f"attacked {target.name}")
        enemy_id, enemy_name, enemy_hp, enemy_damage = target.id, target.name, hp, damage
    else:
        enemy_id, enemy_name, enemy_hp, enemy_damage = (combat.enemy_id, combat.enemy_name, combat.enemy_hp,
                                                        combat.enemy_damage)
    risk = Risk.DANGEROUS if enemy_damage >= 5 else Risk.RISKY
    chk = roll_check(router, state, pack, rng, risk)
    if chk.outcome.succeeded:
        dmg = max(1, dice.roll(rng, 6) + chk.stat_modifier) * (2 if chk.outcome == Outcome.CRITICAL_SUCCESS else 1)
        events.append(ev.EnemyDamage(amount=dmg, enemy=enemy_id))
        if enemy_hp - dmg <= 0:
            reward = combat.reward_credits if combat else 0
            events.append(ev.CombatEnd(outcome="victory", enemy=enemy_id))
            events.append(ev.NpcDefeated(npc=enemy_id))
            if reward:
                events.append(ev.CreditsChange(delta=reward, reason=f"taken from {enemy_name}"))
            summary = phrase(state, f"You hit {enemy_name} for {dmg} and they go down.",
                             f"Your blow lands for {dmg}, and {enemy_name} goes down.")
        else:
            summary = phrase(state, f"You hit {enemy_name} for {dmg}; they are still standing.",
                             f"You land a blow on {enemy_name} for {dmg}, but they stay on their feet.",
                             f"You catch {enemy_name} for {dmg}; they reel but keep coming.")
    else:
        amount = dice.roll(rng, enemy_damage) + (2 if chk.outcome == Outcome.CRITICAL_FAILURE else 0)
        events.append(ev.Damage(amount=amount, source=enemy_id))
        summary = phrase(state, f"You miss {enemy_name}, and they hurt you for {amount}.",
                         f"{enemy_name} slips your swing and hits back for {amount}.",
                         f"Your blow goes wide; {enemy_name} makes you pay, {amount} HP.")
    return Resolution(make_result(router, chk, minutes, summary, fail_stress(chk)), events)


_FIGHT_WITH = re.compile(r"^(?:a |the |some )?(?:fight|brawl|scrap|punch-up|punchup|row|quarrel|duel|argument|"
                         r"scuffle|tussle)\s+with\s+")


def _aimed_at(router: RouterOutput, state: GameState, pack: EraPack, purpose: str) -> PresentNpc | str | None:
    """Who an action the router found no target for is aimed at: the person here its words describe ('stab the
    singer': the ballad seller), or when nobody here answers to them, the answer: 'Ansel Mirrow is not here; ...'
    (a pack character elsewhere, ``router.absent_npc``) or 'You see no Rhea here to fight.'; None when the line
    names nobody."""
    if router.absent_npc:
        return absent_line(router.absent_npc, state, pack)
    aimed = parser.addressee(router.text)
    aimed = parser.object_of(router.text) if aimed == router.text else aimed
    aimed = _FIGHT_WITH.sub("", aimed)  # "start a brawl with the reeves": the reeves
    if not aimed:
        return None
    found = references.person(aimed, state, pack)
    if found is not None:
        return found
    extras = references.detail(aimed, state, pack)
    crowd = {w.lower() for w in references.PEOPLE_LINE.findall(extras)} if extras else set()
    if crowd and references.words(aimed) & (references.words(" ".join(crowd)) | parser.CROWD_WORDS):  # "swing at
        # the reeves by the window": the place's extras
        return f"{end(extras)} They keep to themselves, and are not yours to pick on."
    missing = references.missing_person(aimed, state, pack)
    return f"You see no {missing} here {purpose}." if missing else None


# First words of a line that is said rather than told as a deed ("surely ...", "you have the kindest eyes").
_NO_DEED = frozenset({"surely", "that", "thats", "that's", "this", "it", "its", "it's", "you", "your", "youre",
                      "you're", "youve", "you've", "ur", "maybe", "perhaps", "well", "so", "now", "oh", "the", "a",
                      "an",
                      "what", "how", "why", "who", "where", "when", "if", "but", "and", "or", "ok", "okay", "yes", "no",
                      "come", "look", "listen", "hey", "there", "we", "we're", "were", "us", "everyone", "nobody"})


def _as_told(router: RouterOutput) -> str:
    """The player's line told back in the second person, without its full stop ('hide under the table' -> 'You hide
    under the table'), when it says more than its verb (3 to 16 words); '' otherwise (the rules' own words then)."""
    said = re.sub(r"\s+(?:while|whilst|before|when|so that|as soon as)\b.*$", "", router.text.strip(" .!?"))  # "...
    # out of the tip jar while nobody is looking": the deed, not when
    if not 3 <= len(said.split()) <= 16 or re.search(r"[?;]", said) or said.split()[0].lower() in _NO_DEED or \
            said.split()[1].lower() in ("ur", "your", "you", "youre", "you're"):
        return ""  # "surely that's worth a free drink", "amos ur a legend" are said, not done: the rules' own words
    told = deeds.second_person(said).rstrip(".")
    return told if told.startswith("You ") else ""


def _no_fight(target: PresentNpc | None, people: list[PresentNpc], state: GameState | None = None) -> str:
    if target is not None and state is not None and target.id not in state.party:  # a companion not yet recruited
        return (f"{target.name} has given you no cause, and could yet be worth more at your back than on the floor; "
                "you think better of it.")
    if target is not None:
        return f"{target.name} is on your side; you think better of it."
    others = [p.name for p in people if not p.companion]
    if not others:
        return "You square up, but there is no one here to fight."
    return f"Nobody here is spoiling for a fight; to start one, name who you attack: {or_list(others)}."


def _travel(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    here = pack.locations[state.location]
    dest = router.target_location
    if state.combat is not None:  # leaving mid-fight is fleeing: a dangerous agility check
        chk = roll_check(router, state, pack, rng, Risk.DANGEROUS)
        flee_to = dest if dest and link_to(pack, state.location, dest) else here.links[0].to
        if chk.outcome.succeeded:
            events = [ev.CombatEnd(outcome="fled", enemy=state.combat.enemy_id),
                      ev.Move(origin=state.location, to=flee_to)]
            link = link_to(pack, state.location, flee_to)
            summary = (f"You break away from {state.combat.enemy_name} and run for "
                       f"{the_place(pack.locations[flee_to])}.")
            return Resolution(make_result(router, chk, link.minutes if link else 10, summary, fail_stress(chk)), events)
        events = enemy_hits(state, rng, chk.outcome == Outcome.CRITICAL_FAILURE)
        summary = f"You try to run, but {state.combat.enemy_name} cuts you off and lands a blow."
        return Resolution(make_result(router, chk, 2, summary, fail_stress(chk)), events)
    if dest is None and router.verb in ("leave", "flee", "back", "go"):
        return Resolution(make_result(router, None, 1, _which_way(router, state, pack), impossible=True))
    if dest is None or dest == state.location:
        names = ", ".join(the_place(pack.locations[link.to]) for link in here.links)
        summary = ("You are already here." if dest == state.location else
                   f"You hesitate, unsure where to go. Routes from {the_place(here)} lead to {names}.")
        return Resolution(make_result(router, None, 2, summary, impossible=True))
    path = route(pack, state.location, dest)
    if path is None:
        names = ", ".join(the_place(pack.locations[lk.to]) for lk in here.links)
        summary = (f"No road leads to {the_place(pack.locations[dest])} from here; from {the_place(here)} "
                   f"you can reach {names}.")
        return Resolution(make_result(router, None, 2, summary, impossible=True))
    link = Link(to=dest, minutes=sum(lk.minutes for lk in path), risk=max((lk.risk for lk in path),
                                                                           key=RISK_ORDER.__getitem__),
                description=" ".join(lk.description for lk in path if lk.description))
    target = pack.locations[dest]
    move = ev.Move(origin=state.location, to=dest, via=[lk.to for lk in path[:-1]])
    way = f" {link.description}" if link.description else ""
    if link.risk == Risk.SAFE:
        return Resolution(make_result(router, None, link.minutes, f"You travel to {the_place(target)}.{way}"),
                          [move])
    chk = roll_check(router, state, pack, rng, link.risk)
    if chk.outcome.succeeded:
        return Resolution(make_result(router, chk, link.minutes,
                                      f"You make it to {the_place(target)} without trouble.{way}"), [move])
    hurt = dice.roll(rng, 4 if link.risk == Risk.RISKY else 6) + (2 if chk.outcome == Outcome.CRITICAL_FAILURE else 0)
    summary = f"The way to {the_place(target)} goes badly: you arrive late and hurt ({hurt} damage)."
    return Resolution(make_result(router, chk, link.minutes * 3 // 2, summary, fail_stress(chk)),
                      [move, ev.Damage(amount=hurt, source="route")])


def _social(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    action = router.action_class
    minutes = clock.time_cost(action)
    target = target_of(router, state, pack)
    verb = {ActionClass.PERSUADE: "persuade", ActionClass.DECEIVE: "deceive", ActionClass.INTIMIDATE: "intimidate"}[
        action]
    aimed = _aimed_at(router, state, pack, f"to {verb}") if target is None else None
    if isinstance(aimed, str):
        locals_ = [p.name.split()[0] for p in everyone_at(state, pack, state.location) if not p.companion]
        instead = f" You could {verb} {or_list(locals_[:3])} instead." if locals_ else ""
        return Resolution(make_result(router, None, 1, aimed + instead, impossible=True))
    target = target or aimed
    env: list[tuple[str, int]] = []
    faction = None
    if target is not None:
        env.append((f"{target.disposition} {target.name}", DISPOSITION_MOD.get(target.disposition, 0)))
        felt = feelings.attitude_of(state, target.id) // 3
        if felt:
            env.append((f"how {target.name} feels about you", felt))
        faction = target.faction
        if faction:
            env.append((f"reputation with {faction}", state.reputation.get(faction, 0) // 3))
    risk = Risk.DANGEROUS if target is not None and target.disposition == "hostile" else Risk.RISKY
    chk = roll_check(router, state, pack, rng, risk, env=env)
    who = target.name if target else "the people around you"
    events: list[ev.BaseEvent] = []
    told = references.proper_names(_as_told(router), pack)  # "lie and say im a reeve": the attempt as it was put
    person = pack.person(target.id) if target is not None else None
    they = pronouns.of(person)
    named = target is not None and target.name.split()[0].lower() in told.lower()  # "persuade juno ...": then "her"
    if chk.outcome.succeeded:
        summary = phrase(state, f"You {verb} {who}.", f"It works on {who}: you {verb} {they.object}.")
        summary = f"{told}, and it works on {they.object if named else who}." if told else summary
        if action == ActionClass.PERSUADE:
            events += faction_rep(faction, 1, f"persuaded {who}")
        if action == ActionClass.INTIMIDATE:
            events += faction_rep(faction, -1, f"intimidated {who}")
        if target is not None:
            rumor = rumor_for(state, pack, target)
            if rumor and action != ActionClass.PERSUADE:
                events.append(ev.RumorHeard(rumor=rumor, source=target.id))
    else:
        summary = phrase(state, f"You try to {verb} {who}, and it does not work.",
                         f"You set out to {verb} {who}, but {they.subject} {'do' if they.plural else 'does'} not "
                         "budge.",
                         f"{who[:1].upper()}{who[1:]} will not be moved: your attempt to {verb} {they.object} falls "
                         "flat.")
        moved = "nobody around you is moved" if target is None else (
            f"{they.subject} {'are' if they.plural else 'is'} not moved" if named else f"{who} is not moved")
        summary = f"You try to {told[4:]}, but {moved}." if told else summary
        penalty = {ActionClass.PERSUADE: 0, ActionClass.DECEIVE: -2, ActionClass.INTIMIDATE: -1}[action]
        events += faction_rep(faction, penalty, f"failed to {verb} {who}")
        if action == ActionClass.INTIMIDATE and target is not None and target.disposition == "hostile" and \
                state.combat is None and not target.companion:
            npc = pack.npcs.get(target.id)
            events.append(ev.CombatStart(enemy_id=target.id, enemy_name=target.name,
                             enemy_hp=npc.hp if npc else 6, enemy_damage=npc.damage if npc else 4,
                             reward_credits=0))
            summary += f" {target.name} goes for you."
        events += enemy_hits(state, rng, chk.outcome == Outcome.CRITICAL_FAILURE)
    return Resolution(make_result(router, chk, minutes, summary, fail_stress(chk)), events)


_ANYONE = re.compile(r"(?:anyone|anybody|someone|somebody|who(?:ever)?|any of you)\b")


def _recruit(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    minutes = clock.time_cost(ActionClass.RECRUIT)
    target = target_of(router, state, pack)
    waiting = next((p for p in everyone_at(state, pack, state.location) if p.companion and p.id not in state.party),
                   None)  # who waits here to be asked
    if target is None and router.target_npc is None and _ANYONE.match(router.text):  # "anyone wanna come
        target = waiting  # adventuring with me"
    aimed = _aimed_at(router, state, pack, "to ask") if target is None else None
    if target is None and aimed is None and router.target_npc is None:  # "join me, ill split whatever we find": the
        target = waiting  # one here who would
    if isinstance(aimed, str):
        return Resolution(make_result(router, None, 1, aimed, impossible=True))
    target = target or aimed
    if target is None or not target.companion:
        who = target.name if target else "anyone here"
        return Resolution(make_result(router, None, minutes, f"You ask {who} to join you, but they are not looking "
                                                             "for a crew.", impossible=True))
    if state.companions.get(target.id) and state.companions[target.id].in_party:
        return Resolution(make_result(router, None, minutes, f"{target.name} is already with you.", impossible=True))
    blockers = party.recruitment_blockers(state, pack, target.id)
    if blockers:
        return Resolution(make_result(router, None, minutes, f"{target.name} will not join yet: {'; '.join(blockers)}.",
                                      impossible=True))
    chk = roll_check(router, state, pack, rng, Risk.SAFE)
    if not chk.outcome.succeeded:
        return Resolution(make_result(router, chk, minutes, f"{target.name} hears you out but wants to sleep on it."))
    cost = pack.companions[target.id].recruit.cost_credits
    events = [ev.CompanionJoin(companion=target.id)]
    if cost:
        events.append(ev.CreditsChange(delta=-cost, reason=f"{target.name}'s fee"))
    return Resolution(make_result(router, chk, minutes, f"{target.name} agrees to join you."), events)


_SOUGHT = frozenset({"clue", "clues", "loot", "valuables", "treasure", "anything", "something", "stuff", "coin",
                     "coins", "money", "goods", "secrets", "valuable", "useful", "interesting", "hidden", "loose",
                     "shiny", "worth", "value", "good", "things", "whatever"})  # what a search is for, not where
_SLIP_OUT = re.compile(r"\b(?:sneak|slip|creep|tiptoe|steal|sidle) (?:out|away|off)\b(?! of (?:sight|view))")


def _sneak(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    here = pack.locations[state.location]
    risk = Risk.DANGEROUS if "lawless" in here.tags or state.combat else Risk.RISKY
    chk = roll_check(router, state, pack, rng, risk)
    target = target_of(router, state, pack)
    events: list[ev.BaseEvent] = []
    stealing = "steal" in router.text or "pickpocket" in router.text
    out = references.way_out("leave", state, pack, None) if _SLIP_OUT.search(router.text) and state.combat is None \
        else None  # "sneak out without paying": out by the likeliest way, unseen
    if chk.outcome.succeeded and out is not None:
        link = link_to(pack, state.location, out)
        summary = f"You slip out to {the_place(pack.locations[out])} and nobody calls after you."
        return Resolution(make_result(router, chk, link.minutes if link else clock.time_cost(ActionClass.SNEAK),
                                      summary), [ev.Move(origin=state.location, to=out)])
    if chk.outcome.succeeded:
        if state.combat is not None:
            events = [ev.CombatEnd(outcome="fled", enemy=state.combat.enemy_id)]
            summary = f"You slip out of {state.combat.enemy_name}'s sight and the fight is over."
        elif stealing and target is not None:
            take = dice.roll(rng, 10)
            events.append(ev.CreditsChange(delta=take, reason=f"lifted from {target.name}"))
            summary = f"You lift {money(take, pack)} from {target.name} unseen."
        else:
            summary = phrase(state, "You move unseen.", "Nobody sees you go.", "You keep to the edges, unnoticed.")
            told = _as_told(router)
            summary = f"{told}, unseen." if told and state.combat is None else summary
    else:
        summary = phrase(state, "You are spotted.", "Someone sees you, and says so.",
                         "Eyes turn your way: you are seen.")
        told = f"You slip toward {the_place(pack.locations[out])}" if out is not None else _as_told(router)
        summary = f"You try to {told[4:]}, but {summary[:1].lower()}{summary[1:]}" if told else summary
        events += faction_rep(here.faction, -1, "caught sneaking")
        events += enemy_hits(state, rng, chk.outcome == Outcome.CRITICAL_FAILURE)
    return Resolution(make_result(router, chk, clock.time_cost(ActionClass.SNEAK), summary, fail_stress(chk)), events)


def _investigate(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    here = pack.locations[state.location]
    risk = Risk.RISKY if here.type in ROUGH_PLACES else Risk.SAFE
    chk = roll_check(router, state, pack, rng, risk)
    events: list[ev.BaseEvent] = []
    found = hidden_here(state, pack)
    found_here = chk.outcome.succeeded and found is not None
    searched_before = [d for d in here.discoveries if d.id in state.world.discoveries] if found is None else []
    if found_here:
        events += found_events(found, state, here.id)
        summary = f"You find something: {found.text}"
    elif searched_before:  # nothing is left to find: said so, whatever the roll
        spot = re.match(r"(?P<spot>(?:under|behind|beneath|inside|in|among|on|by) [^,.;]+?) you (?:find|turn up)\b",
                        searched_before[-1].text[:1].lower() + searched_before[-1].text[1:])
        also = f", {spot.group('spot')} too," if spot else ""
        seen = _eye_falls_on(here, None, state, pack)
        summary = f"You go over {the_place(here)} again{also} and find nothing you have not found already."
        summary = f"{end(seen)} {summary}" if seen else summary
    elif chk.outcome.succeeded:
        summary = phrase(state, f"You take in {the_place(here)} carefully; nothing here is hidden from you now.",
                         f"You go over {the_place(here)} again and find nothing new.",
                         f"A careful look around {the_place(here)} turns up nothing you did not know.")
    else:
        summary = phrase(state, f"You look around {the_place(here)}, but nothing useful turns up.",
                         f"You search {the_place(here)} and come up empty.",
                         f"Whatever is in {the_place(here)}, you do not find it this time.")
        seen = _eye_falls_on(here, found, state, pack)
        summary = f"{end(seen)} {summary}" if seen else summary  # what the eye falls on while it looks
    sought = re.sub(r"^(?:have |take )?(?:a )?(?:look|poke|nose|root|rummage|wander|walk) (?:around|round|about) "
                    r"(?=(?:behind|under|beneath|inside|in|near|by|among|through|along) )", "", object_of(router.text))
    thing = re.sub(r"\s+(?:in case|to see|looking for|hoping|for anything|for something)\b.*$|^(?:a )?(?:look|poke|"
                   r"wander|walk) (?:around|round|about)\b.*$", "", sought)  # "a look around first"; "a poke around
    # behind the taps": the taps
    if thing and not found_here and not references.words(thing) <= examine.THE_PLACE_WORDS | _SOUGHT and \
            not set(thing.split()) & {"me", "you", "i", "us", "we"}:  # "want me to look at your tally": no thing
        the = "" if re.match(r"(?:every|each|all|both)\b", thing) else "the "  # "peer into every corner"
        searched = references.detail(thing, state, pack)
        if searched is not None and not chk.outcome.succeeded:  # "rummage through the coats by the door": the
            summary = phrase(state, "You look, but nothing useful turns up.", "You search and come up empty.",
                             "Whatever is there, you do not find it this time.")  # pegs the line tells of
            summary = f"{end(searched)} {summary}"
        summary = f"You search {the}{thing}. {summary}"  # what was searched, named
        events += enemy_hits(state, rng, chk.outcome == Outcome.CRITICAL_FAILURE)
    minutes = clock.time_cost(ActionClass.INVESTIGATE)
    return Resolution(make_result(router, chk, minutes, summary, fail_stress(chk)), events)


def _eye_falls_on(here, hidden, state: GameState, pack: EraPack) -> str:
    """The detail of ``here`` a search that finds nothing dwells on: one that shares a word with what is hidden here
    (``hidden``, a discovery: "a loose board by the hearth" -> the barrel by the hearth), so that a failed search
    still points the way; else one the recent turns did not tell, rotating with the turn (``deeds.place_line``); ''
    for a place without details."""
    if not here.details:
        return ""
    pointed = references.most_shared({references.stem_of(w) for w in references.words(hidden.text)},
                                     here.details)[1] if hidden is not None else None
    if pointed is not None:
        return pointed
    return deeds.place_line(state, pack)


def _which_way(router: RouterOutput, state: GameState, pack: EraPack) -> str:
    """The answer to a way out that is not clear ("leave" with several ways) or a place that is not there ("head to
    the docks" where there are none): the ways from here, with their minutes and risk."""
    here = pack.locations[state.location]
    ways = or_list([way_label(pack, lk) for lk in here.links])
    if router.verb == "go" and router.topic:
        be = "are" if router.topic.endswith("s") and not router.topic.endswith("ss") else "is"  # "no docks"
        return f"There {be} no {router.topic} within reach of {the_place(here)}; from here you can go to {ways}."
    if router.verb == "back":
        return f"There is no way back that you know of from {the_place(here)}; from here you can go to {ways}."
    return f"Which way? From {the_place(here)} you can go to {ways}."


def _use_item(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    minutes = clock.time_cost(ActionClass.USE_ITEM)
    item = pack.items[router.target_item] if router.target_item else None
    if item is None or not held(state, item.id):
        name = f"the {item.name.lower()}" if item else "that"
        return Resolution(make_result(router, None, minutes, f"You reach for {name}, but you do not have it.",
                                      impossible=True))
    if item.heal:
        events = [ev.ItemLose(item=item.id, qty=1), ev.Heal(amount=item.heal, source=item.id)]
        healed = min(item.heal, state.player.max_hp - state.player.hp)
        gain = f"get {healed} HP back" if healed else "feel steadier, though you were not hurt"
        return Resolution(make_result(router, None, minutes, f"You use the {item.name.lower()} and {gain}."), events)
    return Resolution(make_result(router, None, minutes, f"You take out the {item.name.lower()}, but on its own it "
                                                         "does nothing here.", impossible=True))


def _rest(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    if state.combat is not None:
        events = enemy_hits(state, rng, False)
        return Resolution(make_result(router, None, 2, f"There is no resting with {state.combat.enemy_name} on you.",
                                  outcome=Outcome.FAILURE, risk=Risk.DANGEROUS), events)
    heal = max(1, state.player.max_hp // 4)
    events = [ev.Heal(amount=heal, source="rest")]
    healed = min(heal, state.player.max_hp - state.player.hp)
    summary = phrase(state, f"You rest and get {healed} HP back.", f"A few hours off your feet give you {healed} HP "
                     "back.") if healed else phrase(state, "You rest; you were not hurt, but it does you good.",
                                                    "You take a few quiet hours, and they do you good.")
    told = _as_told(router)
    if not told and re.match(r"\W*(?:sleep|nap|doze|kip|snooze|rest my eyes)\W*$", router.text.lower()):  # "sleep":
        told = f"You sleep a while in {the_place(pack.locations[state.location])}"  # told as a sleep
    if told:  # "take a nap by the fire": the rest as the player put it
        summary = f"{told}. " + (f"It gives you {healed} HP back." if healed else "It does you good.")
    return Resolution(make_result(router, None, clock.time_cost(ActionClass.REST), summary,
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
    return Resolution(make_result(router, None, rule.minutes, rule.text, stress=stress), events)


VERBS = {  # a verb the parser read (rules.parser) has its own resolver, whatever its action class
    "examine": examine.resolve,
    "claim": interact.claim,
    "aside": interact.aside,
    "away": interact.away,
    "dictate": interact.dictate,
    **{verb: deeds.resolve for verb in ("eat", "drink", "sing", "dance", "pray", "sit", "stand", "wait", "watch",
                                         "listen", "smell", "taste", "touch", "warm", "nod", "wave", "laugh", "think",
                                         "sleep", "jump", "kiss", "wake", "throw", "drop", "wear", "clean", "tie",
                                         "cut", "swim", "play", "write", "do", "stretch", "insult")},
}

_RESOLVERS = {
    ActionClass.ATTACK: _attack,
    ActionClass.TRAVEL: _travel,
    ActionClass.PERSUADE: _social,
    ActionClass.DECEIVE: _social,
    ActionClass.INTIMIDATE: _social,
    ActionClass.RECRUIT: _recruit,
    ActionClass.SNEAK: _sneak,
    ActionClass.INVESTIGATE: _investigate,
    ActionClass.BUY: trade.buy,
    ActionClass.SELL: trade.sell,
    ActionClass.GIVE: trade.give,
    ActionClass.INTERACT: interact.resolve,
    ActionClass.USE_ITEM: _use_item,
    ActionClass.REST: _rest,
    ActionClass.RECOVER: _recover,
}
