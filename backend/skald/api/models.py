"""Request bodies of the HTTP API and the views only the server has (packs, health, campaign list). Every game view
(turns, campaigns, party, quests, rumors, news, inventory, transcript) is one of ``skald.views``, the same the CLI
prints; together they make the OpenAPI schema at ``/openapi.json``."""

from __future__ import annotations

import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from skald.core.views import CampaignSummary, CampaignView, SceneView
from skald.engine import SEED_MAX
from skald.errors import PlayerInputError
from skald.rules import timeline
from skald.rules.player_input import check_player_input
from skald.settings import get_settings


def _category_c_class(allow: str = "") -> str:
    """A regex character class body (ECMA-262, Python and Rust syntax alike) of the Basic Multilingual Plane's
    control (Cc), format (Cf) and private-use (Co) characters, less ``allow``: what no text field may hold, as far
    as a portable pattern can say it. Format characters are the invisible ones: soft hyphen, zero-width space and
    joiners (U+200B-U+200D), direction marks, bidi embeddings and overrides (U+202A-U+202E), isolates
    (U+2066-U+2069), word joiner (U+2060), BOM (U+FEFF)."""
    spans: list[tuple[int, int]] = []
    for cp in range(0x10000):
        ch = chr(cp)
        if unicodedata.category(ch) in ("Cc", "Cf", "Co") and ch not in allow:
            if spans and spans[-1][1] == cp - 1:
                spans[-1] = (spans[-1][0], cp)
            else:
                spans.append((cp, cp))
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in spans)


_NOT_TEXT = _category_c_class()
_NOT_INPUT = _category_c_class(allow="\t\n\r")
NAME_PATTERN = f"^[^{_NOT_TEXT}]*[^{_NOT_TEXT}\\s][^{_NOT_TEXT}]*$"
"""A character name: no category C character of the BMP, and something other than spaces."""
INPUT_PATTERN = f"^(?:[^{_NOT_INPUT}\\r]|\\r\\n)*[^{_NOT_INPUT}\\s](?:[^{_NOT_INPUT}\\r]|\\r\\n)*$"
"""A turn's input: as a name, but tab, newline and CRLF line ends are allowed."""
BRANCH_PATTERN = f"^{timeline.NAME.pattern}$"
"""A branch name, as ``rules.timeline.NAME`` takes it: 1 to 40 letters, digits, '.', '_' or '-', starting with a
letter or digit."""
_RULE = ("no character of Unicode category C: control characters, invisible format characters (zero-width "
         "U+200B-U+200D, U+2060, U+FEFF; bidi embeddings and overrides U+202A-U+202E and isolates U+2066-U+2069), "
         "private-use and unassigned code points, lone surrogates (`pattern` spells out the assigned ones of the "
         "Basic Multilingual Plane; the others are refused too)")


def not_text(text: str, allow: str = "") -> list[str]:
    """The code points (``U+202E``) of ``text`` in Unicode category C, less ``allow``, in order of first use."""
    found = dict.fromkeys(f"U+{ord(ch):04X}" for ch in text if unicodedata.category(ch)[0] == "C" and ch not in allow)
    return list(found)


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewCampaign(_Request):
    pack: str = Field(min_length=1, max_length=64, description="era pack id (see GET /packs)",
                      examples=["cinder_reach"])
    background: str | None = Field(None, min_length=1, max_length=64,
                                   description="background id of that pack (default: its first background)")
    name: str = Field("Wren", min_length=1, max_length=40, pattern=NAME_PATTERN,
                      description=f"your character's name: 1-40 characters, not only spaces (trimmed); {_RULE}")
    seed: int | None = Field(None, ge=0, le=SEED_MAX, description="campaign seed (default: random)")

    @field_validator("name", mode="before")
    @classmethod
    def _plain_name(cls, value: Any) -> Any:
        if isinstance(value, str):
            if bad := not_text(value):
                raise PydanticCustomError("character_name", "the name must be plain text, without control or "
                                          "invisible characters ({found})", {"found": ", ".join(bad[:5])})
            if not value.strip():
                raise PydanticCustomError("character_name", "the name must not be blank")
        return value

    @field_validator("name")
    @classmethod
    def _trimmed(cls, value: str) -> str:
        return value.strip()


def _input_length(schema: dict[str, Any]) -> None:
    schema["maxLength"] = get_settings().max_input_chars  # the bound the validator applies (SKALD_MAX_INPUT_CHARS)


class TurnRequest(_Request):
    input: str = Field(min_length=1, pattern=INPUT_PATTERN, json_schema_extra=_input_length,
                       description="what the player types: an action, speech, or a /command; not blank (trimmed), "
                                   "at most SKALD_MAX_INPUT_CHARS (2,000) characters; tab, newline and CRLF are "
                                   f"allowed, otherwise {_RULE}",
                       examples=["look around"])
    expected_turn: int | None = Field(None, ge=0, description="the campaign's turn number as the client last saw it; "
                                      "when the campaign has moved on, the turn is refused with 409")
    branch: str | None = Field(None, min_length=1, max_length=40, pattern=BRANCH_PATTERN,
                               description="play on this branch of the campaign's turn tree (default: the current "
                                           "one); the current branch stays as it is")

    @field_validator("input", mode="before")
    @classmethod
    def _playable(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return check_player_input(value, get_settings().max_input_chars)
        except PlayerInputError as exc:
            raise PydanticCustomError("player_input", "{reason}", {"reason": str(exc)}) from None


class TimelineRequest(_Request):
    """Where a timeline command applies: a branch (default: the current one) and, optionally, the head turn number the
    client last saw on it (409 when it moved)."""

    branch: str | None = Field(None, min_length=1, max_length=40, pattern=BRANCH_PATTERN,
                               description="the branch (default: the current one)")
    expected_turn: int | None = Field(None, ge=0, description="the branch's head turn number as the client last saw "
                                      "it; when it has moved, the command is refused with 409")


class StepsRequest(TimelineRequest):
    turns: int = Field(1, ge=1, le=10**6, description="how many turns to move the head by")


class PickRequest(TimelineRequest):
    variant: int = Field(ge=0, description="the variant of the head turn to go to (see `variant` in the transcript)")


class ForkRequest(_Request):
    name: str = Field(min_length=1, max_length=40, pattern=BRANCH_PATTERN, description="the new branch's name",
                      examples=["bolder-plan"])
    at_turn: int | None = Field(None, ge=0, description="the turn of the current branch it starts at (default: its "
                                "head; up to what /redo could reach)")
    expected_turn: int | None = Field(None, ge=0, description="the current branch's head turn number as the client "
                                      "last saw it")


class CreatedCampaign(BaseModel):
    campaign_id: str
    token: str = Field(description="this campaign's secret: send it as `Authorization: Bearer <token>`; it is shown "
                                   "once and stored only as a hash")
    state: CampaignView
    scene: SceneView = Field(description="the opening scene, with the four suggestions for the first turn")


class SetupFinished(CreatedCampaign):
    character: dict[str, Any] = Field(description="the character sheet the setup settled (name, pronouns, concept, "
                                      "background, start_location, hook, tone, limits, boons)")
    summary: str = Field(description="the summary, kept as the character's first memory")


class LocationRef(BaseModel):
    id: str
    name: str


class BackgroundView(BaseModel):
    id: str
    name: str
    description: str
    start_location: LocationRef | None = Field(description="where this background starts (else one of the pack's "
                                                           "start locations, chosen by the seed)")


class PackView(BaseModel):
    id: str
    name: str
    era: str
    tone: str
    backgrounds: list[BackgroundView]
    start_locations: list[LocationRef]


class RoleHealth(BaseModel):
    model: str | None = Field(description="the model (null without the admin key)")
    base_url: str | None = Field(description="its Ollama server (null without the admin key)")
    enabled: bool
    reachable: bool | None = Field(description="null when the server plays offline or the role is disabled")
    detail: str | None = Field(description="what the probe found, naming the server (null without the admin key)")


class DbHealth(BaseModel):
    ok: bool
    schema_version: int | None
    detail: str


class LlmHealth(BaseModel):
    online: bool
    detail: str | None = Field(description="the LLM mode, naming the narrator's model (null without the admin key)")
    roles: dict[str, RoleHealth]


class Health(BaseModel):
    """``GET /health``. Without the admin key it names no model, URL or file: those fields are null and each pack's
    errors are summed up in one line."""

    status: Literal["ok", "degraded"]
    db: DbHealth
    llm: LlmHealth
    pack_errors: dict[str, list[str]] = Field(description="packs whose last edit was refused (--reload-packs): the "
                                              "problems with the admin key, else how many there are")


class CampaignList(BaseModel):
    campaigns: list[CampaignSummary]


class FieldError(BaseModel):
    loc: list[str] = Field(description="where: body, query, header or path, then the field")
    msg: str
    type: str


class ErrorBody(BaseModel):
    """Every error response: ``detail`` says what went wrong and what to do."""

    detail: str
    turn_number: int | None = Field(None, description="on 409: the campaign's current turn number")
    errors: list[FieldError] | None = Field(None, description="on 422: each invalid field")
    reason: str | None = Field(None, description="on 503 from the save file: locked, disk_full, io, read_only, "
                               "corrupt, not_a_database, newer_schema or cannot_open")


class StreamProgress(BaseModel):
    """``event: progress``: a graph node finished."""

    node: str


class StreamToken(BaseModel):
    """``event: token``: narration as the model writes it."""

    text: str


class StreamEpisodeComplete(BaseModel):
    """``event: episode_complete``: the running episode ended with this turn; sent after the narration and before
    ``turn`` (whose ``episode`` carries the same evaluation)."""

    episode: str
    trigger: str = Field(description="turn_limit | beat_complete | objective_met | player_end")
    evaluation: dict[str, Any] = Field(description="the EpisodeEvaluation, as in TurnView.episode.evaluation")


class StreamReplace(BaseModel):
    """``event: replace``: the narration streamed so far is withdrawn; show ``text`` instead (the model's reply broke
    off with nothing usable, or claimed an outcome the rules did not give). Sent before ``turn``, whose ``text``
    and ``prose_replaced`` agree with it."""

    text: str
    reason: str = Field(description="why, in a sentence for the log or a debug view")


class StreamError(BaseModel):
    """``event: error``: the streamed turn failed after the stream began; the stream ends with it."""

    status: Literal[409, 422, 500, 503] = Field(description="409: another turn committed first; 422: the "
                                                "Idempotency-Key was used for another input; 500: internal error; "
                                                "503: the server's save file could not take the turn")
    detail: str
    turn_number: int | None = Field(description="on 409: the campaign's turn number now")


class StreamCancelled(BaseModel):
    """The turn was stopped before it was saved (POST .../cancel): nothing was played."""

    detail: str
    turn_number: int = Field(description="the turn the campaign still stands at")


class CancelReply(BaseModel):
    """What asking a turn to stop did (``Engine.cancel``)."""

    state: Literal["stopping", "too_late", "none"] = Field(
        description="stopping: the turn ends unsaved; too_late: it was already being saved; none: no turn is playing")
