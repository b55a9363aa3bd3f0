"""The API's routes for turns: playing one (whole or streamed), stopping one, and the transcript."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent

from skald.api.deps import (
    CAMPAIGN_ERRORS,
    STREAM_ERRORS,
    STREAM_EVENTS,
    TURN_ERRORS,
    Campaign,
    EngineDep,
    FrontendWords,
    IdempotencyKey,
    answer_played,
)
from skald.api.edge import StrictJsonRoute
from skald.api.models import BRANCH_PATTERN, CancelReply, TurnRequest
from skald.core.views import TurnPage, TurnView
from skald.engine import Claim
from skald.errors import KeyReused, SaveFileError, TurnCancelled, TurnConflictError, VariantTaken

log = logging.getLogger("skald.api")


router = APIRouter(route_class=StrictJsonRoute)


@router.post("/campaigns/{campaign_id}/turns", response_model=TurnView, tags=["turns"], responses=TURN_ERRORS)
def play_turn(engine: EngineDep, campaign_id: Campaign, body: TurnRequest, words: FrontendWords,
              idempotency_key: IdempotencyKey = None) -> JSONResponse:
    """Play one turn. With an `Idempotency-Key` seen before, the original result is returned (header
    `Idempotent-Replayed: true`) and nothing is played."""
    played = engine.play_turn(campaign_id, body.input, key=idempotency_key, expected=body.expected_turn,
                              branch=body.branch, words=words)
    return answer_played(played)


def stream_claim(engine: EngineDep, campaign_id: Campaign, body: TurnRequest, response: Response, words: FrontendWords,
                 idempotency_key: IdempotencyKey = None) -> Iterator[Claim]:
    claim = engine.claim(campaign_id, body.input, key=idempotency_key, expected=body.expected_turn,
                         branch=body.branch, words=words)
    if claim.replay is not None:
        response.headers["Idempotent-Replayed"] = "true"
    try:
        yield claim
    finally:
        if claim.slot is not None and not claim.slot.handed_off:
            claim.slot.release()  # the stream never started: give the campaign back


@router.post("/campaigns/{campaign_id}/turns/stream", response_class=EventSourceResponse, tags=["turns"],
             responses=STREAM_ERRORS | {200: {"content": {"text/event-stream": {"itemSchema": STREAM_EVENTS}}}})
async def stream_turn(engine: EngineDep, request: Request,
                      claim: Annotated[Claim, Depends(stream_claim)]) -> AsyncIterator[ServerSentEvent]:
    """The same turn as Server-Sent Events: `progress` ({"node"}) as each graph node finishes, `token`
    ({"text"}) as the narration is generated, `replace` ({"text", "reason"}) when the narration streamed so far
    is withdrawn for `text`, `episode_complete` ({"episode", "trigger", "evaluation"}) when the turn ends the
    running episode, then `turn` (the result, as POST .../turns returns it) or `error`
    ({"status", "detail", "turn_number"}: 409, 422, 500 or 503). An idempotent retry gets just the `turn`
    event, and a turn stopped by POST .../cancel a `cancelled` event ({"detail", "turn_number"}). Errors
    found before the stream starts are plain JSON answers."""
    if claim.replay is not None:
        yield ServerSentEvent(event="turn", data=claim.replay.body)
        return
    slot = claim.slot
    assert slot is not None
    loop = asyncio.get_running_loop()
    events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def emit(kind: str, data: Any) -> None:  # called on the worker thread
        try:
            loop.call_soon_threadsafe(events.put_nowait, (kind, data))
        except RuntimeError:  # the event loop is gone (server stopping); the turn still finishes
            pass

    def work() -> None:
        try:
            for kind, payload in engine.stream(slot):
                if kind == "progress":
                    emit("progress", {"node": payload})
                elif kind == "token":
                    emit("token", {"text": payload})
                elif kind == "replace":  # the streamed narration was replaced: show {"text"} instead
                    emit("replace", payload)
                else:
                    ended = payload.view.episode if payload.view is not None else None
                    if ended is not None and ended.evaluation is not None:
                        emit("episode_complete", {"episode": ended.id, "trigger": ended.trigger,
                                                  "evaluation": ended.evaluation.model_dump(mode="json")})
                    emit("turn", payload.body)
        except TurnConflictError as exc:
            emit("error", {"status": 409, "detail": str(exc), "turn_number": exc.current_turn})
        except VariantTaken as exc:
            emit("error", {"status": 409, "detail": str(exc), "turn_number": slot.state.campaign.turn_number})
        except KeyReused as exc:
            emit("error", {"status": 422, "detail": str(exc), "turn_number": None})
        except TurnCancelled as exc:
            emit("cancelled", {"detail": str(exc), "turn_number": slot.state.campaign.turn_number})
        except SaveFileError as exc:
            log.error("%s", exc)
            emit("error", {"status": 503, "detail": f"the server's save file {exc.problem}", "turn_number": None})
        except Exception:
            log.exception("streamed turn of campaign %s failed", slot.campaign_id)
            emit("error", {"status": 500, "detail": "internal server error; the turn may not have been played: "
                                                    "reload the campaign", "turn_number": None})
        finally:
            emit("end", None)

    loop.run_in_executor(request.app.state.workers, work)
    slot.handed_off = True  # from here the worker releases the campaign, even if the client goes away
    while True:
        kind, data = await events.get()
        if kind == "end":
            return
        yield ServerSentEvent(event=kind, data=data)


@router.post("/campaigns/{campaign_id}/cancel", response_model=CancelReply, tags=["turns"],
             responses=CAMPAIGN_ERRORS)
def cancel_turn(engine: EngineDep, campaign_id: Campaign, branch: Annotated[str | None, Query(
        min_length=1, max_length=40, pattern=BRANCH_PATTERN)] = None) -> CancelReply:
    """Stop the turn being played on the campaign (on `branch`; default: any of its branches) before it is saved.
    `stopping`: it ends unsaved (its request answers 409, its stream with a `cancelled` event) and the campaign
    stays where it was; `too_late`: it was already being saved and is played whole; `none`: no turn is being
    played. A model call under way is not cut short: the turn stops when it reaches Commit."""
    return CancelReply(state=engine.cancel(campaign_id, branch))


@router.get("/campaigns/{campaign_id}/turns", response_model=TurnPage, tags=["turns"], responses=CAMPAIGN_ERRORS)
def transcript(engine: EngineDep, campaign_id: Campaign, after_turn: Annotated[int, Query(ge=0, le=10**9)] = 0,
               limit: Annotated[int, Query(ge=1, le=100)] = 20,
               branch: Annotated[str | None, Query(min_length=1, max_length=40, pattern=BRANCH_PATTERN)] = None
               ) -> TurnPage:
    """The transcript of a branch (default: the current one), oldest turn first: up to `limit` turns of its line
    after turn `after_turn` (0: from the start) up to its head. Page on with `after_turn` = the answer's
    `next_after_turn`."""
    return engine.turns(campaign_id, after_turn=after_turn, limit=limit, branch=branch)
