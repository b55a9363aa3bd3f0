"""The Director's episode layer: bounded stories with beats, a way to end, an evaluation and what comes next.

Adapted from the Director design of story-game engines (episodes, beats, completion modes, evaluation, a suggested
next episode) to Skald's turns and era packs (``episodes.yaml``, ``core.pack.Episode``). Skald's own thresholds:

Beats run establishment -> complication -> escalation -> pivot -> resolution and only move forward. Over an episode's
pacing ``P`` (its ``turn_budget``, else 12 story turns) with ``t`` story turns played:

- by the pack's signals (``episodes.yaml``'s ``beats``: a quest stage, a flag, an arrival, a first meeting, a check
  that succeeds), at once; a beat that names a signal is reached by it and nothing else;
- by position, one step per story turn at most, and only up to the escalation: complication at
  ``t >= max(2, round(0.2 P))``, escalation at ``round(0.45 P)``. The pivot and the resolution are never reached by
  the turn count: an episode played without touching its premise runs out its budget unfinished, and is never won
  (the Director design's v1 inferred every beat from position; a game that must be fair cannot);
- by events, at once (for beats the pack names no signal for): a failed check that cost HP escalates; the
  episode's own quest (``starts_at.quest``, else any quest) completing, or a flag its objective needs being set, is
  the pivot; a successful (or roll-free) turn after the pivot resolves;
- the turn an episode ends is its resolution. The beat classifier (an LLM role, off by default) may move the beat one
  step forward only where position could: never to the pivot or the resolution.

Completion (:func:`check_completion`): ``turn_limited`` after ``turn_budget`` story turns (``turn_limit``);
``beat_gated`` when ``required_beat`` has landed (and, with ``require_resolution``, the resolution after it:
``beat_complete``); ``objective`` when every flag in ``all`` and one in ``any`` is set (``objective_met``); for
beat_gated and objective a ``turn_budget`` is a hard limit (``turn_limit``, unfinished). ``open`` ends only on the
player's ``/end`` (``player_end``). META turns never count.

Per story turn the episode records a *signal* (how the player went at it) and a *tension* reading (0..1):

- signal: ATTACK/INTIMIDATE violent; DECEIVE/SNEAK sly; PERSUADE/RECRUIT/GIVE/talk diplomatic; INVESTIGATE curious;
  REST/RECOVER cautious; anything else bold when RISKY or DANGEROUS, cautious when SAFE;
- tension: 0.15 / 0.35 / 0.55 by risk (SAFE / RISKY / DANGEROUS), +0.15 for a failure (+0.25 critical),
  +0.6 x the share of max HP lost (at most +0.3), +0.2 in a fight, 1.0 when the player goes down.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from skald.core import events as ev
from skald.core.events import BEAT_ORDER
from skald.core.pack import BeatSignal, Episode, EraPack
from skald.core.persistent import DirectorState, EpisodeEvaluation, KeyMoment, PersistentState
from skald.core.records import Moment
from skald.core.state import GameState
from skald.core.vocab import ActionClass, Outcome, QuestStatus, Risk
from skald.rules.money import money
from skald.text import counted, or_list, sentences, the_group, the_place, with_article
from skald.words import TERMINAL, Words

SIGNALS = ("bold", "cautious", "violent", "diplomatic", "sly", "curious")
ARCHETYPES = {"violent": "the Brawler", "diplomatic": "the Silver Tongue", "sly": "the Shadow",
              "curious": "the Seeker", "bold": "the Daredevil", "cautious": "the Steady Hand"}
ARCHETYPE_LINES = {
    "violent": "you settled things with your fists and your weapon",
    "diplomatic": "you talked your way through, one conversation at a time",
    "sly": "you worked the angles nobody was watching",
    "curious": "you kept digging until the place gave up its answers",
    "bold": "you took the risky road every time it was offered",
    "cautious": "you kept your footing and took no risk you did not have to",
}
WANDERER = "the Wanderer"  # no signal over 30% of the turns
TRIGGERS = ("turn_limit", "beat_complete", "objective_met", "player_end", "abandoned")
KEY_MOMENTS_KEPT = 6
_BY_CLASS = {
    ActionClass.ATTACK: "violent", ActionClass.INTIMIDATE: "violent", ActionClass.DECEIVE: "sly",
    ActionClass.SNEAK: "sly", ActionClass.PERSUADE: "diplomatic", ActionClass.RECRUIT: "diplomatic",
    ActionClass.GIVE: "diplomatic", ActionClass.DIALOGUE_ONLY: "diplomatic", ActionClass.INVESTIGATE: "curious",
    ActionClass.REST: "cautious", ActionClass.RECOVER: "cautious",
}
_RISK_TENSION = {Risk.SAFE: 0.15, Risk.RISKY: 0.35, Risk.DANGEROUS: 0.55}
_STYLE_WORDS = {  # premise words that suit a playstyle, for choosing the next episode
    "violent": {"fight", "raid", "brawl", "hunt", "blood", "attack", "beast", "gang", "war"},
    "diplomatic": {"talk", "deal", "bargain", "truce", "vote", "persuade", "moot", "strike", "union", "favour"},
    "sly": {"steal", "smuggle", "quiet", "secret", "cargo", "forged", "skim", "lie", "hidden", "night"},
    "curious": {"find", "search", "mystery", "lost", "missing", "why", "who", "truth", "proof", "ledger"},
    "bold": {"race", "storm", "dare", "danger", "deep", "out", "flats", "ridge", "tide"},
    "cautious": {"guard", "keep", "protect", "hold", "safe", "watch", "wait", "mend"},
}


# ------------------------------------------------------------------------------------------------- the turn


def signal_of(state: GameState) -> str:
    """How the player went at this turn (see the module docstring)."""
    routed, result = state.router_output, state.mechanic_result
    action = routed.action_class if routed else ActionClass.DIALOGUE_ONLY
    if action in _BY_CLASS:
        return _BY_CLASS[action]
    risk = result.risk if result else Risk.SAFE
    return "cautious" if risk == Risk.SAFE else "bold"


def tension_of(state: GameState) -> float:
    """This turn's tension, 0..1 (see the module docstring)."""
    kinds = [type(e) for e in state.staged_events]
    if ev.Defeated in kinds:
        return 1.0
    result = state.mechanic_result
    value = _RISK_TENSION[result.risk] if result else 0.15
    if result and result.outcome == Outcome.FAILURE:
        value += 0.15
    elif result and result.outcome == Outcome.CRITICAL_FAILURE:
        value += 0.25
    lost = sum(e.amount for e in state.staged_events if isinstance(e, ev.Damage))
    value += min(0.3, 0.6 * lost / max(1, state.player.max_hp))
    if state.after.combat is not None or ev.CombatStart in kinds:
        value += 0.2
    return round(min(1.0, value), 2)


def stages_done(events: Iterable[ev.BaseEvent]) -> list[tuple[str, int]]:
    """(quest id, index of the stage completed) for each QUEST_UPDATE that completes a stage."""
    return [(e.quest, e.stage - 1) for e in events if isinstance(e, ev.QuestUpdate) and e.stage > 0]


def flags_set(events: Iterable[ev.BaseEvent], pack: EraPack, have: Iterable[str]) -> list[ev.FlagSet]:
    """FLAG_SET for every quest stage completed and world event fired this turn that has a ``set_flag`` not yet set."""
    events = list(events)
    out: list[ev.FlagSet] = []
    seen = set(have)
    for quest_id, index in stages_done(events):
        quest = pack.quests.get(quest_id)
        stage = quest.stages[index] if quest and 0 <= index < len(quest.stages) else None
        if stage is not None and stage.set_flag and stage.set_flag not in seen:
            out.append(ev.FlagSet(flag=stage.set_flag, source=f"quest:{quest_id}:{stage.id}"))
            seen.add(stage.set_flag)
    for fired in (e for e in events if isinstance(e, ev.EventFired)):
        world_event = pack.events.get(fired.event)
        flag = world_event.effects.set_flag if world_event else None
        if flag and flag not in seen:
            out.append(ev.FlagSet(flag=flag, source=f"event:{fired.event}"))
            seen.add(flag)
    return out


# ------------------------------------------------------------------------------------------------- starting


def objective_met(episode: Episode, flags: Iterable[str]) -> bool:
    """Whether the flags complete ``episode``'s objective (False for an episode without one)."""
    objective = episode.completion_criteria.objective
    if objective is None or not objective.flags:
        return False
    have = set(flags)
    return all(f in have for f in objective.all) and (not objective.any or any(f in have for f in objective.any))


def starts_now(episode: Episode, state: PersistentState) -> bool:
    """Whether every condition of ``episode.starts_at`` holds in ``state`` (an empty one holds)."""
    start = episode.starts_at
    quest = state.quests.get(start.quest) if start.quest else None
    return ((start.location is None or start.location == state.location)
            and (start.quest is None or quest is not None)
            and (start.flag is None or start.flag in state.director.flags))


def playable(pack: EraPack, director: DirectorState) -> list[Episode]:
    """Episodes not yet played and not already won by the flags set (an objective met before it began), in file
    order."""
    return [e for e in pack.episodes.values()
            if e.id not in director.played and e.id != director.episode and not objective_met(e, director.flags)]


def starting(state: PersistentState, pack: EraPack, events_now: Iterable[ev.BaseEvent] = ()
             ) -> tuple[Episode, str] | None:
    """The episode that starts by itself this turn and why ("first" | "starts_at"), or None. Only while none runs.
    The campaign's first episode starts as soon as its ``starts_at`` holds (an empty one holds). Later ones start by
    themselves only when a non-empty ``starts_at`` holds and one of its conditions came true this turn (the player
    arrived, the quest was taken on, the flag was set): a player who chose to play on between episodes is pulled into
    the next one by the story, not by the clock."""
    director = state.director
    if director.episode is not None:
        return None
    first = director.number == 0
    events_now = list(events_now)
    for episode in playable(pack, director):
        if not starts_now(episode, state):
            continue
        if first:
            return episode, "first"
        if not episode.starts_at.empty and _came_true(episode, events_now):
            return episode, "starts_at"
    return None


def upcoming(state: PersistentState, pack: EraPack) -> Episode | None:
    """The campaign's first episode before the first story turn starts it (None once any episode has begun)."""
    if state.director.episode is not None or state.director.number:
        return None
    return next((e for e in playable(pack, state.director) if starts_now(e, state)), None)


def announce(state: PersistentState, pack: EraPack, *, resumed: bool, words: Words = TERMINAL) -> str:
    """The line a scene card gives the episode: the first one, named with its premise, before the first move; on
    resume, the running one and where it stands, or the one suggested next (what starts it in the frontend's
    ``words``); '' when there is nothing to say."""
    d = state.director
    first = upcoming(state, pack)
    if first is not None:
        return f"Episode 1, {first.title}, begins with your first move: {first.premise.strip()}"
    running = pack.episodes.get(d.episode or "")
    if running is not None and resumed:
        left = remaining(d, running)
        more = f", {counted(left, 'story turn')} left at most" if left is not None else ""
        shown = f", at the {d.current_beat}" if running.progress_visible and d.current_beat else ""
        return f"Episode {d.number}, {running.title}: {counted(d.turn_count, 'story turn')} in{shown}{more}."
    suggested = pack.episodes.get(d.suggested or "")
    if running is None and resumed and suggested is not None and suggested in playable(pack, d):
        return f"Between episodes: {words.say('next', campaign=state.campaign.id)} starts {suggested.title}."
    return ""


def _came_true(episode: Episode, events_now: list[ev.BaseEvent]) -> bool:
    start = episode.starts_at
    return any(isinstance(e, ev.Move) and e.to == start.location
               or isinstance(e, ev.QuestUpdate) and e.quest == start.quest and e.stage == 0
               and e.status == QuestStatus.OFFERED
               or isinstance(e, ev.FlagSet) and e.flag == start.flag for e in events_now)


# ------------------------------------------------------------------------------------------------- beats


def _at(fraction: float, pacing: int) -> int:
    return max(2, round(fraction * pacing))


def position_beat(turn_count: int, pacing: int) -> str:
    """The beat the episode's position alone calls for after ``turn_count`` story turns."""
    marks = (("resolution", 0.9), ("pivot", 0.7), ("escalation", 0.45), ("complication", 0.2))
    return next((beat for beat, fraction in marks if turn_count >= _at(fraction, pacing)), "establishment")


SIGNAL_BEATS = ("pivot", "resolution")  # never reached by the turn count alone (nor by the beat classifier)


def signal_holds(signal: BeatSignal, state: GameState, flags_now: list[ev.FlagSet]) -> bool:
    """Whether this turn shows ``signal`` (any one of its fields): a quest stage or completion, a flag set, an
    arrival, a first meeting, a risk taken and won (a check on a roll, not SAFE, that succeeded)."""
    events = state.staged_events
    for e in events:
        if signal.quest and isinstance(e, ev.QuestUpdate) and e.quest == signal.quest and (
                e.status == QuestStatus.COMPLETED if signal.stage is None else
                e.stage >= signal.stage and e.status != QuestStatus.OFFERED):
            return True
        if signal.location and isinstance(e, ev.Move) and e.to == signal.location:
            return True
        if signal.met and isinstance(e, ev.NpcMet) and e.npc == signal.met:
            return True
    if signal.flag and any(f.flag == signal.flag for f in flags_now):
        return True
    result = state.mechanic_result
    return bool(signal.check and result is not None and result.roll is not None and result.risk != Risk.SAFE
                and result.outcome.succeeded and not result.impossible)


def next_beat(director: DirectorState, episode: Episode, state: GameState, flags_now: list[ev.FlagSet]
              ) -> tuple[str, str] | None:
    """(beat, reason) the episode reaches this turn, or None. ``director`` is the state with this turn counted.
    Never a beat at or before the current one. A beat the pack names a signal for (``episode.beats``) is reached by
    that signal only (reason ``signal``); the pivot and the resolution never by position (see the module docstring)."""
    now = BEAT_ORDER.index(director.current_beat or BEAT_ORDER[0])
    result = state.mechanic_result
    named = episode.beats
    wanted: list[tuple[int, str]] = [(BEAT_ORDER.index(beat), "signal") for beat, signal in named.items()
                                     if signal_holds(signal, state, flags_now)]
    hurt = any(isinstance(e, ev.Damage) and e.amount > 0 for e in state.staged_events)
    own = episode.starts_at.quest
    final_stage = any(isinstance(e, ev.QuestUpdate) and e.status == QuestStatus.COMPLETED and own in (None, e.quest)
                      for e in state.staged_events)
    objective = episode.completion_criteria.objective
    needed = any(f.flag in (objective.flags if objective else []) for f in flags_now)
    if (final_stage or needed) and "pivot" not in named:
        wanted.append((BEAT_ORDER.index("pivot"), "pivot"))
    if result is not None and not result.outcome.succeeded and hurt and "escalation" not in named:
        wanted.append((BEAT_ORDER.index("escalation"), "escalation"))
    pivot_before = director.current_beat == "pivot" and "pivot" not in [w[1] for w in wanted]
    if pivot_before and result is not None and result.outcome.succeeded and not result.impossible and \
            "resolution" not in named:
        wanted.append((BEAT_ORDER.index("resolution"), "resolution"))
    by_position = BEAT_ORDER.index(position_beat(director.turn_count, episode.pacing))
    step = now + 1
    if by_position > now and step < len(BEAT_ORDER) and BEAT_ORDER[step] not in SIGNAL_BEATS and \
            BEAT_ORDER[step] not in named:
        wanted.append((step, "position"))
    if not wanted:
        return None
    index, reason = max(wanted)
    return (BEAT_ORDER[index], reason) if index > now else None


def classifier_may_reach(episode: Episode, beat: str) -> bool:
    """Whether the beat classifier's word alone may move the episode to ``beat``: only to a beat the rules would also
    reach by position (not the pivot, the resolution, or a beat the pack ties to a signal)."""
    return beat not in SIGNAL_BEATS and beat not in episode.beats


# ------------------------------------------------------------------------------------------------- completion


def progress(pack: EraPack, director: DirectorState, episode_id: str, number: int, beat: str) -> tuple[str, int]:
    """How far the episode has come, as a progress-visible episode shows it: the beat as dots ('●●○○○',
    beats reached of five) and how many episodes this run of the campaign has (this one's ``number`` plus those left
    to play)."""
    done = BEAT_ORDER.index(beat) + 1
    left = [e for e in playable(pack, director) if e.id != episode_id]
    return "●" * done + "○" * (len(BEAT_ORDER) - done), number + len(left)


def reached(director: DirectorState, beat: str) -> bool:
    return beat in director.beats_completed or director.current_beat == beat


def check_completion(director: DirectorState, episode: Episode) -> tuple[bool, str | None]:
    """(done, trigger) for the running episode after this turn's events: see the module docstring. ``open`` is never
    done here (the player's ``/end`` closes it)."""
    mode, criteria, budget = episode.completion_mode, episode.completion_criteria, episode.turn_budget
    over = budget is not None and director.turn_count >= budget
    if mode == "turn_limited":
        return (True, "turn_limit") if over else (False, None)
    if mode == "beat_gated":
        gate = reached(director, criteria.required_beat)
        if gate and (not criteria.require_resolution or director.current_beat == "resolution"):
            return True, "beat_complete"
    elif mode == "objective" and objective_met(episode, director.flags):
        return True, "objective_met"
    if mode != "open" and over:
        return True, "turn_limit"
    return False, None


def remaining(director: DirectorState, episode: Episode) -> int | None:
    """Story turns left before the budget ends the episode (None when nothing bounds it)."""
    if episode.turn_budget is None or episode.completion_mode == "open":
        return None
    return max(0, episode.turn_budget - director.turn_count)


# ------------------------------------------------------------------------------------------------- evaluation


def playstyle(signals: dict[str, int]) -> tuple[str, str | None, dict[str, float]]:
    """(archetype, its leading signal or None for the Wanderer, share of story turns per signal, 0..1)."""
    total = sum(signals.values())
    scores = {s: round(signals.get(s, 0) / total, 2) if total else 0.0 for s in SIGNALS}
    if not total:
        return WANDERER, None, scores
    top = max(SIGNALS, key=lambda s: (signals.get(s, 0), -SIGNALS.index(s)))
    if scores[top] < 0.3:
        return WANDERER, None, scores
    return ARCHETYPES[top], top, scores


def outcome_of(director: DirectorState, episode: Episode, trigger: str, state: PersistentState) -> str:
    """won | lost | mixed. Points: +2 the episode's goal met (beat_complete, objective_met), +1 a turn_limited
    episode seen through, 0 a budget run out on a goal (unfinished: nothing settled), +1 per quest stage completed
    (at most +2), -2 per time the player went down (at most -4), -1 ending under a third of max HP. won at 2 or more,
    lost at -1 or less. A budget run out on a goal is never won: its points are held below 2."""
    points = {"beat_complete": 2, "objective_met": 2, "player_end": 0}.get(trigger, 0)
    unfinished = trigger == "turn_limit" and episode.completion_mode != "turn_limited"
    if trigger == "turn_limit" and not unfinished:
        points += 1
    points += min(2, director.quest_steps) - min(4, 2 * director.defeats)
    if state.player.hp * 3 < state.player.max_hp:
        points -= 1
    points = min(points, 1) if unfinished else points
    return "won" if points >= 2 else "lost" if points <= -1 else "mixed"


_MOMENT_RANK = {ev.Defeated: 9, ev.NpcDefeated: 8, ev.CompanionJoin: 7, ev.CombatStart: 6, ev.QuestUpdate: 5,
                ev.Discovery: 4, ev.BeatReached: 3, ev.EpisodeStarted: 2}


def _moment_line(event: ev.BaseEvent, pack: EraPack, state: PersistentState, memory: str,
                 changed: bool = False) -> str | None:
    """One line for a notable event (None for an event that is not a moment); ``changed``: the turn changed something
    (:func:`changed_by`), so its outcome may be quoted."""
    if isinstance(event, ev.QuestUpdate) and event.quest in pack.quests:
        quest = pack.quests[event.quest]
        if event.status == QuestStatus.COMPLETED:
            return f"You finished {quest.title}."
        if event.stage == 0 and event.status == QuestStatus.OFFERED:
            giver = pack.person(quest.giver)
            return f"{giver.name if giver else 'Someone'} offered you {quest.title}."
        if event.stage == 0:
            return f"You took on {quest.title}."
        return f"{quest.title}: {quest.stages[event.stage - 1].objective.split('.')[0].strip()}, done."
    if isinstance(event, ev.CombatStart):
        return f"A fight broke out with {event.enemy_name}."
    if isinstance(event, ev.NpcDefeated):
        name = pack.npcs[event.npc].name if event.npc in pack.npcs else "your opponent"
        return f"You put {name} down."
    if isinstance(event, ev.Defeated):
        where = the_place(pack.locations[event.location]) if event.location in pack.locations else "the ground"
        return f"You went down at {where}."
    if isinstance(event, ev.CompanionJoin) and event.companion in pack.companions:
        return f"{pack.companions[event.companion].name} joined you."
    if isinstance(event, ev.Discovery):
        return f"You found something: {event.discovery.replace('_', ' ')}."
    if isinstance(event, ev.BeatReached) and event.beat == "pivot":
        quoted = _outcome_part(memory)
        place = _place_of(memory)
        return f"The turning point: {quoted}" if quoted else \
            f"The turning point came at {the_place(place)}." if place else "The turning point came."
    if isinstance(event, ev.EpisodeStarted):
        quoted = _outcome_part(memory) if changed else None
        if quoted is None:  # started by /next between turns, or on a turn where nothing happened
            title = pack.episodes[event.episode].title if event.episode in pack.episodes else "the episode"
            return f"You took up {title}."
        return f"It began: {quoted}"
    return None


QUOTED_CHARS = 160  # the most of a turn's outcome a key moment quotes, in whole sentences


def _outcome_part(memory: str) -> str | None:
    """'You persuade Juno.' from 'Turn 12, The Scrip Market: persuade Juno -> You persuade Juno. (...)': the outcome's
    whole sentences, up to :data:`QUOTED_CHARS` (at least the first); None when it has no whole sentence (a memory
    cut short)."""
    text = memory.split("->", 1)[-1].strip() if "->" in memory else ""
    text = re.sub(r"\s*\([^)]*\)\s*$", "", text).strip()
    kept: list[str] = []
    for sentence in sentences(text):
        if not sentence.endswith((".", "!", "?", '."', '!"', '?"')) or (kept and len(" ".join([*kept, sentence])) >
                                                                         QUOTED_CHARS):
            break
        kept.append(sentence)
    return " ".join(kept) or None


# What makes a turn worth remembering: something in the world or the player's lot changed (a fight, a find, a quest
# stage, money, HP, an item, an attitude, a reputation, a companion, a story flag, a scene's end, a person met, a beat
# the rules saw). A refused or empty turn has none of these, and is never a key moment.
CHANGES = (ev.Damage, ev.Heal, ev.CreditsChange, ev.ItemGet, ev.ItemLose, ev.Defeated, ev.ReputationChange,
           ev.CombatStart, ev.CombatEnd, ev.EnemyDamage, ev.NpcDefeated, ev.Discovery, ev.CompanionJoin,
           ev.CompanionLeave, ev.QuestUpdate, ev.FlagSet, ev.AttitudeChange, ev.AffinityChange, ev.RumorHeard,
           ev.SceneClosed, ev.NpcMet)


def changed_by(events: Iterable[ev.BaseEvent]) -> bool:
    """Whether ``events`` (one turn's) change something (:data:`CHANGES`, or a beat the rules saw)."""
    for e in events:
        if isinstance(e, ev.BeatReached) and e.reason not in ("position", "ending", "classifier"):
            return True
        if isinstance(e, CHANGES) and not (isinstance(e, (ev.AttitudeChange, ev.ReputationChange, ev.CreditsChange))
                                           and not e.delta and not getattr(e, "mood", None)):
            return True
    return False


def key_moments(moments: list[Moment], pack: EraPack, state: PersistentState) -> list[KeyMoment]:
    """Up to six turns worth remembering, in turn order: the start, the pivot, and the weightiest events between;
    only turns where something changed (:func:`changed_by`), and the episode's start."""
    scored: list[tuple[int, int, str]] = []
    for moment in moments:
        best = None
        started = any(isinstance(e, ev.EpisodeStarted) for e in moment.events)
        changed = changed_by(moment.events)
        if not started and not changed:
            continue  # a refused or empty turn is never a key moment
        for event in moment.events:
            rank = _MOMENT_RANK.get(type(event))
            line = _moment_line(event, pack, state, moment.memory, changed) if rank else None
            if line and (best is None or rank > best[0]):
                best = (rank, line)
        if best is not None:
            scored.append((best[0], moment.turn, best[1]))
    kept = sorted(scored, key=lambda x: (-x[0], x[1]))[:KEY_MOMENTS_KEPT]
    return [KeyMoment(turn=turn, line=line) for _, turn, line in sorted(kept, key=lambda x: x[1])]


def share_id(campaign_id: str, number: int, episode_id: str, first_turn: int, last_turn: int, pack_hash: str) -> str:
    """A short id for an evaluation: 12 hex digits of sha256 over the campaign id, the episode's number and id, the
    turns it ran and the pack version it ran on. Campaign ids repeat across save files (``<pack>-<seed>-<n>``), so
    the id holds what the episode was, not only where it sits: two results share an id only when they are the same
    episode played over the same turns of the same campaign and pack (a replay). Deterministic: a replay commits the
    same id."""
    said = f"{campaign_id}:{number}:{episode_id}:{first_turn}:{last_turn}:{pack_hash}"
    return hashlib.sha256(said.encode()).hexdigest()[:12]


def gone(episode_id: str) -> Episode:
    """A stand-in for a running episode a pack edit removed, so that it can still end, be evaluated and journalled
    (trigger ``abandoned``)."""
    title = episode_id.replace("_", " ").strip().capitalize() or "An episode"
    return Episode(id=episode_id, title=title, premise="This episode is no longer in the pack.",
                   completion_mode="open")


def suggest_next(state: PersistentState, pack: EraPack, episode: Episode, style: str | None,
                 dealt_with: list[str]) -> tuple[Episode | None, str]:
    """(the episode to suggest, one line offering it), from ``episode.next`` (first unplayed), else, among the
    unplayed episodes whose ``starts_at`` holds now (:func:`starts_now`), the one that best fits the playstyle and
    where the player stands (+2 starts at this location, +1 its quest is active, +1 per premise word that suits the
    style), else a lead from an NPC the player dealt with. (An episode whose ``starts_at`` does not hold yet starts
    by itself when it comes true: offered before, it would begin a story whose premise has not happened, e.g. a
    truce nobody signed.)"""
    director = state.director
    left = {e.id: e for e in playable(pack, director) if e.id != episode.id}
    follow = next((left[i] for i in episode.next if i in left), None)
    left = {i: e for i, e in left.items() if starts_now(e, state)}
    if follow is None and left:
        words = _STYLE_WORDS.get(style or "", set())

        def fit(e: Episode) -> int:
            premise = set(re.findall(r"[a-z]+", e.premise.lower()))
            quest = state.quests.get(e.starts_at.quest) if e.starts_at.quest else None
            return (2 * (e.starts_at.location == state.location) + int(quest is not None
                    and quest.status == QuestStatus.ACTIVE) + len(premise & words))

        follow = max(left.values(), key=fit)  # max keeps the first of equals: file order
    if follow is not None:
        return follow, follow.hook or follow.premise
    for npc_id in dealt_with:
        npc = pack.npcs.get(npc_id)
        if npc is not None:
            place = the_place(pack.locations[state.world.npc_locations.get(npc_id, npc.location)])
            return None, (f"Find {npc.name} at {place} again: someone who has seen this much may have more for you. "
                          "Or play on as you like.")
    return None, "Play on as you like: the town has more stories, and some will find you."


def ledger(moments: list[Moment], pack: EraPack) -> tuple[list[str], list[str]]:
    """(gains, costs) of an episode from its turns' events, each a short phrase ('2 quest steps', '12 credits',
    '6 HP', 'standing with the Ninth Shift Union', 'Rhea Calloway'): what the player came away with, and what it
    cost them (HP not healed, money spent, reputation lost, a companion gone). Only what the events show."""
    events = [e for m in moments for e in m.events]
    hp = sum(e.amount for e in events if isinstance(e, ev.Damage)) - sum(e.amount for e in events
                                                                          if isinstance(e, ev.Heal))
    purse = sum(e.delta for e in events if isinstance(e, ev.CreditsChange))
    standing: dict[str, int] = {}
    for e in events:
        if isinstance(e, ev.ReputationChange):
            standing[e.faction] = standing.get(e.faction, 0) + e.delta
    steps = len(stages_done(events))
    joined = [pack.companions[e.companion].name for e in events if isinstance(e, ev.CompanionJoin)
              and e.companion in pack.companions]
    left = [pack.companions[e.companion].name for e in events if isinstance(e, ev.CompanionLeave)
            and e.companion in pack.companions]
    got = [pack.items[e.item].name for e in events if isinstance(e, ev.ItemGet) and e.item in pack.items]

    def faction(fid: str) -> str:
        return pack.factions[fid].name if fid in pack.factions else fid.replace("_", " ")

    gains = [counted(steps, "quest step")] if steps else []
    gains += [money(purse, pack)] if purse > 0 else []
    gains += [f"{name} at your side" for name in joined if name not in left]
    gains += [with_article(name.lower()) for name in list(dict.fromkeys(got))[:2]]
    gains += [f"standing with {the_group(faction(f))}" for f, d in standing.items() if d > 0][:2]
    costs = [f"{hp} HP"] if hp > 0 else []
    costs += [money(-purse, pack)] if purse < 0 else []
    costs += [f"standing with {the_group(faction(f))}" for f, d in standing.items() if d < 0]
    costs += left
    return gains, costs


def _ending(trigger: str, outcome: str, gains: list[str] = (), costs: list[str] = ()) -> str:
    """How the episode ended, and what it came to: a cost is named only from what was lost (:func:`ledger`)."""
    how = {"turn_limit": "It ran its course", "beat_complete": "It came to its turning point and through it",
           "objective_met": "It ended the moment you did what it asked", "player_end": "You called it done",
           "abandoned": "It was taken out of the pack while you played it"}[trigger]
    won, lost = or_list(list(gains), "and"), or_list(list(costs), "and")
    if outcome == "won":
        result = f"and you came out ahead, with {won}." if gains else "and you came out ahead."
    elif outcome == "lost":
        result = f"and it went against you; it cost you {lost}." if costs else "and it went against you."
    elif gains and costs:
        result = f"and what you won ({won}) cost you {lost}."
    elif costs:
        result = f"and it cost you {lost}, with nothing settled."
    elif gains:
        result = f"and you came away with {won}, but nothing is settled."
    else:
        result = "and nothing was settled either way."
    return f"{how}, {result}"


def summary_text(episode: Episode, number: int, evaluation_facts: dict[str, object],
                 pack: EraPack | None = None) -> str:
    """The offline summary: where it ran, how the player went at it, the turning point, how it ended. The places
    (by name) read as running prose names them (``text.the_place``: a place of ``pack`` by its ``prose_name``)."""
    f = evaluation_facts
    named = {loc.name: loc for loc in pack.locations.values()} if pack is not None else {}
    places = [the_place(named.get(p, p)) for p in f["places"]]
    last = the_place(named.get(f["last_place"], f["last_place"])) if f.get("last_place") else places[-1]
    where = f"in {places[0]}" if len(places) == 1 else f"from {places[0]} and back" if last == places[0] else \
        f"from {places[0]} to {last}"
    turns = f["turns"]
    lines = [f"Episode {number}, {episode.title}, ran {turns} story turn{'s' * (turns != 1)} {where}."]
    style, lead = f["style"], f["lead"]
    if lead is not None:
        lines.append(f"Played as {style}: {ARCHETYPE_LINES[lead]}.")
    else:
        lines.append(f"Played as {style}: a little of everything, never the same way twice.")
    pivot = f["pivot"]
    if pivot:
        lines.append(pivot)
    lines.append(_ending(str(f["trigger"]), str(f["outcome"]), list(f.get("gains", [])), list(f.get("costs", []))))
    return " ".join(lines)


def evaluate(state: GameState, pack: EraPack, episode: Episode, trigger: str, moments: list[Moment]
             ) -> EpisodeEvaluation:
    """The episode's evaluation, deterministically (the ``evaluator`` role may rewrite ``summary``). ``state`` is the
    turn being played (its ``after`` holds this turn's director counters); ``moments`` the episode's earlier turns and
    this one, oldest first."""
    director = state.after.director
    style, lead, scores = playstyle(director.player_signals)
    outcome = outcome_of(director, episode, trigger, state.after)
    kept = key_moments(moments, pack, state.after)
    pivot = next((k.line for k in kept if k.line.startswith("The turning point")), None)
    if pivot is None:
        pivot = next((k.line for k in reversed(kept) if not k.line.startswith(("It began", "You took up"))), None)
    gains, costs = ledger(moments, pack)
    places = []
    for moment in moments:
        name = _place_of(moment.memory)
        if name and name not in places:
            places.append(name)
    places = places or [pack.locations[state.after.location].name]
    last_place = pack.locations[state.after.location].name  # where it ended, whatever came before
    dealt = [e.npc for m in reversed(moments) for e in m.events if isinstance(e, ev.NpcMet) and e.npc in pack.npcs]
    dealt += [n for n in reversed(list(state.after.known_npcs)) if n in pack.npcs]
    follow, hook = suggest_next(state.after, pack, episode, lead, list(dict.fromkeys(dealt)))
    facts = {"places": places, "last_place": last_place, "turns": director.turn_count, "style": style, "lead": lead,
             "pivot": pivot, "trigger": trigger, "outcome": outcome, "gains": gains, "costs": costs}
    return EpisodeEvaluation(
        share_id=share_id(state.campaign.id, director.number, episode.id, director.started_turn, state.turn,
                          pack.content_hash), episode=episode.id, title=episode.title,
        number=director.number, trigger=trigger, story_turns=director.turn_count, first_turn=director.started_turn,
        last_turn=state.turn, summary=summary_text(episode, director.number, facts, pack), key_moments=kept,
        playstyle=style, playstyle_scores=scores, outcome=outcome, tension_curve=list(director.tension_curve),
        next_episode=follow.id if follow else None, next_title=follow.title if follow else None, next_hook=hook)


def _place_of(memory: str) -> str | None:
    """'The Scrip Market' from 'Turn 12, The Scrip Market: ...'."""
    match = re.match(r"Turn \d+, ([^:]+):", memory)
    return match.group(1) if match else None
