"""The Scene Moderator's rules (``rules.moderator``): the seeded order of a beat's lines, directed replies and
interruptions, the cap on spoken lines, ``resolve``, the moderator's notes, stalls and injected events, scene
openings and goals; and the scene events (``SceneOpened``, ``SceneBeat``, ``SceneClosed``, ``AttitudeChange``) as
they fold into the persistent state."""

from __future__ import annotations

import itertools

import pytest
from skald.core import events as ev
from skald.core.events import fold, limits_of
from skald.core.pack import SceneOpens, SceneSpec
from skald.core.persistent import SCENE_RECENT, SCENES_DONE_KEPT, ActiveScene, Feeling, SceneLine
from skald.core.records import MechanicResult
from skald.core.state import GameState
from skald.core.vocab import ActionClass, Outcome, QuestStatus, Risk
from skald.rules import feelings, intent, moderator
from skald.rules.moderator import PASSIVE, WRAP_UP, event_due, goal_met, notes, order, resolve, stalled
from skald.rules.scene import cast_of
from skald.rules.tag_line import parse

PLAYER = "Wren Vale"
HESPER, TOBIN, INES, PELL = "hesper_quill", "tobin_marsh", "ines_rourke", "pell_adair"
NAMES = {HESPER: "Hesper Quill", TOBIN: "Tobin Marsh", INES: "Ines Rourke"}
PLACE = "slag_and_lantern"


def scene_of(names: dict[str, str] = NAMES, *, scene_id: str = f"talk:{PLACE}:3", played: int = 1,
             max_beats: int = 6, started_turn: int = 0, **fields) -> ActiveScene:
    return ActiveScene(id=scene_id, goal="Settle who pays the tab.", location=PLACE, characters=list(names),
                       started_turn=started_turn, started_minutes=600, beat=played, max_beats=max_beats, **fields)


def run(raw: dict[str, str], *, names: dict[str, str] = NAMES, seed: int = 1, beat: int = 2, cap: int = 4,
        addressed: tuple[str, ...] = (), scene: ActiveScene | None = None):
    """``order`` on the replies ``raw`` (id -> tag line), in the order given."""
    replies = [(cid, parse(text, names[cid])) for cid, text in raw.items()]
    scene = scene or scene_of(names, played=beat - 1)
    return order(replies, scene, names, PLAYER, seed=seed, turn=3, beat=beat, addressed_ids=list(addressed), cap=cap)


def speakers(lines: list[SceneLine]) -> list[str]:
    return [line.speaker for line in lines]


PLAIN = {HESPER: '[TONE: dry] "Somebody owes me for six rounds."',
         TOBIN: '[TONE: even] "Not me. I paid on Tuesday."',
         INES: '[TONE: guarded] "Leave me out of your ledger."'}


# --- order --------------------------------------------------------------------------------------------------------


MIXED = {HESPER: '[TONE: dry] "You will settle the tab tonight, Tobin, all of it."',
         TOBIN: '[INTERRUPT after "the tab", TONE: sharp] "Not in front of the stranger."',
         INES: '[TO: Hesper, TONE: guarded] "Leave him be, Hesper."'}


@pytest.mark.parametrize("raw", [PLAIN, MIXED], ids=["plain", "directed-and-interrupt"])
@pytest.mark.parametrize("seed", [1, 7, 42])
def test_the_order_does_not_depend_on_the_order_replies_arrive_in(raw, seed):
    results = set()
    for perm in itertools.permutations(raw.items()):
        lines, warnings = run(dict(perm), seed=seed)
        results.add((tuple(line.model_dump_json() for line in lines), tuple(warnings)))
    assert len(results) == 1
    (lines_json, _), = results
    assert len(lines_json) == 3


def test_the_same_seed_gives_the_same_order():
    assert run(PLAIN, seed=5) == run(PLAIN, seed=5)


def test_different_seeds_can_give_different_orders():
    orders = {seed: tuple(speakers(run(PLAIN, seed=seed)[0])) for seed in range(40)}
    assert len(set(orders.values())) >= 2
    a, b = next((a, b) for a, b in itertools.combinations(orders, 2) if orders[a] != orders[b])
    assert speakers(run(PLAIN, seed=a)[0]) != speakers(run(PLAIN, seed=b)[0])
    for seed in orders:  # every order is a full permutation of the three
        assert sorted(orders[seed]) == sorted(NAMES)


def test_the_order_also_depends_on_the_beat_and_turn_not_only_the_seed():
    by_beat = {tuple(speakers(run(PLAIN, seed=3, beat=b)[0])) for b in range(2, 30)}
    assert len(by_beat) >= 2


def test_whoever_the_player_addressed_speaks_first_in_the_order_addressed():
    for seed in range(10):
        lines, _ = run(PLAIN, seed=seed, addressed=(INES, TOBIN))
        assert speakers(lines) == [INES, TOBIN, HESPER]


def test_the_initial_speaker_opens_the_scenes_first_beat():
    scene = scene_of(played=0)
    for seed in range(10):
        lines, _ = run(PLAIN, seed=seed, beat=1, scene=scene)
        assert speakers(lines)[0] == scene.characters[0]


def test_a_line_said_to_someone_who_also_speaks_follows_their_line():
    raw = {HESPER: '[TO: Tobin, TONE: dry] "And you, Tobin, still owe me."',
           TOBIN: '[TONE: even] "I paid on Tuesday."',
           INES: '[TONE: guarded] "Leave me out of it."'}
    for seed in range(25):
        for addressed in ((), (HESPER,), (HESPER, INES)):  # even when Hesper ranks first
            lines, warnings = run(raw, seed=seed, addressed=addressed)
            order_ = speakers(lines)
            assert order_.index(HESPER) == order_.index(TOBIN) + 1, (seed, addressed, order_)
            assert lines[order_.index(HESPER)].target == TOBIN
            assert warnings == []


def test_two_lines_said_to_the_same_speaker_both_follow_it():
    raw = {HESPER: '[TO: Ines, TONE: dry] "Tell him, Ines."',
           TOBIN: '[TO: Ines Rourke, TONE: sharp] "Go on, say it."',
           INES: '[TONE: guarded] "I saw nothing."'}
    for seed in range(10):
        order_ = speakers(run(raw, seed=seed, addressed=(HESPER, TOBIN))[0])
        assert order_[0] == INES
        assert order_[1:] == [HESPER, TOBIN]


def test_an_interruption_follows_the_line_it_cuts_and_cuts_it_after_the_phrase():
    raw = {HESPER: '[TONE: dry] "You will settle the tab tonight, Tobin, all of it."',
           TOBIN: '[INTERRUPT after "the tab", TONE: sharp] "Not in front of the stranger."',
           INES: '[TONE: guarded] "Leave me out of your ledger."'}
    for seed in range(25):
        lines, warnings = run(raw, seed=seed)
        order_ = speakers(lines)
        host, cut_in = lines[order_.index(HESPER)], lines[order_.index(TOBIN)]
        assert order_.index(TOBIN) == order_.index(HESPER) + 1
        assert host.content == "You will settle the tab\u2014"
        assert host.content.endswith("\u2014")
        assert (cut_in.action, cut_in.after, cut_in.content) == ("interrupt", "the tab",
                                                                 "Not in front of the stranger.")
        assert lines[order_.index(INES)].content == "Leave me out of your ledger."
        assert warnings == []


def test_an_interruption_matches_its_phrase_regardless_of_case_and_punctuation():
    raw = {HESPER: '[TONE: dry] "Pay the TAB, Tobin."',
           TOBIN: '[INTERRUPT after "the tab", TONE: sharp] "Quiet."'}
    lines, _ = run(raw, names={HESPER: "Hesper Quill", TOBIN: "Tobin Marsh"})
    assert [line.content for line in lines] == ["Pay the TAB\u2014", "Quiet."]


def test_an_interruption_whose_phrase_nobody_said_becomes_a_line():
    raw = dict(PLAIN, **{TOBIN: '[INTERRUPT after "the Charter", TONE: sharp] "Not that again."'})
    lines, warnings = run(raw)
    line = next(x for x in lines if x.speaker == TOBIN)
    assert (line.action, line.after, line.content) == ("speak", None, "Not that again.")
    assert not any(x.content.endswith("\u2014") for x in lines)
    assert any("Tobin Marsh interrupts after 'the Charter'" in w and "nobody said" in w for w in warnings)


def test_an_interruption_of_ones_own_words_is_not_an_interruption():
    raw = {TOBIN: '[INTERRUPT after "the tab", TONE: sharp] "Forget the tab."',
           HESPER: '[TONE: dry] "Drink up."'}
    lines, warnings = run(raw, names={HESPER: "Hesper Quill", TOBIN: "Tobin Marsh"})
    assert [x.action for x in lines] == ["speak", "speak"]
    assert any("nobody said" in w for w in warnings)


def test_a_reaction_cannot_be_interrupted():
    raw = {HESPER: "[REACT, TONE: startled, *drops the tab on the floor*]",
           TOBIN: '[INTERRUPT after "the tab", TONE: sharp] "Quiet."'}
    lines, warnings = run(raw, names={HESPER: "Hesper Quill", TOBIN: "Tobin Marsh"})
    assert {x.speaker: x.action for x in lines} == {HESPER: "react", TOBIN: "speak"}
    assert any("nobody said" in w for w in warnings)


FOUR = {**NAMES, PELL: "Pell Adair"}


def test_the_cap_keeps_at_most_n_spoken_lines_and_reactions_do_not_count():
    raw = {HESPER: '[TONE: dry] "One."', TOBIN: '[TONE: even] "Two."', INES: '[TONE: guarded] "Three."',
           PELL: "[REACT, TONE: startled, *ducks*]"}
    for seed in range(10):
        lines, warnings = run(raw, names=FOUR, seed=seed, cap=2)
        spoken = [x for x in lines if x.action in ("speak", "interrupt")]
        assert len(spoken) == 2
        assert any(x.speaker == PELL and x.action == "react" for x in lines)
        assert len(lines) == 3
        left_out = [w for w in warnings if "left out" in w]
        assert len(left_out) == 1 and "at most 2 spoken lines" in left_out[0]
        full, _ = run(raw, names=FOUR, seed=seed, cap=10)
        assert [x for x in full if x in lines] == lines  # the ones kept, in the uncapped order


def test_no_warning_when_under_the_cap():
    lines, warnings = run(PLAIN, cap=3)
    assert len(lines) == 3 and warnings == []


def test_a_line_is_not_left_cut_when_the_cap_drops_its_interruption():
    raw = {HESPER: '[TONE: dry] "You will settle the tab tonight, all of it."',
           TOBIN: '[INTERRUPT after "the tab", TONE: sharp] "Not now."'}
    lines, _ = run(raw, names={HESPER: "Hesper Quill", TOBIN: "Tobin Marsh"}, cap=1)
    cut = [x for x in lines if x.content.endswith("\u2014")]
    interrupts = [x for x in lines if x.action == "interrupt"]
    assert not cut or interrupts


def test_silent_replies_never_appear():
    raw = dict(PLAIN, **{TOBIN: "[SILENT, *looks away*]"})
    for perm in itertools.permutations(raw.items()):
        for seed in range(5):
            lines, warnings = run(dict(perm), seed=seed)
            assert TOBIN not in speakers(lines)
            assert len(lines) == 2 and warnings == []
    lines, _ = run({cid: "[SILENT]" for cid in NAMES})
    assert lines == []


def test_a_target_naming_nobody_present_is_dropped_with_a_warning():
    raw = dict(PLAIN, **{HESPER: '[TO: Gault, TONE: dry] "You again."'})
    lines, warnings = run(raw)
    line = next(x for x in lines if x.speaker == HESPER)
    assert line.target is None and line.content == "You again."
    assert any("Hesper Quill spoke to 'Gault'" in w and "not in the scene" in w for w in warnings)


def test_lines_carry_the_reply_fields_and_names():
    raw = {HESPER: '[TO: player, TONE: dry, *sets down a glass*] "Sit down, stranger."',
           TOBIN: "[REACT, TONE: startled, *ducks*]"}
    lines, _ = run(raw, names={HESPER: "Hesper Quill", TOBIN: "Tobin Marsh"}, beat=4)
    by = {x.speaker: x for x in lines}
    assert by[HESPER].model_dump() == dict(beat=4, speaker=HESPER, name="Hesper Quill", target="player",
                                           action="speak", tone="dry", content="Sit down, stranger.",
                                           nonverbal="sets down a glass", after=None)
    assert (by[TOBIN].action, by[TOBIN].content, by[TOBIN].nonverbal) == ("react", "", "ducks")


# --- resolve ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("target", "expected"), [
    ("Wren Vale", "player"), ("wren", "player"), ("WREN VALE", "player"), ("you", "player"), ("player", "player"),
    ("the player", "player"), ("stranger", "player"),
    ("everyone", "all"), ("all", "all"), ("Everybody", "all"), ("the room", "all"), ("you all", "all"),
    ("Tobin", TOBIN), ("tobin marsh", TOBIN), (TOBIN, TOBIN), ("Ines", INES), ("  Hesper   Quill ", HESPER),
    ("Gault", None), ("Marsh", None), ("", None), (None, None),
])
def test_resolve(target, expected):
    assert resolve(target, NAMES, PLAYER) == expected


# --- notes ----------------------------------------------------------------------------------------------------------


def _spoke(*ids: str, beat: int = 3) -> list[SceneLine]:
    return [SceneLine(beat=beat, speaker=cid, name=NAMES[cid], content="Words that move the scene.") for cid in ids]


def test_a_wrap_up_note_to_everyone_when_one_beat_is_left():
    scene = scene_of(max_beats=6)
    got = notes(scene, _spoke(HESPER, TOBIN, INES, beat=5), [], NAMES, beat=5)
    assert got == {cid: WRAP_UP for cid in NAMES}
    assert notes(scene, _spoke(HESPER, TOBIN, INES, beat=4), [], NAMES, beat=4) == {}


def test_a_passive_note_for_a_character_who_said_nothing():
    lines = [*_spoke(HESPER, TOBIN), SceneLine(beat=3, speaker=INES, name="Ines Rourke", action="react",
                                                nonverbal="shrugs")]
    assert notes(scene_of(), lines, [], NAMES, beat=3) == {INES: PASSIVE}


def test_a_system_note_to_the_others_about_a_character_who_could_not_answer():
    got = notes(scene_of(), _spoke(HESPER, INES), [TOBIN], NAMES, beat=3)
    assert got == {HESPER: "[SYSTEM: Tobin Marsh is unable to respond]",
                   INES: "[SYSTEM: Tobin Marsh is unable to respond]"}


def test_notes_combine_wrap_up_passive_and_system():
    got = notes(scene_of(max_beats=4), _spoke(HESPER, beat=3), [TOBIN], NAMES, beat=3)
    assert got[HESPER] == f"{WRAP_UP} [SYSTEM: Tobin Marsh is unable to respond]"
    assert got[INES] == f"{WRAP_UP} {PASSIVE} [SYSTEM: Tobin Marsh is unable to respond]"
    assert got[TOBIN] == WRAP_UP


# --- stalls and events ----------------------------------------------------------------------------------------------


@pytest.fixture
def turn(make_state) -> GameState:
    return GameState.starting(make_state(location=PLACE), "So who pays?")


def _result(outcome: Outcome, impossible: bool = False) -> MechanicResult:
    return MechanicResult(action_class=ActionClass.PERSUADE, risk=Risk.RISKY, outcome=outcome, minutes=5,
                          summary="You make your case.", impossible=impossible)


def test_a_beat_with_two_spoken_lines_did_not_stall(turn):
    assert stalled(turn, _spoke(HESPER, TOBIN), first_beat=False) is False
    assert stalled(turn, _spoke(HESPER), first_beat=False) is True
    assert stalled(turn, [], first_beat=True) is True


def test_the_player_and_world_events_do_not_count_as_spoken_lines(turn):
    lines = [SceneLine(beat=2, speaker="player", name=PLAYER, action="speak", content="Well?"),
             SceneLine(beat=2, speaker="event", name="event", action="speak", content="A glass breaks."),
             *_spoke(HESPER, beat=2)]
    assert stalled(turn, lines, first_beat=False) is True


def test_the_off_track_flag_stalls_any_beat(turn):
    assert stalled(turn, _spoke(HESPER, TOBIN, INES), first_beat=False, off_track=True) is True


def test_the_players_own_turn_moves_only_the_first_beat(turn):
    turn.mechanic_result = _result(Outcome.SUCCESS)
    assert stalled(turn, [], first_beat=True) is False
    assert stalled(turn, [], first_beat=False) is True
    turn.mechanic_result = _result(Outcome.NO_ROLL)
    assert stalled(turn, [], first_beat=True) is True
    turn.mechanic_result = _result(Outcome.FAILURE, impossible=True)
    assert stalled(turn, [], first_beat=True) is True
    turn.mechanic_result = None
    turn.staged_events = [ev.FlagSet(flag="tab_settled", source="event:x")]
    assert stalled(turn, [], first_beat=True) is False
    assert stalled(turn, [], first_beat=False) is True
    turn.staged_events = [ev.QuestUpdate(quest="q", status=QuestStatus.ACTIVE, stage=1)]
    assert stalled(turn, [], first_beat=True) is False


SPEC = SceneSpec(id="tab_night", prompt="Hesper wants her tab settled; Tobin stalls.", location=PLACE,
                 characters=[TOBIN, HESPER], initial_speaker=HESPER, max_beats=5, stall_beats=3,
                 goal_flags=["tab_settled", "tobin_paid"], events=["A glass breaks.", "The lights dip.",
                                                                   "The shift horn sounds."],
                 opens_on=SceneOpens(flag="tab_due"))


@pytest.fixture
def scene_pack(pack):
    """The shipped pack with one scenes.yaml scene added (a new content hash, so per-pack caches see it)."""
    return pack.model_copy(update={"scenes": {SPEC.id: SPEC}, "content_hash": f"{pack.content_hash}+tab_night"})


def test_a_pack_scenes_events_come_in_order_after_its_stall_beats(scene_pack):
    base = scene_of({TOBIN: "Tobin Marsh", HESPER: "Hesper Quill"}, scene_id=SPEC.id)
    for stalls in range(SPEC.stall_beats):
        assert event_due(base.model_copy(update={"stalled": stalls}), scene_pack) is None
    got = [event_due(base.model_copy(update={"stalled": SPEC.stall_beats + used, "events_used": used}), scene_pack)
           for used in range(len(SPEC.events) + 2)]
    assert got == [*SPEC.events, None, None]


def test_every_shipped_scene_injects_its_own_events_in_order(pack):
    if not pack.scenes:
        pytest.skip("the shipped pack has no scenes.yaml scenes")
    for spec in pack.scenes.values():
        base = scene_of({c: c for c in spec.characters}, scene_id=spec.id)
        assert event_due(base.model_copy(update={"stalled": spec.stall_beats - 1}), pack) is None
        got = [event_due(base.model_copy(update={"stalled": spec.stall_beats, "events_used": used}), pack)
               for used in range(len(spec.events) + 1)]
        assert got == [*spec.events, None], spec.id


def test_a_talk_scene_falls_back_on_the_places_details(scene_pack):
    details = list(scene_pack.locations[PLACE].details)
    assert details
    base = scene_of()
    assert base.id not in scene_pack.scenes
    assert event_due(base.model_copy(update={"stalled": 1}), scene_pack) is None
    got = [event_due(base.model_copy(update={"stalled": 2, "events_used": used}), scene_pack)
           for used in range(len(details) + 1)]
    assert got == [*details, None]


def test_goal_met_by_the_scenes_flags_all_set(scene_pack, turn):
    scene = scene_of({TOBIN: "Tobin Marsh", HESPER: "Hesper Quill"}, scene_id=SPEC.id)
    assert goal_met(turn, scene_pack, scene) is False
    turn.after.director.flags = ["tab_settled"]
    assert goal_met(turn, scene_pack, scene) is False
    turn.after.director.flags = ["tab_settled", "other", "tobin_paid"]
    assert goal_met(turn, scene_pack, scene) is True
    assert goal_met(turn, scene_pack, scene_of()) is False  # a talk scene has no goal the rules can check
    opened_now = scene_of({TOBIN: "Tobin Marsh", HESPER: "Hesper Quill"}, scene_id=SPEC.id, started_turn=turn.turn)
    assert goal_met(turn, scene_pack, opened_now) is False  # the words that open a scene do not settle it


# --- opening --------------------------------------------------------------------------------------------------------


def _opening_turn(make_state, pack, text: str, present: tuple[str, ...] = (HESPER, TOBIN, PELL)) -> GameState:
    npcs, _, _ = cast_of(pack)
    turn = GameState.starting(make_state(location=PLACE), text)
    turn.router_output = intent.classify(text, turn, pack)
    turn.present_npcs = [npcs[cid] for cid in present]
    return turn


def test_naming_two_characters_opens_a_talk_scene_with_them(make_state, pack):
    turn = _opening_turn(make_state, pack, "Ask Hesper and Tobin about the Charter")
    got = moderator.opening(turn, pack)
    assert got is not None
    assert (got.id, got.characters, got.reason, got.max_beats) == (
        f"talk:{PLACE}:{turn.turn}", (HESPER, TOBIN), "group", moderator.TALK_BEATS)
    assert "Hesper Quill and Tobin Marsh" in got.goal
    opened = got.event(minutes=700, location=PLACE)
    assert (opened.scene, opened.characters, opened.minutes) == (got.id, [HESPER, TOBIN], 700)


def test_a_group_word_opens_a_talk_scene_with_everyone_there(make_state, pack):
    got = moderator.opening(_opening_turn(make_state, pack, "You two, tell me about the drills."), pack)
    assert got is not None and got.reason == "group"
    assert set(got.characters) == {HESPER, TOBIN, PELL}


def test_addressing_everyone_opens_a_talk_scene(make_state, pack):
    assert moderator.opening(_opening_turn(make_state, pack, "Everyone, what do you think of the Charter?"), pack)


def test_threatening_one_in_front_of_others_opens_a_confrontation_led_by_them(make_state, pack):
    got = moderator.opening(_opening_turn(make_state, pack, "I threaten Tobin: talk or else."), pack)
    assert got is not None and got.reason == "confrontation"
    assert got.characters[0] == TOBIN and len(got.characters) <= moderator.TALK_CAST


def test_no_scene_opens_without_two_characters_or_while_one_runs(make_state, pack):
    alone = _opening_turn(make_state, pack, "Ask Hesper and Tobin about the Charter", present=(HESPER,))
    alone.after.world.npc_locations[TOBIN] = "kettle_row"  # Tobin is elsewhere: nobody to talk to but Hesper
    assert moderator.opening(alone, pack) is None


def test_everyone_the_place_holds_can_be_addressed_before_they_are_on_stage(make_state, pack):
    """On turn 1 only the person spoken to is on stage, but the opening lists everyone here: naming two opens a
    scene with both, not a pack scene that leaves one of them out."""
    first = _opening_turn(make_state, pack, "Hesper, Tobin, what do you make of it?", present=(HESPER,))
    got = moderator.opening(first, pack)
    assert got is not None and set(got.characters) == {HESPER, TOBIN}
    running = _opening_turn(make_state, pack, "Ask Hesper and Tobin about the Charter")
    running.after.scenes.scene = scene_of()
    assert moderator.opening(running, pack) is None
    looking = _opening_turn(make_state, pack, "look around")
    assert moderator.opening(looking, pack) is None


def test_a_pack_scene_opens_on_its_flag_with_its_initial_speaker_first(make_state, scene_pack):
    turn = _opening_turn(make_state, scene_pack, "look around")
    assert moderator.opening(turn, scene_pack) is None
    turn.after.director.flags = ["tab_due"]
    got = moderator.opening(turn, scene_pack)
    assert got is not None
    assert (got.id, got.characters, got.reason, got.max_beats) == (SPEC.id, (HESPER, TOBIN), "pack", SPEC.max_beats)
    turn.after.scenes.done = [SPEC.id]  # played to its end: never again
    assert moderator.opening(turn, scene_pack) is None


# --- scene events ---------------------------------------------------------------------------------------------------


@pytest.fixture
def persistent(make_state):
    return make_state(location=PLACE).persistent()


def _open(state, pack, scene: str = f"talk:{PLACE}:3"):
    return fold(state, [ev.SceneOpened(scene=scene, goal="Settle the tab.", location=PLACE,
                                       characters=[HESPER, TOBIN], max_beats=6, minutes=640, reason="group")],
                limits_of(pack))


def test_scene_opened_starts_the_scene(persistent, pack):
    state = _open(persistent, pack)
    scene = state.scenes.scene
    assert scene is not None
    assert (scene.id, scene.location, scene.characters, scene.max_beats, scene.started_minutes, scene.beat) == (
        f"talk:{PLACE}:3", PLACE, [HESPER, TOBIN], 6, 640, 0)
    assert scene.started_turn == persistent.campaign.turn_number
    assert persistent.scenes.scene is None  # fold made a new state


def test_scene_beats_keep_the_last_ten_lines_and_count_stalls_tokens_and_events(persistent, pack):
    limits = limits_of(pack)
    state = _open(persistent, pack)
    sid = state.scenes.scene.id
    beats = []
    for beat in range(1, 5):
        lines = [SceneLine(beat=beat, speaker=HESPER, name="Hesper Quill", content=f"b{beat} l{i}") for i in range(4)]
        beats.append(ev.SceneBeat(scene=sid, beat=beat, lines=lines, stalled=beat in (2, 3),
                                  event="A glass breaks." if beat == 3 else None, notes={TOBIN: PASSIVE}, tokens=10))
    seen = []
    for beat_event in beats:
        state = fold(state, [beat_event], limits)
        seen.append(state.scenes.scene.stalled)
    scene = state.scenes.scene
    assert seen == [0, 1, 2, 0]  # stalled beats count up, a beat that moved resets
    assert len(scene.recent) == SCENE_RECENT == 16  # 16 lines were said: all kept
    assert [x.content for x in scene.recent] == [f"b{b} l{i}" for b in range(1, 5) for i in range(4)]
    assert (scene.beat, scene.tokens, scene.events_used, scene.notes) == (4, 40, 1, {TOBIN: PASSIVE})
    assert scene.last_event is None
    state = fold(state, [ev.SceneBeat(scene=sid, beat=5, event="The lights dip.")], limits)
    assert (state.scenes.scene.last_event, state.scenes.scene.events_used) == ("The lights dip.", 2)


def test_a_beat_of_another_scene_changes_nothing(persistent, pack):
    state = _open(persistent, pack)
    assert fold(state, [ev.SceneBeat(scene="other", beat=1, stalled=True, tokens=5)], limits_of(pack)) == state
    assert fold(persistent, [ev.SceneBeat(scene="other", beat=1)], limits_of(pack)) == persistent


@pytest.mark.parametrize(("scene", "reason", "done"), [
    ("tab_night", "goal", True), ("tab_night", "max_beats", True), ("tab_night", "left", False),
    ("tab_night", "fight", False), ("tab_night", "defeated", False),
    (f"talk:{PLACE}:3", "goal", False), (f"talk:{PLACE}:3", "max_beats", False),
])
def test_scene_closed_clears_the_scene_and_records_played_pack_scenes(persistent, pack, scene, reason, done):
    state = _open(persistent, pack, scene)
    closed = fold(state, [ev.SceneClosed(scene=scene, reason=reason, goal_achieved=reason == "goal", beats=3)],
                  limits_of(pack))
    assert closed.scenes.scene is None
    assert (scene in closed.scenes.done) is done
    again = fold(closed, [ev.SceneClosed(scene=scene, reason=reason, beats=3)], limits_of(pack))
    assert again == closed  # nothing running: nothing to close


def test_closing_a_pack_scene_twice_records_it_once(persistent, pack):
    limits = limits_of(pack)
    state = persistent
    for _ in range(2):
        state = fold(_open(state, pack, "tab_night"), [ev.SceneClosed(scene="tab_night", reason="goal", beats=2)],
                     limits)
    assert state.scenes.done.count("tab_night") == 1
    assert SCENES_DONE_KEPT >= 1


def test_moderator_closed_builds_the_event_from_the_scene():
    scene = scene_of(played=4, tokens=120)
    event = moderator.closed(scene, "max_beats", False, minutes_now=scene.started_minutes + 35)
    assert (event.scene, event.reason, event.beats, event.tokens, event.minutes) == (scene.id, "max_beats", 4, 120, 35)
    assert moderator.closed(scene, "left", False, minutes_now=0).minutes == 0


def test_attitude_changes_are_clamped_and_moods_kept(persistent, pack):
    limits = limits_of(pack)
    state = fold(persistent, [ev.AttitudeChange(npc=TOBIN, delta=7, mood="pleased")], limits)
    assert state.scenes.feelings[TOBIN] == Feeling(attitude=7, mood="pleased")
    state = fold(state, [ev.AttitudeChange(npc=TOBIN, delta=7)], limits)
    assert state.scenes.feelings[TOBIN] == Feeling(attitude=10, mood="pleased")
    state = fold(state, [ev.AttitudeChange(npc=TOBIN, delta=-25, mood="angry")], limits)
    assert state.scenes.feelings[TOBIN] == Feeling(attitude=-10, mood="angry")
    state = fold(state, [ev.AttitudeChange(npc=TOBIN, delta=-3)], limits)
    assert state.scenes.feelings[TOBIN].attitude == -10
    assert feelings.attitude_of(state, TOBIN) == -10 and feelings.attitude_of(state, HESPER) == 0
    same = fold(state, [ev.AttitudeChange(npc=TOBIN, delta=0)], limits)
    assert same is state  # no change: the same state back


def test_feelings_are_kept_in_id_order(persistent, pack):
    state = fold(persistent, [ev.AttitudeChange(npc=TOBIN, delta=1), ev.AttitudeChange(npc=HESPER, mood="wary")],
                 limits_of(pack))
    assert list(state.scenes.feelings) == sorted([TOBIN, HESPER])


def test_the_moods_a_beats_tones_show(persistent, pack):
    assert feelings.mood_of("dry") == "amused"
    assert feelings.mood_of("Sharp, fierce") == "angry"
    assert feelings.mood_of("mumbling") is None and feelings.mood_of(None) is None
    lines = [SceneLine(beat=1, speaker=HESPER, name="Hesper Quill", tone="warm", content="a"),
             SceneLine(beat=1, speaker=HESPER, name="Hesper Quill", tone="cold", content="b"),
             SceneLine(beat=1, speaker="player", name=PLAYER, action="player", tone="angry", content="c"),
             SceneLine(beat=1, speaker=TOBIN, name="Tobin Marsh", tone="calm-ish", content="d")]
    changes = feelings.from_lines(lines, persistent)
    assert [(c.npc, c.mood, c.delta) for c in changes] == [(HESPER, "annoyed", 0)]
    annoyed = fold(persistent, changes, limits_of(pack))
    assert feelings.from_lines(lines, annoyed) == []  # already so: no change


def test_a_short_answer_moves_nothing(turn):
    short = [SceneLine(beat=3, speaker=cid, name=NAMES[cid], content="No idea.") for cid in (HESPER, TOBIN)]
    assert stalled(turn, short, first_beat=False) is True


def test_a_characters_transcript_window_grows_by_a_beat_then_starts_anew():
    """Two to three beats: the window of beat 2 is beat 1's with lines added, beat 3's is beat 2's with lines added,
    and beat 4 starts anew at beat 3; never more than ``SCENE_RECENT`` lines."""
    lines = [SceneLine(beat=b, speaker=HESPER, name="Hesper Quill", content=f"b{b} l{i}") for b in range(1, 7)
             for i in range(3)]
    shown = {b: [x.content for x in moderator.transcript_window([x for x in lines if x.beat <= b], b)]
             for b in range(1, 7)}
    beats = {b: sorted({int(c[1]) for c in shown[b]}) for b in shown}
    assert beats == {1: [1], 2: [1, 2], 3: [1, 2, 3], 4: [3, 4], 5: [3, 4, 5], 6: [5, 6]}
    assert shown[3][:len(shown[2])] == shown[2] and shown[5][:len(shown[4])] == shown[4]
    many = [SceneLine(beat=3, speaker=HESPER, name="Hesper Quill", content=f"l{i}") for i in range(40)]
    assert [x.content for x in moderator.transcript_window(many, 3)] == [f"l{i}" for i in range(24, 40)]
