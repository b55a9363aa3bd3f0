"""The parser's reading of ordinary English: what a line asks for when the action patterns (``rules.intent``) have
nothing better to say about it.

``read(text)`` takes a line already lower-cased and stripped of markup and returns a :class:`Reading` or None:

- **reply**: an answer to whoever spoke last ("yes", "no way", "why?", "tell me more", "deal", "I'll take it",
  "thanks", "sorry", "hello", "bye", and how the player takes it: "ugh, that sounds disgusting", "pfft"), which is
  talk with that person, not a new action;
- **question**: a question to the room or to someone ("who runs this place?", "what can I do here?", "where can I
  go?", "what do people say about the reeve?", "who is that?", "how much is the eel?", "any news?"), answered from
  the pack (``rules.conversation``);
- **examine**: looking at one thing ("look at the innkeeper", "examine the barrel by the hearth", "x cat"),
  answered from the pack (``rules.examine``);
- **deed**: a small deed that is a real turn (sing, dance, pray, sit, wait a little, watch the door, warm your hands,
  smell the air, kiss, hug, ...; ``rules.deeds``), and **eat** / **drink**;
- **leave**: leaving, fleeing or going back ("leave", "go outside", "run", "get out of here", "back"), and **go**
  somewhere the patterns did not place ("head to the docks");
- **inventory**: taking stock ("what do I have", "check my pockets", "i").

The verbs are the floor of Inform 7's Standard Rules' actions (taking inventory, eating, drinking, going, exiting,
looking, examining, waiting, waking, saying yes, saying sorry, thinking, smelling, listening, tasting, touching,
waving, jumping, sleeping, singing, praying, kissing, ...), read in Skald's own word lists. A typing slip common in
play ("teh", "wat", "innkeper"), a digit texted for a word ("work 4 me"), an intensifier ("what even is this place")
and the courtesies around a request ("would it be too much trouble to have something to eat?") are read as meant
(:func:`plain`). A line told as a story in several clauses is split by ``rules.narration``. Deterministic; no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Reading:
    """What a line asks for. ``kind``: reply | question | examine | deed | eat | drink | leave | go | inventory;
    ``verb``: the particular one (``yes``, ``who_runs``, ``sing``, ``flee``...); ``topic``: the words it is about
    (an object, a person, a place or a subject), '' when none. ``weak``: read from its first word alone ("yeah go
    on", "hmm not sure about that"), so an action the patterns find in the rest comes first."""

    kind: str
    verb: str
    topic: str = ""
    weak: bool = False


# Slips of the keyboard and chat shorthand, read as meant (whole words only).
SLIPS = {
    "teh": "the", "hte": "the", "th": "the", "wat": "what", "wut": "what", "waht": "what", "whta": "what",
    "whats": "what is", "wats": "what is", "wuts": "what is", "wut's": "what is", "wuz": "was",
    "whos": "who is", "wheres": "where is", "hows": "how is", "u": "you",
    "ur": "your", "r": "are", "pls": "please", "plz": "please", "thx": "thanks", "ty": "thank you", "k": "ok",
    "kk": "ok", "okay": "ok", "okey": "ok", "yea": "yes", "ya": "yes", "yah": "yes", "yeh": "yes", "yup": "yes",
    "yep": "yes", "yeah": "yes", "ye": "yes", "aye": "yes", "nah": "no", "nope": "no", "naw": "no", "im": "i am",
    "ive": "i have", "id": "i would", "dont": "do not", "cant": "cannot", "wont": "will not", "gonna": "going to",
    "wanna": "want to", "gotta": "got to", "lemme": "let me", "abt": "about", "cuz": "because", "coz": "because",
    "bc": "because", "rn": "now", "sry": "sorry", "soz": "sorry", "innkeper": "innkeeper", "inkeeper": "innkeeper",
    "innkeepr": "innkeeper", "tavren": "tavern", "taven": "tavern", "lok": "look", "loook": "look", "luk": "look",
    "examin": "examine", "examien": "examine", "exmaine": "examine", "serch": "search", "seach": "search",
    "arround": "around", "aroud": "around", "somthing": "something", "somethin": "something", "sumthing": "something",
    "eveyone": "everyone", "evryone": "everyone", "peopel": "people", "poeple": "people", "ppl": "people",
    "plase": "place", "palce": "place", "sombody": "somebody", "somone": "someone", "freind": "friend",
    "thier": "their", "wierd": "weird", "becuase": "because", "waht's": "what is", "whats'": "what is",
    "pary": "pray", "sleeep": "sleep", "dirnk": "drink", "drnik": "drink", "eta": "eat", "leav": "leave",
    "lave": "leave", "outsdie": "outside", "outisde": "outside", "tel": "tell", "tlak": "talk", "taks": "talk",
    "tlk": "talk", "qeust": "quest", "jbo": "job", "youre": "you are", "theyre": "they are", "thats": "that is",
    "whatve": "what have", "wat's": "what is", "hes": "he is", "shes": "she is", "isnt": "is not",
    "didnt": "did not", "doesnt": "does not", "wouldnt": "would not", "couldnt": "could not", "ill": "i will",
    "whered": "where did", "whatd": "what did", "y": "why", "wht": "what", "ther": "there", "outta": "out of",
    "kinda": "kind of", "sorta": "sort of", "gimme": "give me", "dunno": "do not know", "ain't": "is not",
    "aint": "is not", "tryna": "trying to", "wassup": "what is up", "sup": "what is up", "hw": "how",
    "nuthin": "nothing", "nothin": "nothing", "anythin": "anything", "mayb": "maybe", "latr": "later",
    "l8r": "later", "wher": "where", "fud": "food", "thru": "through", "sumthin": "something",
    "summat": "something", "lets": "let us", "smth": "something", "sth": "something", "gimmie": "give me",
    "lil": "little", "fella": "fellow", "bout": "about", "srch": "search", "exam": "examine", "inv": "inventory",
    "wit": "with", "any1": "anyone", "some1": "someone", "every1": "everyone", "no1": "no one", "b4": "before",
    "gr8": "great", "m8": "mate", "ight": "alright", "aight": "alright", "doc": "doctor", "docs": "doctors",
    "whatevers": "whatever is", "whoevers": "whoever is", "causway": "causeway", "cosway": "causeway",
    "youve": "you have", "theres": "there is",
    "everybodys": "everybody's", "kitty": "cat", "kitten": "cat", "pussycat": "cat", "moggy": "cat",
    "doggy": "dog", "doggo": "dog", "puppy": "dog", "pup": "dog",
}
# Words typed without their final g ("pourin drinks", "nursin one drink"), read with it.
_DROPPED_G = {f"{stem}in": f"{stem}ing" for stem in """pour nurs rubb look go do say talk drink sitt stand com gett
mak tak work wait play sing laugh cry yell runn walk try buy sell hid star watch listen think kidd mess eat cook fish
smok cough clean wip polish count hang hold wear carry lean chatt argu shout whisper grinn smil frown mutter scribbl
read writ deal gambl bett los winn fight brew mov plann sleep snor stuff wash sweep serv tend keep chew
spitt""".split()}
SLIPS.update(_DROPPED_G)
# "hwo": how before what a "how" asks (much, far, long, do...), else who ("hwo runs this place").
_HWO = re.compile(r"\bhwo\b(?=( (?:much|many|far|long|come|do|does|did|can|could|would|should|old|big|often|soon|"
                  r"it going|about)\b)?)")
_HOW_IS_MUCH = re.compile(r"\bhow is (much|many)\b")
SLIPS.update({"hwat": "what", "whre": "where", "wehre": "where", "wyh": "why", "woh": "who", "whcih": "which",
              "hwich": "which", "knwo": "know", "konw": "know", "pirce": "price", "prcie": "price"})
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})
_CONTRACTIONS = [(re.compile(p), r) for p, r in [
    (r"\bwhat's\b", "what is"), (r"\bwho's\b", "who is"), (r"\bwhere's\b", "where is"), (r"\bhow's\b", "how is"),
    (r"\bthat's\b", "that is"), (r"\bit's\b", "it is"), (r"\bi'm\b", "i am"), (r"\bi'll\b", "i will"),
    (r"\bi'd\b", "i would"), (r"\bi've\b", "i have"), (r"\bdon't\b", "do not"), (r"\bcan't\b", "cannot"),
    (r"\bwon't\b", "will not"), (r"\blet's\b", "let us"), (r"\bthere's\b", "there is"), (r"\byou're\b", "you are"),
    (r"\bwhat're\b", "what are"), (r"\bisn't\b", "is not"), (r"\bdoesn't\b", "does not"),
    (r"\bwhy's\b", "why is"), (r"\bwhat've\b", "what have"), (r"\bwhat'd\b", "what did"),
    (r"\bwhere'd\b", "where did"), (r"\bwho'd\b", "who would"), (r"\bhow'd\b", "how did"),
    (r"\bwhen's\b", "when is"), (r"\bwhatever's\b", "whatever is"), (r"\bwhere've\b", "where have"),
    (r"\bwho've\b", "who have"), (r"\bwho're\b", "who are"), (r"\bwhich's\b", "which is"),
    (r"\bway's\b", "way is"), (r"\bwhy'd\b", "why did"), (r"\bwhen'd\b", "when did"),
]]


_DOUBLED = frozenset("""all ball bell bill call cell dell dull fall fell fill full gall hall hell hill ill kill mall
mill null pull sell shall shell skill small smell spell spill still stall tall tell till troll
wall well will yell add odd egg off cliff cuff huff staff stiff stuff buzz fizz jazz fuzz too
zoo boo moo see bee fee free tree three agree feed need seed weed deed greed speed bleed feel
heel peel steel wheel keel reel deep keep sleep sheep steep creep sweep weep been green queen
seen sheen between beer cheer deer peer steer sneer week seek cheek geek meet feet greet sheet
street sweet sleet fleet good food mood wood hood stood blood flood door floor poor moor book
cook hook look took shook brook nook cool fool pool tool school stool wool room boom doom gloom
loom broom bloom moon noon soon spoon boot foot hoot loot root shoot toot boost roof proof hoof
goose loose moose noose""".split())
_RUN = re.compile(r"([a-z])\1{2,}")


_CLIPPED = frozenset({"'em", "'cause", "'til", "'bout", "'round", "'tis", "'twas"})


def _unquoted(word: str) -> str:
    """A word without the single quote a line of speech opened or closed on ("'who", "asking?'"), but for the words
    that clip a letter off with one ("'em", "'cause", "nothin'")."""
    if word.startswith("'") and word not in _CLIPPED:
        word = word.lstrip("'")
    if word.endswith("'") and not word.endswith("in'"):
        word = word.rstrip("'")
    return word


def _unstretched(word: str) -> str:
    """A word typed with a letter held down ("runnn", "heyyy", "soooo", "welll"), read as meant."""
    if not _RUN.search(word):
        return word
    two = _RUN.sub(r"\1\1", word)
    return two if two in _DOUBLED else _RUN.sub(r"\1", word)


# Digits texted for words: "work 4 me", "how much 4 a drink", "go 2 the market" (a digit before a thing is a number).
_TEXTED = [(re.compile(r"\b4(?= (?:a|an|the|me|you|u|us|him|her|them|it|this|that|loot|sale|free|real|now|ever|good|"
                       r"sure|what|nothing|work|cash|money|coin|coins|food|later)\b)"), "for"),
           (re.compile(r"\b2(?= (?:the|a|me|you|u|him|her|them|my|your|go|see|get|do|be|talk|speak|eat|drink|sleep|"
                       r"town|market|bed)\b)"), "to")]


def _untexted(text: str) -> str:
    for pattern, word in _TEXTED:
        text = pattern.sub(word, text)
    text = re.sub(r"(?<=[a-z]) n (?=[a-z])", " and ", text)  # "check my pockets n stuff"
    return re.sub(r" (?:and|n) (?:stuff|things|that|all that|everything)(?= *[?!.]*$)", "", text)


def slipped(text: str) -> str:
    """``text`` (lower case) with each word that is a known slip (:data:`SLIPS`) or typed with a held-down letter
    read as meant, and digits texted for words ("work 4 me"); everything else (punctuation, spacing, contractions)
    left as typed."""
    read = _untexted(re.sub(r"[a-z0-9']+", lambda m: SLIPS.get(_unstretched(m.group(0)), _unstretched(m.group(0))),
                            text))
    return _LONGED_FOR.sub("i want", read)


# "I would kill for something to eat", "i could murder a pint", "id die for a drink": a want, not a threat.
_LONGED_FOR = re.compile(r"\b(?:i )?(?:would|could|'d|i would) (?:kill|murder|die)(?: for)?(?= (?:a|an|some|"
                         r"something|anything|one|another|the|that|this)\b)")


_VOCATIVE = re.compile(r"^(?:(?:[a-z']+ ){0,2}[a-z']+ , (?:and )?)+(?=(?:what|who|where|why|how|do|does|is|are|can|"
                       r"could|will|would|tell|any|have|has)\b)")


@lru_cache(maxsize=8192)  # a pure function of the line; the suggestion check spells the same labels turn after turn
def _spelled(text: str, through: bool = True) -> str:
    """``text`` with contractions opened, slips and texted digits read as meant, intensifiers dropped ("what even is
    this place"; ``through`` False: kept) and punctuation spaced as words."""
    text = text.translate(_APOSTROPHES).lower()  # read in lower case, however typed
    for pattern, written in _CONTRACTIONS:
        text = pattern.sub(written, text)
    words = [_unstretched(w) for w in (_unquoted(w) for w in re.findall(r"[a-z0-9']+|[?!.,;]", text)) if w]
    text = _ITS.sub("it is", _untexted(" ".join(SLIPS.get(w, w) for w in words)))
    text = _HWO.sub(lambda m: "how" if m.group(1) else "who", text) if "hwo" in text else text
    text = _HOW_IS_MUCH.sub(r"how \1", text)  # "hows much": how much
    return _INTENSIFIED.sub(r"\1", text) if through else text


def request(text: str) -> str | None:
    """The request a courteous line makes, as :func:`plain` reads it ("I beg your pardon, but would you mind if I
    watched your game?": 'let me watch your game'); None when ``text`` has no courtesies around it."""
    spelled = _spelled(text)
    asked = courteous(spelled)
    return asked if asked != spelled else None


@lru_cache(maxsize=8192)
def plain(text: str, through: bool = True) -> str:
    """``text`` (lower case) with slips read as meant, contractions opened and spaces tidied; '?' and words kept.
    Names said first ("Hesper, Rhea, what do you make of it?") are left to the router: the line is the question.
    ``through``: intensifiers and courtesies read through too ("would it be too much trouble to have something to
    eat?": 'have something to eat'); the semantic fallback keeps them (its examples are compared as typed)."""
    text = _spelled(text, through)
    text = " ".join(_MANNER.sub(" ", text).split()) if through else text  # "ask her, as casually as i can, how..."
    text = courteous(text) if through else text
    text = _VOCATIVE.sub("", text)
    text = _GREETED.sub("", text)  # "hey tobin, you been out here long": the question (the router keeps who)
    text = _URGED.sub("", text)  # "go on then, sing it": what is urged
    text = _HEDGED.sub("", text)  # "i think i will head out": what will be done
    return _ASIDE.sub("", text)  # "wait, what did he say": the question


# How a thing is asked or done, said between its verb and the rest: "ask the innkeeper , as politely as i can
# manage , whether ...", "ask in a low voice whether ...": read through, like a courtesy.
_MANNER = re.compile(r"(?: , )?\b(?:as (?:\w+ly|quiet|nice|polite|casual) as (?:i|we|you) (?:can|could|dare)"
                     r"(?: manage)?|"
                     r"in a (?:low|quiet|hushed|soft|loud|friendly|casual|conspiratorial) (?:voice|tone|whisper)|in a "
                     r"whisper|under my breath|with a (?:smile|wink|grin|nod))\b(?: ,)?|"
                     r" , (?:quietly|softly|politely|casually|carefully|gently|bluntly|nervously|calmly|idly|loudly|"
                     r"innocently|slowly|warily|plainly|straight out) ,")
_INTENSIFIED = re.compile(r"\b(what|who|where|why|how)(?: (?:even|exactly|the heck|the hell|on earth|in the world))+\b")
# The courtesies around a request ("I beg your pardon, gentlemen, but would you mind terribly if I watched your
# game?", "Might I trouble you for a bowl of stew?"): the request itself, its verb in the plain form.
_COURTESY = re.compile(
    r"^(?:(?:i beg your pardon|begging your pardon|forgive me|pardon me|excuse me|if it is not too (?:forward|much "
    r"trouble)|if you please|if i may)(?: , (?:sir|madam|miss|ma'am|gentlemen|ladies|friend|good sir|my lady|my good "
    r"(?:man|woman|sir)))? , (?:but )?)?(?P<ask>would it be too much trouble to|(?:might|could|may|can) i trouble "
    r"you (?:for|to)|would you "
    r"be so (?:good|kind) as to|would you kindly|could you kindly|would you please|i would be (?:most |very |so )?"
    r"grateful(?: , [a-z]+(?: [a-z]+)? ,)? (?:if you could|to|for)|i would be (?:most |very )?(?:honou?red|delighted|"
    r"glad)(?: , [a-z]+(?: [a-z]+)? ,)? if|would you mind "
    r"(?:terribly |awfully |very much )?if i|do you mind if i|would it trouble you if i|could i possibly|might i "
    r"possibly|i would (?:like|love) to|(?:ask|asking) (?:them |him |her |the \w+ )?if i (?:can|could|may|might))\s+")


def courteous(text: str) -> str:
    """``text`` (as :func:`plain` leaves it) without the courtesies around its request (``_COURTESY``); "if i
    watched" read as "let me watch"."""
    found = _COURTESY.match(text)
    if found is None:
        return text
    rest = text[found.end():].rstrip(" ?")  # a request, not a question
    if found.group("ask").endswith("if i"):  # "would you mind if i watched your game": let me watch your game
        rest = "let me " + re.sub(r"^([a-z]+?)(?:([a-z])\2)?ed\b", r"\1\2", rest)
    elif found.group("ask").endswith("for"):  # "might i trouble you for a bowl of stew": a bowl of stew, asked for
        rest = "can i have " + rest
    return rest


# "its" typed for "it's" (before what reads as the rest of a sentence), not the possessive ("on its pole").
_ITS = re.compile(r"\bits\b(?= (?:a|an|the|not|no|too|so|very|just|all|been|over|fine|ok|okay|late|early|time|me|you|"
                  r"him|her|them|here|there|true|right|done|\w+ing|\w+ed)\b| ?[?!.,;]|$)")
# A greeting and a name before the line itself: "hey tobin , ...", "oi you , ...", "hello there , ...".
_GREETED = re.compile(r"^(?:hey|oi|hi|hello|yo|listen|look|excuse me|sorry)(?: [a-z']+){1,2} , (?=[a-z])")


# A hedge before what the player will do ("i think i'll head out", "bye, im out"): the deed itself.
_HEDGED = re.compile(r"^(?:i think|i guess|i reckon|i suppose|maybe|right|well)(?: ,)? (?=i (?:will|should|might|"
                     r"ought to|better|had better|am going to|am gonna)\b)|^(?:bye|goodbye|see ya|see you|later|cheers|"
                     r"thanks)(?: all| everyone| then)?(?: ,)? (?=(?:i am (?:out|off|leaving|gone|heading out)|"
                     r"i must go|i have to go|got to go|time to go)\b)")


# Urging before what is urged: "go on then, sing it", "come on, tell me" (not a way to go).
_URGED = re.compile(r"^(?:go on|come on|go ahead|well go on)(?: then| now)?(?: ,)? (?=(?:sing|tell|say|show|play|give|"
                    r"ask|explain|read|dance|spit|let|try|pour|deal|name)\b)")


# An aside before a question ("wait, what did he say?", "hold on, who is that?"): not a deed.
_ASIDE = re.compile(r"^(?:wait|hang on|hold on|sorry|um+|uh+|er+|huh|eh|hey|oi|yo)\s*,?\s+(?=(?:what|who|why|how|where|"
                    r"when|which|did|do|does|is|are|was|were|you|got|any)\b)")


# What a player says before the deed itself: "i", "i want to", "can i", "let me", "please", "then", "ok so"...
_LEAD = re.compile(
    r"^(?:(?:ok|so|well|then|and|now|alright|um+|uh+|hmm+|ugh|ew+|oh|ah|yikes|just|please|quickly|slowly|quietly|"
    r"actually|honestly|bruh|bro|dude|omg|welp|crap|damn|dang|shit|oh no|oh god|lol|lmao|yo|"
    r"carefully|first|"
    r"maybe|perhaps|gently|calmly)(?:\s+,)?\s+)*"
    r"(?:(?:i|we)\s+(?:(?:will|would|shall|should|could|can|might|want to|would like to|wish to|am going to|"
    r"need to|have to|got to|must|"
    r"try to|start to|begin to|decide to|go and|then|just|quickly|slowly|quietly)\s+)*"
    r"|let me\s+|let us\s+|can i\s+|could i\s+|may i\s+|should i\s+|try to\s+|i try to\s+)?"
    r"(?:(?:please|just|quickly|slowly|quietly|carefully|gently|then)\s+)*")
_ARTICLE = re.compile(r"^(?:the|a|an|some|my|your|that|this|those|these|his|her|their|our)\s+")
_TAIL = re.compile(r"\s*[?!.,;]+$")


_FUNCTION = re.compile(r"^(?:(?:is|are|was|were|do|does|did|can|could|would|will|should|i|you|we|it|there|to|of|on|"
                       r"upon|in|inside|at|"
                       r"about|that|this|the|a|an|any|some|my|your|so|really|anyway|again|please|two|both|all|"
                       r"nearest|closest|nearby|local|good|decent)\s+)+")


def topic_of(words: str) -> str:
    """The noun phrase in ``words`` with leading function words ('is the', 'do you', 'about') and closing
    punctuation removed ('the barrel by the hearth' -> 'barrel by the hearth')."""
    words = _TAIL.sub("", words.strip()).strip()
    words = _SECOND_QUESTION.sub("", words)  # "this provost guy and is he as bad as people say": the provost
    words = _WHY_AFTER.sub("", words)  # "a hospital my arm is killing me": the hospital
    words = re.sub(r"\s*,?\s*(?:does anyone know|anyone know|do you know|you know|any idea|anybody)\s*$", "", words)
    words = re.sub(r"(?:\s+(?:anyway|then|again|please|here|around here|round here|over there|about|of|for|on|with|"
                   r"to|at|lately|recently|these days|nowadays|today|now|for a (?:while|bit|moment|minute|spell)|"
                   r"awhile|from here|without getting lost))+$", "", words)
    words = _FUNCTION.sub("", words + " ").strip() or _ARTICLE.sub("", words).strip()
    words = re.sub(r"^(?:those|these|them|that|this|some|all (?:that|those|the))\s+(?=\w)", "", words)
    words = _PLACE_BY_DEED.sub("", words)  # "where they keep the water tanks": the water tanks
    thing = re.sub(r"\s+(?:hanging|sitting|lying|standing|stacked|nailed|pinned|propped|leaning)\b.*$", "", words)
    return words if thing.split()[-1:] and thing.split()[-1] in _VAGUE else thing  # "things hanging by the door":
    # where they hang is all that names them


# People told only as a crowd ("the guys sitting by the window"): words that name nobody in particular.
CROWD_WORDS = frozenset({"guys", "men", "folks", "people", "lads", "blokes", "fellas", "women", "ladies"})
_VAGUE = frozenset({"thing", "things", "stuff", "one", "ones", "something", "bits", "whatever", "thingy",
                    "thingies"}) | CROWD_WORDS


# A reason run on after the noun phrase: "a hospital my arm is killing me", "a healer im bleeding".
_WHY_AFTER = re.compile(r"\s+(?:,\s*(?:this|my|it|its|the|i|im|and) .*|or (?:some|any|a|an|anything|something|"
                        r"whatever|what|so|is|are)\b.*|(?:because|cause|cos|coz|since) .*|(?:im|i am|i'm) (?:bleeding|"
                        r"hurt|dying|starving|hungry|thirsty|sick|injured|wounded|lost|broke|tired|cold)\b.*|my [a-z]+ "
                        r"(?:is|are|hurts?|was|feels?|got)\b.*)$")
_SECOND_QUESTION = re.compile(r"\s+(?:,\s+)?and (?:is|are|was|were|does|do|did|can|could|will|would|what|why|how|"
                              r"where|who|when)\b.*$")


# "where they keep the water tanks", "where the ships land": a place told by what is there (the rest names it).
_PLACE_BY_DEED = re.compile(r"^(?:wher(?:e|ever) (?:they|you|people|folk|folks|we|the \w+)|(?:they|people|folk|folks)) "
                            r"(?:keep|keeps|store|stores|sell|sells|"
                            r"make|makes|do|does|fix|fixes|bury|buries|pray|prays|drink|drinks) (?:the |their |all "
                            r"the )?|^wher(?:e|ever) (?:they|you|people|folk|folks|we|the \w+) (?=[a-z]{3,} )")
# ("where they weigh the salt": what is done there names it too, so that verb is kept)


def _any(*phrases: str) -> str:
    return "(?:" + "|".join(phrases) + ")"


# Thanks, apologies and greetings said to somebody by description ("thank the old man", "apologise to the drillers
# for knocking their dice"): ``who``, the words that describe them.
SAID_TO = re.compile(r"^(?:thank(?:s)?|(?:say|said|tell|wish|offer|make) (?:thanks|thank you|sorry|goodbye|bye|hello|"
                     r"hi|my apologies|good (?:night|day|evening|morning)) to|apologi[sz]e to|greet|bid (?:farewell|"
                     r"goodbye|good night) to|wave goodbye to) (?!for\b|4\b|you\b|u\b)(?P<who>[a-z' ]+?)(?: for .*)?"
                     r"\s*[?!.]*$")


# A sound a player makes before the reply itself ("huh, tell me more", "oh, ok", "hm why").
_UTTER = r"^(?:(?:huh|oh|ah|aha|hm+|well|wow|ooh|ugh|eh|right|so|actually|honestly)[ ,]+)?"
REPLIES: list[tuple[str, re.Pattern[str]]] = [(verb, re.compile(_UTTER + body + r"(?:\s+(?:then|to you|sir|madam|"
                                                                 r"friend|mate|please))?\s*[?!.,]*$"))
                                              for verb, body in [
    ("yes", _any(r"yes(?: yes)*(?: please)?", "ok", "sure(?: thing)?", "deal", "alright", "all right", "fine",
                 "agreed", "of course", "certainly", "absolutely", "definitely", "fair enough(?:[ ,]+i will take it)?",
                 "sounds good", "sounds fair", "good", "great", "count me in", "i am in", "why not", "let us do it",
                 "i will do it", "i will take it", "i will take the job", "i accept",
                 "tell [a-z]+ (?:that )?(?:i|you) (?:will|would) (?:do it|take (?:it|the job|the work|it on)|help)",
                 "(?:i will )?take (?:[a-z]+ |you |him |her |them )?up on (?:it|that|the (?:job|offer|work)|"
                 "(?:your|his|her|their) (?:job|offer))", "accept(?: the (?:job|offer|"
                 "deal|work|task|quest))?",
                 "take the (?:job|offer|deal|work)(?: [a-z]+ (?:offers|offered|is offering))?", "i agree",
                 "accept [a-z]+'?s (?:job|offer|work)", "say yes to [a-z]+'?s (?:job|offer)",
                 "you have a deal", "you have my word", "i give you my word", "i promise", "i swear(?: it)?",
                 "it is a deal", "done", "very well", "i will help(?: you)?", "yes i will(?: help)?",
                 r"(?:ok|yes|sure|fine|alright)[ ,]+(?:i will (?:do it|help|take it)|deal|let us go|lead on)",
                 r"(?:(?:ok|okay|alright|all right|sure|fine|right|yes|yeah|aye)[ ,]+)?(?:i will look into it|i will "
                 r"see what i can do|i will do what i can|leave it (?:to|with) me|consider it done|you can count on "
                 r"me|i am on it|on it|i will find (?:them|him|her|out)|i will sort it(?: out)?)")),
    # doubt of what was just said ("you're pulling my leg", "that can't be right", "yeah right"): they stand by it
    ("doubt", _any("you (?:are|must be|have (?:got )?to be|gotta be) (?:kidding|joking|pulling my leg|having me on|"
                   "winding me up|making (?:that|this|it) up|full of it|lying)(?: me)?",
                   "(?:i )?(?:do not|cannot|can not) believe (?:you|it|that|this|a word(?: of (?:it|that))?)",
                   "(?:that|this|it) (?:cannot|can not|could not) (?:be|possibly be) (?:right|true|so)",
                   "come off it", "pull the other one", "yes right", "as if", "i doubt (?:it|that)",
                   "(?:that is |what )?a likely story", "sure (?:you did|it is|it was|they did)", "nonsense",
                   "rubbish", "bull", "bullshit") + r"(?:[ ,]+(?:lol|haha+|ha ha|lmao|mate|pal))?"),
    ("no", _any(r"no(?: no)*", "no thanks", "no thank you", "no way", "not now", "not today", "never", "i refuse",
                "refuse", "decline(?: the (?:job|offer))?", "i decline", "maybe later", "not interested",
                "i will pass", "pass", "no deal", "forget it", "not a chance", "i do not think so", "no chance")),
    # why the one asking was asked ("why me?", "why not do it yourself?"): their reason for picking you
    ("why_me", _any("why me", "why (?:would|do|did) you (?:ask|pick|choose|want|need) me", "why (?:pick|choose) me",
                    "why not (?:do it|go|ask (?:someone|somebody) else) yourself", "why not do it yourself",
                    "why not (?:ask )?(?:someone|somebody|anyone|anybody) else",
                    "what makes you think i (?:can|could|would|will)(?: do it| help| manage)?")
     + r"(?:[ ,]+(?:though|tho|then|exactly|again))?"),
    ("why", _any("why", "why not", "why is that", "why would i", "how come", "what for",
                 r"(?:so |and |ok |okay )?what is the catch", "where is the catch", "there is always a catch",
                 "and the catch", "what is the hitch")),
    ("more", _any("tell me more", "go on", "and", "and then", "what do you mean", "what does that mean", "really",
                  "explain", "explain that", "say more", "continue", "huh", "what", "meaning", "such as", "like what",
                  "is that so", "is that right", "what else", "anything else", "how so", "then what", "and so",
                  "what happened", "what happened next", "seriously", "you sure", "are you sure", "tell me",
                  "i have a question", "(?:i have |i got |got )?(?:a |one )?(?:quick |small )?question(?: for you)?",
                  "can i ask (?:you )?(?:something|a question|a thing)",
                  "tell me about it", "more", "elaborate", "ok and", "keep going",
                  "(?:tell me |say |go on,? say )?(?:some(?:thing)? )?more about (?:that|it|this|them|him|her|those|"
                  "these)", "tell me (?:about )?(?:that|this)", "go on then", "do tell", "what do you mean by that",
                  "what did (?:he|she|they|you|it) (?:just )?(?:say|mean)",
                  # who or what else: "who else knows about this?", "what about the other one?"
                  "who (?:do you (?:reckon|think|suppose|figure) |would you say )?(?:is|was|are|were)(?: really)? "
                  "behind (?:it|this|that|all this|all that|it all)",
                  "(?:who|anyone|anybody|someone|somebody) else(?: (?:knows?|would know|could i ask|can i ask|is "
                  "there|heard|saw|seen|was there|might know|i (?:could|can|should) (?:ask|talk to)))?(?: (?:about|of) "
                  "(?:this|that|it|them|him|her))?", "(?:and |but )?(?:what about |how about )?the other(?: one| ones|"
                  " two| guy| woman| fella)?")),
    ("again", _any("come again", "say (?:that|it) again(?: (?:but )?(?:slower|more slowly|slowly|louder))?",
                   "(?:sorry|pardon),? what", "what was that", "i did not (?:catch|hear) (?:that|you)", "repeat that",
                   "(?:can|could) you repeat that", "speak up", "slower", "(?:say it )?one more time",
                   "(?:say|tell me) (?:that|it) (?:again )?(?:slower|more slowly)")),
    ("if_no", _any("(?:and |but |so )?(?:what )?if (?:i|we) (?:say no|refuse|do not|decline|turn (?:it|you|that) "
                   "down|walk away|say no to (?:it|that|you)|pass|do not want (?:it|to))",
                   "what happens if (?:i|we) (?:do not|refuse|say no|decline|pass|walk away)", "(?:and )?if not",
                   "and if i do not")),
    # a remark on the place ("nice place", "quiet in here tonight", "cozy bar you have"): small talk; asked ("rough
    # day?"), it asks after them
    ("remark", r"(?![^?]*\?)(?:(?:it is|this is|that is|what a|such a|quite a|real|pretty|very|kind of|sort of|bit|"
               r"a bit) )*"
               r"(?:nice|lovely|cozy|cosy|quiet|busy|lively|loud|noisy|warm|cold|dark|grim|rough|fine|decent|good|"
               r"great|homey|homely|friendly|dead|packed|crowded|smoky|strange|odd|charming|dingy|grimy)(?:(?: "
               r"(?:little |old )?(?:place|bar|tavern|inn|spot|joint|crowd|room|night|evening|morning|day|"
               r"establishment|town))(?: (?:in here|here|tonight|today|you have|you got|you have got|you run))*|(?: "
               r"(?:in here|here|tonight|today))+)(?:(?: ,)? (?:though|huh|eh|innit|is not it|right))?"),
    ("thanks", _any("thanks", "thank you", "thank you kindly", "many thanks", "cheers", "much obliged", "thanks a lot",
                    "(?:thanks|thank you|cheers|ta) (?:for|4) (?:the|that|this|your|a|all|everything)(?: [a-z' ]+)?"
                    "(?: , [a-z]+(?: [a-z]+)?)?",
                    "appreciate it", "i appreciate it", "ta")),
    ("sorry", _any("sorry", "i am sorry", "apologies", "my apologies", "my bad", "i apologi[sz]e", "forgive me",
                   "pardon", "pardon me", "excuse me", "(?:say sorry|apologi[sz]e|make my apologies|offer my "
                   "apologies) to [a-z' ]+?(?: for [a-z' ]+)?")),
    ("hello", _any("hello", "hi", "hey", "hiya", "howdy", "greetings", "good (?:morning|day|evening|afternoon)",
                   "greet (?:the |those |these |that |this |a |an )?[a-z' ]+?",
                   "hello there", "hi there", "hey there", "well met", "evening", "morning",
                   "(?:do you |would you )?mind if i (?:join you|sit(?: down| here| with you)?|take (?:a|this) seat)",
                   "(?:(?:hey|hi|oi|excuse me|sorry|say) (?:[a-z]+ )?)?(?:is )?(?:this|that) (?:seat|stool|chair|spot) "
                   "(?:taken|free)",
                   "(?:anyone|anybody) sitting here")),
    ("bye", _any("bye", "goodbye", "good bye", "farewell", "see you", "see you later", "see ya", "later",
                 "good night", "take care", "so long")),
]]

# Whoever holds the town, as a place asked for: "the offices of whoever governs this town".
RULER = re.compile(r"\b(?:whoever|who|those who|the people who|the ones who) (?:governs?|rules?|runs?|holds?|owns?) "
                   r"(?:this|the|that) (?:whole )?(?:town|city|village|reach|region|district|colony|settlement|"
                   r"place)\b")
# Questions: (verb, pattern); the first match wins; the pattern's ``t`` group is the topic.
_AREA = (r"(?:this|the|that|our|your) (?:whole |entire )?(?:town|city|village|reach|region|district|colony|settlement|"
         r"island|valley|rift|country|land)")  # the place around a place: "who runs this whole town"
QUESTIONS: list[tuple[str, re.Pattern[str]]] = [(verb, re.compile(body)) for verb, body in [
    # "what's her deal, the one in the red shawl", "whats ur deal": who someone is, not a "deal" to ask about
    ("who_is", r"^what is (?:his|her|their) (?:deal|problem|issue|game) ,? (?P<t>(?:the|that) (?:one|man|woman|"
               r"guy|girl|boy|kid|fellow|lad|lass|old \w+|\w+ (?:man|woman|guy|one))\b[a-z' ]*?)\s*\??$|"
               r"^what is (?P<t2>his|her|their) (?:deal|problem|issue|game)\s*\??$|"
               r"^what is (?:your|ur|ya) (?:deal|problem|issue|game)\s*\??$"),
    ("aim", r"\bwhat (?:(?:are|is) (?:you|ya|u|he|she|they) (?:going to|gonna|planning to|meaning to|hoping to)|"
            r"(?:will|would) (?:you|ya|u|he|she|they)|(?:do|does|did) (?:you|ya|u|he|she|they) (?:plan to|"
            r"mean to|intend to|want to|wanna|aim to))(?: do)?(?: about (?:it|that|this|them|him|her)| now| next|"
            r" then| with (?:yourself|himself|herself|themselves))?\s*\??$|"
            r"\bwhat (?:are|will|do|did|does) (?:you|ya|u|he|she|they) (?:going to |gonna )?do (?:about (?:it|that|"
            r"this|them|him|her)|now|next)\s*\??$|"
            r"\bwhat (?:is|are) (?:your|ur|his|her|their) (?:plans?|next move|angle|game)\b|"
            r"\bwhat (?:do|does) (?:you|ya|u|he|she|they) (?:actually |really )?(?:want|need|plan|intend|mean to do|"
            r"want from me)\s*\??$|\bwhat (?:are|is) (?:you|ya|u|he|she|they) (?:after|up to|playing at)\s*\??$"),
    ("how_much", r"\bwhat (?:is|does) (?:it|that|the job|the work) (?P<t>pay)s?\b"),  # "whats it pay though"
    # what a companion asks to join: "how much to hire u for a day", "whats your fee", "what would it cost to hire"
    ("fee", r"\bhow much (?:would it cost |does it cost |do you (?:charge|want|ask) )?(?:to |for )?(?:hire|hiring|"
            r"take on|sign on|sign up|join|come along)\b|\bwhat (?:is|are) (?:your|ur|her|his|their) (?:fee|rate|rates|"
            r"price|terms|day rate)\b|\bwhat (?:would|does|will) it cost (?:me )?to (?:hire|take on|sign)\b|"
            r"\bhow much (?:do|would) (?:you|ya|u) (?:charge|want)(?: to (?:come|join|help))?\b|"
            r"\bare (?:you|ya|u) for hire\b"),
    # a kind of person sought: "i'm looking for someone honest", "i need someone i can trust", "who here is honest"
    ("someone", r"^(?:i am |i )?(?:looking for|need|want|am after|seeking|searching for|could use|know) (?:someone|"
                r"somebody|a person|anyone|anybody|a man|a woman|a guy|a fellow)(?: (?:who is|who can be|that is|i "
                r"can|to|with))? (?P<t>[a-z' ]{3,40}?)\s*[?.!]*$|^(?:is there )?(?:who|anyone|anybody|someone) "
                r"(?:here |in here |around here |round here )?(?:is|who is) (?P<t2>honest|trustworthy|reliable|"
                r"dependable|straight|decent|brave|tough|clever|smart|discreet|quiet|fair)\b"),
    ("trouble", r"\bwhat(?: is| are)? (?:everyone|everybody|people|folk|folks|the room|they all|you all) (?:so |all )?"
                r"(?:worked up|upset|angry|on edge|nervous|tense|jumpy|riled up|stirred up|wound up|twitchy) (?:about|"
                r"over)\b|\bwhy is (?:everyone|everybody|the room|this place) so (?:tense|angry|upset|nervous|jumpy|"
                r"quiet|on edge|twitchy)\b|\bwhat is (?:the|all the|all this) (?:fuss|commotion|trouble|tension)\b|"
                r"\bwhat (?:the |all the )?(?:fuss|commotion|trouble|tension) is(?: about)?\b|\bwhat is (?:wrong|"
                r"amiss|the matter|up) (?:around|round|in|with) (?:here|this (?:place|town)|the town)\b"),
    ("where_sold", r"^(?:is there|are there|any) (?:a |an |any )?(?:shops?|markets?|stores?|traders?|merchants?|"
                   r"stalls?)"
                   r"\b.*\b(?P<t>gear|supplies|goods|stuff|equipment|provisions|kit|tools)\b"),  # "a shop for gear"
    ("about", r"\bhow long (?:have|has) (?P<t>you|u) (?:been )?(?:kept|keeping|run|running|owned|had|worked|working|"
              r"lived|living|been|tended|tending)\b"),  # "how long have you kept this place": about themselves
    ("side", r"\b(?:(?:whose|which|what) side (?:is|are)|who (?:does|do)) (?P<t>[a-z' ]+?) (?:on|(?:work|answer|"
             r"report) (?:for|to))\b"),
    ("factions", r"\bwhat (?:are )?(?:the )?(?:main |big |major |local |different )?(?:groups|factions|powers|sides|"
                 r"gangs|guilds|outfits)\b|\bwho are the (?:main |big |major )?(?:players|powers|factions|groups)\b|"
                 r"\b(?:which|what) (?:groups|factions|powers|gangs) (?:are there|matter|run|count)\b"),
    ("who_rules", r"\bwho is the (?:most powerful|strongest|richest|mightiest) (?:person|man|woman|one|people|"
                  r"group|faction)?\b|\bwho (?:has|holds) (?:the )?(?:real |most )?power\b|"
                  r"\bwho (?:is )?in charge of the (?:guards?|watch|reeves?|law|deputies|police|soldiers|garrison)\b|"
                  r"\bwho (?:actually |really |even )?(?:is )?(?:actually |really |even )?(?:runs|owns|rules|holds|"
                  r"controls|bosses|governs|(?:is )?in charge of|(?:is )?the (?:boss|owner|ruler|master|lord|lady) of|"
                  r"(?:is )?boss of) " + _AREA + r"\b|\b(?:boss|"
                  r"owner|ruler|master|lord|lady) of " + _AREA + r"\b|\bwho is in charge (?:around|round) here\b|\bwho "
                  r"(?:actually |really |even )?(?:runs|rules) (?:things |stuff |everything )?(?:around|round) here\b"
                  r"|\bin these parts\b|\bwho (?:actually |really )?"
                  r"(?:takes|collects|"
                  r"gets|pockets) (?:all )?the (?:\w+ )?(?:money|taxes|tithes?|dues|tolls?)\b|\bwhere (?:does|do) "
                  r"(?:all )?"
                  r"(?:the |that |our )?(?:money|taxes|tithes?|dues|tolls?|profits?|coin) (?:even |actually |really )?"
                  r"(?:go|end up|get to|wind up)\b"),
    ("about", r"^whose (?!(?:place|tavern|inn|bar|pub|shop|joint|dump|dive|hole|establishment)\b)(?P<t>[a-z' ]+?) is "
              r"(?:that|this|it)\b|\bwho (?:owns|does) (?P<t2>(?:the|that|this) (?!"
              r"(?:place|tavern|inn|bar|pub|shop|joint|house|building|hall|town|city|village|dump|dive|hole|shack|"
              r"hovel|establishment|den)\b)[a-z' ]+?)(?: belong "
              r"to)?\s*\??$"),
    # who holds a thing of the town ("who controls the water", "who decides how much water you get"): not the place
    ("controls", r"^who (?:actually |really )?(?:controls|keeps|decides|handles|holds|owns|runs|is in charge of|has "
                 r"charge of|looks after|deals with|manages|rations|hands out|doles out)(?: how much)? "
                 r"(?:the |all the )?"
                 r"(?P<t>(?!this\b|that\b|here\b|the place\b|the bar\b|things\b|it\b)[a-z' ]+?)(?: (?:you|we|i|people|"
                 r"folk|anyone) (?:get|gets|can have))?(?: (?:in|around|round) (?:this|the) (?:town|place|reach|rift)| "
                 r"(?:around|round) here| here)?(?: , if you do not mind my asking)?\s*\??$"),
    ("who_runs", r"\bwho (?:actually |really |even )?(?:is )?(?:actually |really |even )?(?:runs|owns|keeps|"
                 r"manages|(?:is )?in charge(?: of)?|(?:is )?the (?:boss|owner|keeper)|rules|holds|controls|bosses|"
                 r"calls the shots)\b|\bwho is (?:the )?(?:boss|owner|landlord|keeper|proprietor)"
                 r"(?: here| of)?\b|\bwhose (?:place|tavern|inn|bar|pub|shop|joint|dump|dive|hole|establishment) "
                 r"is\b"),
    ("where_is", r"\bwhere (?:can|could|should|do|does|might|would) (?:i|we|one|a person) (?:go|head|get help|turn)"
                 r"(?: to)? (?:if|when|once) (?:i|we|you|one|they) (?:get|gets|am|are|is|feel|feels|end up) "
                 r"(?P<t7>hurt|injured|sick|wounded|ill|cut|shot|stabbed)\b"),
    ("where_go", r"\bwhere (?:can|could|should|do|does|might) (?:i|we|one) (?:go|head|travel|get to)\b|"
                 r"\bwhich way\b(?! (?:to|is|for) (?!here\b|there\b)\w)|"
                 r"\bwhere (?:does|do) (?:this|that|the \w+) (?:lead|go)\b|\bwhat is (?:nearby|around here|close by)\b|"
                 r"\bhow do i get out\b|\bwhere (?:are )?the exits?\b|\bany way out\b"),
    ("about", r"^(?:can|should|could|do|would|will) (?:i|we|you|one) (?:trust|rely on|believe|count on) (?P<t>.+?)"
              r"(?: or (?:is|are|not|does|do|will)\b.*)?\s*\??$"),
    ("who_am_i", r"\bwhat is my name\b|\bwho am i\b|\bwhat am i called\b|\bdo you know (?:my name|who i am)\b"),
    ("who_is", r"\bwhat is (?:your|you|ur|yer|ya|thy) name\b|\bwhat (?:is )?(?:her|his|their) name(?: is)?\b|"
               r"\bwhat (?:she|he|they) (?:is|are) called\b|\bwho (?:she|he|they) (?:is|are)\b|\bwho are you\b|"
               r"\bwhat (?:do|should) (?:they|people|i|we) call you\b|"
               r"\bwho might you be\b|\band you are\?|\bgot a name\b|\bintroduce yourself\b"),
    ("money", r"\bwhat (?:do|does) (?:you|they|people|folk|one|yall|y'all|ye|you all|you lot|everyone) (?:call|use "
              r"for|pay with|use as|pay in|trade in|spend) (?:the )?(?:money|"
              r"coin|cash)\b|\bwhat (?:is|are) the (?:money|currency|coin|coins)\b|\bwhat currency\b|\bwhat money\b|"
              r"\bwhat (?:kind|sort|type) of (?:money|coin|coins|currency|cash)\b"),
    ("lodging", r"\bwhere (?:can|could|do|might|should|would) (?:i|we|one|a person|a body|a fellow|someone) (?:crash|"
                r"sleep|stay|kip|lodge|bed down|"
                r"spend the night|get a (?:room|bed))\b|\b(?:any|a) (?:room|bed|rooms|beds) (?:for the night|free|to "
                r"let|going)\b|\bis there (?:a |an |any )?(?:room|bed|inn|lodging)\b|"
                r"\bhow much (?:is |for )?(?:a |the )?(?:room|bed|night's lodging)\b|\b(?:rate|price|cost) (?:for|of) "
                r"(?:a |the )?(?:room|bed)\b|\b(?:room|bed)s? (?:for the night|per night|a night|tonight)\b|"
                r"^(?:i would like|i want|i need|can i "
                r"(?:get|have)|could i (?:get|have)) (?:a|the) (?:room|bed)\b"),
    ("danger", r"^(?:so |and |but )?(?:is|are) (?:the |that )?(?P<t>(?!(?:it|roads?|ways?|paths?|streets?|town|"
               r"place|area|here|there|out there|this|that)\b)[a-z' ]{3,30}?) (?:safe|dangerous|risky)\b"),
    ("danger", r"\b(?:is it|it is|are the roads?|is the road|is the way|(?:are|is) (?:the|it|that) (?:roads?|ways?|"
               r"paths?|streets?|causeway|crossing|walk|trip|journey)(?: [a-z]+){0,4}?) (?:safe|dangerous|risky)\b|"
               r"\b(?:get|be|getting) (?:robbed|mugged|jumped|attacked|knifed)\b|\b(?:bandits|robbers|"
               r"thieves|raiders|footpads|cutthroats|brigands|outlaws)\b|\bwho should i (?:stay away from|avoid|watch "
               r"out for|be afraid of|steer clear of)\b|\b(?:any|what) (?:danger|trouble)s?\b.*\?|"
               r"^(?:any|is there any) (?:danger|trouble|bother)s?\b|\bwhere is it dangerous\b|"
               r"\bwhere (?:should(?:nt| not)|must(?:nt| not)|ought(?: not)? to|should) (?:i|we|one) (?:not )?"
               r"(?:go|wander|stray|avoid|keep away from|stay away from)\b|\bwhich (?:ones|places|channels|parts|"
               r"roads|ways|shafts) (?:should|do) (?:i|we) (?:avoid|stay out of|keep away from|stay away from|keep "
               r"out of)\b|\bwhere (?:is|are) (?:it )?(?:not )?safe\b|"
               r"\bwhat (?:is|makes it) so (?:bad|dangerous|scary|deadly)\b|\b(?:anywhere|any ?place|any places?|"
               r"places?|parts?) (?:i|we|one) (?:should|ought to|had better|better)? ?(?:avoid|stay away from|keep "
               r"(?:clear|away|out) (?:of|from)|not go|steer clear of)\b|\bwhat should i (?:avoid|watch out for|"
               r"steer clear of|be careful of)\b|\bwhat is (?:dangerous|bad) out there\b"),
    ("credit", r"\b(?:pay|settle|square (?:up|it)) (?:you |it |up )?(?:later|tomorrow|next time|another time|"
               r"when i can|"
               r"back later)\b|\b(?:put|stick|chalk|add) (?:it|that|this|them) (?:on|to) (?:my|the|a) (?:tab|slate"
               r"|account|bill)\b|\bon (?:credit|the slate|tick|account|my tab)\b|\b(?:start|run|open|settle|pay off"
               r"|clear) (?:up )?"
               r"(?:a |my |the )?(?:tab|slate)\b|\bhow much do i owe\b|\bdo i owe (?:you|anything)\b"),
    ("smell", r"\bwhat(?: is)? (?:that|the|this) (?:awful |funny |strange |weird )?(?:smell|stink|stench|reek|odou?r|"
              r"pong|whiff)\b|\bwhat (?:smells|stinks|reeks)\b|\bwhy does (?:it|this place|everything) (?:smell|stink|"
              r"reek)\b|\bwhat is that (?:awful |funny |strange |weird )?smell\b"),
    ("weather", r"\b(?:what|how) is the weather\b|\bthe weather (?:like|doing|out|outside|today|tonight)\b|"
                r"\bis it (?:still )?(?:raining|pouring|snowing|windy|stormy|cold|foggy|misty|chucking it down)\b|"
                r"\b(?:still|stopped) (?:raining|pouring|snowing|blowing|chucking it down)\b|\bweather (?:is )?"
                r"(?:doing|like|looking)\b|\bhow is it (?:out|outside) there\b"),
    ("worship", r"\bwhere (?:do|can|might|does) (?:people|i|we|folk|one|anyone) (?:go to )?(?:pray|worship)\b|"
                r"\b(?:is there|where is) (?:a |an |the )?(?:chapel|church|shrine|temple|abbey)\b"),
    ("where_go", r"\bwhere (?:can|could|might|do|does) (?:i|we|one|a person|a body|a fellow|people|you) (?:get|go|head)"
              r"(?: to)?(?: from (?:here|this place|this \w+))?\s*\??$"),
    ("where_is", r"^(?:and |so |ok |okay |right |but )?where(?:abouts)?(?: exactly| precisely| then| is that| is it)?"
                 r"(?: exactly| precisely| then)?\s*\??$|\bwhere (?:is|was|would i find|do i find|can i find) "
                 r"(?P<t>this|that|the) place (?:you(?:'re| are| were)? (?:talking|on) about|you (?:mentioned|"
                 r"speak of|said|meant))\b|^(?:and |so )?what(?:'s| is) (?P<t2>out there|over there|there)\s*\??$"),
    ("where_am_i", r"\bwhere (?:am i|are we)\b|"
                   r"\bwhere is this(?= ?(?:\?|$|,|place|town|village|city|spot|exactly))|"
                   r"\bwhat is the name of this (?:town|place|village|city)\b|"
                   r"\bwhat (?:is )?this place\b|\bwhat place is this\b"),
    ("what_here", r"\bwhat (?:can|could|should|do|might) (?:i|we|one) (?:do|buy|get|find)(?: here| around here)?\b|"
                  r"\bwhat is there to (?:do|buy|see)\b|\bwhat (?:do|does) (?:you|they|this place|it) (?:sell|have|"
                  r"offer|serve)\b|\bwhat now\b|\bwhat next\b|\bnow what\b|\bwhat should i do\b|"
                  r"\bwhat is for sale\b|\bwhat is on offer\b"),
    ("any_work", r"\bany (?:honest |paid |paying |decent |steady |real )?(?:work|jobs?|employment|bount(?:y|ies)|"
                 r"contracts?|gigs?)\b|\bthere is (?:some )?(?:work|a job|jobs) (?:going|to be had|on offer|for)\b|"
                 r"\b(?:she|he|they|you) (?:has|have|got|has got|have got|needs?) (?:some |any )?(?:work|a job|jobs|"
                 r"a hand|help)\b|\b(?:earn|make) (?:a few |some |a little |any |a bit of |a )?(?:money|coin|coins|"
                 r"credits?|greys?|cash|living|wage)\b|"
                 r"\bwhere (?:do|should|shall) (?:i|we) (?:start|begin)\b|\bwhat do (?:i|we) do first\b|"
                 r"\bwho (?:do|should|shall|must) (?:i|we) (?:talk to|see|ask|speak (?:to|with)|start with|look for)"
                 r"(?: first)?\s*\??$|\bis there (?:any )?(?:work|a job|jobs)\b|\bwhat do you need\b|"
                 r"\bcan i help\b|\bneed (?:a hand|help)\b|\bwhat (?:do|must|should) i (?:need to )?do\b|"
                 r"\b(?:looking|lookin|hunting|searching) for (?:work|a job|jobs|hands|crew|help|a hand)\b|"
                 r"\bgot (?:any )?(?:work|a job|jobs)\b|\bneed (?:any )?(?:work|a job|hands)\b|\bwhat is the job\b|"
                 r"\b(?:ask|asking|inquire|enquire) (?:[a-z]+ )?(?:about|after|for|regarding) (?:any |some )?(?:work|"
                 r"a job|jobs|employment|paying work)\b"),
    ("about", r"\bwhat is (?:going on|happening|up|the matter|wrong) with (?P<t>.+)|^(?:is|are) (?:the |that |those )?"
              r"(?P<t2>[a-z' ]+?) (?:worth (?:joining|trusting|it|the trouble|knowing)|any good|to be trusted|"
              r"trustworthy|on (?:our|my|the) side)\b"),
    ("news", r"\b(?:any|what is the|what's the|got any|heard any) (?:good |juicy |interesting |new |fresh |local )?"
             r"(?:news|word|gossip|rumou?rs?)\b|"
             r"\bwhat (?:else )?is (?:new|happening|going on)\b|\bwhat (?:are|do) (?:people|folk|they|you) (?:saying|"
             r"talking about|say)\??$|\bwhat is (?:every(?:one|body)|the (?:whole )?(?:town|room|place)) (?:talking|"
             r"on) about\b|\bheard anything\b(?! (?:about|of|on) )|\bwhat is the word\b|"
             r"\bwhat is the (?:deal|story|situation) "
             r"(?:here|round here|around here|in here)\b|^what is the (?:deal|story|situation)\??$|"
             r"^(?:anything|owt|something) (?:interesting|new|exciting|strange|odd|worth knowing)\b(?! (?:to|for) "
             r"(?:buy|sell|eat|drink))|\bwhat is been happening\b|\bhappen(?:ed|ing)? (?:lately|recently)\b"),
    ("about", r"\bwhat do (?:you|ye|they|people|folk)(?: both| two| all| lot)? (?:make|think|reckon) (?:of|about) "
              r"(?P<t6>.+)"),
    ("about", r"\b(?:what|anything) (?:do|can|did|does|are|is) (?:people|folk|they|you|anyone|everyone|somebody|"
              r"the locals) (?:say|know|think|saying|heard|hear|tell)(?:ing)? (?:about|of|on) (?P<t>.+)|"
              r"\b(?:tell me(?: more| a bit| a little| something| a bit more)?|what is there to know|what do you know|"
              r"know anything|heard anything) about (?P<t2>.+)|"
              r"\bask (?:\w+ )?(?:about|after|regarding) (?P<t3>.+)|\bwhat about (?P<t4>.+)|"
              r"\bany (?:news|word|rumou?rs?) (?:of|about|on) (?P<t5>.+)"),
    ("how_much", r"^how much(?: exactly| then| is it| would it be| are we talking| we talking| do i get| will i get| "
                 r"would i get| does it pay| is in it for me)?(?: here| about| then| exactly| roughly)*\s*\??$|"
                 r"\bwhat is (?:the )?(?P<t9>(?:cheapest|least expensive|most expensive|priciest|dearest)\b.*?)\??$|"
                 r"\bwhat is (?P<t11>cheap)(?: here| around here| to eat| to drink)?\s*\??$|"
                 r"^(?:and |so )?(?:the )?(?P<t10>(?:cheapest|least expensive|most expensive|priciest|dearest) (?:"
                 r"thing|item|one|stuff|[a-z]+ (?:item|thing|stuff|gear))\b.*?)\??$|"
                 r"\bhow much (?:is|are|for|does|do|would)\b(?: (?:the|a|an|your))? ?(?P<t>.*?)(?: cost)?\??$|"
                 r"\bwhat (?:does|do) (?:the |a |an )?(?P<t2>.+?) cost\b|\bprice of (?:the |a )?(?P<t3>.+)|"
                 r"\bwhat (?:does|will|would|is) (?:it|that|this|the (?:job|work) |the \w+ job )(?P<t4>pay)\b|"
                 r"^what is (?:the|my) (?P<t5>pay|reward|fee|cut|wage)\b|"
                 r"^what is in it for (?P<t6>me)\b|^(?:got|you got|have you got|do you have|do you sell|you sell|"
                 r"sell) (?:any |some )(?P<t8>[a-z ]+?)(?: behind the (?:bar|counter)| for sale| here| on you|"
                 r" in stock)?\s*\??$|\bwhat (?:is|does|do|would|will) (?:the |a |an |your )?"
                 r"(?P<t7>[a-z ]+?) go(?:es)? for\b"),
    ("where_is", r"^which way (?:is|to|for|do i go for|leads to) (?:the )?(?P<t3>[a-z' ]+?)\s*\??$|^how (?:long|far) "
                 r"(?:is|does it take|would it take|to walk|to get)(?: it)?(?: (?:the|a) (?:walk|hike|trip|journey|"
                 r"ride|way|trek|road))?(?: out| over| down| up)? to (?:the )?(?P<t4>[a-z' ]+?)(?: on foot| from here| "
                 r"walking)?\s*\??$"),
    ("who_is", r"^what (?:is|are) (?P<t>.+?) up to\s*\??$|^(?:is|was) (?P<t2>he|she|they) (?:always|usually|normally|"
               r"often|ever) (?:like (?:this|that)|so \w+|this \w+)\b"),
    ("leader", r"^(?:i would like to |i want to |can i |could i |let me )?(?:speak|talk) (?:to|with) (?:whoever|"
               r"someone who|the one who|somebody who) (?:represents|speaks for|runs|leads|heads) (?:the )?"
               r"(?P<t2>[a-z' ]+?)"
               r"(?: here| around here| in town)?\s*[.?!]*$|"
               r"^who (?:leads|heads|runs|bosses|speaks for|is (?:the )?(?:leader|head|boss|chief|voice) of|is in "
               r"charge of) (?:the |those |these )?(?P<t>(?!guards?\b|watch\b|reeves?\b|law\b|deputies\b)[a-z' ]+?)"
               r"\s*\??$"),
    ("sights", r"\b(?:anything|anywhere|what is|what) (?:\w+ )?worth (?:seeing|a visit|visiting|a look|"
               r"checking out)\b|\bwhat (?:are )?the sights\b"),
    ("menu", r"\bwhat (?:is|are) (?:everyone|everybody|people|they|folks?|the locals|the regulars) (?:drinking|"
             r"having|eating)\b|\bwhat (?:do|does) (?:everyone|everybody|people|folks?|the locals) (?:drink|eat)\b|"
             r"\b(?:you|u|ya) got any (?:food|grub|eats)\b|^what is on tap\b|\bwhat(?:cha| are you| you|"
             r" do you) (?:pouring|serving|"
             r"brewing|cooking)\b|\bwhat is on tap\b"),
    ("who_here", r"\bwho (?:usually |normally |mostly |generally |usualy )?(?:drinks|comes|hangs out|eats|drinks in|"
                 r"goes) (?:in )?here\b|\b(?:is it|it is) (?:always|usually|normally) (?:this|so) (?:busy|packed|"
                 r"crowded|full|quiet|empty|loud|dead|rowdy)\b|\bwho are (?:all )?these people\b|"
                 r"\b(?:are|is) (?:these|the|all these|the) (?:people|folks?|regulars|locals|lot)(?: (?:here|in here|"
                 r"around here))? (?:nice|friendly|safe|ok|okay|all right|alright|trustworthy|decent|dangerous)\b"),
    ("feel", r"\bwhy is it so (?:damn |bloody |freaking |very |really |darn )?(?P<t>hot|warm|cold|chilly|damp|wet|dark|"
             r"smoky|loud|noisy|quiet|stuffy|humid|dry)\b|"
             r"\bwhat is (?:that|this|the) (?P<t2>noise|sound|racket|heat)\b"),
    ("money", r"\b(?:do )?(?:you|u|ya|they) (?:take|accept) (?:company |any )?(?P<t>scrip|credits?|greys?|tokens?|"
              r"coins?|cash|money)\b|\bcan (?:i|we) pay (?:in|with) (?:company |)(?P<t2>scrip|credits?|greys?|tokens?|"
              r"coins?|cash|money)\b"),
    ("who_runs", r"^who (?:do|should|can) (?:i|we) (?:settle up|settle|pay|square up|square things) with\b"),
    ("any_work", r"^(?:so )?what is the (?:trouble|problem|matter)(?: here| around here| round here| then)?\s*\??$|"
                 r"\bwhere do i (?:even )?start(?: looking)?\b"),
    ("about", r"^(?!(?:what|who|where|how|why|when|which)\b)(?P<t>[a-z' ]+?)\s*(?:\.\.\.|,)\s*(?:is that|are they|"
              r"is it|who are they|what is that|can they be|"
              r"should i)\b"),
    ("where_is", r"^how far (?:away )?(?:is|was) (?P<t>it|that|there|this|that place|the place)(?: from here)?"
                 r"(?: on foot| by foot| walking| to walk| by boat| by punt)?\s*\??$|"
                 r"^where (?:is|was) "
                 r"(?P<t2>that|it)(?: exactly| again| then)?\s*\??$|^(?:can|could|will) (?:you|u) show me where\b"),
    ("how_much", r"\bwhat (?:would|will|does|did|is) (?:it|that) (?:cost|come to|set me back)(?: me)?(?: to buy"
                 r"(?: out| up)?)? (?P<t3>.+)$|"
                 r"^(?:can|could|would|will) (?:you|u|ya) (?:do|make it|go to|stretch to|manage|go up to) (?:\d+|"
                 r"ten|twenty|thirty|forty|fifty|sixty|a hundred|double|more|better)(?: greys| credits| coins)?(?: "
                 r"instead| then| for it| for the job)?\b|"
                 r"^(?:and |so |but )?(?:what about |how about )?(?:the )?(?P<t>pay|reward|wages?|fee|payment|cut|"
                 r"money)\s*\??$|\bwho (?:is|will be|would be) (?P<t2>pay)(?:ing)?\b"),
    ("where_is", r"\bwhere (?:can|could|do|might|would|should) (?:a person|a body|a fellow|one|i|we|you|someone|"
                 r"somebody) (?:get|be) (?P<t>patched up|stitched up|healed|treated|fixed up|seen to)\b"),
    ("where_is", r"\bwhere (?:is|are|can i find|do i find|would i find|might i find|does|do) "
                 r"(?!i (?:buy|get|purchase|pick up|find)\b)(?:the |a |an )?"
                 r"(?P<t>.+?)(?: live| stay| work| go| be)?\??$"),
    ("where_sold", r"\bwhere (?:can|could|do|might|would|should) (?:i|we|one|you) (?:buy|get|find|purchase|pick up|"
                   r"get hold of) (?:a |an |some |the )?(?P<t>.+?)\??$"
                   r"|\bwho (?:sells|has|deals in) (?:a |an |some |the )?(?P<t2>.+?)\??$"
                   r"|^(?:is|are) there (?:a |an |any |some )?(?P<t3>.+?) (?:i|we) (?:could|can|might) "
                   r"(?:hire|buy|rent|get|use)\b"),
    ("where_is", r"^(?:can you |could you |would you )?point me (?:to|toward|towards|at|the way to) (?:the )?"
                 r"(?P<t6>[a-z' ]+?)(?: , (?:would|will|could|can) you| please)?\s*\??$"),
    ("where_is", r"^(?:(?:i )?(?:need|want|have|got) to )?(?:find|locate|track down|look for|search for|seek|hunt for)"
                 r" (?:the |a |an )?(?P<t>.+)$"),
    ("menu", r"\bwhat is (?:there )?(?:to eat|on the menu|for (?:breakfast|lunch|dinner|supper))\b|\bmenu\b|"
             r"^what is (?:good|decent|fresh|hot)(?: (?:tonight|today|here|in here))?\s*\??$|"
             r"\b(?:anything|something|owt) (?:hot |good |warm |decent |cheap )?(?:to eat|for (?:breakfast|lunch|"
             r"dinner|supper))\b|\bwhat (?:food|grub) (?:is there|have you got|do you (?:have|serve|do))\b|\bwhat "
             r"(?:can i|do you|could i) (?:get|have|order) to eat\b|\bdo you (?:serve|do|have) (?:food|meals|grub)\b"),
    ("what_here", r"\bwhat (?:food|drink|drinks|grub|stuff|goods|wares|supplies) (?:do|does|have|can) (?:you|they|"
                  r"u) (?:have|sell|serve|got|offer)\b|\bwhat (?:you have|you have got|you got|have you got) (?:for "
                  r"sale|to sell|on offer)\b|"
                  r"\bwhat(?:cha| are you| do you| have you got| you) (?:selling|sell|got|offering)\b|\bshow me "
                  r"(?:your|the) (?:wares|goods|stock|stuff)\b|\bwhat(?: have| do)? you got\b|\bwhat is good "
                  r"(?:to eat|to drink|here)\b|\bwhat (?:have|has) (?:you|they) got\b"),
    ("where_is", r"^is (?P<t2>[a-z]+(?: [a-z]+)?) (?:around|about|here|in|in today|in tonight)\s*\??$"),
    ("where_is", r"^(?:is there|are there|any) (?:a |an |any |some )?(?P<t>[a-z]+(?: [a-z]+)??)(?: or (?:a |an |some "
                 r")?[a-z]+)? (?:anywhere|around|round|near|nearby|close|about|in town|in this town|hereabouts)\b"),
    ("where_is", r"^(?:i )?need (?:a |an |the |some )?(?P<t>[a-z]+(?: (?!asap|now|quick|fast|urgently|badly)[a-z]+)?) "
                 r"(?:asap |now |quick |fast |urgently "
                 r"|badly )?where\s*\??$"),
    ("where_go", r"\b(?:which|what) places?\b.*\b(?:visit|seeing|see|go|worth)\b"),
    ("where_is", r"^(?:is|are) (?:the |it )?(?P<t5>[a-z' ]+?) (?:far|close|near|nearby|a long way)(?: (?:from here|"
                 r"away|off|to walk|on foot))?\s*\??$"),
    ("where_is", r"\b(?:the )?way to (?:the )?(?P<t>.+?)\??$|\bhow (?:(?:do|can|would|should|might) )?(?:i|we|one) "
                 r"(?:get|go)(?: back)?(?: up| down| over| out| across)? to (?:the )?(?P<t2>.+?)\??$|\bhow far "
                 r"(?:is it )?to (?:the )?(?P<t3>.+?)\??$|\bhow (?:many|much) (?:hours|minutes|days|time|walking|"
                 r"travel)(?: is it)?(?: on foot| walking| by foot| by boat)? to (?:the )?(?P<t4>.+?)\??$|"
                 r"\bhow (?:(?:do|can|would|should) )?(?:i|we) (?:get|go) (?P<t6>there)\b"),
    ("who_is", r"\bwho (?:is|are) (?:the |that |this |those |these |a )?(?P<t>[a-z' ]+?)\??$|\bwho is (?P<t2>that|he|"
               r"she|they|it)\b"),
    ("history", r"\bwhat (?:happened|went on|has happened) (?:to|in|here|around here|round here)\b(?! (?:him|her|them|"
                r"you|me|your|his|their|my)\b)|\bhistory of (?:this|the|that) (?:place|town|village|city|reach|"
                r"colony|tavern|bar|inn|settlement)\b|\bhistorically\b|\bhow (?:did|was|come) (?:this|the) (?:place|"
                r"town|village|city|colony|settlement) (?:start|begin|come to be|get founded|founded|built)\b|\bhow "
                r"old is (?:this|the) (?:place|town|village|city)\b"),
    ("time", r"\bwhat (?P<t>time|hour|day|year|month|season|date|age|era)(?: of the (?:week|month|year))? is it\b|"
             r"\bwhat (?P<t2>year|month|season|age|"
             r"era) (?:are we in|is this)\b|\bwhat is the (?:time|date|day)\b|\bhow late is it\b|"
             r"\bwhat day is (?:it|today)\b|\b(?:know|tell me) what (?P<t3>time|hour|day) it is\b"),
    ("about", r"^(?:what|who) (?:is|are|was|were) (?:the deal with |up with |going on with |the story with |"
              r"wrong with |the matter with |happening with |the problem with |the trouble with |with )?(?P<t>.+)|"
              r"^(?:what|who) (?:do|does) (?:the |a |an )?(?P<t2>.+?) (?:do|mean)\??$|"
              r"^(?:how|why) (?:is|are|does|do|did|was|were) (?P<t3>.+)"),
    ("ask", r"^(?:who|what|where|when|why|how|which|is|are|do|does|did|can|could|will|would|should|have|has|any)\b"
            r"(?P<t>.*)\?$|^(?:who|what|where|when|why|how|which)\b(?P<t2>.*)$|^(?:is|are|was|were|has|have|does|did|"
            r"can|could|will|would|should|do) (?:you|he|she|they|it|the|this|that|there|anyone|anybody|someone|people|"
            r"folk|any|a|an|everyone|everybody|all|most)\b(?P<t3>.*)$|^(?P<t4>.+)\?$|"
            r"^(?:anyone|anybody|someone|somebody)(?: here| around here| in here)? (?:know|knows|seen|heard) "
            r"(?P<t5>.+)$"),
]]

EXAMINE = re.compile(
    r"^look (?P<t2>(?:the|that|this) [a-z]+(?: [a-z]+)?) over\b|"
    r"^(?:look (?:closely |carefully |more closely |again |hard |up |down |over |across |back )?(?:at|over|upon|"
    r"into|in)|examine|inspect|"
    r"see|have a look at|look closer at|take a peek at|peek at|squint at|study|"
    r"check out|x|l at|l|regard|eye|eyeball|view|peer (?:at|into|inside)|stare at|gaze at|glance (?:over |across )?at|"
    r"peek (?:in|into|inside|under|behind)|look inside|have a peek (?:at|in|into|inside)|take a peek (?:in|into|"
    r"inside)|"
    r"take a (?:closer |good |long |quick )?look at|have a (?:closer |good |long |quick )?look at|read|scrutini[sz]e|"
    r"look the \w+ over|size up|get a look at|describe)\s+(?P<t>.+)$")
NOT_THINGS = re.compile(r"^(?:around|about|round|for\b|the (?:room|place|area) for\b|every\b|each\b|everything\b|"
                        r"everywhere\b|all (?:the )?(?:corners|tables|nooks)\b)")

DEEDS: list[tuple[str, re.Pattern[str]]] = [(verb, re.compile(r"^(?:" + body + r")\b")) for verb, body in [
    ("sing", r"sing|hum|whistle|croon|chant|recite|play (?:a|some|the) (?:tune|song|music)|strike up a song|"
             r"start singing|burst into song"),
    ("dance", r"dance|jig|twirl|do a (?:little )?dance"),
    ("pray", r"pray|say a prayer|offer a prayer|meditate|give thanks|bless|light a candle"),
    ("sit", r"sit|take a seat|have a seat|find (?:a|an|myself a) (?:[a-z]+ )?(?:seat|table|chair|stool|corner|bench|"
            r"spot|perch)|pull up a (?:chair|stool)|"
            r"sit down|settle (?:in|down)|lean (?:on|against|back|in)|lie down|kneel|squat|crouch"),
    ("stand", r"stand(?: up)?|get up|rise"),
    ("wait", r"wait|z|hang about|hang around|bide|loiter|linger|idle|stay(?: put| here| a while)?|do nothing|"
             r"pass the time|kill time|take a moment|pause|stand still|keep still|stay still|keep (?:my|our) distance|"
             r"hang back|stay back|keep back|lie low for a bit"),
    ("watch", r"watch|keep (?:an|one|half an|both) eyes? on|keep watch|people[- ]watch|keep lookout|keep a lookout"),
    ("listen", r"listen|eavesdrop|hear(?! (?:there|that|tell|you|about|of|say|rumou?rs?)\b)|overhear|lend an ear|"
               r"prick up|what is (?:that|this|the) (?:noise|sound|"
               r"racket|din|banging|clatter|singing|shouting)|what was that (?:noise|sound)"),
    ("smell", r"smell|sniff|breathe in|take a (?:deep )?breath|breathe|what is (?:that|this|the) (?:smell|stink|"
              r"stench|reek|odou?r|whiff)|what (?:smells|stinks|reeks)|something (?:smells|stinks|reeks)"),
    ("taste", r"taste|lick|sip"),
    ("touch", r"touch|feel|rub|stroke|pat|pet|tap|poke|prod|squeeze|scratch|tickle|knock on|run (?:a|my|one) "
              r"(?:finger|fingertip|fingers|hand|hands|thumb|palm) (?:along|over|across|down|around)|(?:put|lay|"
              r"press|place|rest|hold) (?:a|my|one|both) (?:palm|palms|hand|hands|fingers|fingertips|ear|cheek)"
              r"(?: flat)? (?:on|against|to|over)"),
    ("warm", r"warm (?:my|your|our) (?:hands|feet|self|bones)|warm up|dry (?:off|my|myself|out)|"
             r"(?:hold|put|stretch) (?:my|both) (?:[a-z]+ )?(?:hands|palms|fingers|feet)(?: out)? (?:to|toward|towards|"
             r"over) the (?:[a-z]+ )?(?:fire|hearth|flames?|stove|brazier|coals|warmth|heat)|"
             r"stand by the (?:fire|hearth|stove|brazier)|sit by the (?:fire|hearth|stove|brazier)|"
             r"go (?:to|over to|near) the (?:fire|hearth|stove|brazier)|(?:hold|holds|put|puts|stretch|stretches) "
             r"(?:my|your|our) (?:hands|palms|fingers|feet)(?: out)? (?:to|toward|towards|at|near|over) the (?:warmth|"
             r"fire|heat|hearth|flames?|stove|brazier|coals)"),
    ("stretch", r"stretch(?! (?:my|your|our) (?:hands|palms|fingers|feet) (?:out )?(?:to|toward|towards))|"
                r"crack my (?:back|neck|knuckles)|roll my shoulders|limber up"),
    ("nod", r"give (?:[a-z']+ ){1,3}(?:a|an) (?:[a-z]+ )?(?:nod|wink|smile|grin|shrug|salute|bow|look|glance|stare|"
            r"wave|once-over)|"
            r"nod|bow|curtsy|tip my hat|salute|wink|smile|grin|frown|shrug|sigh|yawn|cough|blush|grimace|"
            r"raise (?:my|an) eyebrow|stretch|crack my knuckles|clap|applaud|cheer|toast|raise (?:my|a) (?:glass|"
            r"cup|mug|tankard)"),
    ("wave", r"wave|beckon|point at|point to|gesture"),
    ("insult", r"insult|mock|jeer(?: at)?|taunt|sneer at|make fun of|laugh at|spit (?:at|on)|call (?:[a-z]+ ){1,3}"
               r"(?:a|an) (?:[a-z]+ )?(?:idiot|fool|liar|coward|cheat|thief|drunk|moron|rat|snake|name)|(?:you are|"
               r"you|he is|she is|they are) (?:such )?(?:an? )?(?:idiot|fool|liar|coward|cheat|moron|ugly|useless|"
               r"pathetic|stupid|joke|disgrace)|(?:your|his|her|their) [a-z]+ (?:is|are|looks?|smells?) (?:ugly|"
               r"awful|disgusting|terrible|filthy|rubbish|crap|hideous|foul|vile)"),
    ("laugh", r"laugh|chuckle|giggle|snicker|cry|weep|sob|scream|shout|yell|howl|curse|swear"),
    ("think", r"think|ponder|consider|reflect|wonder|remember|recall|daydream|muse|plan|figure out|"
              r"(?:have|got|get) a (?:bad|good|funny|strange|weird|sinking) feeling"),
    ("sleep", r"sleep|nap|doze(?: off)?|nod off|take a nap|get some sleep|go to bed|rest my eyes|close my eyes|"
              r"get a room|rent a (?:room|bed)"),
    ("jump", r"jump|hop|leap|skip"),
    ("kiss", r"kiss|hug|embrace|cuddle|hold hands with|shake hands with|shake (?:\w+ )?hand|high five|fist bump"),
    ("wake", r"wake|shake awake|rouse"),
    ("throw", r"throw|toss|chuck|hurl|flick"),
    ("drop", r"drop|put down|set down|discard|leave (?:the|my) \w+"),
    ("wear", r"wear|put on|take off|try on|remove (?:my|the) (?:coat|cloak|hat|boots|gloves)|wrap (?:my|the)|"
             r"button up"),
    ("clean", r"wash|clean|wipe|scrub|bathe|polish|tidy|sweep"),
    ("tie", r"tie|untie|knot|lash|bind"),
    ("cut", r"cut|carve|whittle|slice|chop"),
    ("swim", r"swim|wade|paddle|dive|dip (?:my|a) (?:toe|hand|foot)"),
    ("play", r"play (?:cards|dice|stones|a game|a round)|gamble|join (?:the |a |in the |in )?(?:\w+ )?game|bet|wager|"
             r"roll dice|arm[- ]wrestle|sit in on the game"),
    ("write", r"write|scribble|note down|make a note|sketch|draw a"),
    ("do", r"do (?:some |a few )?(?:push-?ups|sit-?ups|stretches|exercises|squats|a handstand|a cartwheel|a trick)|"
           r"exercise|juggle|pace|spit|count|stare|gape|gawk|glare|roll up|fold|unfold|stamp|tap|drum|fidget|sulk|"
           r"lounge|slouch|sprawl|shiver|tremble|blink|hiccup|snore|sneeze|spin|turn around|look up(?! at)|"
           r"look down(?! at)|look out(?! at)|turn|shuffle|tidy myself|straighten|comb|brush|fix my hair|adjust|"
           r"check the time|crack|pop|(?:start )?(?:wiping|wipe|sweeping|sweep|mopping|mop|scrubbing|scrub|washing|"
           r"wash|clearing|clear) (?:down |up )?(?:the |some )?(?:tables?|floor|bar|counter|mugs|glasses|dishes|cups|"
           r"tankards)|"
           r"hum along|tap my foot|keep my head down|bite my|chew my|play with|fiddle with|toy with|flip a coin|"
           r"spin a coin|roll a die|make a face|pull a face|hide my face|cover my face|rub my eyes|warm myself|"
           r"cross my arms|fold my arms|put my feet up|lean back|kick back|relax|calm down|collect myself|"
           r"compose myself|steady myself|catch my breath|clear my throat|pat myself|stamp my feet|shake off"),
]]

EAT = re.compile(r"^(?:eat|have (?:a |some )?(?:bite|meal|food|something to eat|breakfast|lunch|dinner|supper|"
                 r"snack)|grab (?:a bite|some food|something to eat)|order (?:some )?(?:food|a meal|something to "
                 r"eat|breakfast|lunch|dinner|supper)|get (?:some )?(?:food|something to eat)|find (?:some )?food|"
                 r"chew|munch|feast|dine|snack|break my fast|fill my belly|have something (?:warm |hot |hearty |"
                 r"filling )?to eat|(?:give|get|bring|fetch) me (?:something|"
                 r"anything|some food|food|a bite)(?: to eat)?|(?:i will have |give me |bring me )?whatever is (?:hot|"
                 r"cooking|going|on the (?:fire|stove|hob|spit|boil)|fresh|warm|good)|(?:have|take|give me|"
                 r"(?:i )?would like|bring me) (?:what|whatever) (?:that|the|this|he|she|they|you|[a-z]+) ?"
                 r"[a-z']*(?: is| are)? (?:eating|having))\b(?P<t>.*)$")
DRINK = re.compile(r"^(?:(?:give me|gimme|get me|pour me|i will have|i will take|bring me) (?:whatever is|what is|"
                   r"whatever|something|one of whatever is|a pint of whatever is) on tap|whatever is on tap|drink|"
                   r"(?:a |another )?round (?:for|on) (?:the (?:whole )?(?:house|bar|room|place|tavern)|everyone|"
                   r"everybody|all|me|us)(?: on me| on us)?|"
                   r"(?:give me|gimme|get me|pour me|bring me|i will have|i will take) (?:a |an |one |another )?"
                   r"(?:shot|pint|glass|mug|cup|dram|tankard|jug|round|double) of|pour me (?:a|one|"
                   r"whatever|something|some|the)|have (?:a |some )?(?:drink|"
                   r"ale|beer|cup|mug|pint|dram|tea|water|wine)|"
                   r"grab (?:a |some )?(?:drink|ale|beer|pint)|get (?:a |some )?(?:drink|ale|beer|pint|water)|"
                   r"order (?:a |some )?(?:drink|ale|beer|pint|round|cup|mug|tea|wine)|sip|quench my thirst|"
                   r"wet my (?:throat|whistle)|down (?:a|my) (?:drink|pint)|(?:i will have|i will take|give me|i would "
                   r"like|have|take|pour me|bring me|get me) (?:what|whatever) (?:that|the|this|he|she|they|you|"
                   r"[a-z]+) ?[a-z']*(?: is| are)? drinking|something (?:wet|cold|strong|to drink) to wash it "
                   r"down|take a (?:long |deep |slow |big |quick )?(?:pull|swig|sip|gulp|draught|drink|mouthful) "
                   r"(?:of|from)|drain (?:my|the) (?:cup|mug|glass|tankard|pint|drink))\b(?P<t>.*)$")
LEAVE = re.compile(r"^(?:leave|exit|depart|go (?:out|outside)|get out|head out|step out|step outside|walk out|"
                   r"go outdoors|head outside|get (?:out )?of here|get outta here|get me out|out|outside|exit the "
                   r"\w+|move on|off i go|time to go|take my leave|be off|let us go|let us leave|i am leaving|"
                   r"i am off|i should go|i must go|go away|walk away|wander off|leave the \w+|get going|get moving|"
                   r"hit the road|set off|go|keep going|go on ahead|continue on|press on|carry on|i am out|i am gone|"
                   r"am out|am gone|am leaving|am off|(?:i will |i'll |ill )?see myself out|show myself out|"
                   r"(?:head|make|go|walk|step|move|start) (?:for|to|towards?|over to) the (?:door|doorway|exit|"
                   r"front door|way out)|"
                   r"(?:(?:go |head |walk |climb )?(?:up|down) the (?:stairs|steps|ladder) )?(?:and )?(?:go |head |"
                   r"step )?out (?:onto|into|to) the (?:street|road|lane|row|night|rain|cold|dark|yard|walkway))"
                   r"(?:\s+(?:(?:of |through |out )?the (?:door|doorway|front door|back door|tavern|inn|bar|room|"
                   r"place|building|hall)|now|here|this place|the place|the room|quietly|slowly|at once|then|"
                   r"already))*\s*[?!.,]*$")
FLEE = re.compile(r"^(?:run(?: away| off| for it| for the door| like hell)?|flee|bolt|scarper|skedaddle|"
                  r"make a run for it|make a break for it|escape|get away|run out|dash out|hurry out|rush out|"
                  r"get out (?:fast|quick|now)|leg it|scram|make myself scarce|retreat|back off|back away|"
                  r"get (?:me )?(?:the hell |the heck )?out(?:ta| of) (?:here|there)(?: now| fast| quick)|"
                  r"get me (?:the hell |the heck )?out(?:ta| of) (?:here|there)|book it(?: out(?:ta| of) (?:here|"
                  r"there))?|high[- ]?tail it(?: out(?:ta| of) (?:here|there))?|make tracks|run for (?:my|it|your) "
                  r"life|take off running|hightail it|vamoose|bail)"
                  r"(?:\s+(?:now|from here|from this place|quickly|fast|as (?:fast|quick|quickly) as (?:i|we) can))*"
                  r"(?:\s+(?:before|while|until|so|because|"
                  r"or) [a-z' ]+)?\s*[?!.,]*$")
BACK = re.compile(r"^(?:go back|head back|turn back|back|return|retrace my steps|go back the way i came)\s*[?!.]*$")
GO = re.compile(r"^(?:(?:can|could|would|will) (?:somebody|someone|anyone|anybody|you) (?:please )?)?"
                r"(?!go through |rifle through |look through )(?:go (?:find|look for|visit|see|check out)|go|head|walk|"
                r"visit|pay a visit to|drop in (?:at|on)|stop by|swing by|"
                r"run|travel|keep (?:walking|going|heading)|am going|are going|going|am heading|heading|"
                r"make (?:my way|for)|set (?:out|off)|hurry|wander|stroll|saunter|amble|stride|go up|go down|approach|"
                r"sidle|"
                r"march|sail|row|ride|follow the (?:\w+ )?(?:path|road|way)|take the (?:\w+ )?(?P<ride>path|road|way|"
                r"stairs|ladder|door|lift|elevator|ferry|boat|punt|train|tram|cart|bridge|causeway|steps)|"
                r"take (?:me|us)|lead (?:me|us)|bring (?:me|us)|get (?:me|us)|hit(?= the )|direct me|show me to|"
                r"get (?:over |down |up |across "
                r")?to|back out|let us hit|lets hit|"
                r"back(?= (?:down |up |over )?to (?!(?:work|it|that|this|business|normal|sleep|bed|the (?:question|"
                r"point|topic|job|story|subject|matter|plan))\b))|"  # "back to the eel": to a place, not to work
                r"head (?:out|off)|point me|show me the way|how do i get|how (?:can|do) i get|which way(?: is it)?)"
                r"(?:\s+(?:over|up|down|back|out|off|along|across|towards?|to|into|in|onto|"
                r"for|through|by|near|the way to))*\s+(?P<t>.+)$")
INVENTORY = re.compile(r"^(?:i|inv|inventory|what (?:do )?i (?:have|carry|own|hold|got)|what am i (?:carrying|holding)|"
                       r"what have i got|check (?:my )?(?:pockets?|bag|pack|satchel|purse|inventory|gear|stuff|"
                       r"belongings|things)|look in (?:my )?(?:pockets?|bag|pack|satchel|purse)|take (?:stock|"
                       r"inventory)|empty my pockets|how much (?:money|coin|coins|cash|credits?|greys?|scrip) "
                       r"(?:do i have|have i got|am i carrying|is (?:left|in my purse))|count my (?:money|coin|"
                       r"coins)|my (?:inventory|stuff|things|gear|items)|"
                       r"(?:can you |could you |please )?(?:list|show|tell|describe|read)(?: me)? (?:(?:my|all my|"
                       r"everything in my)(?: current| whole| full| entire)? (?:inventory|items|stuff|belongings|gear|"
                       r"things|pack|bag|pockets)|what (?:is in my (?:pack|bag|pockets?|inventory)|i (?:have|carry|"
                       r"am carrying|own)))\b.*|"
                       r"do i (?:even |still |actually |really )?(?:have|carry|own|got) (?:a |an |any |some )?"
                       r"[a-z' ]{1,30}?(?: on me| with me| in my (?:pack|bag|pockets?))?|"
                       r"am i (?:carrying|holding|armed)(?: [a-z' ]{1,30})?|what (?:is|have i got) in my (?:pack|bag|"
                       r"pockets?|satchel|purse|inventory))(?: right now)?(?: on me| with me| on my person)?"
                       r"(?: left| first| now| again| quickly| anymore| at all)?"
                       r"\s*[?!.]*$")


THERE = ("there", "it", "that way", "")  # a go topic that points back at a place an earlier sentence named


# Leave asked for a deed: "can i sit down somewhere", "may i look around" (not "can i get/have/buy": an order).
_MAY_I = re.compile(r"^(?:so |um+ |uh+ )?(?:can|could|may|might) i (?:please |just |maybe |at least )?"
                    r"(?P<t>(?!(?:get|have|buy|grab|order|ask|talk|speak|help|see you|join)\b)\w+.*?)\s*\??$")
# What the player has heard said, told to get an answer: "i hear there is work going", "i heard you are hiring".
_HEARSAY = re.compile(r"^(?:so |and )?i (?:hear|heard|have heard|am told|was told|hear tell)(?: that)? "
                      r"(?P<t>(?:there (?:is|are)|you|they|he|she|someone|somebody|people|folks?|the|some|a|an) "
                      r"\w+ \w+.*)$")


@lru_cache(maxsize=8192)
def read(text: str) -> Reading | None:
    """What ``text`` (lower case, markup stripped) asks for, or None when it reads as none of the kinds above. A line
    of several sentences ("thanks doc. who brought me in?", "fine. i am going back to hesper") is read by its last
    sentence the parser reads firmly, else as a whole; a question asked through someone ("ask the old man where the
    market is") as the question itself."""
    said = plain(text)
    if not said:
        return None
    asked = asked_through(said) or wondered(said)
    if asked is not None:  # as the line reads plainly, when that is a question already ("ask odile who runs this")
        plainly = _read_clause(said, said)
        return plainly if plainly is not None and plainly.kind == "question" and plainly.verb != "ask" else asked
    allowed = _MAY_I.match(said)
    if allowed is not None:  # "can i sit down somewhere": the deed, asked leave for
        rest = allowed.group("t")
        if re.match(r"(?:sleep|stay|spend the night|kip|bed down|rent a room|take a room)\b", rest):
            return Reading("question", "lodging", "")  # "can i sleep here tonight": a bed, asked for
        found = _read_clause(rest, rest)
        if found is not None and found.kind in ("deed", "go", "leave", "examine", "search"):
            return found
    hearsay = _HEARSAY.match(said)
    if hearsay is not None:  # "i hear there is work going for someone quiet": asked about, not listened for
        rest = hearsay.group("t")
        found = _read_clause(rest, rest)
        return found if found is not None and found.kind == "question" else Reading("question", "about",
                                                                                     topic_of(rest))
    parts = [part for part in _SENTENCE.split(said) if re.search(r"[a-z]", part)]
    if len(parts) > 1 and _TRUE.match(parts[-1].strip()):  # "heard the old drills started moving again. true?"
        heard = next((found for p in reversed(parts[:-1]) if (found := _HEARD.match(p.strip()))), None)
        if heard is not None:
            return Reading("question", "about", topic_of(heard.group("t")))
    named = _asked_after_naming(parts)
    if named is not None:
        return named
    if len(parts) > 1:
        for i in range(len(parts) - 1, -1, -1):
            found = _read_clause(parts[i].strip(), parts[i].strip())
            if found is not None and found.kind == "go" and found.topic in THERE:  # "where is the clinic? take me
                earlier = (_read_clause(c.strip(), c.strip()) for p in reversed(parts[:i])  # there": the clinic
                           for c in reversed(p.split(" , ")) if c.strip())
                named = next((e.topic for e in earlier if e is not None and e.topic and e.topic not in THERE), None)
                found = Reading("go", "go", named) if named else found
            if found is not None and found.kind == "question" and found.topic in THERE[:1] and i > 0:  # "is the market
                earlier = (_read_clause(p.strip(), p.strip()) for p in reversed(parts[:i]))  # far? how do i get there"
                named = next((e.topic for e in earlier if e is not None and e.topic and e.topic not in THERE), None)
                found = Reading("question", "where_is", named) if named else found
            if found is not None and found.kind in ("deed", "examine") and parts[i].startswith("i ") and i > 0:
                # "is there a healer nearby? i cut my hand", "point me to the yard? i need to see the tanks": asked
                asked = (_read_clause(p.strip(), p.strip()) for p in reversed(parts[:i]))
                found = next((e for e in asked if e is not None and e.kind == "question"), found)
            if found is not None and found.kind == "question" and i > 0 and (found.topic in (
                    "", *THERE, "this", "that") or _ABOUT_IT.match(parts[i].strip()) or re.match(
                    r"(?:the )?(?:anything|something|owt)\b", found.topic)):  # "check out the cloaks. anything
                # worth nicking?": what the look finds
                looked = _read_clause(parts[i - 1].strip(), parts[i - 1].strip())  # "check out that barrel. whats
                found = looked if looked is not None and (looked.kind == "examine" or (  # that about": the look;
                    looked.kind == "question" and looked.verb not in ("ask", "about") and not looked.weak and
                    found.verb in ("ask", "about"))) else found  # "what's that smell? is it always like this"
            if found is not None and found.kind == "question" and found.verb == "ask" and i > 0:  # "so who runs
                firmer = (_read_clause(p.strip(), p.strip()) for p in reversed(parts[:i]))  # things here? like, who
                found = next((e for e in firmer if e is not None and e.kind == "question" and  # should i not annoy?"
                              e.verb not in ("ask", "about") and not e.weak), found)  # the question a rule answers
            if found is not None and found.verb == "any_work" and i > 0 and any(
                    (r := _read_clause(p.strip(), p.strip())) is not None and r.verb == "yes" for p in parts[:i]):
                return Reading("reply", "yes")  # "ok im in. where do i even start": the job taken, its first step
            if found is not None and not found.weak:
                return found
    found = _read_clause(_LEAD.sub("", said, count=1).strip() or said, said)
    # "fair enough , count me in , where do i start": the job taken, then asked (read before names said first go)
    whole = courteous(_spelled(text)) if found is not None and found.kind == "question" else ""
    if " , " in whole:
        answered = (_reply(c.strip(), c.strip()) for c in whole.split(" , ")
                    if c.strip() not in ("ok", "okay", "right", "alright", "well", "so", "fine", "no", "nah",
                                         "why not", "no way", "no kidding", "really", "seriously"))  # surprise
        found = next((r for r in answered if r is not None and r.verb in ("yes", "no")), found)
    if " , " in whole and found.kind == "question":  # "put my palm on the wall , is it warm?": the deed; the
        # question asks what it finds
        head, _, tail = whole.partition(" , ")
        first = _read_clause(head, head)
        if first is not None and first.kind in ("deed", "examine") and first.topic and re.search(
                r"\b(?:it|they|them|this|that|these|those|anything|something)\b", tail):
            found = first
    main = _SUBORDINATE.match(said) if found is None or found.kind == "go" else None
    if main is not None:  # "before i go anywhere , ask the innkeeper which places are worth a visit": the ask
        found = _read_clause(said[main.end():], said[main.end():]) or found
    pointed = _POINTED.match(said) if found is None or found.verb == "ask" else None
    if pointed is not None:  # "the girl selling songs, whats her deal": who the description picks out
        who = re.sub(r"^(?:excuse me|pardon me|sorry|hey|oi|hello|hi|um+|uh+)\s*,?\s*", "", pointed.group("who"))
        return Reading("question", "who_is", topic_of(_DESCRIBED.sub("", who)))
    pointed = _POINTED_THING.match(said) if found is None else None
    if pointed is not None:  # "the notched stick above the bar, what is it for": a look at what is described
        return Reading("examine", "examine", topic_of(_DESCRIBED.sub("", pointed.group("what"))))
    vocative = _CALLED.match(said) if found is None or found.weak else None
    if vocative is not None and found is not None and vocative.group("who") in _FILLERS:
        vocative = None  # "sure why not , sing it": a reply, not a name and a question
    if vocative is not None:  # "ottilie whats your story", "tobin how u doin": said to someone, by name
        called = _read_clause(vocative.group("rest"), said)
        found = called if called is not None and called.kind in ("question", "reply") else found
    return found


# A question asked through someone: "ask the old man where the market is", "go ask her if she has work".
_ASK_THROUGH = re.compile(r"^(?:(?:i |let me |lets |let us )?(?:go |will |would )?(?:and )?)?(?:ask|asks|asking) "
                          r"(?:(?!about |where |what |who |how |why |when |which |whether |if )[a-z']+ ){0,5}?"
                          r"(?P<q>(?:about|where|what|who|how|why|when|which|whether|if) .+?)\s*\??$")
# The indirect question made direct: (pattern, the direct question).
_INDIRECT = [(re.compile(p), d) for p, d in [
    (r"^where (?:i|we|one|a person) (?:can|could|might) (?:find|get|pick up) (?:some |any |a )?(?:work|jobs?|"
     r"employment|paying work)\b.*$", "any work?"),
    (r"^where (?P<s>(?:the |a |an |this |that )?[a-z' ]+?) (?P<v>is|are|was|were)$", r"where \g<v> \g<s>"),
    (r"^(?P<w>where|what|who|how|when) (?P<s>i|we) (?P<m>should|shouldnt|should not|can|could|cant|can not|must|"
     r"might|ought to|ought not to) (?P<rest>.+)$", r"\g<w> \g<m> \g<s> \g<rest>"),
    (r"^what there (?P<v>is|are) (?P<rest>.*)$", r"what \g<v> there \g<rest>"),
    (r"^(?:if|whether) there (?P<v>is|are|was|were) (?P<rest>.+)$", r"\g<v> there \g<rest>?"),
    (r"^(?:if|whether) (?:he|she|they) (?:has|have|got|has got|have got) (?P<rest>.+)$", r"do you have \g<rest>?"),
    (r"^(?:if|whether) (?:he|she|they) (?P<v>know|sell|need|want|hire|serve)s? (?P<rest>.+)$",
     r"do you \g<v> \g<rest>?"),
    (r"^(?:if|whether) (?:he|she|they) (?:is|are) (?P<rest>.+)$", r"are you \g<rest>?"),
    (r"^(?:if|whether) (?:he|she|they) (?P<m>can|could|will|would) (?P<rest>.+)$", r"\g<m> you \g<rest>?"),
    (r"^(?:if|whether) (?P<rest>.+)$", r"\g<rest>?"),
    (r"^what (?:he|she|they) (?:knows?|thinks?|has heard|have heard|heard|can tell me) (?P<rest>(?:about|of) .+)$",
     r"what do you know \g<rest>"),
    (r"^how (?:to|i can|i could|i would|i might) (?P<rest>.+)$", r"how do i \g<rest>"),
    (r"^about (?:any |some |the )?(?:work|a job|jobs|employment|the job)$", "any work?"),
    (r"^what (?:the |that )?(?P<n>deal|story|matter|problem|trouble|score) is (?P<rest>with .+)$",
     r"what is the \g<n> \g<rest>"),
    (r"^(?:if|whether) (?:any ?body|any ?one|someone|somebody|people|folks?) (?:knows?|has heard of|heard of|has "
     r"seen|seen) (?:an? |the )?(?P<rest>.+)$", r"where is \g<rest>"),
    (r"^about (?P<rest>.+)$", r"tell me about \g<rest>"),
]]


def asked_of(said: str) -> str:
    """The words naming whom a question asked through someone is asked of ('ask the old man where ...' -> 'the old
    man'), '' for none."""
    return _asked_of(_ASK_THROUGH.match(plain(said)))


def _asked_of(found: re.Match[str] | None) -> str:
    """The words between the verb and the question of an ``_ASK_THROUGH`` match, '' for none."""
    return found.group(0)[:found.start("q")].split(" ", 1)[-1].strip() if found else ""


# A question wondered aloud: "id love to know what the deal is with that bell", "i wonder who owns this place".
_WONDER = re.compile(r"^(?:i (?:would|will) (?:love|like|want) to know|i (?:want|wanna|need) to know|(?:i )?wonder|i "
                     r"was wondering|i am wondering|(?:do|does) (?:you|anyone|anybody) (?:know|happen to know)|"
                     r"any(?:one|body) (?:know|knows)|any idea|(?:i am )?curious|tell me|i am dying to know) (?:,\s*)?"
                     r"(?P<q>(?:what|who|where|why|how|when|which|whether|if) .+?)\s*\??$")


def wondered(said: str) -> Reading | None:
    """The question of a line that wonders it aloud ('id love to know what the deal is with that bell' -> about
    'bell'), as the parser reads it asked directly; None for any other line."""
    found = _WONDER.match(said)
    reading = _asked_directly(found.group("q")) if found else None
    return reading if reading is not None and reading.verb != "ask" else None


def _asked_directly(question: str) -> Reading | None:
    """An indirect question ('where the market is', 'if she has work') read as asked directly ('where is the
    market', 'do you have work?'); None when that is no question."""
    direct = next((pattern.sub(written, question) for pattern, written in _INDIRECT if pattern.match(question)),
                  question)
    reading = _read_clause(direct, direct)
    return reading if reading is not None and reading.kind == "question" else None


def asked_through(said: str) -> Reading | None:
    """The question of a line that asks it through someone ('ask the old man where the market is' -> where_is
    'market', 'ask her if she has work' -> any_work), as the parser reads it asked directly; None for any other line
    (whom it is asked of is the router's to find)."""
    found = _ASK_THROUGH.match(said)
    reading = _asked_directly(found.group("q")) if found else None
    wondered_ = _WHETHER.match(found.group("q")) if found is not None and (reading is None or reading.verb == "ask") \
        else None
    if wondered_ is not None:  # "ask whether there is any truth to the talk that the bell rings": about the bell
        asked = wondered_.group("t")
        direct = _asked_directly(asked) if asked.split()[0] in _WH else None  # "if she knows where someone like me
        if direct is not None and direct.verb != "ask":  # can earn a few credits": where work is
            return direct
        return Reading("question", "about", topic_of(asked))
    if reading is not None and reading.verb == "ask":  # "ask ottilie what happened": asked of someone by name or
        named = _asked_of(found)  # description (whether or not they are here); else the line reads as it did
        return reading if len(named.split()) <= 3 and named and named not in _NOT_NAMES and not set(
            named.split()) & _NOT_NAMES else None
    return reading


# A yes-or-no question asked through someone, by what it asks after: "whether there is any truth to the talk that
# ...", "if anyone here buys salt", "whether she knows of anyone who would pay for work".
_WHETHER = re.compile(r"^(?:whether|if) (?:there is any truth (?:to|in) (?:the talk|the rumou?r|the story|what people "
                      r"say) (?:that |about )?|it is true (?:that )?|(?:she|he|they|you) (?:knows?|has heard|have "
                      r"heard|heard) (?:of |about )?|(?:anyone|anybody|someone|somebody|people)(?: around here| here| "
                      r"in here)? (?:knows? (?:of |about )?|would |will |can |buys? |sells? )?)(?P<t>.{3,})$")
_NOT_NAMES = frozenset({"him", "her", "them", "it", "around", "about", "everyone", "everybody", "anyone", "anybody",
                        "someone", "somebody", "people", "folks", "me", "you", "us", "this", "that", "there"})


# A question about what was just looked at or named: "read the notice. why is it upside down", "the auditor?? what
# is that about".
_ABOUT_IT = re.compile(r"^(?:(?:why|what|how) (?:is|are|does|do) |(?:is|are) )(?:it|that|this|they|those|these)\b")
# A rumor repeated, then asked after: "heard the old drills started moving again. true?"
_TRUE = re.compile(r"^(?:true|really|is (?:that|it) (?:true|so|right)|that true|any truth (?:in|to) (?:that|it)|"
                   r"is there anything (?:in|to) it)\s*\??$")
_HEARD = re.compile(r"^(?:i )?(?:heard|hear|they say|people say|folks say|someone said|somebody said|word is|rumou?r "
                    r"(?:is|has it)|apparently)(?: that)? (?P<t>.+)$")
def _asked_after_naming(parts: list[str]) -> Reading | None:
    """A thing named in one sentence and asked about in the next ("the auditor?? whats that about"): about what the
    sentence named, when the parser reads it as no deed or as a bare question; None otherwise."""
    if len(parts) < 2 or not _ABOUT_IT.search(parts[-1].strip()) or len(parts[-2].split()) > 5:
        return None
    named = parts[-2].strip()
    read = _read_clause(named, named)
    if read is None:
        return Reading("question", "about", topic_of(named))
    return Reading("question", "about", topic_of(read.topic)) if read.verb == "ask" else None


# A clause that says when, before the deed itself: "before i go anywhere , ...", "while everyone is busy , ...".
_SUBORDINATE = re.compile(r"^(?:before|after|once|when|while|whilst|as soon as|if|now that|since) [a-z' ]{2,60}? , ")


# Someone described, then asked about: "the girl selling songs, whats her deal", "that woman with the big knife looks
# tough, who is she", "the one with the pins in her shoulder, whats her name".
_POINTED = re.compile(r"^(?P<who>.+?)(?: ,)? (?:so )?(?:who is (?:she|he|they|that|it|her|him)|what is "
                      r"(?:her|his|their) (?:deal|story|name|problem|job)|who are they|what is with (?:her|him|them)|"
                      r"what (?:is|are) (?:she|he|they) called|what do (?:they|people|you|folk) call (?:her|him|them)|"
                      r"who is (?:she|he) when (?:she|he) is at home|(?:is )?(?:she|he) (?:is )?(?:the |a |an )?"
                      r"(?:owner|boss|keeper|landlady|landlord|bartender|innkeeper|one in charge|proprietor|"
                      r"barkeep|cook|guard|healer|doctor|singer|seller)(?: here)?\s*\?)\s*\??$")
# A thing described, then asked about: "the notched stick above the bar, what is it for", "that screen over the door,
# what does it say".
_POINTED_THING = re.compile(r"^(?P<what>.+?)(?: ,)? (?:so )?(?:what is (?:it|that|this)(?: thing)?(?: for| about| "
                            r"supposed to be| meant to be| showing| saying)?|what (?:does|do) (?:it|that|this|they) "
                            r"(?:say|do|mean|read|show)|what is (?:written|scratched|carved|painted) on (?:it|that|"
                            r"there)|what is that all about|is it (?:worth anything|valuable|important)|whose (?:is "
                            r"(?:that|it|this)|are (?:those|they|these))|what is (?:in|inside|on) (?:it|that|there)|"
                            r"is (?:it|that|this) (?:like |just |some kind of |a kind of )?(?:a|an|some)\b.*)\s*\??$")
_DESCRIBED = re.compile(r"\s+(?:looks?|seems?|is|sounds?) [a-z ]+$")  # "... looks tough": the description is before it


# A line that opens by calling someone by a name the parser does not know, then says something to them: a question,
# or a word that speaks to "you" ("ottilie whats your story", "tobin how u doin").
_CALLED = re.compile(r"^(?P<who>[a-z']+)\s*,?\s+(?P<rest>(?:whats|what|hows|how|wheres|where|whos|who|why|when|do|"
                     r"does|did|can|could|would|will|are|is|got|have|you|u|ur|tell me|any)\b.*)$")
# Words that open a line without naming anyone ("ugh whats that smell", "mate, how much"): the rest is still read.
_FILLERS = frozenset("""so ok okay well um uh er erm hmm hm ugh ew eww ewww wow whoa huh eh oof damn dang gosh blimey
crikey man dude mate guys folks sir madam lady friend pal buddy boss kid lad lass love dear listen look oh ah aha yo oi
hey hi hello excuse wait right alright and but also anyway seriously honestly really actually quick sorry please
thanks cheers yes no yeah yep nah nope sure fine i we they he she it this that there here then now got roughly about
approximately exactly basically like just quickly heard seen know had need want""".split())  # a subject dropped:
# "heard any good rumours lately", "seen any strangers"


# "ask (around) what/whether ...": the question asked, read as the question (one asked of a person is theirs to
# answer: rules.intent finds them).
_ASKING = re.compile(r"^(?:ask|inquire|enquire|wonder aloud)(?: (?:around|everyone|everybody|anyone|the room|"
                     r"them|the locals))?\s+(?:if |whether )?"
                     r"(?=(?:what|who|where|when|why|how|which|is|are|do|does|can)\b)")
_SENTENCE = re.compile(r"\s+[.;!]\s+|(?<=\s\?)\s+(?=[a-z])|,?\s+and (?:then )?(?=(?:ask|order|inquire|enquire|request|"
                       r"wonder aloud)\b)")


_REFUSED = re.compile(r"(?:i )?(?:cannot|can not|will not|would not|could not|did not|never) (?:even )?(?:afford to )?"
                      r"(?:buy|pay|drink|eat|go|give|fight|sell|take|leave)\b")


def _read_clause(clause: str, said: str) -> Reading | None:
    """The reading of one clause (``said``: the line it comes from, as ``plain`` left it)."""
    clause = _LEAD.sub("", clause, count=1).strip() or clause
    if _REFUSED.match(clause):  # "cant buy you a drink": no purchase, no drink
        return None
    clause = _ASKING.sub("", clause, count=1) or clause  # "ask what is good to eat": the question itself
    for _, found in _readers():
        hit = found(clause, said)
        if hit is not None:
            return hit
    return None


def _readers():
    return (("inventory", _inventory), ("reply", _reply), ("leave", _leave), ("examine", _examine),
            ("eat", _eat), ("question", _question), ("deed", _deed), ("go", _go), ("leave", _loose_leave),
            ("eat", _loose_eat), ("reply", _weak_reply))


_HAVE_THING = re.compile(r"^(?:do i (?:even |still |actually |really )?(?:have|carry|own|got)|am i (?:carrying|"
                         r"holding)) (?:a |an |any |some |the |my )?(?P<t>[a-z' ]+?)(?: on me| with me| in my "
                         r"(?:pack|bag|pockets?)| on my person| left| anymore| at all)*\s*[?!.]*$"
                         r"|^am i (?P<armed>armed)\b")


# Taking stock told as a deed ("I turn out my pockets onto the table and take stock of what I'm carrying") or asked of
# one thing ("is the light thing still in my bag"): the inventory, the thing asked about its topic.
_STOCKTAKING = re.compile(r"(?:^|\band )(?:turn out|turn my|empty(?: out)?|go through|rummage (?:in|through)|dig "
                          r"through|tip out|count|pat(?: down)?|check|feel (?:in|through)|search) (?:my )?(?:own )?"
                          r"(?:pockets?|bag|pack|satchel|purse|knapsack|rucksack|backpack|coins?|money|credits|greys)"
                          r"(?: down)?\b|"
                          r"\bsee what (?:i've|i have|i) (?:actually |even |still |really )?(?:got|have|carry|brought)"
                          r"(?: on me| with me)?\b|"
                          r"\btake stock of (?:what i am (?:carrying|holding)|my (?:things|gear|stuff|kit|belongings))|"
                          r"\b(?:what|everything) i am (?:carrying|holding)\s*[?!.]*$")
_IN_MY_BAG = re.compile(r"^(?:is|are) (?:the |my |that |a |an |any )?(?P<t>[a-z' ]{2,30}?) (?:still )?(?:in|inside) my "
                        r"(?:bag|pack|pockets?|satchel|purse|knapsack|rucksack|backpack|kit)(?: still)?\s*\??$")


def _inventory(clause: str, said: str) -> Reading | None:
    thing = _IN_MY_BAG.match(clause)
    if thing is not None:
        return Reading("inventory", "inventory", topic_of(re.sub(r"\s+(?:thing|things|thingy|stuff)$", "",
                                                                 thing.group("t"))) or thing.group("t"))
    if _STOCKTAKING.search(clause):
        return Reading("inventory", "inventory")
    if not (INVENTORY.match(clause) or INVENTORY.match(said)):
        return None
    asked = _HAVE_THING.match(clause)  # "do i even have a weapon on me": the weapon
    topic = ("weapon" if asked.group("armed") else topic_of(asked.group("t"))) if asked else ""
    return Reading("inventory", "inventory", topic)


# A reply known by how it starts: the first word (or two) and the verb it gives.
REPLY_LEADS = {
    "yes": "yes", "ok": "yes", "sure": "yes", "deal": "yes", "fine": "yes", "alright": "yes", "agreed": "yes",
    "right": "yes", "absolutely": "yes", "certainly": "yes", "definitely": "yes", "great": "yes", "perfect": "yes",
    "cool": "yes", "gladly": "yes", "i am in": "yes", "count me": "yes", "it is a deal": "yes", "you have a": "yes",
    "no": "no", "never": "no", "not": "no", "hmm": "more", "nah": "no", "hardly": "no", "i would rather not": "no",
    "say less": "yes", "bet": "yes", "fine but": "yes", "easy": "react", "ugh": "react", "ew": "react", "eww": "react",
    "yuck": "react",
    "gross": "react", "pfft": "react", "that sounds": "react", "that is awful": "react", "that is terrible": "react",
    "how awful": "react", "how terrible": "react", "oh no": "react", "poor": "react", "damn": "react", "whoa": "react",
    "i am so sorry": "sorry", "i am sorry to hear": "sorry",
    "why": "why", "but why": "why", "how come": "why",
    "what": "more", "huh": "more", "really": "more", "seriously": "more", "wait": "more", "hold on": "more",
    "i do not get": "more", "i do not understand": "more", "sorry what": "more", "go on": "more", "and": "more",
    "you are joking": "more", "you are kidding": "more", "that is not": "more", "that is": "more", "sounds": "more",
    "lol": "more", "haha": "more", "heh": "more", "ha": "more", "mmhm": "yes", "mm": "more", "uh": "more",
    "interesting": "more", "i see": "more", "oh": "more", "wow": "more",
    "thanks": "thanks", "thank": "thanks", "cheers": "thanks",
    "sorry": "sorry", "apologies": "sorry",
    "bye": "bye", "goodbye": "bye", "farewell": "bye",
    "oi": "hello", "hey": "hello", "excuse me": "hello", "hello": "hello", "hi": "hello", "psst": "hello",
    "you there": "hello", "ahoy": "hello", "greetings": "hello", "good morning": "hello", "good evening": "hello",
}
_LEADS = sorted(REPLY_LEADS, key=len, reverse=True)


def _reply(clause: str, said: str) -> Reading | None:
    for text in (said, clause):
        for verb, pattern in REPLIES:
            if pattern.match(text):
                return Reading("reply", verb)
    return None


def _weak_reply(clause: str, said: str) -> Reading | None:
    bare = re.sub(r"[?!.,;]", " ", said).split()
    if not bare or len(bare) > 12:
        return None
    joined = " ".join(bare)
    for lead in _LEADS:
        if joined == lead or joined.startswith(lead + " "):
            asked = _LATER_QUESTION.search(joined, len(lead)) if REPLY_LEADS[lead] not in ("yes", "no") or \
                joined.startswith("no way ") else None  # "ok, where do i start": taken up, then asked
            question = read(joined[asked.start():]) if asked is not None else None
            if question is not None and question.kind == "question":  # "sounds risky whats the pay": the question
                return question
            return Reading("reply", REPLY_LEADS[lead], weak=True)
    return None


# A question asked after a word of reply ("sounds risky whats the pay", "no way how short"): where it starts.
_LATER_QUESTION = re.compile(r"\b(?:what|who|where|why|how|when|which) (?:is|are|was|were|do|does|did|would|will|can|"
                             r"could|much|many|long|far|short|about|the|kind|happened|makes)\b")


LOOSE_FLEE = re.compile(r"\b(?:run|bolt|sprint|dash|flee|rush|scarper|scramble|race|hurry|leg it)\b.*\b(?:door|exit|"
                        r"outside|out|away|stairs|street|off|window|back)\b|\b(?:panic|flee|escape)\b")
LOOSE_LEAVE = re.compile(r"\b(?:leave|leaving|step outside|head out|get out of (?:here|this \w+)|go outside|"
                         r"done here|walk out|i am off|be on my way|be going|take off)\b|^am off\b|"
                         r"\b(?:later|see you|see ya|bye|goodbye|farewell|so long|cheerio),? (?:everyone|all|folks|"
                         r"everybody|lads|then)\b")


def _first(clause: str, table: tuple[tuple[str, str, re.Pattern[str]], ...], weak: bool = False) -> Reading | None:
    """The reading of the first (kind, verb, pattern) of ``table`` whose pattern matches the start of ``clause``
    (``weak``: found anywhere in it, for the loose readers)."""
    for kind, verb, pattern in table:
        if (pattern.search if weak else pattern.match)(clause):
            return Reading(kind, verb, weak=weak)
    return None


def _leave(clause: str, said: str) -> Reading | None:
    return _first(clause, (("leave", "flee", FLEE), ("leave", "back", BACK), ("leave", "leave", LEAVE)))


def _loose_leave(clause: str, said: str) -> Reading | None:
    if len(clause.split()) > 10 or re.search(r"\bleave (?:the|my|a|it|him|her|them)\b", clause):
        return None
    return _first(clause, (("leave", "flee", LOOSE_FLEE), ("leave", "leave", LOOSE_LEAVE)), weak=True)


def _examine(clause: str, said: str) -> Reading | None:
    found = EXAMINE.match(clause)
    if found is None:
        return None
    topic = topic_of(found.group("t") or found.group("t2"))
    if not topic or NOT_THINGS.match(topic) or (clause.startswith("see ") and re.match(
            r"(?:what|who|where|how|if|whether)\b", topic)):  # "see what you have got for sale": a question
        return None
    return Reading("examine", "examine", topic)


LOOSE_DRINK = re.compile(r"\b(?:beer|ale|pint|wine|mead|whisky|whiskey|grog|gin|rum|cider|drink|drinks|tea|coffee|"
                         r"brew|dram|thirsty|parched)\b")
FOOD = re.compile(r"\bsomething (?:hot|warm|hearty|filling)\b|\b(?:bun|buns|bread|loaf|stew|soup|broth|pie|pies|pasty|"
                  r"pasties|fish|eel|eels|meat|cheese|cake|"
                  r"sandwich|porridge|gruel|food|meal|snack|sausages?|roll|rolls|biscuits?|apples?|chips|fries|"
                  r"burgers?|steak|chops?|roast|pudding|noodles|rice|beans|eggs?|bacon|ham|chicken|pickles?)\b")
LOOSE_EAT = re.compile(r"\b(?:eat|food|starving|starved|hungry|meal|feed me|bite to eat|stew|bread|supper|breakfast|"
                       r"lunch|dinner|rations?|(?:murder|demolish|go for|kill for) (?:a|an|some|the)? ?(?:pie|stew|"
                       r"bread|meal|sandwich|bun|pasty|plate|bowl|steak|chop|roast|fish|eel|pudding|cake|sausage|broth"
                       r"|soup|something hot))\b")


def _eat(clause: str, said: str) -> Reading | None:
    for kind, pattern in (("eat", EAT), ("drink", DRINK)):
        found = pattern.match(clause)
        if found:
            said_of = re.split(r" , |\s+(?:now|so|because|before|then|while|and then|if|and (?:wipe|set|put|"
                               r"sigh|smile|grin|look|lean|sit|nod|turn|watch|wait|listen))\b",
                               f"{found.group('t')} ")[0]
            return Reading(kind, kind, topic_of(said_of))  # "whatever is hot , and
            # something wet to wash it down": what is hot
    return None


def _loose_eat(clause: str, said: str) -> Reading | None:
    if len(clause.split()) > 10 or re.search(r"\b(?:cannot|can not|will not|would not|could not|did not|never|no "
                                             r"money for) (?:\w+ ){0,2}(?:buy|drink|eat|afford|pay)", clause):
        return None  # "i am broke , cannot buy you a drink"
    return _first(clause, (("eat", "eat", LOOSE_EAT), ("drink", "drink", LOOSE_DRINK)), weak=True)


_FIND = re.compile(r"^(?:(?:i )?(?:need|want|have|got) to )?(?:find|locate|track down|look for|search for|seek|"
                   r"hunt for) (?!(?:anything|something|stuff|things|whatever) (?:valuable|useful|interesting|"
                   r"hidden|loose|of value|worth|shiny|good)\b)|\bshow me (?:your|the) (?:wares|goods|stock|stuff)\b|"
                   r"\bwhatcha\b")


_TRUST = re.compile(r"^(?:can|should|could|do|would|will) (?:i|we|one) (?:trust|rely on|believe|count on)\b")
_AUX = re.compile(r"^(?:can|could|may) (?:i|we) pay\b|"
                  r"^(?:is|are|was|were|has|have|does|did|can|could|will|would|should|do) (?:you|he|she|they|it|the|"
                  r"this|that|these|those|there|anyone|anybody|someone|people|folk|any|a|an|everyone|everybody|every1|"
                  r"all|most)\b")


# A kind of person sought, said rather than asked: "i'm looking for someone honest", "i need somebody tough".
_SOUGHT = re.compile(r"(?:i am |i )?(?:looking for|need|want|am after|seeking|searching for|could use) (?:someone|"
                     r"somebody|a person|anyone|anybody)\b")


def _question(clause: str, said: str) -> Reading | None:
    if re.match(r"^(?:list|browse|wares|stock|menu|shop)(?: (?:the |your |their )?(?:wares|goods|stock|items|menu|"
                r"shop|prices))?\s*[?!.]*$", clause):  # a parser game's "list": what is sold here
        return Reading("question", "what_here")
    if re.search(r"\b(?:have|get|had) a (?:quick )?word with\b", said) or re.match(
            r"(?:find|look for) (?:a|an|myself a) (?:[a-z]+ )?(?:seat|table|chair|stool|corner|bench|spot|perch)\b",
            clause):
        return None  # talk, or a seat found, not a question
    if re.match(r"(?:have|take) a (?:quick |good )?(?:look|wander|walk|poke) (?:around|round|about)\b", clause) or (
            GO.match(clause) and re.match(r"(?:can|could|would|will) (?:somebody|someone|anyone|anybody|you)\b", said)):
        return None  # "can i have a look around first", "can someone point me to the docks": a deed asked for
    asked = said if said.endswith("?") or said.split()[0] in _WH or _AUX.match(said) or _TRUST.match(said) or \
        said.startswith(("i ", "we ")) else clause  # "i could do that in my sleep" says, it does not ask
    if not (asked.endswith("?") or asked.split()[0] in _WH or _AUX.match(asked) or _TRUST.match(asked) or
            _FIND.search(asked) or re.search(
            r"\b(?:tell me|what do you know|any news|ask (?:\w+ )?about)\b|^ask (?:the )?(?:[a-z]+ )?(?:what|who|where|"
            r"when|why|how|which|whether|if)\b", asked) or _ASKED_PLAINLY.match(asked) or _SOUGHT.match(asked) or
            re.search(r"\b(?:speak|talk) (?:to|with) (?:whoever|someone who|the one who|somebody who)\b", asked)):
        return None
    for verb, pattern in QUESTIONS:
        found = pattern.search(asked)
        if found:
            topic = next((g for g in found.groupdict().values() if g), "")
            topic = service(SERVICES.get(topic, topic)) if verb != "how_much" else topic  # "where can a person get
            # patched up": a healer; "the cheapest healing item" is still an item
            return Reading("question", verb, topic_of(topic))
    return None


_HEALING = re.compile(r"\b(?:(?:get |be )?(?:patch|stitch|sew|fix)(?:ed|es)? (?:\w+ )?up|heals?|healed|healing|"
                      r"treats? the|tends? (?:to )?the (?:sick|wounded|hurt|injured)|(?:sick|ill|hurt|wounded|injured) "
                      r"(?:folk|folks|people|ones)|the (?:sick|wounded|injured|ill)$|mend (?:people|folk|bones))\b")


def service(topic: str) -> str:
    """A place asked for by what is done there for people, as the kind of place that does it ('where they patch up
    sick folk': 'healer'); ``topic`` itself otherwise."""
    return "healer" if _HEALING.search(topic) else topic


# What a place does for you, or what sends you to it ("if i get hurt"), as the place's kind.
SERVICES = {"hurt": "healer", "injured": "healer", "sick": "healer", "wounded": "healer", "ill": "healer",
            "cut": "healer", "shot": "healer", "stabbed": "healer", "patched up": "healer", "stitched up": "healer",
            "healed": "healer", "treated": "healer", "fixed up": "healer", "seen to": "healer"}
_WH = frozenset({"who", "what", "where", "when", "why", "how", "which", "whose", "whom"})
# A question typed without its question word or mark: "anything interesting happen lately", "heard anything about
# the auditors", "is hesper around".
_ASKED_PLAINLY = re.compile(r"^(?:anything|owt) (?:interesting|new|exciting|strange|odd|worth knowing|going on)\b|"
                            r"^(?:anyone|anybody|someone|somebody|any of you|you|ya)(?: here| around here| in here)?"
                            r" (?:got|have|has|need|needs|know|"
                            r"knows|seen|heard|hiring|take|accept)\b|^(?:to )?hear (?:of|about) |"
                            r"^(?:i would like|i want|i need|can i "
                            r"(?:get|have)|could i (?:get|have)) (?:a|the) (?:room|bed)\b|"
                            r"^(?:i )?need (?:a |an |the |some )?[a-z]+(?: [a-z]+)? (?:asap |"
                            r"now |quick |fast |urgently |badly )?where\s*\??$|"
                            r"^(?:any|is there any) (?:danger|trouble|bother)s?\b|"
                            r"^(?:heard|hear|know|knows) anything (?:about|of|on)\b|^(?:heard|seen|got|had|know) any\b|"
                            r"^any ?(?:where|place)\b|^(?:got|you got) (?:any|some)\b|"
                            r"^.*\b(?:my|the|a) (?:tab|slate)\b|^.*\bon (?:credit|tick)\b|^.*\bpay (?:you "
                            r"|it )?(?:later|"
                            r"back later|tomorrow|next time)\b|"
                            r"^any (?!(?:of (?:you|ya|yall|y'all)|one|body|way|how|more|longer)\b)[a-z]+\b|"
                            r"^is [a-z]+(?: [a-z]+)? (?:around|"
                            r"about|here|in|in today|in tonight)\s*$")


_AT_THE_FIRE = re.compile(r"\b(?:toward|towards|to|by|near|at|before|in front of|closer to|over) the (?:fire|hearth|"
                          r"stove|brazier|flames|coals|embers)\b")


def _deed(clause: str, said: str) -> Reading | None:
    for verb, pattern in DEEDS:
        found = pattern.match(clause)
        fire = _AT_THE_FIRE.search(clause) if found and verb in ("nod", "do", "sit", "stretch") else None
        if fire is not None:  # "stretch my boots toward the fire": warming by it
            return Reading("deed", "warm", fire.group(0).split()[-1])
        given = re.match(r"give (?P<who>(?:[a-z']+ ){1,3}?)(?:a|an) ", clause) if found and verb == "nod" else None
        if given is not None:  # "give the old man a wink": to him
            return Reading("deed", verb, topic_of(given.group("who").strip()))
        if found:
            aside = re.split(r"\s*,\s*|(?<!for a)\s+(?:before|while|trying|hoping|so that|to see|in case|until|"
                             r"as if|like)\b", clause[found.end():])[0]  # "keep an eye on the game , trying to
            # work out the rules": the game
            return Reading("deed", verb, topic_of(aside))
    return None


_WHY = re.compile(r"\s+(?:i am|i have|i need|i want|i feel|because|since|cause|so that|so i|to (?:see|ask|find|check|"
                  r"learn|get|buy|meet|talk|speak|look|hear)\b)\b.*$")  # "the clinic i am hurt bad", "the hall to
# see if they are hiring": the place (the rest says why)


COMPASS = {"n": "north", "s": "south", "e": "east", "w": "west", "ne": "northeast", "nw": "northwest",
           "se": "southeast", "sw": "southwest"}
_COMPASS = re.compile(r"^(?:go |head |walk |run |move )?(?P<way>north|south|east|west|northeast|northwest|southeast|"
                      r"southwest|" + "|".join(COMPASS) + r")\s*[.!]*$")


_UP_DOWN = re.compile(r"^(?:go |head |climb |walk )?(?:up|down|upstairs|downstairs|u|d)\s*[.!]*$")


def _go(clause: str, said: str) -> Reading | None:
    if _UP_DOWN.match(said.strip()):  # a parser game's "u", "d": the way out, the stairs or the steps it takes
        return Reading("leave", "leave")
    way = _COMPASS.match(clause)
    if way is not None:  # "n", "go north": the pack's ways have no compass points; the way out, or which way
        return Reading("go", "go", COMPASS.get(way.group("way"), way.group("way")))
    found = GO.match(clause)
    if found is None:
        return None
    toward = re.split(r"\s+(?:toward|towards|on to|as far as)\s+", found.group("t").split(" , ")[0])
    # "the market , i need a few things": the market; "along the street toward the market": the market
    topic = service(topic_of(_WHY.sub("", toward[-1])))
    if topic in ("on", "on then", "on now") and not found.group("ride"):  # "go on, sing the one about the provost"
        return None  # is urging, not going
    if found.group("ride") and topic in ("down", "up", "across", "over", "back", "out", "in"):
        topic = found.group("ride")  # "take the lift down": the lift, wherever it goes
    return Reading("go", "go", topic)


_VERB_AND_PARTICLE = re.compile(r"^(?:[a-z']+)(?:\s+(?:up|down|out|off|over|under|behind|inside|into|in|on|through|at|"
                                r"around|round|beneath|below|open|about|for|carefully|closely|again|quickly))*(?:\s+|"
                                r"$)")


def object_of(text: str) -> str:
    """What a hands-on line acts on: the words after its verb and particles, article removed ('open the shutters' ->
    'shutters', 'look under the table' -> 'table'), in the line's last sentence; '' when there are none."""
    said = [part for part in _SENTENCE.split(plain(text)) if part.strip()] or [""]
    clause = _LEAD.sub("", _SUBORDINATE.sub("", said[-1], count=1), count=1).strip()  # "while everyone is busy ,
    # check under the loose boards": the boards
    then = re.split(r"\s+and (?:then )?", clause)  # "draw my knife and lunge at the singer": the singer
    if len(then) > 1 and re.match(r"^[a-z]+ (?:at|on|into|onto|toward|towards|for|after) (?!it$|them$|him$|her$)",
                                  then[-1]):  # a move at someone ("lunge at", "go for"), not "buy a bun and eat it"
        clause = then[-1]
    found = _VERB_AND_PARTICLE.match(clause)
    return topic_of(clause[found.end():]) if found else ""


_ADDRESS = re.compile(r"^(?:.*?\b)?(?:talk|speak|chat|say (?:hi|hello)|greet|ask|whisper|call out|shout|wave|"
                      r"^hello|^hi|^hey|^oi|^howdy|^evening|^morning|"
                      r"have a word|a word|"
                      r"nod|reply|answer|introduce (?:myself|yourself)|thank)(?: (?:up|over))?(?: (?:to|with|at))?"
                      r"\s+(?!(?:about|after|regarding|around|if|whether|wh\w*|how\w*|for|is|are|do|does|can)\b)"
                      r"(?P<who>.+?)(?:\s+(?:about|if|what|whether|why|how|where|who|for|to)\b.*)?$")


# A gift with its taker first: "give the ballad girl a grey", "hand the old man my last coin".
_GIVEN = re.compile(r"^(?:i )?(?:give|hand|pay|tip|slip|toss|pass|buy) (?P<who>(?!(?:a|an|one|some|my|me|\d+)\b)"
                    r"[a-z' ]+?) (?=(?:a|an|one|two|three|\d+|some|my|this|that|these|those|another)\b)")
_TOLD = re.compile(r"^(?:i )?(?:tell|inform|warn|remind) (?P<who>[a-z]+) (?=(?:that|i|i'm|im|we|you|he|she|they|it|"
                   r"there|the)\b)")


def addressee(text: str) -> str:
    """The words naming who a line is said to ('talk to the singer lady about the See' -> 'the singer lady'); the
    whole line when it names nobody that way."""
    told = _TOLD.match(text.strip())
    if told is not None:  # "i tell odile i'm an inspector": Odile
        return told.group("who")
    given = _GIVEN.match(text.strip())
    if given is not None:  # "give the ballad girl a grey for a song": the ballad girl
        return given.group("who")
    found = _ADDRESS.match(text.strip().rstrip("?!."))
    called = _CALLED.match(plain(text)) if found is None else None
    found = found or (called if called is not None and called.group("who") not in _FILLERS else None)
    if found is None:
        return text
    who = found.group("who")
    if re.match(r"(?:hello|hi|hey|oi|howdy|evening|morning)\b", text.strip()):  # "hey rhea ur cute, buy me a drink?"
        who = re.split(r"\s*,\s*|\s+(?:you|your|ur|u|you are|are|is|i|we|can|could|will|would|do|got|have|buy|give|"
                       r"tell|get|come|want)\b", who)[0]
    return who or text


# An order given by naming the thing: "one fungus bun pls", "two ales please", "i'll have the stew", "can i get a
# pint". The caller checks that the words name something sold here before reading it as a purchase.
_POLITE = (r"(?:\s*,?\s*(?:please|pls|plz|thanks|thank you|cheers|for me|to go|too|as well|mate|love|friend|sir|"
           r"madam|if you please|if you would|when you get a chance|and do not tell me [a-z' ]+|and make it [a-z]+))")
_ORDERS = (
    re.compile(r"^(?:(?:one|two|three|four|another|1|2|3|4)\s+)(?P<thing>[a-z' -]{3,40}?)" + _POLITE + r"*\s*[.!]*$"),
    re.compile(r"^(?:a |an |some |the )?(?P<thing>[a-z' -]{3,40}?)" + _POLITE + r"+\s*[.!]*$"),
    re.compile(r"^(?:i will have|i will take|i will get|i would like|i would love|i would have|i would take|i want|"
               r"give me|can i (?:have|get|grab)|could i (?:have|get|grab)|may i have|let me (?:have|get)|get me|"
               r"bring me|i am after|i fancy|i will go for|i will try)\s+(?!to |for |you |it |that |this |them |him "
               r"|what |whatever |her |me |out |in |on |off |up |down |over |back |away |with |about )"
               r"(?:a |an |the |some |one |two "
               r"|another )?(?P<thing>[a-z' -]{3,40}?)" + _POLITE + r"*\s*[?.!]*$"),
)


# An offer of a sum for a thing: "two greys for the tincture and not a half more", "i'll give you 3 for the lantern".
_OFFER = re.compile(r"^(?:(?:i will|i would|i can|i could|i) (?:give|pay|offer) (?:you |ya |u )?|how about |"
                    r"what about |(?:i )?offer (?:you )?)?(?P<sum>(?:a|an|one|two|three|four|five|six|seven|eight|"
                    r"nine|ten|twenty|half a|\d+)(?: [a-z]+)?) for (?:the |a |an |that |this |your |those |"
                    r"one of (?:the|those|your) )?"
                    r"(?P<thing>[a-z' -]{3,30}?)(?:\s*(?:,|\band\b|\bor\b|\btops\b|\bfinal\b).*)?\s*[?.!]*$")


_OFFER_AFTER = re.compile(r"^(?:the |a |an |that |this |your )?(?!(?:yes|no|ok|okay|sure|fine|deal|alright|yeah|right|"
                          r"well|hmm|um|and|so|look|listen|here|fair|done|agreed|please|thanks)\b)"
                          r"(?P<thing>[a-z' -]{3,30}?)\s*[.,:;]\s*(?:i will give you "
                          r"|i will pay |i offer |how about )?(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|"
                          r"twenty|half a|\d+) [a-z]+(?:\s*[.,!]\s*(?:final offer|take it or leave it|last offer|"
                          r"deal|that is my offer|no more)?)*\s*[?.!]*$")


def offered(text: str) -> str | None:
    """The thing an offer of a sum names ("two greys for the tincture", "hand lamp. 6 credits. final offer":
    'tincture', 'hand lamp'), or None when ``text`` is not one."""
    said = plain(text)
    found = _OFFER.match(said) or _OFFER_AFTER.match(said)
    return found.group("thing").strip() if found else None


def ordered_outright(text: str) -> bool:
    """Whether ``text`` orders by an ordering verb ("i'd like a ...", "can i get a ..."), not only by naming a thing
    with a courtesy ("ale please"): such an order is a purchase even of a thing the pack does not have."""
    return _ORDERS[2].match(_YES_FIRST.sub("", plain(text))) is not None


def ordered(text: str) -> str | None:
    """The thing an order names ("one fungus bun pls": 'fungus bun'), or None when ``text`` is not one."""
    for said in (_YES_FIRST.sub("", plain(text)), " ".join(_spelled(text).split())):  # "yes pls, i'll take a cup":
        # the order the yes opens; "one burn stim, and don't tell me what's in it" is no name said first
        for pattern in (_ORDERS[0], _ORDERS[2], _ORDERS[1]):  # the verb of an order before a thing said politely
            found = pattern.match(said)
            if found:
                return found.group("thing").strip()
    return None


_YES_FIRST = re.compile(r"^(?:yes|ok|sure|alright|fine|right|go on then)(?: please)?(?: ,)? (?=i |can |could |may |"
                        r"give |get |bring |let )")
_THEN = re.compile(r"\s*,?\s+(?:and then|and|then|before i|and i)\s+")


def move_after(text: str) -> str | None:
    """The last clause of a line that ends by leaving or going ("I finish my drink and step out the door": 'step out
    the door'), when the rest is what the player does on the way; None otherwise. The move is the turn."""
    said = plain(text)
    parts = _THEN.split(said)
    if len(parts) < 2 or re.search(r"\bbefore i (?:\w+ ){0,4}?\w+\W*$", said):  # "what is the weather doing before
        return None  # i go out": asked first; the going is for later
    tail = parts[-1].strip(" .!")
    found = read(tail)
    return tail if found is not None and not found.weak and found.kind in ("leave", "go") else None


def move_first(text: str) -> str | None:
    """The first clause of a line that starts by going somewhere and goes on to what the player will do there ("lets
    go down the docks and pick a fight with some sailors": 'go down the docks'); None otherwise. The caller decides
    whether the clause names a place (a step across the room is no journey)."""
    parts = _THEN.split(plain(text))
    if len(parts) < 2:
        return None
    head = parts[0].strip(" .!,")
    if re.fullmatch(r"(?:i |we )?(?:go|will go|wander|walk|head) ?(?:over|across)?", head):  # "i go and stand by the
        return None  # fire": the going is only the way to the deed
    found = read(head)
    if found is None or found.weak or found.kind not in ("go", "leave") or (
            found.kind == "go" and found.topic in THERE):
        return None
    if found.kind == "leave" and re.search(r"\b(?:toward|towards|to the|for the|into the|onto the|along the)\b",
                                           " ".join(parts[1:])):
        return None  # "i head out and along the main street toward the market": the market
    if found.kind == "leave" and re.search(r"\bthe (?:door|doorway|exit|front door)$", head):
        return None  # "walk to the door and look out": what is done at the door
    return head  # "step outside and look up at the sky": out


# Words said inside a line that narrates ("I slide a coin across and say, 'what's the word on the docks?'"): what is
# said is the turn; the narration before it may name who it is said to.
_QUOTED = re.compile(r"^(?P<before>.*?[a-z].*?)[\s,:]+[\"'\u201c\u2018](?P<said>[^\"\u201c\u201d]+?)[\"'\u201d\u2019]"
                     r"\s*[.!?]*\s*$")


# The same, the words said without quotes ("I slide onto the stool next to the old man and say so you look like you
# know this place"): after at least three words of narration, "and say" or "I say".
_SAID = re.compile(r"^(?P<before>(?:\S+\s+){3,}?\S+?)\s+(?:,\s+)?(?:and (?:then )?|i |then )"
                   r"(?:say|tell (?:him|her|them)|whisper|mutter|murmur|remark|add|grin and say|lean in and say)"
                   r"(?: to (?:him|her|them|the [a-z]+))?\s*,?\s+"
                   r"(?P<said>(?!(?:hello|hi|hey|nothing|something|a few|goodbye|no more)\b)[a-z]+(?: [a-z',?]+){2,})$")


# The words first, then who says them to whom: '"rough day?" i ask her', '"want to team up?" i say to the big one'.
_SAID_FIRST = re.compile(r"^[\"\u201c](?P<said>[^\"\u201c\u201d]+?)[\"\u201d]\s*,?\s*(?P<before>(?:i )?(?:say|said|"
                         r"ask|asked|tell|told|whisper|mutter|call|shout|add|reply|offer|murmur)s?\b[a-z' ]*?)"
                         r"\s*[.!?]*$")


# The words first, then a deed: "'Thanks for the drink.' *I head for the iron stairs*" (the deed as ``acted`` tells it).
_SAID_THEN_DONE = re.compile(r"^[\"'\u201c\u2018](?P<said>[^\"\u201c\u201d]+?[.!?])[\"'\u201d\u2019]\s*,?\s*"
                             r"(?P<before>(?:i )?[a-z][a-z' ]+[a-z])\s*[.!]*$")


def quoted(text: str) -> tuple[str, str] | None:
    """(the narration, the words said) of a line that narrates and then quotes what is said, with or without the
    quotes, or quotes first and then says who says it ('"rough day?" i ask her'); None otherwise."""
    found = _QUOTED.match(text.strip()) or _SAID_FIRST.match(text.strip()) or _SAID_THEN_DONE.match(text.strip())
    if found is None:
        found = _SAID.match(plain(text).rstrip(" .!"))
    if found is None or not re.search(r"[a-z]", found.group("said")):
        return None
    return found.group("before").strip(" ,:"), found.group("said").strip().strip("'\u2018\u2019").strip()
    # "*nods at the dice* 'what are they playing for?'": the words, without the single quotes they came in
