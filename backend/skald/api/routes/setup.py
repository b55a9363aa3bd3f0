"""The API's routes for guided creation: a session, its messages, and the campaign it makes."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path

from skald.api.deps import SetupsDep, create_limit
from skald.api.edge import StrictJsonRoute, answers
from skald.api.models import SetupFinished
from skald.api.setup import NewSetup, SetupMessage, SetupReply

router = APIRouter(route_class=StrictJsonRoute)


@router.post("/campaigns/setup", response_model=SetupReply, status_code=201, tags=["setup"],
             dependencies=[Depends(create_limit)],
             responses=answers(404, 422, 429, 503, when={404: "unknown pack",
                                                         503: "the era pack does not load on this server"}))
def open_setup(setups: SetupsDep, body: NewSetup) -> SetupReply:
    """Open a guided-creation session (docs/setup.md): with the `setup` model, a conversation (`mode: model`);
    without it, the pack's questions (`mode: questions`, the first one in `question`). Keep `setup_id`: it is
    the session's secret. Counted with `POST /campaigns` against SKALD_API_CREATE_PER_MINUTE."""
    return setups.open(body)


@router.post("/setup/{setup_id}/messages", response_model=SetupReply, tags=["setup"],
             responses=answers(404, 409, 413, 422, when={404: "no such setup session, or it expired",
                                                         409: "the session is answering another message",
                                                         413: "the session has taken its 40 messages"}))
def setup_message(setups: SetupsDep, setup_id: Annotated[str, Path(max_length=64)], body: SetupMessage) -> SetupReply:
    """Send the player's message (`/done` ends the discussion), or in questions mode the answer to `question`
    (a choice's number or label; empty for the default)."""
    return setups.message(setup_id, body)


@router.post("/setup/{setup_id}/finish", response_model=SetupFinished, status_code=201, tags=["setup"],
             responses=answers(404, 409, 422, when={404: "no such setup session, or it expired",
                                                    409: "the session is answering another message"}))
def setup_finish(setups: SetupsDep, setup_id: Annotated[str, Path(max_length=64)]) -> dict[str, Any]:
    """Settle the character (the model's summary and `submit_character`, or the answers so far and defaults),
    create the campaign and its token (as `POST /campaigns` does) and close the session."""
    sheet, summary, made = setups.finish(setup_id)
    return {"campaign_id": made.state.campaign.id, "token": made.token, "state": made.view, "scene": made.scene,
            "character": sheet.model_dump(mode="json"), "summary": summary}
