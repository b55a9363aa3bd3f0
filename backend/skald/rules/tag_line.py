"""The reply format of a scene character's agent: one compact tag line, and a parser that never raises.

The forms (after the Scene Moderator design's reply table):

=====================================================  ===========================================================
``[TO: Tobin, TONE: dry, *sets down a glass*] "..."``  a line said to someone (a character, ``player``, ``all``)
``[TONE: warm] "..."``                                  a line said to the room
``[INTERRUPT after "the tab", TONE: sharp] "..."``      cuts into another line this beat, after that phrase
``[SILENT, *looks away*]``                              says nothing (kept out of the transcript)
``[REACT, TONE: startled, *ducks*]``                     a wordless reaction, in the transcript
=====================================================  ===========================================================

Tolerance: keys in any case and order, ``:`` or ``=`` after a key, curly or straight quotes, the speaker's own name
before the tag (``Hesper: [TONE: ...]``), a code fence around it, a nonverbal ``*...*`` after the quote, a missing
closing quote or bracket. A reply with no usable tag becomes plain dialogue with a warning; an empty one is SILENT
with a warning. Whatever the reply says, it can only ever be a line of dialogue: other tags (``[EVENT: ...]``,
``[SYSTEM: ...]``) are dropped with a warning, control and invisible formatting characters (C0, C1, zero-width and
direction marks) and markup are removed, and the words are cut to :data:`MAX_CHARS` characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_CHARS = 280  # the words of one line
MAX_NONVERBAL = 120
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"'})
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")
_FENCE = re.compile(r"^```\w*\s*|\s*```$")
_TAG = re.compile(r"\[([^\[\]]*)(\]|$)")
_FOREIGN = re.compile(r"\[\s*(EVENT|SYSTEM|MODERATOR|NARRATOR|SCENE)\b[^\]]*\]?", re.IGNORECASE)
_STARS = re.compile(r"\*([^*]+)\*")
_KEY = re.compile(r"^\s*(TO|TONE|INTERRUPT|SILENT|REACT)\b\s*(?:after\b)?\s*[:=]?\s*(.*)$", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Reply:
    """One parsed reply. ``action``: speak | interrupt | react | silent."""

    action: str = "speak"
    content: str = ""
    target: str | None = None
    tone: str | None = None
    nonverbal: str | None = None
    after: str | None = None  # interrupt: the phrase of the other line it cuts in after
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def spoken(self) -> bool:
        return self.action in ("speak", "interrupt") and bool(self.content)


def _clean(text: str, limit: int) -> str:
    text = _CONTROL.sub(" ", text).replace("[", "(").replace("]", ")").replace("*", "")
    text = " ".join(text.split()).strip(" \"'")
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "..."


def _parts(tag: str) -> list[str]:
    """The tag's comma-separated parts, commas inside quotes or asterisks kept."""
    out, buf, quote, stars = [], [], False, False
    for ch in tag:
        if ch == '"':
            quote = not quote
        elif ch == "*":
            stars = not stars
        if ch == "," and not quote and not stars:
            out.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    out.append("".join(buf))
    return [p.strip() for p in out if p.strip()]


def parse(raw: str | None, speaker: str = "") -> Reply:
    """``raw`` (a character agent's whole reply) as one :class:`Reply`; ``speaker`` names it in warnings and is
    dropped when the reply starts with it. Never raises."""
    who = speaker or "character"
    warnings: list[str] = []
    text = _FENCE.sub("", (raw or "").translate(_QUOTES).strip()).strip()
    if not text:
        return Reply(action="silent", warnings=(f"{who}: empty reply; kept silent",))
    if speaker and text.lower().startswith(speaker.lower()) and text[len(speaker):].lstrip(" *")[:1] in (":", "-"):
        text = text[len(speaker):].lstrip(" *:-")
    foreign = _FOREIGN.findall(text)
    if foreign:
        text = _FOREIGN.sub(" ", text).strip()
        warnings.append(f"{who}: dropped {', '.join(sorted({f.upper() for f in foreign}))} tag(s) a character may "
                        "not write")
    match = _TAG.search(text)
    if match is None or match.start() > 0 and '"' in text[:match.start()]:
        return _untagged(text, speaker, warnings)
    tag, rest = match.group(1), text[match.end():]
    if not match.group(2):  # "[TO: Tobin "words...": the tag ends where the words start
        warnings.append(f"{who}: tag not closed; read up to its words")
        phrase = re.search(r'after\s*[:=]?\s*"[^"]*"', tag, re.IGNORECASE)
        skip = phrase.end() if phrase else 0
        opening = tag.find('"', skip)
        tag, rest = (tag[:opening], tag[opening:]) if opening >= 0 else (tag, "")
    action, target, tone, after, nonverbal = "speak", None, None, None, []
    for part in _parts(tag):
        stars = _STARS.findall(part)
        if stars or part.startswith("*"):
            nonverbal += stars or [part.strip("* ")]
            continue
        key = _KEY.match(part)
        if key is None:
            warnings.append(f"{who}: ignored {part[:40]!r} in the tag")
            continue
        name, value = key.group(1).upper(), key.group(2).strip().strip('"').strip()
        if name == "TO":
            target = _clean(value, 60) or None
        elif name == "TONE":
            tone = _clean(value, 30).lower() or None
        elif name == "INTERRUPT":
            action, after = "interrupt", _clean(value, 80) or None
        elif name in ("SILENT", "REACT"):
            action = name.lower()
    spoken, quoted = rest, re.search(r'"([^"]*)("|$)', rest)
    if quoted is not None:
        if not quoted.group(2):
            warnings.append(f"{who}: unbalanced quote; kept the words after it")
        spoken = " ".join(quoted.group(1).split())  # a quote may wrap over lines
        nonverbal += _STARS.findall(rest[quoted.end():])
    else:
        nonverbal += _STARS.findall(rest)
        spoken = _STARS.sub(" ", rest)
    content = _clean(spoken.split("\n")[0], MAX_CHARS)
    if action == "interrupt" and after is None:
        action = "speak"
        warnings.append(f"{who}: INTERRUPT without the phrase it cuts in after; kept as a line")
    if action in ("speak", "interrupt") and not content:
        action = "react" if nonverbal else "silent"
        warnings.append(f"{who}: a line with no words; kept as {action}")
    if action in ("silent", "react"):
        content = ""
    gesture = _clean("; ".join(nonverbal), MAX_NONVERBAL) or None
    return Reply(action=action, content=content, target=target, tone=tone, nonverbal=gesture, after=after,
                 warnings=tuple(warnings))


_SPOKEN = re.compile(r'"([^"]*)("|$)')
def _narrated(line: str, speaker: str) -> bool:
    """Whether ``line`` tells what the speaker does ("Amos scratches his chin.", "She shrugs."), not what they say."""
    names = [re.escape(n) for n in (speaker, speaker.split()[0] if speaker.split() else "") if n]
    who = "|".join([*names, "he", "she", "they"])
    return re.match(rf"^(?:{who})\s+[a-z]+s\b", line.strip("* "), re.IGNORECASE) is not None


def _untagged(text: str, speaker: str, warnings: list[str]) -> Reply:
    """A reply written as prose instead of a tag line, as models often write it: the quoted words are the line and
    the rest ("Odile wipes the bar.", ``*leans closer*``) what the character does; with no quotes, a sentence told of
    the character ("Amos scratches his chin.") is a reaction, anything else the words themselves."""
    who = speaker or "character"
    said = [" ".join(m.group(1).split()) for m in _SPOKEN.finditer(text) if m.group(1).strip()]
    if said:
        warnings.append(f"{who}: reply was prose, not a tag line; kept its quoted words")
        done = _SPOKEN.sub(" ", text).replace("*", " ")
        gesture = _clean(" ".join(done.split()).strip(" ,.;:-"), MAX_NONVERBAL) or None
        content = _clean(" ".join(said), MAX_CHARS)
        return Reply(content=content, nonverbal=gesture, warnings=tuple(warnings))
    first = text.split("\n")[0]
    if _narrated(first, speaker) or first.strip().startswith("*") and first.strip().endswith("*"):
        warnings.append(f"{who}: reply told what the character does, without words; kept as a reaction")
        return Reply(action="react", nonverbal=_clean(first, MAX_NONVERBAL) or None, warnings=tuple(warnings))
    content = _clean(_STARS.sub(" ", first), MAX_CHARS)
    warnings.append(f"{who}: reply was not a tag line; kept as plain dialogue")
    return Reply(content=content, action="speak" if content else "silent", warnings=tuple(warnings))


def render(reply: Reply) -> str:
    """``reply`` written back in the tag-line format (what the offline characters produce and the parser reads)."""
    parts = {"silent": ["SILENT"], "react": ["REACT"]}.get(reply.action, [])
    if reply.action == "interrupt":
        parts.append(f'INTERRUPT after "{reply.after}"')
    if reply.target and reply.action in ("speak", "interrupt"):
        parts.append(f"TO: {reply.target}")
    if reply.tone and reply.action != "silent":
        parts.append(f"TONE: {reply.tone}")
    if reply.nonverbal:
        parts.append(f"*{reply.nonverbal}*")
    tag = f"[{', '.join(parts or ['TONE: plain'])}]"
    return f'{tag} "{reply.content}"' if reply.content else tag
