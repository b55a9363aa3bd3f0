"""Game time: minutes since day 1, 00:00. Time costs per action class are Skald's own table."""

from __future__ import annotations

MINUTES_PER_DAY = 1440

TIME_COST = {
    "DIALOGUE_ONLY": 8,
    "PERSUADE": 10,
    "DECEIVE": 10,
    "INTIMIDATE": 5,
    "RECRUIT": 10,
    "ATTACK": 5,
    "SNEAK": 10,
    "INVESTIGATE": 15,
    "INTERACT": 10,
    "BUY": 10,
    "USE_ITEM": 5,
    "REST": 240,
    "META": 0,
}


def time_cost(action_class: str) -> int:
    """Minutes an action of this class takes (travel takes its link's minutes instead)."""
    return TIME_COST.get(action_class, 10)


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
