"""Commit node: the only writer. One transaction, then the fresh state is reloaded from SQLite."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.state import PERSISTENT_FIELDS, GameState
from skald.store import reads, writer


def commit(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: the whole state. Writes to SQLite in one ``BEGIN IMMEDIATE`` transaction (see
    ``store.writer.commit_turn``), then returns every persistent field as reloaded from the database.

    :raises TurnConflictError: another turn on this campaign committed first; nothing was written.
    """
    conn = runtime.context.conn
    writer.commit_turn(conn, state, runtime.context.pack)
    fresh = reads.load_state(conn, state.campaign.id)
    return {name: getattr(fresh, name) for name in PERSISTENT_FIELDS}
