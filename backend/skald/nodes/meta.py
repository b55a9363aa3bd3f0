"""Meta node: out-of-game commands. Not a turn: no game time passes, no LLM is called, and the standing suggestions
(and so what 1-4 play) stay as they were. Most commands commit nothing; the episode commands ``/end`` and ``/next``
change the campaign, so their events go on to the evaluator and Commit (still not a story turn)."""

from __future__ import annotations

from langgraph.graph import END
from langgraph.runtime import Runtime

from skald import meta_commands, views
from skald.context import TurnContext
from skald.core import events as ev
from skald.core.state import GameState
from skald.nodes.episode import progress
from skald.rules import episodes, suggestions
from skald.rules.episode_commands import Act
from skald.rules.scene import everyone_at
from skald.store import episodes as stored
from skald.store import reads

META_ROUTES = {"done": END, "commit": "evaluator"}


def meta(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: router_output.meta_command, the committed state, and (for /load, /journal) the campaign list or its
    evaluations through the read-only connection. Writes: final_text, quit_requested, suggested_actions (the
    standing offer, unchanged) and the turn's ``view``; for /end and /next also the staged events, after and
    ``episode_progress`` (the graph then goes on to the evaluator and Commit)."""
    ctx = runtime.context
    pack = ctx.pack
    routed = state.router_output
    command = meta_commands.handler(routed.meta_command)
    campaigns = reads.list_campaigns(ctx.conn) if routed.meta_command == "load" else None
    journal = stored.evaluations(ctx.conn, state.before.campaign.id, state.branch) \
        if command and command.reads_journal else None
    said, quit_requested = meta_commands.respond(
        routed.meta_command, meta_commands.MetaContext(state, pack, routed.meta_args, campaigns, ctx.resume, journal,
                                                     ctx.words))
    offer = list(state.before.offer)
    if not offer:  # a save from before the offer was kept, with no turn played yet
        before = state.before
        present = [p for p in everyone_at(state, pack, before.location) if p.companion or p.id in before.known_npcs]
        offer, _ = suggestions.suggest(state, pack, present)
    text = said.text if isinstance(said, Act) else said
    update: dict = {"final_text": text, "quit_requested": quit_requested, "suggested_actions": offer}
    if isinstance(said, Act):
        update |= ev.stage(state.after, said.events, ctx.limits)
        after = update.get("after", state.after)
        running = pack.episodes.get(after.director.episode or "")
        if running is None and after.director.episode is not None and said.ending:  # one a pack edit removed
            running = episodes.gone(after.director.episode)
        if running is not None:
            update["episode_progress"] = progress(after, running, started=bool(said.events), ending=said.ending)
        return update
    shown = state.model_copy(update=update)
    return update | {"view": views.turn(shown, pack, offline=not ctx.llm.online)}


def route_after_meta(state: GameState) -> str:
    """The conditional edge: ``commit`` (through the evaluator) for a command that changes the campaign, else
    ``done`` (END: nothing is committed)."""
    return "done" if state.view is not None else "commit"
