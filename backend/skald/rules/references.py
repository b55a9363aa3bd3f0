"""What the words of a line refer to: a person (by name, alias, role, description or pronoun), a thing in the place
(its description and ``details`` lines), an item, a place (by name, alias or kind) or a rumor.

Every finder scores the content words the topic shares with what it could mean and returns the best, or None when
nothing shares a word: a word of a name or alias counts three, of a role two, of a description or a detail one.
Pure and deterministic; the parser (``rules.parser``) supplies the topic.
"""

from __future__ import annotations

import re
from difflib import get_close_matches
from functools import lru_cache

from skald.core.memo import per_pack
from skald.core.pack import EraPack, Item, Rumor
from skald.core.records import PresentNpc
from skald.core.state import GameState
from skald.packs.loader import PackError, available_packs, load_pack
from skald.rules import parser, pronouns
from skald.rules.scene import everyone_at
from skald.text import sentences

STOP = frozenset("""a an the this that these those some any my your his her their our its of in on at by to for from
with about over under into onto near beside than behind around here there it them him she he they me you us we i is are
was be one ones thing things bit little kind sort something someone somebody anything anyone please again more
very just now then so and or but what who whom which where when how why do does did can could would should will
place room people folk whatever whatsit thingy thingamajig stuff off got get""".split())
PRONOUNS = frozenset({"him", "her", "them", "he", "she", "they", "that", "this", "it"})
PRONOUN_TALK = re.compile(r"\b(?:to|with|at|ask|greet|thank) (?:him|her|them)\b")
_WORD = re.compile(r"[a-z]+")


# Words players use for the same kind of person or thing; each word also stands for the others of its group.
KINDRED = [
    {"innkeeper", "bartender", "barkeeper", "barkeep", "barman", "barmaid", "landlady", "landlord", "publican",
     "tavernkeeper", "host", "hostess", "owner", "proprietor"},
    {"singer", "ballad", "minstrel", "bard", "musician", "songs", "song"},
    {"old", "elderly", "aged", "grey", "gray", "grizzled", "stooped", "weathered", "wrinkled", "wizened", "grandpa",
     "granddad", "grandad", "gramps", "pops", "oldtimer", "geezer", "timer"},
    {"hands", "hand", "knuckles", "fingers", "palms"},
    {"medicine", "medical", "remedy", "remedies", "cure", "salve", "physic", "painkiller", "healing", "heal", "heals"},
    {"man", "guy", "fellow", "bloke", "gent", "gentleman", "chap", "lad"},
    {"woman", "lady", "lass", "gal", "miss", "madam", "maam", "dame"},
    {"fisher", "fisherwoman", "fisherman", "eeler", "fisherfolk"},
    {"doctor", "medic", "healer", "physician", "surgeon", "nurse", "doc"},
    {"guard", "reeve", "watchman", "constable", "law", "deputy", "warden", "marshal"},
    {"priest", "cleric", "bishop", "prior", "chaplain", "monk", "nun", "almoner"},
    {"kid", "boy", "girl", "child", "youngster", "linkboy", "urchin"},
    {"drinker", "regular", "patron", "customer", "drunk"},
    {"prospector", "miner", "driller", "digger", "rigger"},
    {"seller", "vendor", "merchant", "trader", "peddler", "shopkeeper", "dealer"},
    {"stranger", "newcomer", "outsider", "foreigner"},
    {"tax", "taxes", "tithe", "tithes", "toll", "tolls", "levy", "dues"},
    {"carved", "scratched", "etched", "scored", "engraved", "gouged", "cut", "notched", "marked"},
    {"writing", "words", "text", "letters", "lettering", "sign", "notice", "message"},
    {"work", "job", "jobs", "employment", "hire", "hands", "shift", "shifts", "doing"},
    {"looking", "hunting", "seeking", "searching", "wants", "needs", "after", "waits", "waiting", "spoiling"},
    {"loud", "noisy", "rowdy", "boisterous", "cheerful", "laughing"},
    {"big", "large", "tall", "broad", "burly", "hulking", "huge", "strong", "brawny", "muscular", "beefy", "massive"},
    {"boat", "boats", "punt", "punts", "boatless", "skiff", "dinghy", "ferry"},
    {"mug", "mugs", "tankard", "tankards", "cup", "cups", "stein", "steins", "flagon", "flagons"},
    {"hook", "hooks", "peg", "pegs", "nail", "nails"},
    {"coat", "coats", "cloak", "cloaks", "jacket", "jackets", "mantle", "oilskin", "oilskins", "rebreather",
     "rebreathers", "gear"},
    {"floor", "floors", "floorboard", "floorboards", "boards", "planks", "ground", "tiles"},
    {"busted", "broken", "pinned", "pins", "bum", "gammy", "lame", "crippled", "bust", "dodgy"},
    {"scarred", "burn", "burns", "burned", "burnt", "scar", "scars"},
    {"honest", "honestly", "trustworthy", "trust", "straight", "reliable", "dependable", "truthful"},
    {"tough", "strong", "muscle", "fighter", "brawler", "bruiser"},
]
_KIN = {w: frozenset(group) for group in KINDRED for w in group}


@lru_cache(maxsize=8192)
def words(text: str) -> frozenset[str]:
    """The content words of ``text`` (lower case, stop words out; a plural's -s also matches its singular)."""
    found = set()
    for w in _WORD.findall(text.lower()):
        if w in STOP or len(w) < 2:
            continue
        found.add(w)
        if len(w) > 3 and w.endswith("s"):
            found.add(w[:-1])
    return frozenset(found)


@lru_cache(maxsize=8192)
def kindred(text: str) -> frozenset[str]:
    """:func:`words` and every word of the same kind (``KINDRED``: 'barkeeper' also reads as 'innkeeper')."""
    found = set(words(text))
    for w in list(found):
        found |= _KIN.get(w, frozenset())
        for tail in ("woman", "man"):  # "fisherwoman" is also a woman, "ferryman" a man
            if w.endswith(tail) and len(w) > len(tail) + 2:
                found |= {tail} | _KIN.get(tail, frozenset())
                break
    return frozenset(found)


@per_pack
def _spellings(pack: EraPack) -> dict[str, frozenset[str]]:
    """Every word of four letters or more the pack uses for its places, people, things and the details of its
    places, indexed by itself and by each of its one-letter deletions (so a word one slip away finds it)."""
    texts = [f"{loc.name} {' '.join(loc.aliases)} {loc.type} {loc.description} {' '.join(loc.details)}"
             for loc in pack.locations.values()]
    texts += [f"{i.name} {' '.join(i.tags)}" for i in pack.items.values()]
    texts += [f"{p.name} {p.role} {p.description}" for p in [*pack.npcs.values(), *pack.companions.values()]]
    texts += [f.name for f in pack.factions.values()]
    index: dict[str, set[str]] = {}
    for w in {w for text in texts for w in _WORD.findall(text.lower()) if len(w) >= 4 and w not in STOP}:
        for key in {w, *(w[:i] + w[i + 1:] for i in range(len(w)))}:
            index.setdefault(key, set()).add(w)
    return {k: frozenset(v) for k, v in index.items()}


@lru_cache(maxsize=1)
def _shipped_words() -> frozenset[str]:
    """Every word the shipped packs use: spelled right somewhere, so never respelled into another pack's word."""
    out: set[str] = set()
    for pack_id in available_packs():
        try:
            out |= {w for key, found in _spellings(load_pack(pack_id)).items() for w in found if key == w}
        except PackError:
            continue
    return frozenset(out)


def _one_slip(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one letter added, dropped, changed, or two side by side swapped."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and
                                  a[diff[1]] == b[diff[0]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def respelled(topic: str, pack: EraPack, least: int = 4) -> str:
    """``topic`` with each word of four letters or more that the pack does not use, but is one slip away from exactly
    one word it does use, spelled as the pack spells it ('look in the barel' -> 'look in the barrel', 'markit' ->
    'market'); the rest as it was. ``least``: the shortest word respelled."""
    index = _spellings(pack)
    known = _shipped_words()

    def fixed(match: re.Match[str]) -> str:
        w = match.group(0)
        if len(w) < least or w in STOP or w in index.get(w, ()) or w in known:
            return w
        near = {v for key in {w, *(w[:i] + w[i + 1:] for i in range(len(w)))} for v in index.get(key, ())
                if _one_slip(w, v)}
        longer = {v for v in near if len(v) > len(w)}  # a letter left out is the likeliest slip ('barel': barrel,
        near = longer if len(near) > 1 and len(longer) == 1 and len(w) >= 5 else near  # not bare)
        return next(iter(near)) if len(near) == 1 else w
    return _WORD.sub(fixed, topic.lower())


def _or_respelled(find):
    """``find(topic, state, pack, ...)``, and when it finds nothing, the same with the topic :func:`respelled`."""
    def found(topic: str, state: GameState, pack: EraPack, *args, **kwargs):
        hit = find(topic, state, pack, *args, **kwargs)
        if hit is None and topic:
            again = respelled(topic, pack)
            if again != topic.lower():
                hit = find(again, state, pack, *args, **kwargs)
        return hit
    found.__doc__, found.__name__, found.__wrapped__ = find.__doc__, find.__name__, find
    return found


def _best(candidates, score, least: int = 1):
    """The first candidate with the highest ``score`` (at least ``least``), or None."""
    best, top = None, least - 1
    for candidate in candidates:
        got = score(candidate)
        if got > top:
            best, top = candidate, got
    return best


KEEPER_WORDS = frozenset({"innkeeper", "keeper", "owner", "proprietor", "landlord", "landlady", "master", "mistress",
                          "boss", "foreman", "steward", "warden", "prior", "provost", "reeve", "chief", "head",
                          "bartender", "publican", "host", "hostess", "quartermaster", "clerk", "factor", "matron"})
# A person told by keeping the place: "whoever keeps the tab", "the one who runs this place", "the guy pouring".
_KEEPS = re.compile(r"^(?:(?:whoever|(?:the )?(?:\w+ )?(?:one|person|guy|man|woman|lady|fellow|bloke|chap|gal) "
                    r"(?:who|that)?|someone who|somebody who)\s*(?:is )?)?(?:(?:runs?|running|keeps?|keeping|owns?|"
                    r"owning|tends?|tending|minds?|minding|serves?|serving|pours?|pouring|manages?|managing) (?:the |"
                    r"this |that )?(?:place|bar|tab|inn|tavern|counter|shop|joint|pub|drinks|ale|beer|taps|books|"
                    r"ledger)|in charge|behind the (?:bar|counter)|(?:serving|pouring|tending|working)(?: (?:tonight"
                    r"|today|here|now))?\s*$)\b")


def keeper(people):
    """The first of ``people`` (present people or the pack's NPCs) whose role keeps a place (``KEEPER_WORDS``: the
    innkeeper, the bartender, the warden), a companion never; None when none does."""
    return next((p for p in people if not getattr(p, "companion", False) and KEEPER_WORDS & words(p.role)), None)


_BAD_LIMB = re.compile(r"\b(?:bad|gammy|dodgy|sore|hurt) (?=(?:shoulder|leg|knee|back|arm|hip|hand|eye|foot)\b)")


def person(topic: str, state: GameState, pack: EraPack, people: list[PresentNpc] | None = None,
           last: str | None = None) -> PresentNpc | None:
    """The person here ``topic`` names or describes ('the innkeeper', 'the old man', 'odile', 'whoever keeps the
    tab'); a bare pronoun ('her', 'that') is ``last`` (the person last spoken with) when they are here."""
    people = everyone_at(state, pack, state.location) if people is None else people
    if _KEEPS.match(topic.strip().lower()):
        kept_by = keeper(people)
        if kept_by is not None:
            return kept_by
    topic = _BAD_LIMB.sub("busted ", topic)  # "the big lady with the bad shoulder": a hurt shoulder
    wanted = words(topic)
    if not wanted and topic.strip() in PRONOUNS or wanted <= PRONOUNS and topic.strip():
        return next((p for p in people if p.id == last), None)
    aliases = {n.id: " ".join(n.aliases) for n in [*pack.npcs.values(), *pack.companions.values()]}
    kin = kindred(topic)

    asked = {stem_of(w) for w in kin}
    gender = "she" if kin & SHE_WORDS else "he" if kin & HE_WORDS else None
    looks = {p.id: {stem_of(w) for w in words(f"{p.role} {p.description}")} for p in people}
    marks = {stem_of(w) for w in wanted - SHE_WORDS - HE_WORDS - _ANYONE - set(_VERBS) - STOP if len(w) > 2} if \
        wanted & (SHE_WORDS | HE_WORDS | _SOMEONE) else set()  # the words of a description ("the freckled woman",
    # "the one with the pins") that could tell one apart: "freckled", "pins", not "say" or "woman"

    def score(p: PresentNpc) -> int:
        role = p.role.split()
        head = kindred(role[-1]) if role else frozenset()
        told = words(p.description)
        described = {stem_of(w) for w in told} - {stem_of(w) for w in kin & told}
        manner = _manner_stems(p.id, pack) - described - {stem_of(w) for w in kin & told | words(p.role)}
        others = set().union(*(seen for pid, seen in looks.items() if pid != p.id))
        said = 3 * len(wanted & words(f"{p.name} {aliases.get(p.id, '')}")) + 3 * len(kin & head) + \
            len(wanted & words(role[-1] if role else "")) + len(kin & (kindred(p.role) - head)) + \
            len(kin & told) + len(asked & described) + _manner_hits(asked & manner) + (
                _telling(marks, looks.get(p.id, set()), others) if gender in (None, pronoun_of(p, pack)) else 0)
        # a word of the look nobody else here shares ("the freckled woman") tells them apart by itself, among those
        # the words' man or woman fits
        return 2 * said + (1 if gender is not None and pronoun_of(p, pack) == gender else 0)  # "the woman": a tie
    return _best(people, score, least=4)  # one shared word of a description or an adjective of a role is not enough


def first_of(topic: str, state: GameState, pack: EraPack, people: list[PresentNpc] | None = None) -> PresentNpc | None:
    """The first person here ``topic`` names by a bare word for a man or a woman ("x woman", "look at the man"): the
    first of them not a companion, else the first of them; None for any other words."""
    wanted = words(topic)
    if not wanted or not wanted <= SHE_WORDS | HE_WORDS:
        return None
    people = everyone_at(state, pack, state.location) if people is None else people
    gender = "she" if wanted & SHE_WORDS else "he"
    return next((p for p in people if not p.companion and pronoun_of(p, pack) == gender), None) or next(
        (p for p in people if pronoun_of(p, pack) == gender), None)


def _telling(marks: set[str], look: set[str], others: set[str]) -> int:
    """How far the words of a description tell this person apart: each that only their look has (by itself, or where
    nobody's look has it, by a word of its kind: "the big woman" is the broad one, ``_kin_stems``) counts twice, and
    each that their look lacks counts against ("the woman with the satchel full of papers" is not the rigger with a
    shoulder full of pins); never below nothing."""
    told = [{mark} if mark in look | others else _kin_stems(mark) for mark in marks]  # the word itself, where
    return max(0, 3 * sum(1 for kin in told if kin & look and not kin & others) - len(marks))  # anyone's look has it


def most_shared(wanted: set[str], lines: list[str]) -> tuple[int, str | None]:
    """Of ``lines``, the first that shares the most word stems (:func:`stem_of` of its :func:`words`) with
    ``wanted``, and how many: (0, None) when none shares one."""
    best: tuple[int, str | None] = (0, None)
    for line in lines:
        shared = len(wanted & {stem_of(w) for w in words(line)})
        if shared > best[0]:
            best = (shared, line)
    return best


def _kin_stems(stem: str) -> frozenset[str]:
    """A word's stem and the stems of the words of its kind, for the words of a look (``KINDRED``'s groups of size,
    age, scars and hurts: "big" is also "broad"), the group found by its stem."""
    return _STEM_KIN.get(stem, frozenset({stem}))


def _manner_stems(person_id: str, pack: EraPack) -> frozenset[str]:
    """The stems of how a pack person is and talks (``personality``, ``speech``): 'the loud one laughing at her own
    jokes' is told by the way they are, not only by how they look. Empty for a person the pack lacks."""
    return _manners(pack).get(person_id, frozenset())


def _manner_hits(hits: set[str]) -> int:
    """Words of how a person is count from two on: one ('bad', 'nursing') is a coincidence of wording."""
    return len(hits) if len(hits) >= 2 else 0


@per_pack
def _manners(pack: EraPack) -> dict[str, frozenset[str]]:
    return {p.id: frozenset(stem_of(w) for w in words(f"{p.personality or ''} {p.speech or ''}"))
            for p in [*pack.npcs.values(), *pack.companions.values()]}


PEOPLE_WORDS = frozenset({"one", "person", "someone", "somebody", "fellow", "folk", "stranger", "kid", "child", "boy",
                          "girl", "people", "guy", "guys", "lad", "lads"})  # words that name a person
_SOMEONE = frozenset({"one", "person", "someone", "somebody", "fellow", "sort", "type", "kind", "bloke", "chap", "gal",
                      "folk", "character", "figure", "stranger", "local", "patron", "drinker", "customer"})
_ANYONE = frozenset({"person", "one", "people", "someone", "somebody", "folk", "sort", "type", "kind", "fellow", "with",
                     "all", "here", "there", "over", "sitting", "standing", "says", "said", "tells", "told", "asks",
                     "asked", "talks", "looks", "about", "back", "just", "really", "then", "them", "they", "that",
                     "this", "what", "where", "when", "whose", "which", "herself", "himself", "themselves", "own",
                     "alone", "lone", "solo"})  # "drinking by herself": said of anyone sitting apart
SHE_WORDS = frozenset({"woman", "lady", "girl", "lass", "gal", "she", "her", "madam", "wife", "mother", "granny",
                       "missus", "sister", "daughter", "aunt", "widow", "maid", "barmaid", "landlady", "hostess"})
HE_WORDS = frozenset({"man", "guy", "fellow", "fella", "bloke", "chap", "lad", "boy", "he", "him", "sir", "husband",
                      "dude",
                      "father", "grandpa", "brother", "son", "uncle", "gent", "gentleman", "barman", "landlord"})


def stem_of(word: str) -> str:
    """A crude stem, so that a description's 'freckled' is the player's 'freckles' ('freckl')."""
    for ending in ("ing", "ed", "es", "s", "y"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            return word[:-len(ending)].rstrip("e") if ending != "y" else word[:-1]
    return word.rstrip("e") if len(word) > 4 else word


_STEM_KIN: dict[str, frozenset[str]] = {}  # of the words of a look: its size, age, scars and hurts
for _group in (g for g in KINDRED if g & {"big", "old", "scarred", "busted"}):
    for _word in _group:
        _STEM_KIN[stem_of(_word)] = _STEM_KIN.get(stem_of(_word), frozenset()) | {stem_of(k) for k in _group}


@per_pack
def _proper(pack: EraPack) -> dict[str, str]:
    """Each word of the pack's names of people, places and factions that is written with a capital, lower case ->
    as written ('juno' -> 'Juno', 'kettle' -> 'Kettle')."""
    names = [p.name for p in [*pack.npcs.values(), *pack.companions.values()]]
    names += [loc.name for loc in pack.locations.values()] + [f.name for f in pack.factions.values()]
    return {w.lower(): w for name in names for w in re.findall(r"[A-Za-z]+", name) if w[:1].isupper() and len(w) > 2
            and w.lower() not in STOP}


def proper_names(text: str, pack: EraPack) -> str:
    """``text`` (lower case, as the player typed it) with the pack's proper names capitalised ('persuade juno' ->
    'persuade Juno')."""
    proper = _proper(pack)
    return re.sub(r"[a-z]+", lambda m: proper.get(m.group(0), m.group(0)), text)


def first_by_pronoun(text: str, people: list[PresentNpc], pack: EraPack) -> PresentNpc | None:
    """The first person of ``people`` (not a companion) whom the pronoun ``text`` uses fits: "unless she hands over the
    takings" said before anyone was spoken with is the first woman here; None when ``text`` has no 'she' or 'he'."""
    gender = pronoun_in(text)
    if gender is None:
        return None
    return next((p for p in people if not p.companion and pronoun_of(p, pack) == gender), None)


def pronoun_in(text: str) -> str | None:
    """'she' or 'he', by the first such pronoun ``text`` uses ('unless she hands over the takings': 'she'); None."""
    said = re.search(r"\b(?:(?P<she>she|her|hers|herself)|(?P<he>he|him|his|himself))\b", text)
    return None if said is None else "she" if said.group("she") else "he"


def pronoun_of(person: PresentNpc, pack: EraPack) -> str | None:
    """'she', 'he' or None (they, one's own, or none given) from the pack's pronouns for ``person``."""
    said = pronouns.of(pack.person(person.id)).subject
    return said if said in ("she", "he") else None


GROUPS = frozenset({"everyone", "everybody", "anyone", "anybody", "crowd", "room", "regulars", "locals", "people",
                    "folk", "folks", "lot", "all", "guys", "gang", "bar", "place", "way", "myself", "yourself",
                    "back", "free", "better", "price", "deal", "drink", "time", "fight", "word"})
_CUT = re.compile(r"\s*,.*$|\s+(?:to|into|about|and|with|for|that|so|if|or|because|until|while|at|in|on|from)\b.*$")
_VERBS = ("tell", "say", "make", "get", "go", "do", "give", "take", "let", "have", "be", "see", "keep", "stop", "leave",
          "pay", "come", "talk", "show", "help", "find", "bring", "put", "send", "call", "buy", "sell", "ask")
# "threaten to tell his mum": a deed, not a name
_ARTICLE = re.compile(r"^(?:the|a|an|that|this|some|one|old|young)\s")
_LEAD = re.compile(r"^(?:(?:with|to|at|on|for|up|over)\s+)+")


def missing_person(aimed_at: str, state: GameState, pack: EraPack) -> str | None:
    """Who a line aimed at a person asks for, as the answer names them, when nobody here answers to it: 'kick rhea'
    -> 'Rhea', 'stab the singer' -> 'singer'. None when someone here answers to it, when it names a group, a
    pronoun or a thing rather than one person, or when it is longer than three words (then it is no name).

    :param aimed_at: the words the line aims at (``parser.object_of`` or ``parser.addressee``)."""
    who = _LEAD.sub("", _CUT.sub("", aimed_at.strip().lower().rstrip("?!.,")).strip())
    who = re.sub(r"'s\b.*$", "", who).strip() or who  # "compliment saffy's voice": Saffy
    named = words(who)
    longest = 5 if _ARTICLE.match(who) else 3  # "the eel fisher lady": a description, not a name
    if not named or len(who.split()) > longest or named & (GROUPS | PRONOUNS) or who.split()[0] in (
            "my", "your", "his", "her", "their", "our", "you", "me", "us", "i", "we", "it", "what", "how", "why",
            "whatcha", "wotcha", "whaddya", "whats", "wheres", "whos", "hows", "who", "where", "when", "which",
            "first", "next", "then", "now", "later", "after", "whoever", "anyone", "anybody", "someone", "somebody",
            *_VERBS):
        return None
    if person(who, state, pack) is not None:
        return None
    telling = named - GENERIC_PEOPLE  # "eel fisher" of "the eel fisher lady": the words that single someone out
    if any(kindred(" ".join(sorted(telling or named))) & kindred(f"{p.role} {p.description}")
           for p in everyone_at(state, pack, state.location)):
        return None  # "the woman" where two women are here: somebody here, just not one the words single out
    if any(named & words(f"{i.name} {' '.join(i.tags)}") for i in pack.items.values()) or named <= FURNITURE:
        return None  # "haggle over the lamp", "get up on a chair and rally the room": a thing
    common = _ARTICLE.match(who) or named & (set(_KIN) | _role_words(pack))
    return re.sub(r"^(?:the|a|an|some|a few|a couple of|any)\s+", "", who) if common else " ".join(
        w[:1].upper() + w[1:] for w in who.split())  # a role stays
    # lower case, a name not


# Things in any room that are never a person: "stand on a table and rally the room".
FURNITURE = frozenset({"chair", "chairs", "table", "tables", "stool", "stools", "bench", "benches", "bar", "counter",
                       "door", "window", "wall", "walls", "floor", "fire", "hearth", "barrel", "barrels", "crate",
                       "crates", "box", "stage", "roof", "ceiling", "bed", "cart", "mug", "cup", "bottle", "glass",
                       "tankard", "shelf", "shelves", "stairs", "ladder", "corner", "booth", "step", "steps"})


# Words for a person that single nobody out by themselves ("the eel fisher lady": the lady is whoever fishes eels).
GENERIC_PEOPLE = frozenset({"lady", "woman", "man", "guy", "gal", "girl", "boy", "fellow", "fella", "bloke", "chap",
                             "dude", "person", "one", "gentleman", "lad", "lass", "kid", "old", "young"})


@per_pack
def _role_words(pack: EraPack) -> frozenset[str]:
    """Every word of every role in the pack ('bartender', 'eeler'): words that are never a name."""
    return frozenset(w for p in [*pack.npcs.values(), *pack.companions.values()] for w in words(p.role))


@_or_respelled
def detail(topic: str, state: GameState, pack: EraPack) -> str | None:
    """The sentence of the place's description or details that tells of ``topic`` ('barrel by the hearth' -> 'A
    pickling barrel stands by the hearth, ...'), or None."""
    here = pack.locations[state.location]
    wanted = words(topic)
    if not wanted:
        return None
    head = head_word(topic) if "," not in topic and len(topic.split()) <= 6 else None  # a phrase, not a sentence
    head = None if head in VAGUE_HEADS else head  # "that thing hanging on the wall by the door": where it is says

    kin = kindred(topic)
    stems = {stem_of(w) for w in wanted - STOP}
    crowd = bool(wanted & parser.CROWD_WORDS)

    def score(line: str) -> int:  # the thing itself, not only where it is ("the screen over the door")
        said = words(line)
        held = head is None or head in said or kindred(head) & said or get_close_matches(head, said, 1, 0.8) or (
            len(head) > 3 and any(w.startswith(head) for w in said))  # "the floor": the floorboards
        if not held:
            return 0
        near = len(stems & {stem_of(w) for w in said - wanted})  # "playing" for the line's "play"
        return len(wanted & said) + len((kin - wanted) & said) + near + (2 if crowd and PEOPLE_LINE.search(line) else 0)
    return _best([*here.details, *sentences(here.description)], score)


# A line of a place that tells of people in it ("Eelers play a slow game of stones at a corner table", "Two
# drillers bend over a dice game"): its extras, who are not the pack's people but can be asked after and watched.
PEOPLE_LINE = re.compile(r"\b(?:\w+ers|men|women|people|folk|regulars|reeves|deputies|guards|lads|kids|children|crew|"
                         r"crews|hands|couple|pair|two|three)\b(?! (?:of|the) (?:the )?(?:bar|"
                         r"wall|table))", re.IGNORECASE)


VAGUE_HEADS = frozenset({"thing", "things", "thingy", "stuff", "object", "one", "something", "whatever", "bit",
                         "folk"}) | parser.CROWD_WORDS
_WHERE = re.compile(r"\s+(?:over|on|onto|into|upon|by|near|at|in|inside|under|behind|beside|next to|with|of|from|"
                    r"above|below|against|across|along|beneath|around)\s+")


def group(topic: str, state: GameState, pack: EraPack) -> str | None:
    """The detail of this place that tells of the people ``topic`` names together by a plural ("the drillers", "those
    eelers": "Two drillers bend over a dice game..."), or None when no detail has that word."""
    head = topic.split()[-1] if topic.split() else ""
    if len(head) < 4 or not head.endswith("s") or head in _ANY_THING:
        return None
    here = pack.locations[state.location]
    return next((d for d in [*here.details, *sentences(here.description)]
                 if re.search(rf"\b{re.escape(head)}\b", d.lower())), None)


def head_word(topic: str) -> str | None:
    """The thing a phrase names before it says where ('flickering screen over the door' -> 'screen', 'barrel by the
    hearth' -> 'barrel'), as :func:`words` has it; None when it has no content word there."""
    placed = re.sub(r"\s+(?:hanging|hung|sitting|lying|standing|stacked|nailed|pinned|propped|leaning|resting|stuck|"
                    r"playing|drinking|talking|chatting|arguing|laughing|gambling|eating|singing|whispering|working)"
                    r"\b.*$", "", topic.lower())  # "thing hanging on the wall": the thing
    before = _WHERE.split(f" {placed} ", maxsplit=1)[0]
    found = [w for w in _WORD.findall(before) if w not in STOP and len(w) >= 2]
    return found[-1] if found else None


@_or_respelled
def item(topic: str, state: GameState, pack: EraPack) -> Item | None:
    """The item ``topic`` names: carried first, then sold here, then any in the pack."""
    wanted = words(topic)
    if not wanted:
        return None
    here = pack.locations[state.location]
    order = [pack.items[i] for i in [*state.player.inventory, *here.shop, *pack.items] if i in pack.items]
    kin = kindred(topic)  # "medicine": what is tagged medical
    found = _best(order, lambda it: 3 * len(wanted & words(it.name)) + len(kin & words(" ".join(it.tags))))
    if found is not None and other_thing(wanted, found):
        return None  # "a bridge token" is not the company scrip token: a thing this pack does not have
    return found


# Words that only qualify a thing ("a cold ale", "two cheap stims"), so a word of a request left unmatched by an item
# may be one of these; any other word the item's name, tags and description lack names another thing.
QUALIFIERS = frozenset("""cold hot warm fresh cheap cheapest good best small big large little old new clean full
strong stiff spare extra decent fine nice another one two three four five six few couple pair more whole half single
double proper real local house usual regular same other tiny huge plain simple quick light heavy dark red black white
grey gray brown green blue yellow sweet sour dry wet hard soft bottle cup mug glass pint pouch bag sack piece slice
bowl plate jar tin box pack packet handful stick loaf portion round shot measure dram""".split())


def other_thing(wanted: frozenset[str], found: Item) -> bool:
    """Whether the request names something other than ``found``: a word of it that is neither the item's (name, tags,
    description) nor a qualifier (:data:`QUALIFIERS`)."""
    known = words(f"{found.name} {' '.join(found.tags)} {found.description}")
    return bool({w for w in wanted - known - QUALIFIERS if not (w.endswith("s") and w[:-1] in known) and not (
        _KIN.get(w, frozenset()) & known)})  # "medicine" for what is tagged medical is that thing


@_or_respelled
def place(topic: str, state: GameState, pack: EraPack) -> str | None:
    """The id of the place ``topic`` names (name, alias, id or kind), nearest first among equals."""
    wanted = words(topic)
    if not wanted:
        return None
    linked = [link.to for link in pack.locations[state.location].links]
    kin = kindred(topic)  # "the tax office": the Tithe House

    def score(loc_id: str) -> int:
        loc = pack.locations[loc_id]
        named = words(f"{loc.name} {' '.join(loc.aliases)} {loc_id.replace('_', ' ')}")
        faction = pack.factions.get(loc.faction) if getattr(loc, "faction", None) else None
        also = " ".join([*(w for word in named for w in NAME_WORDS.get(word, ())), faction.name if faction else ""])
        kind = words(f"{loc.type} {' '.join(PLACE_WORDS.get(loc.type, ()))} {also}")
        return 3 * len(wanted & named) + 2 * len((kin - wanted) & named) + 2 * len(wanted & kind) + \
            described(wanted, loc_id, pack)
    return _best([*linked, *(loc for loc in pack.locations if loc not in linked)], score)


def by_way(topic: str, state: GameState, pack: EraPack) -> str | None:
    """The place a way from here leads to when ``topic`` names the way by its description ("the iron stairs" for
    "Up the iron stairs to the street", "the plank steps"): two of its content words in the link's description, or
    its one word when that is all it has; None when no way from here is told so."""
    wanted = words(topic) - _ANY_THING
    if not wanted:
        return None
    way = _best([link for link in pack.locations[state.location].links if link.description],
                lambda link: len(wanted & words(link.description)), least=min(2, len(wanted)))
    return way.to if way is not None else None


def faction(topic: str, pack: EraPack):
    """The faction ``topic`` names: by name or alias (or a word of their kind), else the one whose description opens
    with a word of it ('the miners' for the union, "the miners' union, named for..."); None when none does."""
    wanted = kindred(topic)
    named = next((f for f in pack.factions.values() if wanted & words(f"{f.name} {' '.join(f.aliases)}")), None)
    if named is not None or not wanted:
        return named
    return _best(list(pack.factions.values()),
                 lambda f: len(words(topic) & words(" ".join(sentences(f.description)[:1]))), least=1)


def described(wanted: frozenset[str], loc_id: str, pack: EraPack) -> int:
    """How many of ``wanted`` (content words) the first sentence of a place's description holds, when it holds at
    least two ('the water tanks' for the yard "around the town's great water tanks", 'the landing pads'); else 0:
    one shared word ('town', 'great') names no place."""
    hits = wanted & _described_words(pack)[loc_id]
    return len(hits) if len(hits) >= 2 else 0


@per_pack
def _described_words(pack: EraPack) -> dict[str, frozenset[str]]:
    return {loc_id: words(" ".join(sentences(loc.description)[:1])) for loc_id, loc in pack.locations.items()}


@per_pack
def _told_stems(pack: EraPack) -> dict[str, frozenset[str]]:
    return {loc_id: frozenset(stem_of(w) for w in words(f"{loc.description} {' '.join(loc.details)}"))
            for loc_id, loc in pack.locations.items()}





def place_words(loc_id: str, pack: EraPack) -> frozenset[str]:
    """Every word a player may call a place by: its name, prose name, aliases, id, kind (and the kind's other words),
    and the name of the faction that holds it ('union hall' for the Hall of the Ninth Shift)."""
    loc = pack.locations[loc_id]
    faction = pack.factions.get(loc.faction) if getattr(loc, "faction", None) else None
    named = words(f"{loc.name} {loc.prose_name or ''} {' '.join(loc.aliases)} {loc_id.replace('_', ' ')}")
    also = " ".join(w for word in named for w in NAME_WORDS.get(word, ()))
    return named | words(f"{loc.type} {' '.join(PLACE_WORDS.get(loc.type, ()))} {faction.name if faction else ''} "
                         f"{also}")


_ANY_THING = frozenset({"everything", "anything", "something", "stuff", "things", "everyone", "anyone", "people",
                        "folk", "folks", "all"})  # words that name nothing of a place by themselves


def names_place(topic: str, loc_id: str, pack: EraPack) -> bool:
    """Whether every word of ``topic`` is a word of the place (``place_words``): 'cockle row' is not Kettle Row; or
    of its description's first sentence, two of them at least (:func:`described`)."""
    wanted = words(topic)
    named = place_words(loc_id, pack)
    left = {w for w in wanted - named if not _KIN.get(w, frozenset()) & named}  # "the tax office": the Tithe House
    left = {w for w in left if f"{w}s" not in wanted or f"{w}s" in left}  # "taxe" of "taxes" goes with it
    if not left or (described(wanted, loc_id, pack) > 0 and not left - _described_words(pack)[loc_id]):
        return True
    # told by what is done there ("where they weigh stuff and collect the taxes"): all its words but one are the
    # place's own, its kind's ('taxes': the Tithe House) or its description's ('weigh': "a weighing floor")
    told = _told_stems(pack)[loc_id]
    unknown = {w for w in left if stem_of(w) not in told and w not in QUALIFIERS | _ANY_THING}  # "big", "everything"
    return len({stem_of(w) for w in wanted}) >= 3 and len({stem_of(w) for w in unknown}) <= 1 and \
        len({stem_of(w) for w in wanted - unknown}) >= 2 and (bool(wanted - left) or len(
            (wanted & _described_words(pack)[loc_id]) - QUALIFIERS) >= 2)
    # one word names it at least, or two of its description's first sentence ("that big brick building")


def rumor(topic: str, state: GameState, pack: EraPack) -> Rumor | None:
    """The rumor of the pack about ``topic`` (public or already heard: nothing secret is told by asking)."""
    wanted = words(topic)
    if not wanted:
        return None
    told = [*state.world.known_rumors, *(r for r in state.world.public_rumors if r not in state.world.known_rumors)]
    return _best([pack.rumors[r] for r in told if r in pack.rumors], lambda found: len(wanted & words(found.text)),
                 least=min(2, len(wanted)))


# Everyday words for kinds of place (a location's ``type``).
PLACE_WORDS = {
    "bar": ("bar", "tavern", "inn", "pub", "saloon", "alehouse"),
    "market": ("market", "bazaar", "shops", "supplies", "gear", "goods", "wares", "provisions"),
    "clinic": ("clinic", "doctor", "medic", "infirmary", "hospital", "healer", "physician", "surgeon", "patched",
               "stitched", "healed", "treated", "wounds"),
    "dock": ("dock", "docks", "harbor", "harbour", "pier", "wharf", "spaceport", "starport", "port", "landing pads",
             "launch pad", "shuttle port", "quay", "jetty"),
    "tower": ("tower", "lighthouse", "beacon", "watchtower"),
    "office": ("office", "hall", "headquarters", "offices"),
    "hall": ("hall", "meeting hall", "moot"),
    "mine": ("mine", "mines", "shaft", "pit", "diggings", "workings"),
    "ruin": ("ruin", "ruins", "wreck"),
}
# Everyday words for what a place's name says it is ("church" for the Lamplight Chapel).
NAME_WORDS = {
    "chapel": ("church", "temple", "shrine", "kirk"),
    "abbey": ("church", "monastery", "priory"),
    "clinic": ("doctor", "medic", "hospital", "healer", "infirmary"),
    "almonry": ("alms", "almshouse", "charity", "healer", "patched", "stitched", "healed", "wounds"),
    "market": ("market", "marketplace", "bazaar", "shops", "stalls"),
    "bridge": ("bridge", "crossing"),
    "dock": ("docks", "harbor", "harbour", "quay"),
    "tavern": ("pub", "inn", "bar", "alehouse"),
}

# Every word that names a kind of place ("abbey", "docks", "market"): never a person.
PLACE_KINDS = frozenset(w for kinds in (*PLACE_WORDS.values(), *NAME_WORDS.values(), tuple(NAME_WORDS)) for w in kinds
                        if " " not in w) - {"doctor", "medic", "healer", "physician", "surgeon", "patched", "stitched",
                                            "healed", "treated", "wounds", "gear", "goods", "wares", "supplies",
                                            "provisions", "shops", "alms", "charity"}

OUTSIDE_KINDS = ("street", "square", "road", "plaza", "walkway", "yard", "dock", "wilds")


def way_out(verb: str, state: GameState, pack: EraPack, came_from: str | None) -> str | None:
    """Where "leave", "run" or "go back" takes the player from here: back the way they came (``came_from``, for
    ``back``), the only way out, or the one way out to a street or open ground; None when there are several and
    nothing tells them apart (the answer then asks which)."""
    links = pack.locations[state.location].links
    linked = [link.to for link in links]
    if verb == "back" and came_from in linked:
        return came_from
    if len(linked) == 1:
        return linked[0]
    if verb in ("leave", "flee") and came_from in linked and state.combat is None:
        return came_from
    outside = [to for to in linked if pack.locations[to].type in OUTSIDE_KINDS]
    return outside[0] if len(outside) == 1 else None


def lore(topic: str, pack: EraPack) -> str | None:
    """The sentence of the pack's lore (``lore/*.md``) that tells most about ``topic`` (a word of a document's title
    counts three), or None when no lore shares a word with it."""
    wanted = words(topic)
    if not wanted:
        return None
    best, score = None, 0
    for doc in pack.docs.values():
        if doc.meta.doc_type != "lore":
            continue
        titled = 3 * len(wanted & words(f"{doc.meta.title} {' '.join(doc.meta.tags)}"))
        body = " ".join(row for row in doc.body.splitlines() if row.strip() and not row.startswith("#"))
        for line in sentences(body):
            got = titled + 2 * len(wanted & words(line))
            if got > score and len(line) < 400:
                best, score = line, got
    return best if score >= 2 else None
