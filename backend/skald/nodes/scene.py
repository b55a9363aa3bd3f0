"""Scene node: the Scene Moderator between the Director and the Narrator (``docs/scenes.md``).

    director ──(no scene)──────────────────────────────> narrator
        └──(a scene runs or opens)──> scene ──Send──> character (one per character, in parallel)
                                        ^                  │
                                        └──────────────────┘   (one round per beat; then narrator)

The node runs before and after each beat. Before: it opens a scene (``rules.moderator.opening``), closes one the
player left or started a fight in, or sets up the beat: the player's line, a world event when the scene has stalled,
and one :class:`~skald.core.records.CharacterTask` per character, which :func:`route_after_scene` hands to LangGraph's
``Send`` fan-out. After: it parses the replies (``rules.tag_line``), orders them (``rules.moderator.order``), asks
the optional ``moderator`` role, stages SCENE_BEAT with the lines and the moderator's notes, the moods the lines
show, and SCENE_CLOSED (and the scene's flag) when the goal is met or the beats are spent. A turn plays
``SKALD_SCENE_BEATS_PER_TURN`` beats while the scene lasts. The Director's node decides whether a turn comes here
at all (:func:`after_director`).
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import Send

from skald.context import TurnContext
from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState, SceneLine
from skald.core.records import CharacterTask, SceneUpdate
from skald.core.state import GameState
from skald.llm import lore, prompts
from skald.llm.ask import ask
from skald.rules import feelings, model_text, moderator, setup, tag_line, voice_sheet


def after_director(state: GameState, pack: EraPack) -> str:
    """Where the Director's node goes on to: ``scene`` while a scene runs or when this turn opens one, else straight
    to ``narrator`` (a turn without a scene pays for this check alone)."""
    if state.after.scenes.scene is not None or moderator.opening(state, pack) is not None:
        return "scene"
    return "narrator"


def route_after_scene(state: GameState) -> list[Send] | str:
    """One ``Send`` to the ``character`` node per task of the beat set up, or on to ``narrator``."""
    if state.scene_tasks:
        return [Send("character", task) for task in state.scene_tasks]
    return "narrator"


def scene(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: after (its scene, feelings, flags), present_npcs, router_output, mechanic_result, staged events,
    scene_tasks / scene_replies / scene_lines / scene_beats. Writes: staged SCENE_OPENED / SCENE_BEAT /
    SCENE_CLOSED / ATTITUDE_CHANGE / FLAG_SET events and after, scene_tasks (the next beat, or none),
    scene_lines, scene_beats, llm_calls and warnings of the moderator role, warnings about the replies, and after the
    turn's last beat suggested_actions with up to three addressed to the scene's characters
    (``rules.moderator.suggestions``)."""
    ctx = runtime.context
    if state.scene_tasks:
        return _after_beat(state, ctx)
    running = state.after.scenes.scene
    if running is None:
        opened = moderator.opening(state, ctx.pack)
        if opened is None:
            return {}
        staged = ev.stage(state.after, [opened.event(state.after.world.time_minutes, state.after.location)],
                          ctx.limits)
        return staged | _before_beat(state, staged["after"], ctx, lines=[])
    why = moderator.interrupted(state)
    if why is not None:
        return ev.stage(state.after, [moderator.closed(running, why, False, state.after.world.time_minutes)],
                        ctx.limits)
    return _before_beat(state, state.after, ctx, lines=[])


def _names(after: PersistentState, ctx: TurnContext) -> dict[str, str]:
    pack = ctx.pack
    return {cid: pack.person(cid).name for cid in after.scenes.scene.characters}


def _before_beat(state: GameState, after: PersistentState, ctx: TurnContext, lines: list[SceneLine]) -> dict:
    """Set up the next beat: its opening lines (the player's, on the turn's first beat; a world event when due) and
    one task per character."""
    pack, running = ctx.pack, after.scenes.scene
    beat = running.beat + 1
    names = _names(after, ctx)
    head = []
    if state.scene_beats == 0:
        named = moderator.addressed(state, pack, moderator.in_scene(state, after, pack))
        head.append(moderator.player_line(state, beat, named))
    event = moderator.event_due(running, pack)
    if event is not None:
        head.append(SceneLine(beat=beat, speaker="event", name="EVENT", action="event", content=event))
    spec = pack.scenes.get(running.id)
    setting, context = moderator.setting_text(state, pack, running, names), moderator.context_text(state)
    transcript = moderator.transcript_window([*running.recent, *head], beat)
    prior = {t.sheet.id: t.voice for t in state.scene_tasks}  # a turn's later beats reuse its first beat's lookup
    asks_model = ctx.llm.asks("character")  # the offline character reads no voice
    voices, warnings = (prior, []) if prior or not asks_model else lore.for_characters(
        ctx.retriever, pack, list(running.characters))
    heard = " ".join(s for t in state.before.recent for s in t.sentences)
    tasks = [CharacterTask(
        sheet=voice_sheet.sheet(cid, after, pack, spec.instructions.get(cid, "") if spec else "",
                                spec.lines.get(cid, []) if spec else []),
        update=SceneUpdate(scene_setting=setting, scene_context=context, transcript=transcript, last_event=event,
                           moderator_note=running.notes.get(cid), beat=beat),
        seed=state.before.campaign.seed, turn=state.turn, variant=state.variant, player=state.before.player.name,
        pronouns=state.before.player.profile.pronouns,
        others={k: v for k, v in names.items() if k != cid}, voice=voices.get(cid, []), heard=heard)
        for cid in running.characters]
    update = {"scene_tasks": tasks, "scene_lines": [*lines, *head]}
    return update | ({"warnings": [w for w in warnings if w not in state.warnings]} if warnings else {})


def _after_beat(state: GameState, ctx: TurnContext) -> dict:
    pack, settings = ctx.pack, ctx.llm.settings
    after = state.after
    running = after.scenes.scene
    beat = state.scene_tasks[0].update.beat
    names = _names(after, ctx)
    replies = [r for r in state.scene_replies if r.beat == beat]
    parsed, warnings = [], []
    for reply in replies:
        if reply.source == "failed":
            continue
        read = tag_line.parse(reply.raw, names.get(reply.id, reply.id))
        warnings += [f"scene: {w}" for w in read.warnings]
        parsed.append((reply.id, read))
    failed = sorted(r.id for r in replies if r.source == "failed")
    named = moderator.addressed(state, pack, moderator.in_scene(state, after, pack)) if state.scene_beats == 0 else []
    lines, ordering = moderator.order(parsed, running, names, state.before.player.name, seed=state.before.campaign.seed,
                                      turn=state.turn, beat=beat, addressed_ids=named,
                                      cap=settings.scene_lines_per_beat, variant=state.variant)
    warnings += ordering
    avoid = setup.limit_pattern(state.before.player.profile.limits)
    if avoid is not None:  # the player's content limits: a line that breaks them is not said
        dropped = [x for x in lines if avoid.search(f"{x.content} {x.nonverbal or ''}")]
        lines = [x for x in lines if x not in dropped]
        warnings += [f"scene: {x.name}'s line left out (the player's content limits)" for x in dropped]
    known = model_text.known_names(state, pack) | {w.lower() for n in names.values() for w in n.split()}
    strangers = [(x, name) for x in lines if x.content and (name := model_text.unknown_name(x.content, known))]
    if strangers:  # a model's character naming someone the world does not hold: the line is not said
        gone = {id(x) for x, _ in strangers}
        lines = [x for x in lines if id(x) not in gone]
        warnings += [f"scene: {x.name}'s line left out (it names {name}, who is not in the pack or the campaign)"
                     for x, name in strangers]
    head = [x for x in state.scene_lines if x.beat == beat]
    verdict, judged = _judge(running.goal, names, [*head, *lines], ctx)
    off_track = verdict is not None and verdict.off_track
    notes = moderator.notes(running, lines, failed, names, beat)
    for cid, note in (verdict.notes.items() if verdict else ()):
        if cid in names:
            notes[cid] = f"{notes.get(cid, '')} {note[:200]}".strip()
    event = next((x.content for x in head if x.action == "event"), None)
    tokens = sum(r.tokens for r in replies) + sum(c.completion_tokens or 0 for c in judged.calls)
    silent = [SceneLine(beat=beat, speaker=f, name=names.get(f, f), action="system", content="could not answer")
              for f in failed]  # the transcript says so; the other characters do not hear it
    events: list[ev.BaseEvent] = [ev.SceneBeat(
        scene=running.id, beat=beat, lines=[*head, *lines, *silent], stalled=moderator.stalled(
            state, lines, state.scene_beats == 0, off_track), event=event, notes=notes, tokens=tokens)]
    events += feelings.from_lines(lines, after)
    staging = ev.Staging(after, ctx.limits)
    played = staging.add(*events).scenes.scene  # the beat counted in: what a close reports
    spec = pack.scenes.get(running.id)
    now = after.world.time_minutes
    closing: list[ev.BaseEvent] = []
    judged_met = verdict is not None and verdict.goal_met and beat > 1  # never on the opening beat
    if moderator.goal_met(state, pack, running) or judged_met:
        closing.append(moderator.closed(played, "goal", True, now))
        closing += [ev.FlagSet(flag=spec.set_flag, source=f"scene:{spec.id}")] if spec and spec.set_flag else []
    elif beat >= running.max_beats:
        closing.append(moderator.closed(played, "max_beats", False, now))
    staging.add(*closing)  # onto the beat already folded, once
    staged = staging.update()
    so_far = [*state.scene_lines, *lines]
    update = staged | judged.update() | {"scene_tasks": [], "scene_lines": so_far, "scene_beats": state.scene_beats + 1}
    update["warnings"] = [*update["warnings"], *warnings, *(
        f"scene: {names.get(f, f)} is unable to respond" for f in failed)]
    if staged["after"].scenes.scene is not None and state.scene_beats + 1 < settings.scene_beats_per_turn:
        nxt = state.model_copy(update={"scene_beats": state.scene_beats + 1})
        return update | _before_beat(nxt, staged["after"], ctx, lines=so_far)
    picks = moderator.suggestions(staged["after"], pack, so_far, state.suggested_actions, names)
    return update | ({"suggested_actions": picks} if picks != state.suggested_actions else {})


def _judge(goal: str, names: dict[str, str], lines: list[SceneLine], ctx: TurnContext):
    """The optional ``moderator`` role's verdict on the beat (None when it is off or fell back)."""
    asked = ask(ctx.llm, "moderator", lambda: prompts.moderator_prompt(goal, names, lines, ctx.pack),
                schema=prompts.ModeratorVerdict, deadline=ctx.deadline)
    return asked.value, asked
