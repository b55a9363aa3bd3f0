"""Router node: classify the input into META / TALK / ACTION and an action class; TALK gets its result here."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.records import RouterOutput, TimelineCommand
from skald.core.state import GameState
from skald.core.vocab import ActionClass, Intent, Tone
from skald.rules import checks, intent, interact, semantic, timeline
from skald.rules.wishes import wish


def router(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: player_input, location, player, companions. Writes: router_output, intent, and for TALK the
    synthesised mechanic_result (8 minutes, no roll) with its staged events and after.

    A line the rules would refuse as unanswered (``interact.unanswered``) is matched by the semantic fallback
    (``rules.semantic``) to the plain line it means, which the rules then read; when that fails too and a model
    answers, the interpreter node gets its turn (``route_after_router``)."""
    pack = runtime.context.pack
    if state.command is not None:  # a timeline command sent typed: nothing to read
        return {"router_output": typed(state.command, state.player_input), "intent": Intent.META}
    routed = intent.classify(state.player_input, state, pack)
    if interact.unanswered(routed):
        line = semantic.reread(routed.text)
        routed = reread(routed, line, "semantic", state, pack) if line else routed
    return routed_update(routed, state, runtime)


def typed(command: TimelineCommand, text: str) -> RouterOutput:
    """The router's output for a timeline command the engine sent typed (``text``: how it is spelled)."""
    return RouterOutput(intent=Intent.META, action_class=ActionClass.META, tone=Tone.NEUTRAL, text=text,
                        meta_command=command.kind, timeline=command)


def reread(routed: RouterOutput, line: str, by: str, state: PersistentState, pack: EraPack) -> RouterOutput:
    """``routed`` read as ``line`` instead (``by``: 'semantic' or 'interpreter'), when the rules answer that line;
    else ``routed`` unchanged. The line is classified exactly as typed input is, so the rules decide the outcome."""
    again = intent.classify(line, state, pack)
    if (again.intent == Intent.META and again.meta_command != "inventory") or interact.unanswered(again) or \
            wish(again.text) is not None:  # taking stock is the one out-of-game command a line may mean
        return routed
    typed = getattr(state, "player_input", "")  # what the player typed, before slips were read as meant
    return again.model_copy(update={"read_as": again.text, "read_by": by,
                                    "said": intent.as_typed(typed) if typed else routed.text})


def routed_update(routed: RouterOutput, state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """The state update for ``routed``: router_output and intent, and for TALK its result, events and after."""
    update: dict = {"router_output": routed, "intent": routed.intent}
    if routed.intent == Intent.TALK:
        talk = checks.talk_result(routed, state, runtime.context.pack)
        update |= {"mechanic_result": talk.result} | ev.stage(state.after, talk.events, runtime.context.limits)
    return update


ROUTES = {Intent.META.value: "meta", Intent.TALK.value: "encounter", Intent.ACTION.value: "mechanic",
          "timeline": "timeline", "interpreter": "interpreter"}
AFTER_INTERPRETER = {key: node for key, node in ROUTES.items() if key not in ("timeline", "interpreter")}


def route_after_router(state: GameState, runtime: Runtime[TurnContext]) -> str:
    """The conditional edge, by intent (``ROUTES``): META -> meta (a timeline command -> timeline), TALK ->
    encounter, ACTION -> mechanic; a line still unanswered -> interpreter, when its role could be called (online and
    enabled; ``nodes.interpreter``)."""
    if state.intent == Intent.META and state.router_output.meta_command in timeline.COMMANDS:
        return "timeline"
    llm = runtime.context.llm
    if interact.unanswered(state.router_output) and llm.asks("interpreter"):
        return "interpreter"
    return state.intent.value


def route_after_interpreter(state: GameState) -> str:
    """After the interpreter: by intent, as after the router (``AFTER_INTERPRETER``)."""
    return state.intent.value
