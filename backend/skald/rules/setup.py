"""Guided creation of a character and campaign (``skald new``, ``docs/setup.md``): the artifact, its validation
against the pack, the offline question chain, and the starting state it makes.

- :class:`CharacterSheet` is what creation settles, whichever way it ran: name, pronouns, concept, background,
  starting location, personal hook, tone and content limits, and the boons the background's questions granted.
- :func:`submit_schema` is the finalization tool's argument schema for one pack: background and location are
  ``Literal`` types of the pack's real ids, so the validation feedback's ``requirement`` lists the allowed ids.
- :func:`questions` is the offline chain: name, pronouns, background, then the chosen background's ``questions``
  (``core.pack.BackgroundQuestion``), then tone and limits. :func:`answer` folds one answer into a draft.
- :func:`apply` turns a sheet into the campaign's starting state (``rules.start.new_state`` plus the sheet), and
  :func:`memory` the summary into the character's first episodic memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from skald.core.memo import per_pack
from skald.core.pack import EraPack
from skald.core.persistent import Profile
from skald.core.state import GameState
from skald.rules import pronouns, suggestions
from skald.rules.scene import everyone_at
from skald.rules.start import new_state, starting_reputation
from skald.text import the_place

NAME = re.compile(r"^[A-Za-z][A-Za-z .'\-]{0,39}$")
LIMITS = ("none", "no gore", "no harm to children", "no sexual content", "no torture")
TONES = ("as the pack has it", "grim", "hopeful", "wry")


class Boons(BaseModel):
    """What a background question's answers added to the background's own."""

    model_config = ConfigDict(extra="forbid")

    credits: int = 0
    items: list[str] = Field(default_factory=list)
    reputation: dict[str, int] = Field(default_factory=dict)


class CharacterSheet(BaseModel):
    """The artifact of guided creation (``submit_character``'s arguments, validated)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the character's name: letters, spaces, apostrophes, hyphens; at most 40")
    pronouns: str = Field("they/them", description="she/her, he/him, they/them, or one's own like xe/xem/xyr")
    concept: str = Field("", max_length=200, description="the character in one sentence")
    background: str = Field(description="a background id of the pack")
    start_location: str | None = Field(None, description="a location id where the story starts (default: the "
                                       "background's, else the pack's)")
    hook: str = Field("", max_length=200, description="one sentence: the personal thread that pulls them in")
    tone: str = Field("", max_length=80, description="the tone the player wants (grim, hopeful, wry...)")
    limits: list[str] = Field(default_factory=list, max_length=6, description="content the narration must leave "
                              "out, each a few words ('gore')")
    boons: Boons = Field(default_factory=Boons, description="added by the background's questions")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        value = " ".join(value.split())
        if not NAME.match(value):
            raise ValueError("a name of letters, spaces, apostrophes and hyphens, starting with a letter, at most "
                             "40 characters")
        return value

    @field_validator("pronouns")
    @classmethod
    def _pronouns(cls, value: str) -> str:
        value = value.strip().lower()
        if not pronouns.valid(value):
            raise ValueError("two to four words separated by slashes: she/her, he/him, they/them, xe/xem/xyr")
        return value

    @field_validator("limits")
    @classmethod
    def _limits(cls, value: list[str]) -> list[str]:
        out = [" ".join(v.split())[:60] for v in value if v.strip() and v.strip().lower() != "none"]
        return list(dict.fromkeys(out))


@per_pack
def submit_schema(pack: EraPack) -> type[BaseModel]:
    """``submit_character``'s arguments for ``pack``: the sheet, with background and location as the pack's ids
    (built once per pack version)."""
    backgrounds = tuple(pack.backgrounds)
    places = tuple(pack.locations)
    return create_model(
        "submit_character", __base__=CharacterSheet, __doc__="Submit the character, once everything is settled.",
        background=(Literal[backgrounds], Field(description=f"a background id: one of {', '.join(backgrounds)}")),
        start_location=(Literal[places] | None, Field(None, description=f"a location id: one of {', '.join(places)}")),
        boons=(Boons, Field(default_factory=Boons, description="leave empty")),
    )


def check(sheet: CharacterSheet, pack: EraPack) -> list[dict[str, Any]]:
    """Problems with ids a sheet made outside the tool names (boons' items and factions), as feedback entries."""
    out = []
    for item in sheet.boons.items:
        if item not in pack.items:
            out.append({"field": "boons.items", "provided": item, "problem": "not an item of this pack",
                        "requirement": f"one of {', '.join(pack.items)}"})
    for faction in sheet.boons.reputation:
        if faction not in pack.factions:
            out.append({"field": "boons.reputation", "provided": faction, "problem": "not a faction of this pack",
                        "requirement": f"one of {', '.join(pack.factions)}"})
    return out


# ------------------------------------------------------------------------------------------------ offline chain


@dataclass(frozen=True)
class Option:
    """A choice: ``label`` as players read it (never an id), ``about`` what it means (may be empty), ``value`` what the
    draft stores, ``effects`` what it gives."""

    label: str
    value: str
    effects: dict[str, Any] = field(default_factory=dict)
    about: str = ""


@dataclass(frozen=True)
class Question:
    """One question of the offline chain: free text (``options`` empty), a choice, or a choice that takes free text
    too (``free``: the pronouns); ``default`` answers an empty line. ``required``: a character needs an answer of
    its own before the chain may be finished early (the rest take their defaults)."""

    id: str
    text: str
    default: str
    options: tuple[Option, ...] = ()
    free: bool = False
    required: bool = False

    @property
    def takes_text(self) -> bool:
        return self.free or not self.options

    @property
    def default_label(self) -> str:
        """The default as players read it: its option's label, or the text itself."""
        return next((o.label for o in self.options if self.default in (o.value, o.label)), self.default)


class NotAChoice(ValueError):
    """An answer to a choice-only question that is none of its choices (nothing is changed)."""


PRONOUNS = ("she/her", "he/him", "they/them")


def questions(pack: EraPack, draft: dict[str, Any]) -> list[Question]:
    """The questions still to ask, given the answers in ``draft`` (the chosen background decides its own)."""
    asked: list[Question] = [
        Question("name", "What is your character's name?", "Wren", required=True),
        Question("pronouns", "Their pronouns (she/her, he/him, they/them, or your own, like xe/xem/xyr)?",
                 "they/them", tuple(Option(p, p) for p in PRONOUNS), free=True, required=True),
        Question("background", "Who were they before this?", next(iter(pack.backgrounds)),
                 tuple(Option(b.name, b.id, about=b.description) for b in pack.backgrounds.values()), required=True),
    ]
    background = pack.backgrounds.get(draft.get("background") or next(iter(pack.backgrounds)))
    for q in background.questions if background else []:
        asked.append(Question(f"q:{q.id}", q.text, q.choices[0].label,
                              tuple(Option(c.label, c.label, c.effects.model_dump(exclude_defaults=True))
                                    for c in q.choices)))
    asked += [Question("tone", "What tone do you want?", TONES[0], tuple(Option(t, t) for t in TONES)),
              Question("limits", "Anything the story must leave out?", LIMITS[0], tuple(Option(x, x) for x in LIMITS))]
    return [q for q in asked if q.id not in draft.get("_answered", [])]


def may_finish(pack: EraPack, draft: dict[str, Any]) -> bool:
    """Whether every required question (name, pronouns, background) has its answer: the rest may take defaults."""
    return not any(q.required for q in questions(pack, draft))


def answer(draft: dict[str, Any], question: Question, text: str, *, strict: bool = False) -> dict[str, Any]:
    """``draft`` with ``text`` as the answer to ``question``: an empty answer takes the default; a number or a label
    (or, for a background, its id) picks an option; other text is the answer where the question takes text.

    :raises NotAChoice: ``strict``, and text that is none of a choice-only question's options (without ``strict``
        such an answer takes the default, as a script's line does).
    """
    text = " ".join((text or "").split())
    chosen = question.default if not text else text
    option = None
    if question.options:
        by_number = {str(i + 1): o for i, o in enumerate(question.options)}
        option = by_number.get(chosen) or next(
            (o for o in question.options if chosen.lower() in (o.value.lower(), o.label.lower())), None)
        if option is None and not question.free:
            if strict:
                listed = "; ".join(f"{i + 1}. {o.label}" for i, o in enumerate(question.options))
                raise NotAChoice(f"{text!r} is not one of the choices: answer with one of them ({listed}), or "
                                 f"nothing for {question.default_label}")
            option = next(o for o in question.options if question.default in (o.value, o.label))
        chosen = option.value if option is not None else chosen
    if question.id == "pronouns" and option is None and not pronouns.valid(chosen):
        if strict:
            raise NotAChoice(f"{text!r} does not read as pronouns: answer like she/her, he/him, they/them or your "
                             "own (xe/xem/xyr), or nothing for they/them")
        chosen = question.default
    out = {**draft, "_answered": [*draft.get("_answered", []), question.id]}
    if question.id in ("name", "pronouns", "background"):
        out[question.id] = chosen
    elif question.id == "tone":
        out["tone"] = "" if chosen == TONES[0] else chosen
    elif question.id == "limits":
        out["limits"] = [] if chosen == "none" else [chosen]
    elif option is not None:
        effects = option.effects
        boons = dict(out.get("boons") or {})
        boons["credits"] = boons.get("credits", 0) + effects.get("credits", 0)
        boons["items"] = [*boons.get("items", []), *effects.get("items", [])]
        boons["reputation"] = {**boons.get("reputation", {}), **effects.get("reputation", {})}
        out["boons"] = boons
        out["start_location"] = effects.get("start_location", out.get("start_location"))
        out["hook"] = effects.get("hook", out.get("hook", ""))
        out["answers"] = [*out.get("answers", []), f"{question.text} {option.label}"]
    return out


def sheet_of(draft: dict[str, Any], pack: EraPack) -> CharacterSheet:
    """The sheet the offline chain's answers make (a name the sheet refuses becomes the default's).

    :raises pydantic.ValidationError: never for answers the chain accepted."""
    name = draft.get("name") or "Wren"
    background = pack.backgrounds[draft.get("background") or next(iter(pack.backgrounds))]
    concept = f"{background.name}. " + " ".join(draft.get("answers", []))
    return CharacterSheet(
        name=name if NAME.match(" ".join(name.split())) else "Wren",
        pronouns=draft.get("pronouns") if pronouns.valid(draft.get("pronouns") or "") else "they/them",
        concept=concept[:200].strip(), background=background.id, start_location=draft.get("start_location"),
        hook=draft.get("hook") or "", tone=draft.get("tone") or "", limits=draft.get("limits") or [],
        boons=Boons(**(draft.get("boons") or {})))


def summary_of(sheet: CharacterSheet, pack: EraPack) -> str:
    """A plain summary of the sheet (the offline chain's Summarize)."""
    bg = pack.backgrounds[sheet.background]
    start = the_place(pack.locations[sheet.start_location]) if sheet.start_location else None
    parts = [f"{sheet.name} ({sheet.pronouns}), {bg.name.lower()}."]
    parts += [sheet.hook] if sheet.hook else []
    parts += [f"The story starts at {start}."] if start else []
    parts += [f"Tone: {sheet.tone}."] if sheet.tone else []
    parts += [f"Leave out: {', '.join(sheet.limits)}."] if sheet.limits else []
    return " ".join(parts)


# ------------------------------------------------------------------------------------------------ the campaign


def apply(pack: EraPack, sheet: CharacterSheet, *, seed: int, campaign_id: str | None = None) -> GameState:
    """The starting state of a campaign for ``sheet``: the background's (``rules.start.new_state``), with the name,
    the profile, the starting location, and the boons added (credits never below 0, reputation clamped -10..10).

    :raises ValueError: an id not in the pack (a sheet made outside :func:`submit_schema`).
    """
    if sheet.start_location is not None and sheet.start_location not in pack.locations:
        raise ValueError(f"unknown location {sheet.start_location!r}")
    problems = check(sheet, pack)
    if problems:
        raise ValueError("; ".join(f"{p['field']}: {p['provided']}: {p['problem']}" for p in problems))
    state = new_state(pack, seed=seed, background=sheet.background, name=sheet.name, campaign_id=campaign_id)
    inventory = dict(state.player.inventory)
    for item in sheet.boons.items:
        inventory[item] = inventory.get(item, 0) + 1
    rep = starting_reputation(pack, {**pack.backgrounds[sheet.background].reputation})
    for faction, delta in sheet.boons.reputation.items():
        rep[faction] = max(-10, min(10, rep.get(faction, 0) + delta))
    profile = Profile(pronouns=sheet.pronouns, concept=sheet.concept, hook=sheet.hook, tone=sheet.tone,
                      limits=list(sheet.limits))
    player = state.player.model_copy(update={
        "credits": max(0, state.player.credits + sheet.boons.credits), "inventory": dict(sorted(inventory.items())),
        "profile": profile})
    state = state.model_copy(update={"player": player, "reputation": dict(sorted(rep.items())),
                                     "location": sheet.start_location or state.location})
    offer, _ = suggestions.suggest(state, pack, everyone_at(state, pack, state.location))
    return state.model_copy(update={"offer": offer})


def memory(summary: str, sheet: CharacterSheet) -> str:
    """The character's first episodic memory: the creation summary (or the sheet's concept and hook)."""
    text = " ".join(summary.split()) or " ".join(p for p in (sheet.concept, sheet.hook) if p)
    return f"Before the story: {text}"[:600]


# ------------------------------------------------------------------------------------------------ content limits

# words a limit stands for, beyond its own ("no gore" keeps blood out too); Skald's own lists
LIMIT_WORDS = {"gore": ("gore", "gory", "blood", "bloody", "bleed", "bleeding", "guts", "entrails", "gash", "viscera"),
               "torture": ("torture", "tortured", "torturing"), "sexual": ("sexual", "sex", "naked", "nude")}
_STOP = {"no", "not", "any", "content", "the", "and", "harm", "please", "none", "avoid", "without"}


@lru_cache(maxsize=256)
def _limit_pattern(limits: tuple[str, ...]) -> re.Pattern[str] | None:
    words: set[str] = set()
    for limit in limits:
        for word in re.findall(r"[a-z]{3,}", limit.lower()):
            if word not in _STOP:
                words.add(word)
                words.update(LIMIT_WORDS.get(word, ()))
    if not words:
        return None
    return re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, words))) + r")s?\b", re.IGNORECASE)


def limit_pattern(limits: list[str]) -> re.Pattern[str] | None:
    """What the player's content limits keep out of the prose, as one pattern of words (None without limits):
    each limit's own words, and for a few (gore, torture, sexual content) the words that go with them."""
    return _limit_pattern(tuple(limits))
