"""The narrator's reply split at its [ACTIONS] line (llm.tail): the player is shown the prose and never the actions,
however the marker arrives, and the four labels are read however a small model numbers and dresses them."""

from __future__ import annotations

import pytest
from skald.llm import tail

PROSE = "The bar is loud. Hesper nods at the empty stool. Somewhere a lift cable sings."
ACTIONS = "1. Ask Hesper about the water\n2. Look around the bar\n3. Demand a name from Hesper\n4. Buy a drink"


def streamed(text: str, size: int) -> tuple[str, tail.Splitter]:
    splitter = tail.Splitter()
    shown = "".join(splitter.feed(text[i:i + size]) for i in range(0, len(text), size))
    return shown + splitter.close(), splitter


@pytest.mark.parametrize("marker", ["[ACTIONS]", "**[ACTIONS]**", "## Actions", "ACTIONS:", "[actions]",
                                    "**Suggested actions:**"])
@pytest.mark.parametrize("size", [1, 3, 7, 1000])
def test_the_prose_is_passed_on_and_the_actions_kept_apart_however_the_marker_is_written(marker, size):
    shown, splitter = streamed(f"{PROSE}\n\n{marker}\n{ACTIONS}\n", size)
    assert shown.strip() == PROSE
    assert splitter.found and tail.actions(splitter.tail) == [
        "Ask Hesper about the water", "Look around the bar", "Demand a name from Hesper", "Buy a drink"]


def test_a_marker_at_the_end_of_a_paragraph_is_found_too():
    shown, splitter = streamed(f"{PROSE} [ACTIONS]\n{ACTIONS}", 2)
    assert shown.strip() == PROSE and tail.actions(splitter.tail) is not None


def test_prose_that_only_looks_like_the_start_of_a_marker_is_passed_on_whole():
    text = f"{PROSE}\nActions speak louder than scrip here. [A]t least the fan still turns."
    shown, splitter = streamed(text, 1)
    assert shown == text and not splitter.found and splitter.tail == ""


def test_nothing_is_held_back_longer_than_a_line_that_may_become_the_marker():
    splitter = tail.Splitter()
    assert splitter.feed("The bar is loud. ") == "The bar is loud. "
    assert splitter.feed("\n[ACT") == "\n"  # the line that may be the marker is held
    assert splitter.feed("ION") == ""
    assert splitter.feed("S]\n1. Go") == ""
    assert splitter.found and splitter.tail == "\n1. Go"


@pytest.mark.parametrize("lines, expected", [
    ('1) "Ask Hesper" \n2) **Look around**\n3) Demand a name (RENEGADE)\n4) Buy a drink.',
     ["Ask Hesper", "Look around", "Demand a name", "Buy a drink"]),
    ("- 1. Ask\n- 2. Look\n- 3. Demand\n- 4. Buy", ["Ask", "Look", "Demand", "Buy"]),
    ("1. Buy a rebreather (40 credits)\n2. b\n3. c\n4. d", ["Buy a rebreather (40 credits)", "b", "c", "d"]),
])
def test_the_labels_are_read_however_they_are_numbered_and_dressed(lines, expected):
    assert tail.actions(lines) == expected


@pytest.mark.parametrize("lines", ["1. a\n2. b\n3. c", "1. a\n2. b\n3. c\n3. d", "1. a\n2. b\n4. c\n5. d", "",
                                   "1. a\n2. \n3. c\n4. d", "Sure! Here are some ideas."])
def test_anything_but_four_numbered_labels_is_none(lines):
    assert tail.actions(lines) is None
