"""Game time: action costs, day numbers, clock text, time of day and world-tick boundaries."""

from __future__ import annotations

import pytest
from skald.rules import clock


def test_time_costs_per_action_class():
    assert clock.time_cost("DIALOGUE_ONLY") == 8
    assert clock.time_cost("INVESTIGATE") == 15
    assert clock.time_cost("REST") == 240
    assert clock.time_cost("META") == 0
    with pytest.raises(ValueError, match="ATACK"):
        clock.time_cost("ATACK")  # a misspelt class is an error, never a default cost
    with pytest.raises(ValueError, match="route"):
        clock.time_cost("TRAVEL")


@pytest.mark.parametrize("minutes, day", [(0, 1), (1439, 1), (1440, 2), (2 * 1440 + 5, 3)])
def test_day_of(minutes, day):
    assert clock.day_of(minutes) == day


@pytest.mark.parametrize("minutes, text", [(0, "day 1, 00:00"), (480, "day 1, 08:00"), (1440 + 14 * 60 + 5,
                                                                                       "day 2, 14:05")])
def test_clock_text(minutes, text):
    assert clock.clock_text(minutes) == text


@pytest.mark.parametrize("hour, name", [(0, "night"), (4, "night"), (5, "dawn"), (7, "dawn"), (8, "morning"),
                                        (11, "morning"), (12, "afternoon"), (16, "afternoon"), (17, "evening"),
                                        (21, "evening"), (22, "night"), (23, "night")])
def test_time_of_day_boundaries(hour, name):
    assert clock.time_of_day(hour * 60) == name
    assert clock.time_of_day(3 * 1440 + hour * 60 + 59) == name  # any day, any minute of the hour


def test_ticks_crossed():
    assert clock.ticks_crossed(480, 490, 240) == []
    assert clock.ticks_crossed(480, 720, 240) == [3]  # the boundary itself counts, (before, after]
    assert clock.ticks_crossed(719, 720, 240) == [3]
    assert clock.ticks_crossed(720, 721, 240) == []  # already past that boundary
    assert clock.ticks_crossed(480, 480 + 3 * 240, 240) == [3, 4, 5]
