"""Examining one thing: "look at the innkeeper", "examine the barrel by the hearth", "read the tithe notices".

What is looked at is found in this order (``rules.references``): a person here (their role and description), an
item carried or sold here (its description), a thing of the place (the line of its description or ``details`` that
tells of it), the place itself ("look at the room"). Something that is not here is said to be not here, by the
name the player gave it. A look costs 3 minutes and never rolls: searching for what is hidden is ``look around`` /
``search`` (an INVESTIGATE check).
"""

from __future__ import annotations

import random
import re

from skald.core.pack import EraPack
from skald.core.records import RouterOutput
from skald.core.state import GameState
from skald.rules import references
from skald.rules.resolution import Resolution, make_result
from skald.rules.scene import everyone_at, held
from skald.text import end, the_place

LOOK_MINUTES = 3
_VAGUE = re.compile(r"^(?:whatever|what|something|thing|stuff|that thing|the thing)\b")
THE_PLACE_WORDS = frozenset({"room", "place", "area", "hall", "surroundings", "scene", "tavern", "inn", "bar", "here",
                             "street", "market", "building", "house", "shop"})


def resolve(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """A look at ``router.topic`` (see the module docstring)."""
    topic = router.topic or ""
    here = pack.locations[state.location]
    people = everyone_at(state, pack, state.location)
    who = next((p for p in people if p.id == router.target_npc), None) or references.person(
        topic, state, pack, people) or references.first_of(topic, state, pack, people)  # "x woman": the first here
    head = references.head_word(topic)
    line = references.detail(topic, state, pack)
    if who is not None and who.id != router.target_npc and head and not references.words(topic) & (
            references.SHE_WORDS | references.HE_WORDS | references.PEOPLE_WORDS) and head in references.words(
            line or "") and head not in references.words(f"{who.name} {who.role}"):  # "the old lamp over the
        who = None  # taps" is the lamp, not the old man
    if who is not None:
        told = end(who.description)
        return _seen(router, f"You look {who.name} over, the {who.role}: {told[:1].lower()}{told[1:]}")
    item = references.item(topic, state, pack)
    if item is not None and (held(state, item.id) or item.id in here.shop):
        where = "You turn over your" if held(state, item.id) else "You look over the"
        return _seen(router, f"{where} {item.name.lower()}: {end(item.description)}")
    if line is not None:
        if _VAGUE.match(topic):  # "whatever's scratched into the wood": the line says what it is
            return _seen(router, f"You take a closer look: {end(line)}")
        return _seen(router, f"You look at the {topic}: {end(line)}")
    if references.words(topic) <= THE_PLACE_WORDS:
        return _seen(router, f"You take in {the_place(here)}: {end(here.description)}")
    return Resolution(make_result(router, None, LOOK_MINUTES // 3 or 1, f"You see no {topic} in "
                                  f"{the_place(here)}.", impossible=True))


def _seen(router: RouterOutput, summary: str) -> Resolution:
    return Resolution(make_result(router, None, LOOK_MINUTES, summary))
