"""What a model's text must hold to before a player reads it, beyond output hygiene (``llm.hygiene``): the people
and places it names are the pack's or the campaign's, the deeds it tells happened, and the player's content limits
hold. The narration has its own, richer checks (``nodes.validator``); this module judges the other texts a model
writes for the player: an episode's summary (``nodes.evaluator``) first of all.

A model asked to sum up an episode likes to end it grandly ("you slew the dragon, married the innkeeper and were
elected mayor"). Nothing in Skald can back such a claim unless the rules' own account of the episode says so: a
claim is grounded when its words appear in that account (the deterministic summary, the key moments, the events'
data), or, for a defeat, when the episode's events hold one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from skald.core import events as ev
from skald.core.events import BaseEvent
from skald.core.memo import per_pack
from skald.core.pack import EraPack
from skald.core.state import GameState
from skald.rules import setup

# Deeds a summary may claim only when the episode backs them: (what, pattern). A defeat is backed by a defeat
# event; the rest only by the rules' own account using the same words.
CLAIMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a killing or a defeat", re.compile(r"\b(?:slew|slain|slay|killed|kill|murdered|defeated|vanquished|struck "
                                         r"down|cut down|butchered|executed)\b", re.IGNORECASE)),
    ("a marriage", re.compile(r"\b(?:married|marry|wed|wedded|wedding|bride|groom|engaged to|betrothed)\b",
                              re.IGNORECASE)),
    ("a title or an office", re.compile(r"\b(?:elected|crowned|knighted|mayor|king|queen|throne|lord of|lady of|"
                                        r"ruler|governor)\b", re.IGNORECASE)),
    ("a monster", re.compile(r"\b(?:dragons?|demons?|monsters?|beasts?|giants?)\b", re.IGNORECASE)),
    ("a fortune", re.compile(r"\b(?:fortune|riches|treasure|wealthy|rich beyond|hoard)\b", re.IGNORECASE)),
    ("the player's death", re.compile(r"\byou (?:died|perished|were killed|lost your life)\b", re.IGNORECASE)),
)
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)(?<![\"\u201c]\s)\b[A-Z][a-z'\u2019-]{2,}(?:\s+[A-Z][a-z'\u2019-]{2,})*")
_COMMON = frozenset({"You", "Your", "The", "They", "Their", "She", "Her", "His", "Him", "It", "Its", "When", "Then",
                     "And", "But", "With", "After", "Before", "Once", "Now", "There", "This", "That", "What", "Nobody",
                     "Someone", "Everyone", "Episode", "Not", "For", "From", "Into", "Only", "Still", "Though"})


def grounding(state: GameState, summary: str, moments: Iterable[object]) -> str:
    """The rules' own account of an episode, lower case: the deterministic ``summary``, the key moments' memories
    and the events' data."""
    parts = [summary]
    for moment in moments:
        parts.append(str(getattr(moment, "memory", "")))
        parts += [str(e.model_dump()) for e in getattr(moment, "events", ())]
    parts += [str(e.model_dump()) for e in state.staged_events]
    return " ".join(parts).lower()


def known_names(state: GameState, pack: EraPack) -> set[str]:
    """Every word a name in the pack or the campaign may be made of: the pack's (:func:`pack_names`) and the
    player's."""
    return pack_names(pack) | name_words([state.player.name])


@per_pack
def pack_names(pack: EraPack) -> frozenset[str]:
    """Every word a name in the pack may be made of: its people, companions, places, factions, items, episodes, era,
    calendar and currency, and every capitalised word of its own prose (descriptions, rumors, quests, lore and voice
    documents), so that a moon or a saint the lore names is a name too."""
    texts = [*(n.name for n in pack.npcs.values()), *(c.name for c in pack.companions.values()),
             *(loc.name for loc in pack.locations.values()), *(f.name for f in pack.factions.values()),
             *(i.name for i in pack.items.values()), *(e.title for e in pack.episodes.values()),
             pack.era.name, pack.era.era, pack.era.currency.one, pack.era.currency.many,
             *pack.era.calendar.day_names]
    prose = [*(n.description for n in pack.npcs.values()), *(loc.description for loc in pack.locations.values()),
             *(" ".join(loc.details) for loc in pack.locations.values()), *(r.text for r in pack.rumors.values()),
             *(q.summary for q in pack.quests.values()), *(d.body for d in pack.docs.values()), pack.era.style]
    capitalised = {w.lower() for text in prose for w in re.findall(r"\b[A-Z][\w'\u2019-]+", text or "")}
    return frozenset(name_words(texts) | capitalised)


def unknown_name(text: str, known: set[str] | frozenset[str], grounded: str = "") -> str | None:
    """The first name in ``text`` (a capitalised word not at a sentence's start) that ``known`` and ``grounded``
    lack, or None."""
    for match in _NAME.finditer(text):
        words = [w for w in re.findall(r"[\w'\u2019-]+", match.group(0)) if w not in _COMMON]
        strange = [w for w in words if w.lower() not in known and w.lower() not in grounded]
        if strange:
            return " ".join(strange)
    return None


def problems(text: str, state: GameState, pack: EraPack, grounded: str, defeats: bool) -> list[str]:
    """Why ``text`` may not be shown (empty when it may).

    :param grounded: the rules' own account of what happened, lower case (:func:`grounding`).
    :param defeats: whether the events hold a defeat (an NPC beaten, a fight won, the player downed).
    """
    found = beyond_limits(text, state.player.profile.limits)
    for what, pattern in CLAIMS:
        for match in pattern.finditer(text):
            word = match.group(0).lower()
            backed = word in grounded or (what in ("a killing or a defeat", "the player's death") and defeats)
            if not backed:
                found.append(f"it claims {what} the episode never held ({match.group(0)!r})")
                break
    strange = unknown_name(text, known_names(state, pack), grounded)
    if strange:
        found.append(f"it names {strange}, who or what is not in the pack or the campaign")
    return found


def creation_problems(text: str, sheet: setup.CharacterSheet, pack: EraPack, said: Iterable[str] = ()) -> list[str]:
    """Why a model's summary of a character settled in guided creation may not be shown (empty when it may): it
    touches the content limits the player set on the sheet, or it names someone or something that neither the pack,
    the sheet nor the player's own words (``said``) hold. A new character's past is the player's to invent, so only
    names are held to what was said, not deeds."""
    found = beyond_limits(text, sheet.limits)
    background = pack.backgrounds.get(sheet.background)
    place = pack.locations.get(sheet.start_location or "")
    own = [sheet.name, sheet.concept, sheet.hook, sheet.tone, background.name if background else "",
           place.name if place else "", *said]
    strange = unknown_name(text, pack_names(pack) | name_words(own))
    if strange:
        found.append(f"it names {strange}, who or what is not in the pack, the sheet or what the player said")
    return found


def name_words(texts: Iterable[str | None]) -> set[str]:
    """Every word of ``texts``, lower case, as a name is made of them ('Mara Venn-Ash' -> mara, venn-ash)."""
    return {w.lower() for text in texts for w in re.findall(r"[\w'\u2019-]+", text or "")}


def beyond_limits(text: str, limits: list[str]) -> list[str]:
    """The finding (a list of one, or empty) that ``text`` touches what the player's content ``limits`` keep out."""
    avoid = setup.limit_pattern(limits)
    if avoid is None or not avoid.search(text):
        return []
    return [f"it touches what the player's limits keep out ({', '.join(limits)})"]


def defeats_in(events: Iterable[BaseEvent]) -> bool:
    """Whether ``events`` hold a defeat: an NPC beaten, a fight ended, the player downed."""
    return any(isinstance(e, ev.NpcDefeated | ev.Defeated | ev.CombatEnd) for e in events)
