"""The one command registry (``rules.commands``): every row has its handler and every handler its row, /help and the
router read the words from it, and a timeline command typed by hand is the same command the engine sends typed."""

from __future__ import annotations

import pytest
from skald import meta_commands
from skald.core.records import TimelineCommand
from skald.rules import commands, intent, timeline
from skald.words import API, PAGE, TERMINAL


def test_every_row_has_its_handler_and_every_handler_its_row():
    game = {c.name for c in commands.COMMANDS if c.group == "game"}
    assert game == set(meta_commands.HANDLERS)
    planned = {c.name for c in commands.COMMANDS if c.group == "timeline"}
    assert planned == set(timeline._PLANS) | {"retry"}  # /retry is played by the engine, as a turn
    assert set(TimelineCommand.model_fields["kind"].annotation.__args__) == planned
    assert {c.name for c in commands.COMMANDS if c.group == "terminal"} == {"dice"}  # cli.session answers it
    keys = [k for c in commands.COMMANDS for k in c.keys]
    assert len(keys) == len(set(keys)), "a word answers to one command"


@pytest.mark.parametrize("words", [TERMINAL, PAGE, API], ids=lambda w: w.frontend)
def test_help_lists_the_registry_in_each_frontends_words(words):
    text = commands.help_text(words)
    for command in commands.COMMANDS:
        listed = f"  /{command.name} " in text or f"  /{command.usage}" in text
        hidden = command.name in words.hidden or command.name in words.buttons or command.group == "terminal"
        assert listed != hidden, (words.frontend, command.name)
        if listed:
            assert command.summary in text
    assert (words.buttons_note in text) if words.buttons_note else True
    assert [row.split()[0] for row in commands.rows("terminal")] == ["/dice"]


def test_the_router_answers_every_engine_word_and_leaves_the_terminals_alone(state, pack):
    for key, command in commands.BY_KEY.items():
        routed = intent.classify(f"/{key}", state, pack)
        assert routed.meta_command == command.name  # an alias reaches the nodes as the command's name
        if command.group != "terminal" and key not in intent.IN_WORLD:  # "exit", alone, is a way out of the place
            assert intent.classify(key, state, pack).meta_command == command.name  # a bare command word too
    assert intent.classify("dice", state, pack).intent.value != "META"  # not the terminal's, without its slash
    said, _ = meta_commands.respond("dice", meta_commands.MetaContext(state, pack, words=PAGE))
    assert "belongs to the terminal" in said
    said, _ = meta_commands.respond("episodes", meta_commands.MetaContext(state, pack))  # an alias finds its handler
    assert "Unknown" not in said


@pytest.mark.parametrize("call", [
    TimelineCommand(kind="undo"), TimelineCommand(kind="undo", turns=3), TimelineCommand(kind="redo", turns=2),
    TimelineCommand(kind="retry"), TimelineCommand(kind="variants"), TimelineCommand(kind="pick", variant=2),
    TimelineCommand(kind="fork", name="side"), TimelineCommand(kind="fork", name="side", at=4),
    TimelineCommand(kind="branches"), TimelineCommand(kind="switch", name="main"),
    TimelineCommand(kind="delete-branch", name="old.plan"),
], ids=timeline.spelled)
def test_a_command_spelled_and_parsed_back_is_the_same_command(call):
    typed = timeline.spelled(call)
    command, _, args = typed.lstrip("/").partition(" ")
    assert timeline.parse(command, args) == call


@pytest.mark.parametrize(("command", "args", "reason"), [
    ("undo", "two", "bad_args"), ("redo", "0", "bad_args"), ("fork", "side --at soon", "bad_turn"),
])
def test_arguments_that_are_not_numbers_are_refused_before_anything_is_read(command, args, reason):
    refused = timeline.parse(command, args)
    assert isinstance(refused, timeline.Planned) and refused.move is None and refused.reason == reason


def test_a_typed_request_is_refused_as_the_same_request_typed_by_hand():
    facts = timeline.Facts(branch="main", head_id=7, head=3, tip=3,
                           branches=[timeline.BranchFacts("main", 3, 3, True, "the bar", "You sit.")])
    for typed, by_hand in [(TimelineCommand(kind="fork", name="../x"), ("fork", "../x")),
                           (TimelineCommand(kind="fork", name="ok", at=9), ("fork", "ok --at 9")),
                           (TimelineCommand(kind="undo", turns=0), None),
                           (TimelineCommand(kind="pick", variant=5), ("pick", "5")),
                           (TimelineCommand(kind="switch", name="nope"), ("switch", "nope"))]:
        planned = timeline.plan(typed, facts)
        assert planned.move is None and planned.reason is not None
        if by_hand is not None:
            assert timeline.plan(timeline.parse(*by_hand), facts) == planned


@pytest.mark.parametrize(("typed", "meant"), [("/inv", "inventory"), ("/INVENT", "inventory"), ("/qui", "quit"),
                                              ("/un", "undo"), ("/ep", "episode"), ("/stat", "status")])
def test_a_commands_unique_beginning_is_that_command(typed, meant):
    assert commands.find(typed).name == meant
    from skald.packs.loader import load_pack
    from skald.rules.start import new_state

    pack = load_pack("cinder_reach")
    assert intent.classify(typed, new_state(pack, seed=1), pack).meta_command == meant  # the router passes it on


def test_a_short_shared_or_deleting_beginning_runs_nothing_and_is_named():
    assert commands.find("/q") is None and commands.find("/qu") is None  # /quests or /quit
    assert commands.find("/delete") is None  # it deletes: typed whole or not at all
    said, _ = meta_commands.respond("qu", None)
    assert said == "Unknown command /qu. Did you mean /quests or /quit? Type /help for the list."
    assert commands.meant("qeusts") == ["/quests"] and commands.meant("delete") == ["/delete-branch"]
    assert commands.meant("zzz") == []


def test_rules_questions_asked_in_play_are_answered_by_the_rules_command(state, pack):
    for line in ("how do i level up?", "do i get xp for that", "what happens if i die?", "how does combat work"):
        routed = intent.classify(line, state, pack)
        assert (routed.intent.value, routed.meta_command) == ("META", "rules"), line
    said, _ = meta_commands.respond("rules", meta_commands.MetaContext(state, pack))
    defeat = pack.era.rules.defeat
    assert "no levels or experience points" in said and defeat.text.strip() in said
    assert f"{round(defeat.hp_fraction * 100)}% of your HP" in said and "12 risky" in said
    assert intent.classify("i level the crossbow at him", state, pack).intent.value != "META"  # not a rules word
    assert intent.classify("level up to 100", state, pack).intent.value != "META"  # a wish, refused in the world
