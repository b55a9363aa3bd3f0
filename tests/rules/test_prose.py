"""Narration post-processing and the validator's checks: no option lists, bounded length, no absent names."""

from __future__ import annotations

import pytest
from skald.core import events as ev
from skald.core.records import MechanicResult, PresentNpc
from skald.core.vocab import ActionClass, Outcome, Risk
from skald.rules.prose import (
    MAX_SENTENCES,
    MAX_WORDS,
    clean_narration,
    invented_names,
    missing_facts,
    outcome_conflicts,
    outcome_facts,
    sentences,
    unknown_names,
)

PROSE = ("You push through the door of the bar. Heat rolls off the rock wall. Hesper Quill wipes a glass and "
         "watches you. The shift board flickers green over the door. Somebody laughs too loud in the back.")


def test_clean_prose_passes_untouched():
    text, warnings = clean_narration(PROSE)
    assert text == PROSE
    assert warnings == []


@pytest.mark.parametrize("options", [
    "1. Talk to Hesper\n2. Leave the bar\n3) Order a drink",
    "- Talk to Hesper\n- Leave the bar",
    "* Talk to Hesper\n* Leave the bar",
    "\u2022 Talk to Hesper\n\u2022 Leave the bar",
    "a) Talk to Hesper\nb) Leave the bar",
])
def test_option_lists_are_stripped(options):
    text, warnings = clean_narration(PROSE + "\n\n" + options)
    assert text == PROSE
    assert "Hesper\n" not in text and "Leave the bar" not in text
    assert "narrator: removed an option list" in warnings


@pytest.mark.parametrize("section", [
    "What do you do?\n1. Talk\n2. Fight",
    "What do you do?",
    "Options:\nTalk to Hesper, or leave.",
    "**Options:** talk or leave",
    "## Choices\nTalk or leave.",
    "OOC: the player should roll.",
    "Suggested actions: talk, leave",
    "Status: HP 15/15",
])
def test_meta_sections_are_stripped(section):
    text, warnings = clean_narration(PROSE + "\n\n" + section)
    assert text == PROSE
    assert "narrator: removed a meta-game section" in warnings


def test_what_do_you_do_at_the_end_of_a_paragraph_is_stripped():
    text, warnings = clean_narration(PROSE + " What do you do?")
    assert text == PROSE
    assert warnings


@pytest.mark.parametrize("line", [
    "Notebooks lie open on the desk, their pages grey with ash.",
    "Stationery is stacked in a crate by the door.",
    "Optional overtime is chalked on the board in red.",
    "Choicest cuts of fungus sizzle on the grill.",
])
def test_ordinary_prose_starting_like_a_heading_is_kept(line):
    text, warnings = clean_narration(PROSE + "\n\n" + line + " You keep walking.")
    assert text == PROSE + " " + line + " You keep walking."
    assert warnings == []


def test_long_prose_is_cut_to_eight_sentences_with_a_warning():
    long = " ".join(f"You take step number {i} across the gritty floor." for i in range(1, 15))
    text, warnings = clean_narration(long)
    assert len(sentences(text)) == MAX_SENTENCES
    assert text.endswith("step number 8 across the gritty floor.")
    assert any("cut prose" in w for w in warnings)


def test_wordy_prose_is_cut_at_a_sentence_boundary_under_250_words():
    sentence = "You walk " + " ".join(["slowly"] * 38) + " past the bar."  # 42 words
    text, warnings = clean_narration(" ".join([sentence] * 7))
    assert len(text.split()) <= MAX_WORDS
    assert text.endswith("past the bar.")
    assert len(sentences(text)) == MAX_WORDS // 42
    assert any("cut prose" in w for w in warnings)


def test_prose_at_the_limits_is_not_cut():
    text = " ".join(f"You count to {i}." for i in range(1, MAX_SENTENCES + 1))
    assert clean_narration(text) == (text, [])


def test_one_sentence_longer_than_the_budget_is_cut_at_a_word():
    text, warnings = clean_narration("You walk " + "and walk " * 200 + "until dawn.")
    assert len(text.split()) <= MAX_WORDS + 1 and text.endswith("...")
    assert any("overlong sentence" in w for w in warnings)


def test_sentences_split_after_quotes():
    assert sentences('Hesper says, "Sit down." You sit. "Good," she adds.') == [
        'Hesper says, "Sit down."', "You sit.", '"Good," she adds.']


# ------------------------------------------------------------------ validator checks


def _present(pack, *ids: str) -> list[PresentNpc]:
    return [PresentNpc(id=i, name=pack.npcs[i].name, role=pack.npcs[i].role, description="") for i in ids]


def test_unknown_names_flags_an_absent_npc(pack):
    text = "Hesper Quill pours you a drink while Silas Mourne watches from the corner."
    assert unknown_names(text, pack, _present(pack, "hesper_quill"), set()) == ["Silas Mourne"]
    assert unknown_names(text, pack, _present(pack, "hesper_quill", "silas_mourne"), set()) == []
    assert unknown_names(text, pack, _present(pack, "hesper_quill"), {"Silas Mourne"}) == []


def test_unknown_names_flags_absent_companions(pack):
    assert unknown_names("Fitch Navarro grins at you.", pack, [], set()) == ["Fitch Navarro"]


def test_invented_names_hint(pack):
    found = invented_names("You meet Varn Oxley and Hesper Quill at the Slag Pit.", {"Hesper Quill"})
    assert "Varn Oxley" in found and "Hesper Quill" not in found


def _result(outcome: Outcome) -> MechanicResult:
    return MechanicResult(action_class=ActionClass.PERSUADE, risk=Risk.RISKY, roll=12, total=14, dc=12,
                          outcome=outcome, minutes=10, summary="x")


def test_outcome_conflicts_flags_failure_prose_on_a_success():
    problems = outcome_conflicts("You fail to convince her, and she turns away.", _result(Outcome.SUCCESS))
    assert len(problems) == 1 and "succeeded" in problems[0]


def test_outcome_conflicts_flags_success_prose_on_a_failure():
    problems = outcome_conflicts("You manage to convince her.", _result(Outcome.FAILURE))
    assert len(problems) == 1 and "failed" in problems[0]


def test_consistent_prose_has_no_conflict():
    assert outcome_conflicts("You manage to convince her.", _result(Outcome.SUCCESS)) == []
    assert outcome_conflicts("You fail to convince her.", _result(Outcome.CRITICAL_FAILURE)) == []
    assert outcome_conflicts("You fail, then you succeed.", _result(Outcome.SUCCESS)) == []  # mixed: no call
    assert outcome_conflicts("You fail.", _result(Outcome.NO_ROLL)) == []  # nothing to contradict


def test_an_impossible_action_told_as_done_is_a_conflict():
    nothing = MechanicResult(action_class=ActionClass.INTERACT, risk=Risk.SAFE, outcome=Outcome.NO_ROLL, minutes=2,
                             summary="Wishing does not fill a purse.", impossible=True)
    for prose in ("You do it. It works.", "You pull it off without a hitch.", "It goes better than you dared hope."):
        assert outcome_conflicts(prose, nothing), prose
    assert outcome_conflicts("Nothing changes; the world carries on.", nothing) == []


def test_the_facts_of_a_turn_are_named_and_checked(pack):
    events = [ev.Damage(amount=3, source="x"), ev.Heal(amount=10, source="rest"), ev.CreditsChange(delta=-12),
              ev.ItemGet(item="patch_kit", qty=1), ev.ItemLose(item="hand_lamp", qty=1)]
    facts = outcome_facts(events, hp=10, max_hp=12, pack=pack)
    assert [f.line for f in facts] == ["You lose 3 HP.", "You get 5 HP back.", "You are 12 credits poorer.",
                                       "You now carry a patch kit.", "The hand lamp is no longer yours."]
    told = "They hurt you for 3. Rest brings back 5 HP. You pay 12 credits for a patch kit and leave the lamp."
    assert missing_facts(told, facts) == []
    assert [f.line for f in missing_facts("You stand there.", facts)] == [f.line for f in facts]
    assert missing_facts("You lose 13 HP.", facts[:1])  # 3 is not 13


def test_a_declared_alias_is_not_an_invented_name():
    """Finding 9: "The See" for the Salt See was flagged; an alias the pack declares is known, one it does not is
    still flagged, and a leading part of a known name is fine."""
    known = {"The Salt See", "the See", "The Slag & Lantern"}
    assert invented_names("The See sends its reeves. The Slag is loud tonight.", known) == []
    assert invented_names("The See sends its reeves.", known - {"the See"}) == ["The See"]


def test_a_description_told_inside_an_introduction_is_not_told_again_within_fifteen_turns(state):
    """``told`` keeps what follows a colon as a sentence too, so "You meet Pim Oakes, the linkboy: a skinny boy..."
    counts as his description told, for 15 story turns (``DESCRIBED_TURNS``), long after ``recent`` forgot it."""
    from skald.rules.prose import DESCRIBED_TURNS, described_lately
    from skald.text import told_keys

    description = "A skinny boy of twelve with a lantern on a pole. He lights people home for a quarter-grey."
    intro = "You meet Pim Oakes, the linkboy: a skinny boy of twelve with a lantern on a pole."
    quiet = [[1], [2]]
    at = state.model_copy(update={"told": [told_keys(intro), *quiet * 5]})
    assert described_lately(description, at) and not at.recent
    later = state.model_copy(update={"told": [told_keys(intro), *quiet * DESCRIBED_TURNS]})
    assert not described_lately(description, later)


def test_a_title_and_surname_the_pack_uses_is_a_known_name(pack):
    from skald.packs.loader import load_pack
    from skald.rules.prose import pack_names

    salt = load_pack("saltmarsh_reach")
    assert not invented_names("Provost Wexcombe takes a tenth of every sack.", pack_names(salt))
    assert invented_names("Provost Hargreave takes a tenth of every sack.", pack_names(salt))


def test_a_name_the_pack_uses_in_a_possessive_is_a_known_name():
    """"The Hulk" is named by the pack's own hazard "The Hulk's Mastiffs": the validator does not call it invented."""
    from skald.packs.loader import load_pack
    from skald.rules.prose import pack_names

    salt = load_pack("saltmarsh_reach")
    assert not invented_names("The Hulk looms out of the fog.", pack_names(salt))
    assert invented_names("The Tower looms out of the fog.", pack_names(salt))
