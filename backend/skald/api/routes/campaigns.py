"""The API's routes for campaigns: starting one, deleting one, and what it holds (its state, scene, party, quests,
rumors, news, inventory, map and scene transcripts)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Response

from skald.api.deps import CAMPAIGN_ERRORS, GONE, Campaign, EngineDep, FrontendWords, create_limit
from skald.api.edge import StrictJsonRoute, answers, error
from skald.api.models import CreatedCampaign, NewCampaign
from skald.core.transcripts import SceneTranscript
from skald.core.views import (
    CampaignView,
    CompanionView,
    InventoryView,
    MapView,
    NewsView,
    QuestView,
    RumorsView,
    SceneView,
)
from skald.packs.map import MapError, player_svg
from skald.views import transcripts_markdown

router = APIRouter(route_class=StrictJsonRoute)


@router.post("/campaigns", response_model=CreatedCampaign, status_code=201, tags=["campaigns"],
             dependencies=[Depends(create_limit)],
             responses=answers(404, 422, 429, 503, when={404: "unknown pack",
                                                         503: "the era pack does not load on this server"}))
def create_campaign(engine: EngineDep, body: NewCampaign) -> dict[str, Any]:
    """Start a campaign. The answer's `token` is this campaign's secret; keep it. At most
    SKALD_API_CREATE_PER_MINUTE (10) a minute per client IP, and per bearer token if one is sent: over that,
    429 with `Retry-After`."""
    try:
        made = engine.create_campaign(body.pack, seed=body.seed, background=body.background, name=body.name,
                                      with_token=True)
    except ValueError as exc:  # an unknown background
        raise HTTPException(422, str(exc)) from None
    return {"campaign_id": made.state.campaign.id, "token": made.token, "state": made.view, "scene": made.scene}


@router.get("/campaigns/{campaign_id}", response_model=CampaignView, tags=["campaigns"], responses=CAMPAIGN_ERRORS)
def get_campaign(engine: EngineDep, campaign_id: Campaign) -> CampaignView:
    """The campaign's committed state."""
    return engine.view(campaign_id)


@router.get("/campaigns/{campaign_id}/scene", response_model=SceneView, tags=["campaigns"], responses=CAMPAIGN_ERRORS)
def scene(engine: EngineDep, campaign_id: Campaign, words: FrontendWords) -> SceneView:
    """Where the campaign stands, to show when a player comes back: the scene and the four suggestions that
    stand for the next turn (what 1-4 play)."""
    return engine.scene(campaign_id, words)


@router.delete("/campaigns/{campaign_id}", status_code=204, tags=["campaigns"],
               responses=answers(401, 404, 409, 422, 503, when={404: GONE, 409: "a turn is being played"}))
def delete_campaign(engine: EngineDep, campaign_id: Campaign) -> Response:
    """Delete the campaign and everything stored about it (one transaction). Its token stops working."""
    engine.delete_campaign(campaign_id)
    return Response(status_code=204)


@router.get("/campaigns/{campaign_id}/rumors", response_model=RumorsView, tags=["campaigns"],
            responses=CAMPAIGN_ERRORS)
def rumors(engine: EngineDep, campaign_id: Campaign) -> RumorsView:
    """Rumors the player has heard, and what the town talks about."""
    return engine.rumors(campaign_id)


@router.get("/campaigns/{campaign_id}/party", response_model=list[CompanionView], tags=["campaigns"],
            responses=CAMPAIGN_ERRORS)
def party(engine: EngineDep, campaign_id: Campaign) -> list[CompanionView]:
    """Companions the player has met; `in_party` for those travelling with them."""
    return engine.party(campaign_id)


@router.get("/campaigns/{campaign_id}/quests", response_model=list[QuestView], tags=["campaigns"],
            responses=CAMPAIGN_ERRORS)
def quests(engine: EngineDep, campaign_id: Campaign) -> list[QuestView]:
    """Quests taken on, with the current objective."""
    return engine.quests(campaign_id)


@router.get("/campaigns/{campaign_id}/scenes/{scene_id}/transcript", response_model=list[SceneTranscript],
            tags=["campaigns"], responses=answers(401, 404, 422, 503, when={
                404: "no such campaign, or the campaign has no scene with this id"}))
def scene_transcript(engine: EngineDep, campaign_id: Campaign, scene_id: Annotated[str, Path(max_length=200)],
                     fmt: Annotated[str, Query(alias="format", pattern="^(json|md)$")] = "json") -> Any:
    """A multi-character scene's transcript: the scene (place, characters, goal), every line by beat (speaker,
    target, tone, words, gesture) and how it ended. A scene opened twice (the player walked out and came back)
    has two. With `?format=md`, the same as text in the transcript format `skald transcript` prints."""
    found = engine.transcripts(campaign_id, scene_id)
    if not found:
        raise HTTPException(404, f"this campaign has no scene {scene_id!r}")
    if fmt == "md":
        return Response(transcripts_markdown(found), media_type="text/markdown; charset=utf-8")
    return found


@router.get("/campaigns/{campaign_id}/map", response_model=MapView, tags=["campaigns"], responses=CAMPAIGN_ERRORS)
def campaign_map(engine: EngineDep, campaign_id: Campaign) -> MapView:
    """The pack's locations and the links between them (travel minutes, risk), with where you are and where you
    have been on this branch: what the play page draws."""
    return engine.map(campaign_id)


@router.get("/campaigns/{campaign_id}/map.svg", response_class=Response, tags=["campaigns"], responses={
       200: {"content": {"image/svg+xml": {"schema": {"type": "string"}}},
             "description": "the map as SVG (Graphviz's drawing: no scripts, no style attributes)"},
       **answers(401, 404, 422, 503, when={404: GONE, 503: "the campaign's era pack does not load on this server, "
                                                           "or the server cannot draw maps (no Graphviz `dot`)"})})
def campaign_map_svg(engine: EngineDep, campaign_id: Campaign) -> Response:
    """The map of `/map` drawn: every place and way with its travel time and risk, where you are filled and
    where you have been shaded (SVG, laid out by Graphviz: `skald pack map ID --player` draws the same). 503
    when the server has no Graphviz `dot` program: draw `/map`'s data yourself then."""
    try:
        drawn = player_svg(engine.map(campaign_id))
    except MapError as exc:
        return error(503, str(exc))
    return Response(drawn, media_type="image/svg+xml")


@router.get("/campaigns/{campaign_id}/news", response_model=NewsView, tags=["campaigns"], responses=CAMPAIGN_ERRORS)
def news(engine: EngineDep, campaign_id: Campaign) -> NewsView:
    """What has happened in the world lately, oldest first."""
    return engine.news(campaign_id)


@router.get("/campaigns/{campaign_id}/inventory", response_model=InventoryView, tags=["campaigns"],
            responses=CAMPAIGN_ERRORS)
def inventory(engine: EngineDep, campaign_id: Campaign) -> InventoryView:
    """What the player carries, and their credits."""
    return engine.inventory(campaign_id)
