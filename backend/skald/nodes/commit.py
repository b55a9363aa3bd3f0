"""Commit node: the only writer. One transaction stores the events, the projected state, the rendered turn and (under
an idempotency key) the turn's response; nothing is folded or read back."""

from __future__ import annotations

import dataclasses
import json

from langgraph.runtime import Runtime

from skald import views
from skald.context import TurnContext
from skald.core.persistent import PERSISTENT_FIELDS, PersistentState
from skald.core.state import GameState
from skald.core.vocab import Intent
from skald.llm import briefs, offline
from skald.rules import memory
from skald.store import briefs as stored_briefs
from skald.store import writer


def commit(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: the whole state. Writes to the store in one transaction (``store.writer.commit_turn``; SQLite's
    ``BEGIN IMMEDIATE``, or PostgreSQL's with the campaign's row locked):
    the staged events, the projected state ``after`` (with this turn's counters and summary, ``GameState.closing``),
    the rendered turn, its memory and, when the context carries an idempotency key, the key with this turn's view.
    Returns that state as the new persistent fields, and ``view`` (``TurnView``): what this transaction
    committed, never a later read.

    :raises TurnConflictError: another turn on this campaign committed first; nothing was written.
    :raises KeyTaken: another turn holds the idempotency key; nothing was written.
    :raises TurnCancelled: the turn was asked to stop (``turn_cancel``); nothing was written.
    """
    ctx = runtime.context
    if ctx.cancel is not None:
        ctx.cancel.committing()
    if state.timeline_move is not None:
        return _commit_move(state, ctx)
    committed = state.closing()
    offline = not ctx.llm.online
    played = state.model_copy(update={name: getattr(committed, name) for name in PERSISTENT_FIELDS})
    view = views.turn(played, ctx.pack, offline=offline)
    result = state.mechanic_result
    row = writer.TurnRow(
        input=state.player_input, intent=state.intent.value if state.intent else None,
        action_class=state.router_output.action_class.value if state.router_output else None,
        outcome=result.outcome.value if result else None, text=state.final_text,
        suggestions=json.dumps([s.model_dump(mode="json") for s in state.suggested_actions]),
        warnings=json.dumps(state.warnings), mechanic=result.model_dump_json() if result else None,
        llm_calls=json.dumps([c.model_dump(mode="json") for c in state.llm_calls]),
        lore_citations=json.dumps(state.lore_citations), offline=offline, **_brief(state, ctx))
    keyed = dataclasses.replace(ctx.keyed, response=view.model_dump_json()) if ctx.keyed else None
    writer.commit_turn(ctx.conn, writer.CommittedTurn(
        before=state, after=committed, events=state.staged_events, row=row, keyed=keyed, position=ctx.position,
        memory=memory.summarize(state, ctx.pack) if state.intent != Intent.META else None), clock=ctx.clock)
    return {name: getattr(committed, name) for name in PERSISTENT_FIELDS} | {"after": committed, "view": view}


def _commit_move(state: GameState, ctx: TurnContext) -> dict:
    """A timeline command's move (``rules.timeline``): carried out in one transaction (``writer.apply_move``); the
    player is shown the command's line and the scene at the head they then stand at, with its standing offer."""
    move = state.timeline_move
    branch = state.branch if move.kind == "delete" else move.branch
    shown: dict = {}

    def respond(moved: PersistentState) -> str:  # inside the move's transaction (stored with an idempotency key)
        scene = offline.scene_text(moved, ctx.pack, resumed=moved.campaign.turn_number > 0, words=ctx.words)
        update = {name: getattr(moved, name) for name in PERSISTENT_FIELDS} | {
            "after": moved, "branch": branch, "variant": 0, "final_text": f"{state.final_text}\n\n{scene}",
            "suggested_actions": list(moved.offer)}
        view = views.turn(state.model_copy(update=update), ctx.pack, offline=not ctx.llm.online)
        shown.update(update | {"view": view})
        return view.model_dump_json()

    cid = state.before.campaign.id
    writer.apply_move(ctx.conn, cid, move, ctx.limits, ctx.keyed, respond, clock=ctx.clock)
    ctx.llm.briefs.forget(briefs.holder(cid, move.branch))  # they may recall turns off the new line
    return shown


def _brief(state: GameState, ctx: TurnContext) -> dict:
    """The turn's scene key and, when it is not the one already stored for that scene on the branch's line, the
    scene's brief with its origin, for the ``turns`` row (so replay and resume never write it again;
    ``store.briefs.latest`` reads it back). A brief is stored once each time it changes, not with every turn: it was
    1.4 of the 4.6 KiB a turn added to the save file."""
    shown = state.director_instructions
    scene = shown.scene_brief or shown.brief if shown is not None else None
    if scene is None:
        return {}
    kept = {"brief": scene.model_dump(mode="json"), "origin": shown.brief_origin}
    stored = stored_briefs.latest_kept(ctx.conn, state.before.campaign.id, scene.scene_key, state.branch,
                                       state.before.campaign.turn_number)
    return {"scene_key": scene.scene_key, "brief": None if stored == kept else json.dumps(kept)}
