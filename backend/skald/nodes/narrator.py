"""Narrator node: the turn's prose, from the ``narrator`` LLM role or the offline narrator."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald import events as ev
from skald.context import TurnContext
from skald.llm import offline, prompts
from skald.llm.ask import ask
from skald.rules import dice, prose
from skald.state import GameState


def narrator(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: director_instructions, mechanic_result, present_npcs, staged events, location, recent turns.
    Writes: final_text (5-8 sentences, <= 250 words, second person), llm_calls, context_stats, warnings
    (fallback used, prompt trimmed, option lists or meta sections stripped, prose cut, NPCs named who are not
    in the scene). Streams each token as a LangGraph custom event ``{"kind": "token", "text": ...}``."""
    ctx = runtime.context
    pack = ctx.pack
    writer = runtime.stream_writer

    def offline_prose() -> str:
        rng = dice.rng_for(state.campaign.seed, "narrate", state.turn)
        return offline.narrate(state, pack, rng)

    cited: list[str] = []
    asked = ask(ctx.llm, "narrator", lambda: prompts.narrator_prompt(state, pack, ctx.retriever, cited),
                on_token=lambda token: writer({"kind": "token", "role": "narrator", "text": token}))
    warnings = asked.warnings + (ctx.retriever.drain_warnings() if ctx.retriever else [])
    raw = asked.value or offline_prose()
    text, cleaning = prose.clean_narration(raw)
    warnings += cleaning
    if not text:
        warnings.append("narrator: reply had no usable prose; used the offline narrator")
        text, _ = prose.clean_narration(offline_prose())
    enemies = {e.enemy_name for e in state.staged_events if isinstance(e, ev.CombatStart)}
    if state.combat is not None:  # the enemy you fight or flee is part of the scene
        enemies.add(state.combat.enemy_name)
    for name in prose.unknown_names(text, pack, state.present_npcs, enemies):
        warnings.append(f"narrator: names {name}, who is not in the scene")
    return asked.update() | {"final_text": text, "warnings": warnings, "lore_citations": cited}
