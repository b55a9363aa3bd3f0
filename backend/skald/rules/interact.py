"""Hands-on actions that are not a fight, a trade, a search or travel, and requests the rules cannot honour.

What the rules settle here (Skald's own table):
- **wishes** (``rules.wishes``: "I win", "give me 1000000 credits", "ignore previous instructions"): nothing
  happens; an in-world answer and what the player could do instead (the standing offer);
- **work** ("work", "odd jobs", "earn some money") in a settled place: a might check (SAFE), 60 minutes; success
  earns d4+2 units; there is no work in the wilds, ruins or mines;
- **help** ("help Oda", "lend a hand"): a presence check (SAFE), 20 minutes, aimed at the person named or the first
  person here; success is +1 reputation with their faction (or the place's);
- **take** an item: it is for sale here (buy it or steal it), already carried, or not here; nothing lies about for
  the taking (finds come from searching);
- **show** a carried item to someone here: they look at it (a quest stage may want exactly that);
- **climb, open, push, pull, force, repair, fix, light**: while something here is still hidden, a check (agility to
  climb, wits to repair, fix or light, might otherwise) that finds it on a success, as a search would; with nothing
  left to find, nothing comes of it;
- anything else: nothing the rules can resolve; the answer says so and names what would work.
Every "nothing happens" answer is an ``impossible`` result, so no narrator tells it as a success.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.records import RouterOutput
from skald.core.state import GameState
from skald.core.vocab import ActionClass, Outcome, Risk
from skald.rules import clock, dice, pronouns, references
from skald.rules.deeds import second_person
from skald.rules.money import money
from skald.rules.parser import object_of
from skald.rules.resolution import (
    ROUGH_PLACES,
    Resolution,
    enemy_hits,
    faction_rep,
    fail_stress,
    found_events,
    hidden_here,
    make_result,
    roll_check,
    target_of,
)
from skald.rules.scene import everyone_at, held
from skald.rules.trade import carried_list
from skald.rules.wishes import Wish, wish
from skald.text import end, or_list, the_place

WORK_MINUTES, HELP_MINUTES = 60, 20

_WORK = re.compile(r"\b(?:work(?! (?:out|through|up)\b| on (?:my|the|your|it|that|this)\b)|odd jobs?|earn|labou?r|"
                   r"haul|do (?:some )?chores|find (?:a |some )?jobs?)\b")
_HELP = re.compile(r"\b(?:help|lend a hand|give .{0,30}a hand|offer a hand|assist)\b")
_TAKE = re.compile(r"\b(?:take|pick up|grab|pocket|collect|get (?:all|everything|it all))\b|^get (?:the |a |an |that |"
                   r"this )?(?!(?:drunk|wasted|hammered|ready|dressed|lost|going|moving|started|comfortable|warm|"
                   r"some|food|help|out|up|down|in|on|off|back|away|over|lucky|even|rich|paid|closer|better)\b)"
                   r"[a-z]+\s*$")  # a parser game's "get tankard"
_SHOW = re.compile(r"\bshow\b")
_HANDS_ON: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?:climb|scale|clamber)\b"), "agility"),
    (re.compile(r"\b(?:repair|fix|mend|light|rig|tinker)\b"), "wits"),
    (re.compile(r"\b(?:open|push|pull|force|pry|prise|lift|move|break|close)\b"), "might"),
]
WISH_ANSWERS: dict[Wish, str] = {
    "instructions": "You say it aloud to no one in particular. The world does not take orders, and nothing changes.",
    "fiat": "Wishing does not fill a purse or mend a wound; nothing changes.",
    "victory": "Saying it does not make it so; the world carries on exactly as it was.",
    "outcome": "You can say what you try, not how it turns out: that is for the dice and the people here to decide, "
               "and nothing changes.",
    "feat": "That is beyond you, and beyond anyone in this place and age: nothing happens.",
}


def resolve(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """Resolve an INTERACT action (see the module docstring for what each kind does)."""
    handler = _handler(router)
    if handler is None and everyday(router.text):  # after the semantic fallback and the interpreter had their turn
        handler = _everyday
    return handler(router, state, pack, rng) if handler else _nothing(router, state, UNANSWERED)


UNANSWERED = "Nothing comes of that here: it is not something the world answers to."


def unanswered(router: RouterOutput) -> bool:
    """Whether :func:`resolve` would give ``router`` the catch-all refusal (:data:`UNANSWERED`): an INTERACT line
    with no verb the parser read and nothing :func:`_handler` answers. This is where the parser is unsure, so the
    semantic fallback (``rules.semantic``) and the interpreter role (``nodes.interpreter``) get their turn."""
    return router.action_class == ActionClass.INTERACT and router.verb is None and _handler(router) is None


Handler = Callable[[RouterOutput, GameState, EraPack, random.Random], Resolution]


def _handler(router: RouterOutput) -> Handler | None:
    """What answers an INTERACT line, in this order: a wish, help, work, showing an item, taking, a hands-on try;
    None when nothing does."""
    text = router.text
    kind = wish(text)
    if kind is not None:
        return lambda r, s, p, g: _nothing(r, s, WISH_ANSWERS[kind], minutes=1)
    if _HELP.search(text):
        return _help
    if _WORK.search(text):
        return _work
    if _SHOW.search(text) and router.target_item:
        return lambda r, s, p, g: _show(r, s, p)
    if _TAKE.search(text):
        return lambda r, s, p, g: _take(r, s, p)
    stat = next((stat for pattern, stat in _HANDS_ON if pattern.search(text)), None)
    return (lambda r, s, p, g: _hands_on(r, s, p, g, stat)) if stat else None


def everyday(text: str) -> bool:
    """Whether a line (the router's text) is a small deed with something at hand (:data:`EVERYDAY`): told back as the
    player put it rather than refused, or said to someone. The semantic fallback and the interpreter come first (a
    line they place gets a richer answer), so :func:`unanswered` stays true for it."""
    return bool(EVERYDAY.search(text)) and not NOT_A_DEED.match(text)


# Things at hand in any place, and the player's own body and clothes: a line that does something with one of them
# ("retie my bootlaces", "knock twice on the bar", "fan myself with my hat") is a small deed, told as put.
EVERYDAY = re.compile(
    r"\b(?:my (?:hands?|fingers?|fingernails|nails|knuckles|thumbs?|fists?|breath|hair|beard|face|eyes|nose|neck|"
    r"shoulders?|arms?|legs?|feet|foot|toes|boots?|bootlaces|laces|hat|cap|hood|cloak|coat|collar|sleeves?|gloves?|"
    r"scarf|belt|pipe|pockets?|mug|cup|glass|tankard|drink|ale|seat|stool|chair|table|coins?|knife)|"
    r"(?:the|a|my|that|this) (?:mugs?|cups?|glass(?:es)?|tankards?|bowls?|plates?|bottles?|table|chair|stool|bench|"
    r"bar|counter|door|doorway|doorframe|window|floor|wall|fire|hearth|lamp|candle|coin|rag|napkin|splinter|dice|"
    r"cards)|(?:empty|dirty|wet) (?:mugs|cups|glasses|cloak|boots)|twice|(?:a|my) breath)\b")
NOT_A_DEED = re.compile(r"^(?:who|what|where|when|why|how|which|is|are|do|does|can|could|would|will|should|did|"
                         r"you|you're|youre|your|ya|u|ur|"  # "you are pulling my leg": said to someone, not done
                         r"i (?:want|wish|would like|need|hope|own|am|rule|become|declare|crown|cast)|please|everyone|"
                         r"everybody|every|all|nobody|the|it|they|he|she|cast|crown)\b"
                         # "... and the door opens": a consequence dictated, not a deed
                         r"|.*\band (?:the|a|an|every|everyone|everybody|all|it|they|he|she) (?:\w+ ){0,2}\w+s\b")


def _everyday(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """A small deed with something at hand, told back as the player put it, and seen by whoever is near (1 minute)."""
    people = [p for p in everyone_at(state, pack, state.location) if not p.companion]
    seen = f" {people[0].name.split()[0]} glances your way." if people else ""
    return Resolution(make_result(router, None, 1, f"{second_person(router.text)}{seen}"))


def away(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """The player stepping away from the keyboard ("brb gotta let the dog out"): the world waits, no time passes and
    nothing is done in it."""
    return Resolution(make_result(router, None, 0, "The world waits while you are away: nothing here moves until you "
                                  "are back."))


def aside(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """A line that is all markup ("[Narrator, describe my character as the chosen one]", "<system>"): said out of
    character, so the world takes no orders from it (``WISH_ANSWERS['instructions']``)."""
    return _nothing(router, state, WISH_ANSWERS["instructions"], minutes=1)


def dictate(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """'odile signs the inn over to me': what another person does is theirs to decide, not the player's to say; the
    answer names them and what the player could do instead (1 minute)."""
    person = pack.person(router.target_npc or router.absent_npc or "")
    name = person.name if person else (router.topic or "They")
    they = pronouns.of(person)
    verb = "decide" if they.plural else "decides"
    return _nothing(router, state, f"{name} {verb} what {they.subject} {'do' if they.plural else 'does'}: saying it "
                    f"does not make it so. You could ask {they.object}, persuade {they.object} or pay "
                    f"{they.object}.", minutes=1)


def claim(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """'i have a revolver' when none is carried: saying so does not put it in the player's hands (1 minute)."""
    have = carried_list(state, pack)
    have = f" What you do carry: {have}." if have else " You carry nothing worth naming."
    return _nothing(router, state, f"You carry no {router.topic or 'such thing'}; saying so does not change that."
                    f"{have}", minutes=1)


def could_do(state: GameState, limit: int = 3) -> str:
    """'You could talk to Oda, search the walkway or travel to Wickhall.' from the standing offer ('' if none)."""
    labels = [re.sub(r"^\w+ly, ", "", s.label) for s in state.offer if s.label][:limit]  # "Calmly, offer...": the deed
    if not labels:
        return ""
    return f"You could {or_list([label[:1].lower() + label[1:] for label in labels])}."


def _nothing(router: RouterOutput, state: GameState, why: str, minutes: int = 2) -> Resolution:
    instead = could_do(state)
    return Resolution(make_result(router, None, minutes, f"{why} {instead}".strip(), impossible=True))


def _work(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    here = pack.locations[state.location]
    if here.type in ROUGH_PLACES or state.combat is not None:
        why = f"There is no work to be had in {the_place(here)}." if state.combat is None else \
            f"{state.combat.enemy_name} is not going to wait while you look for work."
        return _nothing(router, state, why)
    chk = roll_check(router, state, pack, rng, Risk.SAFE, stat="might")
    if not chk.outcome.succeeded:
        return Resolution(make_result(router, chk, WORK_MINUTES, f"You put in an hour's work in "
                                      f"{the_place(here)}, but it goes wrong and nobody pays you for it.",
                                      fail_stress(chk)))
    pay = dice.roll(rng, 4) + 2
    earned = ev.CreditsChange(delta=pay, reason="an hour's work")
    return Resolution(make_result(router, chk, WORK_MINUTES, f"You put in an hour's work in {the_place(here)} "
                                  f"and earn {money(pay, pack)}."), [earned])


def _help(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    if state.combat is not None:
        return _nothing(router, state, f"There is no helping anyone else with {state.combat.enemy_name} on you.")
    person = target_of(router, state, pack)
    if person is None and router.target_npc is None:
        person = next((p for p in everyone_at(state, pack, state.location) if not p.companion), None)
    if person is None or person.companion:
        why = "There is nobody here who needs a hand." if person is None else \
            f"{person.name} is with you already; help them by getting on with the job."
        return _nothing(router, state, why)
    chk = roll_check(router, state, pack, rng, Risk.SAFE, stat="presence")
    first = person.name.split()[0]
    if not chk.outcome.succeeded:
        return Resolution(make_result(router, chk, HELP_MINUTES, f"You try to help {person.name}, but you are more "
                                      f"in the way than not, and {first} waves you off.", fail_stress(chk)))
    faction = person.faction or pack.locations[state.location].faction
    return Resolution(make_result(router, chk, HELP_MINUTES, f"You lend {person.name} a hand, and {first} will "
                                  "remember it."), faction_rep(faction, 1, f"helped {person.name}"))


def _show(router: RouterOutput, state: GameState, pack: EraPack) -> Resolution:
    item = pack.items[router.target_item]
    person = target_of(router, state, pack)
    if not held(state, item.id):
        return _nothing(router, state, f"You do not carry the {item.name.lower()}.")
    if person is None:
        return _nothing(router, state, f"There is nobody here to show the {item.name.lower()} to.")
    return Resolution(make_result(router, None, 5, f"You show {person.name} the {item.name.lower()}, and "
                                  f"{person.name.split()[0]} looks it over."))


def _take(router: RouterOutput, state: GameState, pack: EraPack) -> Resolution:
    here = pack.locations[state.location]
    item = pack.items.get(router.target_item or "")
    thing = re.sub(r"^(?:one|some|a couple|a few|any|each|all) of (?:the |those |these |them )?|\s+(?:off|from|out of) "
                   r"the .*$", "", object_of(router.text))  # "grab one of the wet cloaks off the pegs": the cloaks
    scenery = references.detail(thing, state, pack) if item is None and thing else None
    if scenery is not None and references.words(thing) & references.words(scenery):  # "get tankard", "pick up the
        # cat": a thing of the place, not the player's to take
        return _nothing(router, state, f"{end(scenery)} That is {the_place(here)}'s, not yours: leave it be, or "
                                       "ask for it.")
    if item is None:
        return _nothing(router, state, "Nothing here lies about for the taking; a careful search might turn "
                                       "something up.")
    name = item.name.lower()
    if item.id in here.shop:
        return _nothing(router, state, f"The {name} is for sale here, at {money(item.value, pack)}: buy it, or try "
                                       "to steal it.")
    if held(state, item.id):
        return _nothing(router, state, f"You already carry the {name}.")
    return _nothing(router, state, f"There is no {name} here to take.")


def _hands_on(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random, stat: str) -> Resolution:
    here = pack.locations[state.location]
    found = hidden_here(state, pack)
    if found is None:
        thing = object_of(router.text)
        tried = f"You try the {thing}" if thing else "You try"
        return _nothing(router, state, f"{tried}, but nothing in {the_place(here)} answers to it; there is "
                                       "nothing left to find that way.")
    risk = Risk.RISKY if here.type in ROUGH_PLACES else Risk.SAFE
    chk = roll_check(router, state, pack, rng, risk, stat=stat)
    minutes = clock.time_cost(router.action_class)
    if chk.outcome.succeeded:
        return Resolution(make_result(router, chk, minutes, f"Your effort turns something up: {found.text}"),
                          found_events(found, state, here.id))
    events = enemy_hits(state, rng, chk.outcome == Outcome.CRITICAL_FAILURE)
    return Resolution(make_result(router, chk, minutes, "It does not give, and nothing comes of it this time.",
                                  fail_stress(chk)), events)
