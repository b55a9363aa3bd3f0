"""The API's routes for the timeline: undo, redo, retry, variants and branches."""

from __future__ import annotations

from typing import Any

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
from skald.api.models import ForkRequest, PickRequest, StepsRequest, TimelineRequest
from skald.core.views import BranchView, TurnView
from skald.words import Words

router = APIRouter(route_class=StrictJsonRoute)


def _how(body: TimelineRequest | ForkRequest, key: str | None, words: Words) -> dict[str, Any]:
    """How a timeline request is played: its branch, idempotency key, expected turn and words (``Engine.undo``...)."""
    return {"branch": getattr(body, "branch", None), "key": key, "expected": body.expected_turn, "words": words}


@router.post("/campaigns/{campaign_id}/undo", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
def undo(engine: EngineDep, campaign_id: Campaign, body: StepsRequest, words: FrontendWords,
         idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Move the branch's head back `turns` turns (at most to the start). Nothing is deleted: `redo` replays them,
    and a turn played now starts a new path (the old one stays, as a variant). Answers with the scene at the new
    head and its four suggestions (`turn_number` is the head's)."""
    return answer_played(engine.undo(campaign_id, body.turns, **_how(body, idempotency_key, words)))


@router.post("/campaigns/{campaign_id}/redo", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
def redo(engine: EngineDep, campaign_id: Campaign, body: StepsRequest, words: FrontendWords,
         idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Move the branch's head forward along the turns an undo took back."""
    return answer_played(engine.redo(campaign_id, body.turns, **_how(body, idempotency_key, words)))


@router.post("/campaigns/{campaign_id}/retry", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
def retry(engine: EngineDep, campaign_id: Campaign, body: TimelineRequest, words: FrontendWords,
            idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Play the head turn's input again from the turn before it, with the next dice variant: different dice and
    prose, reproducibly. The turn replaced stays as a variant (`pick` goes back to it)."""
    return answer_played(engine.retry(campaign_id, **_how(body, idempotency_key, words)))


@router.post("/campaigns/{campaign_id}/pick", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
def pick(engine: EngineDep, campaign_id: Campaign, body: PickRequest, words: FrontendWords,
         idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Go to another variant of the head turn (a retry, or a turn played at that point after an undo)."""
    return answer_played(engine.pick(campaign_id, body.variant, **_how(body, idempotency_key, words)))


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
    played = engine.fork(campaign_id, body.name, body.at_turn, **_how(body, idempotency_key, words))
    return answer_played(played, 201)


@router.post("/campaigns/{campaign_id}/branches/{name}/switch", response_model=TurnView, tags=["timeline"],
             responses=TIMELINE_ERRORS)
def switch(engine: EngineDep, campaign_id: Campaign, name: BranchPath, words: FrontendWords,
           idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Make `name` the current branch: what turns without a branch play on, and what the campaign shows."""
    return answer_played(engine.switch(campaign_id, name, **_how(TimelineRequest(), idempotency_key, words)))


@router.delete("/campaigns/{campaign_id}/branches/{name}", status_code=204, tags=["timeline"],
               responses=TIMELINE_ERRORS)
def delete_branch(engine: EngineDep, campaign_id: Campaign, name: BranchPath) -> Response:
    """Delete a branch that is not the current one, with every turn no other branch reaches."""
    engine.delete_branch(campaign_id, name)
    return Response(status_code=204)
