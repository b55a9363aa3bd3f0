"""Lines told as a story: what a player narrates in several clauses, split into the clauses a turn can be.

Players who write as at a tabletop put the deed in the middle of a sentence ("Taking my time, I walk the room
slowly, running a finger along the tables and peering into every corner"), in the third person ("my character is
worn out from the road so she finds a quiet bench and just watches the room"), or after a remark ("ha, that's more
than I bargained for, but sure, count me in"). :func:`clauses` gives each clause as a line of its own, its verb in the
plain form the parser reads ("peering into every corner" -> 'peer into every corner'); ``rules.intent`` reads each
and keeps the one that carries the turn. Text only: no pack, no state.
"""

from __future__ import annotations

import re
from functools import lru_cache

from skald.rules import parser

# Who a third-person line is about, read as the player ("my character is tired so she sits down").
_TOLD_OF = re.compile(r"^(?:my (?:character|char|pc|hero|heroine|guy|girl|lad|lass|rogue|fighter))\s+")
_SUBJECT = re.compile(r"^(?:i|we|she|he|they)\s+(?=[a-z])")
# Where a told line breaks into clauses: commas and semicolons, and the words that join one deed to the next.
_BREAK = re.compile(r"\s*[,;:]\s*|\s+(?:and|but|so|then|before|while|until|as soon as)\s+(?:then\s+)?"
                    r"(?!(?:along|toward|towards|to|into|onto|across|through|down|up|over|out|back)\b|[a-z]+est\b)"
                    r"(?=[a-z])")  # not "head out and along the street", "whatever is cheapest and warmest"
# When a clause happens, before its deed: "once my cup is empty I head out".
_WHEN = re.compile(r"^(?:once|when|after|as soon as|now that) (?:[a-z']+ ){1,6}?(?=i [a-z])")
_CONJUNCTION = re.compile(r"^(?:(?:and|but|so|then|also|yet|just|quietly|slowly|carefully|calmly|finally|simply|"
                          r"gently|quickly)\s+)+|\s+(?:and|but|so|then)$")
_LEAST, _MOST = 2, 8  # clauses a told line has (a longer one is read as a whole)


@lru_cache(maxsize=4096)
def clauses(text: str) -> tuple[str, ...]:
    """The clauses of ``text`` (lower case) as lines of their own, in order, each opening with its verb in the
    plain form (``_plain_verb``); () when ``text`` is one clause or more than eight."""
    said = _TOLD_OF.sub("i ", parser.plain(text))
    parts = [_CONJUNCTION.sub("", p.strip(" .!")).strip() for p in _BREAK.split(said)]
    parts = [p for p in parts if p.strip(" ?")]
    if not _LEAST <= len(parts) <= _MOST:
        return ()
    parts = [_WHEN.sub("", p) for p in parts]
    return tuple(_plain_verb(_SUBJECT.sub("", p) if not p.startswith(("i am", "i have")) else p) for p in parts)


_ACTED = re.compile(r"\*([^*]{2,160})\*")  # "*sits down at an empty table*": what the player's character does
# Deeds between asterisks, then words without quotes: "*walks over to the loud one* hey, got a minute?"
_THEN_SAID = re.compile(r"^(?P<deeds>(?:\*[^*]{2,160}\*\s*)+)(?P<said>[^*\"\u201c\u201d]*[A-Za-z][^*\"\u201c\u201d]*)$")


def acted(text: str) -> str:
    """``text`` with each deed written between asterisks, as players of model-narrated games write them, told as
    the player's own ("*checks my pockets*" -> 'check my pockets', "*pulls up a chair* 'mind if i join you?'" ->
    "pull up a chair , 'mind if i join you?'"); ``text`` itself when it has none."""
    if "*" not in text:
        return text
    then = _THEN_SAID.match(text.strip())
    if then is not None:  # "*leans in* you've got the kindest eyes": what follows the deed is said
        said = then.group("said").strip()
        said = said[1:-1].strip() if len(said) > 2 and said[0] in "'\u2018" and said[-1] in "'\u2019" else said
        return f'{acted(then.group("deeds"))} , "{said}"'  # the words, in one set of quotes
    told = _ACTED.sub(lambda m: f" {_plain_verb(_SUBJECT.sub('', m.group(1).strip().lower()))} , ", text)
    return " ".join(told.replace("*", " ").split()).strip(" ,")


# A line told in the second person, as a model-narrated game's player writes it: "You wave the bartender over."
_SECOND = re.compile(r"^You (?!(?:two|three|all|guys|lot|there|people|lads|folks|both|and|know|see|are|were|have|had|"
                     r"must|should|could|would|will|can|might|look|seem|sound)\b)(?P<rest>[a-z]+ [^,].*[.!])$")
_YOUR = re.compile(r"\byour\b")


def as_own(text: str) -> str | None:
    """The deed a line told in the second person and closed with a full stop names, as the player's own ('You wave
    the bartender over.' -> 'wave the bartender over.'); None when ``text`` is not told so."""
    found = _SECOND.match(text.strip())
    return _YOUR.sub("my", found.group("rest")) if found else None


def _plain_verb(clause: str) -> str:
    """``clause`` with its first word in the plain form when it is told ('watches the room' -> 'watch the room',
    'peering into every corner' -> 'peer into every corner'): as it is when the parser reads it so, unless only
    weakly and a plain form reads plainly; else the first of the likely plain forms the parser reads, else the first
    of them."""
    first, _, rest = clause.partition(" ")
    forms = _forms(first)
    read = parser.read(clause) if forms else None
    if not forms or (read is not None and not read.weak):
        return clause
    lines = [f"{form} {rest}".strip() for form in forms]
    reads = {line: parser.read(line) for line in lines}
    strong = next((line for line in lines if reads[line] is not None and not reads[line].weak), None)
    if strong is not None or read is not None:  # "walks over to the one nursing her drink": the walk, not the drink
        return strong or clause
    return next((line for line in lines if reads[line] is not None), lines[0])


def _forms(word: str) -> list[str]:
    """The likely plain forms of a told verb ('running' -> ['run', 'runn', 'runne'], 'watches' -> ['watch',
    'watche']); [] for a word that is not one."""
    if len(word) > 5 and word.endswith("ing"):
        stem = word[:-3]
        doubled = [stem[:-1]] if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz" else []
        return [*doubled, stem, f"{stem}e"]
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return [word[:-2], word[:-1]]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return [word[:-1]]
    return []
