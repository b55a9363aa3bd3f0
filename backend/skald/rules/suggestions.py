"""The four suggested actions: one per tone (PARAGON, INVESTIGATE, RENEGADE, NEUTRAL), each with a risk tier.

Candidates come from the scene, ranked (``rules.candidates``). Every candidate is linted against the scene, and its
label is run back through the router, so a suggestion the player picks plays as the action it promises. Missing
tones are padded with safe generic actions.
"""

from __future__ import annotations

import re

from skald.core.memo import per_pack
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState, Suggestion
from skald.core.records import PresentNpc
from skald.core.vocab import ActionClass, Risk, Tone
from skald.rules import candidates, dice, intent
from skald.rules.candidates import TONES, Candidate, Scene, ThisTurn

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


def scene_of(view: PersistentState, pack: EraPack, present: list[PresentNpc]) -> Scene:
    """The scene the next turn starts in: ``view`` is the state after this turn (``GameState.after``)."""
    return candidates.scene_of(view, present)


def lint(suggestion: Suggestion | Candidate, scene: Scene, pack: EraPack) -> str | None:
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
    if suggestion.action_class in (ActionClass.USE_ITEM.value, ActionClass.INTERACT.value, ActionClass.GIVE.value,
                                   ActionClass.SELL.value):
        for item_id, name, pattern in items:
            if item_id not in scene.held_items and pattern.search(low):
                return f"uses {name}, which the player does not have"
    return None


Named = list[tuple[str, str, re.Pattern[str]]]  # (id, name, pattern)


@per_pack
def _lint_patterns(pack: EraPack) -> tuple[Named, Named]:
    """(person id, name, pattern) for every NPC and companion and (item id, name, "use ... <item>" pattern) for every
    item, compiled once per pack version."""
    people = [(p.id, p.name, re.compile(r"\b" + re.escape(p.name.lower()) + r"\b"))
              for p in [*pack.npcs.values(), *pack.companions.values()]]
    items = [(i.id, i.name, re.compile(r"\b(use|give|drink|apply|hand over|sell)\b.*\b" + re.escape(i.name.lower())
                                       + r"\b")) for i in pack.era.items]
    return people, items


def suggest(view: PersistentState, pack: EraPack, present: list[PresentNpc],
            now: ThisTurn | None = None, variant: int = 0) -> tuple[list[Suggestion], list[str]]:
    """Exactly four suggestions (PARAGON, INVESTIGATE, RENEGADE, NEUTRAL in that order) and lint notes for the scene
    the next turn starts in: ``view`` is the state after this turn (``GameState.after``, whose turn number is the turn
    just played), ``present`` who is on stage and ``now`` what this turn's action did (for follow-ups; None at the
    start of a campaign or for a /command). Candidates come from ``rules.candidates``; choices among them from an
    RNG keyed by (campaign seed, ``view.campaign.turn_number``, the turn's ``variant``)."""
    scene = scene_of(view, pack, present)
    rng = dice.rng_for(view.campaign.seed, "suggest", dice.turn_key(view.campaign.turn_number, variant))
    chosen: list[Suggestion] = []
    notes: list[str] = []
    for tone, options in candidates.candidates(view, pack, scene, rng, now).items():
        pick = None
        for option in options:
            problem = lint(option, scene, pack) or _misroutes(option, view, pack)
            if problem is None:
                pick = option.suggestion()
                break
            notes.append(f"dropped suggestion {option.label!r}: {problem}")
        chosen.append(pick or PADDING[tone])
    return chosen, notes


def _misroutes(option: Suggestion | Candidate, state: PersistentState, pack: EraPack) -> str | None:
    """The label, if the player picks it, must classify as the action and the tone it promises."""
    if option.action_class == ActionClass.RECOVER.value:
        return None
    action, tone = intent.kind_of(option.label, state, pack)
    if action.value != option.action_class:
        return f"would play as {action.value}, not {option.action_class}"
    if tone != option.tone:
        return f"would play as {tone.value}, not {option.tone.value}"
    return None


def pad(suggestions: list[Suggestion]) -> list[Suggestion]:
    """Fill missing tones with the generic padding and return exactly four, in tone order."""
    by_tone = {s.tone: s for s in suggestions}
    return [by_tone.get(tone, PADDING[tone]) for tone in TONES]
