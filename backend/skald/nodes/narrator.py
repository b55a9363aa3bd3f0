"""Narrator node: the turn's prose, from the ``narrator`` LLM role or the offline narrator."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.state import GameState
from skald.core.views import PROSE_REPLACED
from skald.llm import lore, offline, prompts, tail
from skald.llm.ask import ask
from skald.llm.client import REJECTED
from skald.llm.offline.dialogue import spoken_lines
from skald.rules import dice, prose


def narrator(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: director_instructions, mechanic_result, present_npcs, staged events, after, recent turns, scene_lines.
    Writes: final_text (5-8 sentences, <= 250 words, second person; a scene's lines woven in verbatim, with
    ``rules.prose.limits`` room for each), narrated_actions (the four suggestions as the reply reworded them after its
    ``[ACTIONS]`` line, ``llm.tail``, for the Refiner to check; None when it had none), llm_calls, context_stats,
    lore_citations, warnings (fallback used, prompt trimmed, the lore index unusable, option lists or meta sections
    stripped, prose cut, NPCs named who are not in the scene), narrator_head (the start of the prompt as sent, which
    the Director's brief of this scene starts with: ``prompts.narrator_head``). The prompt's style, lore and voice
    lanes are fetched here through the context. The call ends by the turn's deadline (``TurnContext.deadline``).

    Streams each token as a LangGraph custom event ``{"kind": "token", "text": ...}``. The player keeps what they
    read: a reply that breaks off after its first tokens (a timeout, the turn budget running out, a broken stream)
    is kept as far as it came and finished by ``offline.finish``. Only when nothing of it is usable is it replaced
    by the offline narrator's prose, and then a custom event ``{"kind": "replace", "text": ..., "reason": ...}`` and a
    warning containing ``PROSE_REPLACED`` say so."""
    ctx = runtime.context
    pack = ctx.pack
    writer = runtime.stream_writer

    def offline_prose() -> str:
        rng = dice.rng_for(state.before.campaign.seed, "narrate", state.turn_key)
        return offline.narrate(state, pack, rng)

    found: list[lore.Retrieved] = []  # what the index gave the prompt, if the role was called
    seen: list[str] = []  # what the player has been shown of the model's reply

    def prompt() -> prompts.Prompt:  # built only when the role can be called
        retrieved = lore.for_narrator(ctx.retriever, state, pack)
        found.extend([retrieved] if retrieved else [])
        return prompts.narrator_prompt(state, pack, retrieved)

    def show(token: str) -> None:
        seen.append(token)
        writer({"kind": "token", "role": "narrator", "text": token})

    previous = " ".join(state.before.recent[-1].sentences) if state.before.recent else ""
    asked = ask(ctx.llm, "narrator", prompt, on_token=show, deadline=ctx.deadline, previous=previous,
                tail=bool(state.suggested_actions))
    index_warnings = dict.fromkeys(w for r in found for w in r.warnings if w not in state.warnings)  # once a turn
    warnings = asked.warnings + list(index_warnings)
    cited = [hit.id for r in found for hit in (*r.style, *r.lore, *r.voice)]
    rejected = any(REJECTED in w for w in asked.warnings)  # hygiene refused it: what was shown goes too
    streamed = "" if rejected else "".join(seen)
    room = len(spoken_lines(state.scene_lines))  # a scene's lines get room of their own
    reply = asked.value if asked.value is not None else streamed or offline_prose()
    text, cleaning = prose.clean_narration(reply, room)
    warnings += cleaning
    if asked.value is None and streamed and text:  # the reply broke off after the player read its start: finish it
        warnings.append(f"narrator: kept the {len(text.split())} words already streamed and finished with the outcome")
        text = offline.finish(text, state)
    if not text:
        text, _ = prose.clean_narration(offline_prose(), room)
        if streamed:
            reason = f"narrator: {PROSE_REPLACED} with the offline narrator's: none of it was usable"
            warnings.append(reason)
            writer({"kind": "replace", "text": text, "reason": reason})
        else:
            warnings.append("narrator: reply had no usable prose; used the offline narrator")
    elif rejected and seen:  # shown before hygiene judged the whole reply (a repeat found at its end)
        reason = f"narrator: {PROSE_REPLACED} with the offline narrator's: the reply could not be shown"
        warnings.append(reason)
        writer({"kind": "replace", "text": text, "reason": reason})
    enemies = {e.enemy_name for e in state.staged_events if isinstance(e, ev.CombatStart)}
    if state.before.combat is not None:  # the enemy you fight or flee is part of the scene
        enemies.add(state.before.combat.enemy_name)
    said = _given(state, pack)  # "Juno is not here", "get Nell to say who...": naming someone absent rightly
    for name in prose.unknown_names(text, pack, state.present_npcs, enemies):
        if name in said:
            continue
        warnings.append(f"narrator: names {name}, who is not in the scene")
    actions = tail.actions(asked.tail) if asked.tail and asked.value is not None else None
    head = prompts.narrator_head(state, pack, asked.fitted) if asked.fitted is not None else None
    return asked.update() | {"final_text": text, "warnings": warnings, "lore_citations": cited,
                             "narrated_actions": actions, "narrator_head": head}


def _given(state: GameState, pack: EraPack) -> str:
    """The text the turn hands the narrator to tell: the outcome, a quest's new objective or offer, a rumor, a hint."""
    parts = [state.mechanic_result.summary] if state.mechanic_result else []
    for e in state.staged_events:
        if isinstance(e, ev.QuestUpdate) and e.quest in pack.quests:
            quest = pack.quests[e.quest]
            parts += [quest.summary, *(s.objective for s in quest.stages[e.stage:e.stage + 1])]
        elif isinstance(e, ev.RumorHeard) and e.rumor in pack.rumors:
            parts.append(pack.rumors[e.rumor].text)
        elif isinstance(e, ev.QuestHint):
            parts.append(e.hint)
    return " ".join(parts)
