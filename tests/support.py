"""Paths and helpers shared by test modules (import as ``support``; ``conftest`` names collide across folders)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# What a loaded 2-core machine may add to a deadline before the code notices it passed. A test of a deadline checks
# that it held: the call ended after the deadline and well before what it cut short (a 30 s hang), never how fast.
SLACK_S = 10.0
SCRIPT_30 = ROOT / "data" / "scripts" / "cinder_reach_30.txt"


def script_lines(path: Path = SCRIPT_30) -> list[str]:
    """The non-blank lines of a scripted session."""
    return [line.rstrip("\n") for line in path.read_text().splitlines() if line.strip()]


def apply_turn(state, events, pack, turn: int):
    """``events`` folded into ``state``'s persistent fields as turn ``turn`` would fold them (turn-stamped fields
    such as ``first_met_turn`` get ``turn``); the campaign's own counter is left as it was (Commit advances it)."""
    from skald.core.events import fold, limits_of

    base = state.persistent()
    stamped = base.model_copy(update={"campaign": base.campaign.model_copy(update={"turn_number": turn})})
    return fold(stamped, list(events), limits_of(pack)).model_copy(update={"campaign": base.campaign})


def at_turn(state, pack):
    """``state`` as a node sees it during a turn: a turn started on its persistent fields (``GameState.starting``),
    keeping its ``player_input`` and ``router_output``, with its ``staged_events`` folded into ``after`` as
    ``events.stage`` does."""
    from skald.core.events import limits_of, stage
    from skald.core.state import GameState

    turn = GameState.starting(state, state.player_input)
    turn.router_output, turn.intent, turn.mechanic_result = state.router_output, state.intent, state.mechanic_result
    turn.present_npcs = list(state.present_npcs)
    for name, value in stage(turn.after, list(state.staged_events), limits_of(pack)).items():
        setattr(turn, name, value)
    return turn


# ---------------------------------------------------------------- the pack corpora's expected.txt files

@dataclass(frozen=True)
class Expected:
    file: str
    line: int
    field: str
    message: str


def read_expected(case: Path) -> tuple[int | None, list[Expected]]:
    """``count: N`` and blocks of ``file/line/field/message`` separated by blank lines; ``#`` lines are comments."""
    count: int | None = None
    blocks: list[dict[str, str]] = [{}]
    for raw in (case / "expected.txt").read_text(encoding="utf-8").splitlines():
        if raw.startswith("#"):
            continue
        if not raw.strip():
            blocks.append({})
            continue
        key, _, value = raw.partition(":")
        if key.strip() == "count":
            count = int(value)
        else:
            blocks[-1][key.strip()] = value.strip()
    wanted = [Expected(b["file"], int(b["line"]), b["field"], b["message"]) for b in blocks if b]
    assert wanted, f"{case}/expected.txt names no issue"
    return count, wanted


def same_file(issue: Any, case: Path, rel: str) -> bool:
    """Whether a ``PackIssue`` is about the file ``rel`` of the case folder."""
    return Path(issue.file).resolve() == (case / rel).resolve()


def second_move(folder: Path, pack_id: str, first: str, then: str, llm: Any) -> tuple[Any, Any]:
    """``then`` as the second move of a fresh game (seed 1) on ``pack_id``, in a save file in ``folder``: (the state
    before it, the state after it)."""
    from skald.engine import start_campaign
    from skald.graph import run_turn
    from skald.packs.loader import load_pack
    from skald.store.db import connect

    pack = load_pack(pack_id)
    conn = connect(folder / "second_move.db")
    try:
        state = before = start_campaign(conn, pack, seed=1, campaign_id="second-move")
        for line in (first, then):
            before = state
            state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm,
                             retriever=None)
    finally:
        conn.close()
    return before, state


def answer_to(folder: Path, pack_id: str, first: str, then: str, llm: Any) -> str:
    """What the rules answered ``then``, played as the second move (:func:`second_move`): the turn's mechanic
    summary, or its prose when it had none."""
    _, state = second_move(folder, pack_id, first, then, llm)
    return state.mechanic_result.summary if state.mechanic_result else state.final_text


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in the Python file ``path``, at any depth (inside functions and
    ``TYPE_CHECKING`` blocks too); ``from skald import x`` is ``skald.x``; relative imports are left out."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            found += [(node.lineno, node.module)] if node.module != "skald" else [
                (node.lineno, f"skald.{alias.name}") for alias in node.names]
    return found
