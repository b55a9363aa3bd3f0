"""The API's routes for episodes: the running one, the finished ones' results, and what can be played next."""

from __future__ import annotations

from fastapi import APIRouter

from skald.api.deps import CAMPAIGN_ERRORS, Campaign, EngineDep
from skald.api.edge import StrictJsonRoute
from skald.core.views import EpisodesView

router = APIRouter(route_class=StrictJsonRoute)


@router.get("/campaigns/{campaign_id}/episodes", response_model=EpisodesView, tags=["campaigns"],
            responses=CAMPAIGN_ERRORS)
def episodes(engine: EngineDep, campaign_id: Campaign) -> EpisodesView:
    """The running episode, how each finished one went (its evaluation, with a `share_id`), and what can be
    played next: post a turn whose input is `/next` (the suggested one) or `/next ID`."""
    return engine.episodes(campaign_id)
