"""Requests the rules cannot honour, recognised so they get an honest answer instead of a roll.

Three kinds, by Skald's own word lists (matched on the router's normalised text, markup already stripped):
- ``instructions``: talking to the machine instead of the world ("ignore previous instructions", "system prompt");
- ``fiat``: wealth, health or power by asking ("give me 1000000 credits", "set my HP to 99", "god mode");
- ``victory``: declaring the game won or the world changed by saying so ("I win", "I am the king now").
"""

from __future__ import annotations

import re
from typing import Literal

Wish = Literal["instructions", "fiat", "victory"]

_MONEY = r"(?:credits?|coins?|gold|money|cash|greys?|silver|pennies|penny)"
_STATS = r"(?:hp|health|hit points|stats?|stress|credits?|gold|money|level|xp|experience)"

WISHES: list[tuple[Wish, re.Pattern[str]]] = [
    ("instructions", re.compile(
        r"\b(?:ignore|disregard|forget|override) (?:all |any |the |your )?(?:previous|prior|above|earlier|"
        r"system|original)? ?(?:instructions?|prompts?|rules|directions)\b"
        r"|\bsystem prompt\b|\bdeveloper mode\b|\bjailbreak\b|\bas an ai\b|\blanguage model\b"
        r"|\byou are (?:now |no longer )?(?:an? |the )?(?:ai|assistant|chatbot|narrator|game master|gm|dm)\b"
        r"|\b(?:new|updated) instructions?\b")),
    ("fiat", re.compile(
        r"\bgive me (?:a |an )?(?:\d[\d,]{3,}|a million|a billion|infinite|unlimited|all the)\b"
        r"|\b(?:i|you) (?:now )?(?:have|get|gain|receive|find) (?:\d[\d,]{4,}|a million|a billion|infinite|"
        r"unlimited)\b"
        rf"|\b(?:infinite|unlimited|endless|max(?:imum)?) {_MONEY}\b|\b(?:infinite|unlimited) (?:hp|health|lives)\b"
        rf"|\bset (?:my|the player'?s?) {_STATS}\b|\bgod ?mode\b|\bcheat(?:s|ing)? (?:code|mode)\b"
        r"|\bmake me (?:rich|immortal|invincible|a god)\b")),
    ("victory", re.compile(
        r"^i (?:just )?win\b|\bi win the game\b|\bwin the game\b|\bend the game\b|\bbeat the game\b"
        r"|\bi (?:am|become) (?:now )?(?:the )?(?:king|queen|emperor|empress|god|"
        r"ruler|immortal|invincible)\b|\b(?:everyone|everybody|all of them) (?:dies|die|drops? dead|obeys? me)\b")),
]


def wish(text: str) -> Wish | None:
    """The kind of impossible request ``text`` (normalised, lower case) makes, or None for an ordinary action."""
    for kind, pattern in WISHES:
        if pattern.search(text):
            return kind
    return None
