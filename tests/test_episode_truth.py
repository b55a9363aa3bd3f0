"""What an episode's result says is what happened (issue 32): every shipped episode of both base packs, played idly
("look around") and with refused lines only, is never WON and names no turning point it did not have; the premise
followed wins; key moments are turns where something changed, quoted in whole sentences; a mixed result names only
what was lost; beats the pack ties to signals are reached by them alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from skald.core import events as ev
from skald.core.pack import Episode
from skald.engine import start_campaign
from skald.graph import run_turn
from skald.llm.client import LLMClient
from skald.packs.loader import PackError, load_pack
from skald.rules import episodes
from skald.settings import Settings
from skald.store import episodes as stored
from skald.store import reads
from skald.store.db import connect

MINI = Path(__file__).resolve().parent / "fixtures" / "packs" / "mini"
PACKS = ("cinder_reach", "saltmarsh_reach")
EVERY = [(pack, e.id) for pack in PACKS for e in load_pack(pack).episodes.values()]
POLICIES = {"idle": "look around", "refused": "fly to the moon and back"}


def play(tmp_path: Path, pack_id: str, lines: list[str], seed: int = 1):
    """A fresh offline campaign on a real SQLite file with ``lines`` played; (conn, campaign id, pack)."""
    pack = load_pack(pack_id)
    tmp_path.mkdir(parents=True, exist_ok=True)
    conn = connect(tmp_path / "truth.db")
    llm = LLMClient(Settings(), online=False)
    state = start_campaign(conn, pack, seed=seed, campaign_id=f"truth-{seed}")
    for line in lines:
        run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm, retriever=None)
        state = reads.load_state(conn, state.campaign.id)
    return conn, state.campaign.id, pack


def turns_that_changed(conn, campaign_id: str) -> set[int]:
    by_turn: dict[int, list[ev.BaseEvent]] = {}
    for row in reads.turn_events(conn, campaign_id):
        by_turn.setdefault(row["turn_number"], []).append(ev.from_row(row["type"], row["data"]))
    return {t for t, events in by_turn.items() if episodes.changed_by(events)
            or any(isinstance(e, ev.EpisodeStarted) for e in events)}


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize(("pack_id", "episode_id"), EVERY, ids=[f"{p}-{e}" for p, e in EVERY])
def test_an_episode_played_idly_or_refused_is_never_won(tmp_path, pack_id, episode_id, policy):
    running = load_pack(pack_id).episodes[episode_id]
    length = (running.turn_budget or 12) + 1
    conn, campaign, pack = play(tmp_path, pack_id, [f"/next {episode_id}"] + [POLICIES[policy]] * length)
    try:
        results = [e for e in stored.evaluations(conn, campaign) if e.episode == episode_id]
        if running.completion_mode != "open":
            assert results, f"{episode_id} did not end in {length} story turns"
        changed = turns_that_changed(conn, campaign)
        for result in results:
            assert result.outcome != "won", result.summary
            assert "turning point" not in result.summary.lower(), result.summary
            assert "cost you" not in result.summary or "HP" in result.summary, result.summary
            assert all(k.turn in changed for k in result.key_moments), result.key_moments
            assert all(k.line.endswith((".", "!", "?")) for k in result.key_moments), result.key_moments
            assert f"{result.story_turns} story turn{'s' * (result.story_turns != 1)} " in result.summary
    finally:
        conn.close()


def test_the_premise_followed_wins_and_its_turning_point_is_the_core_pulled(tmp_path):
    lines = ["/next waking_drill", "talk to tobin", "yes", "go to the drill graveyard",
             *["pull the control core from the drill"] * 3, *["attack the scrap hounds"] * 4,
             *["go to the scrip market"] * 2, "talk to tobin"]
    conn, campaign, _ = play(tmp_path, "cinder_reach", lines)
    try:
        [result] = [e for e in stored.evaluations(conn, campaign) if e.episode == "waking_drill"]
        assert result.outcome == "won" and result.trigger == "beat_complete"
        log = [(r["type"], r["data"].get("beat"), r["data"].get("reason")) for r in reads.turn_events(conn, campaign)]
        assert ("BEAT_REACHED", "escalation", "signal") in log  # the drill graveyard reached
        assert ("BEAT_REACHED", "pivot", "signal") in log  # the core pulled: the quest's second stage
        assert all(k.turn in turns_that_changed(conn, campaign) for k in result.key_moments)
    finally:
        conn.close()


PREMISES = [  # (pack, episode, a play that does what its premise asks)
    ("cinder_reach", "thin_water", ["/next thin_water", "talk to hesper", "yes", "go to the scrip market",
                                    *["persuade juno to tell me why the water was cut"] * 3,
                                    "go to the cistern yard", "search the yard", "go to the slag and lantern",
                                    "tell hesper what i found"]),
    ("saltmarsh_reach", "one_tide_in", ["talk to odile", "yes", "persuade odile to give me an advance"]),
]


@pytest.mark.parametrize(("pack_id", "episode_id", "lines"), PREMISES, ids=[p[1] for p in PREMISES])
def test_other_premises_followed_win(tmp_path, pack_id, episode_id, lines):
    conn, campaign, _ = play(tmp_path, pack_id, lines)
    try:
        [result] = [e for e in stored.evaluations(conn, campaign) if e.episode == episode_id]
        assert result.outcome == "won", result.summary
        assert all(k.turn in turns_that_changed(conn, campaign) for k in result.key_moments)
    finally:
        conn.close()


# ---------------------------------------------------------------------------------------------- the rules alone


def test_position_never_reaches_the_pivot_nor_a_beat_with_a_signal():
    from skald.core.persistent import DirectorState
    from skald.core.state import GameState
    from skald.rules.start import new_state

    pack = load_pack(MINI)
    turn = GameState.starting(new_state(pack, seed=1))
    plain = Episode.model_validate({"id": "e", "title": "E", "premise": "P.", "completion_mode": "beat_gated",
                                    "turn_budget": 10})
    tied = Episode.model_validate({**plain.model_dump(), "beats": {"complication": {"flag": "lamp_lit"}}})
    for count in range(1, 40):
        for beat in ("establishment", "complication", "escalation"):
            d = DirectorState(episode="e", number=1, current_beat=beat, turn_count=count)
            found = episodes.next_beat(d, plain, turn, [])
            assert found is None or found[0] not in episodes.SIGNAL_BEATS
            assert episodes.next_beat(d.model_copy(update={"current_beat": "establishment"}), tied, turn, []) is None
    flagged = [ev.FlagSet(flag="lamp_lit", source="test")]
    d = DirectorState(episode="e", number=1, current_beat="establishment", turn_count=1)
    assert episodes.next_beat(d, tied, turn, flagged) == ("complication", "signal")
    assert not episodes.classifier_may_reach(plain, "pivot") and not episodes.classifier_may_reach(tied, "complication")
    assert episodes.classifier_may_reach(plain, "escalation")


def test_a_key_moment_quotes_whole_sentences_or_nothing():
    memory = "Turn 4, The Brass Eel Tavern: ask amos -> Amos shrugs. He says the tide brings what it likes, and"
    assert episodes._outcome_part(memory) == "Amos shrugs."
    assert episodes._outcome_part("Turn 4, The Brass Eel Tavern: ask amos -> Amos shrugs and turns to the") is None
    long = "Turn 9, Kettle Row: x -> " + " ".join(f"Sentence number {n} is here." for n in range(12))
    quoted = episodes._outcome_part(long)
    assert quoted.endswith(".") and len(quoted) <= episodes.QUOTED_CHARS


def test_a_result_names_only_what_was_lost():
    pack = load_pack("cinder_reach")
    hurt = episodes.Moment(turn=3, memory="", events=(ev.Damage(amount=5, source="x"),
                                                       ev.CreditsChange(delta=-4, reason="bought")))
    gained = episodes.Moment(turn=4, memory="", events=(ev.CreditsChange(delta=10, reason="paid"),))
    assert episodes.ledger([hurt], pack) == ([], ["5 HP", "4 credits"])
    gains, costs = episodes.ledger([hurt, gained], pack)
    assert gains == ["6 credits"] and costs == ["5 HP"]
    assert episodes._ending("turn_limit", "mixed") == "It ran its course, and nothing was settled either way."
    assert "cost you 5 HP" in episodes._ending("turn_limit", "mixed", [], ["5 HP"])
    assert "cost you" not in episodes._ending("turn_limit", "mixed", ["6 credits"], [])


def test_a_budget_run_out_on_a_goal_is_never_won():
    from skald.core.persistent import DirectorState
    from skald.rules.start import new_state

    running = Episode.model_validate({"id": "e", "title": "E", "premise": "P.", "completion_mode": "beat_gated",
                                      "turn_budget": 6})
    busy = DirectorState(episode="e", number=1, turn_count=6, quest_steps=2)
    assert episodes.outcome_of(busy, running, "turn_limit", new_state(load_pack(MINI), seed=1)) == "mixed"


@pytest.mark.parametrize(("beats", "field", "said"), [
    ("    pivot: {quest: no_such_quest}\n", "episodes[0].beats.pivot.quest", "'no_such_quest' is not a quest"),
    ("    pivot: {quest: fair_toll, stage: 9}\n", "episodes[0].beats.pivot.stage", "can never be done"),
    ("    pivot: {stage: 1}\n", "episodes[0].beats.pivot", "give quest too"),
    ("    pivot: {}\n", "episodes[0].beats.pivot", "needs one of quest, flag, location, met or check"),
])
def test_a_beat_signal_the_pack_cannot_give_is_an_error_at_its_field(tmp_path, beats, field, said):
    root = tmp_path / "ovl"
    root.mkdir()
    (root / "era.yaml").write_text(f"id: ovl\nextends: {MINI}\n", encoding="utf-8")
    (root / "episodes.yaml").write_text(
        "- id: gate\n  title: The Gate\n  premise: A toll.\n  completion_mode: beat_gated\n  beats:\n" + beats,
        encoding="utf-8")
    with pytest.raises(PackError) as raised:
        load_pack(root)
    hits = [i for i in raised.value.issues if i.field.startswith(field)]
    assert hits and any(said in i.message for i in hits), raised.value.issues


# ---------------------------------------------------------------------------------------------- announced


def test_the_opening_and_a_resume_name_the_episode_and_episode_tells_the_truth_before_the_first_move(tmp_path):
    from skald.llm import offline
    from skald.rules.episode_commands import episode_status

    conn, campaign, pack = play(tmp_path, "cinder_reach", [])
    try:
        state = reads.load_state(conn, campaign)
        opening = offline.scene_text(state, pack, resumed=False)
        assert "Episode 1, First Shift, begins with your first move: Kettle wakes up owing money" in opening
        said = episode_status(state, pack)
        assert said.startswith("Episode 1: First Shift (begins with your first move)") and "8 story turns" in said
        assert "No episode is running" not in said
    finally:
        conn.close()
    conn, campaign, pack = play(tmp_path / "later", "cinder_reach", ["look around", "/status", "look around"])
    try:
        resumed = offline.scene_text(reads.load_state(conn, campaign), pack, resumed=True)
        assert "Episode 1, First Shift: 2 story turns in, at the complication, 6 story turns left at most." in resumed
    finally:
        conn.close()


# ---------------------------------------------------------------------------------------------- lifecycle


def _mini_overlay(root: Path, episodes_yaml: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "era.yaml").write_text(f"id: ovl\nextends: {MINI}\n", encoding="utf-8")
    disabled = "".join(f"- id: {e}\n  disabled: true\n" for e in ("first_night", "the_toll", "wolf_road",
                                                                  "quiet_years"))
    (root / "episodes.yaml").write_text(disabled + episodes_yaml, encoding="utf-8")
    return root


GATE = ("- id: gate\n  title: The Gate\n  premise: A toll to explain.\n  completion_mode: beat_gated\n"
        "  turn_budget: 30\n")


def test_an_episode_a_pack_edit_removes_ends_abandoned_and_is_journalled(tmp_path):
    root = _mini_overlay(tmp_path / "ovl", GATE)
    pack = load_pack(root)
    conn = connect(tmp_path / "gone.db")
    llm = LLMClient(Settings(), online=False)
    try:
        state = start_campaign(conn, pack, seed=1, campaign_id="gone-1")
        for line in ("look around", "look around"):
            run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm, retriever=None)
            state = reads.load_state(conn, state.campaign.id)
        assert state.director.episode == "gate"
        edited = load_pack(_mini_overlay(root, "- id: other\n  title: Other\n  premise: P.\n  completion_mode: open\n"
                                               "  starts_at: {flag: never_set}\n"))
        played = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=edited, llm=llm,
                          retriever=None)
        assert played.view.episode.ended and played.view.episode.trigger == "abandoned"
        [result] = stored.evaluations(conn, state.campaign.id)
        assert result.episode == "gate" and result.trigger == "abandoned" and result.outcome != "won"
        assert "taken out of the pack" in result.summary
        after = reads.load_state(conn, state.campaign.id)
        assert after.director.episode is None and after.director.played == ["gate"]
    finally:
        conn.close()


def test_end_abandons_an_episode_that_is_not_open_only_when_confirmed(tmp_path):
    conn, campaign, _ = play(tmp_path, "cinder_reach", ["look around", "/end"])
    try:
        assert reads.load_state(conn, campaign).director.episode == "first_shift"  # a stray /end abandons nothing
        assert stored.evaluations(conn, campaign) == []
    finally:
        conn.close()
    conn, campaign, _ = play(tmp_path / "yes", "cinder_reach", ["look around", "/end yes"])
    try:
        [result] = stored.evaluations(conn, campaign)
        assert result.episode == "first_shift" and result.trigger == "player_end" and result.outcome != "won"
        assert reads.load_state(conn, campaign).director.episode is None
    finally:
        conn.close()


def test_share_ids_differ_for_different_episodes_of_campaigns_with_the_same_id(tmp_path):
    ids = []
    for n, lines in enumerate([["/next waking_drill", "/end yes"], ["/next thin_water", "/end yes"],
                               ["/next first_shift", "/end yes"]]):
        conn, campaign, _ = play(tmp_path / str(n), "cinder_reach", lines)  # the same campaign id in each file
        try:
            ids += [e.share_id for e in stored.evaluations(conn, campaign)]
        finally:
            conn.close()
    assert len(ids) == 3 and len(set(ids)) == 3
