"""What a player sees, as typed views: the shapes every frontend renders and nothing else (the builders that compute
them from the state and the pack are ``skald.views``).

The CLI prints them (``--json`` serialises :class:`TurnView`), the meta commands (``/status``, ``/party``...) turn them
into text, the HTTP API returns them as its response bodies, and recordings store :class:`TurnView` as each turn's
outcome. Units: minutes of game time, credits, HP and stress points.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from skald.core.brief import SceneBrief
from skald.core.persistent import EpisodeEvaluation, KeyMoment
from skald.core.transcripts import TranscriptLine
from skald.core.vocab import ArcStage, Intent, Outcome, QuestStatus, Risk, Tone

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
