"""Prompt token budgets: trimming order, warnings, rendering order, the token estimate and its calibration."""

from __future__ import annotations

import json

import pytest
from skald.llm.budget import ContextStats, Prompt, Section, SectionKind, TokenCounter, fit

SCENE, HISTORY, LORE = SectionKind.SCENE, SectionKind.HISTORY, SectionKind.LORE


def body(tokens: int, tag: str) -> str:
    """Text that, with its two-character separator, costs exactly ``tokens`` at 4 characters per token."""
    text = f"<{tag}>"
    return text + "x" * (4 * tokens - 2 - len(text))


def section(kind: SectionKind, tokens: int, tag: str, rank: int = 0) -> Section:
    return Section(kind, body(tokens, tag), rank=rank)


SYSTEM = "s" * 400  # 100 tokens


def story_prompt() -> Prompt:
    """System 100 + scene 10 + history 3 x 10 + lore 2 x 10 = 160 tokens, laid out static first."""
    return Prompt(
        system=SYSTEM,
        sections=(
            section(SCENE, 10, "scene"),
            section(LORE, 10, "lore-low", rank=1),
            section(LORE, 10, "lore-high", rank=9),
            section(HISTORY, 10, "h1", rank=1),
            section(HISTORY, 10, "h2", rank=2),
            section(HISTORY, 10, "h3", rank=3),
        ),
    )


def kept_tags(user: str) -> list[str]:
    return [chunk.split(">")[0].lstrip("<") for chunk in user.split("\n\n")]


def test_nothing_dropped_when_it_fits():
    fitted = fit(story_prompt(), "narrator", max_context=200, reserved_output=40)
    stats = fitted.stats
    assert fitted.warnings == []
    assert stats.budget == 160
    assert (stats.system_tokens, stats.scene_tokens, stats.history_tokens, stats.lore_tokens) == (100, 10, 30, 20)
    assert stats.total_tokens == stats.system_tokens + stats.scene_tokens + stats.history_tokens + stats.lore_tokens
    assert stats.total_tokens == 160
    assert (stats.history_kept, stats.history_dropped, stats.lore_kept, stats.lore_dropped) == (3, 0, 2, 0)
    assert stats.counter == "estimate: 1 token per 4 characters x 1.00"


def test_reported_total_never_undercounts_the_rendered_prompt():
    prompt = Prompt("odd length system", (Section(SCENE, "abc", title="Scene"), Section(LORE, "de", rank=1)))
    counter = TokenCounter()
    fitted = fit(prompt, "director", 100, 10, counter)
    assert fitted.stats.total_tokens >= counter.count(fitted.system) + counter.count(fitted.user)


def test_oldest_history_is_dropped_first():
    fitted = fit(story_prompt(), "narrator", max_context=200, reserved_output=50)  # budget 150: drop 1 section
    assert kept_tags(fitted.user) == ["scene", "lore-low", "lore-high", "h2", "h3"]  # lore in the order given
    assert (fitted.stats.history_kept, fitted.stats.history_dropped) == (2, 1)
    assert fitted.stats.lore_dropped == 0
    assert fitted.stats.total_tokens == 150


def test_older_history_goes_before_any_lore_then_lowest_ranked_lore_then_the_last_turn():
    fitted = fit(story_prompt(), "narrator", max_context=200, reserved_output=80)  # budget 120: drop 4 sections
    assert kept_tags(fitted.user) == ["scene", "h3"]  # the last turn is kept longest
    stats = fitted.stats
    assert (stats.history_kept, stats.history_dropped, stats.lore_kept, stats.lore_dropped) == (1, 2, 0, 2)
    assert stats.total_tokens == 120 <= stats.budget


def test_trimming_stops_as_soon_as_the_prompt_fits():
    fitted = fit(story_prompt(), "narrator", max_context=200, reserved_output=59)  # budget 141: 2 drops suffice
    assert kept_tags(fitted.user) == ["scene", "lore-low", "lore-high", "h3"]
    assert fitted.stats.total_tokens == 140


def test_single_trim_warning_with_counts():
    fitted = fit(story_prompt(), "narrator", max_context=200, reserved_output=70)  # budget 130: drop 3 history
    assert fitted.warnings == [
        "narrator: trimmed the prompt to fit 130 tokens: dropped 2 history and 1 lore section(s)"
    ]
    fitted = fit(story_prompt(), "narrator", max_context=200, reserved_output=90)  # budget 110: drop everything
    assert fitted.warnings == [
        "narrator: trimmed the prompt to fit 110 tokens: dropped 3 history and 2 lore section(s)"
    ]


def test_scene_is_kept_and_flagged_when_system_and_scene_exceed_the_budget():
    prompt = Prompt(SYSTEM, (section(SCENE, 10, "s1"), section(SCENE, 10, "s2"), section(HISTORY, 5, "h", rank=1)))
    fitted = fit(prompt, "refiner", max_context=150, reserved_output=50)  # budget 100 < system 100 + scenes 20
    assert kept_tags(fitted.user) == ["s1", "s2"]
    assert fitted.stats.total_tokens == 120
    assert fitted.warnings == [
        "refiner: trimmed the prompt to fit 100 tokens: dropped 1 history and 0 lore section(s)",
        "refiner: prompt exceeds its budget (120 of 100 tokens) even after trimming",
    ]


def test_over_budget_warning_alone_when_there_is_nothing_to_drop():
    fitted = fit(Prompt(SYSTEM, (section(SCENE, 10, "s"),)), "narrator", max_context=100, reserved_output=10)
    assert fitted.warnings == ["narrator: prompt exceeds its budget (110 of 90 tokens) even after trimming"]
    assert fitted.user == body(10, "s")


def test_render_order_is_the_order_given_with_titles_and_the_system_apart():
    system = "Rules: narrate one turn.\n\nStyle guide: terse."
    prompt = Prompt(
        system=system,
        sections=(
            Section(SCENE, "scene A"),
            Section(LORE, "weak lore", rank=2),
            Section(SCENE, "scene B", title="Present"),
            Section(HISTORY, "turn 3", rank=3),
            Section(HISTORY, "turn 7", rank=7, title="Earlier"),
            Section(LORE, "strong lore", rank=8, title="Lore"),
            Section(SectionKind.TURN, "input and outcome", title="This turn:"),
        ),
    )
    fitted = fit(prompt, "narrator", max_context=4096, reserved_output=512)
    # the builder lays its prompt out static first; fit keeps that order, whatever the kinds
    assert fitted.user == "\n\n".join(["scene A", "weak lore", "Present\nscene B", "turn 3", "Earlier\nturn 7",
                                        "Lore\nstrong lore", "This turn:\ninput and outcome"])
    assert fitted.system == system  # returned unchanged: nothing per-turn is mixed into the static part
    assert "turn 3" not in fitted.system and "Style guide" not in fitted.user
    trimmed = fit(prompt, "narrator", max_context=4096, reserved_output=512,
                  target=fitted.stats.total_tokens - 2)  # one section over: the oldest turn goes, the order holds
    assert trimmed.user == "\n\n".join(["scene A", "weak lore", "Present\nscene B", "Earlier\nturn 7",
                                         "Lore\nstrong lore", "This turn:\ninput and outcome"])


def test_ties_are_broken_by_given_order_deterministically():
    prompt = Prompt(
        "",
        (
            section(HISTORY, 10, "hA", rank=1),
            section(HISTORY, 10, "hB", rank=1),
            section(LORE, 10, "lA", rank=5),
            section(LORE, 10, "lB", rank=5),
        ),
    )
    assert kept_tags(fit(prompt, "r", 100, 0).user) == ["hA", "hB", "lA", "lB"]  # the order given
    # Among tied history the first-given counts as older and goes first; among tied lore the last-given goes first.
    assert kept_tags(fit(prompt, "r", 30, 0).user) == ["hB", "lA", "lB"]
    assert kept_tags(fit(prompt, "r", 10, 0).user) == ["hB"]


def test_fit_is_pure():
    prompt = story_prompt()
    counter = TokenCounter(1.25)
    first = fit(prompt, "narrator", 200, 60, counter)
    second = fit(prompt, "narrator", 200, 60, counter)
    assert first == second
    assert prompt == story_prompt()
    assert counter.factor == 1.25


def test_invalid_budget_is_rejected():
    with pytest.raises(ValueError):
        fit(story_prompt(), "narrator", max_context=100, reserved_output=100)
    with pytest.raises(ValueError):
        fit(story_prompt(), "narrator", max_context=100, reserved_output=-1)


def test_counter_estimate():
    counter = TokenCounter()
    assert counter.count("") == 0
    assert counter.count("abc") == 1
    assert counter.count("abcd") == 1
    assert counter.count("abcde") == 2
    assert counter.count("x" * 400) == 100
    assert TokenCounter(1.1).count("x" * 40) == 11  # no float noise pushing it to 12
    assert TokenCounter(1.5).count("x" * 40) == 15
    assert TokenCounter(1.5).name == "estimate: 1 token per 4 characters x 1.50"


def test_observe_moves_the_factor_toward_actual_over_estimated():
    counter = TokenCounter()
    counter.observe(100, 200)  # target 2.0
    assert counter.factor == pytest.approx(0.7 * 1.0 + 0.3 * 2.0)
    counter = TokenCounter()
    counter.observe(100, 80)  # target 0.8
    assert counter.factor == pytest.approx(0.94)


def test_observe_converges_on_the_real_ratio():
    counter = TokenCounter()
    text = "y" * 1000
    for _ in range(40):
        estimated = counter.count(text)  # the caller passes what it counted with the current factor
        counter.observe(estimated, 325)  # the model always reports 325 tokens for 1000 characters
    assert counter.factor == pytest.approx(1.3, abs=0.01)
    assert counter.count(text) == pytest.approx(325, abs=3)


def test_observe_clamps_and_ignores_non_positive_values():
    counter = TokenCounter()
    for _ in range(50):
        counter.observe(10, 10_000)
    assert counter.factor == pytest.approx(3.0)
    counter = TokenCounter()
    for _ in range(50):
        counter.observe(10_000, 1)
    assert counter.factor == pytest.approx(0.5)
    counter = TokenCounter(1.2)
    counter.observe(0, 100)
    counter.observe(100, 0)
    counter.observe(-5, 100)
    assert counter.factor == 1.2
    with pytest.raises(ValueError):
        TokenCounter(0)


def test_calibrated_counter_changes_what_fits():
    prompt = story_prompt()
    assert fit(prompt, "narrator", 250, 40).warnings == []  # 160 of 210 tokens
    fitted = fit(prompt, "narrator", 250, 40, TokenCounter(1.5))  # everything now costs 1.5x: 240 > 210
    assert fitted.stats.counter == "estimate: 1 token per 4 characters x 1.50"
    assert (fitted.stats.system_tokens, fitted.stats.total_tokens) == (150, 210)
    assert (fitted.stats.history_dropped, fitted.stats.lore_dropped) == (2, 0)


def test_context_stats_json_round_trip():
    stats = fit(story_prompt(), "narrator", 200, 70).stats
    payload = stats.model_dump_json()
    assert json.loads(payload)["history_dropped"] == 2
    assert ContextStats.model_validate_json(payload) == stats
    assert set(json.loads(payload)) == {
        "role",
        "max_context",
        "reserved_output",
        "budget",
        "system_tokens",
        "scene_tokens",
        "history_tokens",
        "lore_tokens",
        "total_tokens",
        "history_kept",
        "history_dropped",
        "lore_kept",
        "lore_dropped",
        "counter",
    }
