"""Pydantic models for an era pack: the YAML files under ``data/era_packs/<id>/``.

Every model forbids unknown keys, so a typo in a designer's file is an error, not silently ignored data.
Ability scores follow the d20 SRD convention (10 is average, modifier = floor((score - 10) / 2)).
Times are minutes of game time; money is in the pack's currency (``credits`` in the engine).
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, WithJsonSchema, field_validator, model_validator

from skald.core.vocab import DESIGNER_ACTIONS, ActionName, Risk, Taste
from skald.text import name_key

PACK_ID = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")  # a pack's id: lower-case words joined by _ (its folder)

Id = str


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Stats(Strict):
    """Ability scores, 3..20 (d20 SRD scale)."""

    might: int = Field(10, ge=3, le=20)
    agility: int = Field(10, ge=3, le=20)
    wits: int = Field(10, ge=3, le=20)
    presence: int = Field(10, ge=3, le=20)


class DefeatRule(Strict):
    """What happens when the player's HP reaches 0: they wake at ``recover_location``."""

    recover_location: Id
    hp_fraction: float = Field(0.5, gt=0, le=1, description="share of max HP restored on recovery")
    credits_lost_fraction: float = Field(0.1, ge=0, le=1)
    minutes: int = Field(360, ge=0, description="game time that passes while the player is out")
    stress: int = Field(2, ge=0, le=10, description="stress added on recovery")
    text: str = Field(..., description="one or two sentences narrating the recovery")


class Starting(Strict):
    """Starting meters for every new campaign (a background's own reputation is added on top)."""

    stress: int = Field(0, ge=0, le=100)
    reputation: dict[Id, int] = Field(default_factory=dict, description="faction id -> starting reputation")


class Rules(Strict):
    world_tick_minutes: int = Field(240, ge=15, le=1440)
    difficulty: Literal["story", "normal", "hard"] = "normal"
    max_stress: int = Field(10, ge=1, le=100)
    encounter_caps: dict[str, int] = Field(
        default_factory=lambda: {"default": 3},
        description="max NPCs on stage per location type; key 'default' applies to the rest",
    )
    intro_every_turns: int = Field(3, ge=1, description="at most one new NPC introduction per this many turns")
    defeat: DefeatRule
    starting: Starting = Starting()


class Calendar(Strict):
    start_minutes: int = Field(480, ge=0, description="world time at campaign start (minutes since day 1 00:00)")
    day_names: list[str] = Field(default_factory=list)


class Item(Strict):
    id: Id
    name: str
    description: str
    value: int = Field(0, ge=0, description="price in the pack's currency")
    tags: list[str] = Field(default_factory=list)
    heal: int = Field(0, ge=0, description="HP restored when used; 0 for non-consumables")


class Currency(Strict):
    """What the pack calls its money. The engine counts whole units (``credits`` in code, saves and the API);
    players read these words: ``1 grey``, ``25 greys``."""

    one: str = Field("credit", min_length=1, description="one unit, as in '1 credit'")
    many: str = Field("credits", min_length=1, description="several units, as in '25 credits'")


class Era(Strict):
    """``era.yaml``: the pack's identity, calendar, items and rules. ``extends`` names a base pack (overlay)."""

    id: Id
    extends: Id | None = Field(None, description="base pack this pack overlays")
    name: str = Field(..., description="setting name")
    era: str = Field(..., description="era name")
    tone: str
    themes: list[str]
    start_locations: list[Id] = Field(..., min_length=1, description="where new campaigns may begin when the "
                                      "background names no start location: one of these, chosen by the seed")
    calendar: Calendar = Calendar()
    currency: Currency = Field(Currency(), description="what players call the money")
    rules: Rules
    items: list[Item]
    style: str = Field(..., description="style guide for narration: a paragraph")


class Link(Strict):
    to: Id
    minutes: int = Field(..., ge=1)
    risk: Risk = Risk.SAFE
    description: str = ""


class Hazard(Strict):
    """A hostile that may appear when the player arrives at a location."""

    id: Id
    name: str
    description: str
    hp: int = Field(..., ge=1)
    damage: int = Field(..., ge=1, description="max damage per hit (1..damage)")
    chance: float = Field(..., ge=0, le=1, description="chance per arrival")
    reward_credits: int = Field(0, ge=0)


class Discovery(Strict):
    """Found by a successful INVESTIGATE check at the location, once per campaign."""

    id: Id
    text: str
    item: Id | None = None
    credits: int = Field(0, ge=0)
    rumor: Id | None = None


class Location(Strict):
    id: Id
    name: str
    aliases: list[str] = Field(default_factory=list, description="shorter names players and prose use for it "
                               "('the See' for 'the Salt See'); the router and the validator accept them")
    prose_name: str | None = Field(None, min_length=1, description="the name as it reads mid-sentence, where the rule "
                                   "gets it wrong ('the Cistern Yard' for 'Cistern Yard'): the name's words, with or "
                                   "without an article in front; default: 'The X' reads 'the X', 'Hall of X' reads "
                                   "'the Hall of X', any other name as it is ('Kettle Row')")
    type: str = Field(..., description="e.g. bar, market, street, wilds; keys encounter caps")
    description: str
    details: list[str] = Field(default_factory=list, description="sensory lines the offline narrator can use")
    tags: list[str] = Field(default_factory=list, description="crowded, dark, lawless, quiet, ...")
    faction: Id | None = None
    links: list[Link]
    hazards: list[Hazard] = Field(default_factory=list)
    discoveries: list[Discovery] = Field(default_factory=list)
    shop: list[Id] = Field(default_factory=list, description="item ids for sale here")
    drink: str | None = Field(None, min_length=1, description="what a bar pours a player who asks for a drink "
                              "without naming one, as prose reads it after 'pours you': 'a cup of brown ale'; "
                              "default: 'a drink'")

    @field_validator("prose_name")
    @classmethod
    def _the_same_name(cls, prose_name: str | None, info: ValidationInfo) -> str | None:
        name = info.data.get("name")
        if prose_name is not None and name is not None and name_key(prose_name) != name_key(name):
            raise ValueError(f"prose_name must be the name {name!r} as it reads mid-sentence (its words, with or "
                             f"without 'the', 'a' or 'an' in front), not {prose_name!r}; other names go in aliases")
        return prose_name


class Npc(Strict):
    id: Id
    name: str
    aliases: list[str] = Field(default_factory=list, description="shorter names players and prose use for it "
                               "('the See' for 'the Salt See'); the router and the validator accept them")
    role: str = Field(..., description="what people call them: bartender, smuggler, ...")
    pronouns: str | None = Field(None, pattern=r"^[A-Za-z]{1,12}(?:/[A-Za-z]{1,12}){1,3}$",
                                 description="as prose should name them: she/her, he/him, they/them, or their own "
                                 "(xe/xem/xyr); default: read from the description")
    location: Id
    faction: Id | None = None
    description: str
    disposition: Literal["friendly", "neutral", "wary", "hostile"] = "neutral"
    hp: int = Field(8, ge=1)
    damage: int = Field(4, ge=1, description="max damage per hit in a fight (1..damage)")
    roams: list[Id] = Field(default_factory=list, description="locations the NPC moves between on world ticks")
    lines: list[str] = Field(default_factory=list, description="things they might say")
    personality: str | None = Field(None, max_length=160, description="a few words on who they are, for their "
                                    "character agent in scenes (default: from their disposition)")
    speech: str | None = Field(None, max_length=200, description="how they talk: their communication style in scenes "
                               "(default: their voice document, if any)")
    traits: list[str] = Field(default_factory=list, max_length=6, description="short traits their agent plays")
    wants: str | None = Field(None, max_length=120, description="what they want out of a scene, as it reads after "
                              "'she wants' ('the tab paid before the whistle'); the Director's brief tells the "
                              "narrator (default: from their faction's agenda, or their work)")


class Faction(Strict):
    id: Id
    name: str
    aliases: list[str] = Field(default_factory=list, description="shorter names players and prose use for it "
                               "('the See' for 'the Salt See'); the router and the validator accept them")
    description: str
    power: int = Field(5, ge=0, le=10)
    agenda: str
    moves: list[str] = Field(..., min_length=1, description="news lines for the world sim; {faction} is replaced")
    rivals: list[Id] = Field(default_factory=list)


class Recruit(Strict):
    """Conditions under which a companion agrees to join."""

    min_affinity: int = Field(0, ge=-100, le=100)
    min_reputation: dict[Id, int] = Field(default_factory=dict)
    cost_credits: int = Field(0, ge=0)
    requires_quest: Id | None = None


class Companion(Strict):
    id: Id
    name: str
    aliases: list[str] = Field(default_factory=list, description="shorter names players and prose use for it "
                               "('the See' for 'the Salt See'); the router and the validator accept them")
    role: str
    pronouns: str | None = Field(None, pattern=r"^[A-Za-z]{1,12}(?:/[A-Za-z]{1,12}){1,3}$",
                                 description="as prose should name them: she/her, he/him, they/them, or their own "
                                 "(xe/xem/xyr); default: read from the description")
    location: Id
    faction: Id | None = None
    description: str
    likes: list[Taste] = Field(default_factory=list, description="tones or action classes that raise affinity")
    dislikes: list[Taste] = Field(default_factory=list, description="tones or action classes that lower it")
    recruit: Recruit = Recruit()
    bonus: dict[ActionName, int] = Field(default_factory=dict,
                                         description="action class -> check bonus while in party")
    banter: list[str] = Field(..., min_length=1)
    leave_below: int = Field(-30, description="the companion leaves when affinity drops below this")
    personality: str | None = Field(None, max_length=160, description="a few words on who they are, for their "
                                    "character agent in scenes (default: from their disposition)")
    speech: str | None = Field(None, max_length=200, description="how they talk: their communication style in scenes "
                               "(default: their voice document, if any)")
    traits: list[str] = Field(default_factory=list, max_length=6, description="short traits their agent plays")


class ChoiceEffects(Strict):
    """What picking a choice of a background question does to the new character (all optional)."""

    start_location: Id | None = Field(None, description="where the campaign starts")
    hook: str | None = Field(None, max_length=200, description="the character's personal hook, in a sentence")
    credits: int = Field(0, ge=-1000, le=1000, description="credits added to the background's")
    items: list[Id] = Field(default_factory=list, description="items added to the background's")
    reputation: dict[Id, int] = Field(default_factory=dict, description="faction id -> reputation added")


class Choice(Strict):
    label: str = Field(..., max_length=120, description="what the player reads and picks")
    effects: ChoiceEffects = ChoiceEffects()


class BackgroundQuestion(Strict):
    """A question guided creation asks a player of this background (offline, and as research for the model)."""

    id: Id
    text: str = Field(..., max_length=200)
    choices: list[Choice] = Field(..., min_length=2, max_length=6, description="the first is the default")


class Background(Strict):
    id: Id
    name: str
    description: str
    stats: Stats
    hp: int = Field(..., ge=1)
    credits: int = Field(..., ge=0)
    items: list[Id] = Field(default_factory=list)
    start_location: Id | None = None
    reputation: dict[Id, int] = Field(default_factory=dict)
    questions: list[BackgroundQuestion] = Field(default_factory=list, max_length=6, description="questions guided "
                                                "creation asks a player of this background (skald new)")


class Rumor(Strict):
    id: Id
    text: str
    location: Id | None = None
    faction: Id | None = None
    public: bool = Field(False, description="public rumors are known from the start; hidden ones spread on ticks")
    true: bool = True


_ACTION_NAME = {"type": "string", "enum": list(DESIGNER_ACTIONS)}
_ONE_OR_MORE_ACTIONS = {"anyOf": [_ACTION_NAME, {"type": "array", "items": _ACTION_NAME}, {"type": "null"}]}


class QuestTrigger(Strict):
    """A stage completes when every condition given holds after a turn."""

    location: Id | None = None
    npc: Id | None = Field(None, description="the player talked to or acted on this NPC")
    item: Id | None = Field(None, description="the player holds this item")
    action_class: Annotated[list[ActionName] | None, WithJsonSchema(_ONE_OR_MORE_ACTIONS)] = Field(
        None, description="the turn's action class, or a list of those that count (the approaches the objective's "
        "wording invites); one name is read as a list of one")
    success: bool = Field(True, description="the turn's check must have succeeded")

    @field_validator("action_class", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @property
    def action_classes(self) -> list[str]:
        """The action classes that count (empty: any)."""
        return list(self.action_class or [])


class QuestStage(Strict):
    id: Id
    objective: str
    when: QuestTrigger
    set_flag: Id | None = Field(None, description="a story flag set when this stage completes (episode objectives "
                                "and starts read flags)")


class Reward(Strict):
    credits: int = Field(0, ge=0)
    items: list[Id] = Field(default_factory=list)
    reputation: dict[Id, int] = Field(default_factory=dict)


class Quest(Strict):
    id: Id
    title: str
    giver: Id = Field(..., description="NPC who offers the quest when the player talks to them")
    summary: str
    stages: list[QuestStage] = Field(..., min_length=1)
    reward: Reward = Reward()


class EventTrigger(Strict):
    """When a world event fires, checked on every world tick. All given conditions must hold."""

    every_ticks: int | None = Field(None, ge=1, description="fires on ticks divisible by this")
    from_tick: int = Field(0, ge=0, description="not before this tick")
    chance: float = Field(1.0, ge=0, le=1, description="chance per eligible tick (seeded)")
    min_power: dict[Id, int] = Field(default_factory=dict, description="faction id -> minimum power")
    arc_stage: Literal["SETUP", "RISING", "CLIMAX", "RESOLUTION"] | None = None
    once: bool = False


class EventEffects(Strict):
    faction_power: dict[Id, int] = Field(default_factory=dict, description="faction id -> power change")
    rumor: Id | None = Field(None, description="a rumor that becomes public")
    npc_moves: dict[Id, Id] = Field(default_factory=dict, description="NPC id -> location id")
    stress: int = Field(0, ge=-10, le=10, description="stress for the player when at one of the event's locations")
    set_flag: Id | None = Field(None, description="a story flag set when the event fires")


class WorldEvent(Strict):
    """``events.yaml``: something that happens in the world on its own."""

    id: Id
    news: str = Field(..., description="the news line shown when it fires")
    locations: list[Id] = Field(default_factory=list, description="where it happens (empty: everywhere)")
    factions: list[Id] = Field(default_factory=list, description="factions involved; {faction} in the news line "
                               "is replaced by the first one's name")
    trigger: EventTrigger
    effects: EventEffects = EventEffects()


BEATS = ("establishment", "complication", "escalation", "pivot", "resolution")
Beat = Literal["establishment", "complication", "escalation", "pivot", "resolution"]
CompletionMode = Literal["open", "beat_gated", "turn_limited", "objective"]


class Objective(Strict):
    """Story flags an ``objective`` episode needs: every flag in ``all`` and, when ``any`` is given, one of those."""

    all: list[Id] = Field(default_factory=list, description="flags that must all be set")
    any: list[Id] = Field(default_factory=list, description="flags of which at least one must be set")

    @property
    def flags(self) -> list[Id]:
        return [*self.all, *self.any]


class CompletionCriteria(Strict):
    required_beat: Beat = Field("pivot", description="beat_gated: the beat that completes the episode")
    require_resolution: bool = Field(False, description="beat_gated: after the required beat, also wait for the "
                                     "resolution beat")
    objective: Objective | None = Field(None, description="objective: the flags that complete the episode")


class EpisodeStart(Strict):
    """When an episode starts by itself (no episode running, not yet played). Every condition given must hold; with
    none given, the episode starts only as a campaign's first episode or when the player picks it."""

    location: Id | None = Field(None, description="the player is at this location")
    quest: Id | None = Field(None, description="this quest is active or completed")
    flag: Id | None = Field(None, description="this story flag is set (a quest stage's or an event's set_flag)")

    @property
    def empty(self) -> bool:
        return self.location is None and self.quest is None and self.flag is None


class BeatSignal(Strict):
    """What the rules must see, in one story turn, for an episode to reach a beat (any one of the fields given): the
    beat's tie to the premise. A beat that names a signal is reached only by it: neither the turn count nor the beat
    classifier reaches it alone."""

    quest: Id | None = Field(None, description="this quest moves: with stage, reaches that many stages done; "
                             "without, is completed")
    stage: int | None = Field(None, ge=1, description="with quest: stages done (1 = its first stage done)")
    flag: Id | None = Field(None, description="this story flag is set")
    location: Id | None = Field(None, description="the player arrives here")
    met: Id | None = Field(None, description="the player meets this NPC or companion for the first time")
    check: bool = Field(False, description="a risk taken and won: a check on a roll, RISKY or DANGEROUS, succeeds")

    @model_validator(mode="after")
    def _names_something(self) -> BeatSignal:
        if self.stage is not None and not self.quest:
            raise ValueError("stage counts a quest's stages: give quest too")
        if not (self.quest or self.flag or self.location or self.met or self.check):
            raise ValueError("a beat's signal needs one of quest, flag, location, met or check")
        return self


class Episode(Strict):
    """``episodes.yaml``: a bounded story with a payoff: beats, a way to end, an evaluation and what comes next."""

    id: Id
    title: str
    premise: str = Field(..., description="one or two sentences: the situation the episode opens on")
    completion_mode: CompletionMode = Field(..., description="open: ends on the player's /end; turn_limited: after "
                                            "turn_budget story turns; beat_gated: when required_beat lands; "
                                            "objective: when the objective's flags are set")
    turn_budget: int | None = Field(None, ge=2, le=200, description="story turns: the length turn_limited runs; a "
                                    "hard limit for beat_gated and objective (the episode ends, unfinished); the "
                                    "pacing the director aims at for open (default 12)")
    completion_criteria: CompletionCriteria = CompletionCriteria()
    starts_at: EpisodeStart = EpisodeStart()
    next: list[Id] = Field(default_factory=list, description="episode ids suggested when this one ends, in order")
    progress_visible: bool = Field(False, description="show the player the beat and 'Episode 2 of 4' dots")
    hook: str | None = Field(None, description="one line offering this episode when it is suggested next")
    beats: dict[Beat, BeatSignal] = Field(default_factory=dict, description="what reaches each beat (complication, "
                                          "escalation, pivot, resolution), in any completion mode; a beat not named "
                                          "moves by the defaults (rules.episodes)")

    @property
    def pacing(self) -> int:
        """The story turns the beats are spread over."""
        return self.turn_budget or 12


class SceneOpens(Strict):
    """When a pack scene opens by itself, besides the player addressing its people as a group or confronting one of
    them at its location: every condition given must hold (with none given, only the talk opens it)."""

    flag: Id | None = Field(None, description="this story flag is set")
    event: Id | None = Field(None, description="this world event has fired (a once-only event, or one fired this "
                             "turn)")
    beat: Beat | None = Field(None, description="the running episode is at this beat")
    episode: Id | None = Field(None, description="this episode is running")


class SceneSpec(Strict):
    """``scenes.yaml``: a multi-character scene the moderator runs (``rules.moderator``)."""

    id: Id
    prompt: str = Field(..., max_length=300, description="what the scene is about and its goal, one or two "
                        "sentences; every character's agent reads it")
    location: Id = Field(..., description="where it plays")
    characters: list[Id] = Field(..., min_length=2, max_length=6, description="NPC and companion ids taking part")
    initial_speaker: Id | None = Field(None, description="who speaks first (default: the first character)")
    max_beats: int = Field(6, ge=1, le=40, description="beats before the moderator closes the scene")
    stall_beats: int = Field(2, ge=1, le=10, description="beats that move nothing before an event is injected")
    goal_flags: list[Id] = Field(default_factory=list, description="story flags that meet the goal, all of them")
    goal: QuestTrigger | None = Field(None, description="a player turn during the scene that meets the goal (the "
                                      "same conditions as a quest stage's when)")
    events: list[str] = Field(default_factory=list, description="world events the moderator injects, in order, when "
                              "the scene stalls: one sentence each, present tense")
    instructions: dict[Id, str] = Field(default_factory=dict, description="character id -> what they want or do in "
                                        "this scene, for their agent alone")
    lines: dict[Id, list[str]] = Field(default_factory=dict, description="character id -> things they say in this "
                                       "scene, about its matter; the offline characters say these first")
    opens_on: SceneOpens = SceneOpens()
    set_flag: Id | None = Field(None, description="a story flag set when the goal is met")


class Banter(Strict):
    """``banter.yaml``: an exchange between party members, used when every speaker is in the party."""

    id: Id
    speakers: list[Id] = Field(..., min_length=1, description="companion ids; all must be in the party")
    location_tags: list[str] = Field(default_factory=list, description="only at locations with one of these tags")
    lines: list[str] = Field(..., min_length=1, description="'Name: line' strings, spoken in order")


class DocMeta(Strict):
    """Front matter of a Markdown document under ``lore/``, ``style/`` or ``voices/``."""

    title: str
    doc_type: Literal["lore", "style", "voice"]
    section_kind: str = Field(..., description="history, place, faction, person, custom, tone, ...")
    tags: list[str] = Field(default_factory=list)
    related: list[Id] = Field(default_factory=list, description="ids of NPCs, companions, locations, factions, "
                              "quests or items this document is about")


class Doc(Strict):
    path: str = Field(..., description="relative to the pack folder, e.g. lore/the_rift.md")
    meta: DocMeta
    body: str


class NameBank(Strict):
    given: list[str] = Field(..., min_length=4)
    family: list[str] = Field(..., min_length=4)
    roles: list[str] = Field(..., min_length=2)
    looks: list[str] = Field(..., min_length=2, description="short descriptions for procedural NPCs")

    @field_validator("given", "family")
    @classmethod
    def _capitalised(cls, names: list[str]) -> list[str]:
        for name in names:
            if not name[:1].isupper():
                raise ValueError(f"names must start with a capital letter: {name!r}")
        return names


class EraPack(BaseModel):
    """A whole loaded pack. Built by ``skald.packs.loader.load_pack``; read-only at run time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    era: Era
    locations: dict[Id, Location]
    npcs: dict[Id, Npc]
    factions: dict[Id, Faction]
    companions: dict[Id, Companion]
    backgrounds: dict[Id, Background]
    rumors: dict[Id, Rumor]
    quests: dict[Id, Quest]
    events: dict[Id, WorldEvent] = Field(default_factory=dict)
    banter: dict[Id, Banter] = Field(default_factory=dict)
    episodes: dict[Id, Episode] = Field(default_factory=dict)
    scenes: dict[Id, SceneSpec] = Field(default_factory=dict)
    docs: dict[str, Doc] = Field(default_factory=dict, description="relative path -> document")
    namebank: NameBank
    content_hash: str
    layers: list[str] = Field(default_factory=list, description="pack ids, base first, when this is an overlay")
    warnings: list[str] = Field(default_factory=list, description="'file:line:column  field  message' for what "
                                "loads but is probably a mistake (an objective flag nothing sets)")

    @property
    def id(self) -> str:
        return self.era.id

    def person(self, person_id: Id) -> Npc | Companion | None:
        """The NPC or companion ``person_id`` (NPCs first); None when the pack has neither."""
        return self.npcs.get(person_id) or self.companions.get(person_id)

    @cached_property
    def items(self) -> dict[Id, Item]:
        return {item.id: item for item in self.era.items}
