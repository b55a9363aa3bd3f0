"""Character node: one scene character's agent for one beat, run once per character in parallel (LangGraph ``Send``
from ``nodes.scene``)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core.records import CharacterReply, CharacterTask
from skald.llm import prompts
from skald.llm.ask import ask
from skald.llm.offline import characters as offline_characters


def character(task: CharacterTask, runtime: Runtime[TurnContext]) -> dict:
    """Reads: the task (voice sheet and SceneUpdate). Writes: scene_replies (one CharacterReply), llm_calls,
    warnings, context_stats.

    The ``character`` role answers in the tag-line format, within the turn's deadline. Offline (or with the role
    disabled) the offline character answers from the pack (``llm.offline.characters``). A call that fails or runs
    out of time leaves the character out of this beat (``source="failed"``): the scene node notes it for the others
    and warns; the scene goes on."""
    ctx = runtime.context
    asked = ask(ctx.llm, "character", lambda: prompts.character_prompt(task, ctx.pack, task.voice),
                deadline=ctx.deadline)
    beat, cid = task.update.beat, task.sheet.id
    if asked.value is not None:
        tokens = sum(c.completion_tokens or 0 for c in asked.calls)
        reply = CharacterReply(id=cid, beat=beat, raw=asked.value, source="llm", tokens=tokens)
    elif not asked.warnings:  # offline or disabled: a setting, not a failure
        reply = CharacterReply(id=cid, beat=beat, raw=offline_characters.line(task), source="offline")
    else:
        reply = CharacterReply(id=cid, beat=beat, source="failed")
    return asked.update() | {"scene_replies": [reply]}
