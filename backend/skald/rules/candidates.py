"""Candidate suggestions drawn from the scene, ranked; ``rules.suggestions`` lints them and picks one per tone.

What the candidates follow (Skald's own choices), most pressing first:
- a knockout (only ways to get up) or a fight (strike, talk them down, study them, heal, slip away);
- this turn's outcome: after a success with someone, press on with them; after a failure, recover (rest, a drink)
  or retreat to a quieter place;
- high stress (70% of the pack's maximum): a calming option (a drink in a bar, else rest);
- the active quests: go where the current stage is, do what it asks of the person it names, hand over the item
  it wants, buy it here;
- the people here (varied among them, the one just addressed first), companions (recruit only someone the player
  has spoken to, talk to one only after the prose has named them, ask a party member's view), the exits, the
  shop, what the player carries (sell it where there is a shop, use a healing item when hurt).
Within a rank, labels not offered last time come first and the rest are shuffled by the turn's seeded RNG, so
the offer changes as the scene does without ever naming someone who is not here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from skald.core.pack import EraPack
from skald.core.persistent import PersistentState, Suggestion
from skald.core.records import MechanicResult, PresentNpc
from skald.core.vocab import ActionClass, Outcome, QuestStatus, Risk, Tone
from skald.rules import party, pronouns
from skald.rules.attitude import hostile_here
from skald.rules.money import money
from skald.rules.scene import RISK_ORDER, link_to, npc_location, route
from skald.rules.trade import DRINK_PRICE
from skald.text import the_place

TONES = (Tone.PARAGON, Tone.INVESTIGATE, Tone.RENEGADE, Tone.NEUTRAL)
URGENT, FOLLOW, QUEST, SCENE, FILLER = 0, 1, 2, 3, 4  # ranks: lower is offered first
SOCIAL = {ActionClass.PERSUADE, ActionClass.DECEIVE, ActionClass.INTIMIDATE, ActionClass.DIALOGUE_ONLY,
          ActionClass.GIVE, ActionClass.INTERACT}
ROUGH = {"wilds", "ruin", "mine"}


@dataclass(frozen=True, slots=True)
class Candidate:
    """A suggestion that may be offered (a plain record: a turn weighs a few dozen and keeps four)."""

    label: str
    tone: Tone
    risk: Risk
    action_class: str

    def suggestion(self) -> Suggestion:
        return Suggestion(label=self.label, tone=self.tone, risk=self.risk, action_class=self.action_class)


@dataclass(frozen=True)
class ThisTurn:
    """What just happened, for follow-ups: the check's result and who the action was aimed at."""

    result: MechanicResult | None = None
    target: str | None = None


@dataclass(frozen=True)
class Scene:
    """What a suggestion may refer to."""

    location: str
    present: list[PresentNpc]
    in_combat: bool
    held_items: set[str]
    defeated: bool


def scene_of(view: PersistentState, present: list[PresentNpc]) -> Scene:
    return Scene(location=view.location, present=present, in_combat=view.combat is not None,
                 held_items={i for i, q in view.player.inventory.items() if q > 0}, defeated=view.player.defeated)


class _Pool:
    """Candidates per tone with their rank and, optionally, a family: a word every phrasing of the same idea names
    (the destination of a quest, the item to use)."""

    def __init__(self) -> None:
        self.by_tone: dict[Tone, list[tuple[int, str | None, Candidate]]] = {tone: [] for tone in TONES}

    def add(self, rank: int, label: str, tone: Tone, risk: Risk, action: ActionClass,
            family: str | None = None) -> None:
        self.by_tone[tone].append((rank, family, Candidate(label, tone, risk, action.value)))

    def ranked(self, rng: random.Random, offered: list[Suggestion]) -> dict[Tone, list[Candidate]]:
        """Best first per tone. What was offered last time and not taken, in any phrasing of its family, drops one
        rank (no nagging: the next idea gets a turn, and it comes back after); ties are shuffled by ``rng``."""
        out = {}
        for tone, options in self.by_tone.items():
            before = [s.label for s in offered if s.tone == tone]
            keyed = []
            for rank, family, s in options:
                stale = s.label in before or (family is not None and any(family in label for label in before))
                keyed.append((rank + stale, stale, rng.random(), s))
            out[tone] = [s for *_, s in sorted(keyed, key=lambda k: k[:3])]
        return out


def candidates(view: PersistentState, pack: EraPack, scene: Scene, rng: random.Random,
               now: ThisTurn | None = None) -> dict[Tone, list[Candidate]]:
    """Every candidate for the scene the next turn starts in, best first per tone."""
    pool = _Pool()
    now = now or ThisTurn()
    if scene.defeated:
        for tone, label in zip(TONES, ("Let someone help you up", "Try to remember what happened",
                                       "Get up, jaw set, and swear to get even", "Get back on your feet"),
                               strict=True):
            pool.add(URGENT, label, tone, Risk.SAFE, ActionClass.RECOVER)
        return pool.ranked(rng, [])
    offered = view.offer
    if scene.in_combat:
        _fight(pool, view, pack, scene, now)
        return pool.ranked(rng, offered)
    here = pack.locations[scene.location]
    people = [p for p in scene.present if not p.companion]
    people.sort(key=lambda p: (p.id != now.target, rng.random()))  # the one just addressed first, then any order
    _follow_up(pool, view, pack, scene, now, people)
    _recover(pool, view, pack, here.type)
    heading = _quests(pool, view, pack, scene, rng)
    for person in people[:3]:
        _person(pool, view, pack, person, rng)
    for person in hostile_here(people, view):
        npc = pack.npcs.get(person.id)
        pool.add(SCENE, f"Attack {person.name}", Tone.RENEGADE,
                 Risk.DANGEROUS if npc and npc.damage >= 5 else Risk.RISKY, ActionClass.ATTACK)
    _companions(pool, view, pack, scene)
    _place(pool, view, pack, scene, rng, heading)
    return pool.ranked(rng, offered)


# ------------------------------------------------------------------ by situation


def _fight(pool: _Pool, view: PersistentState, pack: EraPack, scene: Scene, now: ThisTurn) -> None:
    enemy = view.combat.enemy_name
    landed = now.result is not None and now.result.action_class == ActionClass.ATTACK and now.result.outcome.succeeded
    strikes = [f"Attack {enemy}", f"Strike at {enemy}", f"Charge at {enemy}", f"Swing at {enemy} again"]
    if landed:
        strikes.append(f"Hit {enemy} again while they reel")
    for label in strikes:
        pool.add(URGENT, label, Tone.RENEGADE, Risk.DANGEROUS, ActionClass.ATTACK)
    for label in (f"Persuade {enemy} to back off", f"Talk {enemy} into calling it off",
                  f"Convince {enemy} this fight is not worth it", f"Plead with {enemy} to stop"):
        pool.add(URGENT, label, Tone.PARAGON, Risk.RISKY, ActionClass.PERSUADE)
    for label in (f"Study how {enemy} moves", f"Look for an opening in {enemy}'s guard",
                  f"Watch {enemy} for a weakness", "Scan the ground for better footing"):
        pool.add(URGENT, label, Tone.INVESTIGATE, Risk.RISKY, ActionClass.INVESTIGATE)
    hurt = view.player.hp * 2 <= view.player.max_hp
    for item in _healing(view, pack):
        for verb in ("Use", "Apply") if item.heal and "kit" in item.name.lower() else ("Use",):
            pool.add(URGENT if hurt else SCENE, f"{verb} the {item.name.lower()}", Tone.NEUTRAL, Risk.SAFE,
                     ActionClass.USE_ITEM, family=item.name.lower())
    for label in (f"Slip away from {enemy}", f"Sneak out of {enemy}'s reach", f"Hide from {enemy}"):
        pool.add(URGENT if hurt else SCENE, label, Tone.NEUTRAL, Risk.DANGEROUS, ActionClass.SNEAK)


def _follow_up(pool: _Pool, view: PersistentState, pack: EraPack, scene: Scene, now: ThisTurn,
               people: list[PresentNpc]) -> None:
    """Press on after a success with someone; recover or retreat after a failure."""
    result = now.result
    if result is None or result.impossible:
        return
    target = next((p for p in people if p.id == now.target), None)
    first = target.name.split()[0] if target else ""
    if result.outcome.succeeded and target and result.action_class in SOCIAL:
        they = _pronouns(pack, target.id)
        for label in (f"Ask {first} what else {they.subject} {_agree(they, 'know')}",
                      f"Ask {first} who else you should talk to",
                      f"Ask {first} what {they.subject} would do in your place"):
            pool.add(FOLLOW, label, Tone.INVESTIGATE, Risk.SAFE, ActionClass.DIALOGUE_ONLY)
        if result.action_class != ActionClass.DIALOGUE_ONLY:
            pool.add(FOLLOW, f"Demand a name from {first}", Tone.RENEGADE, Risk.RISKY, ActionClass.INTIMIDATE)
    elif result.outcome in (Outcome.FAILURE, Outcome.CRITICAL_FAILURE):
        if target is not None:
            pool.add(FOLLOW, f"Persuade {first} to give you another chance", Tone.PARAGON, Risk.RISKY,
                     ActionClass.PERSUADE)
        retreat = _quieter_exit(pack, scene.location)
        if retreat is not None:
            pool.add(FOLLOW, f"Retreat to {the_place(pack.locations[retreat])}", Tone.NEUTRAL,
                     link_to(pack, scene.location, retreat).risk, ActionClass.TRAVEL)
    if result.action_class == ActionClass.TRAVEL and result.outcome.succeeded:
        here = pack.locations[scene.location]
        for label in (f"Look around {the_place(here)}", f"Take a careful look around {the_place(here)}",
                      f"Survey {the_place(here)} with care"):
            pool.add(FOLLOW, label, Tone.INVESTIGATE, Risk.RISKY if here.type in ROUGH else Risk.SAFE,
                     ActionClass.INVESTIGATE)


def _recover(pool: _Pool, view: PersistentState, pack: EraPack, place_type: str) -> None:
    """A calming option at high stress; rest or a healing item when hurt."""
    stressed = view.player.stress >= pack.era.rules.max_stress * 7 // 10
    hurt = view.player.hp < view.player.max_hp
    drink = stressed and place_type == "bar" and view.player.credits >= DRINK_PRICE
    if drink:  # the quick way to steady your nerves, where there is one
        pool.add(URGENT, f"Buy a drink and let your nerves settle ({money(DRINK_PRICE, pack)})", Tone.NEUTRAL,
                 Risk.SAFE, ActionClass.BUY)
    if stressed or view.player.hp * 2 <= view.player.max_hp:
        for label in ("Rest a few hours and steady yourself", "Find a quiet corner and rest a while",
                      "Sleep off the worst of it"):
            pool.add(FOLLOW if drink else URGENT, label, Tone.NEUTRAL, Risk.SAFE, ActionClass.REST)
    elif hurt:
        pool.add(SCENE, "Rest a few hours", Tone.NEUTRAL, Risk.SAFE, ActionClass.REST)
    if view.player.hp * 2 <= view.player.max_hp:
        for item in _healing(view, pack):
            pool.add(URGENT, f"Use the {item.name.lower()}", Tone.NEUTRAL, Risk.SAFE, ActionClass.USE_ITEM,
                     family=item.name.lower())


def _quests(pool: _Pool, view: PersistentState, pack: EraPack, scene: Scene, rng: random.Random) -> set[str]:
    """The next step of every active quest, in the words its stage's conditions accept; returns the places the quests
    send the player to (their travel is offered as keeping a promise, so the plain travel offer goes elsewhere)."""
    here = {p.id: p for p in scene.present}
    heading: set[str] = set()
    for qid, qstate in view.quests.items():
        giver = here.get(pack.quests[qid].giver) if qid in pack.quests else None
        if qstate.status == QuestStatus.OFFERED and giver is not None:  # a job on offer: taking it up is a reply
            first = giver.name.split()[0]
            for label in (f"Take the job {first} offers", f"Accept {first}'s job", f"Say yes to {first}'s job",
                          f"Take {first} up on the job", f"Tell {first} you will take the job"):
                pool.add(QUEST, label, Tone.NEUTRAL, Risk.SAFE, ActionClass.DIALOGUE_ONLY, family="job")
        if qstate.status != QuestStatus.ACTIVE or qid not in pack.quests:
            continue
        quest = pack.quests[qid]
        when = quest.stages[min(qstate.stage, len(quest.stages) - 1)].when
        dest = when.location or (npc_location(view, pack, when.npc) if when.npc in pack.npcs else None)
        if dest and dest != scene.location:
            path = route(pack, scene.location, dest)
            if path is not None:
                risk = max((link.risk for link in path), key=RISK_ORDER.__getitem__)
                name = pack.locations[dest].name
                spot = the_place(pack.locations[dest])
                took = f"({sum(link.minutes for link in path)} min)"  # what the way costs, as plain travel says it
                for label in (f"Head to {spot} to keep your word {took}", f"Make for {spot} to keep your promise "
                              f"{took}", f"Keep your word and head for {spot} {took}"):
                    pool.add(QUEST, label, Tone.PARAGON, risk, ActionClass.TRAVEL, family=name)
                heading.add(path[0].to)
            continue
        person = here.get(when.npc) if when.npc else None
        if when.npc and person is None:
            continue
        first = person.name.split()[0] if person else ""
        kinds = when.action_classes or ([ActionClass.INVESTIGATE.value] if dest and not when.npc else [])
        if when.item and person is not None and when.item in scene.held_items and when.item in pack.items:
            pool.add(QUEST, f"Give {first} the {pack.items[when.item].name.lower()}", Tone.PARAGON, Risk.SAFE,
                     ActionClass.GIVE)
        if when.item and when.item not in scene.held_items and when.item in pack.locations[scene.location].shop:
            item = pack.items[when.item]
            if item.value <= view.player.credits:
                pool.add(QUEST, f"Buy {item.name.lower()} ({money(item.value, pack)})", Tone.NEUTRAL, Risk.SAFE,
                         ActionClass.BUY)
        for kind in kinds:
            made = _quest_step(kind, first, quest.title, the_place(pack.locations[scene.location]),
                               _pronouns(pack, person.id) if person else None, rng)
            if made is not None:
                label, tone, risk, action = made
                pool.add(QUEST, label, tone, risk, action, family=quest.title)
        if person is not None and not kinds and not when.item:
            pool.add(QUEST, f"Tell {first} how {quest.title} stands", Tone.NEUTRAL, Risk.SAFE,
                     ActionClass.DIALOGUE_ONLY)
    return heading


def _pronouns(pack: EraPack, person_id: str) -> pronouns.Pronouns:
    """A person's pronouns as the pack gives them (they/them when it does not)."""
    return pronouns.of(pack.person(person_id))


def _agree(they: pronouns.Pronouns, verb: str) -> str:
    """``verb`` agreeing with ``they``: 'they know', 'she knows'."""
    return verb if they.plural else f"{verb}es" if verb.endswith(("s", "sh", "ch", "x")) else f"{verb}s"


def _quest_step(kind: str, first: str, title: str, place: str, they: pronouns.Pronouns | None = None,
                rng: random.Random | None = None) -> tuple[str, Tone, Risk, ActionClass] | None:
    """The suggestion for a quest stage that asks ``kind`` of ``first`` (or a search of ``place``), in one of its
    phrasings (chosen by ``rng``; the first without one). Every phrasing names the quest's ``title``, so an offer not
    taken drops a rank however it was phrased."""
    if first:
        they = they or pronouns.parse(None)
        phrasings = {
            "PERSUADE": ([f"Persuade {first} to help with {title}", f"Win {first} over for {title}",
                          f"Appeal to {first} for help with {title}"], Tone.PARAGON, Risk.RISKY, ActionClass.PERSUADE),
            "INTIMIDATE": ([f"Threaten {first} until {they.subject} {_agree(they, 'talk')} about {title}",
                            f"Intimidate {first} into talking about {title}"], Tone.RENEGADE, Risk.RISKY,
                           ActionClass.INTIMIDATE),
            "DECEIVE": ([f"Lie to {first} to get the truth about {title}", f"Bluff {first} about {title}",
                         f"Feed {first} a lie about {title}"], Tone.RENEGADE, Risk.RISKY, ActionClass.DECEIVE),
            "DIALOGUE_ONLY": ([f"Ask {first} about {title}"], Tone.NEUTRAL, Risk.SAFE, ActionClass.DIALOGUE_ONLY),
        }.get(kind)
        if phrasings is None:
            return None
        labels, tone, risk, action = phrasings
        return (rng.choice(labels) if rng is not None else labels[0]), tone, risk, action
    if kind == "INVESTIGATE":
        return (f"Search {place} for what {title} needs", Tone.INVESTIGATE, Risk.SAFE, ActionClass.INVESTIGATE)
    return None


def _person(pool: _Pool, view: PersistentState, pack: EraPack, person: PresentNpc, rng: random.Random) -> None:
    first = person.name.split()[0]
    they = _pronouns(pack, person.id)
    asks = [f"Ask {first} what the talk around here is", f"Ask {first} what people are saying lately",
            f"Ask {first} who really runs things here", f"Ask {first} what worries {they.object} most",
            f"Ask {first} what else is going on", f"Ask {first} what the trouble is around here"]
    pool.add(SCENE, rng.choice(asks), Tone.INVESTIGATE, Risk.SAFE, ActionClass.DIALOGUE_ONLY)
    kind = [f"Persuade {first} to trust you", f"Win over {first} with an honest word",
            f"Convince {first} you are on {they.possessive} side", f"Earn {first}'s trust", f"Level with {first}",
            f"Put {first} at ease"]
    pool.add(SCENE, rng.choice(kind), Tone.PARAGON, Risk.RISKY, ActionClass.PERSUADE)
    pool.add(FILLER, f"Offer to help {first}", Tone.PARAGON, Risk.SAFE, ActionClass.INTERACT)
    rough = [(f"Threaten {first} until {they.subject} {_agree(they, 'talk')}", ActionClass.INTIMIDATE),
             (f"Demand answers from {first}", ActionClass.INTIMIDATE),
             (f"Bluff {first} into telling you more", ActionClass.DECEIVE),
             (f"Lean on {first} until {they.subject} {_agree(they, 'talk')}", ActionClass.INTIMIDATE),
             (f"Shake {first} down for answers", ActionClass.INTIMIDATE),
             (f"Spin {first} a tale to draw {they.object} out", ActionClass.DECEIVE)]
    label, action = rng.choice(rough)
    pool.add(SCENE, label, Tone.RENEGADE, Risk.RISKY, action)
    pool.add(FILLER, f"Talk to {person.name}", Tone.NEUTRAL, Risk.SAFE, ActionClass.DIALOGUE_ONLY)


def _companions(pool: _Pool, view: PersistentState, pack: EraPack, scene: Scene) -> None:
    here = pack.locations[scene.location]
    for comp in scene.present:
        if not comp.companion:
            continue
        first = comp.name.split()[0]
        if comp.id in view.party:
            they = _pronouns(pack, comp.id)
            pool.add(FILLER, f"Ask {first} what {they.subject} {_agree(they, 'make')} of {the_place(here)}",
                     Tone.INVESTIGATE, Risk.SAFE,
                     ActionClass.DIALOGUE_ONLY)
        elif comp.id in view.known_npcs and not party.recruitment_blockers(view, pack, comp.id):
            pool.add(QUEST, f"Ask {comp.name} to join you", Tone.PARAGON, Risk.SAFE, ActionClass.RECRUIT)
        elif comp.id not in view.known_npcs and _mentioned(view, comp.name):  # never before the prose named them
            pool.add(SCENE, f"Talk to {comp.name}", Tone.NEUTRAL, Risk.SAFE, ActionClass.DIALOGUE_ONLY)


def _place(pool: _Pool, view: PersistentState, pack: EraPack, scene: Scene, rng: random.Random,
           heading: set[str] | frozenset[str] = frozenset()) -> None:
    """What the place offers: a search, a theft, travel along two of its links (not the first step of a way a quest
    already offers: two suggestions to the same door read as one), its shop."""
    here = pack.locations[scene.location]
    rough = here.type in ROUGH
    risk = Risk.RISKY if rough else Risk.SAFE
    spot = the_place(here)
    pool.add(SCENE, rng.choice([f"Search {spot} for anything useful", f"Look around {spot} carefully",
                                f"Study the comings and goings in {spot}"]),
             Tone.INVESTIGATE, risk, ActionClass.INVESTIGATE)
    steal = Risk.DANGEROUS if "lawless" in here.tags else Risk.RISKY
    pool.add(FILLER, rng.choice(["Steal what you can while no one is looking", "Steal into the back room while nobody "
                                 "watches", "Steal something small while backs are turned"]),
             Tone.RENEGADE, steal, ActionClass.SNEAK)
    links = [link for link in here.links if link.to not in heading] or list(here.links)
    rng.shuffle(links)
    for link in links[:2]:
        verb = rng.choice(["Travel to", "Walk to", "Make for"])
        pool.add(SCENE, f"{verb} {the_place(pack.locations[link.to])} ({link.minutes} min)", Tone.NEUTRAL,
                 link.risk, ActionClass.TRAVEL)
    for item_id in here.shop:
        item = pack.items[item_id]
        if item.value <= view.player.credits and item_id not in scene.held_items:
            pool.add(SCENE, f"Buy {item.name.lower()} ({money(item.value, pack)})", Tone.NEUTRAL, Risk.SAFE,
                     ActionClass.BUY)
    if here.shop:
        for item_id in sorted(scene.held_items):
            item = pack.items.get(item_id)
            if item is not None and item.value >= 4 and not item.heal:
                pool.add(FILLER, f"Sell your {item.name.lower()}", Tone.NEUTRAL, Risk.SAFE, ActionClass.SELL)
    pool.add(FILLER, "Wait and watch for a while", Tone.NEUTRAL, Risk.SAFE, ActionClass.REST)


# ------------------------------------------------------------------ helpers


def _mentioned(view: PersistentState, name: str, turns: int = 3) -> bool:
    """Whether the prose of the last few turns named ``name``."""
    return any(name in sentence for turn in view.recent[-turns:] for sentence in turn.sentences)


def _healing(view: PersistentState, pack: EraPack) -> list:
    return [pack.items[i] for i, q in sorted(view.player.inventory.items()) if q > 0 and i in pack.items
            and pack.items[i].heal]


def _quieter_exit(pack: EraPack, location: str) -> str | None:
    """A linked place that is calmer than here: settled rather than rough, safe rather than lawless."""
    for link in pack.locations[location].links:
        there = pack.locations[link.to]
        if link.risk == Risk.SAFE and there.type not in ROUGH and "lawless" not in there.tags:
            return link.to
    return None
