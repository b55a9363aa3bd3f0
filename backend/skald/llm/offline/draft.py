"""The offline narrator's prose as it is put together: a :class:`Draft` of sentences, each with its place in the
finished text, and the choosing that keeps them varied.

- Every choice steps through its options by turn number (the turn times the golden ratio, from a start seeded by
  the choice's key: :func:`spread`), so turns close together take options far apart, and it skips any sentence
  already told this turn or in the last 30 story turns (``state.told``, :meth:`Draft.fresh`): a long stay in one
  place tells fewer details rather than the same ones again.
- Optional sentences go in only while the prose stays within 8 sentences and :data:`MAX_WORDS` words; what must be
  told (the summary, every change to the player) always goes in.
- A sentence is never chosen if the validator would flag it: a name it does not know, or words that claim an
  outcome the rules did not give (``rules.prose``), or words the player's content limits keep out
  (``rules.setup.limit_pattern``).
"""

from __future__ import annotations

import re
import zlib
from functools import cached_property, lru_cache

from skald.core.pack import EraPack
from skald.core.state import GameState
from skald.rules import dice, prose
from skald.rules.prose import MAX_SENTENCES
from skald.rules.setup import limit_pattern
from skald.text import end, sentences, told_key

MAX_WORDS = 235  # a margin under rules.prose.MAX_WORDS, so nothing is ever cut
GOLDEN = (5**0.5 - 1) / 2

# Where each kind of sentence goes in the finished prose (the order a reader meets them in).
(LEAD, TIME, AGAIN, TONE, SUMMARY, OUTCOME, ARRIVAL, ARRIVED, INTRO, EVENTS, FIGHT, PEOPLE, SPEECH, COMPANY, AIR,
 MOOD) = range(16)

_CAPWORDS = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")  # what rules.prose.invented_names looks at
_INVENTED: dict[tuple[str, str, str, frozenset[str]], bool] = {}


def offset(seed: int, key: str) -> int:
    """A stable number for (seed, key): the same in every process (unlike ``hash``)."""
    return zlib.crc32(f"{seed}:{key}".encode())


def spread(turn: int, seed: int, key: str, n: int) -> int:
    """An index in 0..n-1 for this turn: turn x the golden ratio, from a start seeded by ``key``. Turns close
    together get indices far apart, however sparsely a choice is made (every turn, every third, now and then),
    so an option rarely comes back soon; the same (seed, turn, key) always gives the same index."""
    return int((turn * GOLDEN + offset(seed, key) / 2**32) % 1 * n)


def fill(template: str, fields: dict[str, object]) -> str:
    text = template.format(**fields)
    return text[:1].upper() + text[1:]


@lru_cache(maxsize=8192)
def _read(text: str) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """What the checks need of a text, worked out once: its sentences, its capitalised multi-word names, and whether
    it has any of the words the validator reads as a claim about the outcome."""
    claims = any(words.search(text) for words in (prose.DONE_WORDS, prose.SUCCESS_WORDS, prose.FAILURE_WORDS))
    return tuple(sentences(text)), tuple(_CAPWORDS.findall(text)), claims


def _opening(sentence: str) -> str:
    return " ".join(sentence.lower().split()[:2])


def variant_seed(seed: int, variant: int) -> int:
    """The seed the offline prose rotates its phrasing by: the campaign's, and for a turn's variant above 0 (a retry)
    one derived from both, so a retried turn reads differently but reproducibly."""
    return seed if variant == 0 else dice.rng_for(seed, "prose-variant", variant).getrandbits(31)


class Draft:
    """The sentences chosen so far, where each goes, and what may not be said again."""

    def __init__(self, state: GameState, pack: EraPack):
        self.state, self.pack = state, pack
        self.turn, self.seed = state.turn, variant_seed(state.campaign.seed, state.variant)
        self.recent = {s for t in state.recent for s in t.sentences}
        self.told_lately = {key for turn in state.told for key in turn}  # the last TOLD_TURNS turns' sentences
        self.recent_text = " ".join(s for t in state.recent for s in t.sentences)
        self.pieces: list[tuple[int, int, list[str]]] = []
        self.told: set[str] = set()  # every sentence chosen so far
        self.openings: set[str] = set()  # and their first two words
        self.count = 0  # how many
        self.words = 0
        self.result = state.mechanic_result
        self.fight_told = False  # a line about the fight going on was told this turn
        self.scene_names = frozenset({state.player.name} | {k.name for k in state.known_npcs.values()} | {
            p.name for p in state.present_npcs})
        self.avoid = limit_pattern(state.player.profile.limits)  # what the player asked the story to leave out

    @cached_property
    def known(self) -> frozenset[str]:
        """Every name the validator knows here: the pack's and the scene's."""
        return prose.pack_names(self.pack) | self.scene_names

    @cached_property
    def first_names(self) -> frozenset[str]:
        """The first word of every known name but an article."""
        return frozenset(n.split()[0] for n in self.known if n.split()[0] not in ("The", "A", "An"))

    def tail(self, text: str) -> str:
        """``text`` to follow a colon: "Word reaches you: the tithe reeve pays ...". Its first letter is lowered
        unless it opens a name ("Odile Pask paid ..."), so a title does not read as a name ("provost Wexcombe")."""
        text = end(text)
        first = text.split(" ", 1)[0].removesuffix("'s")
        acronym = len(first) > 1 and first.isupper()
        return text if first in self.first_names or acronym else text[:1].lower() + text[1:]

    def text(self) -> str:
        return " ".join(s for _, _, parts in sorted(self.pieces, key=lambda p: (p[0], p[1])) for s in parts)

    def fresh(self, text: str) -> bool:
        """Not told in the recent turns nor this one, names nobody unknown, and does not contradict the outcome."""
        parts, names, claims = _read(text)
        if not parts or any(p in self.recent or p in self.told or told_key(p) in self.told_lately for p in parts):
            return False
        if _opening(parts[0]) in self.openings:  # "You keep ... You keep ...": say it another way
            return False
        if names and self.invents(text):
            return False
        if self.avoid is not None and self.avoid.search(text):
            return False
        return not (claims and self.result is not None and prose.outcome_conflicts(text, self.result))

    def invents(self, text: str) -> bool:
        """Whether the validator would say ``text`` names someone or somewhere unknown (``rules.prose.invented_names``,
        asked once per capitalised name per pack and scene: it is the costly check)."""
        for match in _read(text)[1]:
            if self._invented(match, frozenset()) and self._invented(match, self.scene_names):
                return True  # unknown to the pack, and to the scene
        return False

    def _invented(self, match: str, scene_names: frozenset[str]) -> bool:
        key = (self.pack.id, self.pack.content_hash, match, scene_names)
        if key not in _INVENTED:
            if len(_INVENTED) > 8192:
                _INVENTED.clear()
            _INVENTED[key] = bool(prose.invented_names(match, prose.pack_names(self.pack) | scene_names))
        return _INVENTED[key]

    def fits(self, text: str, limit: int = MAX_SENTENCES) -> bool:
        return self.count + len(_read(text)[0]) <= limit and self.words + len(text.split()) <= MAX_WORDS

    def put(self, slot: int, text: str | None, *, must: bool = False, limit: int = MAX_SENTENCES) -> bool:
        """Add ``text`` at ``slot``. Optional text must be fresh and fit within ``limit`` sentences; ``must`` text
        (the summary, what changed) always goes in."""
        if not text:
            return False
        parts = list(_read(text)[0])
        if must:
            parts = [p for p in parts if p not in self.told]
        elif not self.fresh(text) or not self.fits(text, limit):
            return False
        if parts:
            self.pieces.append((slot, len(self.pieces), parts))
            self.told.update(parts)
            self.openings.update(_opening(p) for p in parts)
            self.count += len(parts)
            self.words += sum(len(p.split()) for p in parts)
        return bool(parts)

    def choose(self, key: str, options: list[str], **fields: object) -> str | None:
        """The option for this turn (:func:`spread`), or the next fresh one after it; None when none is fresh."""
        if not options:
            return None
        n = len(options)
        start = spread(self.turn, self.seed, key, n)
        for i in range(n):
            text = fill(options[(start + i) % n], fields)
            if self.fresh(text):
                return text
        return None

    def choose_any(self, key: str, options: list[str], **fields: object) -> str:
        """Like :meth:`choose`, but never empty (for what must be said): a stale option rather than none."""
        found = self.choose(key, options, **fields)
        return found if found is not None else fill(options[spread(self.turn, self.seed, key, len(options))], fields)

    def every(self, key: str, n: int) -> bool:
        """True on about one turn in ``n``, by a hash of (seed, key, turn): never on a fixed beat, and not in step
        with the option :meth:`choose` then takes."""
        return offset(self.seed, f"every/{key}/{self.turn}") % n == 0
