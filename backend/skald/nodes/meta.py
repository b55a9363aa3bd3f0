"""Meta node: out-of-game commands. No game time passes, no LLM call, no events."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.rules import meta_commands, suggestions
from skald.rules.scene import everyone_at
from skald.state import GameState
from skald.store import reads


def meta(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: router_output.meta_command, the persistent state, and (for /load) the campaign list through
    the read-only connection. Writes: final_text, quit_requested, present_npcs and the
    four deterministic suggested_actions for the unchanged scene."""
    pack = runtime.context.pack
    routed = state.router_output
    campaigns = reads.list_campaigns(runtime.context.conn) if routed.meta_command == "load" else None
    text, quit_requested = meta_commands.respond(
        routed.meta_command, meta_commands.MetaContext(state.after, pack, routed.meta_args, campaigns))
    present = [p for p in everyone_at(state, pack, state.location) if p.companion or p.id in state.known_npcs]
    picks, _ = suggestions.suggest(state.after, pack, present)
    return {"final_text": text, "quit_requested": quit_requested,
            "present_npcs": present, "suggested_actions": picks}
