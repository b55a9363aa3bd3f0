"""Director node: the scene brief and this turn's cues for the Narrator, and the four deterministic suggestions."""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import Command

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.records import SceneInstructions
from skald.core.state import GameState
from skald.core.vocab import Outcome
from skald.llm import briefs
from skald.nodes.scene import after_director
from skald.rules import brief as brief_rules
from skald.rules import clock, suggestions
from skald.rules.candidates import ThisTurn

MOOD_BY_TAG = {"dark": "shadowed", "crowded": "busy", "lawless": "tense", "quiet": "hushed", "hot": "sweltering",
               "dusty": "gritty"}


def _beat(state: GameState) -> str:
    kinds = {type(e) for e in state.staged_events}
    result = state.mechanic_result
    if ev.Defeated in kinds:
        return "a defeat"
    if ev.CombatStart in kinds or state.before.combat is not None:
        return "a fight"
    if result and result.action_class.value == "RECOVER":
        return "a recovery"
    if ev.Move in kinds:
        return "an arrival"
    if ev.QuestUpdate in kinds or ev.Discovery in kinds:
        return "a turn in the story"
    if result and result.outcome == Outcome.NO_ROLL:
        return "a quiet exchange"
    return "a small win" if result and result.outcome.succeeded else "a setback"


def episode_note(state: GameState, pack) -> str | None:
    """Where the episode stands and what this turn must do for it: open it on its first turn, steer toward the close
    as the budget runs down, land the ending on its last turn."""
    shown = state.episode_progress
    if shown is None or shown.episode not in pack.episodes:
        return None
    running = pack.episodes[shown.episode]
    note = f"'{shown.title}', story turn {shown.turn_count}, beat {shown.beat}."
    if shown.ending is not None:
        return note + " This turn ends the episode: land the ending, close what its premise opened."
    if shown.started:
        return note + f" The episode begins: {running.premise}"
    if shown.remaining is not None and shown.remaining <= 2:
        return note + f" {shown.remaining} story turn(s) left: steer toward a close."
    steer = {"complication": "let a problem surface", "escalation": "raise the stakes",
             "pivot": "this is the turning point", "resolution": "let things settle"}.get(shown.beat)
    return note + (f" {steer[:1].upper()}{steer[1:]}." if steer else "")


def director(state: GameState, runtime: Runtime[TurnContext]) -> Command:
    """Reads: mechanic_result, present_npcs, staged events, after. Writes: director_instructions (the scene's brief
    with this turn's parts, and the per-turn cues), suggested_actions (exactly 4, linted, padded), llm_calls,
    warnings, context_stats. Goes on to ``scene`` when a multi-character scene runs or opens this turn, else straight
    to ``narrator`` (``nodes.scene.after_director``; a ``Command``, so no edge function builds the state again).

    The brief is the scene's (``rules.brief.scene_key`` of the state after this turn): held by this process, read
    back from the save file, or written now by the rules (``llm.briefs.for_scene``). The ``director`` LLM role is
    never called here: its brief is written in the background after Commit (``llm.briefs.prefetch``) once a scene
    has outlived the turn that entered it; a turn that needs one still being written waits for it, at most until the
    role's timeout or the turn's budget ends. The records of every background call are reported with the next turn
    (whether or not it uses that brief), so every call is on some turn's record."""
    ctx = runtime.context
    pack = ctx.pack
    location = pack.locations[state.after.location]
    tags = [MOOD_BY_TAG[t] for t in location.tags if t in MOOD_BY_TAG]
    mood = ", ".join(tags[:2] + [clock.time_of_day(state.after.world.time_minutes)])
    target = state.router_output.target_npc if state.router_output else None
    focus = target if any(p.id == target for p in state.present_npcs) else next(
        (p.id for p in state.present_npcs if not p.companion), None)
    banter = next((e for e in state.staged_events if isinstance(e, ev.BanterQueued)), None)
    banter_line = None
    if banter is not None:  # an exchange from banter.yaml is already written as 'Name: line' lines
        banter_line = banter.line if banter.banter else (
            f'{pack.companions[banter.companion].name} says, "{banter.line}"')
    briefing, source, warnings = briefs.for_scene(ctx.conn, ctx.llm, state.after, pack, state.turn, ctx.deadline,
                                                  state.branch)
    # background calls since the last turn of this branch, and ours
    done = ctx.llm.briefs.unreported(briefs.holder(state.before.campaign.id, state.branch), briefing)
    update: dict = {"llm_calls": [c for b in done for c in b.calls],
                    "warnings": [*(w for b in done for w in b.warnings), *warnings],
                    "context_stats": [s for b in done for s in b.stats]}
    names = brief_rules.names_for(state.after, pack) | {p.id: p.name for p in state.present_npcs}
    instructions = SceneInstructions(
        beat=_beat(state), mood=mood, focus_npc=focus, banter=banter_line, episode=episode_note(state, pack),
        brief=brief_rules.for_turn(briefing.brief, state, pack), scene_brief=briefing.brief, brief_source=source,
        brief_origin=briefing.origin,
        names=names, scene_changed=brief_rules.scene_key(state, pack) != briefing.brief.scene_key)
    now = ThisTurn(result=state.mechanic_result, target=target)
    picks, _ = suggestions.suggest(state.after, pack, state.present_npcs, now, state.variant)
    return Command(update=update | {"director_instructions": instructions, "suggested_actions": picks},
                   goto=after_director(state, pack))
