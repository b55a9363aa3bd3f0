"""The game's shared vocabulary: the one place each enum is defined.

Rules, era packs, the state, the API's models and the CLI all import these; nothing keeps a copy in step by hand.
A designer may name the action classes in :data:`DESIGNER_ACTIONS` (every class but the engine's internal META and
RECOVER) and, for companion tastes, those plus the tones (:data:`TASTES`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

STATS = ("might", "agility", "wits", "presence")  # ability scores, d20 SRD scale (10 is average)


class Intent(StrEnum):
    """What the router decided the input is: an out-of-game command, pure dialogue, or an action."""

    META = "META"
    TALK = "TALK"
    ACTION = "ACTION"


class ActionClass(StrEnum):
    """The kind of action a turn resolves; it picks the resolver, the ability score and the time cost."""

    META = "META"
    DIALOGUE_ONLY = "DIALOGUE_ONLY"
    PERSUADE = "PERSUADE"
    DECEIVE = "DECEIVE"
    INTIMIDATE = "INTIMIDATE"
    RECRUIT = "RECRUIT"
    ATTACK = "ATTACK"
    SNEAK = "SNEAK"
    INVESTIGATE = "INVESTIGATE"
    TRAVEL = "TRAVEL"
    INTERACT = "INTERACT"
    BUY = "BUY"
    SELL = "SELL"
    GIVE = "GIVE"
    USE_ITEM = "USE_ITEM"
    REST = "REST"
    RECOVER = "RECOVER"


class Outcome(StrEnum):
    """The result of a check; NO_ROLL when the action needed none."""

    CRITICAL_SUCCESS = "CRITICAL_SUCCESS"
    SUCCESS = "SUCCESS"
    FAILURE = "FAILURE"
    CRITICAL_FAILURE = "CRITICAL_FAILURE"
    NO_ROLL = "NO_ROLL"

    @property
    def succeeded(self) -> bool:
        return self in (Outcome.CRITICAL_SUCCESS, Outcome.SUCCESS, Outcome.NO_ROLL)


# Risk and Tone carry no docstring: their JSON schema goes to the suggestion refiner model as it is.
class Risk(StrEnum):  # risk tier of an action or a route: it sets the DC (rules.dc) and what a failure costs
    SAFE = "SAFE"
    RISKY = "RISKY"
    DANGEROUS = "DANGEROUS"


class Tone(StrEnum):  # the four suggestion tones, always offered in this order
    PARAGON = "PARAGON"
    INVESTIGATE = "INVESTIGATE"
    RENEGADE = "RENEGADE"
    NEUTRAL = "NEUTRAL"


class ArcStage(StrEnum):
    SETUP = "SETUP"
    RISING = "RISING"
    CLIMAX = "CLIMAX"
    RESOLUTION = "RESOLUTION"


class QuestStatus(StrEnum):
    OFFERED = "offered"  # its giver told the player of it; saying yes to them (or doing its first step) takes it up
    ACTIVE = "active"
    COMPLETED = "completed"


INTERNAL_ACTIONS = frozenset({ActionClass.META, ActionClass.RECOVER})
DESIGNER_ACTIONS: tuple[str, ...] = tuple(a.value for a in ActionClass if a not in INTERNAL_ACTIONS)
TASTES: tuple[str, ...] = tuple(t.value for t in Tone) + tuple(a for a in DESIGNER_ACTIONS if a not in Tone.__members__)

# Literal types for pack models, built from the enums above (a typo in a pack is a validation error naming the
# allowed values, as pydantic reports a Literal).
ActionName = Literal[DESIGNER_ACTIONS]  # type: ignore[valid-type]
Taste = Literal[TASTES]  # type: ignore[valid-type]
