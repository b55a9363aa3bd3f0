"""Timeline node: /undo, /redo, /variants, /pick, /fork, /branches, /switch, /delete-branch (``rules.timeline``).

Not a turn: no game time passes and no LLM is called. The node reads the campaign's tree through the read-only
connection and plans; a command that moves a head goes on to Commit with its :class:`~skald.rules.timeline.Move`
(Commit carries it out in one transaction and shows the scene at the new head); one that only lists, or cannot be
done, is answered here and nothing is committed.
"""

from __future__ import annotations

from langgraph.graph import END
from langgraph.runtime import Runtime

from skald import views
from skald.context import TurnContext
from skald.core.state import GameState
from skald.core.views import TimelineView
from skald.llm.offline import left_off, texture
from skald.rules import timeline as rules
from skald.store import reads, timeline
from skald.text import sentences

TIMELINE_ROUTES = {"done": END, "commit": "commit"}


def timeline_node(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: router_output (the command: typed by the engine, else parsed from the input by
    ``rules.timeline.parse``), branch, and the campaign's tree. Writes: final_text, suggested_actions (the standing
    offer), and either ``timeline_move`` (Commit carries it out) or the ``view``."""
    ctx = runtime.context
    routed = state.router_output
    call = routed.timeline or rules.parse(routed.meta_command, routed.meta_args)  # typed by the engine, or by hand
    planned = call if isinstance(call, rules.Planned) else rules.plan(call, facts(ctx, state), ctx.words)
    update: dict = {"final_text": planned.text, "suggested_actions": list(state.before.offer),
                    "timeline_view": TimelineView(command=routed.meta_command, done=planned.reason is None,
                                                        reason=planned.reason)}
    if planned.move is not None:
        return update | {"timeline_move": planned.move}
    shown = state.model_copy(update=update)
    return update | {"view": views.turn(shown, ctx.pack, offline=not ctx.llm.online)}


def facts(ctx: TurnContext, state: GameState) -> rules.Facts:
    """What the rules need to plan a command, read through the turn's read-only connection."""
    conn, cid, pack = ctx.conn, state.before.campaign.id, ctx.pack
    at = timeline.head(conn, cid, state.branch)

    def place(location: str) -> str:
        return pack.locations[location].name if location in pack.locations else location

    def first_line(text: str) -> str:  # what happened (offline.left_off), else the first sentence
        said = sentences(text)
        return left_off(said, texture(pack)) or (said[0] if said else "")

    played = timeline.variants(conn, cid, at)
    told = [sentences(t.text) for t in played]
    shared = set.intersection(*map(set, told)) if told else set()
    variants = [rules.Variant(t.variant, t.turn_id, t.input, t.outcome, _telling(said, shared))
                for t, said in zip(played, told, strict=True)]
    listed = [rules.BranchFacts(b.name, b.head.turn_number, b.tip, b.current, place(location),
                                first_line(text) if text is not None else "Where the campaign began.")
              for b, location, text in reads.branch_heads(conn, cid)]
    return rules.Facts(at.branch, at.turn_id, at.turn_number, timeline.tip(conn, cid, at.branch), variants, listed,
                       cid)


def _telling(said: list[str], shared: set[str]) -> str:
    """The line that tells one variant from the others: its first sentence the others do not have (the outcome,
    most often, opens with "You"), else its first."""
    own = [s for s in said if s not in shared]
    return next((s for s in own if s.startswith("You ")), own[0] if own else said[0] if said else "")


def route_after_timeline(state: GameState) -> str:
    """``commit`` for a command with a move, else ``done`` (END: nothing is committed)."""
    return "commit" if state.timeline_move is not None else "done"
