"""The API's routes for administration: listing every campaign (the admin key)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request

from skald.api.deps import Credentials, EngineDep, is_admin
from skald.api.edge import StrictJsonRoute, answers
from skald.api.models import CampaignList

router = APIRouter(route_class=StrictJsonRoute)


@router.get("/campaigns", response_model=CampaignList, tags=["admin"],
            responses=answers(401, 403, when={401: "missing or invalid admin key", 403: "no admin key is set"}))
def list_campaigns(engine: EngineDep, request: Request, credentials: Credentials) -> dict:
    """Every campaign in the save file; needs the server's admin key (SKALD_ADMIN_KEY) as the bearer token."""
    if request.app.state.admin_hash is None:
        raise HTTPException(403, "listing campaigns is off: start the server with SKALD_ADMIN_KEY set")
    if not is_admin(request, credentials):
        raise HTTPException(401, "missing or invalid admin key", headers={"WWW-Authenticate": "Bearer"})
    return {"campaigns": engine.campaigns()}
