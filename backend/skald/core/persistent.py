"""The persistent state of a campaign: what Commit stores and what the next turn starts from.

:class:`PersistentState` = campaign counters, the player's sheet, location, world, reputation, companions, known
NPCs, quests, arc stage, combat, the last few turns and the keys of what the last 30 turns told. It changes only
through the typed events in ``skald.core.events`` (folded once per turn into the projected state
``GameState.after``) and the turn counters and turn memory Commit advances.

Every model here is treated as immutable once built: an event's ``apply`` returns a new state that shares what did
not change (``model_copy(update=...)``), so folding never deep-copies and an earlier state is never altered.

Units: times are minutes of game time; money is in the pack's currency (``credits`` in the engine); HP and stress
are points. Every collection is bounded (recent turns, news, banter, procedural NPCs) so a 10,000-turn campaign
costs what turn 10 does.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from skald.core.vocab import STATS, ArcStage, QuestStatus, Risk, Tone

RECENT_TURNS = 4  # turn summaries kept in state for the narrator and director
TOLD_TURNS = 30  # story turns whose sentences the offline narrator will not tell again (``PersistentState.told``)
NEWS_KEPT = 8
BANTER_KEPT = 3
PROCEDURAL_NPCS_KEPT = 24


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class Campaign(Model):
    id: str
    pack_id: str
    seed: int
    turn_number: int = Field(0, description="turns committed; in GameState.after, the number of the turn played")
    story_turns: int = Field(0, description="non-META turns played")


class Profile(Model):
    """Who the player's character is beyond the numbers, settled at creation (``rules.setup``): the narrator and the
    offline prose use the pronouns, and the narrator respects the content limits."""

    pronouns: str = Field("they/them", description="as written: she/her, he/him, they/them, or one's own (xe/xem/xyr)")
    concept: str = Field("", description="the character in a sentence")
    hook: str = Field("", description="what personal thread pulls them into the story")
    tone: str = Field("", description="the tone the player asked for")
    limits: list[str] = Field(default_factory=list, description="content the narration must leave out ('gore')")


class Player(Model):
    name: str
    background: str
    stats: dict[str, int] = Field(description=f"ability scores {STATS}, d20 SRD scale")
    hp: int
    max_hp: int
    credits: int
    stress: int = 0
    inventory: dict[str, int] = Field(default_factory=dict, description="item id -> quantity (> 0)")
    defeated: bool = False
    profile: Profile = Field(default_factory=Profile)


class CompanionState(Model):
    id: str
    affinity: int = 0
    loyalty: int = 0
    in_party: bool = False
    joined_turn: int | None = None


class KnownNpc(Model):
    id: str
    name: str
    first_met_turn: int
    procedural: bool = False
    location: str | None = None
    role: str = ""
    description: str = ""


class Combat(Model):
    enemy_id: str
    enemy_name: str
    enemy_hp: int
    enemy_damage: int
    reward_credits: int = 0
    round: int = 1


class QuestState(Model):
    id: str
    status: QuestStatus = QuestStatus.ACTIVE
    stage: int = 0
    hint: str | None = Field(None, description="what would complete the current stage, after an attempt that nearly "
                             "counted; cleared when the stage changes")


class TurnSummary(Model):
    turn: int
    input: str
    action_class: str
    outcome: str
    location: str
    sentences: list[str] = Field(default_factory=list, description="narration sentences, for variety checks")


class Suggestion(Model):
    """A suggested next action: a label the player can type (or pick by number), its tone and risk tier."""

    label: str
    tone: Tone
    risk: Risk
    action_class: str = ""


class World(Model):
    time_minutes: int
    tick: int = Field(0, description="index of the last world tick applied")
    faction_power: dict[str, int] = Field(default_factory=dict)
    public_rumors: list[str] = Field(default_factory=list, description="rumor ids the town talks about")
    known_rumors: list[str] = Field(default_factory=list, description="rumor ids the player has heard")
    news: list[str] = Field(default_factory=list)
    npc_locations: dict[str, str] = Field(default_factory=dict, description="NPC id -> location, where moved")
    defeated_npcs: list[str] = Field(default_factory=list)
    discoveries: list[str] = Field(default_factory=list, description="discovery ids already found")
    last_intro_turn: int = -100
    tension: int = Field(0, description="inter-party tension, 0..10")
    banter: list[str] = Field(default_factory=list, description="queued companion lines, 'companion_id|line'")
    fired_events: list[str] = Field(default_factory=list, description="ids of once-only world events that fired")
    last_banter_turn: int = 0


TENSION_KEPT = 64  # tension readings kept per episode (one per story turn; a longer episode keeps the last 64)
FLAGS_KEPT = 256


class DirectorState(Model):
    """The Director's episode layer (``rules.episodes``): the running episode, its beats and counters, the story flags
    and the episodes played. Changed only by the EPISODE_* / BEAT_REACHED / FLAG_SET events."""

    episode: str | None = Field(None, description="id of the running episode; None between episodes")
    number: int = Field(0, description="episodes started in this campaign (the running one's ordinal)")
    started_turn: int = Field(0, description="campaign turn number the running episode started on")
    current_beat: str | None = Field(None, description="establishment | complication | escalation | pivot | "
                                     "resolution")
    beats_completed: list[str] = Field(default_factory=list, description="beats passed, in order")
    turn_count: int = Field(0, description="story turns played in the running episode (META turns do not count)")
    player_signals: dict[str, int] = Field(default_factory=dict, description="signal (bold, cautious, violent, "
                                           "diplomatic, sly, curious) -> story turns it described")
    tension_curve: list[float] = Field(default_factory=list, description="0..1 per story turn of the episode")
    quest_steps: int = Field(0, description="quest stages completed during the episode")
    defeats: int = Field(0, description="times the player was knocked out during the episode")
    flags: list[str] = Field(default_factory=list, description="story flags set in this campaign (set_flag)")
    played: list[str] = Field(default_factory=list, description="ids of episodes completed, in order")
    suggested: str | None = Field(None, description="the episode suggested when the last one ended (what /next "
                                  "starts)")

    def between(self, **changes) -> DirectorState:
        """A fresh director state that keeps what lasts the whole campaign (episode count, flags, episodes played):
        the per-episode counters start over. ``changes`` sets the rest."""
        return DirectorState(**{"number": self.number, "flags": self.flags, "played": self.played, **changes})


class KeyMoment(Model):
    turn: int = Field(description="the campaign turn number")
    line: str = Field(description="one line: what happened")


class EpisodeEvaluation(Model):
    """What an episode came to, written the turn it ended (``rules.episodes.evaluate``; the ``evaluator`` LLM role may
    write the summary) and kept in the EPISODE_COMPLETED event and the ``episode_evaluations`` table."""

    share_id: str = Field(description="short id to share or look up this result")
    episode: str
    title: str
    number: int = Field(description="the episode's ordinal in the campaign")
    trigger: str = Field(description="turn_limit | beat_complete | objective_met | player_end | abandoned")
    story_turns: int = Field(description="story turns the episode lasted")
    first_turn: int = Field(description="campaign turn number the episode started on")
    last_turn: int = Field(description="campaign turn number it ended on")
    summary: str
    key_moments: list[KeyMoment] = Field(default_factory=list)
    playstyle: str = Field(description="the archetype the player's choices add up to, e.g. 'the Silver Tongue'")
    playstyle_scores: dict[str, float] = Field(default_factory=dict, description="signal -> share of story turns, "
                                               "0..1")
    outcome: str = Field(description="won | lost | mixed")
    tension_curve: list[float] = Field(default_factory=list, description="0..1 per story turn")
    next_episode: str | None = Field(None, description="the episode suggested next (what /next starts)")
    next_title: str | None = None
    next_hook: str = Field(description="one line: what to do next (the next episode's hook, or an NPC's lead)")
    written_by: str = Field("offline", description="offline | evaluator (the LLM wrote the summary)")


SCENE_RECENT = 16  # transcript lines a scene keeps for its characters' agents (they read a window of them:
# ``rules.moderator.transcript_window``)
SCENES_DONE_KEPT = 256
MOODS = ("calm", "pleased", "amused", "curious", "wary", "annoyed", "angry", "afraid", "sad", "insulted")


class SceneLine(Model):
    """One entry of a scene's transcript: a spoken line, a reaction, the player's own words or a world event."""

    beat: int = Field(description="the scene's beat the line belongs to (1-based)")
    speaker: str = Field(description="an NPC or companion id, 'player', or 'event'")
    name: str = Field(description="how the transcript names the speaker")
    target: str | None = Field(None, description="who the line is said to: an id, 'player', 'all' or None")
    action: str = Field("speak", description="speak | interrupt | react | player | event | system (a character "
                        "who could not answer)")
    tone: str | None = None
    content: str = Field("", description="the words said, without quotes (a world event's text for 'event')")
    nonverbal: str | None = Field(None, description="what the speaker does, without asterisks")
    after: str | None = Field(None, description="interrupt: the phrase of the line it cuts into")


class ActiveScene(Model):
    """The multi-character scene running at the player's location (``rules.moderator``); None when there is none."""

    id: str = Field(description="the scenes.yaml id, or 'talk:<location>:<turn>' for a scene the talk opened")
    goal: str = Field(description="what the scene is for (scenes.yaml prompt)")
    location: str
    characters: list[str] = Field(description="NPC and companion ids taking part, in speaking priority")
    started_turn: int
    started_minutes: int = Field(description="world time the scene opened at, minutes")
    beat: int = Field(0, description="beats played")
    max_beats: int
    stalled: int = Field(0, description="beats in a row that moved nothing")
    events_used: int = Field(0, description="scenes.yaml events injected so far")
    tokens: int = Field(0, description="completion tokens the character and moderator roles spent on it")
    notes: dict[str, str] = Field(default_factory=dict, description="moderator notes for the next beat, by id")
    last_event: str | None = Field(None, description="the world event injected last, for the next beat")
    recent: list[SceneLine] = Field(default_factory=list, description=f"the last {SCENE_RECENT} transcript lines")


class Feeling(Model):
    """How one NPC feels about the player: ``attitude`` -10..10 (moves the rules' disposition) and a mood word."""

    attitude: int = 0
    mood: str = "calm"


class Scenes(Model):
    """The scene layer: the running scene, every NPC's feeling toward the player, and pack scenes already played."""

    scene: ActiveScene | None = None
    feelings: dict[str, Feeling] = Field(default_factory=dict, description="NPC or companion id -> feeling")
    done: list[str] = Field(default_factory=list, description="ids of scenes.yaml scenes played to their end")


class PersistentState(Model):
    campaign: Campaign
    player: Player
    location: str
    world: World
    reputation: dict[str, int] = Field(default_factory=dict, description="faction id -> reputation, -10..10")
    companions: dict[str, CompanionState] = Field(default_factory=dict)
    known_npcs: dict[str, KnownNpc] = Field(default_factory=dict)
    quests: dict[str, QuestState] = Field(default_factory=dict)
    arc_stage: ArcStage = ArcStage.SETUP
    arc_stage_turn: int = 0
    combat: Combat | None = None
    director: DirectorState = Field(default_factory=DirectorState)
    scenes: Scenes = Field(default_factory=Scenes)
    recent: list[TurnSummary] = Field(default_factory=list)
    told: list[list[int]] = Field(default_factory=list, description=f"the last {TOLD_TURNS} story turns' sentences, "
                                  "each as its keys (``text.told_keys``), oldest turn first: what the offline narrator "
                                  "does not tell again")
    offer: list[Suggestion] = Field(default_factory=list, description="the four suggestions standing for the next "
                                    "turn: what 1-4 play, shown again by every /command and on resume")

    @property
    def party(self) -> list[str]:
        return [cid for cid, c in self.companions.items() if c.in_party]

    def persistent(self) -> PersistentState:
        """Just the persistent fields (shared, not copied): for a ``GameState``, the committed state."""
        return PersistentState.model_construct(**{name: getattr(self, name) for name in PERSISTENT_FIELDS})


PERSISTENT_FIELDS: frozenset[str] = frozenset(PersistentState.model_fields)
