"""Dead content: the places, NPCs, quest stages, episodes and scenes of a pack that no campaign of a run reached,
each with the reason a designer can act on.

A reason comes first from the pack's own analysis (``packs.tools``, what ``skald pack lint`` and ``skald pack show``
report: an unreachable place, an NPC never where players go, a stage that can never complete): then
``named_by_lint`` is true. Otherwise it comes from what the runs did: how far they got, and where they stopped (a
quest that stood at a stage whose condition never held, with the nearest miss the quest log hinted at).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from skald.core.pack import EraPack, Quest, QuestTrigger
from skald.packs import tools
from skald.playtest.record import CampaignRecord


@dataclass
class DeadEntry:
    kind: str  # place | npc | quest_stage | episode | scene
    id: str  # the entry's id ("quest/stage" for a stage)
    name: str
    reason: str
    named_by_lint: bool  # the pack's static analysis (skald pack lint) already names it


def dead_content(pack: EraPack, records: list[CampaignRecord], turns: int) -> list[DeadEntry]:
    """Everything of ``pack`` that no campaign in ``records`` (of ``turns`` lines each) reached, with why."""
    analysis = tools.analyse(pack)
    runs = f"{len(records)} campaign(s) of {turns} turns"
    return [*_places(pack, records, analysis, runs), *_npcs(pack, records, analysis),
            *(entry for q in pack.quests.values() for entry in _stages(pack, q, records, analysis)),
            *_episodes(pack, records), *_scenes(pack, records, analysis)]


def _campaigns(records: list[CampaignRecord], hit) -> int:
    return sum(1 for r in records if hit(r))


def _places(pack: EraPack, records: list[CampaignRecord], analysis: tools.Analysis, runs: str) -> list[DeadEntry]:
    seen = set().union(*(r.visited for r in records)) if records else set()
    hops = _hops(pack, analysis.graph.entry_points)
    out = []
    for place in pack.locations.values():
        if place.id in seen:
            continue
        if place.id in analysis.graph.unreachable:
            into = sorted(p.id for p in pack.locations.values() if place.id in {lk.to for lk in p.links})
            why = f"only {', '.join(into)} link to it, and no player reaches them" if into else "nothing links to it"
            out.append(DeadEntry("place", place.id, place.name, f"unreachable: no chain of links leads to it from "
                                 f"where play begins ({why})", True))
        else:
            far = hops.get(place.id, 0)
            where = f"{far} link(s) from where play begins" if far else "play can begin here, for some backgrounds"
            out.append(DeadEntry("place", place.id, place.name, f"reachable ({where}), but no run went there in "
                                 f"{runs}", False))
    return out


def _hops(pack: EraPack, starts: list[str]) -> dict[str, int]:
    """Links from the nearest place play begins at, per reachable place."""
    dist = {s: 0 for s in starts if s in pack.locations}
    frontier = list(dist)
    while frontier:
        nxt = []
        for here in frontier:
            for link in pack.locations[here].links:
                if link.to in pack.locations and link.to not in dist:
                    dist[link.to] = dist[here] + 1
                    nxt.append(link.to)
        frontier = nxt
    return dist


def _npcs(pack: EraPack, records: list[CampaignRecord], analysis: tools.Analysis) -> list[DeadEntry]:
    met = set().union(*(r.met for r in records)) if records else set()
    static = {p.id: p.problem for p in analysis.people if p.what == "npc"}
    out = []
    for npc in pack.npcs.values():
        if npc.id in met:
            continue
        if npc.id in static:
            out.append(DeadEntry("npc", npc.id, npc.name, static[npc.id], True))
            continue
        places = sorted(tools.npc_places(pack, npc.id) & set(pack.locations))
        went = _campaigns(records, lambda r, ps=set(places): bool(r.visited & ps))
        names = ", ".join(pack.locations[p].name for p in places)
        why = (f"at {names}, where no run went" if not went else
               f"{went} campaign(s) went to {names}, but none met them there")
        out.append(DeadEntry("npc", npc.id, npc.name, why, False))
    return out


def describe(when: QuestTrigger, pack: EraPack) -> str:
    """A stage's condition in words: 'at Scrip Market, with Juno Farrow, by PERSUADE or INTIMIDATE'."""
    parts = []
    if when.location:
        parts.append(f"at {pack.locations[when.location].name}" if when.location in pack.locations else when.location)
    if when.npc:
        parts.append(f"with {pack.npcs[when.npc].name}" if when.npc in pack.npcs else when.npc)
    if when.item:
        parts.append(f"holding {pack.items[when.item].name}" if when.item in pack.items else when.item)
    if when.action_classes:
        parts.append("by " + " or ".join(when.action_classes))
    parts.append("succeeding" if when.success else "success or failure")
    return ", ".join(parts)


def _stages(pack: EraPack, quest: Quest, records: list[CampaignRecord], analysis: tools.Analysis) -> list[DeadEntry]:
    runs = [r.quests[quest.id] for r in records if quest.id in r.quests]
    done = [sum(1 for x in runs if x.stages_done > n) for n in range(len(quest.stages))]
    static = [p for p in analysis.quests if p.id == quest.id]
    first_dead = next((n for n, d in enumerate(done) if not d), None)
    out = []
    for n, stage in enumerate(quest.stages):
        if done[n]:
            continue
        mine = [p.problem for p in static if p.path[:2] == ("stages", n) or p.path[:1] == ("giver",)]
        key, name = f"{quest.id}/{stage.id}", f"{quest.title}: {stage.id}"
        if mine:
            out.append(DeadEntry("quest_stage", key, name, "can never complete: " + "; ".join(mine), True))
        elif n == first_dead:
            out.append(DeadEntry("quest_stage", key, name, _why_stuck(pack, quest, n, records, runs), False))
        else:
            out.append(DeadEntry("quest_stage", key, name, f"comes after stage {quest.stages[first_dead].id}, which "
                                 "no run completed", False))
    return out


def _why_stuck(pack: EraPack, quest: Quest, n: int, records: list[CampaignRecord], runs: list) -> str:
    giver = pack.npcs[quest.giver].name if quest.giver in pack.npcs else quest.giver
    offered, started = sum(x.offered for x in runs), sum(x.started for x in runs)
    if not offered:
        met = _campaigns(records, lambda r: quest.giver in r.met)
        return (f"the quest was never offered: no run met its giver, {giver}" if not met else
                f"the quest was never offered, though {met} campaign(s) met {giver} (it is offered when the player "
                "speaks to them)")
    if not started:
        return f"offered in {offered} campaign(s), never taken up (say yes to {giver}, or do its first stage)"
    stood = sum(1 for x in runs if x.started and x.stages_done == n)
    hints = Counter(r.hints[f"{quest.id}/{n}"] for r in records if f"{quest.id}/{n}" in r.hints)
    near = f"; the nearest miss, as the quest log put it: {hints.most_common(1)[0][0]!r}" if hints else ""
    return (f"the quest stood at this stage in {stood} campaign(s), but its condition never held "
            f"({describe(quest.stages[n].when, pack)}){near}{_moved_away(pack, quest.stages[n].when)}")


def _moved_away(pack: EraPack, when: QuestTrigger) -> str:
    """The world events that move the stage's NPC somewhere other than the stage's place (a designer's likely
    culprit when the two never meet), as a clause; empty when none does."""
    if not when.npc or not when.location or when.npc not in pack.npcs:
        return ""
    away = [(event.id, to) for event in pack.events.values() for who, to in event.effects.npc_moves.items()
            if who == when.npc and to != when.location]
    if not away:
        return ""
    moves = "; ".join(f"event {eid} moves them to {pack.locations[to].name if to in pack.locations else to}"
                      for eid, to in away)
    return f"; {pack.npcs[when.npc].name} may not be at {pack.locations[when.location].name} when it matters: {moves}"


def _episodes(pack: EraPack, records: list[CampaignRecord]) -> list[DeadEntry]:
    started = {e for r in records for e in r.episodes_started}
    ended = Counter(e[0] for r in records for e in r.episodes_ended)
    setters = _flag_setters(pack)
    first = next(iter(pack.episodes), None)
    out = []
    for episode in pack.episodes.values():
        if episode.id in started:
            continue
        before = [e for e in pack.episodes.values() if episode.id in e.next]
        offered = (f"suggested after {', '.join(e.title for e in before)} (the first of their next not yet played; "
                   f"those ended {sum(ended[e.id] for e in before)} time(s)) or picked with /next {episode.id}")
        if not episode.starts_at.empty:
            why, lint = _never_started(pack, episode.starts_at, records, setters)
            why += f"; it is also {offered}" if before else ""
        elif episode.id == first:
            why, lint = "the campaign's first episode, yet no run started it", False
        else:
            why = f"starts only when {offered}" if before else ("no episode lists it in next and it has no starts_at: "
                                                              f"only /next {episode.id} starts it")
            lint = not before
        out.append(DeadEntry("episode", episode.id, episode.title, why, lint))
    return out


def _never_started(pack: EraPack, at, records: list[CampaignRecord],
                   setters: dict[str, list[str]]) -> tuple[str, bool]:
    """Why an episode with ``starts_at`` never started: the condition no run met, or that they never held at once
    between episodes; (reason, whether the pack itself makes it impossible)."""
    conditions = []  # (what must hold, what no run did, campaigns in which it held)
    if at.flag:
        if at.flag not in setters:
            return f"starts when flag {at.flag!r} is set, and nothing in the pack sets it", True
        held = _campaigns(records, lambda r: at.flag in r.flags)
        conditions.append((f"flag {at.flag!r} is set", f"no run set flag {at.flag!r}, which only "
                           f"{' or '.join(setters[at.flag])} sets: check that it can happen in play", held))
    if at.quest:
        title = pack.quests[at.quest].title if at.quest in pack.quests else at.quest
        held = _campaigns(records, lambda r: at.quest in r.quests and r.quests[at.quest].started)
        conditions.append((f"{title} is taken up", f"no run took up {title}", held))
    if at.location:
        name = pack.locations[at.location].name
        held = _campaigns(records, lambda r: at.location in r.visited)
        conditions.append((f"the player is at {name}", f"no run went to {name}", held))
    wanted = " and ".join(c for c, _, _ in conditions)
    never = [missed for _, missed, held in conditions if not held]
    if never:
        return f"starts when {wanted}; {never[0]}", False
    counts = ", ".join(f"{c}: {held} campaign(s)" for c, _, held in conditions)
    return (f"starts when {wanted}; each held in some campaign ({counts}), but never between episodes (an episode "
            "starts by itself only while none runs)", False)


def _scenes(pack: EraPack, records: list[CampaignRecord], analysis: tools.Analysis) -> list[DeadEntry]:
    """Scenes no run opened, each with why: what lint finds (``analysis.scenes``: its place unreachable, or one of
    its people never there), else no run went there, its ``opens_on`` flag was never set, or its people were never
    all there with the player."""
    opened = {s for r in records for s in r.scenes_opened}
    static = {}
    for problem in analysis.scenes:
        static.setdefault(problem.id, problem.problem)
    out = []
    for scene in pack.scenes.values():
        if scene.id in opened:
            continue
        here = pack.locations[scene.location].name
        went = sum(scene.location in r.visited for r in records)
        flag = scene.opens_on.flag
        if scene.id in static:
            why = static[scene.id]
        elif not went:
            why = f"no run went to {here}, where it plays"
        elif flag and not any(flag in r.flags for r in records):
            why = f"opens when flag {flag!r} is set, and no run set it"
        else:
            why = (f"its people ({', '.join(scene.characters)}) were never all at {here} with the player, who went "
                   f"there in {went} campaign(s)")
        out.append(DeadEntry("scene", scene.id, scene.id, why, scene.id in static))
    return out


def _flag_setters(pack: EraPack) -> dict[str, list[str]]:
    """Flag -> what sets it ('quest short_pour stage tell_hesper', 'event ...', 'scene ...')."""
    out: dict[str, list[str]] = {}
    for quest in pack.quests.values():
        for stage in quest.stages:
            if stage.set_flag:
                out.setdefault(stage.set_flag, []).append(f"quest {quest.id} stage {stage.id}")
    for event in pack.events.values():
        if event.effects.set_flag:
            out.setdefault(event.effects.set_flag, []).append(f"event {event.id}")
    for scene in pack.scenes.values():
        if scene.set_flag:
            out.setdefault(scene.set_flag, []).append(f"scene {scene.id}")
    return out
