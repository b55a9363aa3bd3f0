"""The FastAPI application: routes, authentication, error responses. The work is done by :class:`Game`."""

import asyncio
import hmac
import logging
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, HTTPException, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.sse import EventSourceResponse, ServerSentEvent
from langgraph.graph.state import CompiledStateGraph
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import skald
from skald.api.docs import install_docs
from skald.api.health import HealthCheck
from skald.api.models import CampaignList, CreatedCampaign, ErrorBody, Health, NewCampaign, PackView, TurnRequest
from skald.engine import Claim, Engine, Played
from skald.errors import (
    CampaignNotFoundError,
    KeyReused,
    PlayerInputError,
    TurnBusy,
    TurnConflictError,
    TurnStale,
)
from skald.llm.client import LLMClient
from skald.packs.cache import PackCache, PackError, UnknownPackError
from skald.packs.loader import available_packs
from skald.packs.models import EraPack
from skald.settings import get_settings
from skald.store.tokens import token_hash
from skald.views import (
    CampaignView,
    CompanionView,
    InventoryView,
    NewsView,
    QuestView,
    RumorsView,
    SceneView,
    TurnPage,
    TurnView,
)

log = logging.getLogger("skald.api")

MAX_BODY_BYTES = 64 * 1024
STREAM_WORKERS = 16

DESCRIPTION = """\
Play Skald campaigns over HTTP: the same turn engine as `skald play`.

Create a campaign with `POST /campaigns`; the answer holds the campaign's **token**, shown once. Every
`/campaigns/{campaign_id}...` request must carry it as `Authorization: Bearer <token>`.

Play with `POST /campaigns/{campaign_id}/turns`, or `.../turns/stream` for Server-Sent Events. Send an
`Idempotency-Key` header to make a retry safe, and `expected_turn` to refuse a turn based on a stale view (409).
See docs/api.md.
"""

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "missing or invalid token"},
    422: {"model": ErrorBody, "description": "invalid request"},
}
TURN_ERRORS: dict[int | str, dict[str, Any]] = ERRORS | {
    409: {"model": ErrorBody, "description": "another turn of this campaign is in progress or committed first, or "
                                             "`expected_turn` is stale; `turn_number` is the campaign's turn now"}}

bearer = HTTPBearer(auto_error=False, description="the campaign's token (or, for GET /campaigns, the admin key)")
CampaignIdPath = Annotated[str, Path(min_length=1, max_length=128, description="the campaign id")]
IdempotencyKey = Annotated[str | None, Header(
    alias="Idempotency-Key", min_length=1, max_length=255, pattern=r"^[\x21-\x7e]+$",
    description="a client-chosen key (printable ASCII, up to 255 characters): a retry with the same key returns the "
                "original result instead of playing the turn again")]


def create_app(db_path: str | FilePath | None = None, *, llm: LLMClient | None = None, reload_packs: bool = False,
               admin_key: str | None = None, graph: CompiledStateGraph | None = None, retriever: Any = True,
               pack_poll_s: float = 1.0) -> FastAPI:
    """The API over the save file ``db_path`` (default ``SKALD_DB_PATH``).

    :param llm: the LLM client for every campaign (default: ``LLMClient(get_settings())``, built once).
    :param reload_packs: reload a pack when its files change (polled at most every ``pack_poll_s`` seconds).
    :param admin_key: the key that may list campaigns (default: ``SKALD_ADMIN_KEY``; none: listing is off).
    :param graph: a compiled turn graph (default: the engine's); :param retriever: as ``run_turn`` takes it.
    """
    settings = get_settings()
    if admin_key is None and settings.admin_key is not None:
        admin_key = settings.admin_key.get_secret_value() or None
    admin_hash = token_hash(admin_key) if admin_key else None
    engine = Engine(db_path or settings.db_path, llm=llm or LLMClient(settings), retriever=retriever, graph=graph,
                    packs=PackCache(reload=reload_packs, poll_s=pack_poll_s))
    health_check = HealthCheck(engine)
    workers = ThreadPoolExecutor(max_workers=STREAM_WORKERS, thread_name_prefix="skald-stream")

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            workers.shutdown(wait=True)
            engine.close()

    app = FastAPI(title="Skald", version=skald.__version__, description=DESCRIPTION, lifespan=lifespan,
                  max_body_size=MAX_BODY_BYTES, docs_url=None, redoc_url=None)  # served offline by install_docs
    app.state.engine = engine
    install_docs(app)
    _install_error_handlers(app)

    def campaign_access(campaign_id: CampaignIdPath,
                        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> str:
        """The campaign id, once the bearer token is that campaign's; 401 otherwise (the same whether the campaign
        exists or not)."""
        if not engine.check_token(campaign_id, credentials.credentials if credentials else None):
            raise HTTPException(401, "missing or invalid token for this campaign: send "
                                     "'Authorization: Bearer <token>' with the token POST /campaigns returned",
                                headers={"WWW-Authenticate": "Bearer"})
        return campaign_id

    Campaign = Annotated[str, Depends(campaign_access)]

    @app.get("/health", response_model=Health, tags=["server"],
             responses={503: {"model": Health, "description": "the database does not answer"}})
    def health(response: Response) -> dict[str, Any]:
        """Database status and, per LLM role, whether its Ollama server answers (offline: null)."""
        ok, body = health_check()
        if not ok:
            response.status_code = 503
        return body

    @app.get("/packs", response_model=list[PackView], tags=["server"])
    def packs() -> list[dict[str, Any]]:
        """The era packs a campaign can be started on, with their backgrounds and start locations."""
        out = []
        for pack_id in engine.packs.ids():
            try:
                out.append(_pack_view(engine.packs.get(pack_id)))
            except PackError:
                log.warning("pack %s does not load; not listed", pack_id)
        return out

    @app.get("/campaigns", response_model=CampaignList, tags=["admin"],
             responses={401: {"model": ErrorBody}, 403: {"model": ErrorBody}})
    def list_campaigns(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> dict:
        """Every campaign in the save file; needs the server's admin key (SKALD_ADMIN_KEY) as the bearer token."""
        if admin_hash is None:
            raise HTTPException(403, "listing campaigns is off: start the server with SKALD_ADMIN_KEY set")
        presented = credentials.credentials if credentials else ""
        if not (hmac.compare_digest(token_hash(presented), admin_hash) and presented):
            raise HTTPException(401, "missing or invalid admin key", headers={"WWW-Authenticate": "Bearer"})
        return {"campaigns": engine.campaigns()}

    @app.post("/campaigns", response_model=CreatedCampaign, status_code=201, tags=["campaigns"],
              responses={404: {"model": ErrorBody, "description": "unknown pack"}, 422: ERRORS[422]})
    def create_campaign(body: NewCampaign) -> dict[str, Any]:
        """Start a campaign. The answer's `token` is this campaign's secret; keep it."""
        try:
            made = engine.create_campaign(body.pack, seed=body.seed, background=body.background, name=body.name,
                                          with_token=True)
        except ValueError as exc:  # an unknown background
            raise HTTPException(422, str(exc)) from None
        return {"campaign_id": made.state.campaign.id, "token": made.token, "state": made.view, "scene": made.scene}

    @app.get("/campaigns/{campaign_id}", response_model=CampaignView, tags=["campaigns"], responses=ERRORS)
    def get_campaign(campaign_id: Campaign) -> CampaignView:
        """The campaign's committed state."""
        return engine.view(campaign_id)

    @app.get("/campaigns/{campaign_id}/scene", response_model=SceneView, tags=["campaigns"], responses=ERRORS)
    def scene(campaign_id: Campaign) -> SceneView:
        """Where the campaign stands, to show when a player comes back: the scene and the four suggestions that
        stand for the next turn (what 1-4 play)."""
        return engine.scene(campaign_id)

    @app.delete("/campaigns/{campaign_id}", status_code=204, tags=["campaigns"],
                responses=ERRORS | {409: {"model": ErrorBody, "description": "a turn is being played"}})
    def delete_campaign(campaign_id: Campaign) -> Response:
        """Delete the campaign and everything stored about it (one transaction). Its token stops working."""
        engine.delete_campaign(campaign_id)
        return Response(status_code=204)

    @app.post("/campaigns/{campaign_id}/turns", response_model=TurnView, tags=["turns"], responses=TURN_ERRORS)
    def play_turn(campaign_id: Campaign, body: TurnRequest, idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Play one turn. With an `Idempotency-Key` seen before, the original result is returned (header
        `Idempotent-Replayed: true`) and nothing is played."""
        played = engine.play_turn(campaign_id, body.input, key=idempotency_key, expected=body.expected_turn)
        return _played(played)

    def stream_claim(campaign_id: Campaign, body: TurnRequest, response: Response,
                     idempotency_key: IdempotencyKey = None) -> Iterator[Claim]:
        claim = engine.claim(campaign_id, body.input, key=idempotency_key, expected=body.expected_turn)
        if claim.replay is not None:
            response.headers["Idempotent-Replayed"] = "true"
        try:
            yield claim
        finally:
            if claim.slot is not None and not claim.slot.handed_off:
                claim.slot.release()  # the stream never started: give the campaign back

    @app.post("/campaigns/{campaign_id}/turns/stream", response_class=EventSourceResponse, tags=["turns"],
              responses=TURN_ERRORS)
    async def stream_turn(claim: Annotated[Claim, Depends(stream_claim)]) -> AsyncIterator[ServerSentEvent]:
        """The same turn as Server-Sent Events: `progress` ({"node"}) as each graph node finishes, `token`
        ({"text"}) as the narration is generated, then `turn` (the result, as POST .../turns returns it) or
        `error` ({"status", "detail", "turn_number"}). An idempotent retry gets just the `turn` event."""
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
                    else:
                        emit("turn", payload.body)
            except TurnConflictError as exc:
                emit("error", {"status": 409, "detail": str(exc), "turn_number": exc.current_turn})
            except KeyReused as exc:
                emit("error", {"status": 422, "detail": str(exc), "turn_number": None})
            except Exception:
                log.exception("streamed turn of campaign %s failed", slot.campaign_id)
                emit("error", {"status": 500, "detail": "internal server error; the turn may not have been played: "
                                                        "reload the campaign", "turn_number": None})
            finally:
                emit("end", None)

        loop.run_in_executor(workers, work)
        slot.handed_off = True  # from here the worker releases the campaign, even if the client goes away
        while True:
            kind, data = await events.get()
            if kind == "end":
                return
            yield ServerSentEvent(event=kind, data=data)

    @app.get("/campaigns/{campaign_id}/turns", response_model=TurnPage, tags=["turns"], responses=ERRORS)
    def transcript(campaign_id: Campaign, after_turn: Annotated[int, Query(ge=0, le=10**9)] = 0,
                   limit: Annotated[int, Query(ge=1, le=100)] = 20) -> TurnPage:
        """The transcript, oldest turn first: up to `limit` turns after turn `after_turn` (0: from the start). Page
        on with `after_turn` = the answer's `next_after_turn`."""
        return engine.turns(campaign_id, after_turn=after_turn, limit=limit)

    @app.get("/campaigns/{campaign_id}/rumors", response_model=RumorsView, tags=["campaigns"], responses=ERRORS)
    def rumors(campaign_id: Campaign) -> RumorsView:
        """Rumors the player has heard, and what the town talks about."""
        return engine.rumors(campaign_id)

    @app.get("/campaigns/{campaign_id}/party", response_model=list[CompanionView], tags=["campaigns"],
             responses=ERRORS)
    def party(campaign_id: Campaign) -> list[CompanionView]:
        """Companions the player has met; `in_party` for those travelling with them."""
        return engine.party(campaign_id)

    @app.get("/campaigns/{campaign_id}/quests", response_model=list[QuestView], tags=["campaigns"], responses=ERRORS)
    def quests(campaign_id: Campaign) -> list[QuestView]:
        """Quests taken on, with the current objective."""
        return engine.quests(campaign_id)

    @app.get("/campaigns/{campaign_id}/news", response_model=NewsView, tags=["campaigns"], responses=ERRORS)
    def news(campaign_id: Campaign) -> NewsView:
        """What has happened in the world lately, oldest first."""
        return engine.news(campaign_id)

    @app.get("/campaigns/{campaign_id}/inventory", response_model=InventoryView, tags=["campaigns"],
             responses=ERRORS)
    def inventory(campaign_id: Campaign) -> InventoryView:
        """What the player carries, and their credits."""
        return engine.inventory(campaign_id)

    return app


def _played(played: Played) -> JSONResponse:
    headers = {"Idempotent-Replayed": "true"} if played.replayed else None
    return JSONResponse(played.body, headers=headers)


def _pack_view(pack: EraPack) -> dict[str, Any]:
    def ref(location_id: str | None) -> dict[str, str] | None:
        if location_id is None or location_id not in pack.locations:
            return None
        return {"id": location_id, "name": pack.locations[location_id].name}

    return {"id": pack.id, "name": pack.era.name, "era": pack.era.era, "tone": pack.era.tone,
            "backgrounds": [{"id": b.id, "name": b.name, "description": b.description,
                             "start_location": ref(b.start_location)} for b in pack.backgrounds.values()],
            "start_locations": [r for r in map(ref, pack.era.start_locations) if r is not None]}


# ------------------------------------------------------------------------------------------ error responses


def _error(status: int, detail: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse({"detail": detail, **extra}, status_code=status, headers=headers)


def _install_error_handlers(app: FastAPI) -> None:
    """Every error is JSON ``{"detail": ...}`` with a message for a person: never a traceback or a file path."""

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": [str(part) for part in err.get("loc", ())], "msg": str(err.get("msg", "invalid")),
                   "type": str(err.get("type", "invalid"))} for err in exc.errors()]
        detail = "; ".join(f"{'.'.join(e['loc'])}: {e['msg']}" for e in errors) or "invalid request"
        return _error(422, detail, errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail), headers=getattr(exc, "headers", None))

    @app.exception_handler(TurnBusy)
    @app.exception_handler(TurnStale)
    async def conflict(_: Request, exc: TurnBusy | TurnStale) -> JSONResponse:
        return _error(409, str(exc), turn_number=exc.turn_number)

    @app.exception_handler(TurnConflictError)
    async def lost_race(_: Request, exc: TurnConflictError) -> JSONResponse:
        return _error(409, "another turn of this campaign committed first; nothing from this turn was saved: "
                           "reload the campaign and play it again", turn_number=exc.current_turn)

    @app.exception_handler(KeyReused)
    @app.exception_handler(PlayerInputError)
    async def unplayable(_: Request, exc: Exception) -> JSONResponse:
        return _error(422, str(exc))

    @app.exception_handler(UnknownPackError)
    async def unknown_pack(_: Request, exc: UnknownPackError) -> JSONResponse:
        known = ", ".join(available_packs()) or "none"
        return _error(404, f"unknown era pack {str(exc.args[0])[:64]!r}; known packs: {known} (GET /packs)")

    @app.exception_handler(PackError)
    async def broken_pack(_: Request, exc: PackError) -> JSONResponse:
        log.error("era pack %s does not load:\n%s", exc.pack, exc)
        return _error(503, "the campaign's era pack does not load on this server; the server log says why")

    @app.exception_handler(CampaignNotFoundError)
    async def gone(_: Request, exc: CampaignNotFoundError) -> JSONResponse:
        return _error(404, "this campaign no longer exists")

    app.add_middleware(_InternalErrors)


class _InternalErrors:
    """Any other exception: logged with its traceback, answered 500 with a plain message. Caught here, inside
    Starlette's ServerErrorMiddleware (which would re-raise it to uvicorn, dropping the keep-alive connection)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:  # noqa: BLE001 - the last line of defence; logged in full
            log.error("unhandled error on %s %s", scope.get("method"), scope.get("path"), exc_info=exc)
            if started:  # too late for another response: the client sees the body end early
                return
            await _error(500, "internal server error; the server log has the details")(scope, receive, send)
