"""The semantic fallback: a line the rules would refuse as unanswered, matched to the nearest labelled example.

The router (``nodes.router``) calls :func:`reread` only for a line ``interact.unanswered`` says would get the catch-all
refusal ("Nothing comes of that here"), with the router's normalised text. It returns the plain line the player meant,
one the deterministic parser already answers well ('eat something', 'look at barrel', 'leave', 'any news?'), or None;
the router classifies that line through exactly the same rules, and when they would refuse it too, the refusal stands.

How a line is matched:

- **examples**: ``semantic_examples.yaml`` (shipped in this package): each entry maps many phrasings, the way players
  type them ("wet my whistle", "have a gander at {object}"), to one plain ``line``; ``line: null`` entries are what is
  not an action (magic, wishes, talk to the machine, keyboard noise), so a line nearest one of those is never mapped.
  ``{object}`` stands for what the line is about: the words after the phrasing's last word before it ('take a peek at
  the lamp' -> 'look at lamp'; ``parser.object_of`` for a phrasing that starts with it); a phrasing with ``{object}``
  is skipped when the line names nothing there.
- **embeddings**: wordllama ``l2_supercat`` at 256 dimensions (``word_vectors.wordllama_model``: static token
  embeddings, average-pooled, loaded from the installed wheel, never from the network). Each phrasing's words (slips
  and contractions opened by ``parser.plain``, "i want to" / "let me" dropped, {object} embedded as 'it') are embedded
  once per process into a ``(phrasings, 256)`` float32 matrix of unit rows (1,432 rows for 55 lines); a line is one
  unit ``(256,)`` vector, and its cosine similarity to every phrasing is one matrix-vector product.
- **match**: the nearest phrasing wins when its similarity is at least :data:`THRESHOLD` and it passes two lexical
  checks a bag of tokens cannot make for itself: every word of the line that is not a filler ('the', 'mate', 'quick',
  'a bit') or the object is a word some phrasing of the winning line uses (in some form: 'runs', 'running' -> 'run');
  and the phrasing and the line agree on saying no ('no thanks' is not 'thanks'). When the nearest phrasing fails a
  check, the next nearest is tried, down to the threshold; a ``null`` phrasing on the way ends the search (None). A
  line of fillers only ('well', 'me') is mapped only when a phrasing says exactly that ('and then').
- **wishes** (``rules.wishes``: "i am the king now", "ignore previous instructions") are never reread: they are
  refused upstream, and :func:`reread` returns None for them even when called directly.

The threshold, 0.65, was chosen by measuring three sets of phrasings written for this (``tests/fixtures/
semantic_phrasings.yaml``: none in the examples file, none from ``data/corpora``), each of ordinary lines with the
line they mean and of lines that must never be mapped (nonsense, impossible requests, injections, out-of-world
requests); ``tests/test_semantic.py`` keeps these figures:

- set A, the calibration set (152 ordinary, 57 never): at 0.65, 116 mapped right (76%), 1 mapped wrong, 0 of 57
  mapped; at 0.60, 119 right, but 1 of 57 mapped by the matching alone ('check my email', a wish refused before it);
  at 0.70, 105 right;
- set B, checked after A, then used to tune the fillers and the check on saying no (122 ordinary, 53 never): at 0.65,
  97 right (80%), 3 wrong (near misses: 'alright then' -> hello), 0 of 53 mapped;
- set C, written last (85 ordinary, 38 never): at 0.65, 68 right (80%), 0 wrong, 0 of 38 mapped.

With the threshold at 0, the lexical checks alone let 4 of the 148 "never" lines through, the best of them at 0.603
('check my email' -> 'look at email', a wish besides); the right matches sit at p10 0.64-0.69, p50 0.85-0.87 in the
three sets. 0.65 keeps every "never" line out with a margin and loses the fewest right ones.

Cost (a 2-core machine): the first call imports numpy, loads wordllama (about 0.52 s) and embeds the examples (about
0.07 s), 0.65 s in all, once per process and only when a line first reaches the fallback: a game whose lines the rules
answer never pays it (nothing of it is imported at start-up). After that a call takes about 0.15 ms (p50; p99 about
0.25 ms).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

import yaml

from skald.rules.parser import object_of, plain, topic_of
from skald.rules.wishes import wish
from skald.word_vectors import wordllama_model

if TYPE_CHECKING:
    import numpy as np  # imported when a line first reaches the fallback, not at start-up

EXAMPLES = "semantic_examples.yaml"
OBJECT = "{object}"
FILLER = "it"  # what {object} is embedded as
THRESHOLD = 0.65  # cosine similarity; see the module docstring for the figures it was chosen by
EXACT = 0.999  # a line of fillers only is mapped when a phrasing says just that


@dataclass(frozen=True)
class Phrasing:
    """One labelled phrasing: the plain ``line`` it means (None: not an action), its words as embedded, and for a
    line that holds {object}, the phrasing's words before and after the object."""

    line: str | None
    text: str
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    @property
    def needs_object(self) -> bool:
        return self.line is not None and OBJECT in self.line


@dataclass(frozen=True)
class Match:
    """What :func:`nearest` found: the nearest phrasing that applies (None: none does), its cosine similarity, the
    object the line names in its frame, the first word of the line the phrasing's line never uses ('' when none),
    and the plain line it gives (None: not mapped)."""

    phrasing: Phrasing | None
    score: float = 0.0
    thing: str = ""
    unknown: str = ""
    line: str | None = None


@dataclass(frozen=True)
class Index:
    """The labelled phrasings, their unit vectors (``(phrasings, 256)`` float32, one row each) and the words each
    line's phrasings use (with their :func:`variants`)."""

    phrasings: tuple[Phrasing, ...]
    vectors: np.ndarray
    vocabulary: dict[str | None, frozenset[str]]


_PUNCT = re.compile(r"[?!.,;:*\"()\[\]]")
# Who is speaking and how they put it, before the deed itself: "i want to", "can i", "let me", "we should".
_SUBJECT = re.compile(r"^(?:(?:i|we)\s+(?:(?:will|would|shall|should|could|can|might|must|want to|would like to|"
                      r"wish to|am going to|are going to|try to|just|then|really)\s+)*|(?:let me|let us|lets|can i|"
                      r"could i|may i|should i|can we|could we|should we)\s+)")


def words_of(text: str, lead: bool = True) -> list[str]:
    """``text`` as the fallback reads it: lower case, slips and contractions opened (``parser.plain``), who says it
    and how ('i want to', 'can i', 'let me') dropped when ``lead``, punctuation gone."""
    said = plain(_PUNCT.sub(" ", text.lower()), through=False)
    if lead:
        said = _SUBJECT.sub("", said, count=1).strip() or said
    return _PUNCT.sub(" ", said).split()


def load_examples() -> list[Phrasing]:
    """The labelled phrasings of ``semantic_examples.yaml`` (shipped in the package), in file order.

    :raises ValueError: an entry without a line or phrasings, or a phrasing that does not hold {object} exactly once
        for a line that holds it.
    """
    raw = yaml.safe_load(resources.files("skald.rules").joinpath(EXAMPLES).read_text(encoding="utf-8")) or []
    phrasings = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict) or "line" not in entry or not entry.get("says"):
            raise ValueError(f"{EXAMPLES}: entry {i + 1} needs a line and says: {entry!r}")
        line = None if entry["line"] is None else str(entry["line"])
        for said in map(str, entry["says"]):
            if line is not None and OBJECT in line:
                if said.count(OBJECT) != 1:
                    raise ValueError(f"{EXAMPLES}: {said!r} must hold {OBJECT} once, as its line {line!r} does")
                before, _, after = said.partition(OBJECT)
                head, tail = words_of(before), words_of(after, lead=False)
                phrasings.append(Phrasing(line, " ".join([*head, FILLER, *tail]), tuple(head), tuple(tail)))
            else:
                phrasings.append(Phrasing(line, " ".join(words_of(said.replace(OBJECT, FILLER)))))
    return phrasings


_lock = threading.Lock()
_index: Index | None = None


def index() -> Index:
    """The labelled examples, embedded once per process (thread-safe): the first line that reaches the fallback pays
    for loading wordllama and embedding them; a game whose lines the rules answer never does."""
    global _index
    if _index is None:
        with _lock:
            if _index is None:
                phrasings = tuple(load_examples())
                vocabulary: dict[str | None, set[str]] = {}
                for p in phrasings:
                    vocabulary.setdefault(p.line, set()).update(v for w in p.text.split() for v in variants(w))
                _index = Index(phrasings, _embed([p.text for p in phrasings]),
                               {line: frozenset(words) for line, words in vocabulary.items()})
    return _index


def _embed(texts: list[str]) -> np.ndarray:
    """Unit wordllama vectors, ``(len(texts), 256)`` float32; a text of no tokens is a zero row (near nothing)."""
    import numpy as np

    with np.errstate(invalid="ignore", divide="ignore"):
        vectors = wordllama_model().embed(texts, norm=True)
    return np.nan_to_num(np.asarray(vectors, dtype=np.float32))


# Words that say nothing about which deed is meant: who, to whom, how much, how soon ("sure mate", "a quick look").
FILLERS = frozenset(
    "i a an the to of my me it is am are be been was were and for on in at with this that you your we us our do so "
    "just please mate pal love sir friend buddy then now really here there little bit quick quickly big good some all "
    "any very too real proper wee tiny few short sec second minute moment while again still going will would could "
    "should can may might must shall about around round by from through like as got gotta need want soon already yet "
    "right even ever maybe perhaps probably kinda sort badly hell heck bloody damn well oh ah um uh er erm hmm".split())
ARTICLES = frozenset({"the", "a", "an", "some", "that", "this", "those", "these", "my", "your", "his", "her", "their",
                      "our"})
PARTICLES = frozenset({"up", "down", "out", "off", "over", "into", "in", "on", "at", "through", "around", "round",
                       "about", "loose", "open", "away", "inside", "under", "behind"})
NOT_OBJECTS = frozenset({"room", "place", "area", "joint", "surroundings", "around", "about", "round", "everything",
                         "everyone", "anything", "something", "here", "there", "bit", "little", "while", "now"})
_PART_OF = re.compile(r"^(?:one|some|any|all|each|both|either|a couple|a few|a pair|a bunch|the rest) of (?:the )?")
NEGATIONS = frozenset({"no", "not", "nah", "nope", "naw", "nay", "never", "none", "nothing", "cannot", "nor"})


@lru_cache(maxsize=4096)
def variants(word: str) -> frozenset[str]:
    """``word`` and the forms it may stand for without its ending ('runs', 'running' -> 'run'; 'moves' -> 'move')."""
    found = {word}
    for end, put in (("'s", ""), ("s", ""), ("es", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"),
                     ("ied", "y"), ("ies", "y")):
        if word.endswith(end) and len(word) - len(end) >= 3:
            stem = word[: -len(end)] + put
            found.add(stem)
            if end in ("ing", "ed") and len(stem) >= 4 and stem[-1] == stem[-2]:
                found.add(stem[:-1])  # running -> run
    return frozenset(found)


def negated(words: list[str]) -> bool:
    """Whether ``words`` say no ('no thanks', 'not now', "haven't"): a bag of tokens cannot tell 'no thanks' from
    'thanks', so a phrasing applies only to a line that agrees with it on this."""
    return any(w in NEGATIONS or w.endswith("n't") for w in words)


def object_in(words: list[str], text: str, phrasing: Phrasing) -> tuple[str, str]:
    """What the line (``words``: ``words_of(text)``) is about, in ``phrasing``'s frame, and the words that name it
    there: the words after the phrasing's last word before the object ('take a peek at one of the lamps' -> 'lamps',
    'one of the lamps'), up to its first word after it ('give the lamp a once over' -> 'lamp'); ``parser.object_of``
    for a phrasing that starts with the object. ('', '') when the line names nothing there: the phrasing's word is
    not in it, or what follows is only 'the room', 'a bit'."""
    anchor = next((w for w in reversed(phrasing.before) if w not in ARTICLES), None)
    if anchor is None:
        span = object_of(text)
    elif anchor not in words:
        return "", ""
    else:
        rest = words[words.index(anchor) + 1:]
        while rest and rest[0] in PARTICLES:
            rest = rest[1:]
        cut = next((i for i, w in enumerate(rest) if i > 0 and w in phrasing.after), None)
        span = topic_of(" ".join(rest[:cut]))
    thing = _PART_OF.sub("", span)
    if not set(thing.split()) - NOT_OBJECTS - ARTICLES - set(phrasing.before) - set(phrasing.after):
        return "", ""
    return thing, span


def nearest(text: str) -> Match:
    """The phrasing nearest ``text`` by wordllama cosine similarity that applies to it (see the module docstring),
    and the plain line it gives when it reaches :data:`THRESHOLD` and its line knows every word of ``text``; the
    returned match is the nearest applicable phrasing when nothing is mapped (its ``unknown`` says why)."""
    import numpy as np

    said = words_of(text)
    if not said:
        return Match(None)
    idx = index()
    scores = idx.vectors @ _embed([" ".join(said)])[0]
    denies = negated(said)
    first: Match | None = None
    for i in np.argsort(-scores):
        phrasing, score = idx.phrasings[i], float(scores[i])
        if score < THRESHOLD and first is not None:
            break
        thing, span = object_in(said, text, phrasing) if phrasing.needs_object else ("", "")
        if (phrasing.needs_object and not thing) or negated(phrasing.text.split()) != denies:
            continue
        named = set(span.split())
        content = [w for w in said if w not in FILLERS and w not in named]
        known = idx.vocabulary[phrasing.line]
        unknown = next((w for w in content if not variants(w) & known), "")
        if not content and score < EXACT:
            unknown = said[0]  # only fillers ('well', 'me', 'a bit'): nothing to go on unless a phrasing says it
        first = first or Match(phrasing, score, thing, unknown)
        if score < THRESHOLD or phrasing.line is None:
            break
        if not unknown:
            return Match(phrasing, score, thing, unknown, phrasing.line.replace(OBJECT, thing))
    return first or Match(None)


def reread(text: str) -> str | None:
    """The plain line ``text`` (the router's normalised input) means, such as 'eat something' or 'look at barrel';
    None when no labelled example is near enough, or ``text`` is a wish (``rules.wishes``: refused, never reread)."""
    if not text.strip() or wish(text.lower()) is not None or wish(" ".join(words_of(text, lead=False))) is not None:
        return None
    return nearest(text).line
