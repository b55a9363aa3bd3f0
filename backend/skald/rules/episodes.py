"""The Director's episode layer: bounded stories with beats, a way to end, an evaluation and what comes next.

Adapted from the Director design of story-game engines (episodes, beats, completion modes, evaluation, a suggested
next episode) to Skald's turns and era packs (``episodes.yaml``, ``packs.models.Episode``). Skald's own thresholds:

Beats run establishment -> complication -> escalation -> pivot -> resolution and only move forward. Over an episode's
pacing ``P`` (its ``turn_budget``, else 12 story turns) with ``t`` story turns played:

- by position, one step per story turn at most: complication at ``t >= max(2, round(0.2 P))``, escalation at
  ``round(0.45 P)``, pivot at ``round(0.7 P)``, resolution at ``round(0.9 P)``, and never on the pivot's own turn;
- by events, at once: a failed check that cost HP escalates; a quest's final stage completing, or a flag the
  episode's objective needs being set, is the pivot; a successful (or roll-free) turn after the pivot resolves;
- the turn an episode ends is its resolution.

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
from dataclasses import dataclass

from skald import events as ev
from skald.events import BEAT_ORDER
from skald.packs.models import Episode, EraPack
from skald.persistent import DirectorState, EpisodeEvaluation, KeyMoment, PersistentState
from skald.state import GameState
from skald.text import the_place
from skald.vocab import ActionClass, Outcome, QuestStatus, Risk

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
TRIGGERS = ("turn_limit", "beat_complete", "objective_met", "player_end")
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


def next_beat(director: DirectorState, episode: Episode, state: GameState, flags_now: list[ev.FlagSet]
              ) -> tuple[str, str] | None:
    """(beat, reason) the episode reaches this turn, or None. ``director`` is the state with this turn counted.
    Never a beat at or before the current one."""
    now = BEAT_ORDER.index(director.current_beat or BEAT_ORDER[0])
    result = state.mechanic_result
    hurt = any(isinstance(e, ev.Damage) and e.amount > 0 for e in state.staged_events)
    final_stage = any(isinstance(e, ev.QuestUpdate) and e.status == QuestStatus.COMPLETED for e in state.staged_events)
    objective = episode.completion_criteria.objective
    needed = any(f.flag in (objective.flags if objective else []) for f in flags_now)
    wanted: list[tuple[int, str]] = []
    if final_stage or needed:
        wanted.append((BEAT_ORDER.index("pivot"), "pivot"))
    if result is not None and not result.outcome.succeeded and hurt:
        wanted.append((BEAT_ORDER.index("escalation"), "escalation"))
    pivot_before = director.current_beat == "pivot" and "pivot" not in [w[1] for w in wanted]
    if pivot_before and result is not None and result.outcome.succeeded and not result.impossible:
        wanted.append((BEAT_ORDER.index("resolution"), "resolution"))
    by_position = BEAT_ORDER.index(position_beat(director.turn_count, episode.pacing))
    if by_position > now:
        wanted.append((now + 1, "position"))
    if not wanted:
        return None
    index, reason = max(wanted)
    return (BEAT_ORDER[index], reason) if index > now else None


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


@dataclass(frozen=True)
class Moment:
    """A turn of the episode as the log keeps it: its number, its one-line memory and its events."""

    turn: int
    memory: str
    events: tuple[ev.BaseEvent, ...]


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
    episode seen through, -1 a budget run out on a goal, +1 per quest stage completed (at most +2), -2 per time the
    player went down (at most -4), -1 ending under a third of max HP. won at 2 or more, lost at -1 or less."""
    points = {"beat_complete": 2, "objective_met": 2, "player_end": 0}.get(trigger, 0)
    if trigger == "turn_limit":
        points += 1 if episode.completion_mode == "turn_limited" else -1
    points += min(2, director.quest_steps) - min(4, 2 * director.defeats)
    if state.player.hp * 3 < state.player.max_hp:
        points -= 1
    return "won" if points >= 2 else "lost" if points <= -1 else "mixed"


_MOMENT_RANK = {ev.Defeated: 9, ev.NpcDefeated: 8, ev.CompanionJoin: 7, ev.CombatStart: 6, ev.QuestUpdate: 5,
                ev.Discovery: 4, ev.BeatReached: 3, ev.EpisodeStarted: 2}


def _moment_line(event: ev.BaseEvent, pack: EraPack, state: PersistentState, memory: str) -> str | None:
    """One line for a notable event (None for an event that is not a moment)."""
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
        return f"The turning point: {_outcome_part(memory)}"
    if isinstance(event, ev.EpisodeStarted):
        if not memory:  # started by /next, between turns
            title = pack.episodes[event.episode].title if event.episode in pack.episodes else "the episode"
            return f"You took up {title}."
        return f"It began: {_outcome_part(memory)}"
    return None


def _outcome_part(memory: str) -> str:
    """'You persuade Juno.' from 'Turn 12, The Scrip Market: persuade Juno -> You persuade Juno. (...)'."""
    text = memory.split("->", 1)[-1].strip()
    text = re.sub(r"\s*\([^)]*\)\s*$", "", text).strip()
    return (text[:140].rstrip() + ("" if text.endswith((".", "!", "?")) else ".")) if text else "the story moved."


def key_moments(moments: list[Moment], pack: EraPack, state: PersistentState) -> list[KeyMoment]:
    """Up to six turns worth remembering, in turn order: the start, the pivot, and the weightiest events between."""
    scored: list[tuple[int, int, str]] = []
    for moment in moments:
        best = None
        for event in moment.events:
            rank = _MOMENT_RANK.get(type(event))
            line = _moment_line(event, pack, state, moment.memory) if rank else None
            if line and (best is None or rank > best[0]):
                best = (rank, line)
        if best is not None:
            scored.append((best[0], moment.turn, best[1]))
    kept = sorted(scored, key=lambda x: (-x[0], x[1]))[:KEY_MOMENTS_KEPT]
    return [KeyMoment(turn=turn, line=line) for _, turn, line in sorted(kept, key=lambda x: x[1])]


def share_id(campaign_id: str, number: int) -> str:
    """A short stable id for an evaluation: 10 hex digits of sha256(campaign id, episode number)."""
    return hashlib.sha256(f"{campaign_id}:{number}".encode()).hexdigest()[:10]


def suggest_next(state: PersistentState, pack: EraPack, episode: Episode, style: str | None,
                 dealt_with: list[str]) -> tuple[Episode | None, str]:
    """(the episode to suggest, one line offering it), from ``episode.next`` (first unplayed), else the unplayed
    episode that best fits the playstyle and where the player stands (+2 starts at this location, +1 its quest is
    active, +1 per premise word that suits the style), else a lead from an NPC the player dealt with."""
    director = state.director
    left = {e.id: e for e in playable(pack, director) if e.id != episode.id}
    follow = next((left[i] for i in episode.next if i in left), None)
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


def _ending(trigger: str, outcome: str) -> str:
    how = {"turn_limit": "It ran its course", "beat_complete": "It came to its turning point and through it",
           "objective_met": "It ended the moment you did what it asked", "player_end": "You called it done"}[trigger]
    result = {"won": "and you came out ahead.", "lost": "and it went against you.",
              "mixed": "and what you won cost you something."}[outcome]
    return f"{how}, {result}"


def summary_text(episode: Episode, number: int, evaluation_facts: dict[str, object],
                 pack: EraPack | None = None) -> str:
    """The offline summary: where it ran, how the player went at it, the turning point, how it ended. The places
    (by name) read as running prose names them (``text.the_place``: a place of ``pack`` by its ``prose_name``)."""
    f = evaluation_facts
    named = {loc.name: loc for loc in pack.locations.values()} if pack is not None else {}
    places = [the_place(named.get(p, p)) for p in f["places"]]
    where = f"in {places[0]}" if len(places) == 1 else f"from {places[0]} to {places[-1]}"
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
    lines.append(_ending(str(f["trigger"]), str(f["outcome"])))
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
        pivot = next((k.line for k in reversed(kept) if not k.line.startswith("It began")), None)
    places = []
    for moment in moments:
        name = _place_of(moment.memory)
        if name and name not in places:
            places.append(name)
    places = places or [pack.locations[state.after.location].name]
    dealt = [e.npc for m in reversed(moments) for e in m.events if isinstance(e, ev.NpcMet) and e.npc in pack.npcs]
    dealt += [n for n in reversed(list(state.after.known_npcs)) if n in pack.npcs]
    follow, hook = suggest_next(state.after, pack, episode, lead, list(dict.fromkeys(dealt)))
    facts = {"places": places, "turns": director.turn_count, "style": style, "lead": lead, "pivot": pivot,
             "trigger": trigger, "outcome": outcome}
    return EpisodeEvaluation(
        share_id=share_id(state.campaign.id, director.number), episode=episode.id, title=episode.title,
        number=director.number, trigger=trigger, story_turns=director.turn_count, first_turn=director.started_turn,
        last_turn=state.turn, summary=summary_text(episode, director.number, facts, pack), key_moments=kept,
        playstyle=style, playstyle_scores=scores, outcome=outcome, tension_curve=list(director.tension_curve),
        next_episode=follow.id if follow else None, next_title=follow.title if follow else None, next_hook=hook)


def _place_of(memory: str) -> str | None:
    """'The Scrip Market' from 'Turn 12, The Scrip Market: ...'."""
    match = re.match(r"Turn \d+, ([^:]+):", memory)
    return match.group(1) if match else None
