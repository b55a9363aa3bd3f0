"""The game state that flows through the turn graph.

``GameState`` = :class:`PersistentState` (what Commit stores and reloads: campaign, player sheet, party,
world, known NPCs, arc, quests) + :class:`TurnFields` (scratch for one turn: intent, mechanic result,
present NPCs, director instructions, prose, suggestions, warnings...). ``GameState.begin_turn`` clears every
per-turn field, so nothing from turn N leaks into turn N+1.

Units: times are minutes of game time; money is credits; HP and stress are points. Every collection in the
persistent state is bounded (recent turns, news, banter) so a 10,000-turn campaign costs what turn 10 does.
"""

from __future__ import annotations

import operator
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from skald.packs.models import STATS, Risk, Tone

RECENT_TURNS = 4  # turn summaries kept in state for the narrator and director
NEWS_KEPT = 8
BANTER_KEPT = 3
PROCEDURAL_NPCS_KEPT = 24


class Intent(StrEnum):
    META = "META"
    TALK = "TALK"
    ACTION = "ACTION"


class ActionClass(StrEnum):
    META = "META"
    DIALOGUE_ONLY = "DIALOGUE_ONLY"
    PERSUADE = "PERSUADE"
    DECEIVE = "DECEIVE"
    INTIMIDATE = "INTIMIDATE"
    RECRUIT = "RECRUIT"
    ATTACK = "ATTACK"
    SNEAK = "SNEAK"
    INVESTIGATE = "INVESTIGATE"
    TRAVEL = "TRAVEL"
    INTERACT = "INTERACT"
    BUY = "BUY"
    USE_ITEM = "USE_ITEM"
    REST = "REST"
    RECOVER = "RECOVER"


class Outcome(StrEnum):
    CRITICAL_SUCCESS = "CRITICAL_SUCCESS"
    SUCCESS = "SUCCESS"
    FAILURE = "FAILURE"
    CRITICAL_FAILURE = "CRITICAL_FAILURE"
    NO_ROLL = "NO_ROLL"

    @property
    def succeeded(self) -> bool:
        return self in (Outcome.CRITICAL_SUCCESS, Outcome.SUCCESS, Outcome.NO_ROLL)


class ArcStage(StrEnum):
    SETUP = "SETUP"
    RISING = "RISING"
    CLIMAX = "CLIMAX"
    RESOLUTION = "RESOLUTION"


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


# ---------------------------------------------------------------- persistent parts


class Campaign(Model):
    id: str
    pack_id: str
    seed: int
    turn_number: int = 0
    story_turns: int = Field(0, description="non-META turns played")


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
    status: str = "active"  # active | completed
    stage: int = 0


class TurnSummary(Model):
    turn: int
    input: str
    action_class: str
    outcome: str
    location: str
    sentences: list[str] = Field(default_factory=list, description="narration sentences, for variety checks")


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
    recent: list[TurnSummary] = Field(default_factory=list)

    @property
    def party(self) -> list[str]:
        return [cid for cid, c in self.companions.items() if c.in_party]


# ---------------------------------------------------------------- per-turn parts


class Event(Model):
    """A staged change. Commit appends each to ``turn_events`` and folds it into the projections."""

    type: str
    data: dict[str, Any] = Field(default_factory=dict)


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


class PresentNpc(Model):
    id: str
    name: str
    role: str
    description: str
    disposition: str = "neutral"
    faction: str | None = None
    companion: bool = False
    procedural: bool = False


class Suggestion(Model):
    label: str
    tone: Tone
    risk: Risk
    action_class: str = ""


class SceneInstructions(Model):
    beat: str
    mood: str
    focus_npc: str | None = None
    must_convey: list[str] = Field(default_factory=list)
    banter: str | None = None
    notes: str = Field("", description="the director's note, from the LLM or composed deterministically")


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


class TurnFields(Model):
    player_input: str = ""
    router_output: RouterOutput | None = None
    intent: Intent | None = None
    meta_response: str | None = None
    quit_requested: bool = False
    mechanic_result: MechanicResult | None = None
    present_npcs: list[PresentNpc] = Field(default_factory=list)
    staged_events: Annotated[list[Event], operator.add] = Field(default_factory=list)
    world_ticked: bool = False
    director_instructions: SceneInstructions | None = None
    suggested_actions: list[Suggestion] = Field(default_factory=list)
    final_text: str = ""
    warnings: Annotated[list[str], operator.add] = Field(default_factory=list)
    llm_calls: Annotated[list[LLMCall], operator.add] = Field(default_factory=list)
    lore_citations: Annotated[list[str], operator.add] = Field(
        default_factory=list, description="ids of the lore chunks the prompts used this turn")
    context_stats: Annotated[list[dict[str, Any]], operator.add] = Field(
        default_factory=list, description="llm.budget.ContextStats per role called this turn (for --debug)")


class GameState(PersistentState, TurnFields):
    """Everything one turn needs. See the module docstring for which fields persist."""

    def begin_turn(self, player_input: str) -> GameState:
        """A copy with every per-turn field reset to its default and ``player_input`` set."""
        persistent = {name: getattr(self, name) for name in PERSISTENT_FIELDS}
        return GameState(**persistent, player_input=player_input)

    def played(self) -> dict[str, Any]:
        """What the player saw this turn: intent, action class, prose and the four suggestions (JSON-ready)."""
        return {
            "intent": self.intent.value if self.intent else None,
            "action_class": self.router_output.action_class.value if self.router_output else None,
            "text": self.final_text,
            "suggestions": [{"label": s.label, "tone": s.tone.value, "risk": s.risk.value}
                            for s in self.suggested_actions],
        }

    def persistent(self) -> PersistentState:
        return PersistentState(**{name: getattr(self, name) for name in PERSISTENT_FIELDS})


# Which fields of GameState live for one turn and which persist (kept outside the model: LangGraph would
# treat class attributes as state channels).
PER_TURN_FIELDS: frozenset[str] = frozenset(TurnFields.model_fields)
PERSISTENT_FIELDS: frozenset[str] = frozenset(PersistentState.model_fields)
