"""Building what a player sees (the view shapes of ``skald.core.views``): pure functions of (state, pack), with no
I/O. Every frontend renders what these return; recordings store the :class:`~skald.core.views.TurnView` each turn
gives. Units: minutes of game time, credits, HP and stress points.
"""

from __future__ import annotations

import re
from typing import Any

from skald.core import events as ev
from skald.core.pack import BEATS, EraPack
from skald.core.persistent import EpisodeEvaluation, PersistentState, Suggestion
from skald.core.state import GameState, MechanicResult
from skald.core.transcripts import SceneTranscript, TranscriptLine
from skald.core.views import (
    PROSE_REPLACED,
    BriefView,
    CampaignView,
    CheckView,
    CombatView,
    CompanionView,
    EpisodeOffer,
    EpisodesView,
    EpisodeView,
    InventoryView,
    ItemView,
    MapLink,
    MapPlace,
    MapView,
    NewsView,
    QuestView,
    RumorsView,
    RumorView,
    SceneTurnView,
    SceneView,
    SharedEpisode,
    StatusView,
    SuggestionView,
    TurnRecordView,
    TurnView,
)
from skald.core.vocab import Intent, QuestStatus, Risk
from skald.rules import clock
from skald.rules.episodes import playable, progress, remaining
from skald.rules.money import money
from skald.rules.resolution import STAT_FOR

_ROUTE_MINUTES = re.compile(r"\((\d+) min\)")  # "Make for Kettle Row (5 min)"


def turn_record(row: dict[str, Any]) -> TurnRecordView:
    """One turn of the transcript (``GET /campaigns/{id}/turns``) from its stored row (``store.reads.turn_records``),
    each suggestion with its cost."""
    return TurnRecordView(**row | {"suggestions": [suggestion_view(s) for s in row["suggestions"]]})


def suggestion_view(s: Suggestion | dict) -> SuggestionView:
    """A suggestion as the player sees it, with its cost (``minutes``, ``stat``) from the rules' own tables."""
    s = s if isinstance(s, Suggestion) else Suggestion.model_validate(s)
    minutes = None
    travel = _ROUTE_MINUTES.search(s.label)
    if travel is not None:
        minutes = int(travel.group(1))
    elif s.action_class:
        try:
            minutes = clock.time_cost(s.action_class)
        except ValueError:  # travel without its minutes in the label, recovery: no fixed cost
            minutes = None
    stat = STAT_FOR.get(s.action_class) if s.action_class and s.risk != Risk.SAFE else None
    return SuggestionView(label=s.label, tone=s.tone, risk=s.risk, minutes=minutes, stat=stat)


def shared(evaluation: EpisodeEvaluation, pack_name: str) -> SharedEpisode:
    e = evaluation
    return SharedEpisode(share_id=e.share_id, pack=pack_name, episode=e.episode, title=e.title, number=e.number,
                         outcome=e.outcome, trigger=e.trigger, story_turns=e.story_turns, summary=e.summary,
                         key_moments=e.key_moments, playstyle=e.playstyle, playstyle_scores=e.playstyle_scores,
                         tension_curve=e.tension_curve)


def map_of(pack: EraPack, here: str, visited: set[str]) -> MapView:
    """The :class:`MapView` of ``pack`` for a player at ``here`` who has been to ``visited``."""
    links: dict[tuple[str, str], MapLink] = {}
    for place in pack.locations.values():
        for link in place.links:
            if link.to in pack.locations:
                a, b = sorted((place.id, link.to))
                links.setdefault((a, b), MapLink(a=a, b=b, minutes=link.minutes, risk=link.risk))
    return MapView(locations=[MapPlace(id=p.id, name=p.name, type=p.type, current=p.id == here,
                                       visited=p.id in visited or p.id == here) for p in pack.locations.values()],
                   links=list(links.values()))


def status(state: PersistentState, pack: EraPack) -> StatusView:
    now = state.world.time_minutes
    combat = state.combat
    return StatusView(
        location=state.location, location_name=pack.locations[state.location].name, world_time_minutes=now,
        time_of_day=clock.time_of_day(now), clock=clock.clock_text(now, pack.era.calendar.day_names),
        hp=state.player.hp, max_hp=state.player.max_hp, credits=state.player.credits,
        money=money(state.player.credits, pack), stress=state.player.stress, defeated=state.player.defeated,
        party=state.party, reputation=dict(state.reputation),
        arc_stage=state.arc_stage,
        combat=None if combat is None else CombatView(enemy_id=combat.enemy_id, enemy_name=combat.enemy_name,
                                                      enemy_hp=combat.enemy_hp, round=combat.round))


def check(result: MechanicResult | None) -> CheckView | None:
    if result is None:
        return None
    return CheckView(outcome=result.outcome, risk=result.risk, stat=result.stat, roll=result.roll,
                     stat_modifier=result.stat_modifier, env_modifier=result.env_modifier, total=result.total,
                     dc=result.dc, minutes=result.minutes, stress_delta=result.stress_delta, summary=result.summary,
                     impossible=result.impossible)


def suggestions(state: GameState) -> list[SuggestionView]:
    return [suggestion_view(s) for s in state.suggested_actions]


def turn(state: GameState, pack: EraPack, *, offline: bool = False) -> TurnView:
    """The view of a played turn; ``state`` is what ``run_turn`` returned (the committed state and the turn's
    fields)."""
    return TurnView(
        campaign_id=state.campaign.id, turn_number=state.campaign.turn_number, input=state.player_input,
        intent=state.intent, action_class=state.router_output.action_class.value if state.router_output else None,
        text=state.final_text, suggestions=suggestions(state), mechanic=check(state.mechanic_result),
        warnings=list(state.warnings), offline=offline, prose_replaced=any(PROSE_REPLACED in w for w in state.warnings),
        quit=state.quit_requested, episode=episode(state, pack, state.episode_progress), brief=brief(state),
        scene=scene_turn(state, pack), timeline=state.timeline_view, branch=state.branch,
        variant=state.variant if state.intent != Intent.META else 0, state=status(state, pack))


def scene_turn(state: GameState, pack: EraPack) -> SceneTurnView | None:
    """This turn's scene lines and its end, if a scene ran (``state`` as Commit leaves it)."""
    beats = [e for e in state.staged_events if isinstance(e, ev.SceneBeat)]
    closed = next((e for e in state.staged_events if isinstance(e, ev.SceneClosed)), None)
    if not beats and closed is None:
        return None
    scene_id = beats[-1].scene if beats else closed.scene
    running = state.scenes.scene if state.scenes.scene is not None and state.scenes.scene.id == scene_id else None
    opened = next((e for e in state.staged_events if isinstance(e, ev.SceneOpened) and e.scene == scene_id), None)
    spec = pack.scenes.get(scene_id)
    goal = running.goal if running else opened.goal if opened else spec.prompt if spec else None
    names = {x.speaker: x.name for b in beats for x in b.lines} | {"player": state.player.name, "all": "everyone"}
    lines = [TranscriptLine(turn=state.campaign.turn_number, beat=x.beat, speaker=x.name, speaker_id=x.speaker,
                            target=names.get(x.target, x.target) if x.target else None, action=x.action,
                            tone=x.tone, content=x.content, nonverbal=x.nonverbal) for b in beats for x in b.lines]
    return SceneTurnView(scene=scene_id, goal=goal, beat=beats[-1].beat if beats else closed.beats,
                         max_beats=running.max_beats if running else opened.max_beats if opened else (
                             spec.max_beats if spec else None),
                         lines=lines, ended=closed.reason if closed else None,
                         goal_achieved=closed.goal_achieved if closed else False)


def brief(state: GameState, *, secrets: bool = False) -> BriefView | None:
    """The scene brief of a turn (its secrets only with ``secrets``); None when the turn had none."""
    shown = state.director_instructions
    if shown is None or shown.brief is None:
        return None
    kept = shown.brief if secrets else shown.brief.model_copy(update={"do_not_reveal": []})
    return BriefView(scene_key=shown.brief.scene_key, source=shown.brief_source, origin=shown.brief_origin,
                     tokens=shown.brief.tokens, secrets=len(shown.brief.do_not_reveal), brief=kept)


def episode(state: PersistentState, pack: EraPack, shown: Any = None) -> EpisodeView | None:
    """The episode view: from this turn's ``EpisodeProgress`` when it has one, else the running episode as the
    director state holds it; None between episodes."""
    d = state.director
    if shown is None:
        running = pack.episodes.get(d.episode or "")
        if running is None:
            return None
        budget, left, beat = running.turn_budget, remaining(d, running), d.current_beat or BEATS[0]
        fields = {"id": running.id, "title": running.title, "number": d.number, "mode": running.completion_mode,
                  "turn_count": d.turn_count}
    else:
        running = pack.episodes.get(shown.episode)
        budget, left, beat = shown.budget, shown.remaining, shown.beat
        fields = {"id": shown.episode, "title": shown.title, "number": shown.number, "mode": shown.mode,
                  "turn_count": shown.turn_count, "started": shown.started, "ended": shown.evaluation is not None,
                  "trigger": shown.ending if shown.evaluation is not None else None, "evaluation": shown.evaluation}
    visible = running is not None and running.progress_visible
    fields["premise"] = running.premise if running is not None else ""
    if visible:
        dots, total = progress(pack, d, fields["id"], fields["number"], beat)
        fields |= {"beat": beat, "progress": f"Episode {fields['number']} of {total} {dots}"}
    return EpisodeView(budget=budget, remaining=left, **fields)


def episodes(state: PersistentState, pack: EraPack, evaluations: list[EpisodeEvaluation]) -> EpisodesView:
    left = playable(pack, state.director)
    offers = [EpisodeOffer(id=e.id, title=e.title, hook=e.hook or e.premise) for e in left]
    suggested = next((o for o in offers if o.id == state.director.suggested), None)
    return EpisodesView(campaign_id=state.campaign.id, current=episode(state, pack), evaluations=evaluations,
                        suggested=suggested, available=offers)


def scene(state: PersistentState, pack: EraPack, text: str, *, offline: bool = False) -> SceneView:
    return SceneView(campaign_id=state.campaign.id, turn_number=state.campaign.turn_number, text=text,
                     suggestions=[suggestion_view(s) for s in state.offer],
                     offline=offline, episode=episode(state, pack), state=status(state, pack))


def campaign(state: PersistentState, pack: EraPack) -> CampaignView:
    p = state.player
    return CampaignView(**status(state, pack).model_dump(), campaign_id=state.campaign.id,
                        pack=state.campaign.pack_id, seed=state.campaign.seed,
                        turn_number=state.campaign.turn_number, name=p.name, background=p.background,
                        inventory=dict(p.inventory))


def party(state: PersistentState, pack: EraPack) -> list[CompanionView]:
    """Companions the player has met (those known to this pack), in the order they were met."""
    return [CompanionView(id=c.id, name=pack.companions[c.id].name, role=pack.companions[c.id].role,
                          in_party=c.in_party, affinity=c.affinity, loyalty=c.loyalty, joined_turn=c.joined_turn)
            for c in state.companions.values() if c.id in pack.companions]


def quests(state: PersistentState, pack: EraPack) -> list[QuestView]:
    out = []
    for qid, q in state.quests.items():
        if qid not in pack.quests:
            continue
        quest = pack.quests[qid]
        active = q.status != QuestStatus.COMPLETED and q.stage < len(quest.stages)
        out.append(QuestView(id=qid, title=quest.title, status=q.status, stage=q.stage,
                             objective=quest.stages[q.stage].objective if active else None,
                             hint=q.hint if active else None))
    return out


def rumors(state: PersistentState, pack: EraPack) -> RumorsView:
    def listed(ids: list[str]) -> list[RumorView]:
        return [RumorView(id=r, text=pack.rumors[r].text) for r in ids if r in pack.rumors]

    return RumorsView(known=listed(state.world.known_rumors), public=listed(state.world.public_rumors))


def news(state: PersistentState) -> NewsView:
    return NewsView(news=list(state.world.news))


def inventory(state: PersistentState, pack: EraPack) -> InventoryView:
    items = [ItemView(id=item_id, name=pack.items[item_id].name, qty=qty, tags=list(pack.items[item_id].tags),
                      description=pack.items[item_id].description)
             for item_id, qty in sorted(state.player.inventory.items()) if item_id in pack.items]
    return InventoryView(items=items, credits=state.player.credits, money=money(state.player.credits, pack))


def debug(state: GameState) -> dict[str, Any]:
    """LLM call metrics and per-role context stats of a turn, its brief with its secrets, and the running scene's
    moderator notes and counters, which the player never sees (``skald play --debug``)."""
    shown = brief(state, secrets=True)
    scene = state.scenes.scene
    moderated = {"scene": scene.id, "beat": scene.beat, "max_beats": scene.max_beats, "stalled": scene.stalled,
                 "events_used": scene.events_used, "notes": dict(scene.notes)} if scene is not None else None
    return {"llm_calls": [c.model_dump(mode="json", exclude={"feedback"}) | {"feedback_sent": len(c.feedback)}
                          for c in state.llm_calls],
            "context_stats": state.context_stats, "brief": shown.model_dump(mode="json") if shown else None,
            "scene": moderated}


def _transcript_line(x: TranscriptLine) -> str:
    """One transcript line in the design's format: ``Name [TO: X, TONE: t, *gesture*] "words"``."""
    if x.action == "event":
        return f"[EVENT: {x.content}]"
    if x.action == "system":
        return f"[SYSTEM: {x.speaker} {x.content or 'could not answer'}]"
    tags = [f"TO: {x.target}"] if x.target else []
    if x.action == "interrupt":
        tags.insert(0, "INTERRUPT")
    if x.action == "react" or (not x.content and x.action != "player"):
        tags.insert(0, "SILENT" if not x.nonverbal else "REACT")
    tags += [f"TONE: {x.tone}"] if x.tone else []
    tags += [f"*{x.nonverbal}*"] if x.nonverbal else []
    head = f"{x.speaker} [{', '.join(tags)}]" if tags else x.speaker
    return f'{head} "{x.content}"' if x.content else head


def transcripts_markdown(scenes: list[SceneTranscript]) -> str:
    """The scene transcripts in the design's format (``skald.core.transcripts`` describes it), one after another."""
    out: list[str] = []
    for t in scenes:
        out += [f"SCENE: {t.scene}", f"CHARACTERS: {', '.join(t.characters)}", f"GOAL: {t.goal}",
                f"LOCATION: {t.location}", f"OPENED: turn {t.opened_turn} ({t.reason})", "", "---", "",
                "[SCENE START]"]
        when = f", {clock.time_of_day(t.opened_minutes)}" if t.opened_minutes is not None else ""
        out.append(f"[Setting: {t.location}{when}]")
        beat = None
        for x in t.lines:
            if (x.turn, x.beat) != beat:
                beat = (x.turn, x.beat)
                out += ["", f"[Beat {x.beat}, turn {x.turn}]"]
            out.append(_transcript_line(x))
        stats = [f"- Characters: {len(t.characters)}",
                 f"- Processing time: {t.processing_ms / 1000:.1f}s" + ("" if t.processing_ms else " (offline)")]
        if t.end is None:
            out += ["", "[SCENE RUNNING]"]
        else:
            e = t.end
            turns = e.turn - t.opened_turn + 1
            goal = "Achieved" if e.goal_achieved else f"Not achieved ({e.reason})"
            out += ["", f"[SCENE END - Goal: {goal}]"]
            stats = [f"- Duration: {e.beats} beat{'s' * (e.beats != 1)}, {e.minutes} game minutes over {turns} "
                     f"turn{'s' * (turns != 1)}", *stats, f"- Total tokens: {e.tokens}"]
        out += ["", "---", "", "STATISTICS:", *stats, ""]
    return "\n".join(out).rstrip() + "\n" if out else "No scenes yet.\n"
