"""The API's routes for the server: its health, the packs it plays, shared episode results."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request, Response

from skald.api.deps import Credentials, EngineDep, is_admin
from skald.api.edge import StrictJsonRoute, answers
from skald.api.models import Health, PackView
from skald.core.pack import EraPack
from skald.core.views import SharedEpisode
from skald.packs.cache import PackError

log = logging.getLogger("skald.api")


router = APIRouter(route_class=StrictJsonRoute)


@router.get("/health", response_model=Health, tags=["server"],
            responses={503: {"model": Health, "description": "the database does not answer"}})
def health(request: Request, response: Response,
           credentials: Credentials) -> dict[str, Any]:
    """Database status and, per LLM role, whether its Ollama server answers (offline: null). Models, URLs and
    pack file paths only with the admin key as the bearer token (otherwise null, or summed up)."""
    ok, body = request.app.state.health_check(admin=is_admin(request, credentials))
    if not ok:
        response.status_code = 503
    return body


@router.get("/packs", response_model=list[PackView], tags=["server"])
def packs(engine: EngineDep) -> list[dict[str, Any]]:
    """The era packs a campaign can be started on, with their backgrounds and start locations."""
    out = []
    for pack_id in engine.packs.ids():
        try:
            out.append(_pack_view(engine.packs.get(pack_id)))
        except PackError:
            log.warning("pack %s does not load; not listed", pack_id)
    return out


@router.get("/episodes/{share_id}", response_model=SharedEpisode, tags=["server"],
            responses=answers(404, 422, when={404: "no episode result has this share id here"}))
def shared_episode(engine: EngineDep, share_id: Annotated[str, Path(pattern="^[0-9a-f]{6,64}$")]) -> SharedEpisode:
    """An episode's result by its `share_id` (shown when the episode ends, and in `/journal`): the summary, key
    moments, playstyle and outcome, and nothing of the campaign it came from. No token needed: a share id is
    meant to be passed around."""
    found = engine.shared(share_id)
    if found is None:
        raise HTTPException(404, f"no episode result has the share id {share_id!r} here")
    return found


def _pack_view(pack: EraPack) -> dict[str, Any]:
    def ref(location_id: str | None) -> dict[str, str] | None:
        if location_id is None or location_id not in pack.locations:
            return None
        return {"id": location_id, "name": pack.locations[location_id].name}

    return {"id": pack.id, "name": pack.era.name, "era": pack.era.era, "tone": pack.era.tone,
            "backgrounds": [{"id": b.id, "name": b.name, "description": b.description,
                             "start_location": ref(b.start_location)} for b in pack.backgrounds.values()],
            "start_locations": [r for r in map(ref, pack.era.start_locations) if r is not None]}
