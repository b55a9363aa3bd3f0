"""The FastAPI application: routes, authentication, error responses. The work is done by :class:`Game`."""

import asyncio
import hmac
import logging
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path as FilePath
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, HTTPException, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.sse import EventSourceResponse, ServerSentEvent
from langgraph.graph.state import CompiledStateGraph

import skald
from skald.api import edge
from skald.api.docs import install_docs
from skald.api.edge import CreateLimit, answers, error
from skald.api.health import HealthCheck
from skald.api.models import (
    BRANCH_PATTERN,
    CampaignList,
    CancelReply,
    CreatedCampaign,
    ForkRequest,
    Health,
    NewCampaign,
    PackView,
    PickRequest,
    SetupFinished,
    StepsRequest,
    StreamCancelled,
    StreamEpisodeComplete,
    StreamError,
    StreamProgress,
    StreamReplace,
    StreamToken,
    TimelineRequest,
    TurnRequest,
)
from skald.api.page import install_page
from skald.api.setup import NewSetup, SetupMessage, SetupReply, SetupSessions
from skald.core.pack import EraPack
from skald.core.transcripts import SceneTranscript
from skald.core.views import (
    BranchView,
    CampaignView,
    CompanionView,
    EpisodesView,
    InventoryView,
    MapView,
    NewsView,
    QuestView,
    RumorsView,
    SceneView,
    SharedEpisode,
    TurnPage,
    TurnView,
)
from skald.engine import Claim, Engine, Played
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
from skald.packs.map import MapError, player_svg
from skald.settings import get_settings
from skald.store.tokens import token_hash
from skald.views import transcripts_markdown
from skald.words import API, Words, named

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
    admin_hash = token_hash(admin_key) if admin_key else None
    own_llm = llm is None  # made here: closed at shutdown (its background briefs end before the process does)
    engine = Engine(db_path or settings.database, llm=llm or LLMClient(settings), retriever=retriever, graph=graph,
                    packs=PackCache(reload=reload_packs, poll_s=pack_poll_s))
    health_check = HealthCheck(engine)
    setups = SetupSessions(engine)
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
    app.state.engine = engine
    app.state.create_limit = create_limit
    install_docs(app)
    install_page(app)
    edge.install(app)
    _install_engine_errors(app)

    def is_admin(credentials: HTTPAuthorizationCredentials | None) -> bool:
        presented = credentials.credentials if credentials else ""
        return bool(admin_hash and presented and hmac.compare_digest(token_hash(presented), admin_hash))

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
    def health(response: Response,
               credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> dict[str, Any]:
        """Database status and, per LLM role, whether its Ollama server answers (offline: null). Models, URLs and
        pack file paths only with the admin key as the bearer token (otherwise null, or summed up)."""
        ok, body = health_check(admin=is_admin(credentials))
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
             responses=answers(401, 403, when={401: "missing or invalid admin key", 403: "no admin key is set"}))
    def list_campaigns(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> dict:
        """Every campaign in the save file; needs the server's admin key (SKALD_ADMIN_KEY) as the bearer token."""
        if admin_hash is None:
            raise HTTPException(403, "listing campaigns is off: start the server with SKALD_ADMIN_KEY set")
        if not is_admin(credentials):
            raise HTTPException(401, "missing or invalid admin key", headers={"WWW-Authenticate": "Bearer"})
        return {"campaigns": engine.campaigns()}

    @app.post("/campaigns", response_model=CreatedCampaign, status_code=201, tags=["campaigns"],
              dependencies=[Depends(create_limit)],
              responses=answers(404, 422, 429, 503, when={404: "unknown pack",
                                                          503: "the era pack does not load on this server"}))
    def create_campaign(body: NewCampaign) -> dict[str, Any]:
        """Start a campaign. The answer's `token` is this campaign's secret; keep it. At most
        SKALD_API_CREATE_PER_MINUTE (10) a minute per client IP, and per bearer token if one is sent: over that,
        429 with `Retry-After`."""
        try:
            made = engine.create_campaign(body.pack, seed=body.seed, background=body.background, name=body.name,
                                          with_token=True)
        except ValueError as exc:  # an unknown background
            raise HTTPException(422, str(exc)) from None
        return {"campaign_id": made.state.campaign.id, "token": made.token, "state": made.view, "scene": made.scene}

    @app.post("/campaigns/setup", response_model=SetupReply, status_code=201, tags=["setup"],
              dependencies=[Depends(create_limit)],
              responses=answers(404, 422, 429, 503, when={404: "unknown pack",
                                                          503: "the era pack does not load on this server"}))
    def open_setup(body: NewSetup) -> SetupReply:
        """Open a guided-creation session (docs/setup.md): with the `setup` model, a conversation (`mode: model`);
        without it, the pack's questions (`mode: questions`, the first one in `question`). Keep `setup_id`: it is
        the session's secret. Counted with `POST /campaigns` against SKALD_API_CREATE_PER_MINUTE."""
        return setups.open(body)

    @app.post("/setup/{setup_id}/messages", response_model=SetupReply, tags=["setup"],
              responses=answers(404, 409, 413, 422, when={404: "no such setup session, or it expired",
                                                          409: "the session is answering another message",
                                                          413: "the session has taken its 40 messages"}))
    def setup_message(setup_id: Annotated[str, Path(max_length=64)], body: SetupMessage) -> SetupReply:
        """Send the player's message (`/done` ends the discussion), or in questions mode the answer to `question`
        (a choice's number or label; empty for the default)."""
        return setups.message(setup_id, body)

    @app.post("/setup/{setup_id}/finish", response_model=SetupFinished, status_code=201, tags=["setup"],
              responses=answers(404, 409, 422, when={404: "no such setup session, or it expired",
                                                     409: "the session is answering another message"}))
    def setup_finish(setup_id: Annotated[str, Path(max_length=64)]) -> dict[str, Any]:
        """Settle the character (the model's summary and `submit_character`, or the answers so far and defaults),
        create the campaign and its token (as `POST /campaigns` does) and close the session."""
        sheet, summary, made = setups.finish(setup_id)
        return {"campaign_id": made.state.campaign.id, "token": made.token, "state": made.view, "scene": made.scene,
                "character": sheet.model_dump(mode="json"), "summary": summary}

    @app.get("/campaigns/{campaign_id}", response_model=CampaignView, tags=["campaigns"], responses=CAMPAIGN_ERRORS)
    def get_campaign(campaign_id: Campaign) -> CampaignView:
        """The campaign's committed state."""
        return engine.view(campaign_id)

    @app.get("/campaigns/{campaign_id}/scene", response_model=SceneView, tags=["campaigns"], responses=CAMPAIGN_ERRORS)
    def scene(campaign_id: Campaign, words: FrontendWords) -> SceneView:
        """Where the campaign stands, to show when a player comes back: the scene and the four suggestions that
        stand for the next turn (what 1-4 play)."""
        return engine.scene(campaign_id, words)

    @app.delete("/campaigns/{campaign_id}", status_code=204, tags=["campaigns"],
                responses=answers(401, 404, 409, 422, 503, when={404: GONE, 409: "a turn is being played"}))
    def delete_campaign(campaign_id: Campaign) -> Response:
        """Delete the campaign and everything stored about it (one transaction). Its token stops working."""
        engine.delete_campaign(campaign_id)
        return Response(status_code=204)

    @app.post("/campaigns/{campaign_id}/turns", response_model=TurnView, tags=["turns"], responses=TURN_ERRORS)
    def play_turn(campaign_id: Campaign, body: TurnRequest, words: FrontendWords,
                  idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Play one turn. With an `Idempotency-Key` seen before, the original result is returned (header
        `Idempotent-Replayed: true`) and nothing is played."""
        played = engine.play_turn(campaign_id, body.input, key=idempotency_key, expected=body.expected_turn,
                                  branch=body.branch, words=words)
        return _played(played)

    def timeline_command(campaign_id: str, command: str, body: TimelineRequest | ForkRequest,
                         key: str | None, words: Words, status: int = 200) -> JSONResponse:
        branch = getattr(body, "branch", None)
        played = engine.timeline(campaign_id, command, branch=branch, key=key, expected=body.expected_turn,
                                 words=words)
        return _played(played, status)

    @app.post("/campaigns/{campaign_id}/undo", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
    def undo(campaign_id: Campaign, body: StepsRequest, words: FrontendWords,
               idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Move the branch's head back `turns` turns (at most to the start). Nothing is deleted: `redo` replays them,
        and a turn played now starts a new path (the old one stays, as a variant). Answers with the scene at the new
        head and its four suggestions (`turn_number` is the head's)."""
        return timeline_command(campaign_id, f"/undo {body.turns}", body, idempotency_key, words)

    @app.post("/campaigns/{campaign_id}/redo", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
    def redo(campaign_id: Campaign, body: StepsRequest, words: FrontendWords,
               idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Move the branch's head forward along the turns an undo took back."""
        return timeline_command(campaign_id, f"/redo {body.turns}", body, idempotency_key, words)

    @app.post("/campaigns/{campaign_id}/retry", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
    def retry(campaign_id: Campaign, body: TimelineRequest, words: FrontendWords,
                idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Play the head turn's input again from the turn before it, with the next dice variant: different dice and
        prose, reproducibly. The turn replaced stays as a variant (`pick` goes back to it)."""
        return timeline_command(campaign_id, "/retry", body, idempotency_key, words)

    @app.post("/campaigns/{campaign_id}/pick", response_model=TurnView, tags=["timeline"], responses=TIMELINE_ERRORS)
    def pick(campaign_id: Campaign, body: PickRequest, words: FrontendWords,
               idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Go to another variant of the head turn (a retry, or a turn played at that point after an undo)."""
        return timeline_command(campaign_id, f"/pick {body.variant}", body, idempotency_key, words)

    @app.get("/campaigns/{campaign_id}/branches", response_model=list[BranchView], tags=["timeline"],
             responses=CAMPAIGN_ERRORS)
    def branches(campaign_id: Campaign) -> list[BranchView]:
        """Every branch of the campaign, `main` first: its head, how far `redo` could go, where it stands."""
        return engine.branches(campaign_id)

    @app.post("/campaigns/{campaign_id}/branches", response_model=TurnView, status_code=201, tags=["timeline"],
              responses=TIMELINE_ERRORS)
    def fork(campaign_id: Campaign, body: ForkRequest, words: FrontendWords,
               idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Start a branch at the current branch's head (or at `at_turn` of its line) and make it the current one."""
        at = f" --at {body.at_turn}" if body.at_turn is not None else ""
        return timeline_command(campaign_id, f"/fork {body.name}{at}", body, idempotency_key, words, 201)

    @app.post("/campaigns/{campaign_id}/branches/{name}/switch", response_model=TurnView, tags=["timeline"],
              responses=TIMELINE_ERRORS)
    def switch(campaign_id: Campaign, name: BranchPath, words: FrontendWords,
               idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Make `name` the current branch: what turns without a branch play on, and what the campaign shows."""
        return timeline_command(campaign_id, f"/switch {name}", TimelineRequest(), idempotency_key, words)

    @app.delete("/campaigns/{campaign_id}/branches/{name}", status_code=204, tags=["timeline"],
                responses=TIMELINE_ERRORS)
    def delete_branch(campaign_id: Campaign, name: BranchPath) -> Response:
        """Delete a branch that is not the current one, with every turn no other branch reaches."""
        engine.timeline(campaign_id, f"/delete-branch {name}")
        return Response(status_code=204)

    def stream_claim(campaign_id: Campaign, body: TurnRequest, response: Response, words: FrontendWords,
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

    @app.post("/campaigns/{campaign_id}/turns/stream", response_class=EventSourceResponse, tags=["turns"],
              responses=STREAM_ERRORS | {200: {"content": {"text/event-stream": {"itemSchema": STREAM_EVENTS}}}})
    async def stream_turn(claim: Annotated[Claim, Depends(stream_claim)]) -> AsyncIterator[ServerSentEvent]:
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

        loop.run_in_executor(workers, work)
        slot.handed_off = True  # from here the worker releases the campaign, even if the client goes away
        while True:
            kind, data = await events.get()
            if kind == "end":
                return
            yield ServerSentEvent(event=kind, data=data)

    @app.post("/campaigns/{campaign_id}/cancel", response_model=CancelReply, tags=["turns"],
              responses=CAMPAIGN_ERRORS)
    def cancel_turn(campaign_id: Campaign, branch: Annotated[str | None, Query(
            min_length=1, max_length=40, pattern=BRANCH_PATTERN)] = None) -> CancelReply:
        """Stop the turn being played on the campaign (on `branch`; default: any of its branches) before it is saved.
        `stopping`: it ends unsaved (its request answers 409, its stream with a `cancelled` event) and the campaign
        stays where it was; `too_late`: it was already being saved and is played whole; `none`: no turn is being
        played. A model call under way is not cut short: the turn stops when it reaches Commit."""
        return CancelReply(state=engine.cancel(campaign_id, branch))

    @app.get("/campaigns/{campaign_id}/turns", response_model=TurnPage, tags=["turns"], responses=CAMPAIGN_ERRORS)
    def transcript(campaign_id: Campaign, after_turn: Annotated[int, Query(ge=0, le=10**9)] = 0,
                   limit: Annotated[int, Query(ge=1, le=100)] = 20,
                   branch: Annotated[str | None, Query(min_length=1, max_length=40, pattern=BRANCH_PATTERN)] = None
                   ) -> TurnPage:
        """The transcript of a branch (default: the current one), oldest turn first: up to `limit` turns of its line
        after turn `after_turn` (0: from the start) up to its head. Page on with `after_turn` = the answer's
        `next_after_turn`."""
        return engine.turns(campaign_id, after_turn=after_turn, limit=limit, branch=branch)

    @app.get("/campaigns/{campaign_id}/rumors", response_model=RumorsView, tags=["campaigns"],
             responses=CAMPAIGN_ERRORS)
    def rumors(campaign_id: Campaign) -> RumorsView:
        """Rumors the player has heard, and what the town talks about."""
        return engine.rumors(campaign_id)

    @app.get("/campaigns/{campaign_id}/party", response_model=list[CompanionView], tags=["campaigns"],
             responses=CAMPAIGN_ERRORS)
    def party(campaign_id: Campaign) -> list[CompanionView]:
        """Companions the player has met; `in_party` for those travelling with them."""
        return engine.party(campaign_id)

    @app.get("/campaigns/{campaign_id}/quests", response_model=list[QuestView], tags=["campaigns"],
             responses=CAMPAIGN_ERRORS)
    def quests(campaign_id: Campaign) -> list[QuestView]:
        """Quests taken on, with the current objective."""
        return engine.quests(campaign_id)

    @app.get("/campaigns/{campaign_id}/episodes", response_model=EpisodesView, tags=["campaigns"],
             responses=CAMPAIGN_ERRORS)
    def episodes(campaign_id: Campaign) -> EpisodesView:
        """The running episode, how each finished one went (its evaluation, with a `share_id`), and what can be
        played next: post a turn whose input is `/next` (the suggested one) or `/next ID`."""
        return engine.episodes(campaign_id)

    @app.get("/episodes/{share_id}", response_model=SharedEpisode, tags=["server"],
             responses=answers(404, 422, when={404: "no episode result has this share id here"}))
    def shared_episode(share_id: Annotated[str, Path(pattern="^[0-9a-f]{6,64}$")]) -> SharedEpisode:
        """An episode's result by its `share_id` (shown when the episode ends, and in `/journal`): the summary, key
        moments, playstyle and outcome, and nothing of the campaign it came from. No token needed: a share id is
        meant to be passed around."""
        found = engine.shared(share_id)
        if found is None:
            raise HTTPException(404, f"no episode result has the share id {share_id!r} here")
        return found

    @app.get("/campaigns/{campaign_id}/scenes/{scene_id}/transcript", response_model=list[SceneTranscript],
             tags=["campaigns"], responses=answers(401, 404, 422, 503, when={
                 404: "no such campaign, or the campaign has no scene with this id"}))
    def scene_transcript(campaign_id: Campaign, scene_id: Annotated[str, Path(max_length=200)],
                         fmt: Annotated[str, Query(alias="format", pattern="^(json|md)$")] = "json") -> Any:
        """A multi-character scene's transcript: the scene (place, characters, goal), every line by beat (speaker,
        target, tone, words, gesture) and how it ended. A scene opened twice (the player walked out and came back)
        has two. With `?format=md`, the same as text in the transcript format `skald transcript` prints."""
        found = engine.transcripts(campaign_id, scene_id)
        if not found:
            raise HTTPException(404, f"this campaign has no scene {scene_id!r}")
        if fmt == "md":
            return Response(transcripts_markdown(found), media_type="text/markdown; charset=utf-8")
        return found

    @app.get("/campaigns/{campaign_id}/map", response_model=MapView, tags=["campaigns"], responses=CAMPAIGN_ERRORS)
    def campaign_map(campaign_id: Campaign) -> MapView:
        """The pack's locations and the links between them (travel minutes, risk), with where you are and where you
        have been on this branch: what the play page draws."""
        return engine.map(campaign_id)

    @app.get("/campaigns/{campaign_id}/map.svg", response_class=Response, tags=["campaigns"], responses={
        200: {"content": {"image/svg+xml": {"schema": {"type": "string"}}},
              "description": "the map as SVG (Graphviz's drawing: no scripts, no style attributes)"},
        **answers(401, 404, 422, 503, when={404: GONE, 503: "the campaign's era pack does not load on this server, "
                                                            "or the server cannot draw maps (no Graphviz `dot`)"})})
    def campaign_map_svg(campaign_id: Campaign) -> Response:
        """The map of `/map` drawn: every place and way with its travel time and risk, where you are filled and
        where you have been shaded (SVG, laid out by Graphviz: `skald pack map ID --player` draws the same). 503
        when the server has no Graphviz `dot` program: draw `/map`'s data yourself then."""
        try:
            drawn = player_svg(engine.map(campaign_id))
        except MapError as exc:
            return error(503, str(exc))
        return Response(drawn, media_type="image/svg+xml")

    @app.get("/campaigns/{campaign_id}/news", response_model=NewsView, tags=["campaigns"], responses=CAMPAIGN_ERRORS)
    def news(campaign_id: Campaign) -> NewsView:
        """What has happened in the world lately, oldest first."""
        return engine.news(campaign_id)

    @app.get("/campaigns/{campaign_id}/inventory", response_model=InventoryView, tags=["campaigns"],
             responses=CAMPAIGN_ERRORS)
    def inventory(campaign_id: Campaign) -> InventoryView:
        """What the player carries, and their credits."""
        return engine.inventory(campaign_id)

    return app


def _played(played: Played, status: int = 200) -> JSONResponse:
    headers = {"Idempotent-Replayed": "true"} if played.replayed else None
    return JSONResponse(played.body, status_code=status, headers=headers)


def _pack_view(pack: EraPack) -> dict[str, Any]:
    def ref(location_id: str | None) -> dict[str, str] | None:
        if location_id is None or location_id not in pack.locations:
            return None
        return {"id": location_id, "name": pack.locations[location_id].name}

    return {"id": pack.id, "name": pack.era.name, "era": pack.era.era, "tone": pack.era.tone,
            "backgrounds": [{"id": b.id, "name": b.name, "description": b.description,
                             "start_location": ref(b.start_location)} for b in pack.backgrounds.values()],
            "start_locations": [r for r in map(ref, pack.era.start_locations) if r is not None]}


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
