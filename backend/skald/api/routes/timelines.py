"""The API's routes for the timeline: undo, redo, retry, variants and branches."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse

from skald.api.deps import (
    CAMPAIGN_ERRORS,
    TIMELINE_ERRORS,
    BranchPath,
    Campaign,
    EngineDep,
    FrontendWords,
    IdempotencyKey,
    answer_played,
)
from skald.api.edge import StrictJsonRoute
from skald.api.models import (
    ForkRequest,
    PickRequest,
    StepsRequest,
    TimelineRequest,
)
from skald.core.views import (
    BranchView,
    TurnView,
)
from skald.engine import Engine
from skald.words import Words

log = logging.getLogger("skald.api")


router = APIRouter(route_class=StrictJsonRoute)


def timeline_command(engine: Engine, campaign_id: str, command: str, body: TimelineRequest | ForkRequest,
                     key: str | None, words: Words, status: int = 200) -> JSONResponse:
    branch = getattr(body, "branch", None)
    played = engine.timeline(campaign_id, command, branch=branch, key=key, expected=body.expected_turn,
                             words=words)
    return answer_played(played, status)


@router.post("/campaigns/{campaign_id}/undo", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
def undo(engine: EngineDep, campaign_id: Campaign, body: StepsRequest, words: FrontendWords,
           idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Move the branch's head back `turns` turns (at most to the start). Nothing is deleted: `redo` replays them,
    and a turn played now starts a new path (the old one stays, as a variant). Answers with the scene at the new
    head and its four suggestions (`turn_number` is the head's)."""
    return timeline_command(engine, campaign_id, f"/undo {body.turns}", body, idempotency_key, words)


@router.post("/campaigns/{campaign_id}/redo", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
def redo(engine: EngineDep, campaign_id: Campaign, body: StepsRequest, words: FrontendWords,
           idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Move the branch's head forward along the turns an undo took back."""
    return timeline_command(engine, campaign_id, f"/redo {body.turns}", body, idempotency_key, words)


@router.post("/campaigns/{campaign_id}/retry", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
def retry(engine: EngineDep, campaign_id: Campaign, body: TimelineRequest, words: FrontendWords,
            idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Play the head turn's input again from the turn before it, with the next dice variant: different dice and
    prose, reproducibly. The turn replaced stays as a variant (`pick` goes back to it)."""
    return timeline_command(engine, campaign_id, "/retry", body, idempotency_key, words)


@router.post("/campaigns/{campaign_id}/pick", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
def pick(engine: EngineDep, campaign_id: Campaign, body: PickRequest, words: FrontendWords,
           idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Go to another variant of the head turn (a retry, or a turn played at that point after an undo)."""
    return timeline_command(engine, campaign_id, f"/pick {body.variant}", body, idempotency_key, words)


@router.get("/campaigns/{campaign_id}/branches", response_model=list[BranchView], tags=["timeline"],
            responses=CAMPAIGN_ERRORS)
def branches(engine: EngineDep, campaign_id: Campaign) -> list[BranchView]:
    """Every branch of the campaign, `main` first: its head, how far `redo` could go, where it stands."""
    return engine.branches(campaign_id)


@router.post("/campaigns/{campaign_id}/branches", response_model=TurnView, status_code=201, tags=["timeline"],
             responses=TIMELINE_ERRORS)
def fork(engine: EngineDep, campaign_id: Campaign, body: ForkRequest, words: FrontendWords,
           idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Start a branch at the current branch's head (or at `at_turn` of its line) and make it the current one."""
    at = f" --at {body.at_turn}" if body.at_turn is not None else ""
    return timeline_command(engine, campaign_id, f"/fork {body.name}{at}", body, idempotency_key, words, 201)


@router.post("/campaigns/{campaign_id}/branches/{name}/switch", response_model=TurnView, tags=["timeline"],
             responses=TIMELINE_ERRORS)
def switch(engine: EngineDep, campaign_id: Campaign, name: BranchPath, words: FrontendWords,
           idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Make `name` the current branch: what turns without a branch play on, and what the campaign shows."""
    return timeline_command(engine, campaign_id, f"/switch {name}", TimelineRequest(), idempotency_key, words)


@router.delete("/campaigns/{campaign_id}/branches/{name}", status_code=204, tags=["timeline"],
               responses=TIMELINE_ERRORS)
def delete_branch(engine: EngineDep, campaign_id: Campaign, name: BranchPath) -> Response:
    """Delete a branch that is not the current one, with every turn no other branch reaches."""
    engine.timeline(campaign_id, f"/delete-branch {name}")
    return Response(status_code=204)
