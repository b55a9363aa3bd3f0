"""The Director's scene brief: a small typed note the narrator (the "actor") reads on every turn and never narrates.

A :class:`SceneBrief` is written once per scene (``rules.brief.scene_key``): by the ``director`` LLM role as a
:class:`BriefDraft` merged into the deterministic brief (``rules.brief.offline_brief``), or by that builder alone.
Each turn then rebuilds only its per-turn parts (``must_convey``, ``companion_mood``, the verdict of a rumor heard
this turn) and the narrator gets it as a marked user-side block (:func:`whisper`).

Caps (validated; a model's draft that overruns them gets ``llm.feedback``'s validation feedback and a retry):
summary at most 3 sentences and 400 characters; at most 5 key facts, 3 must-convey facts, 3 NPC intentions,
3 suggested topics and 3 secrets; the whole brief as the narrator reads it at most :data:`BRIEF_TOKENS` tokens by
``llm.budget.estimate_tokens`` (four characters a token).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from skald.text import estimate_tokens, sentences

BRIEF_TOKENS = 500  # the whole brief, as the narrator reads it
DRAFT_TOKENS = 260  # the model's part: leaves room for the deterministic parts under BRIEF_TOKENS
MARKER = "[SCENE BRIEF \u2014 DO NOT NARRATE]"
END_MARKER = "[END OF SCENE BRIEF]"
# The words of the block the narrator must never echo: the markers, the field names and the block's labels.
FIELD_NAMES = ("generated_at_turn", "scene_key", "focus", "summary", "key_facts", "must_convey", "npc_intentions",
               "companion_mood", "suggested_topics", "do_not_reveal")
LABELS = ("scene brief", "do not narrate", "end of scene brief", "keep in mind:", "this turn must convey",
          "must convey", "keep secret", "do not reveal", "key facts", "npc intentions", "suggested topics",
          "companion mood", "the player may raise")
Attitude = Literal["hostile", "wary", "neutral", "friendly"]
SUMMARY_SENTENCES = 3


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Focus(Strict):
    """Where the scene is and who it turns on."""

    location: str = Field(description="location id")
    place: str = Field(description="the location's name")
    npc: str | None = Field(None, description="id of the NPC the scene turns on, if any")
    name: str | None = Field(None, description="that NPC's name")


class NpcIntention(Strict):
    npc_id: str
    wants: str = Field(max_length=160, description="what they want out of this scene, as it reads after 'wants'")
    attitude: Attitude = Field(description="how they feel about the player (rules.attitude)")


class CompanionMood(Strict):
    tension: int = Field(ge=0, le=10, description="inter-party tension, 0..10")
    last_reaction: str | None = Field(None, max_length=200, description="the party's last reaction to the player")


class Secret(Strict):
    """Something the narrator must keep. ``about`` is set when the secret is a verdict on a story that may be told
    (a rumor's truth): telling the story is fine, saying whether it is true is the leak."""

    text: str = Field(max_length=300)
    about: str | None = Field(None, max_length=300, description="the story the verdict is about")


class SceneBrief(Strict):
    """One scene's brief. Shapes and caps: see the module docstring."""

    generated_at_turn: int = Field(ge=0, description="the turn the scene-level parts were written on")
    scene_key: str
    focus: Focus | None = None
    summary: str = Field(max_length=400, description="at most 3 sentences")
    key_facts: list[str] = Field(default_factory=list, max_length=5)
    must_convey: list[str] = Field(default_factory=list, max_length=3,
                                   description="facts this turn's outcome requires the prose to tell")
    npc_intentions: list[NpcIntention] = Field(default_factory=list, max_length=3)
    companion_mood: CompanionMood | None = None
    suggested_topics: list[str] = Field(default_factory=list, max_length=3)
    do_not_reveal: list[Secret] = Field(default_factory=list, max_length=3)

    @model_validator(mode="after")
    def _caps(self) -> SceneBrief:
        if len(sentences(self.summary)) > SUMMARY_SENTENCES:
            raise ValueError(f"summary: at most {SUMMARY_SENTENCES} sentences")
        if self.tokens > BRIEF_TOKENS:
            raise ValueError(f"the brief is {self.tokens} tokens; at most {BRIEF_TOKENS}")
        return self

    @property
    def tokens(self) -> int:
        """The brief's size as the narrator reads it (``llm.budget.estimate_tokens`` of :func:`whisper`)."""
        return estimate_tokens(whisper(self))

    def scene_part(self) -> SceneBrief:
        """The brief without its per-turn parts: what is cached and reused for the scene."""
        return self.model_copy(update={"must_convey": [], "companion_mood": None})


class DraftIntention(Strict):
    npc_id: str = Field(description="the id of a person present, exactly as listed")
    wants: str = Field(max_length=120, description="what they want out of this scene, as it reads after 'wants'")


class BriefDraft(Strict):
    """The ``director`` role's reply: the interpretive parts of a scene brief. The engine adds the rest (focus,
    must-convey facts, attitudes, the party's mood, secrets) from the rules."""

    summary: str = Field(max_length=400, description="the scene in at most 3 sentences, for the narrator")
    key_facts: list[str] = Field(max_length=5, description="at most 5 short facts the narrator should keep in mind")
    npc_intentions: list[DraftIntention] = Field(max_length=3, description="at most 3: what people present want")
    suggested_topics: list[str] = Field(max_length=3, description="at most 3 things the player might raise here")

    @model_validator(mode="after")
    def _caps(self) -> BriefDraft:
        if len(sentences(self.summary)) > SUMMARY_SENTENCES:
            raise ValueError(f"summary: at most {SUMMARY_SENTENCES} sentences")
        for fact in [*self.key_facts, *self.suggested_topics]:
            if len(fact) > 160:
                raise ValueError(f"each fact and topic at most 160 characters: {fact[:40]!r}...")
        size = estimate_tokens(self.model_dump_json())
        if size > DRAFT_TOKENS:
            raise ValueError(f"the draft is {size} tokens; at most {DRAFT_TOKENS}: shorten the summary and facts")
        return self


def whisper(brief: SceneBrief, names: dict[str, str] | None = None, extra: list[str] = ()) -> str:
    """The brief as the narrator reads it: a block between :data:`MARKER` and :data:`END_MARKER`, plain labels, one
    item a line. ``names``: NPC id -> name (default: the ids). ``extra``: per-turn lines put first (beat, mood,
    episode, a companion line to include)."""
    names = names or {}
    lines = [MARKER, *extra, f"Scene: {brief.summary}"]
    if brief.focus is not None:
        who = brief.focus.name or names.get(brief.focus.npc or "", brief.focus.npc)
        lines.append(f"Focus: {who} at {brief.focus.place}." if who else f"Focus: {brief.focus.place} itself.")
    lines += _items("Keep in mind:", brief.key_facts)
    lines += _items("This turn must convey:", brief.must_convey)
    if brief.npc_intentions:
        lines.append("People:")
        lines += [f"- {names.get(i.npc_id, i.npc_id)} wants {i.wants} ({i.attitude} toward the player)."
                  for i in brief.npc_intentions]
    if brief.companion_mood is not None:
        mood = brief.companion_mood
        lines.append(party_line(mood))
    lines += _items("The player may raise:", brief.suggested_topics)
    lines += _items("Keep secret (never state, confirm or deny):", [s.text for s in brief.do_not_reveal])
    return "\n".join([*lines, END_MARKER])


def party_line(mood: CompanionMood) -> str:
    """The party's mood as the narrator reads it: 'Party: tension 4/10; last: Rhea scoffed.'"""
    return f"Party: tension {mood.tension}/10" + (f"; last: {mood.last_reaction}" if mood.last_reaction else "") + "."


def _items(label: str, items: list[str]) -> list[str]:
    return [label, *(f"- {item}" for item in items)] if items else []
