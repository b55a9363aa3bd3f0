"""What a player sees, as typed views: pure functions of (state, pack), with no I/O.

Every frontend renders these and nothing else: the CLI prints them (``--json`` serialises :class:`TurnView`), the
meta commands (``/status``, ``/party``...) turn them into text, the HTTP API returns them as its response bodies, and
recordings store :class:`TurnView` as each turn's outcome. Units: minutes of game time, credits, HP and stress
points.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from skald.packs.models import BEATS
from skald.persistent import EpisodeEvaluation, KeyMoment, Suggestion
from skald.rules import clock
from skald.rules.money import money
from skald.scene_brief import SceneBrief
from skald.transcripts import TranscriptLine
from skald.vocab import ArcStage, Intent, Outcome, QuestStatus, Risk, Tone

if TYPE_CHECKING:  # the state carries a TurnView, so this module imports nothing of the state at run time
    from skald.packs.models import EraPack
    from skald.persistent import PersistentState
    from skald.state import GameState, MechanicResult


# In the warning of a node that replaced the narration the model streamed (``TurnView.prose_replaced`` is read from it).
PROSE_REPLACED = "replaced the streamed prose"


class View(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # built on first use: a CLI turn needs few


class SuggestionView(View):
    """A suggested next action and what it would cost: game time and, when it is risky, the ability its check tests."""

    label: str
    tone: Tone
    risk: Risk
    minutes: int | None = Field(None, description="game minutes it would take (a route's for travel); null when "
                                "unknown")
    stat: str | None = Field(None, description="the ability a check would test (might, agility, wits, presence); null "
                             "when it is safe")


_ROUTE_MINUTES = re.compile(r"\((\d+) min\)")  # "Make for Kettle Row (5 min)"


def suggestion_view(s: Suggestion | dict) -> SuggestionView:
    """A suggestion as the player sees it, with its cost (``minutes``, ``stat``) from the rules' own tables."""
    from skald.rules.resolution import STAT_FOR  # rules.resolution reads the state, which carries a TurnView

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


class CheckView(View):
    """The turn's check: the natural d20, the modifiers, the DC and what it cost (``roll`` and ``dc`` are null when
    the action needed no roll)."""

    outcome: Outcome
    risk: Risk
    stat: str | None
    roll: int | None = Field(description="the natural d20")
    stat_modifier: int
    env_modifier: int
    total: int | None
    dc: int | None
    minutes: int = Field(description="game minutes the action took")
    stress_delta: int
    summary: str = Field(description="one plain sentence stating what happened")
    impossible: bool = Field(False, description="the action could not be carried out (refused, not possible here, "
                             "or nothing the rules resolve); the summary says why")


class CombatView(View):
    enemy_id: str
    enemy_name: str
    enemy_hp: int
    round: int


class StatusView(View):
    """Where the player is and how they are."""

    location: str
    location_name: str
    world_time_minutes: int
    time_of_day: str
    clock: str = Field(description="the day and time as the pack's calendar names them, e.g. 'Ashday (day 2), 14:05'")
    hp: int
    max_hp: int
    credits: int = Field(description="money, in whole units of the pack's currency")
    money: str = Field(description="the purse as players read it, in the pack's currency words: '25 greys'")
    stress: int
    defeated: bool
    party: list[str] = Field(description="ids of the companions in the party")
    reputation: dict[str, int] = Field(description="faction id -> reputation, -10..10")
    arc_stage: ArcStage
    combat: CombatView | None = Field(description="the fight the player is in, if any")


class EpisodeView(View):
    """The episode a turn played in (or ended): what a player may see of the Director's episode layer. The beat and
    the progress line are shown only for an episode whose pack entry has ``progress_visible``."""

    id: str
    title: str
    premise: str = ""
    number: int = Field(description="the episode's ordinal in the campaign")
    mode: str = Field(description="open | beat_gated | turn_limited | objective")
    turn_count: int = Field(description="story turns played in the episode")
    budget: int | None = Field(description="the episode's turn budget (story turns), if any")
    remaining: int | None = Field(description="story turns before the budget ends it; null when unbounded")
    beat: str | None = Field(None, description="the current beat; null unless the episode shows its progress")
    progress: str | None = Field(None, description="'Episode 2 of 4' with beat dots; null unless shown")
    started: bool = Field(False, description="the episode began this turn")
    ended: bool = Field(False, description="the episode ended this turn; `evaluation` says how it went")
    trigger: str | None = Field(None, description="what ended it: turn_limit | beat_complete | objective_met | "
                                "player_end | abandoned (a pack edit removed it)")
    evaluation: EpisodeEvaluation | None = None


class EpisodeOffer(View):
    id: str
    title: str
    hook: str = Field(description="one line offering the episode")


class EpisodesView(View):
    """A campaign's episodes: the running one, every evaluation (first first), the suggested next episode and the
    others left to play (``/next ID`` or a turn whose input is ``/next ID`` starts one)."""

    campaign_id: str
    current: EpisodeView | None = Field(description="the running episode; null between episodes")
    evaluations: list[EpisodeEvaluation]
    suggested: EpisodeOffer | None = Field(description="what /next starts (set when an episode ends)")
    available: list[EpisodeOffer] = Field(description="episodes not yet played, in the pack's order")


class SharedEpisode(View):
    """An episode's result as it is shared by its ``share_id``: what the player did and how it went, nothing of the
    campaign it came from (no campaign id, no token, no pack secrets: the summary, key moments and hook are the same
    words the player was shown)."""

    share_id: str
    pack: str = Field(description="the era pack's name")
    episode: str
    title: str
    number: int
    outcome: str = Field(description="won | lost | mixed")
    trigger: str
    story_turns: int
    summary: str
    key_moments: list[KeyMoment]
    playstyle: str
    playstyle_scores: dict[str, float]
    tension_curve: list[float]


def shared(evaluation: EpisodeEvaluation, pack_name: str) -> SharedEpisode:
    e = evaluation
    return SharedEpisode(share_id=e.share_id, pack=pack_name, episode=e.episode, title=e.title, number=e.number,
                         outcome=e.outcome, trigger=e.trigger, story_turns=e.story_turns, summary=e.summary,
                         key_moments=e.key_moments, playstyle=e.playstyle, playstyle_scores=e.playstyle_scores,
                         tension_curve=e.tension_curve)


class BriefView(View):
    """The Director's scene brief a turn's narration was written with (``--debug`` shows it)."""

    scene_key: str
    source: str = Field(description="built (this turn), cached, prefetched (written in the background since the "
                        "last turn) or stored (read back from the save file)")
    origin: str = Field(description="llm (the director role wrote it) or offline (the rules did)")
    tokens: int = Field(description="the brief's size as the narrator reads it (estimated tokens)")
    secrets: int = Field(0, description="how many secrets the brief told the narrator to keep (their text is left "
                         "out here: it would spoil them; `skald play --debug` shows it)")
    brief: SceneBrief = Field(description="the brief, its `do_not_reveal` left empty")


class SceneTurnView(View):
    """This turn's part of a multi-character scene: its lines in order (by speaker, as the transcript has them) and
    whether it ended."""

    scene: str = Field(description="the scenes.yaml id, or talk:<location>:<turn>")
    goal: str | None = Field(None, description="what the scene is about (null once a scene the talk opened ends)")
    beat: int = Field(description="the scene's last beat played this turn")
    max_beats: int | None = None
    lines: list[TranscriptLine] = Field(description="this turn's lines, the player's first")
    ended: str | None = Field(None, description="goal | max_beats | left | fight | defeated, when it ended this turn")
    goal_achieved: bool = False


class TurnView(View):
    """One played turn: what ``skald play --json`` prints, ``POST /campaigns/{id}/turns`` returns and a recording
    keeps as the turn's outcome."""

    campaign_id: str
    turn_number: int
    input: str
    intent: Intent | None
    action_class: str | None
    text: str = Field(description="the narration")
    suggestions: list[SuggestionView] = Field(description="four suggested next actions")
    mechanic: CheckView | None = Field(description="the check the action took; null for out-of-game commands")
    warnings: list[str] = Field(description="what went wrong with this turn's LLM calls or prose, for the curious")
    offline: bool = Field(False, description="the prose and suggestions came from the offline narrator")
    prose_replaced: bool = Field(False, description="the narration the model streamed was replaced by the offline "
                                 "narrator's (it told the outcome wrongly, or nothing of it was usable): a client that "
                                 "showed the streamed tokens must show `text` instead, and may say so")
    quit: bool = Field(False, description="the player asked to leave the game (/quit); the campaign is saved")
    episode: EpisodeView | None = Field(None, description="the episode this turn played in, started or ended; null "
                                        "between episodes")
    brief: BriefView | None = Field(None, description="the scene brief the narration was written with; null for "
                                    "out-of-game commands")
    scene: SceneTurnView | None = Field(None, description="the multi-character scene this turn played in (its "
                                        "lines by speaker); null when none ran")
    timeline: TimelineView | None = Field(None, description="for a timeline command, what it did")
    branch: str = Field("main", description="the branch of the campaign's turn tree the turn was played on (for a "
                        "timeline command, the branch the player is on after it)")
    variant: int = Field(0, description="0 for the first turn played at this point; 1, 2... for retries and for "
                         "turns played here after an undo")
    state: StatusView


class BranchView(View):
    """One branch of a campaign's turn tree."""

    name: str
    head_turn: int = Field(description="the turn the branch stands at (0: the campaign's start)")
    tip_turn: int = Field(description="how far /redo can go on it (the head when there is nothing to redo)")
    current: bool = Field(description="the branch a turn without a branch plays on, and what the campaign shows")
    location: str = Field(description="the location id at its head")
    last_text: str = Field(description="the narration of its head turn ('' at the start)")
    forked_from: str | None = None
    forked_at: int | None = Field(None, description="the turn of `forked_from` it started at")


class MapPlace(View):
    """One location of the pack's map, as a player may see it."""

    id: str
    name: str
    type: str
    current: bool = Field(description="the player is here")
    visited: bool = Field(description="the player has been here on this branch (or started here)")


class MapLink(View):
    """A way between two locations (each pair once, whichever way the pack lists it)."""

    a: str
    b: str
    minutes: int = Field(description="game minutes the journey takes")
    risk: Risk


class MapView(View):
    """The pack's locations and the links between them, with where the player is and has been: what the play page
    draws (no secrets: hazards, discoveries and who is where are left out)."""

    locations: list[MapPlace]
    links: list[MapLink]


class TimelineView(View):
    """What a timeline command (/undo, /fork...) did: ``done`` false with a ``reason`` when it could do nothing
    (``no_branch``, ``name_taken``, ``bad_name``, ``bad_args``, ``bad_turn``, ``nothing_to_undo``,
    ``nothing_to_redo``, ``nothing_to_list``, ``no_variant``, ``current_branch``)."""

    command: str
    done: bool
    reason: str | None = None


class SceneView(View):
    """Where a campaign stands: shown when it starts and whenever it is resumed, with the four suggestions that stand
    for the next turn (what 1-4 play)."""

    campaign_id: str
    turn_number: int = Field(description="turns played so far")
    text: str = Field(description="the scene: where you are, when, who is here (and, on resume, where you left off)")
    suggestions: list[SuggestionView]
    offline: bool = False
    episode: EpisodeView | None = Field(None, description="the running episode; null between episodes")
    state: StatusView


class CampaignView(StatusView):
    """A campaign's committed state."""

    campaign_id: str
    pack: str
    seed: int
    turn_number: int
    name: str
    background: str
    inventory: dict[str, int]


class CompanionView(View):
    id: str
    name: str
    role: str
    in_party: bool
    affinity: int
    loyalty: int
    joined_turn: int | None


class QuestView(View):
    id: str
    title: str
    status: QuestStatus
    stage: int
    objective: str | None = Field(description="the current objective; null once the quest is completed")
    hint: str | None = Field(None, description="what would complete the objective, after an attempt that nearly "
                             "counted: 'Juno will need persuading.'")


class RumorView(View):
    id: str
    text: str


class RumorsView(View):
    known: list[RumorView] = Field(description="rumors the player has heard")
    public: list[RumorView] = Field(description="what the town talks about")


class NewsView(View):
    news: list[str] = Field(description="what happened in the world lately, oldest first")


class ItemView(View):
    id: str
    name: str
    qty: int
    tags: list[str]
    description: str


class InventoryView(View):
    items: list[ItemView]
    credits: int = Field(description="money, in whole units of the pack's currency")
    money: str = Field(description="the purse in the pack's currency words: '25 greys'")


class TurnRecordView(View):
    """One turn of the transcript."""

    turn_number: int
    input: str
    intent: str | None
    action_class: str | None
    outcome: str | None
    text: str
    suggestions: list[SuggestionView]
    warnings: list[str]
    location: str
    world_time_minutes: int
    created_at: str
    variant: int = Field(0, description="0 for the first turn played at this point; 1, 2... for retries and for "
                         "turns played here after an undo")


class CampaignSummary(View):
    campaign_id: str
    pack: str
    turn_number: int
    updated_at: str


class TurnPage(View):
    """A page of the transcript, oldest turn first. Page forward with ``after_turn`` = ``next_after_turn``."""

    campaign_id: str
    branch: str = Field("main", description="the branch whose line this is")
    total: int = Field(description="turns on the branch's line up to its head")
    turns: list[TurnRecordView]
    next_after_turn: int | None = Field(description="pass as after_turn for the next page; null on the last page")


# ------------------------------------------------------------------------------------------------ builders


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
    from skald import events as ev  # the events import the state's models: not at import time

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
        from skald.rules.episodes import remaining

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
        from skald.rules.episodes import progress

        dots, total = progress(pack, d, fields["id"], fields["number"], beat)
        fields |= {"beat": beat, "progress": f"Episode {fields['number']} of {total} {dots}"}
    return EpisodeView(budget=budget, remaining=left, **fields)


def episodes(state: PersistentState, pack: EraPack, evaluations: list[EpisodeEvaluation]) -> EpisodesView:
    from skald.rules.episodes import playable

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
