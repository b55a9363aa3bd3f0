"""A player's pronouns, as written ("she/her", "he/him", "they/them", or a set of one's own: "xe/xem/xyr") and as
prose uses them. "they" takes plural verbs ("they are"); every other set singular ones."""

from __future__ import annotations

import re
from dataclasses import dataclass

KNOWN = {"she": ("she", "her", "her", "herself"), "he": ("he", "him", "his", "himself"),
         "they": ("they", "them", "their", "themselves"), "it": ("it", "it", "its", "itself")}
PATTERN = re.compile(r"^[A-Za-z]{1,12}(?:/[A-Za-z]{1,12}){1,3}$")
DEFAULT = "they/them"


@dataclass(frozen=True)
class Pronouns:
    subject: str
    object: str
    possessive: str
    reflexive: str
    plural: bool

    @property
    def be(self) -> str:
        return "are" if self.plural else "is"

    @property
    def have(self) -> str:
        return "have" if self.plural else "has"

    def fields(self) -> dict[str, str]:
        """Template fields: ``{subj}``, ``{Subj}``, ``{obj}``, ``{poss}``, ``{refl}``, ``{be}``, ``{have}``."""
        return {"subj": self.subject, "Subj": self.subject.capitalize(), "obj": self.object,
                "poss": self.possessive, "refl": self.reflexive, "be": self.be, "have": self.have}


def valid(text: str) -> bool:
    """Two to four words of letters separated by slashes ("she/her", "xe/xem/xyr")."""
    return bool(PATTERN.match(text.strip()))


def of(person: object | None) -> Pronouns:
    """A pack person's pronouns (its ``pronouns`` field, ``core.pack.Npc`` or ``Companion``); they/them for a
    person without one, or for None."""
    return parse(getattr(person, "pronouns", None))


def parse(text: str | None) -> Pronouns:
    """The pronouns ``text`` names; a known set from its first word ("she/her" -> she/her/her/herself), else a set of
    one's own (subject/object[/possessive[/reflexive]], the rest made from the object). Invalid text: they/them."""
    text = (text or "").strip().lower()
    if not valid(text):
        text = DEFAULT
    words = text.split("/")
    if words[0] in KNOWN:
        return Pronouns(*KNOWN[words[0]], plural=words[0] == "they")
    subject, obj = words[0], words[1]
    possessive = words[2] if len(words) > 2 else obj
    reflexive = words[3] if len(words) > 3 else f"{obj}self"
    return Pronouns(subject, obj, possessive, reflexive, plural=False)
