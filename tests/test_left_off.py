""""Where you left off", after /undo, /switch or a resume, quotes what happened on the last turn, not one of the
offline narrator's asides about how the player went about it (found playing: "Where you left off: You keep the
conversation going.")."""

from __future__ import annotations

from skald.engine import Engine
from skald.llm.offline import left_off, texture
from skald.llm.offline import phrases as ph
from skald.packs.loader import load_pack

ASIDES = [ph.AGAIN["DIALOGUE_ONLY"][0], ph.TONE_LINES["INVESTIGATE"][2]]


def test_the_outcome_is_quoted_not_the_asides_around_it():
    told = ["The heat sits on your shoulders like a second pack.", *ASIDES,
            "Asked about the water, Hesper Quill tells you about the job."]
    assert left_off(told) == "Asked about the water, Hesper Quill tells you about the job."
    assert left_off([ASIDES[1], "You find something: a cash tin.", "You pocket it."]) == \
        "You find something: a cash tin."
    filled = ph.TONE_AT["INVESTIGATE"][0].format(first="Hesper")  # a table sentence with its fields filled in
    assert left_off([filled, "You buy the fungus bun for 3 credits."]) == "You buy the fungus bun for 3 credits."


def test_a_table_sentence_joined_to_the_outcome_does_not_hide_it():
    """Found reviewing: the splitter joins "...water. 15 credits more in your purse." (a sentence opening with a
    number), and the table's "{Money} more in your purse." took the whole as an aside."""
    joined = "You find something: a cash tin and a note about short water. 15 credits more in your purse."
    assert left_off([joined, "Hesper laughs."]) == joined


def test_the_packs_scenery_is_not_what_happened():
    scenery = texture(load_pack("cinder_reach"))
    detail = "The stools are bolted to the floor, and a few have been unbolted and bolted back somewhere better."
    assert detail in scenery
    assert left_off([detail, ASIDES[0], "Hesper Quill tells you about the job."], scenery) == \
        "Hesper Quill tells you about the job."


def test_a_models_prose_keeps_its_first_sentence_in_the_second_person():
    assert left_off(["Rain.", "You stand in the bar while ash turns the light to rust.", "You nod."]) == \
        "You stand in the bar while ash turns the light to rust."
    assert left_off(ASIDES) == ASIDES[0]  # nothing else was told: the first of them
    assert left_off([]) is None


def test_undo_says_where_you_left_off_in_what_happened(tmp_path, offline_llm):
    engine = Engine(tmp_path / "g.db", llm=offline_llm, retriever=None)
    cid = engine.create_campaign("cinder_reach", seed=1).state.campaign.id
    for line in ("talk to Hesper", "what do you want?", "ask about the water", "look around"):
        engine.play_turn(cid, line)
    said = engine.undo(cid).view.text
    quoted = said.split("Where you left off: ", 1)[1].split("\n", 1)[0]
    assert quoted.startswith("Asked about the water, Hesper Quill tells you about the job")  # was an aside
    engine.close()
