"""Game time: minutes since day 1, 00:00. Time costs per action class are Skald's own table."""

from __future__ import annotations

from skald.core.vocab import ActionClass

MINUTES_PER_DAY = 1440

# Minutes per action class (Skald's own table). TRAVEL takes its route's minutes and RECOVER the pack's defeat rule.
TIME_COST: dict[ActionClass, int] = {
    ActionClass.DIALOGUE_ONLY: 8,
    ActionClass.PERSUADE: 10,
    ActionClass.DECEIVE: 10,
    ActionClass.INTIMIDATE: 5,
    ActionClass.RECRUIT: 10,
    ActionClass.ATTACK: 5,
    ActionClass.SNEAK: 10,
    ActionClass.INVESTIGATE: 15,
    ActionClass.INTERACT: 10,
    ActionClass.BUY: 10,
    ActionClass.SELL: 10,
    ActionClass.GIVE: 5,
    ActionClass.USE_ITEM: 5,
    ActionClass.REST: 240,
    ActionClass.META: 0,
}


def time_cost(action_class: ActionClass | str) -> int:
    """Minutes an action of this class takes.

    :raises ValueError: not an action class (a misspelt ``"ATACK"`` is an error, never a default cost), or one
        without a fixed cost (TRAVEL takes its route's minutes, RECOVER the pack's defeat rule).
    """
    action = ActionClass(action_class)
    if action not in TIME_COST:
        raise ValueError(f"{action.value} has no fixed time cost: travel takes its route's minutes and recovery the "
                         "pack's defeat rule")
    return TIME_COST[action]


def day_of(minutes: int) -> int:
    return minutes // MINUTES_PER_DAY + 1


def clock_text(minutes: int, day_names: list[str] | tuple[str, ...] = ()) -> str:
    """``"day 2, 14:05"``, or with the pack's calendar day names ``"Ashday (day 2), 14:05"``."""
    within = minutes % MINUTES_PER_DAY
    day = day_of(minutes)
    label = f"{day_names[(day - 1) % len(day_names)]} (day {day})" if day_names else f"day {day}"
    return f"{label}, {within // 60:02d}:{within % 60:02d}"


def time_of_day(minutes: int) -> str:
    """night (22-05), dawn (05-08), morning (08-12), afternoon (12-17), evening (17-22)."""
    hour = (minutes % MINUTES_PER_DAY) // 60
    if hour < 5 or hour >= 22:
        return "night"
    if hour < 8:
        return "dawn"
    if hour < 12:
        return "morning"
    if hour < 17:
        return "afternoon"
    return "evening"


def ticks_crossed(before: int, after: int, tick_minutes: int) -> list[int]:
    """Indices of the world ticks whose boundary lies in (before, after]."""
    return list(range(before // tick_minutes + 1, after // tick_minutes + 1))
