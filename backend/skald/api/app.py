"""The FastAPI application: routes, authentication, error responses. The work is done by :class:`Game`."""

import logging
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path as FilePath
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from langgraph.graph.state import CompiledStateGraph

import skald
from skald.api import edge
from skald.api.docs import install_docs
from skald.api.edge import CreateLimit, answers, error
from skald.api.health import HealthCheck
from skald.api.page import install_page
from skald.api.routes import ROUTERS
from skald.api.setup import SetupSessions
from skald.engine import Engine
from skald.errors import (
    BranchError,
    CampaignDamagedError,
    CampaignNotFoundError,
    KeyReused,
    PlayerInputError,
    SaveFileError,
    TurnBusy,
    TurnCancelled,
    TurnConflictError,
    TurnStale,
    VariantTaken,
)
from skald.llm.client import LLMClient
from skald.packs.cache import PackCache, PackError, UnknownPackError
from skald.packs.loader import available_packs
from skald.settings import get_settings
from skald.store.tokens import token_hash

log = logging.getLogger("skald.api")

STREAM_WORKERS = 16

DESCRIPTION = """\
Play Skald campaigns over HTTP: the same turn engine as `skald play`.

Create a campaign with `POST /campaigns`; the answer holds the campaign's **token**, shown once. Every
`/campaigns/{campaign_id}...` request must carry it as `Authorization: Bearer <token>`.

Play with `POST /campaigns/{campaign_id}/turns`, or `.../turns/stream` for Server-Sent Events. Send an
`Idempotency-Key` header to make a retry safe, and `expected_turn` to refuse a turn based on a stale view (409).
Every error is JSON `{"detail": ...}` (`ErrorBody`). `POST /campaigns` is limited per client
(`SKALD_API_CREATE_PER_MINUTE`, 10 a minute by default). See docs/api.md.
"""


def create_app(db_path: str | FilePath | None = None, *, llm: LLMClient | None = None, reload_packs: bool = False,
               admin_key: str | None = None, graph: CompiledStateGraph | None = None, retriever: Any = True,
               pack_poll_s: float = 1.0, create_per_minute: int | None = None) -> FastAPI:
    """The API over the store ``db_path``: a save file or a PostgreSQL URL (default: the settings', ``SKALD_DB_URL``
    else ``SKALD_DB_PATH``).

    :param llm: the LLM client for every campaign (default: ``LLMClient(get_settings())``, built once and closed when
        the app shuts down; a client passed in is the caller's to close).
    :param reload_packs: reload a pack when its files change (polled at most every ``pack_poll_s`` seconds).
    :param admin_key: the key that may list campaigns and see /health in full (default: ``SKALD_ADMIN_KEY``; none:
        listing is off).
    :param graph: a compiled turn graph (default: the engine's); :param retriever: as ``run_turn`` takes it.
    :param create_per_minute: ``POST /campaigns`` per client and minute (default: ``SKALD_API_CREATE_PER_MINUTE``;
        0: unbounded).
    """
    settings = get_settings()
    if admin_key is None and settings.admin_key is not None:
        admin_key = settings.admin_key.get_secret_value() or None
    own_llm = llm is None  # made here: closed at shutdown (its background briefs end before the process does)
    engine = Engine(db_path or settings.database, llm=llm or LLMClient(settings), retriever=retriever, graph=graph,
                    packs=PackCache(reload=reload_packs, poll_s=pack_poll_s))
    create_limit = CreateLimit(settings.api_create_per_minute if create_per_minute is None else create_per_minute)
    workers = ThreadPoolExecutor(max_workers=STREAM_WORKERS, thread_name_prefix="skald-stream")

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            workers.shutdown(wait=True)
            if own_llm:
                engine.llm.close()
            engine.close()

    # max_body_size=None: edge.Edge bounds bodies and answers 413 as JSON (Starlette's answer is plain text)
    app = FastAPI(title="Skald", version=skald.__version__, description=DESCRIPTION, lifespan=lifespan,
                  max_body_size=None, docs_url=None, redoc_url=None,  # docs served offline by install_docs
                  responses=answers())
    app.router.route_class = edge.StrictJsonRoute
    app.state.engine, app.state.create_limit, app.state.workers = engine, create_limit, workers
    app.state.setups, app.state.health_check = SetupSessions(engine), HealthCheck(engine)
    app.state.admin_hash = token_hash(admin_key) if admin_key else None
    install_docs(app)
    install_page(app)
    edge.install(app)
    _install_engine_errors(app)

    for router in ROUTERS:
        app.include_router(router)
    return app




# ------------------------------------------------------------------------------------------ engine errors


def _install_engine_errors(app: FastAPI) -> None:
    """The engine's errors as HTTP answers (validation and HTTP errors are :mod:`skald.api.edge`'s)."""

    @app.exception_handler(TurnBusy)
    @app.exception_handler(TurnStale)
    async def conflict(_: Request, exc: TurnBusy | TurnStale) -> JSONResponse:
        return error(409, str(exc), turn_number=exc.turn_number)

    @app.exception_handler(VariantTaken)
    async def variants_ran_out(_: Request, exc: VariantTaken) -> JSONResponse:
        return error(409, "turns on other branches kept taking this turn's dice; nothing from it was saved: play it "
                          "again")

    @app.exception_handler(TurnCancelled)
    async def cancelled(_: Request, exc: TurnCancelled) -> JSONResponse:
        return error(409, str(exc), reason="cancelled")

    @app.exception_handler(TurnConflictError)
    async def lost_race(_: Request, exc: TurnConflictError) -> JSONResponse:
        return error(409, "another turn of this campaign committed first; nothing from this turn was saved: "
                          "reload the campaign and play it again", turn_number=exc.current_turn)

    @app.exception_handler(KeyReused)
    @app.exception_handler(PlayerInputError)
    async def unplayable(_: Request, exc: Exception) -> JSONResponse:
        return error(422, str(exc))

    @app.exception_handler(UnknownPackError)
    async def unknown_pack(_: Request, exc: UnknownPackError) -> JSONResponse:
        known = ", ".join(available_packs()) or "none"
        return error(404, f"unknown era pack {str(exc.args[0])[:64]!r}; known packs: {known} (GET /packs)")

    @app.exception_handler(PackError)
    async def broken_pack(_: Request, exc: PackError) -> JSONResponse:
        log.error("era pack %s does not load:\n%s", exc.pack, exc)
        return error(503, "the campaign's era pack does not load on this server; the server log says why")

    @app.exception_handler(SaveFileError)
    async def storage(_: Request, exc: SaveFileError) -> JSONResponse:
        log.error("%s", exc)
        retry = {"Retry-After": "5"} if exc.reason in ("locked", "disk_full", "io") else None
        return error(503, f"the server's save file {exc.problem}", headers=retry, reason=exc.reason)

    @app.exception_handler(BranchError)
    async def timeline_refused(_: Request, exc: BranchError) -> JSONResponse:
        status = {"no_branch": 404, "no_variant": 404, "bad_name": 422, "bad_args": 422, "bad_turn": 422}.get(
            exc.reason, 409)
        return error(status, exc.problem, reason=exc.reason)

    @app.exception_handler(CampaignDamagedError)
    async def damaged(_: Request, exc: CampaignDamagedError) -> JSONResponse:
        log.error("%s", exc)
        return error(503, "this campaign is damaged in the server's store and cannot be played; nothing was changed "
                     "(the server log names what; skald doctor on the server lists it)", reason="campaign_damaged")

    @app.exception_handler(CampaignNotFoundError)
    async def gone(_: Request, exc: CampaignNotFoundError) -> JSONResponse:
        return error(404, "this campaign no longer exists")
