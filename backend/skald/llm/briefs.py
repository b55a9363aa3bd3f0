"""Writing scene briefs: the ``director`` role's draft merged into the rules' brief (:func:`write`), the brief a
turn uses (:func:`for_scene`: held, read back, or written now by the rules), and the background brief a frontend
starts once a turn commits or a campaign is opened (:func:`prefetch`, the "on connect" brief).

LLM calls before the narrator's first token, per route (TALK, ACTION; META commands never brief):

- the scene is unchanged, or its brief was prefetched and is ready: 0;
- the scene changed during this turn (travel, a fight, a quest stage, a beat, a world tick): 0, the turn uses the
  rules' brief; if the player stays, the role's brief is written in the background after the next turn's Commit,
  for the turns after it (a place passed through in one turn is never sent to the model);
- a prefetch is still being written when the turn needs it: the turn waits for it, at most :data:`MAX_WAIT_S`
  seconds and a quarter of what is left of the turn's budget (then the rules' brief stands, with a warning, and no
  later turn waits for that brief again); the wait is for one call already under way, never a new one.
"""

from __future__ import annotations

import sqlite3
import time
from concurrent.futures import Future
from typing import Any

from skald.core.brief import BriefDraft
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.records import PromptHead
from skald.llm import lore
from skald.llm.ask import ask
from skald.llm.brief_cache import Briefing
from skald.llm.client import LLMClient, LLMUnavailable
from skald.llm.prompts import director_prompt
from skald.rules import brief as rules
from skald.rules import memory
from skald.store import briefs as stored
from skald.store import memories, timeline
from skald.store.timeline import MAIN

ROLE = "director"
MAX_WAIT_S = 5.0  # the longest a turn waits for a brief being written in the background
WAIT_SHARE = 0.25  # and never more than this share of what is left of the turn's budget


def write(llm: LLMClient, state: PersistentState, pack: EraPack, retriever: Any = None,
          recent: list[tuple[int, str]] = (), *, turn: int, deadline: float | None = None,
          head: PromptHead | None = None) -> Briefing:
    """The brief of the scene ``state`` stands in, from the ``director`` role (its :class:`BriefDraft` merged into
    the rules' brief), or the rules' brief with a warning when the role cannot answer within ``deadline``
    (``time.monotonic()`` seconds; None: the role's timeout) or its reply never validates. ``recent``: (turn,
    summary) rows for episodic recall. ``head``: the start of the narrator's prompt of the turn just played here,
    which the role's prompt then starts with (``prompts.director_prompt``). Never raises for the role's failures."""
    base = rules.offline_brief(state, pack, turn)
    people = rules.cast_at(state, pack)
    names = rules.names_for(state, pack)
    found: list[lore.Retrieved] = []
    recalled: list[memory.Memory] = []
    warnings: list[str] = []

    def prompt():
        retrieved = lore.for_director(retriever, state, people, pack)
        found.extend([retrieved] if retrieved else [])
        if retriever is not None and recent:
            query = f"{pack.locations[state.location].name} " + " ".join(p.name for p in people)
            try:
                recalled.extend(memory.recall(list(recent), turn, query,
                                              lambda texts: retriever.embed(pack, texts)))
            except Exception as exc:  # noqa: BLE001 - memory is a nicety; the brief goes on without it
                warnings.append(f"memory: recall failed ({type(exc).__name__}); briefing without it")
        return director_prompt(state, people, names, pack, base, found[0] if found else None, recalled, head)

    asked = ask(llm, ROLE, prompt, schema=BriefDraft, deadline=deadline)
    warnings += asked.warnings + [w for r in found for w in r.warnings]
    if asked.value is None:
        if asked.calls:  # asked and failed (offline or disabled roles are not a warning)
            warnings.append("director: no usable brief from the model; the rules' brief stands")
        return Briefing(base, "offline", attempted=bool(asked.calls), calls=asked.calls, warnings=warnings,
                        stats=asked.stats)
    try:
        brief, dropped = rules.merge(base, asked.value, state, pack)
    except ValueError as exc:  # the merged brief breaks a cap the draft alone could not
        warnings.append(f"director: the model's brief did not fit ({' '.join(str(exc).split())[:120]}); the "
                        "rules' brief stands")
        return Briefing(base, "offline", attempted=True, calls=asked.calls, warnings=warnings, stats=asked.stats)
    return Briefing(brief, "llm", attempted=True, calls=asked.calls, warnings=warnings + dropped, stats=asked.stats)


def holder(campaign_id: str, branch: str) -> str:
    """Whose briefs the cache holds: one branch of a campaign (a brief may recall that branch's memories, so branches
    never share one; a head moved by a timeline command forgets its branch's briefs)."""
    return f"{campaign_id}/{branch}"


def for_scene(conn: sqlite3.Connection, llm: LLMClient, state: PersistentState, pack: EraPack, turn: int,
              deadline: float | None, branch: str = MAIN) -> tuple[Briefing, str, list[str]]:
    """The brief a turn uses for the scene ``state`` (the state after the turn) stands in, and how it was had:
    ``cached`` or ``prefetched`` (held by this process; a brief being written is waited for at most
    :data:`MAX_WAIT_S` and a quarter of the time left before ``deadline``, and only once), ``stored`` (read back
    from the save file, on the branch's line), or ``built`` (written now by the rules). Returns (briefing, source,
    warnings)."""
    cid = holder(state.campaign.id, branch)
    key = rules.scene_key(state, pack)
    cache = llm.briefs
    now = time.monotonic()
    wait = min(llm.config(ROLE).timeout_s, MAX_WAIT_S)
    if deadline is not None:  # the narrator keeps most of the turn's budget
        wait = min(wait, max(0.0, deadline - now) * WAIT_SHARE)
    held, late = cache.take(cid, key, now + wait)
    if held is not None:
        return held, "prefetched" if held.background and not held.reported else "cached", []
    if not late:
        back = _read_back(conn, state.campaign.id, key, branch, state.campaign.turn_number)
        if back is not None:
            cache.put(cid, key, back)
            return back, "stored", []
    briefing = Briefing(rules.offline_brief(state, pack, turn))
    if late:  # the background brief goes on, and lands for the next turn in this scene
        return briefing, "built", ["director: the scene's brief was still being written; this turn used the rules' "
                                   "brief"]
    cache.put(cid, key, briefing)
    return briefing, "built", []


def prefetch(conn: sqlite3.Connection, llm: LLMClient, state: PersistentState, pack: EraPack,
             retriever: Any = None, branch: str | None = None, head: PromptHead | None = None) -> Future | None:
    """Start writing, in the background, the ``director`` role's brief of the scene ``state`` (a committed state)
    stands in, when the role can be called and neither this process nor the save file holds one from it. Returns the
    future, or None when nothing was started. Reads what it needs from ``conn`` now; the background thread never
    touches the database. ``branch``: the branch ``state`` is the head of (default: the current one); only its
    line's memories are recalled. ``head``: the start of the narrator's prompt of the turn that committed ``state``
    (``GameState.narrator_head``), for the role's prompt to start with (:func:`write`)."""
    try:
        llm.check(ROLE, None)
    except LLMUnavailable:
        return None
    branch = branch or timeline.current_branch(conn, state.campaign.id)
    cid = holder(state.campaign.id, branch)
    key = rules.scene_key(state, pack)
    cache = llm.briefs
    if not cache.wants_llm(cid, key):
        return None
    turn = state.campaign.turn_number
    back = _read_back(conn, state.campaign.id, key, branch, turn)
    if back is not None and back.origin == "llm":
        cache.put(cid, key, back)
        return None
    recent = memories.recent(conn, state.campaign.id, branch, turn + 1, memory.WINDOW) if retriever is not None else []

    def job() -> Briefing:
        briefing = write(llm, state, pack, retriever, recent, turn=turn, head=head)
        briefing.background = True
        return briefing

    return cache.start(cid, key, job)


def _read_back(conn: sqlite3.Connection, campaign_id: str, key: str, branch: str, up_to: int) -> Briefing | None:
    """The scene's brief as the save file has it (the latest turn in the scene on the branch's line up to turn
    ``up_to`` stored it), scene-level parts only; a brief the model wrote counts as the role asked, so it is not
    asked again."""
    back = stored.latest(conn, campaign_id, key, branch, up_to)
    if back is None:
        return None
    brief, origin = back
    return Briefing(brief.scene_part(), origin, attempted=origin == "llm")
