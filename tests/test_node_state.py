"""A node reads one state: "now" is ``state.after`` and the turn's starting point is ``state.before``; the bare
persistent fields of the ``GameState`` it is given (``state.combat``, ``state.location``...) are the committed copy,
easy to take for "now", so no node reads them. And no node folds events by hand: each stages them through
``events.stage`` or ``events.Staging``, which fold every event exactly once."""

from __future__ import annotations

import ast

import pytest
from skald.core import events as ev
from skald.core.persistent import PERSISTENT_FIELDS, PersistentState
from skald.core.state import GameState
from skald.rules.start import new_state
from support import ROOT

NODES = ROOT / "backend" / "skald" / "nodes"


@pytest.fixture
def campaign_state(pack) -> PersistentState:
    return new_state(pack, seed=3, campaign_id="node-state").persistent()


def _game_state_functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for arg in node.args.args:
                note = arg.annotation
                if (note.id if isinstance(note, ast.Name) else getattr(note, "value", None)) == "GameState":
                    yield node, arg.arg


def bare_reads(source: str) -> list[str]:
    """``line: name.field`` for every read of a persistent field straight off a ``GameState`` parameter."""
    found = []
    for function, name in _game_state_functions(ast.parse(source)):
        found += [f"{n.lineno}: {name}.{n.attr}" for n in ast.walk(function)
                  if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name
                  and n.attr in PERSISTENT_FIELDS]
    return found


def hand_folds(source: str) -> list[str]:
    """``line: call`` for every ``fold(...)`` or ``.apply(...)`` call (an event applied by hand)."""
    found = []
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute | ast.Name):
            called = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
            if called in ("fold", "apply", "replay_log"):
                found.append(f"{n.lineno}: {called}")
    return found


def test_no_node_reads_the_committed_copy_as_now():
    wrong = [f"nodes/{p.name}:{hit}" for p in sorted(NODES.glob("*.py")) for hit in bare_reads(p.read_text())]
    assert wrong == []


def test_no_node_folds_events_by_hand():
    wrong = [f"nodes/{p.name}:{hit}" for p in sorted(NODES.glob("*.py")) for hit in hand_folds(p.read_text())]
    assert wrong == []


def test_the_checks_see_what_they_forbid():
    planted = ("def node(state: GameState, runtime):\n"
               "    if state.combat is not None and state.after.combat is None and state.before.location:\n"
               "        after = ev.fold(state.after, [], limits)\n"
               "        return start.apply(after, limits)\n")
    assert bare_reads(planted) == ["2: state.combat"]
    assert hand_folds(planted) == ["3: fold", "4: apply"]


def test_before_is_the_committed_state_and_after_is_now(campaign_state: PersistentState):
    state = GameState.starting(campaign_state, "look around")
    assert state.before.campaign.turn_number == campaign_state.campaign.turn_number
    assert state.after.campaign.turn_number == campaign_state.campaign.turn_number + 1


def test_staging_folds_each_event_once_in_order(campaign_state: PersistentState):
    limits = ev.Limits()
    staging = ev.Staging(campaign_state, limits)
    assert staging.update() == {}
    first = ev.FlagSet(flag="a", source="test")
    after = staging.add(first)
    assert "a" in after.director.flags and "a" not in campaign_state.director.flags
    staging.add(ev.FlagSet(flag="b", source="test"))
    update = staging.update()
    assert [e.flag for e in update["staged_events"]] == ["a", "b"]
    assert update["after"] == ev.fold(campaign_state, update["staged_events"], limits)
    assert ev.stage(campaign_state, update["staged_events"], limits) == update
