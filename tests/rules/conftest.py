"""Shared fixtures for the rules tests: the shipped pack, fresh states and rigged dice.

Rules are plain functions over plain data, so nothing here touches a graph or a database.
Helpers are exposed as fixtures (not imported from this module) so the tests never depend on sys.path.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from skald.core.events import fold, limits_of
from skald.core.records import RouterOutput
from skald.core.state import GameState
from skald.packs.loader import load_pack
from skald.rules import checks, intent
from skald.rules.start import new_state

PACK_ID = "cinder_reach"


class FixedD20(random.Random):
    """An RNG whose every d20 shows ``value``; any other die rolls normally from ``seed``."""

    def __init__(self, value: int, seed: int = 0):
        super().__init__(seed)
        self.value = value

    def randint(self, a: int, b: int) -> int:
        if (a, b) == (1, 20):
            return self.value
        return super().randint(a, b)


@dataclass
class Played:
    router: RouterOutput
    resolution: checks.Resolution
    after: GameState

    @property
    def result(self):
        return self.resolution.result

    @property
    def events(self):
        return self.resolution.events

    def types(self) -> list[str]:
        return [e.type for e in self.resolution.events]


@pytest.fixture(scope="session")
def pack():
    return load_pack(PACK_ID)


@pytest.fixture
def make_state(pack) -> Callable[..., GameState]:
    """``make_state(seed=7, location=None, **player_fields)``: a fresh campaign, optionally moved/edited."""

    def make(seed: int = 7, location: str | None = None, **player: object) -> GameState:
        state = new_state(pack, seed=seed, campaign_id=f"test{seed}")
        if location is not None:
            state.location = location
        for name, value in player.items():
            setattr(state.player, name, value)
        return state

    return make


@pytest.fixture
def state(make_state) -> GameState:
    return make_state()


@pytest.fixture
def d20() -> Callable[..., random.Random]:
    """``d20(value)``: an RNG whose d20 always shows ``value``."""
    return FixedD20


@pytest.fixture
def begin() -> Callable[..., GameState]:
    """``begin(state, text="")``: ``state`` as a turn starts from it (per-turn fields empty, ``after`` set)."""
    return GameState.starting


@pytest.fixture
def play(pack) -> Callable[..., Played]:
    """``play(state, text, rng)``: classify, resolve (talk or action) and fold the events, like one turn. The
    returned ``after`` keeps the campaign's turn number (Commit is what advances it)."""

    def run(state: GameState, text: str, rng: random.Random | None = None) -> Played:
        router = intent.classify(text, state, pack)
        rng = rng or random.Random(0)
        if router.action_class.value == "DIALOGUE_ONLY":
            res = checks.talk_result(router, state, pack)
        else:
            res = checks.resolve(router, state, pack, rng)
        after = fold(GameState.starting(state, text).after, res.events, limits_of(pack))
        return Played(router, res, GameState(**dict(after.model_copy(update={"campaign": state.campaign}))))

    return run
