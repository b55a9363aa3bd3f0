"""The four suggested actions: one per tone (PARAGON, INVESTIGATE, RENEGADE, NEUTRAL), each with a risk tier.

Candidates come from the scene (people on stage, exits, shop, inventory, quests, combat). Every candidate
is linted against the scene, and its label is run back through the router, so a suggestion the player
picks plays as the action it promises. Missing tones are padded with safe generic actions.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from skald.packs.models import EraPack
from skald.rules import dice, intent, party
from skald.rules.scene import link_to
from skald.state import PersistentState, PresentNpc, Suggestion
from skald.vocab import ActionClass, QuestStatus, Risk, Tone

TONES = (Tone.PARAGON, Tone.INVESTIGATE, Tone.RENEGADE, Tone.NEUTRAL)

PADDING = {
    Tone.PARAGON: Suggestion(label="Offer a hand to whoever needs one", tone=Tone.PARAGON, risk=Risk.SAFE,
                             action_class="INTERACT"),
    Tone.INVESTIGATE: Suggestion(label="Look around carefully", tone=Tone.INVESTIGATE, risk=Risk.SAFE,
                                 action_class="INVESTIGATE"),
    Tone.RENEGADE: Suggestion(label="Steal something small while no one is looking", tone=Tone.RENEGADE,
                              risk=Risk.RISKY, action_class="SNEAK"),
    Tone.NEUTRAL: Suggestion(label="Wait and watch for a while", tone=Tone.NEUTRAL, risk=Risk.SAFE,
                             action_class="REST"),
}


@dataclass
class Scene:
    """What a suggestion may refer to."""

    location: str
    present: list[PresentNpc]
    in_combat: bool
    held_items: set[str]
    defeated: bool


def scene_of(view: PersistentState, pack: EraPack, present: list[PresentNpc]) -> Scene:
    """The scene the next turn starts in: ``view`` is the state after this turn (``GameState.after``)."""
    return Scene(
        location=view.location,
        present=present,
        in_combat=view.combat is not None,
        held_items={i for i, q in view.player.inventory.items() if q > 0},
        defeated=view.player.defeated,
    )


def lint(suggestion: Suggestion, scene: Scene, pack: EraPack) -> str | None:
    """Why ``suggestion`` does not fit the scene, or None when it does.

    Rules: no naming an NPC or companion who is not on stage; no travel during combat; no using or
    giving an item the player does not hold; no empty or overlong labels (max 80 characters).
    """
    label = suggestion.label.strip()
    if not label or len(label) > 80:
        return "label must be 1-80 characters"
    low = label.lower()
    present = {p.id for p in scene.present}
    people, items = _lint_patterns(pack)
    for person_id, name, pattern in people:
        if person_id not in present and name.lower() in low and pattern.search(low):
            return f"names {name}, who is not here"
    if scene.in_combat and suggestion.action_class == ActionClass.TRAVEL.value:
        return "travel in the middle of combat"
    if suggestion.action_class in (ActionClass.USE_ITEM.value, ActionClass.INTERACT.value):
        for item_id, name, pattern in items:
            if item_id not in scene.held_items and pattern.search(low):
                return f"uses {name}, which the player does not have"
    return None


Named = list[tuple[str, str, re.Pattern[str]]]  # (id, name, pattern)
_LINT: dict[tuple[str, str], tuple[Named, Named]] = {}


def _lint_patterns(pack: EraPack) -> tuple[Named, Named]:
    """(person id, name, pattern) for every NPC and companion and (item id, name, "use ... <item>" pattern) for every
    item, compiled once per pack version."""
    key = (pack.id, pack.content_hash)
    if key not in _LINT:
        people = [(p.id, p.name, re.compile(r"\b" + re.escape(p.name.lower()) + r"\b"))
                  for p in [*pack.npcs.values(), *pack.companions.values()]]
        items = [(i.id, i.name, re.compile(r"\b(use|give|drink|apply|hand over)\b.*\b" + re.escape(i.name.lower())
                                           + r"\b")) for i in pack.era.items]
        if len(_LINT) > 32:
            _LINT.clear()
        _LINT[key] = (people, items)
    return _LINT[key]


def _candidates(state: PersistentState, pack: EraPack, scene: Scene,
                rng: random.Random) -> dict[Tone, list[Suggestion]]:
    def s(label: str, tone: Tone, risk: Risk, action: ActionClass) -> Suggestion:
        return Suggestion(label=label, tone=tone, risk=risk, action_class=action.value)

    out: dict[Tone, list[Suggestion]] = {tone: [] for tone in TONES}
    if scene.defeated:
        for tone, label in zip(TONES, ("Let someone help you up", "Try to remember what happened",
                                       "Get up, jaw set, and swear to get even", "Get back on your feet"),
                               strict=True):
            out[tone].append(s(label, tone, Risk.SAFE, ActionClass.RECOVER))
        return out
    here = pack.locations[scene.location]
    people = [p for p in scene.present if not p.companion]
    strangers = [p for p in scene.present if p.companion and p.id not in state.party]
    healing = [pack.items[i] for i in sorted(scene.held_items) if i in pack.items and pack.items[i].heal]
    if scene.in_combat:
        enemy = state.combat.enemy_name
        out[Tone.PARAGON].append(s(f"Persuade {enemy} to back off", Tone.PARAGON, Risk.RISKY, ActionClass.PERSUADE))
        out[Tone.INVESTIGATE].append(s(f"Study how {enemy} moves", Tone.INVESTIGATE, Risk.RISKY,
                                       ActionClass.INVESTIGATE))
        out[Tone.RENEGADE].append(s(f"Attack {enemy}", Tone.RENEGADE, Risk.DANGEROUS, ActionClass.ATTACK))
        if healing:
            out[Tone.NEUTRAL].append(s(f"Use the {healing[0].name.lower()}", Tone.NEUTRAL, Risk.SAFE,
                                       ActionClass.USE_ITEM))
        out[Tone.NEUTRAL].append(s(f"Slip away from {enemy}", Tone.NEUTRAL, Risk.DANGEROUS, ActionClass.SNEAK))
        return out
    for comp in strangers:
        if not party.recruitment_blockers(state, pack, comp.id):  # only companions who would say yes
            out[Tone.PARAGON].append(s(f"Ask {comp.name} to join you", Tone.PARAGON, Risk.SAFE, ActionClass.RECRUIT))
    for person in people:
        first = person.name.split()[0]
        out[Tone.PARAGON].append(s(f"Persuade {first} to trust you", Tone.PARAGON, Risk.RISKY, ActionClass.PERSUADE))
        out[Tone.INVESTIGATE].append(s(f"Ask {first} what the talk around here is", Tone.INVESTIGATE, Risk.SAFE,
                                       ActionClass.DIALOGUE_ONLY))
        out[Tone.RENEGADE].append(s(f"Threaten {first} until they talk", Tone.RENEGADE, Risk.RISKY,
                                    ActionClass.INTIMIDATE))
        out[Tone.NEUTRAL].append(s(f"Talk to {person.name}", Tone.NEUTRAL, Risk.SAFE, ActionClass.DIALOGUE_ONLY))
    for qid, qstate in state.quests.items():
        if qstate.status == QuestStatus.ACTIVE:
            stage = pack.quests[qid].stages[min(qstate.stage, len(pack.quests[qid].stages) - 1)]
            dest = stage.when.location
            if dest and dest != scene.location and link_to(pack, scene.location, dest):
                name = pack.locations[dest].name
                out[Tone.PARAGON].insert(0, s(f"Head to {name} to keep your word", Tone.PARAGON,
                                              link_to(pack, scene.location, dest).risk, ActionClass.TRAVEL))
    rough = here.type in ("wilds", "ruin", "mine")
    out[Tone.INVESTIGATE].append(s(f"Search {here.name} for anything useful", Tone.INVESTIGATE,
                                   Risk.RISKY if rough else Risk.SAFE, ActionClass.INVESTIGATE))
    out[Tone.RENEGADE].append(s("Steal what you can while no one is looking", Tone.RENEGADE,
                                Risk.DANGEROUS if "lawless" in here.tags else Risk.RISKY, ActionClass.SNEAK))
    links = list(here.links)
    rng.shuffle(links)
    for link in links[:2]:
        out[Tone.NEUTRAL].append(s(f"Travel to {pack.locations[link.to].name} ({link.minutes} min)", Tone.NEUTRAL,
                                   link.risk, ActionClass.TRAVEL))
    for item_id in here.shop:
        item = pack.items[item_id]
        if item.value <= state.player.credits:
            out[Tone.NEUTRAL].append(s(f"Buy {item.name.lower()} ({item.value} credits)", Tone.NEUTRAL, Risk.SAFE,
                                       ActionClass.BUY))
    if state.player.hp < state.player.max_hp:
        out[Tone.NEUTRAL].insert(0, s("Rest a few hours", Tone.NEUTRAL, Risk.SAFE, ActionClass.REST))
    for tone in TONES:
        head, tail = out[tone][:1], out[tone][1:]
        rng.shuffle(tail)
        out[tone] = head + tail
    return out


def suggest(view: PersistentState, pack: EraPack, present: list[PresentNpc]) -> tuple[list[Suggestion], list[str]]:
    """Exactly four suggestions (PARAGON, INVESTIGATE, RENEGADE, NEUTRAL in that order) and lint notes for the scene
    the next turn starts in: ``view`` is the state after this turn (``GameState.after``, whose turn number is the turn
    just played) and ``present`` who is on stage. Choices among candidates come from an RNG keyed by (campaign seed,
    ``view.campaign.turn_number``)."""
    state = view
    scene = scene_of(view, pack, present)
    rng = dice.rng_for(state.campaign.seed, "suggest", view.campaign.turn_number)
    chosen: list[Suggestion] = []
    notes: list[str] = []
    for tone, options in _candidates(state, pack, scene, rng).items():
        pick = None
        for option in options:
            problem = lint(option, scene, pack) or _misroutes(option, state, pack)
            if problem is None:
                pick = option
                break
            notes.append(f"dropped suggestion {option.label!r}: {problem}")
        chosen.append(pick or PADDING[tone])
    return chosen, notes


def _misroutes(option: Suggestion, state: PersistentState, pack: EraPack) -> str | None:
    """The label, if the player picks it, must classify as the action and the tone it promises."""
    if option.action_class == ActionClass.RECOVER.value:
        return None
    routed = intent.classify(option.label, state, pack)
    if routed.action_class.value != option.action_class:
        return f"would play as {routed.action_class.value}, not {option.action_class}"
    if routed.tone != option.tone:
        return f"would play as {routed.tone.value}, not {option.tone.value}"
    return None


def pad(suggestions: list[Suggestion]) -> list[Suggestion]:
    """Fill missing tones with the generic padding and return exactly four, in tone order."""
    by_tone = {s.tone: s for s in suggestions}
    return [by_tone.get(tone, PADDING[tone]) for tone in TONES]
