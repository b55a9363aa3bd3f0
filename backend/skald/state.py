"""The game state that flows through the turn graph.

``GameState`` = the committed :class:`~skald.persistent.PersistentState` (campaign, player sheet, party, world,
known NPCs, arc, quests; what the turn starts from) + :class:`TurnFields` (scratch for one turn: intent, mechanic
result, present NPCs, staged events, director instructions, prose, suggestions, warnings...) + ``after``, the
persistent state as it will be after this turn's staged events (folded once per batch by ``events.stage``).

The graph's input schema is :class:`TurnInput` (the committed state, the player's input and ``after``), so every
per-turn field starts at its default on every turn: nothing from turn N leaks into turn N+1.

Units: times are minutes of game time; money is credits; HP and stress are points.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from pydantic import Field

from skald.events import Event
from skald.persistent import (  # noqa: F401 - the persistent parts, re-exported: "GameState and its parts"
    BANTER_KEPT,
    NEWS_KEPT,
    PERSISTENT_FIELDS,
    PROCEDURAL_NPCS_KEPT,
    RECENT_TURNS,
    TOLD_TURNS,
    Campaign,
    Combat,
    CompanionState,
    DirectorState,
    EpisodeEvaluation,
    KeyMoment,
    KnownNpc,
    Model,
    PersistentState,
    Player,
    Profile,
    QuestState,
    SceneLine,
    Scenes,
    Suggestion,
    TurnSummary,
    World,
)
from skald.rules.dice import turn_key
from skald.rules.timeline import Move
from skald.scene_brief import SceneBrief
from skald.text import sentences, told_keys
from skald.views import TimelineView, TurnView
from skald.vocab import ActionClass, Intent, Outcome, Risk, Tone


class RouterOutput(Model):
    intent: Intent
    action_class: ActionClass
    tone: Tone
    text: str = Field(description="the input with markup and control characters removed")
    target_npc: str | None = None
    absent_npc: str | None = Field(None, description="a pack NPC or companion the player named who is elsewhere")
    target_location: str | None = None
    target_item: str | None = None
    meta_command: str | None = None
    meta_args: str = ""
    verb: str | None = Field(None, description="the parser's standard action (rules.parser): a reply (yes, why...), a "
                             "question (who_runs, about...), examine, a small deed (sing, pray...), eat, drink, leave, "
                             "flee, back or go; 'offer' for a sum bid for a thing sold here; 'aside' for a line "
                             "that is all markup; None: the action class alone says what to do")
    topic: str | None = Field(None, description="what the verb is about, as the player put it ('barrel by the hearth')")
    read_as: str | None = Field(None, description="when the parser alone could not place the input: the plain line it "
                                "was read as ('eat something'), by the semantic fallback (rules.semantic) or the "
                                "interpreter role (nodes.interpreter); text is then that line")
    read_by: str | None = Field(None, description="'semantic' or 'interpreter' when read_as is set; 'clause' for "
                                "the clause of a line told as a story, or the words quoted in it, that carries the "
                                "turn")
    said: str | None = Field(None, description="the input as the player typed it (markup stripped) when read_as is set")


class MechanicResult(Model):
    action_class: ActionClass
    risk: Risk
    stat: str | None = None
    roll: int | None = Field(None, description="the natural d20")
    stat_modifier: int = 0
    env_modifier: int = 0
    total: int | None = None
    dc: int | None = None
    outcome: Outcome
    margin: int = 0
    stress_delta: int = 0
    minutes: int = Field(description="game time the action costs")
    summary: str = Field(description="one plain sentence stating what happened, for narrator and validator")
    notes: list[str] = Field(default_factory=list, description="how the DC and modifiers were built")
    impossible: bool = Field(False, description="the action could not be carried out: not possible here, refused, "
                             "or nothing the rules resolve; the summary says why and what could be done instead, "
                             "and the prose must not tell it as a success")


class PresentNpc(Model):
    id: str
    name: str
    role: str
    description: str
    disposition: str = "neutral"
    faction: str | None = None
    companion: bool = False
    procedural: bool = False


class SceneInstructions(Model):
    """What the Director hands the narrator this turn: the scene's brief with this turn's parts, and the per-turn
    cues that travel with it (beat, mood, focus, a companion line, the episode)."""

    beat: str
    mood: str
    focus_npc: str | None = None
    banter: str | None = None
    episode: str | None = Field(None, description="where the episode stands and what this turn must do for it")
    brief: SceneBrief | None = None
    brief_source: str = Field("built", description="built (this turn), cached (an earlier turn of this scene), "
                              "prefetched (written in the background since the last turn) or stored (read back "
                              "from the save file)")
    brief_origin: str = Field("offline", description="llm (the director role wrote it) or offline (the rules did)")
    names: dict[str, str] = Field(default_factory=dict, description="NPC id -> how the brief names them")
    scene_changed: bool = Field(False, description="this turn ended in another scene than it started in")


class PromptHead(Model):
    """The start of the narrator's prompt as this turn sent it: its system message and its user message up to the end
    of its recent turns (the scene, its lore, the brief, who is on stage, the turns so far here). The Director's brief
    of the scene, written after the turn, starts with it byte for byte (``llm.prompts.director_prompt``), so Ollama
    serves it from the narrator's cache."""

    system: str
    user: str
    location: str = Field(description="the place it is about")
    last_turn: int = Field(0, description="the newest turn among its recent turns (0: none)")
    brief: str = Field("", description="the brief as it showed it (scene_brief.whisper), empty without one")
    names: dict[str, str] = Field(default_factory=dict, description="NPC id -> how that brief named them")


class LLMCall(Model):
    """Metrics of one LLM call (or of one skipped by an open circuit). Times in milliseconds of wall clock."""

    role: str
    model: str
    ok: bool
    outcome: str = Field("ok", description="ok | fallback | circuit_open")
    latency_ms: float
    ttft_ms: float | None = Field(None, description="time to the first streamed token")
    prompt_tokens: int | None = Field(None, description="as counted by the model (Ollama's prompt_eval_count)")
    completion_tokens: int | None = None
    attempts: int = Field(1, description="structured-output attempts made (feedback sent between them)")
    retries: int = Field(0, description="retries after transient errors")
    feedback: list[dict[str, Any]] = Field(default_factory=list, description="validation feedback sent")
    fallback_reason: str | None = None
    habits: list[str] = Field(default_factory=list, description="model habits stripped from the reply (llm.hygiene)")
    reasoning: str | None = Field(None, description="a reasoning block the model sent, stripped (never shown)")
    done_reason: str | None = Field(None, description="Ollama's done_reason: stop, or length when cut at num_predict")


class EpisodeProgress(Model):
    """What this turn did in the episode layer (``nodes.episode``, ``/end`` and ``/next``): read by the Director, the
    narrator, the evaluator and the turn's view."""

    episode: str
    title: str
    number: int = Field(description="the episode's ordinal in the campaign")
    mode: str
    turn_count: int = Field(description="story turns of the episode, this one included")
    budget: int | None = None
    remaining: int | None = Field(None, description="story turns before the budget ends it; None when unbounded")
    beat: str
    beat_changed: str | None = Field(None, description="why the beat moved this turn, when it did")
    started: bool = False
    ending: str | None = Field(None, description="the trigger, when the episode ends this turn")
    evaluation: EpisodeEvaluation | None = None


class VoiceSheet(Model):
    """Who a scene character is, for their agent (``character`` role): from the pack's NPC or companion entry, their
    voice document (or the voice lane's hits) and the scene's own instructions for them."""

    id: str
    name: str
    role: str
    personality: str
    disposition: str = Field("neutral", description="the pack's disposition toward the player as the rules see it now "
                             "(rules.attitude)")
    speech: str = Field("", description="communication style")
    background: str
    traits: list[str] = Field(default_factory=list)
    instructions: str = Field("", description="what the scene asks of them (scenes.yaml instructions)")
    lines: list[str] = Field(default_factory=list, description="things they say (the scene's lines for them, then "
                             "their pack lines and voice samples)")
    scene_lines: list[str] = Field(default_factory=list, description="the scene's own lines for them (scenes.yaml "
                                   "lines), about its matter")
    attitude: int = Field(0, description="how they feel about the player, -10..10")
    mood: str = "calm"
    pronouns: str = Field("they/them", description="as prose names them (the pack's, or read from the description)")


class SceneUpdate(Model):
    """What one character's agent is told each beat (the design's SceneUpdate)."""

    scene_setting: str = Field("", description="the scene's goal, the place and hour, who is there: the same from beat "
                                "to beat (rules.moderator.setting_text)")
    scene_context: str = Field(description="what the player just said or did and what came of it")
    transcript: list[SceneLine] = Field(default_factory=list, description="the transcript window the character reads "
                                       "(rules.moderator.transcript_window)")
    last_event: str | None = None
    moderator_note: str | None = Field(None, description="for this character alone; never shown to the player")
    beat: int


class CharacterTask(Model):
    """One character's part of a beat: sent to the ``character`` node by LangGraph's ``Send`` fan-out."""

    sheet: VoiceSheet
    update: SceneUpdate
    seed: int = Field(description="campaign seed, for the offline character's choices")
    turn: int
    variant: int = Field(0, description="the turn's dice variant (``rules.dice.turn_key``)")
    player: str = Field(description="the player's name")
    pronouns: str = Field("they/them", description="the player's pronouns")
    others: dict[str, str] = Field(default_factory=dict, description="id -> name of the other characters")
    voice: list[str] = Field(default_factory=list, description="the voice lane's chunks about them, when retrieval "
                             "is on")
    heard: str = Field("", description="the narration of the recent turns, so the offline character does not say "
                       "again what the player just read")


class CharacterReply(Model):
    """What one character's agent answered for one beat: the raw reply and where it came from."""

    id: str
    beat: int
    raw: str = Field("", description="the reply as written (a tag line)")
    source: str = Field("offline", description="llm | offline | failed (the agent could not answer)")
    tokens: int = 0


class TurnFields(Model):
    router_output: RouterOutput | None = None
    intent: Intent | None = None
    quit_requested: bool = False
    mechanic_result: MechanicResult | None = None
    present_npcs: list[PresentNpc] = Field(default_factory=list)
    staged_events: Annotated[list[Event], operator.add] = Field(default_factory=list)
    episode_progress: EpisodeProgress | None = None
    director_instructions: SceneInstructions | None = None
    scene_tasks: list[CharacterTask] = Field(default_factory=list, description="the beat the scene node sends out")
    scene_replies: Annotated[list[CharacterReply], operator.add] = Field(default_factory=list)
    scene_lines: list[SceneLine] = Field(default_factory=list, description="this turn's scene lines, all beats, in "
                                         "order (the narrator weaves them in verbatim)")
    scene_beats: int = Field(0, description="scene beats played this turn")
    suggested_actions: list[Suggestion] = Field(default_factory=list)
    final_text: str = ""
    narrated_actions: list[str] | None = Field(None, description="the four suggestions' labels as the narrator "
                                               "reworded them after its prose (llm.tail), for the Refiner to check")
    narrator_head: PromptHead | None = Field(None, description="the start of the narrator's prompt as sent this turn, "
                                             "for the Director's brief of the scene (llm.briefs.prefetch)")
    warnings: Annotated[list[str], operator.add] = Field(default_factory=list)
    llm_calls: Annotated[list[LLMCall], operator.add] = Field(default_factory=list)
    lore_citations: Annotated[list[str], operator.add] = Field(
        default_factory=list, description="ids of the lore chunks the prompts used this turn")
    context_stats: Annotated[list[dict[str, Any]], operator.add] = Field(
        default_factory=list, description="llm.budget.ContextStats per role called this turn (for --debug)")
    timeline_move: Move | None = Field(None, description="what a timeline command changes (Commit carries it out)")
    timeline_view: TimelineView | None = Field(None, description="what a timeline command did, for its view")
    view: TurnView | None = Field(None, description="what the player sees of this turn, built by Commit")


class TurnInput(PersistentState):
    """What one turn starts from: the graph's input schema."""

    player_input: str = ""
    branch: str = Field("main", description="the branch of the campaign's turn tree this turn is played on")
    variant: int = Field(0, description="the turn's dice variant: 0 for the first turn played from its parent, then "
                         "1, 2... for retries (``rules.dice.turn_key``)")
    after: PersistentState | None = Field(
        None, description="the persistent state as it will be after this turn: starts as the committed state with "
                          "campaign.turn_number + 1, and every staged batch of events is folded into it once")


class GameState(TurnInput, TurnFields):
    """Everything one turn needs. See the module docstring for which fields persist."""

    @classmethod
    def starting(cls, committed: PersistentState, player_input: str = "") -> GameState:
        """A fresh turn on ``committed``: every per-turn field at its default, ``after`` = the committed state with
        the number of the turn to play. (The graph takes it as input; rules tests start turns with it too.)"""
        base = committed.persistent()
        after = base.model_copy(update={"campaign": base.campaign.model_copy(
            update={"turn_number": base.campaign.turn_number + 1})})
        return cls(**dict(base), player_input=player_input, after=after)  # validated: fast for model instances

    @property
    def turn(self) -> int:
        """The number of the turn being played (the committed turn number + 1)."""
        return self.campaign.turn_number + 1

    @property
    def turn_key(self) -> int | tuple[int, int]:
        """What keys this turn's randomness with the campaign seed (``rules.dice.turn_key``)."""
        return turn_key(self.turn, self.variant)

    def closing(self) -> PersistentState:
        """The persistent state this turn commits: ``after`` with the story-turn count advanced, this turn added to
        ``recent`` and its suggestions as the ``offer``; exactly what reading the campaign back from the store gives.
        (Most META commands commit nothing; the episode commands ``/end`` and ``/next`` commit their events without
        counting a story turn.)"""
        after = self.after
        summary = TurnSummary(
            turn=after.campaign.turn_number, input=self.player_input,
            action_class=self.router_output.action_class.value if self.router_output else "",
            outcome=self.mechanic_result.outcome.value if self.mechanic_result else "",
            location=after.location, sentences=sentences(self.final_text))
        if self.intent == Intent.META:  # /end, /next: committed for their events, not a story turn
            return after.model_copy(update={"offer": list(self.suggested_actions)})
        campaign = after.campaign.model_copy(update={"story_turns": after.campaign.story_turns + 1})
        told = [*after.told, [k for s in summary.sentences for k in told_keys(s)]][-TOLD_TURNS:]
        return after.model_copy(update={"campaign": campaign, "recent": [*after.recent, summary][-RECENT_TURNS:],
                                        "told": told, "offer": list(self.suggested_actions)})

    def played(self) -> dict[str, Any]:
        """What the player saw this turn: intent, action class, prose and the four suggestions (JSON-ready)."""
        return {
            "intent": self.intent.value if self.intent else None,
            "action_class": self.router_output.action_class.value if self.router_output else None,
            "text": self.final_text,
            "suggestions": [{"label": s.label, "tone": s.tone.value, "risk": s.risk.value}
                            for s in self.suggested_actions],
        }


# Which fields of GameState live for one turn and which persist (kept outside the model: LangGraph would
# treat class attributes as state channels).
PER_TURN_FIELDS: frozenset[str] = frozenset(TurnFields.model_fields) | {"player_input", "branch", "variant", "after"}
