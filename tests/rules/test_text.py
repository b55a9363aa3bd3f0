"""How names and nouns read in running prose (``skald.text``)."""

from __future__ import annotations

import pytest
from skald.text import place_at_start, the_place, with_article


@pytest.mark.parametrize(("name", "inside", "opening"), [
    ("The Slag & Lantern", "the Slag & Lantern", "The Slag & Lantern"),
    ("Hall of the Ninth Shift", "the Hall of the Ninth Shift", "The Hall of the Ninth Shift"),
    ("Kettle Row", "Kettle Row", "Kettle Row"),
    ("Shaft Seven", "Shaft Seven", "Shaft Seven"),
    ("A Quiet Cove", "a Quiet Cove", "A Quiet Cove"),
    ("Slagside", "Slagside", "Slagside"),
    ("Order of Ash", "the Order of Ash", "The Order of Ash"),
])
def test_place_names_read_right_inside_and_at_the_start_of_a_sentence(name, inside, opening):
    assert the_place(name) == inside
    assert place_at_start(name) == opening


def test_with_article_reads_the_sound():
    assert with_article("ore sample") == "an ore sample"
    assert with_article("union steward") == "a union steward"
    assert with_article("honest broker") == "an honest broker"
    assert with_article("the See") == "the See"


@pytest.mark.parametrize(("name", "plural"), [
    ("smoked eel", "smoked eels"), ("flask of lamp oil", "flasks of lamp oil"), ("ash goggles", "ash goggles"),
    ("torch", "torches"), ("berry", "berries"), ("day", "days")])
def test_a_things_plural_makes_its_head_word_plural(name, plural):
    from skald.text import plural_of

    assert plural_of(name) == plural
