"""What one machine-played campaign reached and what went wrong in it: a :class:`CampaignRecord`, filled turn by turn
from each turn's staged events (``note_turn``) and handed back from a worker process (it pickles: plain sets,
dicts and lists of ids).

Ids are the pack's (locations, NPCs, companions, quests, episodes, items, discoveries, scenes); ``steps`` count the
lines the machine player typed (a line the engine refuses before playing, an empty one say, is a step with no turn).

Two records follow play over time rather than what it reached: ``visits`` (place id -> arrivals: the place the
campaign began at, then each MOVE's destination and each place a MOVE passed through) and ``tension`` (step -> the
running episode's tension reading of the turn played at that step, 0..1, the engine's own: the EPISODE_TURN event,
``rules.episodes.tension_of``; no entry for a step with no reading: no episode running, a META turn, a refused line).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.vocab import QuestStatus

TURNS_KEPT = 12  # turns kept per defect per campaign (the first ones; the count goes on)


@dataclass
class RawDefect:
    """One kind of defect in one campaign: ``key`` groups the same defect across campaigns (an input line, a
    sentence, an invariant's name), ``detail`` says it the first time it happened, ``steps`` where (the first
    ``TURNS_KEPT``), ``count`` how often."""

    kind: str
    key: str
    detail: str
    steps: list[int] = field(default_factory=list)
    count: int = 0


@dataclass
class QuestRun:
    """How far one quest got in one campaign: ``stages_done`` stages completed (0..len(stages))."""

    offered: bool = False
    started: bool = False
    stages_done: int = 0
    completed: bool = False


@dataclass
class CampaignRecord:
    """One campaign: its identity (``index`` in the run, ``seed``, ``policy``), what it reached, and its defects."""

    index: int
    seed: int
    policy: str
    steps: int = 0  # lines typed
    turns: int = 0  # turns played (steps the engine accepted)
    rejected: int = 0  # lines refused before play (empty, oversized, control characters, no such suggestion)
    seconds: float = 0.0  # the campaign's loop, wall time in its worker: policy, engine and checks
    engine_seconds: float = 0.0  # of which in Engine.play_turn
    visited: set[str] = field(default_factory=set)
    visits: Counter[str] = field(default_factory=Counter)  # place id -> arrivals (the start included)
    tension: dict[int, float] = field(default_factory=dict)  # step -> the episode's tension of that turn, 0..1
    met: set[str] = field(default_factory=set)  # NPC and companion ids (NPC_MET)
    quests: dict[str, QuestRun] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)  # "quest/stage index" -> the first hint given there
    episodes_started: list[str] = field(default_factory=list)
    episodes_ended: list[tuple[str, str, str]] = field(default_factory=list)  # (episode, outcome, trigger)
    recruited: set[str] = field(default_factory=set)
    bought: set[str] = field(default_factory=set)
    sold: set[str] = field(default_factory=set)
    found: set[str] = field(default_factory=set)  # items found in discoveries
    discoveries: set[str] = field(default_factory=set)
    scenes_opened: set[str] = field(default_factory=set)
    scenes_goal: set[str] = field(default_factory=set)
    flags: set[str] = field(default_factory=set)
    defects: dict[tuple[str, str], RawDefect] = field(default_factory=dict)

    def defect(self, kind: str, key: str, detail: str, step: int) -> None:
        """Note a defect of ``kind`` at ``step`` (the same ``key`` again adds the step to the first one)."""
        found = self.defects.setdefault((kind, key), RawDefect(kind, key, detail))
        found.count += 1
        if len(found.steps) < TURNS_KEPT and step not in found.steps:
            found.steps.append(step)

    def quest(self, quest_id: str) -> QuestRun:
        return self.quests.setdefault(quest_id, QuestRun())


def _by_name(pack: EraPack, name: str) -> str | None:
    lowered = name.lower()
    return next((item.id for item in pack.items.values() if item.name.lower() == lowered), None)


def note_turn(record: CampaignRecord, staged: list[ev.BaseEvent], location: str, pack: EraPack) -> None:
    """Fold one played turn's staged events (and where it ended, ``location``) into ``record``; the turn is the one
    played at step ``record.steps``."""
    record.visited.add(location)
    for event in staged:
        match event:
            case ev.Move(to=to, via=via):
                record.visited.update([to, *(via or [])])
                record.visits.update([*(via or []), to])
            case ev.EpisodeTurn(tension=tension):
                record.tension[record.steps] = tension
            case ev.NpcMet(npc=npc):
                record.met.add(npc)
            case ev.QuestUpdate(quest=quest, status=status, stage=stage):
                _quest(record.quest(quest), status, stage)
            case ev.QuestHint(quest=quest, stage=stage, hint=hint):
                record.hints.setdefault(f"{quest}/{stage}", hint)
            case ev.EpisodeStarted(episode=episode):
                record.episodes_started.append(episode)
            case ev.EpisodeCompleted(episode=episode, trigger=trigger, evaluation=evaluation):
                record.episodes_ended.append((episode, evaluation.outcome, trigger))
            case ev.CompanionJoin(companion=companion):
                record.recruited.add(companion)
            case ev.CreditsChange(reason=reason) if reason.startswith(("bought ", "sold ")):
                verb, _, name = reason.partition(" ")
                item = _by_name(pack, name)
                if item is not None:
                    (record.bought if verb == "bought" else record.sold).add(item)
            case ev.Discovery(discovery=found, location=where):
                record.discoveries.add(found)
                spot = pack.locations.get(where)
                item = next((d.item for d in spot.discoveries if d.id == found), None) if spot else None
                if item is not None:
                    record.found.add(item)
            case ev.SceneOpened(scene=scene) if scene in pack.scenes:
                record.scenes_opened.add(scene)
            case ev.SceneClosed(scene=scene, goal_achieved=True) if scene in pack.scenes:
                record.scenes_goal.add(scene)
            case ev.FlagSet(flag=flag):
                record.flags.add(flag)


def _quest(run: QuestRun, status: QuestStatus, stage: int) -> None:
    if status == QuestStatus.OFFERED:
        run.offered = True
        return
    run.offered = run.started = True
    run.stages_done = max(run.stages_done, stage)
    run.completed = run.completed or status == QuestStatus.COMPLETED
