"""What the pack has to say on a topic a player asks about, when no narrower rule answers:

- :func:`said_line`: the line of a person here (their ``lines``) that shares the most telling words with the
  question, so it is answered in their own words ("who are the men by the window?" -> Odile: "The reeves drink by
  the window. I water their ale and charge them full.");
- :func:`record`: the faction, lore document, rumor or place the question is about, and its sentence that answers
  best ("who are the Rustwake?" -> the Rustwake Clan; "what happened to that abbey? people mention a bell" -> the
  Drowned Abbey's lore, the sentence about its bell).

A word tells as much as it is rare: each shared word stem weighs its inverse document frequency over the texts
searched, ``log(N / df)`` (the standard tf-idf weight, Sparck Jones 1972), so "window" or "channels" carries a line
and "old" or "drink" alone does not; the words a question is made of ("tell me", "what do you know") weigh nothing.
Pure and deterministic; no model, no embedding.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from skald.core.memo import per_pack
from skald.core.pack import EraPack
from skald.core.records import PresentNpc
from skald.core.state import GameState
from skald.rules import references
from skald.rules.prose import described_in
from skald.text import sentences

# Words a question is made of that say nothing of its topic ("tell me about", "what do you know of").
_ASKING = frozenset("""know tell think reckon say said heard hear ask asked mean means like want wanted need deal
story guy guys man men woman women lady lad gal fellow bloke chap folk lot lots much many way ways really actually
happen happened happening going go come came thing stuff around round here there yeah yes no ok okay well
out up down keep keeps kept still yet ever even never always every everyone everybody all other others own make made
take took give gave let put see saw seen look looking find found first last long good bad new old big small best
worst whole same sure right wrong maybe only also too much most less least time times day days night year years
getting doing done been being have has had idea ideas someone anyone think thought true name whats who anyway
anyhow run runs running talk talks talking speak speaks mention mentions mentioning worth join joining""".split())
# How much the words a line shares with a question must weigh before it answers (a word in one line of twenty
# weighs 3); it must share two words at least: "the freckled woman drinking slow by herself" is not answered by a
# line about the first drink.
LEAST = 3.0
# How much a question that names a record (half of one of its names or more) must weigh before it is about that
# record rather than the place or the room: "the Charter" in a pack that says "charter" everywhere still names it.
NAMED = 4.0
# How much a question must share with a rumor (two words or more) to be about it: 'auditors from the home office'.
RETOLD = 8.0
# A lore title is a phrase ("Lamps for the lost"): half its words named, the question must also share words of weight
# with what the document says ("that abbey out in the water ... a bell"), not only "lost" in "lost her boat".
TITLED = 15.0


@dataclass(frozen=True)
class Said:
    """A line of ``who``'s (as the pack writes it, without quotes) and how well it answers (summed idf weight)."""

    who: PresentNpc
    line: str
    weight: float


_QUOTED = re.compile(r"[\"\u201c]([^\"\u201d]+)[\"\u201d]")
_ACTED = re.compile(r"\*[^*]*\*")


def spoken(text: str) -> str:
    """What a line asks, without what it acts out: its quoted words when it has any ('*wanders over* "Room for one
    more?"' -> 'Room for one more?'), else the line without its *starred* actions."""
    quoted = _QUOTED.findall(text)
    return " ".join(quoted) if quoted else _ACTED.sub(" ", text)


def _stem(word: str) -> str:
    """:func:`references.stem_of`, and a doubled last consonant made single ('sitting' -> 'sitt' -> 'sit')."""
    stem = references.stem_of(word)
    return stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiousl" else stem


# Words ending in -ly that are things, not the manner of asking ("where exactly", "really moving").
_LY_THINGS = frozenset({"family", "ally", "assembly", "supply", "monopoly", "anomaly", "jelly", "belly", "holy",
                        "lily", "rally", "bully", "folly", "gully", "tally"})


def _stems(text: str, keep: frozenset[str] = frozenset()) -> frozenset[str]:
    """The stems of ``text``'s content words, without the words of asking (``_ASKING``) unless ``keep`` has them."""
    stems = ((w, _stem(w)) for w in references.words(text) if len(w) > 2 and (
        not w.endswith("ly") or w in _LY_THINGS))
    return frozenset(s for w, s in stems if s in keep or (w not in _ASKING and s not in _ASKING))


@per_pack
def _lines(pack: EraPack) -> tuple[dict[str, float], dict[str, tuple[tuple[str, frozenset[str]], ...]]]:
    """Each stem of the pack's people's lines -> ``log(N / df)`` over those lines; and each person's id -> their lines,
    each with its stems."""
    people = [*pack.npcs.values(), *pack.companions.values()]
    told = {p.id: tuple((line, _stems(line)) for line in getattr(p, "lines", []) or []) for p in people}
    df: dict[str, int] = {}
    for lines in told.values():
        for _, stems in lines:
            for stem in stems:
                df[stem] = df.get(stem, 0) + 1
    n = max(sum(len(lines) for lines in told.values()), 1)
    return {stem: math.log(n / count) for stem, count in df.items()}, told


def said_line(topic: str, speaker: PresentNpc | None, people: list[PresentNpc], state: GameState,
              pack: EraPack) -> Said | None:
    """The line that answers ``topic`` best: of ``speaker`` when someone was asked, else of anyone in ``people`` (the
    first of equals). It shares two stems or more with ``topic`` and weighs ``LEAST`` or more; a line told in the
    recent turns is not told again. None when no line answers."""
    wanted = _stems(topic)
    if not wanted:
        return None
    weights, told = _lines(pack)
    heard = " ".join(s for t in state.recent for s in t.sentences)
    best: Said | None = None
    order = [speaker] if speaker else list(people)  # the one asked answers for themselves
    for who in order:
        for line, stems in told.get(who.id, ()):
            shared = wanted & stems
            if len(shared) < 2:
                continue  # one word in common is a likeness, not an answer ("in charge" and "charge them full")
            weight = sum(weights.get(stem, 0.0) for stem in shared)
            if weight >= LEAST and (best is None or weight > best.weight) and not described_in(line, heard):
                best = Said(who, line.strip(), weight)
    return best


# ------------------------------------------------------------------ what the pack tells of a topic


@dataclass(frozen=True)
class Record:
    """Something of the pack a question can be about, split into what names it and the sentences that tell of it.

    ``kind`` is one of 'faction', 'lore', 'place', 'rumor'; ``ref`` the id (a lore doc's path); ``names`` its name
    and aliases (a lore document's title), each a way of naming it."""

    kind: str
    ref: str
    names: tuple[str, ...]
    sentences: tuple[str, ...]


@dataclass(frozen=True)
class Found:
    """The record a question is about, its sentence that answers best, the summed weight, and whether a word of the
    record's name was among the words shared, and half or more of one of its names (a question that names the
    Rustwake or 'the Charter', not one that shares 'water')."""

    record: Record
    sentence: str
    weight: float
    named: bool


@dataclass(frozen=True)
class _Index:
    records: tuple[Record, ...]
    weights: dict[str, float]  # stem -> log(N / df) over every name and sentence
    names: tuple[tuple[frozenset[str], ...], ...]  # per record: the stems of each of its names
    told: tuple[tuple[frozenset[str], ...], ...]  # per record: the stems of each of its sentences (a name's words kept:
    # "see" is asked with, but the See is a faction)


@per_pack
def _index(pack: EraPack) -> _Index:
    """Every record a question can be about (the people are :func:`references.person`'s), indexed."""
    records = [Record("faction", f.id, (f.name, *f.aliases), tuple(sentences(f.description)))
               for f in pack.factions.values()]
    records += [Record("lore", doc.path, (doc.meta.title,), tuple(
        s for s in sentences(" ".join(row for row in doc.body.splitlines() if row.strip() and not row.startswith("#")))
        if len(s) < 400)) for doc in pack.docs.values() if doc.meta.doc_type == "lore"]
    records += [Record("place", loc.id, (loc.name, *loc.aliases), tuple(sentences(loc.description)))
                for loc in pack.locations.values()]
    records += [Record("rumor", r.id, (), (r.text,)) for r in pack.rumors.values()]
    every = frozenset(_stem(w) for r in records for name in r.names for w in references.words(name))
    names = tuple(tuple(_stems(name, every) for name in r.names) for r in records)
    proper = frozenset().union(*(n for ns in names for n in ns))
    told = tuple(tuple(_stems(s, proper) for s in r.sentences) for r in records)
    texts = [_stems(name, proper) for r in records for name in r.names if name]
    texts += [stems for r, of_r in zip(records, told, strict=True)
              for sentence, stems in zip(r.sentences, of_r, strict=True) if sentence]
    df: dict[str, int] = {}
    for stems in texts:
        for stem in stems:
            df[stem] = df.get(stem, 0) + 1
    weights = {stem: math.log(len(texts) / count) for stem, count in df.items()}
    return _Index(tuple(records), weights, names, told)


def record(text: str, state: GameState, pack: EraPack, kinds: frozenset[str] | None = None) -> Found | None:
    """The record of the pack (of ``kinds``, default all) that ``text`` is most about: each shared stem weighs its
    idf, three times over when the question names the record (half the words of one of its names or more: "the
    Charter", "that abbey" for the Drowned Abbey; a lore title also needs weight, ``TITLED``). A record not named must
    share two words of a sentence. A rumor counts only when it is public or heard (nothing secret is told by
    asking). None when nothing weighs ``LEAST``."""
    index = _index(pack)
    wanted = _stems(spoken(text))  # "see" is asked with: "the See" is named by another word of its name, or not
    if not wanted:
        return None
    weights = index.weights
    told = {*state.world.known_rumors, *state.world.public_rumors}
    best: Found | None = None
    for rec, names, sentence_stems in zip(index.records, index.names, index.told, strict=True):
        if (kinds is not None and rec.kind not in kinds) or (rec.kind == "rumor" and rec.ref not in told):
            continue
        covered = any(2 * len(wanted & name) >= len(name) for name in names if name)
        named = wanted & frozenset().union(*names) if covered else frozenset()
        by_name = 3 * sum(weights.get(s, 0.0) for s in named)
        for sentence, stems in zip(rec.sentences, sentence_stems, strict=True):
            said = wanted & stems
            shared = said - named
            weight = by_name + sum(weights.get(s, 0.0) for s in shared)
            by_title = bool(named) and rec.kind == "lore"
            if by_title and weight < TITLED:  # "talk" names "How the Reach Talks" only with more of what it says
                shared, weight = said, sum(weights.get(s, 0.0) for s in said)
            if (not named or (by_title and weight < TITLED)) and len(shared) < 2:
                continue  # one word in common, and not a word of its name: a chance likeness
            if weight >= LEAST and (best is None or weight > best.weight):  # a rumor is named by retelling it
                about = (not by_title or weight >= TITLED) if named else \
                    rec.kind == "rumor" and len(shared) >= 2 and weight >= RETOLD
                best = Found(rec, sentence, weight, about)
    return best


def sentences_naming(stems: frozenset[str], state: GameState,
                     pack: EraPack) -> list[tuple[Record, str, frozenset[str]]]:
    """Every sentence of the pack's records (factions, lore, places, and the rumors that are public or heard) whose
    words hold all of ``stems`` (as :func:`_stems` makes them), with its record and its stems, in the index's
    order."""
    index = _index(pack)
    told = {*state.world.known_rumors, *state.world.public_rumors}
    return [(rec, sentence, found)
            for rec, sentence_stems in zip(index.records, index.told, strict=True)
            if rec.kind != "rumor" or rec.ref in told
            for sentence, found in zip(rec.sentences, sentence_stems, strict=True) if stems <= found]


def stems_of(text: str) -> frozenset[str]:
    """The stems recall weighs in ``text`` (stop words and quoted speech marks left out)."""
    return _stems(spoken(text))
