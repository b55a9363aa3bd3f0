"""How a person feels about the player right now: their pack disposition, moved by the player's reputation with
their faction and by their own attitude toward the player (``rules.feelings``). Thresholds are Skald's own:
reputation >= 5 makes them one step friendlier, <= -5 one step colder (reputation runs -10..10); so does an attitude
>= 4 or <= -4 (attitude runs -10..10). Companions in the party are always friendly."""

from __future__ import annotations

from skald.core.persistent import PersistentState
from skald.core.records import PresentNpc
from skald.rules.feelings import COLDER_AT as FELT_COLD
from skald.rules.feelings import WARMER_AT as FELT_WARM
from skald.rules.feelings import attitude_of

ORDER = ("hostile", "wary", "neutral", "friendly")
WARMER_AT, COLDER_AT = 5, -5


def attitude(person: PresentNpc, state: PersistentState) -> str:
    """One of ``hostile``, ``wary``, ``neutral``, ``friendly``."""
    step = ORDER.index(person.disposition) if person.disposition in ORDER else ORDER.index("neutral")
    if person.faction:
        rep = state.reputation.get(person.faction, 0)
        step += 1 if rep >= WARMER_AT else -1 if rep <= COLDER_AT else 0
    if not person.companion:
        felt = attitude_of(state, person.id)
        step += 1 if felt >= FELT_WARM else -1 if felt <= FELT_COLD else 0
    return ORDER[max(0, min(len(ORDER) - 1, step))]


def hostile_here(people: list[PresentNpc], state: PersistentState) -> list[PresentNpc]:
    """The people on stage who would fight the player (companions never)."""
    return [p for p in people if not p.companion and attitude(p, state) == "hostile"]
