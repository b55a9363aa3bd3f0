"""The offline ``character`` role (``llm.offline.characters.line``) and the scene lines woven into prose
(``llm.offline.dialogue``): deterministic tag lines the parser reads cleanly, answering whoever spoke to them since
the player did, silence when nothing is left to say; prose that keeps every line's words verbatim."""

from __future__ import annotations

import pytest
from skald.core.persistent import SceneLine
from skald.core.records import CharacterTask, SceneUpdate, VoiceSheet
from skald.llm.offline.characters import SHORT_REPLIES, line
from skald.llm.offline.dialogue import how, woven
from skald.packs.loader import get_pack
from skald.rules import voice_sheet
from skald.rules.moderator import PASSIVE, resolve
from skald.rules.start import new_state
from skald.rules.tag_line import parse

PLAYER = "Wren Vale"
HESPER, TOBIN, INES = "hesper_quill", "tobin_marsh", "ines_rourke"
NAMES = {HESPER: "Hesper Quill", TOBIN: "Tobin Marsh", INES: "Ines Rourke"}
TOBIN_LINES = ["The drills out past the flats are not dead.", "Nobody asked the Charter.", "I've seen worse shifts.",
               "Never trust a claim beacon you did not plant yourself."]


def sheet(lines: list[str] = TOBIN_LINES, **fields) -> VoiceSheet:
    return VoiceSheet(id=TOBIN, name="Tobin Marsh", role="driller", personality="blunt", background="Works the deep "
                      "drills.", lines=list(lines), **fields)


def said(speaker: str, content: str, target: str | None = None, beat: int = 1, action: str = "speak") -> SceneLine:
    name = PLAYER if speaker == "player" else NAMES.get(speaker, speaker)
    return SceneLine(beat=beat, speaker=speaker, name=name, target=target, action=action, content=content)


ON_TOPIC = "So what about the drills, the Charter, the bad shifts and that claim beacon?"  # every one of Tobin's lines


def player(content: str = ON_TOPIC, beat: int = 1) -> SceneLine:
    return said("player", content, target="all", beat=beat, action="player")


def task(transcript: list[SceneLine], *, who: VoiceSheet | None = None, seed: int = 7, turn: int = 3, beat: int = 1,
         note: str | None = None, last_event: str | None = None) -> CharacterTask:
    who = who or sheet()
    return CharacterTask(sheet=who, update=SceneUpdate(scene_context="Scene goal: settle the tab.", beat=beat,
                                                       transcript=transcript, moderator_note=note,
                                                       last_event=last_event),
                         seed=seed, turn=turn, player=PLAYER, others={k: v for k, v in NAMES.items() if k != who.id})


def replies(transcript: list[SceneLine], **kw):
    """The parsed replies over a spread of seeds, turns and beats."""
    for seed in range(1, 6):
        for turn in range(1, 5):
            for beat in range(1, 4):
                raw = line(task(transcript, seed=seed, turn=turn, beat=beat, **kw))
                yield raw, parse(raw, "Tobin Marsh")


# --- line -----------------------------------------------------------------------------------------------------------


def test_the_same_task_gives_the_same_line():
    for transcript in ([player()], [player(), said(HESPER, "Tell them, Tobin.", TOBIN)]):
        for seed in range(10):
            one = task(transcript, seed=seed)
            two = task(transcript, seed=seed)
            assert line(one) == line(one) == line(two)


def test_the_line_varies_with_the_seed_turn_or_beat():
    got = {raw for raw, _ in replies([player()])}
    assert len(got) >= 3


def test_every_line_parses_without_warnings():
    transcripts = [[player()], [player(), said(HESPER, "Tell them, Tobin.", TOBIN)],
                   [player(), said(INES, "Leave me out of it.", "all")], []]
    for transcript in transcripts:
        for raw, reply in replies(transcript):
            assert reply.warnings == (), raw
            assert reply.action in ("speak", "react", "silent"), raw  # never an interruption


def test_shipped_characters_lines_parse_cleanly_and_are_said_whole():
    pack = get_pack("cinder_reach")
    state = new_state(pack, seed=3)
    people = [*pack.npcs, *pack.companions]
    for cid in people:
        who = voice_sheet.sheet(cid, state, pack)
        own = {" ".join(x.split()) for x in who.lines}
        for seed in range(1, 8):
            raw = line(CharacterTask(sheet=who, update=SceneUpdate(scene_context="c", beat=1, transcript=[player()]),
                                     seed=seed, turn=seed, player=PLAYER))
            reply = parse(raw, who.name)
            assert reply.warnings == (), raw
            if reply.action == "speak":
                assert reply.content in own | set(SHORT_REPLIES), raw  # one of their own lines, verbatim, or short


def test_a_character_spoken_to_since_the_player_answers_that_character():
    transcript = [player(), said(HESPER, "Tell them about the tab, Tobin.", TOBIN),
                  said(INES, "Leave me out of it.", "all")]
    for raw, reply in replies(transcript):
        assert reply.action == "speak", raw
        assert reply.target == "Hesper Quill", raw
        assert resolve(reply.target, NAMES, PLAYER) == HESPER
        assert any(x in reply.content for x in TOBIN_LINES + [x[0].lower() + x[1:] for x in TOBIN_LINES]), raw


def test_a_character_answers_the_last_other_voice_when_nobody_spoke_to_them():
    transcript = [player(), said(HESPER, "Ask someone else.", "player"), said(INES, "Not me.", "player")]
    for raw, reply in replies(transcript):
        assert reply.target == "Ines Rourke", raw


def test_a_line_said_to_everyone_is_not_said_to_them_by_name():
    """Only a line said to them by name is answered before the rest: after Hesper's word to the room and Ines's to
    the player, the last other voice (Ines) is the one answered."""
    transcript = [player(), said(HESPER, "Drink up, all of you.", "all"), said(INES, "Not me.", "player")]
    for raw, reply in replies(transcript):
        assert reply.target == "Ines Rourke", raw


def test_with_only_the_players_line_they_answer_the_player():
    for raw, reply in replies([player()]):
        assert reply.action == "speak", raw
        assert reply.target == PLAYER, raw
        assert resolve(reply.target, NAMES, PLAYER) == "player"
        assert reply.content in TOBIN_LINES, raw


def test_lines_before_the_players_last_words_do_not_count():
    transcript = [player("Hello.", beat=1), said(HESPER, "Tell them, Tobin.", TOBIN, beat=1),
                  player("Never mind her. What about the drills?", beat=2)]
    for raw, reply in replies(transcript):
        assert reply.target == PLAYER, raw


def test_a_line_already_said_is_not_said_again():
    transcript = [player(), said(TOBIN, TOBIN_LINES[0], "player"), said(TOBIN, TOBIN_LINES[1], "player")]
    for raw, reply in replies(transcript):
        assert reply.content in TOBIN_LINES[2:], raw


def test_with_nothing_on_the_topic_they_answer_short_when_asked_and_keep_out_of_it_otherwise():
    """People do not recite their favourite lines whatever was asked: off the topic, a short answer to whoever asked
    them, or nothing, so that a beat can stall and the scene's world events come."""
    asked = [said("player", "Tobin, what do you make of the weather?", TOBIN, action="player")]
    for raw, reply in replies(asked):
        assert reply.action == "speak" and reply.target == PLAYER and reply.content not in TOBIN_LINES, raw
        assert len(reply.content.split()) <= 4, raw
    overheard = [player("Hesper, how much for the stew?"), said(HESPER, "Four credits, same as always.", "player")]
    for raw, reply in replies(overheard):
        assert reply.action == "silent", raw
    nudged = list(replies(overheard, note=PASSIVE))  # told to speak by the moderator: a word, no recital
    assert all(r.action == "speak" and r.content in SHORT_REPLIES for _, r in nudged)


def test_with_no_lines_left_to_say_they_keep_silent():
    transcript = [player(), *(said(TOBIN, x, "player") for x in TOBIN_LINES)]
    for raw, reply in replies(transcript):
        assert reply.action == "silent", raw
        assert reply.content == "" and reply.nonverbal
        assert raw.startswith("[SILENT")
    for raw, reply in replies([player()], who=sheet(lines=[])):
        assert reply.action == "silent", raw


def test_a_passive_note_makes_them_repeat_a_line_rather_than_keep_silent():
    transcript = [player(), *(said(TOBIN, x, "player") for x in TOBIN_LINES)]
    for raw, reply in replies(transcript, note=PASSIVE):
        assert reply.action == "speak", raw
        assert reply.content in TOBIN_LINES


def test_right_after_a_world_event_some_react_to_it():
    got = [reply for _, reply in replies([player()], last_event="A glass breaks.")]
    reacts = [r for r in got if r.action == "react"]
    assert reacts and len(reacts) < len(got)
    assert all(r.tone == "startled" and r.nonverbal and r.content == "" for r in reacts)


def test_the_tone_to_the_player_follows_their_mood():
    for mood, tone in (("angry", "sharp"), ("pleased", "warm"), ("afraid", "nervous")):
        for raw, reply in replies([player()], who=sheet(mood=mood)):
            assert reply.tone == tone, raw
    for raw, reply in replies([player()], who=sheet(attitude=-6)):
        assert reply.tone == "cold", raw


def test_a_sample_line_wrapped_over_two_lines_is_said_whole():
    wrapped = "The See pays for oil. The See pays late,\nand short, and wet."
    for raw, reply in replies([player("Who pays for the oil round here?")], who=sheet(lines=[wrapped])):
        assert reply.content == "The See pays for oil. The See pays late, and short, and wet.", raw


# --- woven and how --------------------------------------------------------------------------------------------------


LINES = [
    SceneLine(beat=1, speaker=HESPER, name="Hesper Quill", target=TOBIN, tone="dry", content="You owe me, Tobin.",
              nonverbal="sets down a glass"),
    SceneLine(beat=1, speaker=TOBIN, name="Tobin Marsh", target=HESPER, tone="sharp", content="I owe nobody."),
    SceneLine(beat=1, speaker=INES, name="Ines Rourke", target="player", tone="quietly", content="And you, stranger?"),
    SceneLine(beat=1, speaker=TOBIN, name="Tobin Marsh", target=None, tone="even", content="Drink up, everyone."),
    SceneLine(beat=1, speaker=HESPER, name="Hesper Quill", action="interrupt", after="x", tone="sharp",
              content="Enough of that."),
]


@pytest.mark.parametrize("pick", range(6))
def test_woven_keeps_each_lines_words_verbatim_in_quotes(pick):
    for scene_line in LINES:
        text = woven(scene_line, NAMES, pick)
        assert f'"{scene_line.content}"' in text
        assert text.count('"') == 2


def test_woven_names_people_in_full_once_then_by_first_name():
    named: set[str] = set()
    first = woven(LINES[0], NAMES, 0, named)
    assert "Hesper Quill" in first and "Tobin Marsh" in first
    assert named == {HESPER, TOBIN}
    second = woven(LINES[1], NAMES, 0, named)
    assert "Tobin" in second and "Hesper" in second
    assert "Tobin Marsh" not in second and "Hesper Quill" not in second
    third = woven(LINES[2], NAMES, 0, named)
    assert "Ines Rourke" in third and " you" in third
    assert named == {HESPER, TOBIN, INES}
    fresh = woven(LINES[1], NAMES, 0)  # no shared set: full names again
    assert "Tobin Marsh" in fresh


def test_woven_reactions_and_events():
    react = SceneLine(beat=1, speaker=TOBIN, name="Tobin Marsh", action="react", nonverbal="ducks.")
    assert woven(react, NAMES) == "Tobin Marsh ducks."
    bare = SceneLine(beat=1, speaker=TOBIN, name="Tobin Marsh", action="react")
    assert woven(bare, NAMES) == "Tobin Marsh reacts without a word."
    event = SceneLine(beat=1, speaker="event", name="event", action="event", content="The lights flicker")
    assert woven(event, NAMES) == "The lights flicker."


@pytest.mark.parametrize(("tone", "expected"), [
    ("dry", "in a dry voice"), ("quietly", "quietly"), ("angry", "in an angry voice"), ("  icy.  ", "in an icy voice"),
    ("in a hurry", "in a hurry"), ("with venom", "with venom"), ("", "plainly"), (None, "plainly"),
])
def test_how(tone, expected):
    assert how(tone) == expected


def test_an_interruption_does_not_read_cuts_in_in():
    assert " in in " not in woven(LINES[4], NAMES, 0)


def test_the_scenes_own_lines_come_first():
    """A character with lines written for the scene (``scenes.yaml`` ``lines``) says those before their own, and
    none twice while others are left."""
    from skald.core.records import CharacterTask, SceneUpdate, VoiceSheet

    topical = ["The tab gets paid before the whistle.", "Rhea, sit down and let me count the barrels."]
    sheet = VoiceSheet(id="hesper_quill", name="Hesper Quill", role="bartender", personality="dry",
                       background="Runs the bar.", lines=[*topical, "Nobody drinks on credit."], scene_lines=topical)
    said: list[str] = []
    for beat in (1, 2):
        update = SceneUpdate(scene_context="Who pays the tab.", beat=beat, transcript=[
            SceneLine(beat=beat, speaker="hesper_quill", name="Hesper Quill", content=x) for x in said])
        task = CharacterTask(sheet=sheet, update=update, seed=3, turn=5, player="Wren",
                             others={"rhea_calloway": "Rhea Calloway"})
        said.append(parse(line(task), "Hesper Quill").content)
    assert all(any(t.rstrip(".").lower() in s.lower() for t in topical) for s in said), said
    assert said[0] != said[1]
