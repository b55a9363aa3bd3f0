"""The Director's episode layer: completion per mode and trigger, beats that only move forward, META turns that never
count, scripted sessions that end each kind of episode where it should, the event log folding back to the same
director state and evaluations, and a crash between completion and evaluation leaving neither."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from skald.core import events as ev
from skald.core.events import BEAT_ORDER, limits_of, replay_log
from skald.core.pack import Episode
from skald.core.persistent import DirectorState
from skald.engine import start_campaign
from skald.graph import build_graph, run_turn
from skald.packs.loader import load_pack
from skald.rules import episodes
from skald.store import episodes as stored
from skald.store import reads

BOTH_STORES = True  # every test with a store runs on SQLite and on PostgreSQL (conftest)
MINI = Path(__file__).resolve().parent / "fixtures" / "packs" / "mini"
MINI_EPISODES = ("first_night", "the_toll", "wolf_road", "quiet_years")


def episode(mode: str, **fields) -> Episode:
    return Episode.model_validate({"id": "e", "title": "E", "premise": "P.", "completion_mode": mode, **fields})


def director(**fields) -> DirectorState:
    return DirectorState(**{"episode": "e", "number": 1, "current_beat": "establishment", **fields})


# --------------------------------------------------------------------------------------------- completion table

OBJECTIVE = {"objective": {"all": ["a"], "any": ["b", "c"]}}
CASES = [
    # mode, episode fields, director fields, expected
    ("open", {"turn_budget": 3}, {"turn_count": 50, "current_beat": "resolution"}, (False, None)),
    ("turn_limited", {"turn_budget": 4}, {"turn_count": 3}, (False, None)),
    ("turn_limited", {"turn_budget": 4}, {"turn_count": 4}, (True, "turn_limit")),
    ("beat_gated", {}, {"turn_count": 9, "current_beat": "escalation",
                        "beats_completed": ["establishment", "complication"]}, (False, None)),
    ("beat_gated", {}, {"current_beat": "pivot"}, (True, "beat_complete")),
    ("beat_gated", {}, {"current_beat": "resolution", "beats_completed": ["pivot"]}, (True, "beat_complete")),
    ("beat_gated", {"completion_criteria": {"required_beat": "pivot", "require_resolution": True}},
     {"current_beat": "pivot"}, (False, None)),
    ("beat_gated", {"completion_criteria": {"required_beat": "pivot", "require_resolution": True}},
     {"current_beat": "resolution", "beats_completed": ["pivot"]}, (True, "beat_complete")),
    ("beat_gated", {"turn_budget": 5}, {"turn_count": 5, "current_beat": "complication"}, (True, "turn_limit")),
    ("objective", {"completion_criteria": OBJECTIVE}, {"flags": ["a"]}, (False, None)),
    ("objective", {"completion_criteria": OBJECTIVE}, {"flags": ["b", "c"]}, (False, None)),
    ("objective", {"completion_criteria": OBJECTIVE}, {"flags": ["c", "a"]}, (True, "objective_met")),
    ("objective", {"completion_criteria": OBJECTIVE, "turn_budget": 6}, {"flags": ["a"], "turn_count": 6},
     (True, "turn_limit")),
    ("objective", {"completion_criteria": OBJECTIVE, "turn_budget": 6}, {"flags": ["a", "b"], "turn_count": 6},
     (True, "objective_met")),
]


@pytest.mark.parametrize(("mode", "fields", "state", "expected"), CASES)
def test_check_completion_per_mode_and_trigger(mode, fields, state, expected):
    assert episodes.check_completion(director(**state), episode(mode, **fields)) == expected


def test_every_trigger_is_covered_by_the_table():
    covered = {expected[1] for *_, expected in CASES if expected[1]}
    assert covered == set(episodes.TRIGGERS) - {"player_end", "abandoned"}  # /end and a pack edit: sessions


# --------------------------------------------------------------------------------------------- beats


def test_a_beat_event_never_moves_the_beat_back():
    pack = load_pack(MINI)
    state = start_campaign_state(pack)
    at_pivot = ev.BeatReached(beat="pivot", turn_count=3, reason="pivot").apply(state, limits_of(pack))
    assert at_pivot.director.current_beat == "pivot"
    assert at_pivot.director.beats_completed == ["establishment", "complication", "escalation"]
    for beat in ("establishment", "complication", "escalation", "pivot"):
        assert ev.BeatReached(beat=beat, turn_count=4, reason="position").apply(at_pivot, limits_of(pack)) is at_pivot


def test_next_beat_only_ever_moves_forward_one_position_step_at_a_time(pack):
    from skald.core.state import GameState

    rng = random.Random(7)
    running = episode("open", turn_budget=8)
    for _ in range(300):
        now = rng.choice(BEAT_ORDER)
        d = director(turn_count=rng.randrange(1, 20)).model_copy(update={"current_beat": now})
        turn = GameState.starting(start_campaign_state(pack))
        found = episodes.next_beat(d, running, turn, [])
        if found is not None:
            assert BEAT_ORDER.index(found[0]) == BEAT_ORDER.index(now) + 1  # no events: position, one step


def test_position_beats_spread_over_the_budget():
    marks = [episodes.position_beat(t, 10) for t in range(1, 11)]
    assert marks[0] == "establishment" and marks[-1] == "resolution"
    assert [BEAT_ORDER.index(b) for b in marks] == sorted(BEAT_ORDER.index(b) for b in marks)


# --------------------------------------------------------------------------------------------- sessions


def start_campaign_state(pack):
    from skald.core.persistent import Campaign, PersistentState, Player, World

    return PersistentState(campaign=Campaign(id="x", pack_id=pack.id, seed=1), player=Player(
        name="A", background="b", stats={}, hp=10, max_hp=10, credits=0), location=next(iter(pack.locations)),
        world=World(time_minutes=0))


@pytest.fixture
def mini():
    return load_pack(MINI)


def overlay(tmp_path: Path, text: str) -> Path:
    """An overlay of mini whose episodes.yaml is ``text`` after mini's four are disabled."""
    root = tmp_path / "ovl"
    root.mkdir()
    (root / "era.yaml").write_text(f"id: ovl\nextends: {MINI}\n", encoding="utf-8")
    disabled = "".join(f"- id: {e}\n  disabled: true\n" for e in MINI_EPISODES)
    (root / "episodes.yaml").write_text(disabled + text, encoding="utf-8")
    return root


class Game:
    """A campaign on a real SQLite file, played offline one line at a time."""

    def __init__(self, conn, pack, llm, seed: int = 2, graph=None):
        self.conn, self.pack, self.llm, self.graph = conn, pack, llm, graph
        self.state = start_campaign(conn, pack, seed=seed, campaign_id=f"ep-{seed}")

    def play(self, text: str):
        played = run_turn(self.conn, self.state.model_copy(update={"player_input": text}), pack=self.pack,
                          llm=self.llm, retriever=None, graph=self.graph)
        self.state = reads.load_state(self.conn, self.state.campaign.id)
        return played

    @property
    def director(self) -> DirectorState:
        return self.state.director


def test_a_turn_limited_episode_ends_exactly_at_its_budget_and_meta_turns_never_count(conn, mini, offline_llm):
    game = Game(conn, mini, offline_llm)
    for n in range(1, 4):
        played = game.play("look around")
        assert played.view.episode.id == "first_night" and played.view.episode.turn_count == n
        assert not played.view.episode.ended
        for command in ("/status", "/episode", "/journal", "/end", "/next"):  # answered, never counted
            meta = game.play(command)
            assert meta.view.intent.value == "META"
        assert game.director.turn_count == n and game.state.campaign.story_turns == n
    assert "Type /end yes to abandon it" in game.play("/end").final_text
    last = game.play("look around")
    view = last.view.episode
    assert view.ended and view.trigger == "turn_limit" and view.turn_count == 4
    assert view.evaluation.next_episode == "the_toll" and view.evaluation.story_turns == 4
    assert view.beat == "resolution" and view.progress.startswith("Episode 1 of ")  # progress_visible
    assert game.director.episode is None and game.director.played == ["first_night"]
    assert [e.share_id for e in stored.evaluations(conn, game.state.campaign.id)] == [view.evaluation.share_id]
    assert "this story" in last.final_text or "wait for another day" in last.final_text or \
        "run out" in last.final_text  # the offline narrator lands the ending


def test_an_objective_episode_ends_the_turn_a_quest_stage_sets_its_flag(conn, mini, offline_llm):
    game = Game(conn, mini, offline_llm)
    for _ in range(4):
        game.play("look around")
    assert game.director.played == ["first_night"]
    offered = game.play("talk to Mara Vell")  # the quest is taken on: the_toll starts by itself
    assert offered.view.episode.id == "the_toll" and offered.view.episode.started
    game.play("buy a lamp")
    game.play("go to the old road")
    assert game.state.location == "old_road" and game.director.episode == "the_toll"
    assert "toll_explained" not in game.director.flags
    done = game.play("ask Tam Rook about the toll")
    assert "toll_explained" in game.state.director.flags
    assert done.view.episode.ended and done.view.episode.trigger == "objective_met"
    assert done.view.episode.evaluation.outcome == "won"


def test_a_beat_gated_episode_ends_when_its_pivot_lands(conn, tmp_path, offline_llm):
    pack = load_pack(overlay(tmp_path, (
        "- id: gate\n  title: The Gate\n  premise: A toll to explain.\n  completion_mode: beat_gated\n"
        "  turn_budget: 30\n  completion_criteria:\n    required_beat: pivot\n")))
    game = Game(conn, pack, offline_llm)
    for line in ("talk to Mara Vell", "buy a lamp", "go to the old road"):
        played = game.play(line)
        assert not played.view.episode.ended
    assert BEAT_ORDER.index(game.director.current_beat) < BEAT_ORDER.index("pivot")
    done = game.play("ask Tam Rook about the toll")  # fair_toll's final stage: the pivot
    assert done.view.episode.ended and done.view.episode.trigger == "beat_complete"
    log = reads.turn_events(conn, game.state.campaign.id)
    this_turn = [(e["type"], e["data"].get("reason")) for e in log if e["turn_number"] == done.view.turn_number]
    assert ("BEAT_REACHED", "pivot") in this_turn


def test_an_open_episode_ends_only_on_end_which_is_committed_but_not_a_story_turn(conn, tmp_path, offline_llm):
    pack = load_pack(overlay(tmp_path, "- id: wander\n  title: Wandering\n  premise: Nothing presses.\n"
                                       "  completion_mode: open\n  turn_budget: 3\n"))
    game = Game(conn, pack, offline_llm)
    for _ in range(8):
        assert not game.play("look around").view.episode.ended
    before = game.state.campaign
    assert game.director.current_beat == "escalation"  # the turn count alone never reaches the pivot
    ended = game.play("/end")
    assert ended.view.episode.ended and ended.view.episode.trigger == "player_end"
    assert game.state.campaign.turn_number == before.turn_number + 1  # committed
    assert game.state.campaign.story_turns == before.story_turns  # not a story turn
    assert ended.view.episode.evaluation.story_turns == 8
    assert "nothing to end" in game.play("/end").final_text  # nothing runs now


def test_next_starts_the_suggested_episode_and_next_id_picks_another(conn, mini, offline_llm):
    game = Game(conn, mini, offline_llm)
    for _ in range(4):
        game.play("look around")
    assert game.director.suggested == "the_toll"
    assert "No episode called" in game.play("/next nowhere").final_text
    picked = game.play("/next wolf_road")
    assert picked.view.episode.started and game.director.episode == "wolf_road"
    assert game.director.turn_count == 0
    assert "still running" in game.play("/next").final_text


def test_an_episode_waiting_on_its_flag_is_neither_suggested_nor_started_by_a_bare_next(conn, tmp_path, offline_llm):
    """Found by a designer's pack written without the code: an episode whose premise is a truce, starting on the
    truce's flag, was suggested and started by /next in every campaign though nothing ever set the flag. It starts
    by itself when its flag is set; until then the game offers what is ready, or nothing."""
    pack = load_pack(overlay(tmp_path, (
        "- id: opening\n  title: Opening\n  premise: A first look around.\n  completion_mode: turn_limited\n"
        "  turn_budget: 2\n"
        "- id: truce\n  title: The Truce\n  premise: The rivals have signed a truce.\n"
        "  completion_mode: turn_limited\n  turn_budget: 6\n  starts_at:\n    flag: truce_signed\n")))
    game = Game(conn, pack, offline_llm)
    for _ in range(2):
        ended = game.play("look around")
    assert ended.view.episode.ended and game.director.suggested is None
    refused = game.play("/next")
    assert "No episode is waiting to start" in refused.final_text and game.director.episode is None
    assert game.play("/next truce").view.episode.started  # named, it starts: the player chose it


def test_the_event_log_folds_to_the_stored_director_state_and_evaluations(conn, mini, offline_llm):
    game = Game(conn, mini, offline_llm)
    for line in ["look around"] * 4 + ["talk to Mara Vell", "/next", "buy a lamp", "go to the old road",
                                        "ask Tam Rook about the toll", "/episode", "/next quiet_years", "rest",
                                        "/end"]:
        game.play(line)
    cid = game.state.campaign.id
    folded = replay_log(reads.initial_state(conn, cid), reads.event_log(conn, cid), limits_of(mini))
    assert folded.director == game.state.director
    from_log = [e.evaluation for _, e in reads.event_log(conn, cid) if isinstance(e, ev.EpisodeCompleted)]
    assert from_log == stored.evaluations(conn, cid) and len(from_log) >= 2
    rows = conn.execute("SELECT number, episode_id, share_id, evaluation FROM episode_evaluations WHERE "
                        "campaign_id = ? ORDER BY number", (cid,)).fetchall()
    assert [(r[0], r[1], r[2]) for r in rows] == [(e.number, e.episode, e.share_id) for e in from_log]
    assert all(json.loads(r[3])["summary"] for r in rows)


def test_a_crash_between_completion_and_evaluation_leaves_neither(conn, mini, offline_llm):
    def broken(state, runtime):
        if state.episode_progress is not None and state.episode_progress.ending:
            raise RuntimeError("evaluator died")
        return {}

    game = Game(conn, mini, offline_llm, graph=build_graph({"evaluator": broken}).compile())
    for _ in range(3):
        game.play("look around")
    before = game.state
    with pytest.raises(RuntimeError, match="evaluator died"):
        game.play("look around")  # the 4th story turn would end first_night
    after = reads.load_state(conn, before.campaign.id)
    assert after.campaign == before.campaign and after.director == before.director
    assert stored.evaluations(conn, before.campaign.id) == []
    assert not [e for _, e in reads.event_log(conn, before.campaign.id) if isinstance(e, ev.EpisodeCompleted)]
