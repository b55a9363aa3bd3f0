"""Deterministic classification of player input into intent, action class, tone and targets.

Only pure dialogue becomes TALK; persuasion, deception, threats, recruitment and anything that needs a
check is ACTION. Markup is stripped first (``rules.player_input.strip_markup``), so tags a player types
cannot steer the result. Word lists are Skald's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from skald.core.memo import per_pack
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.records import PresentNpc, RouterOutput
from skald.core.vocab import ActionClass, Intent, Tone
from skald.rules import commands, deeds, interact, narration, parser, references, trade
from skald.rules.player_input import strip_markup
from skald.rules.scene import everyone_at, nearest
from skald.rules.wishes import wish
from skald.text import name_key

META_COMMANDS = commands.ENGINE_KEYS  # every word an out-of-game or timeline command answers to
IN_WORLD = frozenset({"exit"})  # a command's word that, typed bare, is a deed in the world ("exit": leave the place)


def _words(*words: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(words) + r")\b")


# Checked in this order; the first match wins.
PATTERNS: list[tuple[ActionClass, re.Pattern[str]]] = [
    (ActionClass.RECRUIT, _words(r"join (?:me|us|my crew|the crew|my party)", "recruit", "hire",
                                 "(?:to|and) join (?:you|your crew|your party)",  # "ask Rhea to join you"; not "might
                                 # i join you": the player joining them
                                 "sign on", "come (?:along |[a-z]+ing )?(?:with|w) (?:me|us)",
                                 "throw in with (?:me|us)",
                                 "tag along", "team up with (?:me|us)", "(?:want|wanna|like) to team up",
                                 "(?:travel|travell?ing|ride|riding|walk|walking|coming) (?:along )?with (?:me|us)",
                                 "want to come along", "join forces")),
    (ActionClass.ATTACK, _words("attack", "hit", "strike", "stab", "shoot", "punch", "kick", "fight", "kill",
                                "slash", "swing at", "swing (?:it|them|\\w+) (?:hard )?at", "fire at", "tackle",
                                "charge at", "shove", "brawl", "headbutt",
                                "elbow", "slap", "smack", "wallop", "knock out", "strangle", "throttle", "choke",
                                "bludgeon", "club", "jump on", "lunge at",
                                "jump (?:him|her|them|the (?:lads|guys|men|women|boys|drunks|sailors|thugs|guards?|"
                                "reeves?|players|gamblers|dicers|eelers|drillers|miners|\\w+ers))\\b", "go for",
                                "(?<!could )murder", "assault",
                                "maim", "wound", "swing (?:my|the|a|an) [a-z ]{1,30} at",
                                "hit (?:him|her|them|it) with", "(?:smash|break|crack) .{1,30} over", "bash", "bonk",
                                "clobber", "sock", "whack", "slug (?:him|her|them|the)",
                                "beat up", "deck", "sucker[- ]punch", "jab", "pummel", "thump")),
    (ActionClass.INTIMIDATE, _words("threaten", "intimidate", "menace", "scare", "loom over", "demand", "or else",
                                    "glare at", "warn .{0,20} off",
                                    # the idioms: "lean on the clerk", "shake him down", "twist her arm"
                                    "lean on (?!the (?:bar|counter|wall|table|rail|post|door)\\b)"
                                    "(?:him|her|them|the|[a-z]+ until)", "shake .{1,25} down",
                                    "twist (?:his|her|their|[a-z]+'s) arm", "strong[- ]?arm", "put the (?:fear|"
                                    "frighteners|squeeze|screws) (?:on|into)", "get heavy with", "rough .{1,20} up",
                                    "rough up",
                                    # a blade shown to rob someone: "pull my knife on the old man"
                                    "(?:pull|draw|flash|point|wave) (?:out )?(?:my|a|the) (?:knife|blade|dagger|gun|"
                                    "pistol|sword|gaff|cutter|wrench|spanner|cudgel) (?:on|at)",
                                    "(?:hold|put) (?:my|a|the) (?:knife|blade|dagger|gun|pistol|sword) to",
                                    "hand over (?:his|her|their|your|the) (?:purse|money|coin|coins|credits|greys|"
                                    "wallet|takings|valuables|cash)", "your money or your life")),
    (ActionClass.DECEIVE, _words("lie", "lie to", "bluff", "pretend", "deceive", "trick", "con", "forge",
                                 "spin .{1,25} (?:a|some|the) (?:tale|yarn|story|line)", "feed .{1,25} a line",
                                 "pull the wool", "hoodwink", "dupe", "string .{1,25} along", "tall tale",
                                 "flash (?:a|my|the|some) (?:fake )?(?:badge|seal|warrant|papers|writ|token|pass)",
                                 "impersonate", "pass myself off as", "(?:then|and) (?:do not|don't|dont|never) pay",
                                 "disguise", "claim to be", "feign", "pose as", "fib")),
    (ActionClass.PERSUADE, _words("persuade", "convince", "negotiate", "bargain", "haggle", "plead", "reason with",
                                  "compliment", "praise",
                                  "(?:earn|win|gain) (?:his|her|their|[a-z]+'s) trust", "level with",
                                  "put .{1,25} at (?:ease|rest)", "make (?:my|our|your) case", "talk .{1,25} round",
                                  "show .{1,25} (?:i|you|we) mean (?:well|no harm)",
                                  "appeal to", "charm", "flatter", "bribe", "talk .{1,30} into", "win over",
                                  "win .{1,25} over", "flirt", "beg", "sweet[- ]talk", "woo", "sway", "coax", "cajole",
                                  "on (?:my|our) side", "make a speech", "give a speech", "rally", "implore",
                                  # haggling over a price or a fee: "that is steep, knock a bit off"
                                  "knock (?:a bit|a little|something|some|a few [a-z]+|(?:a|an|one|two|three|four|five|"
                                  "[0-9]+) [a-z]+) off",
                                  "(?:will|would|could|can) you buy me", "buy me (?:a|an|one|another|some) [a-z ]+\\?",
                                  "(?:lower|drop|cut) (?:the|your) (?:price|fee|rate|asking price)",
                                  "come down (?:a bit|a little|on (?:the|that|your) (?:price|fee))",
                                  "meet me (?:half ?way|in the middle)", "(?:a|any) discount",
                                  "(?:give|do) me a (?:better|fairer|good) (?:price|deal|rate)",
                                  "(?:that is|that's|thats|it is|it's|a bit|bit|too|way too) (?:steep|pricey)",
                                  # a compliment is flattery: "you're wasted on this crowd"
                                  "(?:you are|you're|youre|ur|your(?= an? )) (?:a legend|a star|a gem|a saint|"
                                  "a hero|amazing|awesome|the man|the woman|wasted on|too good for|the best|lovely|"
                                  "beautiful|gorgeous|brilliant|wonderful|a treasure|an angel|cute|pretty|handsome)",
                                  "(?:kindest|nicest|prettiest|loveliest|finest|sweetest|warmest|brightest|most "
                                  "beautiful) (?:eyes|smile|face|voice|laugh|hands)",
                                  "(?:have|got) (?:such )?(?:a )?(?:kind|lovely|beautiful|pretty|warm|honest|gorgeous) "
                                  "(?:eyes|smile|face|voice|laugh)",
                                  # a free drink or a free room asked as a favour: "surely that's worth a free drink"
                                  "(?:worth|earn me|get me|for) a free (?:drink|round|pint|ale|beer|meal|room|bed|"
                                  "bite)",
                                  # a coin slipped to someone for what they know or will do is a bribe
                                  "(?:slip|pass|press|offer) (?:him|her|them|the [a-z]+(?: [a-z]+)?) (?:a|some|a few|"
                                  "[0-9]+) (?:coins?|greys?|credits?|money|scrip)(?: [a-z]+)? (?:to|for|if)",
                                  "best (?:\\w+ )?(?:drink|ale|beer|stew|cook|bartender|barkeep|innkeeper|host|singer|"
                                  "voice|service) in (?:the|this) (?:whole )?(?:place|town|reach|city|world|rift)",
                                  "too (?:expensive|dear)")),
    (ActionClass.SNEAK, _words("sneak", "hide", "creep", "slip past", "slip away", "steal", "pickpocket", "filch",
                               "pilfer", "purloin",
                               "(?:snatch|yank) (?:a |some |the |an )?[a-z ]{1,30}(?:from|off) (?:his|her|their|"
                               "the \\w+'s) (?:belt|hands?|pockets?|purse|bag|satchel|neck|wrist)",
                               "(?:pinch|nick|swipe|lift|palm|pocket) (?:a |some |the |a few |an )?"
                               "[a-z ]{1,30}(?:from|"
                               "out of|off) (?:the|his|her|their|a)",
                               "pick the lock", "lockpick", "tail", "shadow", "stalk", "tiptoe")),
    (ActionClass.SELL, _words("(?:does )?(?:any ?one|any ?body|someone|somebody|who)(?: here| around here)? "
                              "(?:buy|buys|buying|wanna buy|want to buy|interested in buying)",  # "anyone buy ore?"
                              "^(?:you |ya |u |do you |does anyone )?(?:wanna|want to|wan na) buy")),
    (ActionClass.SELL, _words("(?<!they )(?<!who )(?<!people )(?<!folk )sell(?! (?:me|us)\\b)", "pawn", "trade in",
                              "what(?: will| would|'ll|'d|ll) (?:you|u|ya) (?:give|pay|offer) (?:me )?for",
                              "how much (?:will|would) (?:you|u|ya) (?:give|pay|offer) (?:me )?for",
                              "offload", "flog", "trade (?:my|away|off)",
                              "swap (?:my|away)", "barter (?:my|away)", "exchange my")),
    (ActionClass.BUY, _words("buy(?! me (?:a|an|one|another|some) [a-z ]+\\?)", "purchase",
                             "(?:offer|stand|get) (?:him|her|them|the [a-z]+(?: [a-z]+)?) (?:a|an|one|another) "
                             "(?:drink|pint|round|ale|beer|dram)",
                             "pay (?:for )?(?:the|a|an|his|her|their|a round of) (?:drink|drinks|round|pint|ale|"
                             "beer|meal)", "sell (?:me|us)", "order", "pay for", "shop for",
                             "get me (?:a|an|some|the|one)",
                             "(?:can|could|may) i (?:get|have|grab) (?:a|an|some|one|two)(?! (?:word|moment|minute|"
                             "second|look|hand|room|rest|break|bit of (?:quiet|peace)|food|something|bite|meal|"
                             "drink|pint|snack|breakfast|lunch|dinner|supper)\\b)",
                             "get (?:a|an|some|one|two) [a-z ]{1,30}? (?:off|from) (?:you|ya|u)",
                             "(?:i will|ill|i'll|i would|id|i'd) (?:take|have) (?:one|two|a couple|a few) of (?:them|"
                             "those|these|the|your)")),
    (ActionClass.INTERACT, _words("lend a hand", "give .{0,30}a hand", "offer a hand", "help out")),  # not gifts
    (ActionClass.GIVE, _words("give(?!\\s*[.!?,]*$| way| in\\b| up\\b)"  # "feel the boards give": no gift
                              "(?! (?:[a-z']+ ){0,3}(?:a|an) (?:[a-z]+ )?(?:nod|look|smile|wink|wave|shrug|glance|"
                              "grin|stare|salute|bow|once-over)\\b)", "hand over",
                              "(?<!a )(?<!my )(?<!your )(?<!by )(?<!the )(?<!this )(?<!that )hand",
                              "donate",
                              "pay(?! for| attention| heed| a visit| (?:my|your|our) respects)", "tip", "gift",
                              "slip .{1,20} a coin", "(?:slide|slip|pass|push|toss|flip) (?:a|one|him a|her a) (?:coin|"
                              "grey|credit|penny) (?:to|across to|over to|toward|towards)",
                              "(?:slide|slip|pass|push|toss|flip|hand|press) (?:the |that |this |her |him |them )?"
                              "(?:[a-z]+ )?(?:a|one|some) (?:coin|grey|credit|penny|coins|greys|credits)")),
    (ActionClass.USE_ITEM, _words("use", "drink", "eat", "apply", "inject", "swallow", "put on", "wear")),
    (ActionClass.INVESTIGATE, _words("go through", "rifle through", "rummage through", "look through",
                                     "search through", "pick through", "go over")),  # not a journey
    (ActionClass.TRAVEL, _words("take me to", "lead me to", "bring me to", "show me the way to", "go to",
                                "go back to", "travel", "head to", "head for", "head back", "walk to", "walking to",
                                "heading to",
                                "heading for", "keep going to", "carry on to", "press on to",
                                "leave for", "return to", "ride to", "make for", "set out", "set off", "journey",
                                "go", "move to", "drive to", "flee", "run away", "retreat", "escape")),
    (ActionClass.REST, _words("rest", "(?<!in my )(?<!in your )sleep", "nap", "wait", "camp", "take a break", "lie low",
                              "catch my breath")),
    (ActionClass.DIALOGUE_ONLY, re.compile(r"^(?:talk|speak|ask|tell|say|greet|chat|reply|answer|hello|hi|hey|"
                                           r"thank|introduce|wave|nod|whisper|shout|call out)\b|^[\"']")),
    (ActionClass.INVESTIGATE, _words("look", "search", "examine", "inspect", "investigate", "study", "read",
                                     "rummage", "poke around", "snoop", "nose around", "scout", "hunt around",
                                     "scan", "check", "survey", "observe", "listen", "eavesdrop", "explore",
                                     "watch", "peer", "analy[sz]e", "look around")),
    (ActionClass.INTERACT, _words("open", "take", "pick up", "grab", "push", "pull", "climb", "repair",
                                  "fix", "show", "trade", "work", "help", "close", "light")),
    (ActionClass.DIALOGUE_ONLY, _words("talk", "speak", "ask", "tell", "say", "chat", "greet")),
]

RENEGADE_WORDS = _words("insult", "mock", "sneer", "spit", "curse", "jeer", "taunt", "shove", "rude", "laugh at",
                        "steal", "lie", "threaten", "kill", "rob", "cheat", "betray", "bully", "extort")
PARAGON_WORDS = _words("help", "kindly", "thank", "comfort", "share", "protect", "apologi[sz]e", "give", "heal",
                       "reassure", "gently", "console", "offer", "honest", "promise", "defend", "please", "sorry",
                       "keep (?:my|your) word")
INVESTIGATE_WORDS = _words("why", "how", "what", "who", "where", "ask about", "question", "rumou?rs?", "learn",
                           "find out", "wonder")

TONE_BY_CLASS = {
    ActionClass.ATTACK: Tone.RENEGADE,
    ActionClass.INTIMIDATE: Tone.RENEGADE,
    ActionClass.DECEIVE: Tone.RENEGADE,
    ActionClass.INVESTIGATE: Tone.INVESTIGATE,
    ActionClass.PERSUADE: Tone.PARAGON,
    ActionClass.RECRUIT: Tone.PARAGON,
    ActionClass.GIVE: Tone.PARAGON,
}


PLACE_WORDS = references.PLACE_WORDS  # everyday words for kinds of place, for "go to the inn" when no place is named


def _norm(text: str) -> str:
    return text.lower().replace("_", " ")


def as_typed(raw: str) -> str:
    """The player's line as the rules first see it (markup stripped, lower case), before slips are read as meant:
    what the player said, as the records and the narrator's prompt quote it."""
    return _norm(strip_markup(raw.strip()))


@lru_cache(maxsize=8192)
def _pattern(phrase: str) -> tuple[str, re.Pattern[str]]:
    """``phrase`` normalised, and the pattern that finds it as whole words."""
    norm = _norm(phrase)
    return norm, re.compile(r"\b" + re.escape(norm) + r"\b")


def _mentions(text: str, phrase: str) -> bool:
    """Whether ``phrase`` (normalised) stands as whole words in ``text`` (already normalised)."""
    if not phrase:
        return False
    norm, pattern = _pattern(phrase)
    return norm in text and pattern.search(text) is not None  # the substring test rules most people out cheaply


class _Person(NamedTuple):
    id: str
    name: str
    role: str


# Words after a person's name that tell of them without dictating a deed: "hesper looks tired", "tobin seems off".
_TELLING = frozenset({"looks", "seems", "appears", "sounds", "is", "was", "has", "says", "said", "smells", "feels",
                      # a question or a word said to them, typed without its apostrophe: "hesper whats your story"
                      "whats", "hows", "wheres", "whos", "whys", "thats", "lets", "heres", "theres", "yours", "thanks",
                      "cheers", "its", "guess", "does"})
_THIRD_PERSON = re.compile(r"^(?:just |then |suddenly |finally |now |quietly |happily )?([a-z]+s)\b")


def _dictated(text: str, pack: EraPack) -> _Person | None:
    """The pack's person whose deed a line dictates ("odile signs the brass eel over to me", "rafe lusk decides im
    captain now", "the reeve gets down on his knees"): the line starts with their name (or the head word of their
    role, after "the") and goes on with a verb of theirs. None for a line said to them ("odile, a room please") or
    one that only tells of them ("hesper looks tired")."""
    called, first_words = _called(pack)
    if text.split(" ", 1)[0] not in first_words:  # most lines: no name of anyone at their start
        return None
    for name, person in called:
        if not text.startswith(name + " "):
            continue
        verb = _THIRD_PERSON.match(text[len(name) + 1:])
        if verb and verb.group(1) not in _TELLING and len(verb.group(1)) > 3:
            return person
    return None


@per_pack
def _called(pack: EraPack) -> tuple[tuple[tuple[str, _Person], ...], frozenset[str]]:
    """What each pack person may be called at the start of a line (name, either part of it, "the" and their role or
    its head word), person by person in pack order and longest first; and the first words of all of them. Built once
    per pack version: the router asks for every line."""
    called: list[tuple[str, _Person]] = []
    for person in _everyone_in(pack):
        names = [person.name.lower(), *person.name.lower().split()]
        role = person.role.lower().split()
        names += [f"the {role[-1]}", f"the {' '.join(role)}"] if role else []
        called += [(name, person) for name in sorted(set(names), key=len, reverse=True)]
    return tuple(called), frozenset(name.split(" ", 1)[0] for name, _ in called)


@per_pack
def _everyone_in(pack: EraPack) -> tuple[_Person, ...]:
    """Every pack NPC and companion (id, name, role), built once per pack version."""
    return tuple(_Person(n.id, n.name, n.role) for n in [*pack.npcs.values(), *pack.companions.values()])


@per_pack
def _aliases_of(pack: EraPack) -> dict[str, tuple[str, ...]]:
    """Person or place id -> its pack-declared aliases without a leading article, built once per pack version."""
    named = [*pack.npcs.values(), *pack.companions.values(), *pack.locations.values()]
    return {n.id: tuple(name_key(a) for a in n.aliases) for n in named if n.aliases}


def _match_npc(text: str, people: list[PresentNpc] | list[_Person], pack: EraPack, roles: bool = True) -> str | None:
    """The first person named (full name or alias, then given or family name) or described by role in ``text``."""
    aliases = _aliases_of(pack)
    for person in people:
        if _mentions(text, person.name) or any(_mentions(text, a) for a in aliases.get(person.id, ())):
            return person.id
    words = _word_set(text)
    for person in people:
        if any(part in words if plain else _mentions(text, part) for part, plain in _name_parts(person.name)):
            return person.id
    for person in people if roles else []:
        if _mentions(text, person.role) or _mentions(text, person.role.split()[-1]):
            return person.id
    return None


_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=4096)
def _word_set(text: str) -> frozenset[str]:
    """The plain words of ``text`` (already normalised): a set lookup stands for a whole-word match."""
    return frozenset(_WORD.findall(text))


@lru_cache(maxsize=4096)
def _name_parts(name: str) -> tuple[tuple[str, bool], ...]:
    """The given and family names worth matching alone (longer than two letters), normalised, each with whether it is
    a plain word (a set lookup finds it) or holds other characters (a pattern must)."""
    parts = [_norm(p) for p in name.split() if len(p) > 2]
    return tuple((p, _WORD.fullmatch(p) is not None) for p in parts)


def _match_location(text: str, state: PersistentState, pack: EraPack) -> str | None:
    """A linked location named in ``text`` first, then any location in the pack."""
    linked = [link.to for link in pack.locations[state.location].links]
    ordered = linked + [loc for loc in pack.locations if loc not in linked]
    for loc_id in ordered:
        loc = pack.locations[loc_id]
        name = re.sub(r"^the ", "", _norm(loc.name))
        if _mentions(text, name) or _mentions(text, loc_id) or any(_mentions(text, a)
                                                                   for a in _aliases_of(pack).get(loc_id, ())):
            return loc_id
    for loc_id in ordered:  # a distinctive word of the name ("the Rift Clinic" -> "clinic"), unless the line puts
        # another name before it ("the Charter House" is not "the Tithe House")
        name = _norm(pack.locations[loc_id].name)
        words = [w for w in re.findall(r"[a-z]{4,}", name) if w not in {"the"}]
        if any(_mentions(text, w) and not _named_otherwise(text, w, name) for w in words):
            return loc_id
    for kind, words in PLACE_WORDS.items():  # "the inn", "a doctor": the nearest place of that kind
        if any(_mentions(text, w) and not _named_otherwise(text, w, "") for w in words):
            return nearest(pack, state.location, [loc for loc in ordered if pack.locations[loc].type == kind])
    return None


_BEFORE_A_NAME = frozenset({"the", "a", "an", "to", "at", "into", "for", "back", "my", "this", "that", "old", "of",
                            "nearest", "closest", "local", "next", "other", "another", "some", "any", "new", "good",
                            "toward", "towards", "down", "up", "over", "through", "in", "on", "go", "head", "walk"})


def _named_otherwise(text: str, word: str, name: str) -> bool:
    """Whether ``word`` stands in ``text`` after a word that is neither in ``name`` nor a little word ('charter
    house' against 'tithe house')."""
    found = re.search(r"(\w+)\s+" + re.escape(word) + r"\b", text)
    return found is not None and found.group(1) not in _BEFORE_A_NAME and found.group(1) not in name.split()


def _match_item(text: str, state: PersistentState, pack: EraPack) -> str | None:
    text = re.sub(r"\bpick up\b", "take", text)  # the verb, not a pick
    items = pack.items
    candidates = list(state.player.inventory) + list(pack.locations[state.location].shop) + list(items)
    for item_id in candidates:
        item = items.get(item_id)
        if item and (_mentions(text, item.name) or _mentions(text, item_id)):
            return item_id
    asked = references.words(parser.object_of(text)) - _people_words(pack)  # "give tobin the core": tobin is no thing
    for item_id in candidates:  # a telling word: the head noun ("the eel"), or a long word ("beacon")
        item = items.get(item_id)
        told = item is not None and any(_mentions(text, w) or _mentions(text, f"{w}s")
                                        for w in _telling_words(item.name))
        if told and not references.other_thing(asked, item):  # "a bridge token" is not the company scrip token
            return item_id
    return None


@per_pack
def _people_words(pack: EraPack) -> frozenset[str]:
    """The words of every person's name and role in the pack: in "give tobin the control core" or "hand the
    bartender my lamp" they name who gets the thing, not another thing."""
    people = [*pack.npcs.values(), *pack.companions.values()]
    return frozenset(w for p in people for w in references.words(f"{p.name} {p.role}"))


@lru_cache(maxsize=1024)
def _telling_words(name: str) -> tuple[str, ...]:
    words = re.findall(r"[a-z]+", _norm(name))
    return tuple(w for i, w in enumerate(words) if (i == len(words) - 1 and len(w) >= 3) or len(w) >= 5)


def classify_tone(text: str, action_class: ActionClass) -> Tone:
    """Tone of the player's action: words first, then the action class's default.

    Violence (ATTACK, INTIMIDATE) is always RENEGADE: "please" or "kindly" cannot make a stab PARAGON.
    """
    if action_class in (ActionClass.ATTACK, ActionClass.INTIMIDATE) or RENEGADE_WORDS.search(text):
        return Tone.RENEGADE
    if PARAGON_WORDS.search(text):
        return Tone.PARAGON
    if action_class in TONE_BY_CLASS:
        return TONE_BY_CLASS[action_class]
    if INVESTIGATE_WORDS.search(text):
        return Tone.INVESTIGATE
    return Tone.NEUTRAL


def classify(raw: str, state: PersistentState, pack: EraPack) -> RouterOutput:
    """Classify one (already validated) player input.

    :returns: a :class:`RouterOutput`; META for ``/command`` or a bare command word, TALK only for
        pure dialogue, ACTION for everything else. While the player is defeated every non-META input
        becomes the RECOVER action.
    """
    stripped = raw.strip()
    bare = stripped.lstrip("/").split(maxsplit=1)
    if stripped.startswith("/") or (bare and bare[0].lower() in META_COMMANDS and len(bare) == 1
                                    and bare[0].lower() not in IN_WORLD):
        typed = bare[0].lower() if bare else "help"
        found = commands.find(typed)  # its name: "/episodes" is /episode, and "/inv" /inventory
        command = found.name if found is not None else typed
        return RouterOutput(
            intent=Intent.META,
            action_class=ActionClass.META,
            tone=Tone.NEUTRAL,
            text=stripped,
            meta_command=command,
            meta_args=bare[1] if len(bare) > 1 else "",
        )
    stripped = _HAIL_NO_COMMA.sub(r"\1 \2, ", stripped)  # "oi old timer whats ur deal": said to the old timer
    stripped = _ABBREVIATED.get(stripped.lower(), stripped)  # "l": look around
    lowered = stripped.lower()
    checked = _CHECK_ASKED.search(lowered) if not state.player.defeated else None
    if checked is not None:  # "can I make a perception check on the room?": the search it asks for
        meant = "sneak around quietly" if checked.group("kind") == "stealth" else \
            f"search {(checked.group('what') or '').strip() or 'around'}"
        return classify(meant, state, pack).model_copy(update={"read_as": meant, "read_by": "clause",
                                                               "said": _norm(stripped)})
    if _AWAY.search(lowered):  # "brb gotta let the dog out", "lol my cat knocked my coffee over, afk"
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.INTERACT, tone=Tone.NEUTRAL,
                            text=_norm(stripped), verb="away")
    if _RULES_ASKED.search(lowered) and _ASKED_OF_THE_GAME.match(lowered):  # "how do I level
        # up?", "what happens if I die?": the game's rules; "level up to 100" is a wish, refused in the world
        return RouterOutput(intent=Intent.META, action_class=ActionClass.META, tone=Tone.NEUTRAL, text=stripped,
                            meta_command="rules")
    if _TEMPLATE.search(stripped):  # "{{user}} suddenly remembers they are a dragon": a chat template, not a deed
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.INTERACT, tone=Tone.NEUTRAL,
                            text=_norm(stripped), verb="aside")
    stripped = narration.as_own(stripped) or narration.acted(stripped)  # "You wave the bartender over.", "*sits*"
    text = _norm(strip_markup(stripped))
    if state.player.defeated:
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.RECOVER, tone=Tone.NEUTRAL, text=text)
    if not text:  # "[Narrator, describe my character as the chosen one]": all of it out of character
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.INTERACT, tone=Tone.NEUTRAL,
                            text=_norm(stripped), verb="aside")
    people = everyone_at(state, pack, state.location)
    # Everything the classification below depends on; the suggestion check classifies the same labels in the same
    # scenes turn after turn, so the answer is kept (RouterOutput is never modified once made).
    last = last_spoken_with(state, pack, people)
    key = (pack.id, pack.content_hash, text, state.location, state.combat is None,
           tuple((p.id, p.name, p.role) for p in people), tuple(state.player.inventory), last, _came_from(state))
    routed = _CLASSIFIED.get(key)
    if routed is None:
        routed = _classify_text(text, state, pack, people, last)
        if len(_CLASSIFIED) >= CLASSIFIED_KEPT:
            _CLASSIFIED.clear()
        _CLASSIFIED[key] = routed
    return routed


# A deed said not to be done: "cant buy you a drink", "i won't fight you", "never stole a thing".
_NEGATED = re.compile(r"\b(?:cannot|can not|can't|cant|won't|wont|will not|don't|dont|do not|didn't|didnt|did not|"
                      r"not going to|never|couldn't|couldnt|could not|wouldn't|wouldnt|would not|no need to) (?:even )?"
                      r"(?:afford to )?[a-z]+")
# A sum offered for the thing just priced, and the price taken ("i'll give you 4", "8 it is, hand it over").
_MY_OFFER = re.compile(r"\b(?:i will give you|i will pay(?: you)?|i can (?:give you|pay|do)|how about|would you "
                       r"take|will you take|i (?:will )?offer(?: you)?|best i can do is|i will go)\s+(?P<n>\d+)\b")
_TAKEN = re.compile(r"\b(?:\d+ it is|hand it over|i will take it|i will have it|i will buy it|sold|wrap it up|"
                    r"fine ,? (?:i will pay|take my money)|take my money)\b")
# A check asked for by its tabletop name ("can I make a perception check on the room?", "i roll for perception",
# "roll investigation: which pipes..."): the deed the rules check that way.
_CHECK_ASKED = re.compile(r"\b(?:make|roll|do|try|attempt|go for)\s+(?:a |an |for |for a |for an )?(?P<kind>"
                          r"perception|investigation|investigate|insight|awareness|search|stealth)(?: check| roll| "
                          r"test)?(?:\s+(?:on|of|in|at|around)\s+(?P<what>(?:the |this |that )?[a-z' ]+?))?"
                          r"\s*(?:[?.!:,]|$)")
# A question about the game's own rules, asked in play: answered by /rules, out of the story.
_RULES_ASKED = re.compile(r"\b(?:level(?:l)?ing up|level up|gain (?:a )?levels?|experience points|xp|skill points|"
                          r"how (?:do|does) (?:the )?(?:checks|skill checks|rolls|rolling|dice|combat|fighting|stress) "
                          r"work|"
                          r"what happens (?:if|when) (?:i|my character|you) (?:die|dies|get killed|am killed|lose all "
                          r"(?:my|your) hp|run out of hp|hit zero(?: hp)?)|(?:is there|do you have) (?:permadeath|"
                          r"perma death|permanent death)|rules question)\b")
_ASKED_OF_THE_GAME = re.compile(r"^(?:(?:quick |a )?rules? question|(?:ok |so |um |hey )?(?:how|what|do|does|did|can|"
                                r"could|is|are|will|when|where|why)\b)|.*\?\s*$")
_ABBREVIATED = {"l": "look around", "z": "wait a while"}  # a parser game's one-letter commands, typed alone
# Coaxing a secret out ("come on, just between us, nobody has to know you told me", "i won't say a word"): read
# before negated verbs are set aside, since the promise is one.
_COAXING = re.compile(r"\b(?:just between us|between you and me|off the record|your secret is safe|(?:i|we) can keep "
                      r"a secret|(?:nobody|no one|noone) (?:has|needs|have|need|is going|will ever get) to know|"
                      r"(?:you|u) can trust me|(?:i|we) (?:will not|won't|wont|would never|will never|shall not) "
                      r"(?:tell|say|breathe) (?:anyone|anybody|a soul|a living soul|a word|a thing))\b")
# Someone hailed before a question, without the comma ("oi old timer whats ur deal", "hey you where is the inn"):
# the comma put back, so the words before it name whom the question is for.
_ASKING_WORD = (r"(?:what|whats|who|whos|where|wheres|why|how|hows|do|does|did|is|are|can|could|will|would|any|"
                r"got)\b")
_HAIL_NO_COMMA = re.compile(r"^(hey|oi|oy|yo|psst|excuse me|listen)\s+((?!" + _ASKING_WORD + r")(?:[a-z']+\s+){0,2}?"
                            r"[a-z']+)\s+(?=" + _ASKING_WORD + ")", re.IGNORECASE)
# The player stepping away from the keyboard, said in chat's own words: never a deed in the world ("brb", "afk").
# ("Be back in a bit" is left to the world: it may be said to someone there.)
_AWAY = re.compile(r"\b(?:brb|afk|gtg|g2g|bbl|bbiab)\b")
_TEMPLATE = re.compile(r"\{\{\s*(?:user|char|player|narrator|persona|bot)\s*\}\}", re.IGNORECASE)
CLASSIFIED_KEPT = 4096
_CLASSIFIED: dict[tuple, RouterOutput] = {}
_KINDS: dict[tuple, tuple[ActionClass, Tone]] = {}


def kind_of(raw: str, state: PersistentState, pack: EraPack) -> tuple[ActionClass, Tone]:
    """What ``raw`` would play as: its action class and tone, exactly as :func:`classify` decides them. This is the
    question the suggestion check asks of every label, and its answer does not depend on what the player carries
    (the inventory only picks among the items a text names), so it is kept across turns by the scene alone."""
    stripped = raw.strip()
    if state.player.defeated or stripped.startswith("/") or (stripped.lower() in META_COMMANDS
                                                             and stripped.lower() not in IN_WORLD):
        routed = classify(raw, state, pack)
        return routed.action_class, routed.tone
    stripped = narration.as_own(stripped) or narration.acted(stripped)  # as classify reads it
    text = _norm(strip_markup(stripped))
    if not text:  # all of it markup: an aside, as classify reads it
        return ActionClass.INTERACT, Tone.NEUTRAL
    people = everyone_at(state, pack, state.location)
    key = (pack.id, pack.content_hash, text, state.location, state.combat is None,
           tuple((p.id, p.name, p.role) for p in people))
    kind = _KINDS.get(key)
    if kind is None:
        routed = _classify_text(text, state, pack, people)
        kind = (routed.action_class, routed.tone)
        if len(_KINDS) >= CLASSIFIED_KEPT:
            _KINDS.clear()
        _KINDS[key] = kind
    return kind


# Action classes the patterns name so plainly that no reading of the line overrules them ("can I buy a drink?" buys).
STRONG = frozenset({ActionClass.RECRUIT, ActionClass.ATTACK, ActionClass.INTIMIDATE, ActionClass.DECEIVE,
                    ActionClass.PERSUADE, ActionClass.SNEAK, ActionClass.SELL, ActionClass.BUY, ActionClass.GIVE})
# A claim to carry something ("i have a revolver", "i pull out my crossbow"), not a phrase ("i have a question").
CLAIM = re.compile(r"^i (?:have|have got|got|carry|am carrying|pull out|produce|whip out|take out|reach for) "
                   r"(?:a|an|my|the|some) (?!question|idea|plan|feeling|offer|proposal|deal|message|favou?r|thought|"
                   r"suggestion|confession|secret|problem|request|job|story|hunch|theory|look|drink|bite|seat|rest|"
                   r"nap|chat|word|go|try|think|wash|listen|moment|minute|sec|second|bad feeling|good feeling|"
                   r"right|bone|score|point)(?P<thing>[a-z' -]{2,40})$")
# Gear used that the player may not have: "I fire the laser cannon strapped to my back", "draw my pistol".
USED = re.compile(r"^(?:i )?(?:(?:fire|shoot|aim|activate|switch on|turn on|power up|unholster|unsheathe|draw|whip out|"
                  r"strap on|rev up|start up|boot up|dial|call (?:someone )?on) (?:my|the)|(?:whistle for|call for|"
                  r"summon|saddle|mount|ride|hop on|get on|climb on) my|(?P<deed>[a-z]+) (?:[a-z' ]{1,30} )?(?:with|"
                  r"using) my) (?P<thing>[a-z' -]{2,30}?)"
                  r"(?: (?:strapped|slung|hanging|holstered|tucked|on my|from my|at|to|and|in|off|away)\b.*)?$")


def _claimed_use(text: str, state: PersistentState, pack: EraPack) -> re.Match[str] | None:
    """A line that uses gear (``USED``) the player does not carry and the place does not show ('fire the laser
    cannon'), as a claim to have it; None otherwise."""
    found = USED.match(text) if " and " not in text or re.match(r"^(?:i )?(?:whistle|call) for my", text) else None
    # "draw my knife and lunge at ...": the attack
    if found is not None and found.group("deed") and next((cls for cls, pattern in PATTERNS if pattern.search(text)),
                                                          None) in (ActionClass.ATTACK, ActionClass.INTIMIDATE):
        return None  # "attack odile with my lantern": the attack says what it is done with
    if found is None or (f"my {found.group('thing')}" not in text and references.detail(
            found.group("thing"), state, pack) is not None) or references.words(found.group("thing")) & _BODY:
        return None
    item = references.item(found.group("thing"), state, pack)
    return found if item is None or state.player.inventory.get(item.id, 0) <= 0 else None


# What a player has on them without carrying it: "with my bare hands", "using my wits".
_BODY = frozenset({"hands", "hand", "fists", "fist", "feet", "foot", "eyes", "eye", "teeth", "head", "voice", "life",
                   "mind", "wits", "charm", "friend", "friends", "companion", "own", "elbow", "elbows", "knee", "knees",
                   "shoulder", "fingers", "finger", "thumb", "body", "weight", "boot", "boots", "breath", "tongue",
                   "words", "heart", "soul", "back", "arm", "arms", "legs", "leg", "strength", "coat", "cloak",
                   "sleeve",
                   "hat", "mouth", "lips", "nose", "ears", "skills", "skill", "money", "coin", "coins", "purse", "pay"})


ASKS_AFTER = ("is there", "are there")  # "is there a boat i could hire?": a question, whatever verb it holds
LONG_WAIT = re.compile(r"\b(?:night|nightfall|morning|dawn|dusk|evening|noon|hours?|tomorrow|sunrise|sunset|dark|"
                       r"for a while)\b")
WH_WORDS = frozenset({"who", "what", "where", "when", "why", "how", "which", "whose", "whats", "what's", "hows",
                      "how's", "wheres", "where's", "whos", "who's"})
VAGUE_PLACES = frozenset({"somewhere", "anywhere", "elsewhere", "nice", "else", "away", "around", "off", "safe",
                          "quiet", "new", "different", "place", "out", "outside", "onward", "onwards", "ahead",
                          "forward", "further", "far", "along"})
_AFTER_VERB = re.compile(r"^.*?\b(?:talk|speak|chat|ask|greet|say (?:hi|hello))(?: (?:up|over))?"
                         r"(?: (?:to|with|at))?\s+")
# Someone hailed by a description before a question: "hey old man, what do you know about the abbey".
_HAILED = re.compile(r"^(?:(?:hey|oi|ho|excuse me|pardon me|say|hello|hi|yo|sorry)[ ,]+)?(?P<who>(?:you |the |my )?"
                     r"[a-z' ]{2,30}?)\s*,\s*(?=(?:what|who|where|why|how|do|does|is|are|can|could|will|would|tell|"
                     r"any|anything|anyone|anybody|anywhere|have|has|got)\b)")
_SAID_TO_YOU = re.compile(r"\b(?:you|your|youre|you're|youve|you've|ya|u|ur)\b")
# Things thrown at someone that hurt nobody: "throw a coin at the singer", "throw a wink at her".
_HARMLESS = re.compile(r"^(?:a |an |some |my |the |one )?(?:coins?|grey|greys|credits?|scrip|money|penny|pennies|"
                       r"flowers?|rose|kiss|kisses|wink|look|glance|smile|compliment|question|bone|crumbs?|peanuts?|"
                       r"nuts?|tip)\b")
_TO_PLACE = re.compile(r"\b(?:to|for|towards?)\s+(?P<where>[a-z' -]{2,40})$")
HERE_THINGS = frozenset({"bar", "counter", "table", "fire", "hearth", "door", "window", "corner", "stage", "stall",
                         "booth", "bench", "stove", "taps", "up"})  # what a step across the room goes to
PRONOUN_WORDS = re.compile(r"\b(?:him|her|them|he|she)\b")


def last_spoken_with(state: PersistentState, pack: EraPack, people: list[PresentNpc]) -> str | None:
    """The person here the player last addressed by name or role, within the turns ``state.recent`` keeps and
    without leaving this place since; None when there is none."""
    for turn in reversed(state.recent):
        if turn.location != state.location:
            return None
        if turn.action_class == ActionClass.META:
            continue
        said = _norm(turn.input)
        found = _match_npc(said, people, pack)
        if found is None and turn.action_class in TALKING:  # "talk to the old man": whoever the words describe
            described = _described(said, state, pack, people)
            found = described.id if described else None
        looked = parser.EXAMINE.match(said) if found is None else None
        if looked is not None:  # "look at the old man", then "talk to him"
            described = references.person(looked.group("t"), state, pack, people)
            found = described.id if described else None
        if found is not None:
            return found
    return None


# How a line that only describes someone starts ("the big woman who...", "old miner dude with the cough"); a line
# that starts with a verb the rules do not know ("clock the old man") is the semantic reader's.
DESCRIPTION_LEADS = frozenset("""the that this those these a an some uh um er hey yo oi old young big little small tall
short fat thin skinny loud quiet freckled freckly scarred bald grey gray red dark pale tired drunk sad angry grumpy
nervous weird creepy shady""".split())
FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself|i'm|im|ive|i've|gimme|lemme|we|us|our)\b")  # a claim, not a look
TRADING = frozenset({ActionClass.BUY, ActionClass.SELL, ActionClass.GIVE})  # what a told line's clause names matters
HAGGLING = re.compile(r"\b(?:knock|off the (?:lot|price|total)|discount|better price|cheaper|lower (?:the|your) "
                      r"price|free (?:drink|pint|round|meal|bite|beer|ale)|on the house|for free|my way out of paying|"
                      r"out of paying)\b")  # to whoever sells here


def _if_fits(person_id: str | None, text: str, people: list[PresentNpc], pack: EraPack) -> str | None:
    """``person_id``, unless ``text`` uses a pronoun that does not fit them ("unless she hands over the takings" just
    after speaking with the old man): then None."""
    person = next((p for p in people if p.id == person_id), None)
    if person is None:
        return person_id
    said = references.pronoun_in(text)
    return person_id if said is None or person.companion or references.pronoun_of(person, pack) in (None, said) \
        else None


def _seller(people: list[PresentNpc]) -> str | None:
    """Who sells here: the first person whose role serves or sells (``references.KEEPER_WORDS``); None if nobody."""
    sells = references.KEEPER_WORDS | {"seller", "vendor", "merchant", "trader", "shopkeeper", "dealer", "peddler"}
    return next((p.id for p in people if not p.companion and sells & references.kindred(p.role)), None)


SWAYING = frozenset({ActionClass.PERSUADE, ActionClass.DECEIVE, ActionClass.INTIMIDATE})
TALKING = frozenset({ActionClass.DIALOGUE_ONLY, ActionClass.PERSUADE, ActionClass.DECEIVE, ActionClass.INTIMIDATE,
                     ActionClass.RECRUIT, ActionClass.GIVE})


def _described(text: str, state: PersistentState, pack: EraPack, people: list[PresentNpc]):
    """The person here a line said to someone describes ("talk to the woman looking for work": the words after the
    verb, whole, when the words before its first 'for' or 'about' describe nobody); None when it describes nobody, or
    when it is said to everyone ("tell everyone i'm a rich merchant")."""
    if _TO_EVERYONE.search(text):
        return None
    text = _HANDED.sub(" ", text)  # "unless she hands over the takings": no hands described
    said_to = parser.addressee(text)
    return references.person(said_to, state, pack, people) or (
        references.person(_AFTER_VERB.sub("", text), state, pack, people) if said_to != text else None)


_TO_EVERYONE = re.compile(r"^(?:i )?(?:tell|say to|announce to|shout to|ask|warn) (?:everyone|everybody|the room|the "
                          r"whole (?:room|bar|place)|all of (?:you|them)|the crowd)\b|^(?:anyone|anybody|someone|"
                          r"somebody|who(?:ever)?) (?:want|wants|wanna|care|cares|fancy|fancies)\b")
_HANDED = re.compile(r"\bhands? (?:over|it|them|back|out|me|him|her|you)\b")


def _names_a_place(topic: str | None, state: PersistentState, pack: EraPack) -> bool:
    """Whether ``topic`` names a place of the pack by its own words, not a person ("hit the market", not "hit
    tobin")."""
    if not topic or references.person(topic, state, pack) is not None:
        return False
    found = references.place(topic, state, pack)
    return found is not None and references.names_place(topic, found, pack)


def _elsewhere(topic: str, state: PersistentState, pack: EraPack) -> bool:
    """Whether ``topic`` names a place other than this one: by its own words, or by a kind of place ('the docks')."""
    if _names_a_place(topic, state, pack):
        return references.place(topic, state, pack) != state.location
    kinds = {w for kind in references.PLACE_WORDS.values() for w in kind}
    return bool(references.words(topic) & kinds) and not references.words(topic) <= HERE_THINGS


def _came_from(state: PersistentState) -> str | None:
    """The place the player was in before this one (from the turns ``state.recent`` keeps)."""
    return next((t.location for t in reversed(state.recent) if t.location != state.location), None)


_UNKNOWN = object()  # who the player last spoke with, not worked out yet


def _classify_text(text: str, state: PersistentState, pack: EraPack, people: list[PresentNpc],
                   last: str | None | object = _UNKNOWN) -> RouterOutput:
    """``last``: the person last spoken with (``last_spoken_with``), when the caller has it already; worked out
    here only when a line needs it."""
    def talking_to() -> str | None:
        nonlocal last
        if last is _UNKNOWN:
            last = last_spoken_with(state, pack, people)
        return last

    text = {"u": "go up", "d": "go down"}.get(text.strip(), text)  # a parser game's "u", not "you"
    text = parser.slipped(text)  # "tlk to the big lady", "runnn": read as meant by every pattern below
    text = parser.request(text) or text  # "i beg your pardon, but would you mind if i watched your game": the request
    if wish(text):  # "I win", "give me 1000000 credits": answered honestly by rules.interact, never rolled
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.INTERACT, tone=Tone.NEUTRAL, text=text)
    told = _dictated(text, pack)
    if told is not None:  # "odile signs the inn over to me": what someone else does is theirs to decide
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.INTERACT, tone=Tone.NEUTRAL, text=text,
                            verb="dictate", target_npc=told.id if told.id in {p.id for p in people} else None,
                            absent_npc=None if told.id in {p.id for p in people} else told.id, topic=told.name)
    claimed = CLAIM.match(text) or _claimed_use(text, state, pack)
    if claimed:  # "i have a revolver": a thing the player does not carry is not had by saying so
        item = references.item(claimed.group("thing"), state, pack)
        if item is None or state.player.inventory.get(item.id, 0) <= 0:
            return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.INTERACT, tone=Tone.NEUTRAL, text=text,
                                verb="claim", topic=parser.topic_of(claimed.group("thing")))
    spoken = parser.quoted(text)
    if spoken is not None:  # "I lean on the bar and say, 'what's good?'": what is said is the turn
        return _spoken(text, *spoken, state, pack, people, talking_to)
    hidden = _HIDDEN.match(parser.plain(text))
    if hidden is not None:  # "is there anything hidden around the fireplace?": a search there
        searched = f"search {hidden.group('where')}"
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.INVESTIGATE, tone=Tone.INVESTIGATE,
                            text=searched, read_as=searched, read_by="clause", said=text)
    way = _TAKE_WAY.match(text) if state.combat is None else None
    to = references.by_way(way.group("t"), state, pack) if way else None
    if to is not None:  # "climb the iron stairs", "take the plank steps": the way they are, to where it leads
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.TRAVEL, tone=Tone.NEUTRAL, text=text,
                            target_location=to)
    moving = parser.move_after(text)
    if moving is not None:  # "I finish my drink and step out the door": the move is the turn
        going = _classify_text(moving, state, pack, people, last)
        if going.action_class == ActionClass.TRAVEL or going.verb in ("leave", "flee", "back", "go"):
            return going.model_copy(update={"text": text})
    going = parser.move_first(text) if state.combat is None else None
    # "lets go down the docks and pick a fight with some sailors": the journey first
    first_read = parser.read(going) if going is not None else None
    if first_read is not None and (first_read.kind == "leave" or _elsewhere(first_read.topic, state, pack)):
        first = _classify_text(going, state, pack, people, last)
        if first.action_class == ActionClass.TRAVEL:
            return first.model_copy(update={"read_as": first.text, "read_by": "clause", "said": text})
    said = parser.plain(text)
    offer = _MY_OFFER.search(said)
    # after a price: "i'll give you 4 and a smile", "ok ok, 8 it is. hand it over" (the last turn read only then)
    priced = trade.priced_last(state, pack) if state.combat is None and (offer or _TAKEN.search(said)) else None
    if priced is not None:
        bought = f"{offer.group('n')} for the {priced.name.lower()}" if offer else f"buy the {priced.name.lower()}"
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.BUY, tone=Tone.NEUTRAL, text=bought,
                            target_item=priced.id, verb="offer" if offer else None, read_as=bought, read_by="clause",
                            said=text)
    bid = parser.offered(text) if state.combat is None else None
    item = references.item(bid, state, pack) if bid else None
    if item is not None and item.id in pack.locations[state.location].shop:  # "two greys for the tincture": a price
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.BUY, tone=Tone.NEUTRAL, text=text,  # bid
                            target_item=item.id, verb="offer")
    if bid is not None:  # a bid for a thing not sold here: asked for, and the answer says what is
        return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.BUY, tone=Tone.NEUTRAL, text=f"buy {bid}",
                            read_as=f"buy {bid}", read_by="clause", said=text)
    meant = _order(parser.ordered(text), state, pack, parser.ordered_outright(text)) if state.combat is None else None
    if meant is not None:  # "one fungus bun pls": bought, eaten or poured as the line it means
        return _classify_text(meant, state, pack, people, last).model_copy(update={"text": text})
    asking = _asking_clause(text) if len(text.split()) >= 12 and _named_away(text, people, pack) is None \
        else None
    if asking is not None:  # "I catch her eye, apologise, and ask whether she knows anyone who would pay for work":
        asked = _classify_text(asking, state, pack, people, last)  # the question is the turn, whatever verbs it holds
        if asked.action_class == ActionClass.DIALOGUE_ONLY and asked.verb is not None:
            named = _match_npc(asking, people, pack) or _match_npc(text, people, pack) or (  # "I sit by the old
                _if_fits(talking_to(), asking, people, pack) if PRONOUN_WORDS.search(asking) else None) or \
                asked.target_npc  # eeler, ..., and ask which waters to shun": asked of him
            return asked.model_copy(update={"read_as": asking, "read_by": "clause", "said": text,
                                            "target_npc": named})
    action = ActionClass.PERSUADE if _COAXING.search(text) else next(  # "just between us": read before negations
        (cls for cls, pattern in PATTERNS if pattern.search(_NEGATED.sub(" ", text))), None)  # go ("im broke,
    reading = parser.read(text)  # cant buy you a drink": no purchase
    if reading is not None and action in STRONG and reading.kind not in ("examine", "inventory") and not (
            reading.kind == "question" and (text.split()[0] in WH_WORDS or text.startswith(ASKS_AFTER) or
                                            _ASKS.match(text))) and not (
            reading.kind == "go" and _names_a_place(reading.topic, state, pack)) and not (
            reading.kind in ("eat", "drink") and re.match(r"(?:give|get|bring|fetch|pour) me\b|gimme\b", text)) and \
            not (
            reading.verb == "how_much" and reading.topic in ("pay", "fee", "payment")) and \
            reading.verb not in ("credit", "money"):  # "give me something to eat", "can i pay you later"
        reading = None  # "can I buy a drink?" buys; "where can I buy a knife?" and "examine the tip jar" do not
    if reading is not None:
        routed = _as_read(reading, text, action, state, pack, people, talking_to)
        if routed is not None:
            return routed
    target_npc = _match_npc(text, people, pack)
    if target_npc is None and action == ActionClass.PERSUADE and HAGGLING.search(text):  # "knock a grey off the
        target_npc = _seller(people)  # lot": to whoever sells here
    if target_npc is None and parser.addressee(text).strip() in references.PRONOUNS:  # "ask him if ...": the
        target_npc = talking_to()  # person last spoken with
    if target_npc is None and action == ActionClass.BUY and _TREATED_YOU.search(parser.plain(text)):  # "fine, i'll
        target_npc = talking_to()  # buy you a drink": the one spoken with
    asked_of = parser.asked_of(text) if target_npc is None and action == ActionClass.DIALOGUE_ONLY else ""
    if asked_of and references.person(asked_of, state, pack, people) is None and references.missing_person(
            asked_of, state, pack):  # "ask the rigger what happened to her crew" where there is no rigger
        return RouterOutput(intent=Intent.TALK, action_class=ActionClass.DIALOGUE_ONLY, tone=Tone.NEUTRAL, text=text,
                            verb="ask", topic=parser.topic_of(text))
    if target_npc is None and action in TALKING:  # "talk to the old man": whoever the words describe (asked to
        waiting = [p for p in people if p.companion] if action == ActionClass.RECRUIT else []  # join: who would)
        described = (_described(text, state, pack, waiting) if waiting else None) or _described(text, state, pack,
                                                                                                people)
        target_npc = described.id if described else None
    if target_npc is None and PRONOUN_WORDS.search(text):  # "thank her": the person last spoken with, when the
        target_npc = _if_fits(talking_to(), text, people, pack)  # pronoun fits them
    if target_npc is None and action in SWAYING | {ActionClass.RECRUIT} and not _TO_EVERYONE.search(text):  # "that's
        target_npc = _if_fits(talking_to(), text, people, pack)  # steep, knock a bit off": said to whom you talk with
    if target_npc is None and action in SWAYING and _SAID_TO_YOU.search(text) and not _TO_EVERYONE.search(text):
        target_npc = next((p.id for p in people if not p.companion), None)  # "you've got the kindest eyes": to
        # whoever is at hand, when nobody was spoken with
    if action is None and reading is None and target_npc is None and len(text.split()) <= 12 and not (
            interact.everyday(text)):  # "knock twice on the bar" is done, not said
        talking = talking_to()  # the conversation goes on: a line said to them
        if talking is not None and state.recent and state.recent[-1].action_class == ActionClass.DIALOGUE_ONLY:
            return RouterOutput(intent=Intent.TALK, action_class=ActionClass.DIALOGUE_ONLY,
                                tone=classify_tone(text, ActionClass.DIALOGUE_ONLY), text=text, target_npc=talking,
                                verb="said")
    first = re.split(r"[.;!?]\s", text, maxsplit=1)[0]  # a description, then maybe a remark about it
    if action is None and reading is None and target_npc is None and not FIRST_PERSON.search(first) and \
            first.split()[:1] and first.split()[0] in DESCRIPTION_LEADS:
        described = references.person(first, state, pack, people)  # "old miner dude with the nasty cough": a look
        if described is not None:  # at whom the words describe (references.person wants two words of them at least)
            return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.INVESTIGATE, tone=Tone.NEUTRAL,
                                text=text, target_npc=described.id, verb="examine", topic=described.name)
        thing = re.sub(r"^(?:the|that|this|those|these|a|an|some)\s+", "", first.strip(" ?!."))
        if references.detail(thing, state, pack) is not None:  # "that thing hanging on the wall by the door": a look
            return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.INVESTIGATE, tone=Tone.NEUTRAL,
                                text=text, verb="examine", topic=thing)
    told = _told_in_clauses(text, state, pack, people, last) if reading is None and target_npc is None and (
        action is None or (action == ActionClass.DIALOGUE_ONLY and not _TALK_FIRST.match(text))) and \
        wish(text) is None else None
    if told is not None:  # "Taking my time, I walk the room slowly, peering into every corner": the search
        return told
    absent_npc = None
    if target_npc is None:
        absent_npc = _named_away(text, people, pack)
    fits = references.first_by_pronoun(text, people, pack) if target_npc is None and action in TALKING | SWAYING \
        and absent_npc is None and not any(references.missing_person(aimed, state, pack) for aimed in (
            parser.object_of(text), parser.addressee(text)) if aimed != text) else None
    target_npc = fits.id if fits is not None else target_npc  # "unless she hands over the takings": the first woman
    # here, when nobody was spoken with yet
    if action is None:
        action = ActionClass.DIALOGUE_ONLY if target_npc or absent_npc else ActionClass.INTERACT
    target_location = _match_location(text, state, pack) if action == ActionClass.TRAVEL else None
    if action == ActionClass.TRAVEL and target_location is None and state.combat is None:
        where = _TO_PLACE.search(text)
        if where and references.words(where.group("where")) - VAGUE_PLACES:  # "take me to the scrip market": a
            return RouterOutput(intent=Intent.ACTION, action_class=ActionClass.TRAVEL, tone=Tone.NEUTRAL,  # place
                                text=text, verb="go", topic=parser.topic_of(where.group("where")))  # not here
        action = ActionClass.INTERACT if not re.search(r"\bgo\b", text) else ActionClass.TRAVEL
    target_item = _match_item(text, state, pack) if action in (ActionClass.BUY, ActionClass.SELL, ActionClass.GIVE,
                                                                ActionClass.USE_ITEM, ActionClass.INTERACT) else None
    if action == ActionClass.USE_ITEM and target_item is None:
        action = ActionClass.INTERACT
    intent = Intent.TALK if action == ActionClass.DIALOGUE_ONLY else Intent.ACTION
    # "I knock the grit off my boots, drift over to the bar and order whatever is cheapest": the order is the turn
    acting = _acting_clause(text, action) if action in TRADING and len(text.split()) > 12 else None
    told = {"text": acting, "read_as": acting, "read_by": "clause", "said": text} if acting else {"text": text}
    return RouterOutput(
        intent=intent,
        action_class=action,
        tone=classify_tone(text, action),
        target_npc=target_npc,
        absent_npc=absent_npc,
        target_location=target_location,
        target_item=target_item,
        **told,
    )


def _acting_clause(text: str, action: ActionClass) -> str | None:
    """The last clause of a line told as a story (``rules.narration``) that the action patterns give ``action``,
    when the line has several; None otherwise."""
    parts = narration.clauses(text)
    return next((part for part in reversed(parts) if next(
        (cls for cls, pattern in PATTERNS if pattern.search(part)), None) == action), None) if len(parts) > 1 else None


_OTHERS_ACT = re.compile(r"(?:the|a|an|this|that|these|those|everyone|everybody|someone|somebody|nobody|all) [a-z]+ "
                         r"(?:[a-z]+ )?[a-z]+s\b")
_YOU_WITH = re.compile(r"\byou (?:there )?(?:with|in) (?:the |that |those )?(?P<who>[a-z ]{3,40}?)\s*(?:,|\?|$)")
_TALK_FIRST = re.compile(r"(?:i )?(?:talk|speak|chat|ask|tell|say|greet|whisper|shout|call)\b")  # whom it is said to


def _told_in_clauses(text: str, state: PersistentState, pack: EraPack, people: list[PresentNpc],
                     last: str | None | object) -> RouterOutput | None:
    """A line told as a story (``rules.narration``), routed as the clause of it that carries the turn (the highest
    :func:`_weight`, the later of equals); a pronoun in that clause ("ask her whether she takes requests") is the
    person an earlier clause describes. None when no clause carries one."""
    if _OTHERS_ACT.match(text):
        return None  # "the reeve gets down on his knees": what someone else does is not the player's to tell
    parts = narration.clauses(text)
    best: tuple[int, int, RouterOutput] | None = None
    for i, part in enumerate(parts):
        routed = _classify_text(part, state, pack, people, last)
        if interact.unanswered(routed) and part.startswith("the ") and _names_a_place(part, state, pack) and \
                references.place(part, state, pack) != state.location:  # "the scrip market, chop chop": there
            routed = _classify_text(f"go to {part}", state, pack, people, last)
        weight = _weight(routed)
        if weight and (best is None or weight >= best[0]):
            best = (weight, i, routed)
    if best is None:
        return None
    weight, i, routed = best
    if routed.target_npc is None or (PRONOUN_WORDS.search(parts[i]) and _match_npc(parts[i], people, pack) is None):
        before = next((p for p in (references.person(q, state, pack, people) for q in reversed(parts[:i])) if p), None)
        if before is not None and (PRONOUN_WORDS.search(parts[i]) or routed.intent == Intent.TALK):
            routed = routed.model_copy(update={"target_npc": before.id})
    return routed.model_copy(update={"read_as": routed.text, "read_by": "clause", "said": text})


_ASKS = re.compile(r"^(?:and |then |and then )?(?:i )?ask(?:s|ed)? (?:[a-z']+ ){0,5}?(?:whether|if|what|who|where|why|"
                   r"how|which|about)\b")


def _named_away(text: str, people: list[PresentNpc], pack: EraPack) -> str | None:
    """The person of the pack ``text`` names by name who is not here ("buy amos a drink" where he is not); None."""
    here = {p.id for p in people}
    return _match_npc(text, [p for p in _everyone_in(pack) if p.id not in here], pack, roles=False)


_VAGUE_ASKED = frozenset({"mean", "means", "meant", "happened", "happening", "going", "think", "thinks", "reckon",
                          "up", "say", "says", "said", "do", "does", "did", "want", "wants", "matter"})


def _asking_clause(text: str) -> str | None:
    """The clause of a long told line that asks something through someone ("... and ask whether anyone here buys
    salt"), without what comes before it; None when no clause does."""
    said = parser.plain(text)
    parts = narration.clauses(said)
    for part in parts[1:]:  # not the first: a line that starts by asking is read whole
        if _ASKS.match(part):  # the question runs to the end of the line: its own commas are part of it
            start = said.find(part)
            return said[start:] if start > 0 else part
    return None


def _weight(routed: RouterOutput) -> int:
    """How surely a clause carries a told line's turn: an answer to what was said, a question, a deed the rules
    decide (a fight, a purchase), taking stock, eating, a search or a look, a move to a place, a small deed; 0 for a
    clause that carries nothing."""
    action, verb = routed.action_class, routed.verb
    if action == ActionClass.DIALOGUE_ONLY and verb in ("yes", "no"):
        return 9
    if action == ActionClass.DIALOGUE_ONLY and verb is not None:
        return 8
    if action in STRONG or action == ActionClass.META:
        return 7
    if verb in ("eat", "drink"):
        return 6
    if action == ActionClass.INVESTIGATE or (action == ActionClass.DIALOGUE_ONLY and routed.target_npc):
        return 5
    if action == ActionClass.DIALOGUE_ONLY and PRONOUN_WORDS.search(routed.text):  # "ask her whether she takes
        return 2  # requests": to whom an earlier clause says
    if action == ActionClass.TRAVEL and (routed.target_location or verb in ("leave", "flee", "back")):
        return 4
    if action in (ActionClass.INTERACT, ActionClass.REST) and verb not in (None, "nod", "do", "claim", "dictate"):
        return 3
    return 1 if action == ActionClass.INTERACT and verb in ("nod", "do") else 0


def _order(thing: str | None, state: PersistentState, pack: EraPack, outright: bool = False) -> str | None:
    """The line an order by naming the thing means (``parser.ordered``): 'buy X' when X is sold here, 'eat X' for a
    food the pack does not have (so the answer says none is sold), 'drink Y' for a drink poured here ("two beers"),
    'buy X' for anything else ordered ``outright`` where something is sold (so the answer says what is); None when
    it is no order."""
    if thing is None:
        return None
    item = references.item(thing, state, pack)
    if item is not None:
        return f"buy {thing}" if item.id in pack.locations[state.location].shop else None
    if parser.FOOD.search(thing):
        return f"eat {thing}"
    poured = parser.LOOSE_DRINK.search(re.sub(r"s\b", "", thing))
    if poured is None and _VESSEL.search(thing) and pack.locations[state.location].drink:
        return "have a drink"  # "a cup please", "i'll take a mug" where drink is poured: the house's
    if poured is not None:
        return f"drink {poured.group(0)}"
    here = pack.locations[state.location]
    thing_like = not _NOT_A_THING.search(thing) and len(thing.split()) <= 3
    return f"buy {thing}" if outright and thing_like and (here.shop or here.drink) else None  # "id like a tincture"
    # where none is sold: the answer says what is


# What an order's words name when they name no thing: "a word with the owner", "that", "a look around first".
_NOT_A_THING = re.compile(r"^(?:that|this|it|them|those|these|word|look|speak|talk|see|go|sit|rest|moment|minute|"
                          r"second|chat|peace|quiet|time|help|advice|room|bed|break|job|work)\b|\b(?:with|to|around|"
                          r"about|first|who|what|which|where|for|of)\b")


_HIDDEN = re.compile(r"^(?:is there|are there|could there be|might there be) (?:anything|something|stuff|things) "
                     r"(?:hidden|useful|valuable|interesting|worth having|tucked away|stashed)? ?(?:around|in|under|"
                     r"behind|near|by|inside|beneath|among) (?P<where>(?:the |that |this )?[a-z' ]{2,40}?)\s*\??$")
_TAKE_WAY = re.compile(r"^(?:i )?(?:climb|take|follow|go up|go down|head up|head down|walk up|walk down|cross|"
                       r"descend|ascend|use)(?: up| down| along)? (?P<t>(?:the )?[a-z' ]{3,40}?)\s*[.!]*$")
_FEELING_FOR = re.compile(r"\b(?:feeling|looking|searching|groping|checking) (?:for|under|behind)\b|\bfor (?:anything|"
                          r"something) (?:loose|hidden|useful|valuable)\b")
_VESSEL = re.compile(r"^(?:a |an |one |another )?(?:cup|mug|glass|tankard|jar|jug|pot|flagon|bottle|shot|round)$")


def _spoken(text: str, before: str, said: str, state: PersistentState, pack: EraPack, people: list[PresentNpc],
            talking_to: Callable[[], str | None]) -> RouterOutput:
    """A line that narrates, then quotes what is said: the words said are classified as the turn, said to whom the
    narration names (by name or description) when they name nobody themselves; words that ask for no action are
    talk with that person, or with whoever the player was speaking with."""
    deed = _classify_text(before, state, pack, people, talking_to()) if before else None
    if deed is not None and deed.action_class in SWAYING | {ActionClass.RECRUIT}:  # "*flatters the old man* bet
        return deed.model_copy(update={"text": text})  # you were the best in your day": the flattery, in those words
    if deed is not None and deed.action_class == ActionClass.TRAVEL and (deed.verb in ("leave", "flee", "back") or (
            deed.target_location or _match_location(before, state, pack)) not in (None, state.location)):
        return deed.model_copy(update={"text": text})  # "'thanks for the drink' *heads for the stairs*": the move
    opening = said.split(",")[0]
    reply = parser.read(opening) if opening != said else None
    urged = re.match(r"\W*(?:go on|come on|go ahead)\b.*\b(?:sing|play|dance)\b", said.lower()) is not None
    inner = _classify_text(opening if reply is not None and reply.kind == "reply" and not urged else said, state,
                           pack, people)  # "go on then, sing me the one about the provost": the song asked for
    named = _match_npc(before, people, pack)
    if named is None:
        described = references.person(parser.addressee(before), state, pack, people) or references.person(
            _AFTER_VERB.sub("", before), state, pack, people)
        named = described.id if described is not None else None
    if inner.verb is None and inner.target_item is None and (inner.action_class == ActionClass.INTERACT or (
            inner.action_class == ActionClass.INVESTIGATE and re.search(r"\byou\b", said))):  # "you look like ..."
        to = named or inner.target_npc or talking_to()
        if to is not None:  # "'long night?'": words said, to someone
            return RouterOutput(intent=Intent.TALK, action_class=ActionClass.DIALOGUE_ONLY, text=said, target_npc=to,
                                tone=classify_tone(said, ActionClass.DIALOGUE_ONLY), verb="said", read_as=said,
                                read_by="clause", said=text)
    waiting = [p for p in people if p.companion] if inner.action_class == ActionClass.RECRUIT else []
    if waiting and named is not None and _match_npc(before, people, pack) is None:  # "'want to team up?' i say to
        joins = references.person(parser.addressee(before), state, pack, waiting) or references.person(  # the big
            _AFTER_VERB.sub("", before), state, pack, waiting)  # one": of those described, the one who would join
        named = joins.id if joins is not None else named
    if inner.action_class == ActionClass.DIALOGUE_ONLY and inner.verb == "ask" and (named or talking_to()):
        return RouterOutput(intent=Intent.TALK, action_class=ActionClass.DIALOGUE_ONLY, text=said,  # "'rough day?'
                            target_npc=named or talking_to(), tone=classify_tone(said, ActionClass.DIALOGUE_ONLY),
                            verb="said", read_as=said, read_by="clause", said=text)  # i ask her": said to her
    performed = inner.verb in deeds.PERFORMED and deeds.FOR_ME.search(parser.plain(said)) is not None
    if named is not None and (inner.action_class in TALKING | SWAYING or performed) and _match_npc(
            said, people, pack) in (None, named):
        inner = inner.model_copy(update={"target_npc": named})  # "*turns to the woman* 'what's your story?'": hers
    return inner.model_copy(update={"text": text})


_TREATED_YOU = re.compile(r"\b(?:buy|get|stand|pour) you (?:a|an|one|another|some|the next)\b")


def _as_read(reading: parser.Reading, text: str, action: ActionClass | None, state: PersistentState, pack: EraPack,
             people: list[PresentNpc], talking_to: Callable[[], str | None]) -> RouterOutput | None:
    """The router's output for a line the parser read (``rules.parser``), or None when the action patterns already
    place it better (a named destination, an item carried to eat, a long wait that is a rest)."""
    def out(action_class: ActionClass, **fields) -> RouterOutput:
        intent = Intent.TALK if action_class == ActionClass.DIALOGUE_ONLY else Intent.ACTION
        return RouterOutput(intent=intent, action_class=action_class, tone=classify_tone(text, action_class),
                            text=text, verb=reading.verb, topic=reading.topic or None, **fields)

    kind = reading.kind
    if reading.weak and action not in (None, ActionClass.DIALOGUE_ONLY, ActionClass.INTERACT, ActionClass.TRAVEL,
                                       ActionClass.USE_ITEM):
        return None  # "ok, I search the room": the action, not the "ok"
    if reading.weak and action == ActionClass.TRAVEL and _match_location(text, state, pack) not in (None,
                                                                                                  state.location):
        return None  # "sure, let us go to Cockle Row"
    if kind == "inventory":
        return RouterOutput(intent=Intent.META, action_class=ActionClass.META, tone=Tone.NEUTRAL, text=text,
                            meta_command="inventory", meta_args=reading.topic)  # "do i have a weapon": the weapon
    named = _match_npc(text, people, pack)
    last = talking_to()
    if kind in ("reply", "question"):
        if named is None:  # "hmm tobin" where Tobin is elsewhere: said to them, not to whoever is at hand
            absent = _named_away(text, people, pack)
            if absent is not None:
                return out(ActionClass.DIALOGUE_ONLY, absent_npc=absent)
        if named is None and PRONOUN_WORDS.search(text):  # "thank her": whom you spoke with, if the pronoun fits
            fits = references.first_by_pronoun(text, people, pack)
            named = _if_fits(last, text, people, pack) or (fits.id if fits is not None and last is not None else last)
        called = _YOU_WITH.search(text) if named is None else None
        if called is not None:  # "forgive me, sir, you with the weathered hands, might i join you": the one told
            found = references.person(called.group("who"), state, pack, people)
            named = found.id if found else None
        if named is not None and reading.verb == "ask" and parser.asked_of(text) and not (references.words(
                reading.topic or "") - _VAGUE_ASKED):  # "ask rhea what that means": talk; "ask the innkeeper what
            return out(ActionClass.DIALOGUE_ONLY, target_npc=named).model_copy(update={"verb": None, "topic": None})
        # happened to her husband" is asked of her
        asked_of = parser.asked_of(text) if named is None else ""
        if asked_of and asked_of not in references.PRONOUNS and asked_of not in ("around", "about"):
            found = references.person(asked_of, state, pack, people)  # "ask the old man where the market is"
            named = found.id if found else None
            if named is None and references.missing_person(asked_of, state, pack):
                return out(ActionClass.DIALOGUE_ONLY)  # "ask ottilie what happened" where there is no Ottilie
        hailed = _HAILED.match(text) if named is None else None
        if hailed is not None:  # "hey old man, what do you know about the abbey": asked of whom the words describe
            found = references.person(hailed.group("who"), state, pack, people)
            named = found.id if found else None
        if named is None and reading.verb == "hello":  # "oi, old man!": whoever the words describe
            found = references.person(text, state, pack, people)
            named = found.id if found else None
        thanked = parser.SAID_TO.match(text) if named is None else None
        if thanked is not None:  # "thank the old man", "apologise to the woman in the shawl": whom the words describe
            found = references.person(thanked.group("who"), state, pack, people) if references.group(
                thanked.group("who"), state, pack) is None else None  # not "the drillers" at their dice
            named = found.id if found else None
            if named is None and references.missing_person(thanked.group("who"), state, pack):
                return out(ActionClass.DIALOGUE_ONLY)  # "apologise to the drillers" where there are none
        said_to = parser.addressee(text)
        after = _AFTER_VERB.sub("", text) if named is None else text  # "talk to the woman looking for work": the
        described = references.person(after, state, pack, people) if after != text else None  # words after the verb
        named = described.id if described is not None else named
        if named is None and said_to != text and references.missing_person(said_to, state, pack):
            return out(ActionClass.DIALOGUE_ONLY)  # "hello amos!" where there is no Amos: said to nobody here
        at_hand = next((p.id for p in people if not p.companion), None)  # who answers a line said to the room
        return out(ActionClass.DIALOGUE_ONLY, target_npc=named or last or at_hand)
    if kind == "examine":
        return out(ActionClass.INVESTIGATE, target_npc=named or (last if reading.topic in references.PRONOUNS
                                                                 else None))
    if kind in ("eat", "drink"):
        item = _match_item(text, state, pack)
        if action == ActionClass.USE_ITEM and item is not None and state.player.inventory.get(item, 0) > 0:
            return None  # "drink my water ration": the item's own use
        return out(ActionClass.INTERACT, target_item=item)
    if kind == "deed":
        hurled = reading.topic.split(" at ", 1)[1] if reading.verb == "throw" and " at " in reading.topic and not \
            _HARMLESS.match(reading.topic) else None
        struck = references.person(hurled, state, pack, people) if hurled and state.combat is None else None
        if struck is not None:  # "throw a stool at the loud one": an attack on them
            return out(ActionClass.ATTACK, target_npc=struck.id).model_copy(update={"verb": None, "topic": None})
        if reading.verb in ("watch", "listen") and action == ActionClass.INVESTIGATE and named is not None:
            return None  # "watch Gault for a weakness": reading a person is a check
        if reading.verb == "touch" and _FEELING_FOR.search(text):  # "run my hand along the floor, feeling for
            searched = f"search the {re.sub(r'^(?:the|a|an|my|your) ', '', reading.topic)}" if reading.topic \
                else "search"  # anything loose": a search of the floor
            return out(ActionClass.INVESTIGATE).model_copy(update={"verb": None, "topic": None, "text": searched,
                                                                   "read_as": searched, "read_by": "clause",
                                                                   "said": text})
        if reading.verb == "sleep" or (reading.verb == "wait" and LONG_WAIT.search(text)):  # a night's sleep or a
            return None if action == ActionClass.REST else out(ActionClass.REST)  # long wait is a rest
        asked = reading.verb in deeds.PERFORMED and deeds.FOR_ME.search(parser.plain(text)) is not None
        return out(ActionClass.INTERACT, target_npc=named or (  # "sing it for me": of the one spoken with
            last if PRONOUN_WORDS.search(text) or asked else None))
    if kind in ("leave", "go"):
        if action == ActionClass.TRAVEL and _match_location(text, state, pack) not in (None, state.location):
            return None  # a place the patterns name: travel there
        vague = kind == "go" and (not references.words(reading.topic) - VAGUE_PLACES or (
            reading.topic.split()[0] in VAGUE_PLACES and " and " in reading.topic))  # "outside and explore the streets"
        if vague:  # "travel somewhere nice": the way out, or the question which way
            reading = parser.Reading("leave", "leave")
            kind = "leave"
        to = references.way_out(reading.verb, state, pack, _came_from(state)) if kind == "leave" else None
        if kind == "go" and reading.topic and " and " in reading.topic and references.words(
                reading.topic.split(" and ")[0]) <= HERE_THINGS | references.words(
                f"{pack.locations[state.location].name} {pack.locations[state.location].type}"):
            walked, rest = (part.strip() for part in reading.topic.split(" and ", 1))  # "walk up to the bar and
            # say hi to the woman behind it": the second clause is the deed, and "it" is the bar
            walked = walked if re.match(r"(?:the|a|an|that|this|my) ", walked) else f"the {walked}"
            rest = re.sub(r"\b(?:it|there)$", walked, rest)
            if rest:  # read on its own, or the walk is taken for a journey
                return _classify_text(rest, state, pack, people).model_copy(
                    update={"read_as": rest, "read_by": "clause", "said": text})
            return None
        if kind == "go" and reading.topic and parser.RULER.search(reading.topic) and pack.factions:
            ruling = max(pack.factions.values(), key=lambda f: f.power)  # "the offices of whoever governs this town"
            reading = parser.Reading("go", "go", ruling.name)
        if kind == "go" and reading.topic:
            to = references.place(reading.topic, state, pack)
            if to is not None and not references.names_place(reading.topic, to, pack):
                fixed = references.respelled(reading.topic, pack)  # "go markit": one slip from the market
                to = to if fixed != reading.topic and references.names_place(fixed, to, pack) else None
            to = to or references.by_way(reading.topic, state, pack)  # "head for the iron stairs": that way
            if to is None:  # "walk up to the bar and say hi", "go chat up the singer": not a journey
                person = references.person(reading.topic, state, pack, people) if not references.words(
                    reading.topic) & references.PLACE_KINDS else None  # "the old abbey" is no old man
                if person is not None:
                    return out(ActionClass.DIALOGUE_ONLY, target_npc=person.id).model_copy(
                        update={"verb": None, "topic": None})
                head = references.head_word(reading.topic)
                if head and len(head) > 2 and head not in references.STOP | references.VAGUE_HEADS and references.place(
                        reading.topic, state, pack) is None and references.detail(reading.topic, state, pack) is not \
                        None:  # "walk over to the corner table": a look at it
                    return out(ActionClass.INVESTIGATE).model_copy(update={"verb": "examine"})
        if kind == "leave" and to is None and action == ActionClass.TRAVEL:
            named_place = _match_location(text, state, pack)
            if named_place == state.location:  # "flee the tavern": out of it
                to = references.way_out(reading.verb, state, pack, _came_from(state))
        return out(ActionClass.TRAVEL, target_location=to)
    return None
