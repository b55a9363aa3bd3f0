"""Coverage: how much of what a pack defines the machine players reached, over every campaign of a run.

Each kind of content is a :class:`Tally`: ``defined`` (entries the pack has), ``reached`` (entries at least one
campaign reached), ``share`` (reached / defined, 0..1; 1.0 when the pack defines none) and ``campaigns`` (entry id
-> how many campaigns reached it, 0 for the ones none did, in the pack's order). ``visits`` counts arrivals at each
place, summed over every campaign (``CampaignRecord.visits``: the place a campaign began at, then each move's
destination and each place a move passed through), in the pack's order, 0 for a place never visited.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from skald.core.pack import EraPack
from skald.playtest.record import CampaignRecord

OUTCOMES = ("won", "mixed", "lost")


@dataclass
class Tally:
    defined: int
    reached: int
    share: float
    campaigns: dict[str, int] = field(default_factory=dict)


Reached = Callable[[CampaignRecord], Iterable[str]]


def tally(ids: Iterable[str], records: list[CampaignRecord], reached: Reached) -> Tally:
    """The :class:`Tally` of the entries ``ids`` where ``reached(record)`` names what one campaign reached."""
    counts = Counter(x for r in records for x in set(reached(r)))
    per = {i: counts.get(i, 0) for i in dict.fromkeys(ids)}
    hit = sum(1 for n in per.values() if n)
    return Tally(len(per), hit, round(hit / len(per), 4) if per else 1.0, per)


@dataclass
class StageCoverage:
    id: str
    objective: str
    completed: int  # campaigns that completed this stage


@dataclass
class QuestCoverage:
    id: str
    title: str
    offered: int  # campaigns in which the giver offered it
    started: int  # campaigns that took it up
    completed: int
    stages: list[StageCoverage]


@dataclass
class QuestsCoverage:
    started: Tally
    completed: Tally
    stages: Tally  # quest stages, as "quest/stage"
    by_quest: list[QuestCoverage]


@dataclass
class EpisodeCoverage:
    id: str
    title: str
    started: int  # times started, over every campaign
    completed: int
    outcomes: dict[str, int]  # won / mixed / lost -> times
    triggers: dict[str, int]  # what ended it (turn_limit, beat_complete, objective_met, ...) -> times


@dataclass
class EpisodesCoverage:
    started: Tally
    completed: Tally
    by_outcome: dict[str, int]
    by_trigger: dict[str, int]
    by_episode: list[EpisodeCoverage]


@dataclass
class ItemsCoverage:
    bought: Tally  # of the items some shop sells
    sold: Tally  # of the items worth something (value > 0)
    found: Tally  # of the items discoveries hold


@dataclass
class ScenesCoverage:
    opened: Tally  # scenes.yaml scenes
    goal_met: Tally


@dataclass
class PolicyCoverage:
    """One policy's campaigns at a glance: mean shares per campaign (0..1) and episodes won per campaign."""

    campaigns: int
    places: float
    npcs: float
    stages: float
    episodes_won: float


@dataclass
class Coverage:
    campaigns: int
    places: Tally
    visits: dict[str, int]  # place id -> arrivals over every campaign
    npcs: Tally
    companions_recruited: Tally
    quests: QuestsCoverage
    episodes: EpisodesCoverage
    scenes: ScenesCoverage
    items: ItemsCoverage
    discoveries: Tally
    by_policy: dict[str, PolicyCoverage]


def coverage(pack: EraPack, records: list[CampaignRecord]) -> Coverage:
    """The run's coverage of ``pack``."""
    places = [loc.id for loc in pack.locations.values()]
    shops = [i for loc in pack.locations.values() for i in loc.shop]
    hidden = [d for loc in pack.locations.values() for d in loc.discoveries]
    return Coverage(
        campaigns=len(records),
        places=tally(places, records, lambda r: r.visited),
        visits={p: sum(r.visits.get(p, 0) for r in records) for p in places},
        npcs=tally(pack.npcs, records, lambda r: r.met),
        companions_recruited=tally(pack.companions, records, lambda r: r.recruited),
        quests=_quests(pack, records),
        episodes=_episodes(pack, records),
        scenes=ScenesCoverage(tally(pack.scenes, records, lambda r: r.scenes_opened),
                              tally(pack.scenes, records, lambda r: r.scenes_goal)),
        items=ItemsCoverage(tally(shops, records, lambda r: r.bought),
                            tally([i.id for i in pack.items.values() if i.value > 0], records, lambda r: r.sold),
                            tally([d.item for d in hidden if d.item], records, lambda r: r.found)),
        discoveries=tally([d.id for d in hidden], records, lambda r: r.discoveries),
        by_policy=_by_policy(pack, records),
    )


def stage_key(quest: str, n: int) -> str:
    return f"{quest}/{n}"


def stages_done(record: CampaignRecord) -> list[str]:
    return [stage_key(q, n) for q, run in record.quests.items() for n in range(run.stages_done)]


def _quests(pack: EraPack, records: list[CampaignRecord]) -> QuestsCoverage:
    stages = [stage_key(q.id, n) for q in pack.quests.values() for n in range(len(q.stages))]
    done = tally(stages, records, stages_done)
    by_quest = []
    for quest in pack.quests.values():
        runs = [r.quests[quest.id] for r in records if quest.id in r.quests]
        by_quest.append(QuestCoverage(
            quest.id, quest.title, sum(x.offered for x in runs), sum(x.started for x in runs),
            sum(x.completed for x in runs),
            [StageCoverage(s.id, s.objective, done.campaigns[stage_key(quest.id, n)])
             for n, s in enumerate(quest.stages)]))
    return QuestsCoverage(
        started=tally(pack.quests, records, lambda r: [q for q, x in r.quests.items() if x.started]),
        completed=tally(pack.quests, records, lambda r: [q for q, x in r.quests.items() if x.completed]),
        stages=done, by_quest=by_quest)


def _episodes(pack: EraPack, records: list[CampaignRecord]) -> EpisodesCoverage:
    ended = [e for r in records for e in r.episodes_ended]
    started = Counter(e for r in records for e in r.episodes_started)
    by_episode = []
    for episode in pack.episodes.values():
        mine = [e for e in ended if e[0] == episode.id]
        outcomes = Counter(e[1] for e in mine)
        by_episode.append(EpisodeCoverage(episode.id, episode.title, started[episode.id], len(mine),
                                          {o: outcomes.get(o, 0) for o in OUTCOMES}, dict(sorted(Counter(
                                              e[2] for e in mine).items()))))
    outcomes = Counter(e[1] for e in ended)
    return EpisodesCoverage(
        started=tally(pack.episodes, records, lambda r: r.episodes_started),
        completed=tally(pack.episodes, records, lambda r: [e[0] for e in r.episodes_ended]),
        by_outcome={o: outcomes.get(o, 0) for o in OUTCOMES},
        by_trigger=dict(sorted(Counter(e[2] for e in ended).items())), by_episode=by_episode)


def _by_policy(pack: EraPack, records: list[CampaignRecord]) -> dict[str, PolicyCoverage]:
    stages = sum(len(q.stages) for q in pack.quests.values()) or 1
    out = {}
    for policy in dict.fromkeys(r.policy for r in records):
        mine = [r for r in records if r.policy == policy]
        n = len(mine)
        out[policy] = PolicyCoverage(
            n, round(sum(len(r.visited & set(pack.locations)) for r in mine) / n / max(1, len(pack.locations)), 4),
            round(sum(len(r.met & set(pack.npcs)) for r in mine) / n / max(1, len(pack.npcs)), 4),
            round(sum(len(stages_done(r)) for r in mine) / n / stages, 4),
            round(sum(1 for r in mine for e in r.episodes_ended if e[1] == "won") / n, 4))
    return out
