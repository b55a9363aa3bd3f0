"""Interpreter node: a line the parser could not place, read by the ``interpreter`` role as one closed action.

The model proposes, the rules dispose: the reply must validate against the scene's schema
(``rules.interpretation.schema_for``: pack ids only), becomes a plain line (``rules.interpretation.line_for``) and is
classified by the router's own rules (``nodes.router.reread``). Offline, disabled, out of time, an invalid reply, or
'impossible': the router's reading stands, and the rules answer it honestly. The call is recorded like every role's.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core.state import GameState
from skald.core.vocab import Tone
from skald.llm import prompts
from skald.llm.ask import ask
from skald.nodes.router import reread, routed_update
from skald.rules import interpretation


def interpreter(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: router_output (a line ``interact.unanswered`` would refuse), the scene. Writes: router_output and
    intent read anew when the reply names an action the rules answer, plus the call's records."""
    ctx = runtime.context
    routed = state.router_output
    asked = ask(ctx.llm, "interpreter", lambda: prompts.interpreter_prompt(state, ctx.pack, routed.text),
                schema=interpretation.schema_for(state, ctx.pack), deadline=ctx.deadline)
    update = asked.update()
    line = interpretation.line_for(asked.value, state, ctx.pack) if asked.value is not None else None
    if line is None:
        return update
    again = reread(routed, line, "interpreter", state, ctx.pack)
    if again is routed:
        return update
    manner = interpretation.MANNERS[asked.value.manner]
    if manner != Tone.NEUTRAL:
        again = again.model_copy(update={"tone": manner})
    return update | routed_update(again, state, runtime)
