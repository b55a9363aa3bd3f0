"""Commit node: the only writer. One transaction stores the events and the projected state; nothing is folded or
read back."""

from __future__ import annotations

import json

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.rules import memory
from skald.state import PERSISTENT_FIELDS, GameState
from skald.store import writer
from skald.vocab import Intent


def commit(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: the whole state. Writes to SQLite in one ``BEGIN IMMEDIATE`` transaction (``store.writer.commit_turn``):
    the staged events, the projected state ``after`` (with this turn's counters and summary, ``GameState.closing``),
    the rendered turn and its memory. Returns that state as the new persistent fields: what this transaction
    committed, never a later read.

    :raises TurnConflictError: another turn on this campaign committed first; nothing was written.
    """
    committed = state.closing()
    result = state.mechanic_result
    row = writer.TurnRow(
        input=state.player_input, intent=state.intent.value if state.intent else None,
        action_class=state.router_output.action_class.value if state.router_output else None,
        outcome=result.outcome.value if result else None, text=state.final_text,
        suggestions=json.dumps([s.model_dump(mode="json") for s in state.suggested_actions]),
        warnings=json.dumps(state.warnings), mechanic=result.model_dump_json() if result else None,
        llm_calls=json.dumps([c.model_dump(mode="json") for c in state.llm_calls]),
        lore_citations=json.dumps(state.lore_citations))
    story = state.intent != Intent.META
    writer.commit_turn(runtime.context.conn, writer.CommittedTurn(
        before=state, after=committed, events=state.staged_events, row=row,
        memory=memory.summarize(state, runtime.context.pack) if story else None))
    return {name: getattr(committed, name) for name in PERSISTENT_FIELDS} | {"after": committed}
