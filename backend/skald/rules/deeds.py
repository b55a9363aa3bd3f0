"""Small deeds: real turns that are not a check (sing, dance, pray, sit, wait a little, watch, listen, smell, touch,
warm your hands, nod, wave, laugh, think, jump, kiss, throw, wash, swim, play a game...), and eating and drinking.

Each takes game time (minutes below), is told in the place's own words (its ``details``, the people here) and has a
small effect where the rules have one: praying, sitting a while, warming yourself or singing eases 1 stress; eating
food you carry or buy here heals what the item heals; a drink in a bar is bought as ``rules.trade`` sells it (and
eases 1 stress). Nothing here rolls a check: a small deed carries no risk. A deed aimed at somebody who is not here,
or eating with nothing to eat, is answered plainly and changes nothing. Skald's own wording.
"""

from __future__ import annotations

import random
import re

from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.records import PresentNpc, RouterOutput
from skald.core.state import GameState
from skald.rules import parser, pronouns, prose, references, trade
from skald.rules.money import money
from skald.rules.resolution import Resolution, make_result, phrase
from skald.rules.scene import everyone_at, held, minutes_to, nearest
from skald.text import end, or_list, the_place, with_article

MINUTES = {"stretch": 2, "sing": 10, "dance": 10, "pray": 15, "sit": 15, "stand": 1, "wait": 15, "watch": 15,
           "listen": 5,
           "smell": 2, "taste": 2, "touch": 2, "warm": 15, "nod": 1, "wave": 1, "laugh": 2, "think": 10, "sleep": 30,
           "jump": 1, "kiss": 2, "wake": 2, "throw": 2, "drop": 1, "wear": 3, "clean": 10, "tie": 5, "cut": 5,
           "swim": 20, "play": 30, "write": 10, "eat": 15, "drink": 10}
EASING = frozenset({"sing", "pray", "sit", "warm"})  # ease 1 stress
ECHOED = frozenset({"sing", "dance", "pray", "sit", "warm", "wear", "clean", "tie", "cut", "laugh", "think", "jump",
                    "play", "write", "swim", "stand", "do"})  # told in the player's words when they name a thing
SEATS = ("stool", "bench", "chair", "seat", "pew", "settle", "crate", "table")  # where one sits down, likeliest first
SOUNDS = ("drum", "hum", "voice", "bell", "creak", "clatter", "talk", "laugh", "song", "sing", "rain", "wind",
          "water", "slap", "whistle", "hiss", "roar", "ring", "shout", "answer", "murmur", "clank", "thud")
SMELLS = ("smell", "smoke", "oil", "salt", "ash", "reek", "stink", "scent", "damp", "rot", "brine", "sulph", "tar",
          "fish", "eel", "ale", "bread")
TOLD = {  # verb -> ways of telling it: {here} the place, {seen} who looks up, {line} a line of the place
    "sing": ("You sing a verse in {here}.{seen}", "You raise a song in {here}, and it carries.{seen}"),
    "dance": ("You dance a few steps in {here}.{seen}", "You take a turn on the floor of {here}.{seen}"),
    "pray": ("You bow your head in {here} and pray a while.",
             "You say a quiet prayer in {here}, and the noise of the place falls away for a moment."),
    "sit": ("You find a seat in {here} and rest your feet. {line}",
            "You sit a while in {here} and let the place go on around you. {line}"),
    "wait": ("You wait a quarter of an hour in {here}. {line}", "You let some time pass in {here}. {line}"),
    "think": ("You take a moment in {here} to think it through.",
              "You turn things over in your head for a while in {here}."),
    "stand": ("You get to your feet.",),
    "stretch": ("You stretch until your back cracks, there in {here}.{seen}",
                "You roll the stiffness out of your shoulders in {here}.{seen}"),
    "warm": ("You warm yourself {fire} until the chill lets go.",),
    "laugh": ("You let it out, there in {here}.{seen}",),
    "sleep": ("You close your eyes in {here} and doze a little; it is not a night's sleep.",),
    "jump": ("You jump on the spot; the boards of {here} take it.",),
    "wear": ("You adjust what you are wearing against the weather of {here}.",),
    "clean": ("You clean yourself up as well as {here} allows.",),
    "swim": ("There is no water here fit to swim in; {here} keeps you on dry boards.",),
    "play": ("You join a game in {here} for a while, win a little, lose it back.{seen}",),
    "write": ("You jot a note of what you have seen so far.",),
}
FOOD_TAGS = frozenset({"food"})
GENERIC_FARE = frozenset({"something", "food", "drink", "meal", "bite", "snack", "breakfast", "lunch", "dinner",
                          "supper", "beer", "ale", "pint", "wine", "water", "tea", "round", "rations", "ration",
                          "swig", "sip", "mouthful", "cup", "mug", "glass", "bowl", "stew", "bread", "soup",
                          "starving", "starved", "famished", "hungry", "thirsty", "parched", "am", "please",
                          "whatever", "cooking", "going", "hot", "warm", "fresh", "good", "special", "house", "today",
                          "anything", "cheap", "cheapest", "cooked", "pot", "fire", "stove", "spit", "offer"})
DRINK_TAGS = frozenset({"water", "drink"})
# Where and how a line says one eats or drinks, not what: "at the bar", "by the fire", "in the corner", "alone".
_WHERE_AND_HOW = re.compile(r"\b(?:at|by|in|on|near|beside|from|with|over) (?:the|a|my|this|that) (?:bar|counter|"
                            r"table|fire|hearth|corner|window|door|room|bench|stool|back|tap|taps)\b|\b(?:alone|"
                            r"quietly|slowly|together|here|there)\b|^(?:bar|counter|table|fire|hearth|corner)\b")


def resolve(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """A small deed (``router.verb``), or eating and drinking (see the module docstring)."""
    verb = router.verb or "wait"
    if verb in ("eat", "drink"):
        return _consume(router, state, pack, rng, verb)
    here = pack.locations[state.location]
    people = everyone_at(state, pack, state.location)
    locals_ = [p for p in people if not p.companion]
    topic = router.topic or ""
    crowd = references.group(topic, state, pack) if verb in ("nod", "wave", "wink", "smile", "bow", "laugh", "insult") \
        and router.target_npc is None else None
    if crowd is not None:  # "nod at the eelers", "insult the reeves": the people a detail of the place tells of
        them = topic if re.match(r"(?:the|those|these|some|a few|two|three) ", topic) else f"the {topic}"
        if verb == "insult":
            return Resolution(make_result(router, None, 1, f"You insult {them}. {end(crowd)} It does not go down "
                                                           "well."))
        told = f"You {verb} at {them}" if verb in ("wink", "smile", "laugh") else f"You {verb} to {them}"
        return Resolution(make_result(router, None, MINUTES.get(verb, 1), f"{told}. {end(crowd)}"))
    who = next((p for p in people if p.id == router.target_npc), None) or (
        references.person(topic, state, pack, people) if references.words(topic) else None)
    if verb in ("kiss", "wake") and who is None:
        return Resolution(make_result(router, None, 1, f"There is no {topic or 'one'} here for that; in "
                                      f"{the_place(here)} you could turn to {_names(locals_)}.",
                                      impossible=True))
    if verb == "insult":  # "mock the old man", "ur cat is ugly": said to their face, and they take it badly
        return _insulted(router, who or (locals_[0] if locals_ else None), state, pack)
    if verb in PERFORMED and who is not None and not who.companion and FOR_ME.search(parser.plain(router.text)):
        return Resolution(make_result(router, None, MINUTES.get(verb, 5), _performed(verb, who, state, pack)))
    witness = who or (locals_[0] if locals_ else None)
    echoed = verb in ECHOED or (verb in ("nod", "wave", "laugh") and who is None)
    if topic and echoed:  # "sing the ballad of the fat provost": what the player did, in their words
        seen = f" {witness.name.split()[0]} looks up at that." if witness else ""
        summary = f"{second_person(router.text, deeds_only=True)}{seen}"
    else:
        summary = _told(verb, topic, who, witness, state, pack)
    stress = -1 if verb in EASING and state.player.stress > 0 and state.combat is None else 0
    if stress:
        summary += " It eases you a little."
    return Resolution(make_result(router, None, MINUTES.get(verb, 5), summary, stress=stress))


# A song, tune or dance asked of somebody ("go on then, sing it", "sing me one", "play us a tune"): theirs to give.
PERFORMED = frozenset({"sing", "play", "dance"})
FOR_ME = re.compile(r"\b(?:for (?:me|us)|(?:sing|play|dance) (?:me|us)\b|^(?:sing|play) (?:it|that|that one|this "
                    r"one|the (?:one|song|ballad|tune))$)")
_SONG = re.compile(r"\b(?:song|songs|sing|sings|sang|ballad|ballads|tune|tunes|verse|music|fiddle|pipe|dance)\b")


def _insulted(router: RouterOutput, who: PresentNpc | None, state: GameState, pack: EraPack) -> Resolution:
    """An insult, to ``who`` (the one it names, else the one at hand): no check, a minute, and they like the player
    less (attitude -2, mood insulted); said to nobody when nobody is here."""
    said = parser.plain(router.text).rstrip(" .!?")
    remark = re.match(r"(?:you are|you|your|his|her|their|he is|she is|they are)\b", said)
    if who is None:
        return Resolution(make_result(router, None, 1, "You say it to the room, but nobody here is listening."))
    first = who.name.split()[0]
    told = f"\"{said[:1].upper()}{said[1:]},\" you tell {who.name}" if remark else f"You insult {who.name}"
    takes = phrase(state, f"{first} takes it badly.", f"{first} goes still, and remembers it.",
                   f"{first} gives you a long, cold look.")
    return Resolution(make_result(router, None, 1, f"{told}; {takes}"),
                      [ev.AttitudeChange(npc=who.id, delta=-2, mood="insulted", reason="insulted")])


def _performed(verb: str, who: PresentNpc, state: GameState, pack: EraPack) -> str:
    """What ``who`` does when asked to sing, play or dance for the player: a line of theirs about songs, when they
    have one (a ballad seller's), else they wave the request away."""
    first = who.name.split()[0]
    person = pack.person(who.id)
    sung = next((line for line in getattr(person, "lines", None) or [] if _SONG.search(line.lower())), None)
    if sung is not None:
        return f"{who.name} obliges, and it carries over the room. Then, to you: \"{end(sung)}\""
    told = pronouns.of(person)
    does = "do" if told.plural else "does"
    return phrase(state, f"{who.name} laughs the request off: {told.subject} {does} not {verb} for strangers.",
                  f"{who.name} shakes {told.possessive} head: {first} is nobody's entertainment today.")


def _names(people: list[PresentNpc]) -> str:
    return ", ".join(p.name for p in people[:3]) or "nobody at all"


def place_line(state: GameState, pack: EraPack, words: tuple[str, ...] = ()) -> str:
    """A line of the place's details (one with the first of ``words`` any has, first), rotating with the turn; one the
    recent turns did not tell, while there is one (a wait after a look around tells something new)."""
    here = pack.locations[state.location]
    details = list(here.details) or [here.description]
    fresh = [d for d in details if not prose.described_lately(d, state)]
    found = ([d for d in fresh if re.search(rf"\b{w}", d.lower())] for w in words)  # the first word's first
    lines = next((hits for hits in found if hits), None) or fresh or details
    return end(lines[state.turn % len(lines)])


def _fire(state: GameState, pack: EraPack) -> str:
    """Where one warms up here: 'at the hearth of the Brass Eel Tavern' when the place tells of a hearth, fire, stove or
    brazier; 'in the Slag & Lantern' otherwise."""
    place = pack.locations[state.location]
    told = " ".join([place.description, *place.details]).lower()
    heat = next((w for w in ("hearth", "fire", "stove", "brazier", "furnace") if re.search(rf"\b{w}\b", told)), None)
    return f"at the {heat} of {the_place(place)}" if heat else f"in {the_place(place)}"


def _told(verb: str, topic: str, who: PresentNpc | None, witness: PresentNpc | None, state: GameState,
          pack: EraPack) -> str:
    here = the_place(pack.locations[state.location])
    seen = f" {witness.name.split()[0]} looks up at that." if witness else ""
    thing = topic or "it"
    awaited = references.detail(re.sub(r"^(?:for|on|until|till) |\s+(?:to|so) .*$", "", topic), state, pack) \
        if verb == "wait" and topic else None  # "wait for the shift board to change": what is waited on
    if verb in TOLD:
        line = end(awaited) if awaited else place_line(state, pack, SEATS if verb == "sit" else ())
        fields = {"here": here, "seen": seen, "line": line, "fire": _fire(state, pack)}
        return phrase(state, *(t.format(**fields) for t in TOLD[verb]))
    if verb == "watch":
        what = f"the {topic}" if topic else here
        seen_there = references.detail(topic, state, pack) if topic else None  # "the guys playing at the corner
        return f"You watch {what} for a while. {end(seen_there) if seen_there else place_line(state, pack)}"  # table"
    if verb == "listen":
        return f"You listen. {place_line(state, pack, SOUNDS)}"
    if verb == "smell":
        if topic and not references.words(topic) <= {"air", "room", "place"}:
            return f"You smell the {topic}. {place_line(state, pack, SMELLS)}"
        return f"You breathe in the air of {here}. {place_line(state, pack, SMELLS)}"
    if verb in ("taste", "touch"):
        line = references.detail(topic, state, pack) if topic else None
        if who is not None and (line or references.item(topic, state, pack)) and not references.words(topic) & \
                references.words(who.name):
            who = None  # "tap the old mine lamp": the lamp, not the old man
        target = who.name if who else f"the {thing}"
        if who is not None:
            return f"You reach out to {who.name}, who draws back a little: not from a stranger."
        return f"You {verb} {target}. {end(line)}" if line else f"You {verb} {target}; nothing comes of it."
    if verb in ("nod", "wave"):
        if who is not None:
            return f"You {verb} to {who.name}, and {who.name.split()[0]} answers it with a nod."
        return f"You {verb} to nobody in particular in {here}.{seen}"
    if verb == "kiss":
        first = who.name.split()[0]
        if who.disposition == "friendly":
            return f"You reach for {who.name}, and {first} takes it in good part."
        return f"You reach for {who.name}, and {first} steps back: you are not that close."
    if verb == "wake":
        return f"You shake {who.name}; they are awake already, and say so."
    if verb in ("throw", "drop"):
        item = references.item(topic, state, pack)
        if item is not None and held(state, item.id):
            return f"You weigh your {item.name.lower()} in your hand and think better of losing it; you keep it."
        return f"You have no {thing} to {verb}."
    if verb in ("tie", "cut"):
        return f"You find nothing here worth the {'knot' if verb == 'tie' else 'blade'}; you leave {thing} be."
    if not state.player_input:
        return f"You do that in {here}."
    return f"{second_person(state.player_input, deeds_only=True)}{seen}".strip()


_PERSON = [(re.compile(p), r) for p, r in [(r"\bmyself\b", "yourself"), (r"\bmy\b", "your"), (r"\bmine\b", "yours"),
                                         (r"\bme\b", "you"), (r"\bi am\b", "you are"), (r"\bi'm\b", "you're"),
                                         (r"\bi've\b", "you've"), (r"\bi'd\b", "you'd"), (r"\bi'll\b", "you'll"),
                                         (r"\bi\b", "you"), (r"\bim\b", "you are")]]
_LEADING = re.compile(r"^(?:(?:i try to|i want to|i start to|i will|i'll|let me|try to|attempt to|(?:can|could|may|"
                      r"might) i|i|ok|so|then|just|now|please)\s+)+")


_THEN = re.compile(r"\s*,?\s+(?:and then|and|then|so that|until|while)\s+|\s*,\s+")


_PAIRS = re.compile(r"\b(?:back and forth|up and down|to and fro|round and round|over and over|on and on|in and out|"
                    r"again and again|here and there|this and that|bread and butter|salt and pepper|fish and chips|"
                    r"rock and roll|now and then|then and there|more and more|slowly and carefully|nice and \w+)\b")


def _own_deeds(text: str) -> str:
    """``text`` up to the first clause that is not a deed of the player's own: what a line claims follows from it
    ("clap my hands and everyone falls silent", "whistle and my horse comes running") is not told as done."""
    parts = [p.replace("_", " ") for p in _THEN.split(_PAIRS.sub(lambda m: m.group(0).replace(" ", "_"),
                                                                     text))]
    kept = [parts[0]]
    for part in parts[1:]:
        read = parser.read(part)
        if read is None or read.kind != "deed":
            break
        kept.append(part)
    if len(kept) == len(parts):
        return text
    return " and ".join(kept)


def second_person(line: str, deeds_only: bool = False) -> str:
    """The player's own line told back to them ('pace back and forth' -> 'You pace back and forth.'; 'I roll up my
    sleeves' -> 'You roll up your sleeves.'), for a small deed the rules have no more to say about. ``deeds_only``:
    up to the first clause that is not a deed of the player's own (:func:`_own_deeds`)."""
    text = _LEADING.sub("", " ".join(line.lower().split()).strip(" .!?"))
    text = _own_deeds(text) if deeds_only else text
    text = re.sub(r"^(\w+) (?:me|us) (?=\w)", r"\1 ", text)  # "sing me one": said to nobody else, it is "sing one"
    for pattern, written in _PERSON:
        text = pattern.sub(written, text)
    return f"You {text}." if text else ""


_SERVED = re.compile(r"^(?:can|could|may|might) i (?:have|get|trouble you for)\b|^(?:give|bring|get|fetch|serve) me\b|"
                     r"\bwhat(?:ever)? (?:is|s) (?:cooking|on the (?:fire|stove|hob|spit)|going|on offer)\b|"
                     r"\bwhatever(?: is|'?s)? (?:hot|warm|good|cheap|cheapest|you have|you got)\b|"
                     r"\bthe (?:house|"
                     r"cook|kitchen)\b")  # "grab a bite of whatevers cooking": served here
_OWN = re.compile(r"\b(?:i brought|i packed|i carried|my own|i have with me|(?:from|in) my (?:pack|bag|pockets?|"
                  r"satchel))\b")


# A topic that is a clause after the thing, not the thing ("and will not kill me", "that is cheap").
_NO_THING = re.compile(r"^(?:and|or|but|that|which|so|then|if|as long as)\b.*$")


def _consume(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random, verb: str) -> Resolution:
    """Eat or drink: what you carry first, then what is sold here (a drink in a bar), else nothing to be had."""
    here = pack.locations[state.location]
    named = pack.items.get(router.target_item or "") or (  # "take the water ration": the item the router found
        references.item(router.topic or "", state, pack) if references.words(router.topic or "") else None)
    if named is not None and held(state, named.id) and set(named.tags) & (DRINK_TAGS if verb == "eat" else FOOD_TAGS):
        verb = "drink" if verb == "eat" else "eat"  # a water ration is drunk, a bun eaten, however the line put it
    tags = FOOD_TAGS if verb == "eat" else DRINK_TAGS
    carried = [i for i in state.player.inventory if held(state, i) and i in pack.items and (
        set(pack.items[i].tags) & tags or (named is not None and i == named.id))]
    mine = named.id if named is not None and named.id in carried else (carried[0] if carried else None)
    if mine is not None and named is None and _SERVED.search(router.text):  # "could i trouble you for a bowl of
        mine = None  # something hot": served here, not out of your own pack
    minutes = MINUTES[verb]
    topic = _NO_THING.sub("", router.topic or "")  # "whatever's hot and won't kill me": what is hot, no thing named
    asked = {w for w in references.words(_WHERE_AND_HOW.sub(" ", topic)) - GENERIC_FARE -
             references.QUALIFIERS if not w.endswith("ly")}  # "drink at the bar quietly": a drink, said where and how
    fare = [i for i in here.shop if i in pack.items and set(pack.items[i].tags) & tags]  # what is sold here to eat
    if named is None and asked:  # "drink the tincture" where there is none
        what = router.topic or "that"
        offer = [f"{with_article(pack.items[i].name.lower())} ({money(pack.items[i].value, pack)})" for i in fare]
        instead = f"; here there is {or_list(offer)}" if offer else _nearest_fare(state, pack, tags)  # "i could
        # murder a pie": the buns sold here, else the nearest place that sells any
        return Resolution(make_result(router, None, 1, f"You have no {what} to {verb}, and none is sold in "
                                      f"{the_place(here)}{instead}.", impossible=True))
    if mine is None and named is None and _OWN.search(router.text):  # "I dig into the food I brought along"
        fare = "food" if verb == "eat" else "drink"
        return Resolution(make_result(router, None, 1, f"You carry no {fare} of your own; you have "
                                      f"{trade.carried_list(state, pack) or 'nothing'}.", impossible=True))
    if verb == "drink" and here.type == "bar" and named is None:  # "a drink at the bar": the house's, not your own
        return trade.buy(router.model_copy(update={"target_item": None}), state, pack, rng)
    if mine is not None:
        item = pack.items[mine]
        healed = min(item.heal, state.player.max_hp - state.player.hp)
        gain = f" and get {healed} HP back" if healed else ""
        events = [ev.ItemLose(item=item.id, qty=1)] + ([ev.Heal(amount=item.heal, source=item.id)] if item.heal else [])
        return Resolution(make_result(router, None, minutes, f"You {verb} your {item.name.lower()}{gain}."), events)
    sold = [named.id] if named is not None and named.id in here.shop else fare
    if sold:
        item = pack.items[sold[0]]
        if state.player.credits < item.value:
            return Resolution(make_result(router, None, 1, f"The {item.name.lower()} here costs "
                                          f"{money(item.value, pack)}, more than you have.", impossible=True))
        healed = min(item.heal, state.player.max_hp - state.player.hp)
        gain = f" and get {healed} HP back" if healed else ""
        events = [ev.CreditsChange(delta=-item.value, reason=f"bought {item.name}")] + (
            [ev.Heal(amount=item.heal, source=item.id)] if item.heal else [])
        return Resolution(make_result(router, None, minutes, f"You buy {with_article(item.name.lower())} for "
                                      f"{money(item.value, pack)} and {verb} it there{gain}."), events)
    if verb == "drink" and here.type == "bar":
        return trade.buy(router.model_copy(update={"target_item": None}), state, pack, rng)
    fare = "food" if verb == "eat" else "drink"
    return Resolution(make_result(router, None, 1, f"You carry no {fare}, and nobody sells {fare} in "
                                  f"{the_place(here)}{_nearest_fare(state, pack, tags)}.", impossible=True))


def _nearest_fare(state: GameState, pack: EraPack, tags: frozenset[str]) -> str:
    """'; the nearest is a smoked eel at Cockle Row, 5 minutes away' (by the quickest way), or '' when no place sells
    any."""
    def fare(loc_id: str) -> list:
        shop = pack.locations[loc_id].shop
        return [pack.items[i] for i in shop if i in pack.items and set(pack.items[i].tags) & tags]

    found = nearest(pack, state.location, [loc for loc in pack.locations if loc != state.location and fare(loc)])
    if found is None:
        return ""
    item, minutes = fare(found)[0], minutes_to(pack, state.location, found)
    where = the_place(pack.locations[found])
    return f"; the nearest is {with_article(item.name.lower())} at {where}, {minutes} minutes away"
