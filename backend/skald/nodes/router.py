"""Router node: classify the input into META / TALK / ACTION and an action class; TALK gets its result here."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald import events as ev
from skald.context import TurnContext
from skald.rules import checks, intent, timeline
from skald.state import GameState
from skald.vocab import Intent


def router(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: player_input, location, player, companions. Writes: router_output, intent, and for TALK the
    synthesised mechanic_result (8 minutes, no roll) with its staged events and after."""
    pack = runtime.context.pack
    routed = intent.classify(state.player_input, state, pack)
    update: dict = {"router_output": routed, "intent": routed.intent}
    if routed.intent == Intent.TALK:
        talk = checks.talk_result(routed, state, pack)
        update |= {"mechanic_result": talk.result} | ev.stage(state.after, talk.events, runtime.context.limits)
    return update


ROUTES = {Intent.META.value: "meta", Intent.TALK.value: "encounter", Intent.ACTION.value: "mechanic",
          "timeline": "timeline"}


def route_after_router(state: GameState) -> str:
    """The conditional edge, by intent (``ROUTES``): META -> meta (a timeline command -> timeline), TALK ->
    encounter, ACTION -> mechanic."""
    if state.intent == Intent.META and state.router_output.meta_command in timeline.COMMANDS:
        return "timeline"
    return state.intent.value
