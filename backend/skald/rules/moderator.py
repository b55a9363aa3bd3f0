"""The Scene Moderator's rules (after the Scene Moderator design, adapted to Skald's turns): when a multi-character
scene opens and closes, what each character's agent is told each beat, the order their lines are spoken in, and
what a beat did for the scene's goal. Pure functions of the turn and the pack; the ``scene`` node stages what they
decide, and only Commit writes it.

- **Opening** (:func:`opening`): at least two characters besides the player are on stage (pack NPCs and companions;
  procedural strangers have no voice of their own), no fight is on, and either a ``scenes.yaml`` scene's
  ``opens_on`` holds, or the player addresses the group (names two of them, or "everyone", "you two"..., in a
  talking action or a question) or
  confronts someone (an intimidation, a lie that failed). A pack scene at the place whose characters are all there is
  preferred (the one whose characters the player named most, then the largest); otherwise the talk opens its own
  scene of at most :data:`TALK_CAST` characters and :data:`TALK_BEATS` beats.
- **Closing**: the goal met (``goal_flags`` all set, or the turn meets the scene's ``goal`` trigger), ``max_beats``
  played, or the player gone, fighting or knocked out.
- **Order** (:func:`order`): by a priority seeded by (campaign seed, scene, beat, turn), never by arrival: whoever
  the player addressed first, then the initial speaker on the scene's first beat, then the seeded draw. A line said
  to a character who also speaks this beat follows that character's line; an interruption is placed right after the
  line containing its phrase, which is cut off there. At most ``SKALD_SCENE_LINES_PER_BEAT`` spoken lines a beat;
  SILENT replies are not in the transcript.
- **Stalls**: a beat stalls when neither the player's turn (a check rolled, a quest, flag, discovery or rumor) nor
  two spoken lines moved it; after ``stall_beats`` stalled beats the next ``events`` line of the scene (the place's
  details for a scene the talk opened) is injected as ``[EVENT: ...]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skald.core import events as ev
from skald.core.memo import per_pack
from skald.core.pack import EraPack, SceneSpec
from skald.core.persistent import SCENE_RECENT, ActiveScene, PersistentState, SceneLine, Suggestion
from skald.core.records import PresentNpc
from skald.core.state import GameState
from skald.core.vocab import ActionClass, Outcome, Risk
from skald.rules import clock, dice, intent
from skald.rules.quests import unmet
from skald.rules.scene import everyone_at
from skald.rules.tag_line import Reply
from skald.text import name_key

TALK_CAST = 3  # characters in a scene the talk opened
TALK_BEATS = 6
TALKING = {ActionClass.DIALOGUE_ONLY, ActionClass.PERSUADE, ActionClass.DECEIVE, ActionClass.INTIMIDATE,
           ActionClass.RECRUIT}
GROUP = re.compile(r"\b(?:every(?:one|body)|all of you|you all|y'all|you two|you three|both of you|the (?:two|three) "
                   r"of you|you lot|folks|the room|the table|the crowd|the pair of you)\b", re.IGNORECASE)
TO_ALL = {"all", "everyone", "everybody", "the room", "the group", "the table", "you all", "both"}
TO_PLAYER = {"player", "you", "the player", "stranger"}
WRAP_UP = "Begin wrapping up: the scene ends after this beat; bring your part of it to a close."
PASSIVE = "You are too passive: say something that moves the scene toward its goal."
SPOKEN = ("speak", "interrupt")


@dataclass(frozen=True)
class Opening:
    """A scene to open this turn."""

    id: str
    goal: str
    characters: tuple[str, ...]
    max_beats: int
    reason: str  # pack | group | confrontation

    def event(self, minutes: int, location: str) -> ev.SceneOpened:
        return ev.SceneOpened(scene=self.id, goal=self.goal, location=location, characters=list(self.characters),
                              max_beats=self.max_beats, minutes=minutes, reason=self.reason)


@per_pack
def _by_location(pack: EraPack) -> dict[str, list[SceneSpec]]:
    out: dict[str, list[SceneSpec]] = {}
    for spec in pack.scenes.values():
        out.setdefault(spec.location, []).append(spec)
    return out


def cast(state: GameState) -> list[PresentNpc]:
    """The characters on stage who can take part in a scene: pack NPCs and companions."""
    return [p for p in state.present_npcs if not p.procedural]


def in_scene(state: GameState, after: PersistentState, pack: EraPack) -> list[PresentNpc]:
    """The characters of the scene running in ``after``, whether or not the turn put them on stage (a scene opened on
    turn 1 holds people the opening listed before anyone spoke to them); the stage's cast when no scene runs."""
    running = after.scenes.scene
    if running is None:
        return cast(state)
    return [p for p in everyone_at(after, pack, after.location) if p.id in running.characters]


def _names(person: PresentNpc, pack: EraPack) -> list[str]:
    entry = pack.person(person.id)
    aliases = list(entry.aliases) if entry else []
    return [person.name, person.name.split()[0], *aliases]


def _said_at(text: str, name: str) -> int | None:
    """Where ``name`` (three letters or more, a whole word, any case) first comes in ``text``, or None."""
    found = re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE) if len(name) > 2 else None
    return found.start() if found else None


def addressed(state: GameState, pack: EraPack, people: list[PresentNpc]) -> list[str]:
    """Ids of the characters the player's words name (or target), in the order they come in the input."""
    router = state.router_output
    text = router.text if router else state.player_input
    found = []
    for person in people:
        at = [i for i in (_said_at(text, name) for name in _names(person, pack)) if i is not None]
        if at or (router and router.target_npc == person.id):
            found.append((min(at) if at else len(text), person.id))
    return [pid for _, pid in sorted(found)]


def opening(state: GameState, pack: EraPack) -> Opening | None:
    """The scene this turn opens, if any (see the module docstring); None while one is running."""
    after = state.after
    router, result = state.router_output, state.mechanic_result
    if after.scenes.scene is not None or after.combat is not None or after.player.defeated or router is None:
        return None
    people = cast(state)
    staged = {p.id for p in people}
    people += [p for p in everyone_at(state.after, pack, state.after.location) if p.id not in staged
               and not p.procedural and p.id in addressed(state, pack, [p])]  # named: everyone the place holds can
    if len(people) < 2:  # be spoken to, on stage yet or not ("Hesper, Tobin, what do you make of it?" on turn 1)
        return None
    confront = router.action_class == ActionClass.INTIMIDATE or (
        router.action_class == ActionClass.DECEIVE and result is not None and not result.outcome.succeeded
        and result.outcome != Outcome.NO_ROLL)
    talking = router.action_class in TALKING or "?" in router.text  # "Everyone, what do you think?" asks them
    due = {spec.id: _opens_on(spec, state) for spec in _by_location(pack).get(after.location, [])}
    if not (talking or confront or any(due.values())):
        return None  # the common turn: nobody addressed, nothing provoked, no pack scene due (checked cheaply first)
    here = {p.id for p in people}
    named = addressed(state, pack, people)
    group = len(named) >= 2 or GROUP.search(router.text) is not None
    called = (group and talking) or confront
    reason = "confrontation" if confront else "group"
    fits = [spec for spec in map(pack.scenes.get, due) if spec.id not in after.scenes.done
            and set(spec.characters) <= here]
    fits.sort(key=lambda spec: (-len(set(spec.characters) & set(named)), -len(spec.characters)))  # the one addressed
    for spec in fits:
        if due[spec.id] or (called and set(named) <= set(spec.characters)):  # not a scene leaving out who was named
            first = spec.initial_speaker or spec.characters[0]
            order = (first, *(c for c in spec.characters if c != first))
            return Opening(spec.id, spec.prompt, order, spec.max_beats, "pack" if due[spec.id] else reason)
    if not called:
        return None
    chosen = [p for p in named if p in here] if len(named) >= 2 else [
        *named, *(p.id for p in people if p.id not in named)]
    names = {p.id: p.name for p in people}
    chosen = chosen[:TALK_CAST]
    listed = " and ".join(names[c] for c in chosen)
    if confront:
        target = router.target_npc if router.target_npc in here else chosen[0]
        chosen = [target, *(c for c in chosen if c != target)][:TALK_CAST]
        goal = (f"{state.player.name} is leaning on {names[target]} in front of the others; everyone there takes a "
                "side, and the standoff has to settle one way or another.")
    else:
        goal = (f"{state.player.name} has put something to {listed}; each answers in their own way, and they answer "
                "each other, until the talk has run its course.")
    return Opening(f"talk:{after.location}:{state.turn}", goal, tuple(chosen), TALK_BEATS, reason)


def _opens_on(spec: SceneSpec, state: GameState) -> bool:
    on = spec.opens_on
    if on.flag is None and on.event is None and on.beat is None and on.episode is None:
        return False
    after = state.after
    fired = {e.event for e in state.staged_events if isinstance(e, ev.EventFired)} | set(after.world.fired_events)
    return ((on.flag is None or on.flag in after.director.flags) and (on.event is None or on.event in fired)
            and (on.beat is None or on.beat == after.director.current_beat)
            and (on.episode is None or on.episode == after.director.episode))


def interrupted(state: GameState) -> str | None:
    """Why the running scene cannot go on this turn (left, fight, defeated), or None."""
    scene = state.after.scenes.scene
    if scene is None:
        return None
    if state.after.player.defeated:
        return "defeated"
    if state.after.location != scene.location:
        return "left"
    if state.after.combat is not None:
        return "fight"
    return None


def goal_met(state: GameState, pack: EraPack, scene: ActiveScene) -> bool:
    """The scene's ``goal_flags`` are all set, or this turn meets its ``goal`` trigger (a pack scene's). Never on the
    turn that opened it: the words that open a scene start it, they do not settle it."""
    spec = pack.scenes.get(scene.id)
    if spec is None or scene.started_turn >= state.turn:
        return False
    if spec.goal_flags and all(flag in state.after.director.flags for flag in spec.goal_flags):
        return True
    if spec.goal is None or state.router_output is None or state.mechanic_result is None:
        return False
    return not unmet(spec.goal, state, pack)


def closed(scene: ActiveScene, reason: str, achieved: bool, minutes_now: int) -> ev.SceneClosed:
    return ev.SceneClosed(scene=scene.id, reason=reason, goal_achieved=achieved, beats=scene.beat, tokens=scene.tokens,
                          minutes=max(0, minutes_now - scene.started_minutes))


def event_due(scene: ActiveScene, pack: EraPack) -> str | None:
    """The world event to inject at the start of the next beat: the scene has stalled ``stall_beats`` beats in a row
    and has events left (a pack scene's ``events``; the place's details for a scene the talk opened)."""
    spec = pack.scenes.get(scene.id)
    if scene.stalled < (spec.stall_beats if spec else 2):
        return None
    events = list(spec.events) if spec else list(pack.locations[scene.location].details)
    return events[scene.events_used] if scene.events_used < len(events) else None


MOVING_WORDS = 4  # a line shorter than this ("No idea.", "Hm.") says nothing that moves a scene


def stalled(state: GameState, lines: list[SceneLine], first_beat: bool, off_track: bool = False) -> bool:
    """Whether a beat moved nothing: on the turn's first beat the player's own turn counts (a check rolled, a quest,
    flag, discovery or rumor); every beat counts two spoken lines from the characters, of :data:`MOVING_WORDS` words
    or more. ``off_track``: the moderator role found the talk off its goal."""
    if off_track:
        return True
    moved = first_beat and any(isinstance(e, ev.QuestUpdate | ev.FlagSet | ev.Discovery | ev.RumorHeard)
                               for e in state.staged_events)
    result = state.mechanic_result
    rolled = first_beat and result is not None and result.outcome != Outcome.NO_ROLL and not result.impossible
    spoken = sum(1 for line in lines if line.action in SPOKEN and line.speaker not in ("player", "event")
                 and len(line.content.split()) >= MOVING_WORDS)
    return not (moved or rolled or spoken >= 2)


def notes(scene: ActiveScene, lines: list[SceneLine], failed: list[str], names: dict[str, str],
          beat: int) -> dict[str, str]:
    """The moderator's notes for the next beat, by character id: wrap up when one beat is left, a nudge for a
    character who said nothing, and a ``[SYSTEM: ...]`` note to the others about an agent that could not answer."""
    out: dict[str, list[str]] = {c: [] for c in scene.characters}
    spoke = {line.speaker for line in lines if line.action in SPOKEN}
    for cid in scene.characters:
        if scene.max_beats - beat <= 1:
            out[cid].append(WRAP_UP)
        if cid not in spoke and cid not in failed:
            out[cid].append(PASSIVE)
        out[cid] += [f"[SYSTEM: {names.get(f, f)} is unable to respond]" for f in failed if f != cid]
    return {cid: " ".join(parts) for cid, parts in out.items() if parts}


WINDOW_BEATS = 2  # the transcript a character reads starts anew every this many beats (see transcript_window)


def transcript_window(lines: list[SceneLine], beat: int) -> list[SceneLine]:
    """The transcript a character reads on ``beat``: the lines of the beats from the start of the last whole block of
    :data:`WINDOW_BEATS` (two to three beats), at most ``SCENE_RECENT`` lines. The window grows by a beat, then starts
    anew, so that every other beat's prompt is the last one's with lines added (a prefix a local model has cached)
    rather than shifted by a line, as a window of the last N lines would be."""
    start = WINDOW_BEATS * (beat // WINDOW_BEATS) - WINDOW_BEATS + 1
    return [line for line in lines if line.beat >= start][-SCENE_RECENT:]


def setting_text(state: GameState, pack: EraPack, scene: ActiveScene, names: dict[str, str]) -> str:
    """What every character reads of the scene, as it holds from beat to beat: goal, place, hour, who is there."""
    location = pack.locations[scene.location]
    who = ", ".join([f"{state.player.name} (the player)", *(names[c] for c in scene.characters)])
    return (f"Scene goal: {scene.goal} Place: {location.name}, {clock.time_of_day(state.after.world.time_minutes)}. "
            f"Present: {who}.")


def context_text(state: GameState) -> str:
    """The ``scene_context`` every character reads on a beat: what the player just said or did, and what came of it."""
    result = state.mechanic_result
    did = f" What came of it: {result.summary}" if result is not None and result.summary else ""
    router = state.router_output
    said = router.text if router else state.player_input
    return f"The player just said or did: \"{said}\".{did}"


def player_line(state: GameState, beat: int, named: list[str]) -> SceneLine:
    """The player's turn as the first line of the turn's first beat: their words when the line is talk (the router
    heard DIALOGUE_ONLY), else what they did, as a gesture ("threaten Rhea" is done, not said)."""
    target = named[0] if len(named) == 1 else "all"
    text = " ".join(state.player_input.split())
    router = state.router_output
    if router is not None and router.action_class != ActionClass.DIALOGUE_ONLY:
        return SceneLine(beat=beat, speaker="player", name=state.player.name, target=target, action="player",
                         nonverbal=text)
    return SceneLine(beat=beat, speaker="player", name=state.player.name, target=target, action="player",
                     content=text)


def resolve(target: str | None, names: dict[str, str], player: str) -> str | None:
    """A reply's ``TO:`` as an id: a character's id, ``player`` or ``all``; None when it names nobody here."""
    if not target:
        return None
    key = name_key(target)
    if key in {name_key(t) for t in TO_PLAYER} or key in (name_key(player), name_key(player.split()[0])):
        return "player"
    if key in {name_key(t) for t in TO_ALL}:
        return "all"
    for cid, name in names.items():
        if key in (name_key(cid), name_key(name), name_key(name.split()[0])):
            return cid
    return None


def order(replies: list[tuple[str, Reply]], scene: ActiveScene, names: dict[str, str], player: str, *, seed: int,
          turn: int, beat: int, addressed_ids: list[str], cap: int,
          variant: int = 0) -> tuple[list[SceneLine], list[str]]:
    """The beat's transcript lines in speaking order (see the module docstring), and warnings. ``replies`` may come
    in any order: the result depends only on who said what."""
    warnings: list[str] = []
    rng = dice.rng_for(seed, f"scene-order:{scene.id}:{beat}", dice.turn_key(turn, variant))
    draw = {cid: rng.random() for cid in sorted(names)}
    first = scene.characters[0] if scene.beat == 0 and beat == 1 else None

    def rank(cid: str) -> tuple[int, int, float]:
        asked = addressed_ids.index(cid) if cid in addressed_ids else len(addressed_ids)
        return (asked, 0 if cid == first else 1, draw.get(cid, 1.0))

    lines: dict[str, SceneLine] = {}
    for cid, reply in sorted(replies, key=lambda pair: pair[0]):
        if reply.action == "silent":
            continue
        target = resolve(reply.target, names, player)
        if reply.target and target is None:
            warnings.append(f"scene: {names.get(cid, cid)} spoke to {reply.target!r}, who is not in the scene")
        lines[cid] = SceneLine(beat=beat, speaker=cid, name=names.get(cid, cid), target=target, action=reply.action,
                               tone=reply.tone, content=reply.content, nonverbal=reply.nonverbal, after=reply.after)
    pending = sorted((line for line in lines.values() if line.action != "interrupt"), key=lambda x: rank(x.speaker))
    placed: list[SceneLine] = []
    def waits(line: SceneLine) -> bool:
        """Said to someone whose own line is still to come, and not one of two who address each other (then the
        priority says who speaks first, and the other answers)."""
        other = next((x for x in pending if x.speaker == line.target and x.speaker != line.speaker), None)
        return other is not None and other.target != line.speaker

    while pending:  # a line said to someone who also speaks this beat waits for that line
        pick = next((line for line in pending if not waits(line)), pending[0])
        pending.remove(pick)
        placed.append(pick)
        answers = [line for line in pending if line.target == pick.speaker]
        for line in answers:
            pending.remove(line)
            placed.append(line)
    hosts: dict[int, list[SceneLine]] = {}  # index in placed -> the interruption cutting into it
    taken: set[int] = set()
    for line in sorted((x for x in lines.values() if x.action == "interrupt"), key=lambda x: rank(x.speaker)):
        host = next((i for i, x in enumerate(placed) if i not in taken and x.speaker != line.speaker
                     and x.action in SPOKEN and _phrase_end(x.content, line.after or "") is not None), None)
        if host is None:
            warnings.append(f"scene: {line.name} interrupts after {line.after!r}, which nobody said; kept as a line")
            placed.append(line.model_copy(update={"action": "speak", "after": None}))
            continue
        taken.add(host)
        hosts[host] = [line]
    kept: list[SceneLine] = []
    spoken = 0
    for i, line in enumerate(placed):  # the cap: a line and the interruption cutting into it stand or fall together
        cutting = hosts.get(i, [])
        need = int(line.action in SPOKEN) + len(cutting)
        if need and spoken + need > cap:
            if cutting and line.action in SPOKEN and spoken < cap:  # room for the line, not for whoever cuts in
                warnings.append(f"scene: {cutting[0].name}'s interruption left out (at most {cap} spoken lines a "
                                "beat)")
                kept.append(line)
                spoken += 1
                continue
            warnings += [f"scene: {x.name}'s line left out (at most {cap} spoken lines a beat)"
                         for x in [line, *cutting] if x.action in SPOKEN]
            continue
        if cutting:
            end = _phrase_end(line.content, cutting[0].after or "")
            line = line.model_copy(update={"content": line.content[:end].rstrip(" ,;:") + "\u2014"})
        kept += [line, *cutting]
        spoken += need
    return kept, warnings


def _phrase_end(content: str, phrase: str) -> int | None:
    """Where ``phrase`` ends in ``content`` (case and punctuation aside), or None."""
    words = re.findall(r"[\w']+", phrase.lower())
    if not words:
        return None
    pattern = r"\W+".join(re.escape(w) for w in words)
    found = re.search(rf"\b{pattern}\b", content, re.IGNORECASE)
    return found.end() if found else None


def suggestions(after: PersistentState, pack: EraPack, lines: list[SceneLine], picks: list[Suggestion],
                names: dict[str, str]) -> list[Suggestion]:
    """The four suggestions with up to three made for the scene: answer (or side with) the last character who spoke,
    ask what they meant, win one over to the other's side. Each is classified as the router will play it
    (``rules.intent.kind_of``) and replaces the suggestion of its tone only when it plays as that tone."""
    spoken = [x for x in lines if x.action in SPOKEN and x.speaker in names]
    if not spoken:
        return picks
    last = spoken[-1]
    first = names[last.speaker].split()[0]
    argued = next((x for x in reversed(spoken) if x.target in names and x.target != x.speaker), None)
    labels = [f"Ask {first} what that means"]
    if argued is not None:
        a, b = names[argued.speaker].split()[0], names[argued.target].split()[0]
        labels += [f"Side with {a}", f"Convince {b} that {a} is right"]
    else:
        labels.append(f"Answer {first}")
    out = {s.tone: s for s in picks}
    for label in labels:
        action, tone = intent.kind_of(label, after, pack)
        if tone in out and action in TALKING | {ActionClass.DIALOGUE_ONLY}:
            risk = Risk.SAFE if action == ActionClass.DIALOGUE_ONLY else Risk.RISKY
            out[tone] = Suggestion(label=label, tone=tone, risk=risk, action_class=action.value)
    return [out[s.tone] for s in picks]
