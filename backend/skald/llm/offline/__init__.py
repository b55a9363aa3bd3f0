"""Deterministic stand-ins for the LLM roles, used whenever Ollama is off or fails: the narrator and the opening (or
resumed) scene. (The director's stand-in, the rules' scene brief, is ``rules.brief.offline_brief``.)

The offline narrator writes 5-8 second-person sentences (at most 250 words) from the turn: the mechanic summary
(always, verbatim), every change to the player (HP, money, items, in numbers, so the validator never has to add
them), the place (its description on arrival, its details, its tags at this hour, its hazards), the people on stage
(a description the first time they are met, then what they do and say, by their attitude to the player), how it
went (by outcome and kind of action; never a flourish of success for an impossible action), the player's tone, what
happened last turn, the party, and the arc. It is deterministic for (campaign seed, turn), and never repeats a
sentence of the turns ``state.recent`` keeps but the mandatory summary, nor one of the last 30 story turns while
others are left to tell (``state.told``).

The parts: ``scene`` reads the turn, ``draft`` puts the prose together and keeps it varied,
``people`` and ``parts`` write each part, ``phrases`` holds Skald's own lines; everything
pack-specific comes from the pack.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from skald.core import events as ev
from skald.core.memo import per_pack
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.state import GameState
from skald.llm.offline import phrases as ph
from skald.llm.offline.dialogue import dialogue
from skald.llm.offline.draft import EVENTS, MOOD, SUMMARY, Draft
from skald.llm.offline.parts import air, arrival, company, events, hour, lead, outcome
from skald.llm.offline.people import people
from skald.llm.offline.scene import Scene
from skald.rules import clock, episodes, prose
from skald.rules.brief import unconveyed
from skald.rules.prose import MAX_SENTENCES, MIN_SENTENCES
from skald.rules.scene import everyone_at
from skald.text import end, sentences, strings_in, the_place, with_article
from skald.words import TERMINAL, Words


def narrate(state: GameState, pack: EraPack, rng: random.Random) -> str:
    """Offline prose for this turn: 5-8 second-person sentences, at most 250 words, no sentence from the turns
    before (but the mandatory summary), the outcome and every change to the player told."""
    d = Draft(state, pack)
    scene = Scene.of(state, pack)
    if d.result is not None:  # what must be told: the outcome, then every change to the player
        d.put(SUMMARY, end(d.result.summary), must=True)
    events(d, scene)
    conveyed(d, state)  # what the Director's brief says must be told, if the events did not tell it
    episode_ending(d, state)  # told last (its slot), counted now: the optional sentences make room for it
    if scene.moved:  # the new place, then who is in it
        arrival(d, scene)
    if state.scene_lines:  # a multi-character scene: its people speak for themselves
        dialogue(d, state.scene_lines, scene_names(state, pack))
    elif scene.focus is not None:
        people(d, scene)
    news = next((e for e in scene.state.staged_events if isinstance(e, ev.News)), None)
    if news is not None:  # one piece of news a turn; /news keeps the rest
        d.put(EVENTS, d.choose("news", ph.NEWS, text=d.tail(news.text)), limit=MAX_SENTENCES - 2)
    if d.result is not None:
        outcome(d, scene)
    hour(d, scene)
    if not scene.moved:
        lead(d, scene)
    company(d, scene)
    size = MIN_SENTENCES + rng.randrange(2) + (0 if scene.fighting else 1)  # 5-7 sentences; a fight reads short
    air(d, scene, size)
    for window in (15, 0):  # a long stay has told every detail lately: those not told in the last 15 turns, then
        if d.count >= MIN_SENTENCES:  # those not told in the last few (``state.recent``)
            break
        d.told_lately = {key for turn in state.told[-window:] for key in turn} if window else set()
        air(d, scene, size)
    while d.count < MIN_SENTENCES or not prose.second_person(d.text()):  # the last resort: a bare place
        if not d.put(MOOD, d.choose("filler", ph.FILLER, **scene.here)):
            d.put(MOOD, f"You are in {scene.here['place']}; it is {scene.now}.", must=True)
            break
    return d.text()


def scene_names(state: GameState, pack: EraPack) -> dict[str, str]:
    """Id -> name of everyone a scene line may name: the people on stage and the scene's characters."""
    names = {p.id: p.name for p in state.present_npcs}
    for line in state.scene_lines:
        names.setdefault(line.speaker, line.name)
    return names


def conveyed(d: Draft, state: GameState) -> None:
    """Every fact the Director's brief says this turn must convey, told as the brief has it when the prose so far
    does not tell it already (``rules.brief.unconveyed``, the validator's own check)."""
    brief = state.director_instructions.brief if state.director_instructions else None
    for item in unconveyed(d.text(), brief) if brief is not None else []:
        d.put(EVENTS, item, must=True)


def episode_ending(d: Draft, state: GameState) -> None:
    """On the turn an episode ends, one closing line (Skald's own, by what ended it), last in the prose."""
    shown = state.episode_progress
    if shown is None or shown.ending is None:
        return
    d.put(MOOD, d.choose_any(f"episode/{shown.ending}", ph.EPISODE_ENDS[shown.ending]), must=True)


def finish(seen: str, state: GameState) -> str:
    """A narration that broke off after the player read ``seen`` (already cleaned), finished plainly: closed with
    "..." when it stops mid-sentence, then the outcome as the rules decided it (the check's summary, verbatim), unless
    it is told already. The validator adds any change to the player it leaves out, as it does for every narration."""
    text = seen.strip()
    if text[-1:] not in ".!?\"'\u201d":
        text += "..."
    summary = end(state.mechanic_result.summary) if state.mechanic_result else ""
    return f"{text} {summary}" if summary and summary not in text else text


# ------------------------------------------------------------------ the other offline roles


def left_off(told: list[str], scenery: frozenset[str] = frozenset()) -> str | None:
    """The sentence of the last turn's prose that says what happened: the first in the second person that none of
    the offline narrator's phrase tables wrote (those say how the player went about it, the light, the hour: "You
    keep the conversation going.") and that is not the pack's ``scenery`` (:func:`texture`), else the first such
    sentence of any kind, else the first in the second person; None when there is none. A model's prose has no table
    sentences, so its first "You ..." sentence is taken."""
    own = [s for s in told if s not in scenery and not _TABLED().fullmatch(s)]
    return next((s for s in own if s.startswith("You ")), None) or next(iter(own), None) or next(
        (s for s in told if s.startswith("You ")), None)


@per_pack
def texture(pack: EraPack) -> frozenset[str]:
    """Every sentence of the pack's places' descriptions and details, and of its people's descriptions: the scenery
    a turn's prose may be dressed in, never what happened in it."""
    texts = [*(p.description for p in pack.locations.values()), *(d for p in pack.locations.values()
                                                                  for d in p.details),
             *(n.description for n in pack.npcs.values()), *(c.description for c in pack.companions.values())]
    return frozenset(s for text in texts for s in sentences(text))


@lru_cache(maxsize=1)
def _TABLED() -> re.Pattern[str]:  # noqa: N802 - a constant, built on first use
    """Every sentence ``phrases`` can write, its ``{fields}`` matching any words within one sentence (a field never
    spans a sentence's end: "{Money} more in your purse." must not swallow the outcome before it, which the sentence
    splitter may join to it when the next sentence opens with a number)."""
    found = [text for name in dir(ph) if name.isupper() for text in strings_in(getattr(ph, name))]
    field = r"(?:(?![.!?] ).)+?"
    shapes = {re.sub(r"\\\{\w+\\\}", lambda _: field, re.escape(text.strip())) for text in found if text.strip()}
    return re.compile("|".join(f"(?:{shape})" for shape in sorted(shapes)))


def scene_text(state: PersistentState, pack: EraPack, *, resumed: bool, words: Words = TERMINAL) -> str:
    """The scene a campaign starts in, or stands at when it is resumed: where the player is, when, who is about,
    and (on resume) what happened last. Plain, second person, from the pack's own words, in up to three paragraphs
    (who and where you are; who is about; the episode); a move that is not story is named in the frontend's
    ``words``."""
    here = pack.locations[state.location]
    now = clock.clock_text(state.world.time_minutes, pack.era.calendar.day_names)
    people = everyone_at(state, pack, state.location)
    locals_ = [p for p in people if not p.companion]
    waiting = [p for p in people if p.companion and p.id not in state.party]
    party = [pack.companions[c].name for c in state.party if c in pack.companions]
    lines: list[str] = []
    if resumed:
        lines.append(f"You are back in {the_place(here)}, {clock.time_of_day(state.world.time_minutes)}, {now}.")
        if state.recent:
            last = state.recent[-1]
            lines.append(f"Where you left off: {left_off(last.sentences, texture(pack)) or end(last.input)}")
    else:
        bg = pack.backgrounds[state.player.background]
        lines.append(f"{pack.era.name}, {pack.era.era}. You are {state.player.name}, {with_article(bg.name)}: "
                     f"{end(bg.description)}")
        if state.player.profile.hook:  # what guided creation settled pulls you in
            lines.append(end(state.player.profile.hook))
        lines.append(f"{here.name}. {end(here.description)}")
        lines.append(f"It is {clock.time_of_day(state.world.time_minutes)}, {now}.")
    cast: list[str] = []
    if locals_:
        named = [f"{p.name}, {with_article(p.role)}" for p in locals_[:3]]
        cast.append(("Here: " if resumed else "About the place: ") + "; ".join(named) + ".")
    else:
        cast.append("Nobody you know is about.")
    for person in waiting[:1]:
        cast.append(f"{person.name} is here too, {with_article(person.role)} looking for work.")
    if party:
        cast.append(f"With you: {', '.join(party)}.")
    told = episodes.announce(state, pack, resumed=resumed, words=words)
    return "\n\n".join(" ".join(part) for part in (lines, cast, [told] if told else []) if part)  # a paragraph each
