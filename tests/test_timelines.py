"""Timelines (issue 17): every campaign is a tree of turns with movable branch heads. Undo, redo, retry, pick, fork,
switch and delete move heads (nothing is lost), the projections follow the current head, memories never cross
branches, races on one branch give one commit, races on two branches both commit, a crash while moving a head
leaves the previous head, and the state at every head equals a fresh linear replay of that branch's inputs with the
same dice variants (hypothesis)."""

from __future__ import annotations

import gzip
import itertools
import json
import shutil
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skald.core.events import limits_of
from skald.core.records import TimelineCommand
from skald.engine import Engine, start_campaign
from skald.errors import BranchError, TurnBusy, TurnConflictError
from skald.graph import run_turn
from skald.packs.loader import get_pack
from skald.store import db as store_db
from skald.store import memories, reads, timeline, writer
from skald.store.db import connect
from skald.store.timeline import Position
from skald.text import sentences
from support import ROOT

BOTH_STORES = True  # every test runs on SQLite and on PostgreSQL (conftest), unless marked sqlite_only
LINES = ("look around", "talk to the bartender", "search the room", "ask about work", "1", "3")


@pytest.fixture
def engine(fresh_db, offline_llm):
    eng = Engine(fresh_db("t.db"), llm=offline_llm, retriever=None)
    yield eng
    eng.close()


def _new(engine: Engine, cid: str = "tl", seed: int = 4) -> str:
    engine.create_campaign("cinder_reach", seed=seed, campaign_id=cid)
    return cid


def _persistent(state) -> dict:
    return state.persistent().model_dump(mode="json")


def _untold(state) -> dict:
    """The persistent state without what the last turns told (``told``: newer than the saves it is compared with)."""
    dumped = _persistent(state)
    dumped.pop("told")
    return dumped


def _dump(engine: Engine) -> dict[str, list]:
    with engine.pool.connection() as conn:
        tables = store_db.tables(conn)
        return {t: [tuple(r) for r in conn.execute(f'SELECT * FROM "{t}" ORDER BY 1, 2')] for t in tables}


def test_undo_redo_and_a_new_turn_after_undo_keep_every_turn(engine, pack):
    cid = _new(engine)
    states = {0: _persistent(engine.load(cid))}
    for n, line in enumerate(LINES[:4], 1):
        states[n] = _persistent(engine.play_turn(cid, line).state)
    undone = engine.undo(cid, 2)
    assert undone.view.turn_number == 2 and undone.view.timeline.done and "back to turn 2" in undone.view.text
    assert _persistent(engine.load(cid)) == states[2]  # the projections follow the head
    assert engine.turns(cid).total == 2 and [t.turn_number for t in engine.turns(cid).turns] == [1, 2]
    assert _persistent(engine.redo(cid).state) == states[3]
    engine.redo(cid, 5)  # as far as the line goes
    assert engine.load(cid).campaign.turn_number == 4
    with pytest.raises(BranchError) as nothing:
        engine.redo(cid)
    assert nothing.value.reason == "nothing_to_redo"
    engine.undo(cid, 3)
    new = engine.play_turn(cid, "search the room")  # a new child of turn 1: the old turns 2-4 stay in the tree
    assert (new.view.turn_number, new.view.variant) == (2, 1)
    with pytest.raises(BranchError):
        engine.redo(cid)  # the old future is no longer on the line
    with engine.pool.connection() as conn:
        assert conn.execute("SELECT COUNT(*) FROM turns WHERE campaign_id = ?", (cid,)).fetchone()[0] == 5
    listed = engine.timeline(cid, TimelineCommand(kind="variants")).view.text
    assert "0. talk to the bartender" in listed and "> 1. search the room" in listed
    engine.pick(cid, 0)
    assert _persistent(engine.load(cid)) == states[2]
    assert _persistent(engine.redo(cid, 2).state) == states[4]  # the picked variant's future
    engine.undo(cid, 9)
    assert _persistent(engine.load(cid)) == states[0]
    with pytest.raises(BranchError) as start:
        engine.undo(cid)
    assert start.value.reason == "nothing_to_undo"


def test_retry_rolls_again_reproducibly_and_keeps_the_old_variant(engine, fresh_db, offline_llm):
    cid = _new(engine)
    engine.play_turn(cid, "look around")
    first = engine.play_turn(cid, "search the room")
    again = engine.play_turn(cid, "/retry")
    assert (again.view.turn_number, again.view.variant, again.view.input) == (2, 1, "search the room")
    assert again.view.text != first.view.text  # new dice, new prose
    third = engine.retry(cid)
    assert third.view.variant == 2
    # the same campaign played in another file gives the same variants: seed x turn x variant
    other = Engine(fresh_db("o.db"), llm=offline_llm, retriever=None)
    try:
        _new(other)
        other.play_turn(cid, "look around")
        other.play_turn(cid, "search the room")
        assert other.play_turn(cid, "/retry").view.text == again.view.text
    finally:
        other.close()
    engine.pick(cid, 0)
    assert engine.load(cid).recent[-1].sentences == sentences(first.view.text)


def test_fork_switch_and_delete_branches(engine):
    cid = _new(engine)
    for line in LINES[:3]:
        engine.play_turn(cid, line)
    at_two = _persistent(engine.undo(cid).state)
    engine.redo(cid)
    forked = engine.fork(cid, "bold", at_turn=2)
    assert (forked.view.branch, forked.view.turn_number) == ("bold", 2)
    assert _persistent(engine.load(cid)) == at_two
    engine.play_turn(cid, "ask about work")
    listed = {b.name: b for b in engine.branches(cid)}
    assert (listed["main"].head_turn, listed["bold"].head_turn, listed["bold"].current) == (3, 3, True)
    assert listed["bold"].forked_from == "main" and listed["bold"].forked_at == 2
    assert [t.input for t in engine.turns(cid, branch="main").turns] == list(LINES[:3])
    assert [t.input for t in engine.turns(cid).turns] == [*LINES[:2], "ask about work"]
    with pytest.raises(BranchError) as taken:
        engine.fork(cid, "main")
    assert taken.value.reason == "name_taken"
    with pytest.raises(BranchError) as bad:
        engine.fork(cid, "../x")
    assert bad.value.reason == "bad_name"
    with pytest.raises(BranchError) as current:
        engine.delete_branch(cid, "bold")
    assert current.value.reason == "current_branch"
    engine.switch(cid, "main")
    assert engine.load(cid).campaign.turn_number == 3 and engine.load(cid).recent[-1].input == LINES[2]
    with engine.pool.connection() as conn:
        shared = {r[0] for r in conn.execute("SELECT turn_id FROM branch_turns WHERE branch = 'main'")}
    engine.delete_branch(cid, "bold")
    assert [b.name for b in engine.branches(cid)] == ["main"]
    with engine.pool.connection() as conn:  # only bold's own turn went; the turns main reaches stay, with events
        left = {r[0] for r in conn.execute("SELECT turn_id FROM turns WHERE campaign_id = ?", (cid,))}
        assert left == shared
        assert conn.execute("SELECT COUNT(*) FROM turn_events WHERE turn_id NOT IN (SELECT turn_id FROM turns)"
                            ).fetchone()[0] == 0
    with pytest.raises(BranchError) as gone:
        engine.switch(cid, "bold")
    assert gone.value.reason == "no_branch"


def test_the_engines_typed_timeline_methods_play_the_commands_and_refuse_with_a_reason(engine):
    """``Engine.undo`` ... ``Engine.delete_branch``: what the API and the terminal call, no command text spelt by
    them."""
    cid = _new(engine)
    with pytest.raises(BranchError) as nothing:
        engine.undo(cid)
    assert nothing.value.reason == "nothing_to_undo"
    for line in LINES[:3]:
        engine.play_turn(cid, line)
    assert engine.undo(cid, 2).view.turn_number == 1
    assert engine.redo(cid, 1).view.turn_number == 2
    retried = engine.retry(cid)
    assert (retried.view.turn_number, retried.view.variant) == (2, 1)
    assert engine.pick(cid, 0).view.variant == 0
    with pytest.raises(BranchError) as no_variant:
        engine.pick(cid, 9)
    assert no_variant.value.reason == "no_variant"
    forked = engine.fork(cid, "side", at_turn=1)
    assert (forked.view.branch, forked.view.turn_number) == ("side", 1)
    assert engine.switch(cid, "main").view.branch == "main"
    engine.delete_branch(cid, "side")
    assert [b.name for b in engine.branches(cid)] == ["main"]
    with pytest.raises(BranchError) as gone:
        engine.switch(cid, "side", key="k1")
    assert gone.value.reason == "no_branch"


def test_deleting_a_branch_keeps_what_other_branches_played_even_undone(engine):
    """Branch side is forked from dare after dare's turn 3; side plays turn 4 there, then undoes to 2 and plays
    another turn 3, so dare's turn 3 and side's first turn 4 are on no line but dare's. Deleting dare keeps side's
    turn 4 (played on side: nothing played is lost unless its branch is deleted) and dare's turn 3 under it; dare's
    own turn 4 goes."""
    cid = _new(engine)
    for line in LINES[:2]:
        engine.play_turn(cid, line)
    engine.fork(cid, "dare")
    engine.play_turn(cid, "search the room")  # dare's turn 3
    engine.play_turn(cid, "look around")  # dare's turn 4
    engine.fork(cid, "side", at_turn=3)
    engine.play_turn(cid, "ask about work")  # side's turn 4, from dare's turn 3
    engine.undo(cid, 2)
    engine.play_turn(cid, "talk to the bartender")  # side's new turn 3: the old path leaves side's line
    engine.switch(cid, "main")
    with engine.pool.connection() as conn:
        played = {r[0]: (r[1], r[2]) for r in conn.execute(
            "SELECT turn_id, branch, input FROM turns WHERE campaign_id = ?", (cid,))}
    engine.delete_branch(cid, "dare")
    with engine.pool.connection() as conn:
        left = {r[0]: (r[1], r[2]) for r in conn.execute(
            "SELECT turn_id, branch, input FROM turns WHERE campaign_id = ?", (cid,))}
        orphans = conn.execute("SELECT COUNT(*) FROM turns t WHERE t.campaign_id = ? AND t.parent_turn_id != 0 AND "
                               "NOT EXISTS (SELECT 1 FROM turns p WHERE p.turn_id = t.parent_turn_id)",
                               (cid,)).fetchone()[0]
    gone = {v for k, v in played.items() if k not in left}
    assert gone == {("dare", "look around")}  # dare's own turn 4, and nothing else
    assert ("side", "ask about work") in left.values() and ("dare", "search the room") in left.values()
    assert orphans == 0


def test_memories_never_cross_branches(engine):
    cid = _new(engine)
    engine.play_turn(cid, "look around")
    engine.play_turn(cid, "talk to the bartender")
    engine.fork(cid, "quiet", at_turn=1)
    engine.play_turn(cid, "search the room")
    with engine.pool.connection() as conn:
        def line(branch):
            return {r[0] for r in conn.execute(
                "SELECT m.summary FROM branch_turns p JOIN turn_memories m ON m.turn_id = p.turn_id WHERE "
                "p.branch = ?", (branch,))}
        quiet = {s for _, s in memories.recent(conn, cid, "quiet", 99, 50)}
        main = {s for _, s in memories.recent(conn, cid, "main", 99, 50)}
        assert quiet == line("quiet") and main == line("main") and quiet != main
        assert not (quiet - main) & line("main") and not (main - quiet) & line("quiet")
    engine.undo(cid)  # an undone turn is not recalled either (recall asks for turns before the next)
    with engine.pool.connection() as conn:
        assert [n for n, _ in memories.recent(conn, cid, "quiet", 2, 50)] == [1]


def test_races_on_one_branch_give_one_commit_and_on_two_branches_both_commit(fresh_db, offline_llm):
    db = fresh_db("race.db")
    a = Engine(db, llm=offline_llm, retriever=None)
    b = Engine(db, llm=offline_llm, retriever=None)  # a second process, as far as the busy sets know
    try:
        cid = _new(a)
        a.play_turn(cid, "look around")
        a.fork(cid, "side")
        a.switch(cid, "main")
        first, second = a.claim(cid, "search the room").slot, b.claim(cid, "talk to the bartender").slot
        assert a.play(first).view.turn_number == 2
        with pytest.raises(TurnConflictError):
            b.play(second)
        held = a.claim(cid, "look around", branch="side").slot
        with pytest.raises(TurnBusy) as busy:  # a second turn on side here: side's turn number (1), not main's (2)
            a.claim(cid, "wait", branch="side")
        assert busy.value.turn_number == 1 and a.load(cid).campaign.turn_number == 2
        held.release()
        on_main, on_side = a.claim(cid, "ask about work").slot, b.claim(cid, "search the room", branch="side").slot
        same_engine = a.claim(cid, "look around", branch="side")  # another branch is not busy in this process
        same_engine.slot.release()
        assert a.play(on_main).view.turn_number == 3
        assert b.play(on_side).view.branch == "side"
        heads = {x.name: x.head_turn for x in a.branches(cid)}
        assert heads == {"main": 3, "side": 2}
        assert a.load(cid).campaign.turn_number == 3  # side's turn did not touch main's projections
        # an undo racing a turn on the same branch: the one planned on the old head loses
        slot = b.claim(cid, "look around").slot
        a.undo(cid)
        with pytest.raises(TurnConflictError):
            b.play(slot)
    finally:
        a.close()
        b.close()


def test_two_branches_playing_from_one_turn_at_once_take_different_dice(fresh_db, offline_llm):
    """Both slots are claimed before either commits, so both were given the same dice variant; the variant is checked
    again in the write transaction, and the turn that lost it is played again with the next one (streamed, the words
    already shown are withdrawn first). ``(campaign, parent, variant)`` is unique in the schema as well."""
    db = fresh_db("dice.db")
    a = Engine(db, llm=offline_llm, retriever=None)
    b = Engine(db, llm=offline_llm, retriever=None)  # another process
    try:
        cid = _new(a)
        a.play_turn(cid, "look around")
        a.fork(cid, "side")  # side and main both stand on turn 1
        a.fork(cid, "third")
        on_main = a.claim(cid, "persuade Hesper to tell me about the water", branch="main").slot
        on_side = b.claim(cid, "persuade Hesper to tell me about the water", branch="side").slot
        on_third = b.claim(cid, "persuade Hesper to tell me about the water", branch="third").slot
        assert on_main.position.variant == on_side.position.variant == on_third.position.variant == 0
        main_turn = a.play(on_main)
        side_turn = b.play(on_side)  # lost variant 0 at Commit: played again with variant 1
        streamed = list(b.stream(on_third))  # and this one with variant 2
        assert ("replace", streamed[[k for k, _ in streamed].index("replace")][1]) and streamed[-1][0] == "turn"
        third_turn = streamed[-1][1]
        with a.pool.connection() as conn:
            rows = conn.execute("SELECT branch, variant FROM turns WHERE campaign_id = ? AND turn_number = 2 "
                                "ORDER BY variant", (cid,)).fetchall()
        assert [tuple(r) for r in rows] == [("main", 0), ("side", 1), ("third", 2)]
        rolls = [t.view.mechanic.roll for t in (main_turn, side_turn, third_turn)]
        assert all(r is not None for r in rolls)  # a check was rolled each time, each with its own variant's dice
        a.switch(cid, "side")
        listed = a.play_turn(cid, "/variants").view.text
        assert " 1. " in listed and " 2. " in listed  # /pick K names one turn each
    finally:
        a.close()
        b.close()


@pytest.mark.sqlite_only
def test_turns_an_older_engine_let_share_a_variant_are_renumbered_on_upgrade(tmp_path, offline_llm):
    """A save file from before the unique (campaign, parent, variant): two turns from one parent with variant 0. The
    migration gives the later one the next free variant, then the index holds."""
    path = tmp_path / "shared.db"
    engine = Engine(path, llm=offline_llm, retriever=None)
    cid = _new(engine)
    engine.play_turn(cid, "look around")
    engine.undo(cid)
    engine.play_turn(cid, "search the room")  # variant 1 of the turn after the start
    engine.close()
    raw = sqlite3.connect(path)
    raw.execute("DROP INDEX idx_turns_campaign_id_parent_turn_id_variant")
    raw.execute("UPDATE turns SET variant = 0")  # what the race could leave: both variant 0
    raw.execute("DELETE FROM _sqlite_migrations WHERE name = 'm014_unique_variants'")
    raw.execute("PRAGMA user_version = 13")
    raw.commit()
    raw.close()
    conn = connect(path)  # migrates
    try:
        rows = conn.execute("SELECT input, variant FROM turns ORDER BY turn_id").fetchall()
        assert [tuple(r) for r in rows] == [("look around", 0), ("search the room", 1)]
    finally:
        conn.close()
    raw = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError):  # the index holds from now on
        raw.execute("UPDATE turns SET variant = 0")
    raw.close()


@pytest.mark.parametrize("command", ["/undo", "/retry", "/fork x", "/pick 0"])
def test_a_crash_inside_commit_while_moving_a_head_leaves_the_previous_head(engine, monkeypatch, command):
    cid = _new(engine)
    engine.play_turn(cid, "look around")
    engine.play_turn(cid, "search the room")
    if command == "/pick 0":
        engine.play_turn(cid, "/retry")
    before = _dump(engine)

    def crash(*args, **kwargs):
        raise OSError("injected: disk gone while rewriting the projections")

    monkeypatch.setattr(writer, "_rewrite_projections", crash)
    with pytest.raises(OSError, match="injected"):
        engine.play_turn(cid, command)
    assert _dump(engine) == before  # the head, the line, the projections: as they were; no orphan turn


_examples = itertools.count()  # hypothesis runs examples in one test call: each gets stores of its own


@st.composite
def _ops(draw):
    return draw(st.lists(st.one_of(
        st.tuples(st.just("play"), st.sampled_from(LINES)),
        st.tuples(st.just("undo"), st.integers(1, 3)),
        st.tuples(st.just("redo"), st.integers(1, 2)),
        st.tuples(st.just("retry"), st.just(0)),
        st.tuples(st.just("pick"), st.integers(0, 2)),
        st.tuples(st.just("fork"), st.integers(0, 4)),
        st.tuples(st.just("switch"), st.integers(0, 3)),
    ), min_size=3, max_size=9))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_ops())
def test_every_head_is_a_fresh_linear_replay_of_its_branch(fresh_db, pack, offline_llm, ops):
    example = next(_examples)
    engine = Engine(fresh_db(f"tree{example}.db"), llm=offline_llm, retriever=None)
    try:
        cid = _new(engine, "p", seed=9)
        forks = 0
        played_events = {}
        for op, arg in ops:
            try:
                if op == "play":
                    engine.play_turn(cid, arg)
                elif op in ("undo", "redo"):
                    getattr(engine, op)(cid, arg)
                elif op == "retry":
                    engine.play_turn(cid, "/retry")
                elif op == "pick":
                    engine.pick(cid, arg)
                elif op == "fork":
                    forks += 1
                    engine.fork(cid, f"b{forks}", at_turn=arg)
                else:
                    names = [b.name for b in engine.branches(cid)]
                    engine.switch(cid, names[arg % len(names)])
            except BranchError:
                pass  # nothing to undo, no such variant...: refused, nothing changed
            with engine.pool.connection() as conn:
                for tid, n in conn.execute("SELECT turn_id, (SELECT COUNT(*) FROM turn_events e WHERE e.turn_id = "
                                           "t.turn_id) FROM turns t"):
                    assert played_events.setdefault(tid, n) == n  # no event of any turn is ever lost
        with engine.pool.connection() as conn:
            limits = limits_of(pack)
            for branch in timeline.branches(conn, cid):
                line = conn.execute("SELECT t.input, t.variant FROM branch_turns p JOIN turns t ON t.turn_id = "
                                    "p.turn_id WHERE p.campaign_id = ? AND p.branch = ? AND p.turn_number <= ? ORDER "
                                    "BY p.turn_number", (cid, branch.name, branch.head.turn_number)).fetchall()
                expected = _linear(fresh_db(f"{branch.name}{example}.db"), pack, offline_llm,
                                   [(r[0], r[1]) for r in line])
                got = reads.state_at(conn, cid, branch.head.turn_number, limits, branch.name)
                assert got.model_dump(mode="json") == expected, (branch.name, ops)
                head = branch.head.turn_number
                recalled = memories.recent(conn, cid, branch.name, head + 1, 1000)
                on_line = conn.execute("SELECT p.turn_number, m.summary FROM branch_turns p JOIN turn_memories m ON "
                                       "m.turn_id = p.turn_id WHERE p.campaign_id = ? AND p.branch = ? AND "
                                       "p.turn_number <= ?", (cid, branch.name, head)).fetchall()
                assert sorted(recalled) == sorted(tuple(r) for r in on_line)  # exactly the line's, nothing else
                if branch.current:
                    assert _persistent(reads.load_state(conn, cid)) == expected
    finally:
        engine.close()


def _linear(path, pack, llm, inputs: list[tuple[str, int]]) -> dict:
    """The campaign played straight through, in a file of its own, with the given dice variants."""
    conn = connect(path)
    try:
        state = start_campaign(conn, pack, seed=9, campaign_id="p")
        for text, variant in inputs:
            at = timeline.head(conn, "p")
            state = run_turn(conn, state.model_copy(update={"player_input": text}), pack=pack, llm=llm,
                             retriever=None, position=Position("main", at.turn_id, at.turn_id, variant))
        return _persistent(reads.load_state(conn, "p"))
    finally:
        conn.close()


@pytest.mark.sqlite_only
def test_a_save_file_from_before_timelines_becomes_branch_main_without_loss(tmp_path, pack, offline_llm):
    path = tmp_path / "old.db"
    with gzip.open(ROOT / "tests" / "fixtures" / "saves" / "main-c517d4e.db.gz") as packed, open(path, "wb") as out:
        shutil.copyfileobj(packed, out)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 11
    raw.close()
    from skald.cli.doctor import _save_file

    assert "needs upgrading: m012_timelines" in _save_file(path).what
    expected = json.loads((ROOT / "tests" / "fixtures" / "saves" / "main-c517d4e.states.json").read_text())
    conn = connect(path)
    for cid, was in expected.items():
        limits = limits_of(get_pack(reads.pack_id(conn, cid)))
        head = _persistent(reads.load_state(conn, cid))
        assert head.pop("told") and head == was["head"], cid  # what the turns told: new since, read from their text
        for turn, state in was["at"].items():
            at = reads.state_at(conn, cid, int(turn), limits).model_dump(mode="json")
            told = at.pop("told")
            assert at == state and len(told) <= int(turn), (cid, turn)
        assert len(reads.rendered_turns(conn, cid)) == was["turns"] and len(reads.turn_events(conn, cid)) == \
            was["events"]
        branches = timeline.branches(conn, cid)
        assert [(b.name, b.head.turn_number, b.current) for b in branches] == [("main", was["turn_number"], True)]
    conn.close()
    engine = Engine(path, llm=offline_llm, retriever=None)
    try:  # and it plays on: undo, a new turn, a fork
        at = expected["long-cinder-7"]["at"]
        engine.undo("long-cinder-7")  # from the snapshot at turn 50
        assert _untold(engine.load("long-cinder-7")) == at["59"]
        engine.undo("long-cinder-7", 29)  # back past it
        assert _untold(engine.load("long-cinder-7")) == at["30"]
        engine.play_turn("long-cinder-7", "look around")
        engine.fork("long-cinder-7", "later")
        assert {b.name for b in engine.branches("long-cinder-7")} == {"main", "later"}
    finally:
        engine.close()
