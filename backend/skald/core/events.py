"""Every change to a campaign's persistent state is one of these events: defined and applied here, nowhere else.

Nodes stage events (``GameState.staged_events``); :func:`stage` folds each batch once into the projected state
``GameState.after``; Commit stores the events in ``turn_events`` and writes ``after`` without folding again.

- One class per event, keyed on ``type`` (:data:`Event` is the discriminated union). A misspelt type or a missing
  field is a ``pydantic.ValidationError``, never a silent default.
- ``apply(state, limits)`` returns a new :class:`~skald.core.persistent.PersistentState` that shares every part it did
  not change (copy-on-write); it never modifies ``state``. Informational events (:class:`Informational`) change nothing.
- Turn-stamped fields (``first_met_turn``, ``joined_turn``, ``last_intro_turn``, ``last_banter_turn``) take
  ``state.campaign.turn_number``: in ``GameState.after`` that is the number of the turn being played.
- Stored form: ``type`` in its own column and the other fields as JSON (``data``), ``None`` fields left out, so a
  log written before events were typed reads back unchanged (:func:`from_row`).

Clamps: HP 0..max_hp, stress 0..``limits.max_stress``, reputation -10..10, faction power 0..10, tension 0..10,
affinity -100..100, loyalty 0..10. Units: minutes of game time, credits, HP and stress points.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from skald.core.memo import per_pack
from skald.core.pack import BEATS, Beat
from skald.core.persistent import (
    BANTER_KEPT,
    FLAGS_KEPT,
    NEWS_KEPT,
    PROCEDURAL_NPCS_KEPT,
    SCENE_RECENT,
    SCENES_DONE_KEPT,
    TENSION_KEPT,
    ActiveScene,
    Combat,
    CompanionState,
    EpisodeEvaluation,
    Feeling,
    KnownNpc,
    PersistentState,
    QuestState,
    SceneLine,
)
from skald.core.vocab import ArcStage, QuestStatus

if TYPE_CHECKING:
    from skald.core.pack import EraPack


@dataclass(frozen=True)
class Limits:
    """The pack's numbers some events clamp to: the stress cap and each faction's starting power (used when a
    faction is missing from the world, e.g. one added by a pack edit)."""

    max_stress: int = 10
    base_power: Mapping[str, int] = field(default_factory=dict)


@per_pack
def limits_of(pack: EraPack) -> Limits:
    """The :class:`Limits` of ``pack`` (built once per pack version)."""
    return Limits(pack.era.rules.max_stress, {f.id: f.power for f in pack.factions.values()})


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def _with(model: BaseModel, **changes: Any) -> Any:
    return model.model_copy(update=changes)


def _player(state: PersistentState, **changes: Any) -> PersistentState:
    return _with(state, player=_with(state.player, **changes))


def _world(state: PersistentState, **changes: Any) -> PersistentState:
    return _with(state, world=_with(state.world, **changes))


def _sorted(mapping: dict[str, int]) -> dict[str, int]:
    """Inventory and reputation are kept in id order (the order the store reads them back in)."""
    return dict(sorted(mapping.items()))


def _added(items: list[str], item: str) -> list[str]:
    return items if item in items else [*items, item]


def _companion(state: PersistentState, cid: str, **changes: Any) -> PersistentState:
    current = state.companions.get(cid) or CompanionState(id=cid)
    return _with(state, companions={**state.companions, cid: _with(current, **changes)})


class BaseEvent(BaseModel):
    """Fields common to every event. Subclasses set ``type`` and implement :meth:`apply`."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    type: str

    def apply(self, state: PersistentState, limits: Limits) -> PersistentState:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def data(self) -> dict[str, Any]:
        """The stored fields (everything but ``type``; ``None`` left out)."""
        return self.model_dump(mode="json", exclude={"type"}, exclude_none=True)


class Informational(BaseEvent):
    """An event that only informs the narrator and the log; it changes no state."""

    def apply(self, state: PersistentState, limits: Limits) -> PersistentState:
        return state


# --------------------------------------------------------------------------------------------------- the player


class TimeAdvance(BaseEvent):
    type: Literal["TIME_ADVANCE"] = "TIME_ADVANCE"
    minutes: int = Field(ge=0, description="game minutes the action took")

    def apply(self, state, limits):
        return _world(state, time_minutes=state.world.time_minutes + self.minutes)


class Damage(BaseEvent):
    type: Literal["DAMAGE"] = "DAMAGE"
    amount: int = Field(ge=0, description="HP lost")
    source: str = Field(description="who or what hurt the player: an enemy id, 'route'...")

    def apply(self, state, limits):
        return _player(state, hp=_clamp(state.player.hp - self.amount, 0, state.player.max_hp))


class Heal(BaseEvent):
    type: Literal["HEAL"] = "HEAL"
    amount: int = Field(ge=0, description="HP restored")
    source: str = Field(description="an item id, a companion id, or 'rest'")

    def apply(self, state, limits):
        return _player(state, hp=_clamp(state.player.hp + self.amount, 0, state.player.max_hp))


class StressChange(BaseEvent):
    type: Literal["STRESS_CHANGE"] = "STRESS_CHANGE"
    delta: int

    def apply(self, state, limits):
        return _player(state, stress=_clamp(state.player.stress + self.delta, 0, limits.max_stress))


class CreditsChange(BaseEvent):
    type: Literal["CREDITS_CHANGE"] = "CREDITS_CHANGE"
    delta: int = Field(description="credits gained (positive) or spent (negative); the purse never goes below 0")
    reason: str = ""

    def apply(self, state, limits):
        return _player(state, credits=max(0, state.player.credits + self.delta))


class ItemGet(BaseEvent):
    type: Literal["ITEM_GET"] = "ITEM_GET"
    item: str
    qty: int = Field(1, ge=1)

    def apply(self, state, limits):
        inventory = state.player.inventory
        return _player(state, inventory=_sorted({**inventory, self.item: inventory.get(self.item, 0) + self.qty}))


class ItemLose(BaseEvent):
    type: Literal["ITEM_LOSE"] = "ITEM_LOSE"
    item: str
    qty: int = Field(1, ge=1)

    def apply(self, state, limits):
        inventory = dict(state.player.inventory)
        left = inventory.get(self.item, 0) - self.qty
        if left > 0:
            inventory[self.item] = left
        else:
            inventory.pop(self.item, None)
        return _player(state, inventory=inventory)


class Move(BaseEvent):
    """The player goes to ``to``. A fight does not follow them: any combat ends (the rules stage COMBAT_END for a
    flight; this is the guarantee for every other move)."""

    type: Literal["MOVE"] = "MOVE"
    origin: str
    to: str
    via: list[str] | None = Field(None, description="locations passed through on a multi-hop route")

    def apply(self, state, limits):
        return _with(state, location=self.to, combat=None)


class Defeated(BaseEvent):
    """The player is knocked out (HP 0). Any fight ends with them: nobody keeps fighting someone on the ground."""

    type: Literal["DEFEATED"] = "DEFEATED"
    location: str

    def apply(self, state, limits):
        return _with(_player(state, defeated=True, hp=0), combat=None)


class Recovered(BaseEvent):
    type: Literal["RECOVERED"] = "RECOVERED"
    hp: int = Field(description="HP the player wakes with (clamped to 1..max_hp)")
    location: str

    def apply(self, state, limits):
        return _player(state, defeated=False, hp=_clamp(self.hp, 1, state.player.max_hp))


class ReputationChange(BaseEvent):
    type: Literal["REPUTATION_CHANGE"] = "REPUTATION_CHANGE"
    faction: str
    delta: int
    reason: str = ""

    def apply(self, state, limits):
        value = _clamp(state.reputation.get(self.faction, 0) + self.delta, -10, 10)
        return _with(state, reputation=_sorted({**state.reputation, self.faction: value}))


# --------------------------------------------------------------------------------------------------- combat


class CombatStart(BaseEvent):
    type: Literal["COMBAT_START"] = "COMBAT_START"
    enemy_id: str
    enemy_name: str
    enemy_hp: int
    enemy_damage: int = Field(description="max damage per hit (1..enemy_damage)")
    reward_credits: int = 0
    description: str | None = None

    def apply(self, state, limits):
        return _with(state, combat=Combat(enemy_id=self.enemy_id, enemy_name=self.enemy_name, enemy_hp=self.enemy_hp,
                                          enemy_damage=self.enemy_damage, reward_credits=self.reward_credits))


class EnemyDamage(BaseEvent):
    type: Literal["ENEMY_DAMAGE"] = "ENEMY_DAMAGE"
    amount: int = Field(ge=0)
    enemy: str

    def apply(self, state, limits):
        if state.combat is None:
            return state
        return _with(state, combat=_with(state.combat, enemy_hp=max(0, state.combat.enemy_hp - self.amount),
                                         round=state.combat.round + 1))


class CombatEnd(BaseEvent):
    type: Literal["COMBAT_END"] = "COMBAT_END"
    outcome: Literal["victory", "fled", "defeat"]
    enemy: str

    def apply(self, state, limits):
        return _with(state, combat=None)


class NpcDefeated(BaseEvent):
    type: Literal["NPC_DEFEATED"] = "NPC_DEFEATED"
    npc: str

    def apply(self, state, limits):
        return _world(state, defeated_npcs=_added(state.world.defeated_npcs, self.npc))


# --------------------------------------------------------------------------------------------------- NPCs


class NpcMet(BaseEvent):
    type: Literal["NPC_MET"] = "NPC_MET"
    npc: str
    name: str

    def apply(self, state, limits):
        if self.npc in state.known_npcs:
            return state
        met = KnownNpc(id=self.npc, name=self.name, first_met_turn=state.campaign.turn_number)
        return _with(state, known_npcs={**state.known_npcs, self.npc: met})


class NpcSpawn(BaseEvent):
    """A procedural stranger is introduced; only the newest ``PROCEDURAL_NPCS_KEPT`` are remembered."""

    type: Literal["NPC_SPAWN"] = "NPC_SPAWN"
    npc: str
    name: str
    location: str
    role: str
    description: str

    def apply(self, state, limits):
        turn = state.campaign.turn_number
        known = {k: v for k, v in state.known_npcs.items() if k != self.npc}
        known[self.npc] = KnownNpc(id=self.npc, name=self.name, first_met_turn=turn, procedural=True,
                                   location=self.location, role=self.role, description=self.description)
        procedural = [k for k, v in known.items() if v.procedural]
        for old in procedural[:-PROCEDURAL_NPCS_KEPT]:
            del known[old]
        return _with(state, known_npcs=known, world=_with(state.world, last_intro_turn=turn))


class NpcIntroduced(BaseEvent):
    type: Literal["NPC_INTRODUCED"] = "NPC_INTRODUCED"
    npc: str

    def apply(self, state, limits):
        return _world(state, last_intro_turn=state.campaign.turn_number)


class IntroThrottled(Informational):
    """A newcomer was not introduced this turn: at most one introduction per ``rules.intro_every_turns``."""

    type: Literal["INTRO_THROTTLED"] = "INTRO_THROTTLED"
    npc: str


class NpcMove(BaseEvent):
    type: Literal["NPC_MOVE"] = "NPC_MOVE"
    npc: str
    to: str

    def apply(self, state, limits):
        return _world(state, npc_locations={**state.world.npc_locations, self.npc: self.to})


# --------------------------------------------------------------------------------------------------- the world


class WorldTick(BaseEvent):
    type: Literal["WORLD_TICK"] = "WORLD_TICK"
    tick: int = Field(description="index of the world tick crossed (world time // rules.world_tick_minutes)")

    def apply(self, state, limits):
        return _world(state, tick=max(state.world.tick, self.tick))


class FactionMove(BaseEvent):
    type: Literal["FACTION_MOVE"] = "FACTION_MOVE"
    faction: str
    delta: int
    rival_of: str | None = Field(None, description="set when this faction lost a point to a rival's gain")

    def apply(self, state, limits):
        power = state.world.faction_power
        value = _clamp(power.get(self.faction, limits.base_power.get(self.faction, 0)) + self.delta, 0, 10)
        return _world(state, faction_power={**power, self.faction: value})


class News(BaseEvent):
    type: Literal["NEWS"] = "NEWS"
    text: str
    tick: int

    def apply(self, state, limits):
        return _world(state, news=[*state.world.news, self.text][-NEWS_KEPT:])


class EventFired(BaseEvent):
    """A world event from the pack's ``events.yaml`` fired; once-only events are remembered."""

    type: Literal["EVENT_FIRED"] = "EVENT_FIRED"
    event: str
    once: bool = False
    tick: int
    factions: list[str] = Field(default_factory=list)

    def apply(self, state, limits):
        if not self.once or self.event in state.world.fired_events:
            return state
        return _world(state, fired_events=[*state.world.fired_events, self.event])


class RumorSpread(BaseEvent):
    type: Literal["RUMOR_SPREAD"] = "RUMOR_SPREAD"
    rumor: str

    def apply(self, state, limits):
        return _world(state, public_rumors=_added(state.world.public_rumors, self.rumor))


class RumorHeard(BaseEvent):
    type: Literal["RUMOR_HEARD"] = "RUMOR_HEARD"
    rumor: str
    source: str = Field(description="the NPC or location the player heard it from")

    def apply(self, state, limits):
        return _world(state, known_rumors=_added(state.world.known_rumors, self.rumor))


class Discovery(BaseEvent):
    type: Literal["DISCOVERY"] = "DISCOVERY"
    discovery: str
    location: str

    def apply(self, state, limits):
        return _world(state, discoveries=_added(state.world.discoveries, self.discovery))


# --------------------------------------------------------------------------------------------------- companions


class AffinityChange(BaseEvent):
    type: Literal["AFFINITY_CHANGE"] = "AFFINITY_CHANGE"
    companion: str
    delta: int

    def apply(self, state, limits):
        current = state.companions.get(self.companion)
        affinity = current.affinity if current else 0
        return _companion(state, self.companion, affinity=_clamp(affinity + self.delta, -100, 100))


class LoyaltyChange(BaseEvent):
    type: Literal["LOYALTY_CHANGE"] = "LOYALTY_CHANGE"
    companion: str
    delta: int

    def apply(self, state, limits):
        current = state.companions.get(self.companion)
        loyalty = current.loyalty if current else 0
        return _companion(state, self.companion, loyalty=_clamp(loyalty + self.delta, 0, 10))


class CompanionJoin(BaseEvent):
    type: Literal["COMPANION_JOIN"] = "COMPANION_JOIN"
    companion: str

    def apply(self, state, limits):
        return _companion(state, self.companion, in_party=True, joined_turn=state.campaign.turn_number)


class CompanionLeave(BaseEvent):
    type: Literal["COMPANION_LEAVE"] = "COMPANION_LEAVE"
    companion: str
    reason: str = ""

    def apply(self, state, limits):
        return _companion(state, self.companion, in_party=False)


class CompanionActs(Informational):
    """A companion did something this turn (its effect, e.g. a HEAL, is its own event)."""

    type: Literal["COMPANION_ACTS"] = "COMPANION_ACTS"
    companion: str
    act: str


class TensionChange(BaseEvent):
    type: Literal["TENSION_CHANGE"] = "TENSION_CHANGE"
    delta: int

    def apply(self, state, limits):
        return _world(state, tension=_clamp(state.world.tension + self.delta, 0, 10))


class BanterQueued(BaseEvent):
    """A line for the narrator to include: a companion's own line, or a whole exchange from ``banter.yaml``."""

    type: Literal["BANTER_QUEUED"] = "BANTER_QUEUED"
    companion: str
    line: str
    banter: str | None = Field(None, description="the banter.yaml exchange id, when the line is an exchange")

    def apply(self, state, limits):
        queued = [*state.world.banter, f"{self.companion}|{self.line}"][-BANTER_KEPT:]
        return _world(state, banter=queued, last_banter_turn=state.campaign.turn_number)


# --------------------------------------------------------------------------------------------------- the story


class QuestUpdate(BaseEvent):
    type: Literal["QUEST_UPDATE"] = "QUEST_UPDATE"
    quest: str
    status: QuestStatus
    stage: int = Field(ge=0, description="the stage now reached (for a completed quest, the number of stages)")

    def apply(self, state, limits):
        quest = QuestState(id=self.quest, status=self.status, stage=self.stage)
        return _with(state, quests={**state.quests, self.quest: quest})


class QuestHint(BaseEvent):
    """An attempt reached a quest stage's target but not the rest: what would work, for the quest log."""

    type: Literal["QUEST_HINT"] = "QUEST_HINT"
    quest: str
    stage: int = Field(ge=0, description="the stage the hint is for")
    hint: str = Field(description="one sentence: 'Juno will need persuading.'")

    def apply(self, state, limits):
        current = state.quests.get(self.quest)
        if current is None or current.stage != self.stage:
            return state
        return _with(state, quests={**state.quests, self.quest: _with(current, hint=self.hint)})


class ArcStageChange(BaseEvent):
    type: Literal["ARC_STAGE"] = "ARC_STAGE"
    stage: ArcStage
    story_turn: int = Field(description="the story turn the stage starts at")

    def apply(self, state, limits):
        return _with(state, arc_stage=self.stage, arc_stage_turn=self.story_turn)


# --------------------------------------------------------------------------------------------------- episodes
BEAT_ORDER = BEATS  # the beats in story order (defined with the pack models, which name them too)


def _director(state: PersistentState, **changes: Any) -> PersistentState:
    return _with(state, director=_with(state.director, **changes))


class EpisodeStarted(BaseEvent):
    """An episode begins: the Director's per-episode counters start over; flags and the played list carry on."""

    type: Literal["EPISODE_STARTED"] = "EPISODE_STARTED"
    episode: str
    number: int = Field(ge=1, description="the episode's ordinal in the campaign")
    reason: str = Field(description="first | starts_at | suggested | chosen")

    def apply(self, state, limits):
        return _with(state, director=state.director.between(
            episode=self.episode, number=self.number, started_turn=state.campaign.turn_number,
            current_beat=BEAT_ORDER[0]))


class EpisodeTurn(BaseEvent):
    """One story turn of the running episode: its signal, its tension, and what it did for the story."""

    type: Literal["EPISODE_TURN"] = "EPISODE_TURN"
    signal: str = Field(description="bold | cautious | violent | diplomatic | sly | curious")
    tension: float = Field(ge=0, le=1)
    quest_steps: int = Field(0, ge=0, description="quest stages completed this turn")
    defeated: bool = False

    def apply(self, state, limits):
        d = state.director
        signals = {**d.player_signals, self.signal: d.player_signals.get(self.signal, 0) + 1}
        return _director(state, turn_count=d.turn_count + 1, player_signals=dict(sorted(signals.items())),
                         tension_curve=[*d.tension_curve, self.tension][-TENSION_KEPT:],
                         quest_steps=d.quest_steps + self.quest_steps, defeats=d.defeats + int(self.defeated))


class BeatReached(BaseEvent):
    """The running episode reaches ``beat``. Beats only move forward: a beat at or before the current one changes
    nothing; beats jumped over count as completed."""

    type: Literal["BEAT_REACHED"] = "BEAT_REACHED"
    beat: Beat
    turn_count: int = Field(description="the episode's story turn it landed on")
    reason: str = Field(description="position | escalation | pivot | resolution | ending | classifier")

    def apply(self, state, limits):
        d = state.director
        now = BEAT_ORDER.index(d.current_beat) if d.current_beat in BEAT_ORDER else -1
        to = BEAT_ORDER.index(self.beat)
        if to <= now:
            return state
        return _director(state, current_beat=self.beat,
                         beats_completed=[*d.beats_completed, *BEAT_ORDER[max(now, 0):to]][:len(BEAT_ORDER)])


class FlagSet(BaseEvent):
    type: Literal["FLAG_SET"] = "FLAG_SET"
    flag: str
    source: str = Field(description="'quest:<id>:<stage>' or 'event:<id>'")

    def apply(self, state, limits):
        flags = state.director.flags
        return state if self.flag in flags else _director(state, flags=[*flags, self.flag][-FLAGS_KEPT:])


class EpisodeCompleted(BaseEvent):
    """The running episode ended and was evaluated in the same turn (the evaluation rides in the event, so a turn
    cannot commit one without the other)."""

    type: Literal["EPISODE_COMPLETED"] = "EPISODE_COMPLETED"
    episode: str
    trigger: str = Field(description="turn_limit | beat_complete | objective_met | player_end | abandoned")
    evaluation: EpisodeEvaluation

    def apply(self, state, limits):
        d = state.director
        return _with(state, director=d.between(played=[*d.played, self.episode][-FLAGS_KEPT:],
                                               suggested=self.evaluation.next_episode))


# --------------------------------------------------------------------------------------------------- scenes


def _scenes(state: PersistentState, **changes: Any) -> PersistentState:
    return _with(state, scenes=_with(state.scenes, **changes))


class SceneOpened(BaseEvent):
    """A multi-character scene starts at the player's location (``rules.moderator.opening``)."""

    type: Literal["SCENE_OPENED"] = "SCENE_OPENED"
    scene: str
    goal: str
    location: str
    characters: list[str] = Field(min_length=2)
    max_beats: int = Field(ge=1)
    minutes: int = Field(description="world time it opens at")
    reason: str = Field(description="pack (scenes.yaml), group (the player addressed several people) or "
                        "confrontation")

    def apply(self, state, limits):
        scene = ActiveScene(id=self.scene, goal=self.goal, location=self.location, characters=list(self.characters),
                            started_turn=state.campaign.turn_number, started_minutes=self.minutes,
                            max_beats=self.max_beats)
        return _scenes(state, scene=scene)


class SceneBeat(BaseEvent):
    """One beat of the running scene: its ordered lines (``turn_dialogue`` keeps them), whether it moved the scene,
    the moderator's notes for the next beat and the tokens the character roles spent."""

    type: Literal["SCENE_BEAT"] = "SCENE_BEAT"
    scene: str
    beat: int = Field(ge=1)
    lines: list[SceneLine] = Field(default_factory=list)
    stalled: bool = False
    event: str | None = Field(None, description="a scenes.yaml event injected this beat")
    notes: dict[str, str] = Field(default_factory=dict)
    tokens: int = Field(0, ge=0)

    def apply(self, state, limits):
        scene = state.scenes.scene
        if scene is None or scene.id != self.scene:
            return state
        heard = [x for x in self.lines if x.action != "system"]  # the characters hear what was said and done
        return _scenes(state, scene=_with(
            scene, beat=self.beat, stalled=scene.stalled + 1 if self.stalled else 0,
            events_used=scene.events_used + int(self.event is not None), tokens=scene.tokens + self.tokens,
            notes=dict(self.notes), last_event=self.event,
            recent=[*scene.recent, *heard][-SCENE_RECENT:]))


class SceneClosed(BaseEvent):
    """The running scene ends: its goal met, its beats spent, or the player gone or fighting. A pack scene played to
    its goal or its last beat is done (it never opens again); one the player walked out of may open again."""

    type: Literal["SCENE_CLOSED"] = "SCENE_CLOSED"
    scene: str
    reason: str = Field(description="goal | max_beats | left | fight | defeated")
    goal_achieved: bool = False
    beats: int = Field(ge=0)
    tokens: int = Field(0, ge=0)

    minutes: int = Field(0, ge=0, description="game minutes the scene lasted")

    def apply(self, state, limits):
        scene = state.scenes.scene
        if scene is None or scene.id != self.scene:
            return state
        played = self.reason in ("goal", "max_beats") and not scene.id.startswith("talk:")
        done = _added(state.scenes.done, scene.id) if played else state.scenes.done
        return _scenes(state, scene=None, done=done[-SCENES_DONE_KEPT:])


class AttitudeChange(BaseEvent):
    """How an NPC feels about the player moves: attitude by ``delta`` (clamped -10..10), mood set when given."""

    type: Literal["ATTITUDE_CHANGE"] = "ATTITUDE_CHANGE"
    npc: str
    delta: int = 0
    mood: str | None = None
    reason: str = ""

    def apply(self, state, limits):
        current = state.scenes.feelings.get(self.npc) or Feeling()
        feeling = Feeling(attitude=_clamp(current.attitude + self.delta, -10, 10), mood=self.mood or current.mood)
        if feeling == current:
            return state
        return _scenes(state, feelings=dict(sorted({**state.scenes.feelings, self.npc: feeling}.items())))


Event = Annotated[
    TimeAdvance | Damage | Heal | StressChange | CreditsChange | ItemGet | ItemLose | Move | Defeated | Recovered
    | ReputationChange | CombatStart | EnemyDamage | CombatEnd | NpcDefeated | NpcMet | NpcSpawn | NpcIntroduced
    | IntroThrottled | NpcMove | WorldTick | FactionMove | News | EventFired | RumorSpread | RumorHeard | Discovery
    | AffinityChange | LoyaltyChange | CompanionJoin | CompanionLeave | CompanionActs | TensionChange | BanterQueued
    | QuestUpdate | QuestHint | ArcStageChange | EpisodeStarted | EpisodeTurn | BeatReached | FlagSet
    | EpisodeCompleted | SceneOpened | SceneBeat | SceneClosed | AttitudeChange,
    Field(discriminator="type"),
]
EVENT_TYPES: dict[str, type[BaseEvent]] = {}  # type string -> class, filled below
_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)
_LIST_ADAPTER: TypeAdapter[list[Any]] = TypeAdapter(list[Event])


def _collect() -> None:
    pending = [BaseEvent]
    while pending:
        for sub in pending.pop().__subclasses__():
            pending.append(sub)
            literal = sub.model_fields["type"].default
            if isinstance(literal, str) and literal != "":
                EVENT_TYPES[literal] = sub


_collect()


def parse(value: Mapping[str, Any] | str) -> BaseEvent:
    """An event from ``{"type": ..., **fields}`` (or its JSON). :raises pydantic.ValidationError: unknown type,
    missing or misspelt field."""
    return _ADAPTER.validate_json(value) if isinstance(value, str) else _ADAPTER.validate_python(value)


def from_row(kind: str, data: str | Mapping[str, Any]) -> BaseEvent:
    """An event as stored in ``turn_events`` (``type`` column, ``data`` JSON). :raises pydantic.ValidationError."""
    fields = json.loads(data) if isinstance(data, str) else dict(data)
    return _ADAPTER.validate_python({**fields, "type": kind})


def fold(state: PersistentState, events: Iterable[BaseEvent], limits: Limits) -> PersistentState:
    """``state`` with ``events`` applied in order (a new state; ``state`` is not modified)."""
    for event in events:
        state = event.apply(state, limits)
    return state


def replay_log(initial: PersistentState, log: Iterable[tuple[int, BaseEvent]], limits: Limits) -> PersistentState:
    """Fold a stored event log: ``(turn_number, event)`` pairs in order, each applied with the campaign's turn
    number set to the turn it was played in. Returns the state with ``campaign.turn_number`` of the last turn."""
    state = initial
    for turn, event in log:
        if state.campaign.turn_number != turn:
            state = _with(state, campaign=_with(state.campaign, turn_number=turn))
        state = event.apply(state, limits)
    return state


def stage(after: PersistentState, events: list[BaseEvent], limits: Limits) -> dict[str, Any]:
    """The state update for staging ``events``: appended to ``staged_events`` and folded, once, into ``after``.
    Every node that stages events returns this (merged with its other fields), or :meth:`Staging.update`."""
    staging = Staging(after, limits)
    staging.add(*events)
    return staging.update()


class Staging:
    """The events one node stages, each folded once, in order, into the projected state: for a node whose later
    events depend on what its earlier ones did (an episode's beat on the turn just counted, a scene's close on the
    beat just played), so that no node folds events by hand.

    ``after``: the projected state so far (it starts as the state the node was given). :meth:`add` folds events in
    and returns the new ``after``; :meth:`update` is the node's state update, as :func:`stage` returns it ({} when
    nothing was staged)."""

    def __init__(self, after: PersistentState, limits: Limits):
        self.after, self.limits = after, limits
        self.events: list[BaseEvent] = []

    def add(self, *events: BaseEvent) -> PersistentState:
        for event in events:
            self.after = event.apply(self.after, self.limits)
            self.events.append(event)
        return self.after

    def update(self) -> dict[str, Any]:
        return {"staged_events": list(self.events), "after": self.after} if self.events else {}
