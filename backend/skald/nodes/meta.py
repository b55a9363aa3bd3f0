"""Meta node: out-of-game commands. Not a turn: no game time passes, nothing is committed, no LLM is called, and the
standing suggestions (and so what 1-4 play) stay as they were."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald import views
from skald.context import TurnContext
from skald.rules import meta_commands, suggestions
from skald.rules.scene import everyone_at
from skald.state import GameState
from skald.store import reads


def meta(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: router_output.meta_command, the committed state, and (for /load) the campaign list through the
    read-only connection. Writes: final_text, quit_requested, suggested_actions (the standing offer, unchanged) and
    the turn's ``view``; the graph ends here."""
    ctx = runtime.context
    pack = ctx.pack
    routed = state.router_output
    campaigns = reads.list_campaigns(ctx.conn) if routed.meta_command == "load" else None
    text, quit_requested = meta_commands.respond(
        routed.meta_command, meta_commands.MetaContext(state, pack, routed.meta_args, campaigns, ctx.resume))
    offer = list(state.offer)
    if not offer:  # a save from before the offer was kept, with no turn played yet
        present = [p for p in everyone_at(state, pack, state.location) if p.companion or p.id in state.known_npcs]
        offer, _ = suggestions.suggest(state, pack, present)
    shown = state.model_copy(update={"final_text": text, "quit_requested": quit_requested,
                                     "suggested_actions": offer})
    return {"final_text": text, "quit_requested": quit_requested, "suggested_actions": offer,
            "view": views.turn(shown, pack, offline=not ctx.llm.online)}
