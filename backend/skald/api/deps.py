"""What the API's routes depend on: the app's engine and services (``create_app`` puts them on ``app.state``), a
campaign's bearer token, the admin key, the frontend's words, and the error answers the routes document."""

import hmac
from typing import Annotated, Any, Literal

from fastapi import Depends, Header, HTTPException, Path, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from skald.api.edge import answers
from skald.api.models import (
    BRANCH_PATTERN,
    StreamCancelled,
    StreamEpisodeComplete,
    StreamError,
    StreamProgress,
    StreamReplace,
    StreamToken,
)
from skald.api.setup import SetupSessions
from skald.engine import Engine, Played
from skald.store.tokens import token_hash
from skald.words import API, Words, named

GONE = "the campaign was deleted while the request ran"
CAMPAIGN_ERRORS = answers(401, 404, 422, 503, when={404: GONE})
BUSY = ("another turn of this campaign is in progress or committed first, or `expected_turn` is stale; "
        "`turn_number` is the campaign's turn now")
TURN_ERRORS = answers(401, 404, 409, 422, 503, when={404: GONE, 409: BUSY})
TIMELINE_ERRORS = answers(401, 404, 409, 422, 503, when={
    404: "no such campaign, branch or variant", 409: BUSY + "; or nothing to undo, redo or retry, a branch name "
    "taken, or the branch to delete is the current one (`reason` says which)"})
STREAM_ERRORS = answers(401, 404, 409, 422, 503, stream=True, when={404: GONE, 409: BUSY})


def _event(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": ["event", "data"],
            "properties": {"event": {"const": name},
                           "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": data}}}


STREAM_EVENTS = {"oneOf": [_event("progress", StreamProgress.model_json_schema()),
                           _event("token", StreamToken.model_json_schema()),
                           _event("replace", StreamReplace.model_json_schema()),
                           _event("episode_complete", StreamEpisodeComplete.model_json_schema()),
                           _event("turn", {"$ref": "#/components/schemas/TurnView"}),
                           _event("error", StreamError.model_json_schema()),
                           _event("cancelled", StreamCancelled.model_json_schema())]}
"""The events of a streamed turn (OpenAPI 3.2 ``itemSchema``): ``data`` is JSON of the named shape."""

bearer = HTTPBearer(auto_error=False, description="the campaign's token (or, for GET /campaigns and a full GET "
                                                   "/health, the admin key)")
CampaignIdPath = Annotated[str, Path(min_length=1, max_length=128, description="the campaign id")]
BranchPath = Annotated[str, Path(min_length=1, max_length=40, pattern=BRANCH_PATTERN, description="a branch name")]
IdempotencyKey = Annotated[str | None, Header(
    alias="Idempotency-Key", min_length=1, max_length=255, pattern=r"^[\x21-\x7e]+$",
    description="a client-chosen key (printable ASCII, up to 255 characters): a retry with the same key returns the "
                "original result instead of playing the turn again")]
WordsHeader = Annotated[Literal["page", "api", "terminal"] | None, Header(
    alias="Skald-Words", description="how the replies name the moves that are not story (undo's redo, a fork's way "
                                     "back, the next episode, resuming): `api` (the default) names endpoints, `page` "
                                     "the play page's buttons, `terminal` the CLI's commands (skald.words)")]


def frontend_words(words: WordsHeader = None) -> Words:
    """The :class:`Words` a request's ``Skald-Words`` header names (default: the API's)."""
    return named(words, API)


FrontendWords = Annotated[Words, Depends(frontend_words)]


def engine_of(request: Request) -> Engine:
    """The app's :class:`Engine` (one per app)."""
    return request.app.state.engine


def setups_of(request: Request) -> SetupSessions:
    """The app's guided-creation sessions."""
    return request.app.state.setups


EngineDep = Annotated[Engine, Depends(engine_of)]
SetupsDep = Annotated[SetupSessions, Depends(setups_of)]
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


def is_admin(request: Request, credentials: HTTPAuthorizationCredentials | None) -> bool:
    """Whether the bearer token is the server's admin key (never when none is set)."""
    admin_hash = request.app.state.admin_hash
    presented = credentials.credentials if credentials else ""
    return bool(admin_hash and presented and hmac.compare_digest(token_hash(presented), admin_hash))


def campaign_access(campaign_id: CampaignIdPath, credentials: Credentials, engine: EngineDep) -> str:
    """The campaign id, once the bearer token is that campaign's; 401 otherwise (the same whether the campaign exists
    or not)."""
    if not engine.check_token(campaign_id, credentials.credentials if credentials else None):
        raise HTTPException(401, "missing or invalid token for this campaign: send "
                                 "'Authorization: Bearer <token>' with the token POST /campaigns returned",
                            headers={"WWW-Authenticate": "Bearer"})
    return campaign_id


Campaign = Annotated[str, Depends(campaign_access)]


def create_limit(request: Request) -> None:
    """``POST /campaigns`` and guided creation, counted per client (``edge.CreateLimit``; 429 over the limit)."""
    request.app.state.create_limit(request)


def answer_played(played: Played, status: int = 200) -> JSONResponse:
    """A played turn as its JSON answer (``Idempotent-Replayed: true`` when a key replayed it)."""
    headers = {"Idempotent-Replayed": "true"} if played.replayed else None
    return JSONResponse(played.body, status_code=status, headers=headers)
