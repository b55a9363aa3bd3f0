"""What the things a player's line named go by, the other way round from ``rules.references``: the names prose may
call the line's person, item, place or topic, so the validator can tell a narration that is about the input from one
that never names what was asked (``nodes.validator``). Pure and deterministic."""

from __future__ import annotations

import re

from skald.core.pack import EraPack, Location
from skald.core.records import RouterOutput
from skald.core.state import GameState
from skald.rules.prose import Fact, item_marks, missing_facts
from skald.rules.references import item, kindred, person, place, words
from skald.text import name_key, sentences

_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
# The parser's verbs (``rules.parser``) whose topic is what the player asks about, looks at or makes for ("where is
# the railhead", "look at the barrel", "head for the docks"); a deed's or a loose question's topic is only the rest
# of the line.
TOPIC_VERBS = frozenset({"about", "how_much", "where_is", "where_sold", "who_is", "examine", "go"})
# The verbs whose place the rules pick (the way out), not the player's words.
WAY_OUT_VERBS = frozenset({"leave", "flee", "back"})


def person_names(person_id: str, state: GameState, pack: EraPack) -> tuple[str, ...]:
    """What prose may call a person (a pack NPC or companion, or someone met or made up on the way): their name,
    its first and its last word, their aliases, their role, the role's last word and that word's kin
    (``references.KINDRED``: the bartender is also the barkeep). Never a pronoun. Empty for an id nobody has."""
    known = pack.npcs.get(person_id) or pack.companions.get(person_id)
    aliases = list(known.aliases) if known is not None else []
    if known is None:
        met = state.after.known_npcs if state.after is not None else {}
        known = next((p for p in state.present_npcs if p.id == person_id), None) or \
            state.known_npcs.get(person_id) or met.get(person_id)
    if known is None:
        return ()
    name, role = known.name.split(), known.role.split()
    kin = sorted(kindred(role[-1])) if role else []
    return tuple(dict.fromkeys([known.name, name[0], name[-1], *aliases, *([known.role] if role else []),
                                *role[-1:], *kin]))


def place_names(loc: Location) -> tuple[str, ...]:
    """What prose may call a place: its name, its ``prose_name`` and its aliases, each with or without its leading
    article ("The Scrip Market" and "Scrip Market", "the Yard" and "Yard")."""
    names = [loc.name, *([loc.prose_name] if loc.prose_name else []), *loc.aliases]
    return tuple(dict.fromkeys(n for name in names for n in (name, _ARTICLE.sub("", name)) if name_key(n)))


def subject_names(router: RouterOutput, state: GameState, pack: EraPack) -> list[tuple[str, ...]]:
    """What the things the line named go by, a group each: its person (:func:`person_names`), item
    (``prose.item_marks``), place (:func:`place_names`; not the way out the rules chose for "leave"), and the topic
    of a question, a look or a way (``TOPIC_VERBS``: the topic's content words, each also with an -s, and the names
    of the person it describes) unless the topic is one of those in other words ("look at the bartender" names
    Hesper Quill and no topic besides)."""
    groups = [person_names(router.target_npc, state, pack)] if router.target_npc else []
    if router.target_item in pack.items:
        groups.append(item_marks(pack.items[router.target_item].name))
    if router.target_location in pack.locations and router.verb not in WAY_OUT_VERBS:
        groups.append(place_names(pack.locations[router.target_location]))
    topic = (router.topic or "") if router.verb in TOPIC_VERBS else ""
    if words(topic) and not _is_a_target(topic, router, state, pack):
        who = person(topic, state, pack)  # "who is that old guy": Amos Tallowby, by name or role, or the words
        named = person_names(who.id, state, pack) if who is not None else ()
        said = [w for word in sorted(words(topic)) for w in (word, word if word.endswith("s") else f"{word}s")]
        groups.append(tuple(dict.fromkeys([*said, *named])))
    return [g for g in groups if g]


def _is_a_target(topic: str, router: RouterOutput, state: GameState, pack: EraPack) -> bool:
    """Whether ``topic`` is the line's person, item or place, in the same words or in others."""
    if router.target_npc:
        names = words(" ".join(person_names(router.target_npc, state, pack)))
        found = person(topic, state, pack)
        if words(topic) <= names or (found is not None and found.id == router.target_npc):
            return True
    if router.target_item:
        found_item = item(topic, state, pack)
        if found_item is not None and found_item.id == router.target_item:
            return True
    return router.target_location is not None and place(topic, state, pack) == router.target_location


def asked_facts(router: RouterOutput, summary: str, state: GameState, pack: EraPack) -> list[Fact]:
    """What the prose must name because the player asked about it and the rules' answer names it: a fact per
    thing the line named (:func:`subject_names`) that ``summary`` names too, whose marks are the names it goes by and
    whose line is the summary's sentences that name it (what the validator adds when the prose names it nowhere, as
    it adds any fact left out: ``prose.missing_facts``)."""
    facts = []
    for names in subject_names(router, state, pack):
        told = [s for s in sentences(summary) if not missing_facts(s, [Fact(names, "")])]
        if told:
            facts.append(Fact(names, " ".join(told)))
    return facts
