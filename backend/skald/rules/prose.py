"""Narration rules: post-processing of narrator prose and the validator's consistency checks.

Targets: 5-8 sentences, at most 250 words, second person. Post-processing strips option lists and
meta-game sections, then cuts overlong prose at a sentence boundary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from skald.core import events as ev
from skald.core.events import BaseEvent
from skald.core.memo import per_pack
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.records import MechanicResult, PresentNpc
from skald.core.vocab import Outcome
from skald.rules.money import money
from skald.text import counted, end, name_key, plural_of, sentences, told_key, with_article

MAX_WORDS = 250
MAX_SENTENCES = 8
MIN_SENTENCES = 5

_OPTION_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*\u2022]|\(?[a-d]\))\s+")
_META_HEAD = re.compile(r"^\s*(?:#+\s*|\*\*)?(?:(?:options|choices|suggested actions|what do you do|"
                        r"ooc|out of character|note|as an ai|stats|status|game state)\b|\[)", re.IGNORECASE)
_PROMPT = re.compile(r"^what (?:do|will|would) you do(?: now| next)?\?$", re.IGNORECASE)  # inline "What do you do?"
_CAPWORDS = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")

SUCCESS_WORDS = re.compile(r"\byou (?:succeed|manage|pull it off|win)\b", re.IGNORECASE)
DONE_WORDS = re.compile(r"\b(?:you (?:succeed|manage|pull it off|win|do it|get it done)|it works|it holds together|"
                        r"it goes better|everything lines up|just as you (?:hoped|planned)|without a hitch)\b",
                        re.IGNORECASE)
FAILURE_WORDS = re.compile(r"\byou (?:fail|failed|cannot|can't|miss|missed|are spotted|fall short)\b",
                           re.IGNORECASE)


SCENE_LINE_SENTENCES = 3  # room a scene line takes in the prose: its words and who says them
SCENE_LINE_WORDS = 45


def limits(scene_lines: int = 0) -> tuple[int, int]:
    """(sentences, words) the prose may run to: :data:`MAX_SENTENCES` and :data:`MAX_WORDS`, plus room for each line
    of a multi-character scene the narration must carry."""
    return MAX_SENTENCES + SCENE_LINE_SENTENCES * scene_lines, MAX_WORDS + SCENE_LINE_WORDS * scene_lines


def clean_narration(text: str, scene_lines: int = 0) -> tuple[str, list[str]]:
    """Strip option lists and meta-game sections, cap length at a sentence boundary (:func:`limits`, with room for
    ``scene_lines`` lines of a scene).

    :returns: (clean prose, warnings describing what was removed or cut).
    """
    max_sentences, max_words = limits(scene_lines)
    warnings: list[str] = []
    kept: list[str] = []
    for line in text.replace("\r", "").split("\n"):
        if _META_HEAD.match(line):
            warnings.append("narrator: removed a meta-game section")
            break  # everything after a meta heading is the section's body
        if _OPTION_LINE.match(line):
            warnings.append("narrator: removed an option list")
            continue
        kept.append(line.strip())
    prose = re.sub(r"\s+", " ", " ".join(k for k in kept if k)).strip()
    parts = sentences(prose)
    out: list[str] = []
    words = 0
    for sentence in parts:
        if _PROMPT.match(sentence):
            warnings.append("narrator: removed a meta-game section")
            continue
        n = len(sentence.split())
        if out and (words + n > max_words or len(out) >= max_sentences):
            warnings.append(f"narrator: cut prose to {len(out)} sentences / {words} words")
            break
        out.append(sentence)
        words += n
    if words > max_words:  # a single sentence longer than the whole budget: cut it at a word
        out = [" ".join(out[0].split()[:max_words]).rstrip(",;:") + "..."]
        warnings.append(f"narrator: cut one overlong sentence to {max_words} words")
    return " ".join(out), sorted(set(warnings), key=warnings.index)


_YOU = re.compile(r"\byou(?:r|rs|rself)?\b", re.IGNORECASE)


def second_person(text: str) -> bool:
    """True when the prose addresses the player as "you"."""
    return _YOU.search(text) is not None


def unknown_names(text: str, pack: EraPack, present: list[PresentNpc], extra_known: set[str]) -> list[str]:
    """Pack NPC or companion names mentioned in ``text`` who are not on stage."""
    on_stage = {p.name for p in present} | extra_known
    return [name for name in _pack_names(pack)
            if name not in on_stage and name in text and _name_pattern(name).search(text)]


def _pack_names(pack: EraPack) -> list[str]:
    return [p.name for p in [*pack.npcs.values(), *pack.companions.values()]]


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"\b" + re.escape(name) + r"\b")


@per_pack
def pack_names(pack: EraPack) -> frozenset[str]:
    """Every name the pack gives: people (also by the last word of their role and their surname, as the pack's own
    texts call them: "Provost Wexcombe" for Aldous Wexcombe, the salt provost), places, factions (and their
    aliases), items, hazards, quests, the era."""
    people = [*pack.npcs.values(), *pack.companions.values()]
    named = [*people, *pack.locations.values(), *pack.factions.values()]
    names = {n.name for n in named} | {alias for n in named for alias in n.aliases}
    names |= {f"{p.role.split()[-1].capitalize()} {p.name.split()[-1]}" for p in people
              if p.role and len(p.name.split()) > 1}
    names |= {i.name for i in pack.era.items} | {pack.era.name, pack.era.era}
    names |= {h.name for loc in pack.locations.values() for h in loc.hazards}
    return frozenset(names | {q.title for q in pack.quests.values()})


def invented_names(text: str, known: set[str] | frozenset[str]) -> list[str]:
    """Capitalised multi-word names in ``text`` that match no known entity name or alias (a hint, not proof).
    Case and a leading article do not count: "The See" matches the alias "the See"."""
    keys = {f" {name_key(name)} " for name in known if name_key(name)}
    found = []
    for match in _CAPWORDS.findall(text):
        key = f" {name_key(match)} "
        # "Salt See" of "The Salt See", "The Slag" of "The Slag & Lantern" (a shortening the pack did not declare)
        part_of = any(key in name if key.count(" ") > 2 else name.startswith(key) or name.startswith(
            f"{key.rstrip()}'s ") for name in keys)  # "The Hulk" of the hazard "The Hulk's Mastiffs"
        if not part_of and not any(name in key for name in keys):  # "Captain Oda Vell" holds "Oda Vell"
            found.append(match)
    return sorted(set(found))


def outcome_conflicts(text: str, result: MechanicResult) -> list[str]:
    """Contradictions between the prose and the check: success told as failure or the reverse, or an action that
    could not happen (``result.impossible``) told as done."""
    if result.impossible and DONE_WORDS.search(text):
        return [f"prose tells as done an action that could not happen ({result.summary})"]
    if result.outcome == Outcome.NO_ROLL:
        return []
    if result.outcome.succeeded and FAILURE_WORDS.search(text) and not SUCCESS_WORDS.search(text):
        return [f"prose reads as a failure but the check succeeded ({result.total} vs DC {result.dc})"]
    if not result.outcome.succeeded and SUCCESS_WORDS.search(text) and not FAILURE_WORDS.search(text):
        return [f"prose reads as a success but the check failed ({result.total} vs DC {result.dc})"]
    return []


@dataclass(frozen=True)
class Fact:
    """Something the turn changed that the prose must say: one of ``marks`` (whole words, any case) must appear in
    it, or ``line`` is added to it."""

    marks: tuple[str, ...]
    line: str


def outcome_facts(events: list[BaseEvent], hp: int, max_hp: int, pack: EraPack) -> list[Fact]:
    """The facts a player must read about this turn: HP lost or regained, money gained or spent, items gained or
    lost. ``hp``/``max_hp``: the player's HP before the turn, to count what a heal really restored."""
    facts: list[Fact] = []
    for e in events:
        match e:
            case ev.Damage(amount=amount) if amount > 0:
                hp -= amount
                facts.append(Fact((str(amount),), f"You lose {amount} HP."))
            case ev.Heal(amount=amount):
                gained = max(0, min(amount, max_hp - max(hp, 0)))
                hp += gained
                if gained:
                    facts.append(Fact((str(gained),), f"You get {gained} HP back."))
            case ev.CreditsChange(delta=delta) if delta:
                sum_ = money(abs(delta), pack)
                facts.append(Fact((str(abs(delta)),), f"You are {sum_} {'richer' if delta > 0 else 'poorer'}."))
            case ev.ItemGet(item=item, qty=qty) if item in pack.items:
                name = pack.items[item].name.lower()
                some = with_article(name) if qty == 1 else counted(qty, name, plural_of(name))
                facts.append(Fact(item_marks(name), f"You now carry {some}."))
            case ev.ItemLose(item=item) if item in pack.items:
                name = pack.items[item].name.lower()
                facts.append(Fact(item_marks(name), f"The {name} is no longer yours."))
    return facts


def item_marks(name: str) -> tuple[str, ...]:
    """What prose may call an item: its name or its plural ("smoked eels"), and its last word when that has four
    letters or more ("patch kit", "kit")."""
    head, plural = name.split()[-1], plural_of(name)
    named = (name, plural) if plural != name else (name,)
    return (*named, head) if len(head) >= 4 else named


def missing_facts(text: str, facts: list[Fact]) -> list[Fact]:
    """The facts ``text`` does not state."""
    return [f for f in facts if not any(_word_pattern(mark).search(text) for mark in f.marks)]


@lru_cache(maxsize=4096)
def _word_pattern(mark: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(mark) + r"(?!\w)", re.IGNORECASE)


DESCRIBED_TURNS = 15  # story turns within which a description is not told again


def described_lately(description: str, state: PersistentState) -> bool:
    """Whether a sentence of ``description`` (one of four words or more) was told in one of the turns ``state.recent``
    keeps, or in the last ``DESCRIBED_TURNS`` story turns (``state.told``, as a sentence or after a colon): a person's
    description is not told twice within 15 turns (the offline narrator and the conversation rules)."""
    if described_in(description, " ".join(s for t in state.recent for s in t.sentences)):
        return True
    told = {key for turn in state.told[-DESCRIBED_TURNS:] for key in turn}
    return any(told_key(end(part)) in told for part in sentences(description) if len(part.split()) >= 4)


def described_in(description: str, text: str) -> bool:
    """Whether ``text`` tells a sentence of ``description`` (one of four words or more), in any case."""
    told = text.lower()
    return any(part.lower() in told for part in sentences(description) if len(part.split()) >= 4)
