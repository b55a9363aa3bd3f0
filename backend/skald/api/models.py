"""Request bodies of the HTTP API and the views only the server has (packs, health, campaign list). Every game view
(turns, campaigns, party, quests, rumors, news, inventory, transcript) is one of ``skald.views``, the same the CLI
prints; together they make the OpenAPI schema at ``/openapi.json``."""

from __future__ import annotations

import unicodedata
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from skald.engine import SEED_MAX
from skald.errors import PlayerInputError
from skald.rules.player_input import check_player_input
from skald.settings import get_settings
from skald.views import CampaignSummary, CampaignView, SceneView


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewCampaign(_Request):
    pack: str = Field(min_length=1, max_length=64, description="era pack id (see GET /packs)",
                      examples=["cinder_reach"])
    background: str | None = Field(None, min_length=1, max_length=64,
                                   description="background id of that pack (default: its first background)")
    name: str = Field("Wren", min_length=1, max_length=40, description="your character's name")
    seed: int | None = Field(None, ge=0, le=SEED_MAX, description="campaign seed (default: random)")

    @field_validator("name")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        if any(unicodedata.category(ch).startswith("C") for ch in value) or not value.strip():
            raise PydanticCustomError("character_name", "the name must be plain text without control characters")
        return value.strip()


class TurnRequest(_Request):
    input: str = Field(description="what the player types: an action, speech, or a /command; not empty, at most "
                                   "SKALD_MAX_INPUT_CHARS (2,000) characters, no control characters",
                       examples=["look around"])
    expected_turn: int | None = Field(None, ge=0, description="the campaign's turn number as the client last saw it; "
                                      "when the campaign has moved on, the turn is refused with 409")

    @field_validator("input")
    @classmethod
    def _playable(cls, value: str) -> str:
        try:
            return check_player_input(value, get_settings().max_input_chars)
        except PlayerInputError as exc:
            raise PydanticCustomError("player_input", "{reason}", {"reason": str(exc)}) from None


class CreatedCampaign(BaseModel):
    campaign_id: str
    token: str = Field(description="this campaign's secret: send it as `Authorization: Bearer <token>`; it is shown "
                                   "once and stored only as a hash")
    state: CampaignView
    scene: SceneView = Field(description="the opening scene, with the four suggestions for the first turn")


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
    model: str
    base_url: str
    enabled: bool
    reachable: bool | None = Field(description="null when the server plays offline")
    detail: str


class DbHealth(BaseModel):
    ok: bool
    schema_version: int | None
    detail: str


class LlmHealth(BaseModel):
    online: bool
    detail: str
    roles: dict[str, RoleHealth]


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    db: DbHealth
    llm: LlmHealth
    pack_errors: dict[str, list[str]] = Field(description="packs whose last edit was refused (--reload-packs)")


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
