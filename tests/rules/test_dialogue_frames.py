"""A scene line woven into offline prose always carries its words: no sentence of it is only "X says to Y in an
even voice." once the prose is split into sentences (what the variety checks and a reader see)."""

from __future__ import annotations

import pytest
from skald.core.persistent import SceneLine
from skald.llm.offline.dialogue import TO_OTHER, TO_ROOM, TO_YOU, woven
from skald.text import sentences

NAMES = {"hesper_quill": "Hesper Quill", "rhea_calloway": "Rhea Calloway"}


@pytest.mark.parametrize("target", ["player", "rhea_calloway", None])
@pytest.mark.parametrize("pick", range(4))
def test_every_sentence_of_a_woven_line_holds_its_words(target, pick):
    line = SceneLine(beat=1, speaker="hesper_quill", name="Hesper Quill", target=target, action="speak",
                     tone="even", content="I charge him double. He pays.")
    told = woven(line, NAMES, pick)
    assert "I charge him double. He pays." in told
    assert all('"' in sentence for sentence in sentences(told)), told


def test_the_words_come_after_who_says_them_in_every_frame():
    assert all(frame.rstrip(".").endswith('"{words}"') for frame in (*TO_YOU, *TO_OTHER, *TO_ROOM))
