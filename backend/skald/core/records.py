"""The records one turn makes as it runs through the graph, before Commit: what the Router read
(:class:`RouterOutput`), what the rules resolved (:class:`MechanicResult`), who is on stage (:class:`PresentNpc`), the
Director's word (:class:`SceneInstructions`), the LLM calls made (:class:`LLMCall`), the scene node's tasks and
replies, and what a timeline command changes (:class:`Move`). ``skald.core.state`` holds them in ``GameState``.

Units: times are minutes of game time; money is credits; HP and stress are points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from skald.core.brief import SceneBrief
from skald.core.events import BaseEvent
from skald.core.persistent import EpisodeEvaluation, Model, SceneLine
from skald.core.vocab import ActionClass, Intent, Outcome, Risk, Tone


def turn_key(turn_number: int, variant: int = 0) -> int | tuple[int, int]:
    """What keys a turn's randomness besides the campaign seed: the turn number, and for a variant above 0 (a retry,
    or a turn played again from the same point after an undo) the pair (turn, variant). So a campaign played straight
    through rolls as it always did, and each retry of a turn rolls differently but reproducibly (seed x turn x
    variant)."""
    return turn_number if variant == 0 else (turn_number, variant)


class Move(BaseModel):
    """What a timeline command changes, carried out by Commit in one transaction.

    ``kind``: undo, redo or pick move ``branch``'s head to ``to_number`` on its line (pick first puts turn ``pick``
    there and its newest continuation above); switch makes ``branch`` current; fork starts ``branch`` from
    ``source`` at ``to_number`` and makes it current; delete removes ``branch``. ``expect`` is the head (turn id) of
    the branch the command was planned on: if it moved meanwhile, the command is refused as a conflicting turn.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["undo", "redo", "pick", "switch", "fork", "delete"]
    branch: str
    expect: int
    to_number: int = 0
    pick: int | None = None
    source: str | None = None


@dataclass(frozen=True)
class Moment:
    """A turn of an episode as the log keeps it: its number, its one-line memory and its events (what the episode's
    evaluation reads: ``rules.episodes.evaluate``; ``store.episodes.moments`` reads them back)."""

    turn: int
    memory: str
    events: tuple[BaseEvent, ...]


class TimelineCommand(BaseModel):
    """A timeline command, typed (``rules.timeline``): ``kind`` is its name in ``rules.commands``; ``turns`` for undo
    and redo (1 or more), ``variant`` for pick, ``name`` for fork, switch and delete-branch, and ``at`` for a fork from
    an earlier turn of the line (None: at the head). The engine's typed methods (``Engine.undo``...) send it as the
    turn's ``command``; a command the player types is parsed into one by ``rules.timeline.parse``."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["undo", "redo", "retry", "variants", "pick", "fork", "branches", "switch", "delete-branch"]
    turns: int = 1
    variant: int | None = None
    name: str | None = None
    at: int | None = None


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
    timeline: TimelineCommand | None = Field(None, description="a timeline command, typed: sent so by the engine, or "
                                             "parsed from what the player typed (rules.timeline.parse)")
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
    scene_brief: SceneBrief | None = Field(None, description="the scene's brief before this turn's parts: what the "
                                           "save file keeps, once each time it changes (``store.briefs``)")
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
