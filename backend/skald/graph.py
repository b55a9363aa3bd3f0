"""The turn graph. Read this file top to bottom to follow one turn.

    router ──META──> meta ──> END   (an out-of-game command: answered, nothing committed, not a turn)
       │──a line the rules cannot place──> interpreter (the model reads it as one action) ──> as below
       │                 └──/end, /next──> evaluator -> commit -> END   (episode commands: committed, not a turn)
       │──/undo, /fork...──> timeline ──> END, or ──> commit -> END   (a head moved: Commit moves it, not a turn)
       │──TALK────────────────> encounter -> world_sim -> companion -> arc_planner -> episode
       └──ACTION─> mechanic ──>     -> director ─────────────────────────> narrator -> validator -> refiner
                                           └─> scene <─> character (Send, one per character) ─┘    -> evaluator
                                               (a multi-character scene: one round per beat)        -> commit -> END

Every node is a pure function of (state, runtime); handles (read-only DB, pack, LLM, RNG) arrive as the
run-time context (``TurnContext``), never as state. Only ``commit`` writes.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from skald import wallclock
from skald.context import TurnContext
from skald.core.events import limits_of
from skald.core.pack import EraPack
from skald.core.records import CharacterTask
from skald.core.state import GameState, TurnInput
from skald.llm import briefs
from skald.llm.client import LLMClient
from skald.nodes.arc_planner import arc_planner
from skald.nodes.character import character
from skald.nodes.commit import commit
from skald.nodes.companion import companion
from skald.nodes.director import director
from skald.nodes.encounter import encounter
from skald.nodes.episode import episode
from skald.nodes.evaluator import evaluator
from skald.nodes.interpreter import interpreter
from skald.nodes.mechanic import mechanic
from skald.nodes.meta import META_ROUTES, meta, route_after_meta
from skald.nodes.narrator import narrator
from skald.nodes.refiner import refiner
from skald.nodes.router import AFTER_INTERPRETER, ROUTES, route_after_interpreter, route_after_router, router
from skald.nodes.scene import route_after_scene, scene
from skald.nodes.timeline import TIMELINE_ROUTES, route_after_timeline, timeline_node
from skald.nodes.validator import validator
from skald.nodes.world_sim import world_sim
from skald.packs.loader import get_pack
from skald.rag.handle import LazyRetriever
from skald.rules.dice import turn_rng
from skald.rules.player_input import check_player_input, resolve_choice
from skald.settings import get_settings
from skald.store.idempotency import KeyedTurn
from skald.store.timeline import Position
from skald.turn_cancel import TurnCancel
from skald.wallclock import WallClock
from skald.words import TERMINAL, Words

# The pipeline after the router's branch, in order, as a turn without a scene runs it (a scene runs between the
# director and the narrator: see ``nodes.scene``).
PIPELINE = ("encounter", "world_sim", "companion", "arc_planner", "episode", "director", "narrator", "validator",
            "refiner", "evaluator", "commit")
NODES = {
    "router": router, "interpreter": interpreter, "meta": meta, "mechanic": mechanic, "encounter": encounter,
    "world_sim": world_sim,
    "companion": companion, "arc_planner": arc_planner, "episode": episode, "director": director,
    "scene": scene, "character": character, "timeline": timeline_node,
    "narrator": narrator, "validator": validator, "refiner": refiner, "evaluator": evaluator, "commit": commit,
}
INPUTS = {"character": CharacterTask}  # a node fed by Send, with its own input
DESTINATIONS = {"director": ("scene", "narrator")}  # nodes that route themselves (a Command's goto)


def build_graph(overrides: dict[str, Callable] | None = None) -> StateGraph:
    """The uncompiled graph. ``overrides`` swaps node functions by name (tests inject faults this way)."""
    graph = StateGraph(GameState, context_schema=TurnContext, input_schema=TurnInput, output_schema=GameState)
    for name, fn in (NODES | (overrides or {})).items():
        graph.add_node(name, fn, input_schema=INPUTS.get(name), destinations=DESTINATIONS.get(name))
    graph.add_edge(START, "router")
    graph.add_conditional_edges("router", route_after_router, ROUTES)
    graph.add_conditional_edges("interpreter", route_after_interpreter, AFTER_INTERPRETER)
    graph.add_conditional_edges("meta", route_after_meta, META_ROUTES)  # most commands commit nothing
    graph.add_conditional_edges("timeline", route_after_timeline, TIMELINE_ROUTES)
    graph.add_edge("mechanic", "encounter")
    for before, after in zip(PIPELINE, PIPELINE[1:], strict=False):
        if before != "director":  # the Director routes itself: to a scene, or straight to the narrator
            graph.add_edge(before, after)
    graph.add_conditional_edges("scene", route_after_scene, ["character", "narrator"])
    graph.add_edge("character", "scene")
    graph.add_edge("commit", END)
    return graph


def mermaid() -> str:
    """The compiled graph as a Mermaid flowchart, drawn by LangGraph (``docs/architecture.md`` embeds it;
    ``make docs`` refreshes it)."""
    return compiled_graph().get_graph().draw_mermaid()


@lru_cache(maxsize=1)
def compiled_graph() -> CompiledStateGraph:
    """The graph, compiled once on first use."""
    return build_graph().compile()


@lru_cache(maxsize=1)
def default_llm() -> LLMClient:
    """The LLM client from the environment's settings (probes Ollama once when ``SKALD_LLM=auto``)."""
    return LLMClient(get_settings())


@lru_cache(maxsize=1)
def default_retriever() -> LazyRetriever | None:
    """The lore index from the settings (``SKALD_CHROMA_PATH``, ``SKALD_EMBEDDINGS``), or None with
    ``SKALD_RETRIEVAL=false``. Nothing is loaded until a prompt asks for lore."""
    settings = get_settings()
    if not settings.retrieval:
        return None
    return LazyRetriever(settings.chroma_path, settings.embeddings, settings.ollama_base_url)


def resolve_retriever(retriever: LazyRetriever | None | bool) -> LazyRetriever | None:
    """The lore index a caller names: True for the settings' one (:func:`default_retriever`), a handle as it is,
    None or False for none."""
    return default_retriever() if retriever is True else (retriever or None)


def _prepare(conn: sqlite3.Connection, state: GameState, pack: EraPack | None, llm: LLMClient | None,
             retriever: LazyRetriever | None | bool = True, keyed: KeyedTurn | None = None,
             resume: str | None = None, position: Position | None = None,
             clock: WallClock = wallclock.system, words: Words = TERMINAL,
             cancel: TurnCancel | None = None) -> tuple[TurnInput, TurnContext]:
    started = time.monotonic()  # the turn's LLM budget counts from here
    text = resolve_choice(check_player_input(state.player_input, get_settings().max_input_chars), state.offer)
    start = GameState.starting(state, text)
    if position is not None:
        start = start.model_copy(update={"branch": position.branch, "variant": position.variant})
    pack = pack or get_pack(state.campaign.pack_id)
    llm = llm or default_llm()
    context = TurnContext(
        conn=conn,
        pack=pack,
        llm=llm,
        rng=turn_rng(state.campaign.seed, state.campaign.turn_number + 1, start.variant),
        limits=limits_of(pack),
        retriever=resolve_retriever(retriever),
        keyed=keyed,
        position=position,
        resume=resume,
        words=words,
        cancel=cancel,
        deadline=started + llm.settings.turn_budget_s,
        clock=clock,
    )
    return start, context


def run_turn(conn: sqlite3.Connection, state: GameState, *, pack: EraPack | None = None,
             llm: LLMClient | None = None, graph: CompiledStateGraph | None = None,
             on_token: Callable[[str], None] | None = None,
             retriever: LazyRetriever | None | bool = True, keyed: KeyedTurn | None = None,
             resume: str | None = None, position: Position | None = None,
             clock: WallClock = wallclock.system, words: Words = TERMINAL,
             cancel: TurnCancel | None = None) -> GameState:
    """Play one turn: ``state.player_input`` through the graph, committed to SQLite.

    The turn's LLM calls share one budget, ``SKALD_TURN_BUDGET_S`` seconds of the ``llm`` client's settings, counted
    from here (``TurnContext.deadline``): a hung model holds the turn that long at most, plus the engine's own work.

    :param conn: a connection from ``store.db.connect`` (kept in ``query_only`` mode outside Commit).
    :param state: the campaign's current state with ``player_input`` set (any per-turn fields are ignored).
    :param on_token: called with each narrator token as the model streams it (not called offline).
    :param retriever: the lore index handle; True (default) for the one the settings name, None for none.
    :param keyed: the idempotency key to store with the turn (Commit writes it in the turn's transaction).
    :param resume: how the frontend resumes the campaign, for /quit and /save (default: ``skald play --campaign``).
    :param words: how the frontend names the moves that are not story (``skald.words``; default: the terminal's).
    :param cancel: lets another thread stop the turn before Commit (``turn_cancel``).
    :param position: where in the turn tree the turn is played (``store.timeline.position``; a retry's from
        ``Engine.claim``); None: after the current branch's head, which must still be at ``state``'s turn.
    :param clock: the wall clock Commit stamps the turn with and ages idempotency keys by (``wallclock``).
    :returns: the state this turn committed plus its per-turn fields (text, suggestions, warnings...).
    :raises PlayerInputError: empty, oversized or control-character input, or a number that picks no suggestion;
        nothing was played or written.
    :raises TurnConflictError: another turn on the campaign committed first; nothing was written.
    :raises TurnCancelled: ``cancel`` was requested before Commit; nothing was written.
    :raises KeyTaken: another turn holds ``keyed``'s key; nothing was written.
    """
    if on_token is None:
        state, context = _prepare(conn, state, pack, llm, retriever, keyed, resume, position, clock, words, cancel)
        final = GameState.model_validate((graph or compiled_graph()).invoke(state, context=context))
        _prefetch(context, final)
        return final
    final = None
    for kind, payload in stream_turn(conn, state, pack=pack, llm=llm, graph=graph, retriever=retriever, keyed=keyed,
                                     resume=resume, position=position, clock=clock, words=words,
                                     cancel=cancel):
        if kind == "token":
            on_token(payload)
        elif kind == "turn":
            final = payload
    return final


def stream_turn(conn: sqlite3.Connection, state: GameState, *, pack: EraPack | None = None,
                llm: LLMClient | None = None, graph: CompiledStateGraph | None = None,
                retriever: LazyRetriever | None | bool = True, keyed: KeyedTurn | None = None,
                resume: str | None = None, position: Position | None = None,
                clock: WallClock = wallclock.system, words: Words = TERMINAL,
                cancel: TurnCancel | None = None) -> Iterator[tuple[str, Any]]:
    """Play one turn like :func:`run_turn`, yielding as it goes (LangGraph stream modes, same compiled graph):

    ``("progress", node_name)`` as each node finishes, ``("token", text)`` for each narrator token,
    ``("replace", {"text", "reason"})`` when the narration already streamed is replaced (the narrator had nothing
    usable, or the validator found it told the outcome wrongly: show ``text`` instead of the tokens; the turn's view
    has ``prose_replaced``), and last ``("turn", GameState)``. Raises as :func:`run_turn` does.
    """
    state, context = _prepare(conn, state, pack, llm, retriever, keyed, resume, position, clock, words, cancel)
    final = None
    for mode, payload in (graph or compiled_graph()).stream(state, context=context,
                                                            stream_mode=["updates", "custom", "values"]):
        if mode == "custom" and payload.get("kind") == "token":
            yield "token", payload["text"]
        elif mode == "custom" and payload.get("kind") == "replace":
            yield "replace", {"text": payload["text"], "reason": payload["reason"]}
        elif mode == "updates":
            for node in payload:
                yield "progress", node
        elif mode == "values":
            final = payload
    played = GameState.model_validate(final)
    _prefetch(context, played)
    yield "turn", played


def _prefetch(context: TurnContext, played: GameState) -> None:
    """Once a turn has committed in the scene it started in, start the Director's brief of that scene in the
    background (``llm.briefs.prefetch``), if it has none yet: the player reads and types meanwhile. Its prompt starts
    with the turn's narrator prompt (``GameState.narrator_head``), which Ollama has just cached. A failure here never
    touches the turn."""
    shown = played.director_instructions
    if played.view is None or shown is None or shown.scene_changed:  # nothing committed, or a scene just entered:
        return  # a place passed through in one turn costs no call; one the player stays in is briefed after that turn
    try:
        briefs.prefetch(context.conn, context.llm, played.persistent(), context.pack, context.retriever,
                        played.branch, played.narrator_head)
    except Exception as exc:  # noqa: BLE001 - the next turn briefs its scene itself
        logging.getLogger(__name__).warning("brief prefetch failed: %s: %s", type(exc).__name__, exc)
