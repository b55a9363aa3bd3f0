"""What the offline narrator reads about a turn: the :class:`Scene` (where, when, who, what the player did) and each
person on stage as a :class:`Person` (name, role, pronouns, the lines they say, from the pack and its voice
documents)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from skald.core.pack import EraPack, Location
from skald.core.records import PresentNpc
from skald.core.state import GameState
from skald.core.vocab import ActionClass
from skald.rules import clock
from skald.rules.attitude import attitude
from skald.rules.pronouns import parse as parse_pronouns
from skald.rules.voice_sheet import voice_docs
from skald.text import place_at_start, sentences, the_place, with_article


@dataclass(frozen=True)
class Person:
    """Someone on stage as the narrator writes them: the pack's words, and pronouns read from them."""

    id: str
    name: str
    role: str
    description: str
    their: str
    them: str
    lines: tuple[str, ...]
    procedural: bool = False
    companion: bool = False

    @property
    def first(self) -> str:
        return self.name.split()[0]

    def fields(self) -> dict[str, str]:
        return {"name": self.name, "Name": self.name, "first": self.first, "First": self.first, "role": self.role,
                "a_role": with_article(self.role), "their": self.their, "them": self.them}


def pronouns(*texts: str) -> tuple[str, str]:
    """("her", "her"), ("his", "him") or ("their", "them"), from the first text that tells (a description, then
    the person's own lines: "a man has to make the best of the dark")."""
    for sentence in sentences(texts[0]) if texts else []:  # "She ran a drill crew ...": the surest sign
        first = sentence.split(" ", 1)[0]
        if first in ("She", "He"):
            return ("her", "her") if first == "She" else ("his", "him")
    for text in texts:
        text = text.lower()
        she = len(re.findall(r"\b(?:she|her|hers|herself|woman|girl|mother|wife)\b", text))
        he = len(re.findall(r"\b(?:he|him|his|himself|man|boy|lad|father|husband)\b", text))
        if she != he:
            return ("her", "her") if she > he else ("his", "him")
    return "their", "them"


def voices(pack: EraPack) -> dict[str, tuple[str, ...]]:
    """Person id -> the sample lines of their voice documents (``rules.voice_sheet.voice_docs``)."""
    return {cid: lines for cid, (_, lines) in voice_docs(pack).items() if lines}


_PEOPLE: dict[tuple[str, str, str, str], Person] = {}


def person_of(p: PresentNpc, pack: EraPack) -> Person:
    """``p`` as the narrator writes them: their pack lines and voice-document lines, their pronouns (kept per pack
    version)."""
    key = (pack.id, pack.content_hash, p.id, p.description)
    if key not in _PEOPLE:
        if len(_PEOPLE) > 1024:
            _PEOPLE.clear()
        _PEOPLE[key] = _person(p, pack)
    return _PEOPLE[key]


def _person(p: PresentNpc, pack: EraPack) -> Person:
    npc = pack.npcs.get(p.id)
    lines = tuple(npc.lines) if npc else ()
    lines += tuple(line for line in voices(pack).get(p.id, ()) if line not in lines)
    told = getattr(pack.person(p.id), "pronouns", None)
    if told:  # the pack says
        said = parse_pronouns(told)
        their, them = said.possessive, said.object
    else:
        their, them = pronouns(p.description, " ".join(lines))
    return Person(p.id, p.name, p.role, p.description, their, them, lines, p.procedural, p.companion)


@dataclass
class Scene:
    """What the narrator reads about this turn, worked out once."""

    state: GameState
    pack: EraPack
    location: Location
    here: dict[str, str]  # place / Place
    people: dict[str, Person]
    target: Person | None
    focus: Person | None
    action: ActionClass | None
    tone: str
    moved: bool
    recovering: bool
    period: str
    now: str

    @classmethod
    def of(cls, state: GameState, pack: EraPack) -> Scene:
        router = state.router_output
        location = pack.locations[state.after.location]
        people = {p.id: person_of(p, pack) for p in state.present_npcs}
        target = people.get(router.target_npc or "") if router else None
        instructions = state.director_instructions
        focus = target or (people.get(instructions.focus_npc or "") if instructions else None) or next(
            (people[p.id] for p in state.present_npcs if not p.companion), None)
        when = state.after.world.time_minutes
        action = router.action_class if router else None
        return cls(state, pack, location, {"place": the_place(location),
                                                  "Place": place_at_start(location)}, people,
                   target, focus, action, router.tone.value if router else "NEUTRAL",
                   state.after.location != state.location, action == ActionClass.RECOVER, clock.time_of_day(when),
                   clock.clock_text(when, pack.era.calendar.day_names))

    def feeling(self, person: Person) -> str:
        """hostile, wary, neutral or friendly (``rules.attitude``), as the turn leaves them."""
        present = next((p for p in self.state.present_npcs if p.id == person.id), None)
        return attitude(present, self.state.after) if present else "neutral"

    @property
    def fighting(self) -> bool:
        return self.state.after.combat is not None
