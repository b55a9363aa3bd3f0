"""The API's edge: what is refused before a route runs, and how every error is answered.

- A request whose headers total more than :data:`MAX_HEADER_BYTES` gets 431; a body over :data:`MAX_BODY_BYTES`
  gets 413 (at once from its ``Content-Length``, else as soon as the bytes read pass the bound).
- A JSON body must be UTF-8, nested at most :data:`MAX_JSON_DEPTH` levels, and hold no lone surrogate (``"\\ud800"``
  is valid JSON but not text: it could not be stored); else 422, with ``errors`` naming the place.
- ``POST /campaigns`` is bounded per client (:class:`CreateLimit`): 429 with ``Retry-After``.
- Every error is JSON :class:`~skald.api.models.ErrorBody`; anything unexpected is logged in full and answered 500.

:func:`answers` declares the same errors in the OpenAPI schema.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable, Coroutine, Iterator
from http.client import responses
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from skald.api.models import ErrorBody
from skald.store.tokens import token_hash

log = logging.getLogger("skald.api")

MAX_BODY_BYTES = 64 * 1024
MAX_HEADER_BYTES = 16 * 1024  # all header names and values of one request; uvicorn's h11 bound is set to match
MAX_JSON_DEPTH = 32  # nested objects and arrays in one body (every body the API takes is 1 level deep)


def error(status: int, detail: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    """The error answer: ``{"detail": ..., **extra}`` (extra: ``turn_number``, ``errors``)."""
    return JSONResponse({"detail": detail, **extra}, status_code=status, headers=headers)


class BodyError(StarletteHTTPException):
    """A request body refused at the edge (413 or 422); ``errors`` lists each place, as a validation error does.
    FastAPI passes a Starlette ``HTTPException`` raised while it reads the body on to the error handlers."""

    def __init__(self, status: int, detail: str, errors: list[dict[str, Any]] | None = None):
        super().__init__(status, detail)
        self.errors = errors


def _too_large() -> BodyError:
    return BodyError(413, f"the request body is over {MAX_BODY_BYTES // 1024} KiB; send less")


# ------------------------------------------------------------------------------------------ JSON bodies


def parse_json(body: bytes) -> Any:
    """``body`` as JSON, refused unless it is UTF-8, at most :data:`MAX_JSON_DEPTH` levels deep and free of lone
    surrogates (in keys and values alike).

    :raises BodyError: 422, with ``errors`` (``loc`` starts with ``body``).
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid(["body"], f"the body is not UTF-8 (byte {exc.start}): send JSON encoded as UTF-8",
                       "json_invalid") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _invalid(["body"], f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                       "json_invalid") from None
    except ValueError as exc:  # an integer over Python's 4,300 digits, which no field of this API takes
        raise _invalid(["body"], f"a number in the body is far too long to be a value of this API ({exc})",
                       "json_invalid") from None
    except RecursionError:
        raise _too_deep(["body"]) from None
    _check_tree(value)
    return value


def _check_tree(value: Any) -> None:
    stack: list[tuple[Any, list[str], int]] = [(value, ["body"], 0)]
    while stack:
        node, loc, depth = stack.pop()
        if isinstance(node, str):
            _check_text(node, loc)
            continue
        if not isinstance(node, dict | list):
            continue
        if depth >= MAX_JSON_DEPTH:
            raise _too_deep(loc)
        for key, child in node.items() if isinstance(node, dict) else enumerate(node):
            where = [*loc, _printable(str(key))]
            if isinstance(key, str):
                _check_text(key, where)
            stack.append((child, where, depth + 1))


def _check_text(text: str, loc: list[str]) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = f"U+{ord(text[exc.start]):04X}"
        raise _invalid(loc, f"{code} is a lone surrogate, half of a UTF-16 pair, and not text: send the character "
                            "itself (or both halves of its \\u escape pair)", "lone_surrogate") from None


def _too_deep(loc: list[str]) -> BodyError:
    return _invalid(loc, f"the body is nested more than {MAX_JSON_DEPTH} levels deep", "json_too_deep")


def _invalid(loc: list[str], msg: str, kind: str) -> BodyError:
    return BodyError(422, f"{'.'.join(loc)}: {msg}", [{"loc": loc, "msg": msg, "type": kind}])


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class _StrictJsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = parse_json(await self.body())
        return self._json


class StrictJsonRoute(APIRoute):
    """A route whose JSON body goes through :func:`parse_json` (FastAPI's custom request class recipe)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(_StrictJsonRequest(request.scope, request.receive))

        return strict


# ------------------------------------------------------------------------------------------ rate limit


class CreateLimit:
    """A FastAPI dependency bounding ``POST /campaigns`` to ``per_minute`` requests per client IP, and per bearer
    token when one is sent (a moving 60-second window each; 0: no bound). Over it: 429 with ``Retry-After`` (whole
    seconds until a request would pass).

    Counts live in this process's memory (``limits``' ``MemoryStorage``, which drops a client's entries once they
    are a minute old), so the bound is per server process. The client IP is the connection's peer, or the
    ``X-Forwarded-For`` of a proxy uvicorn trusts (``--forwarded-allow-ips``, default 127.0.0.1)."""

    def __init__(self, per_minute: int):
        self.per_minute = per_minute
        self.item = RateLimitItemPerMinute(per_minute) if per_minute > 0 else None
        self.storage = MemoryStorage()
        self.limiter = MovingWindowRateLimiter(self.storage)

    def __call__(self, request: Request) -> None:
        if self.item is None:
            return
        keys = [f"ip:{request.client.host if request.client else 'unknown'}"]
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            keys.append(f"token:{token_hash(token.strip())}")
        for key in keys:
            if not self.limiter.hit(self.item, "create_campaign", key):
                reset = self.limiter.get_window_stats(self.item, "create_campaign", key).reset_time
                retry = max(1, math.ceil(reset - time.time()))
                raise HTTPException(429, f"too many new campaigns: at most {self.per_minute} a minute from one "
                                         f"client; try again in {retry} s", headers={"Retry-After": str(retry)})


# ------------------------------------------------------------------------------------------ error answers


def install(app: Any) -> None:
    """Validation and HTTP errors as JSON ``{"detail": ...}`` with a message for a person (never a traceback or a
    file path), and the :class:`Edge` middleware. The engine's own errors are mapped in ``app.py``."""

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": [_printable(str(part)) for part in err.get("loc", ())],
                   "msg": _printable(str(err.get("msg", "invalid"))), "type": str(err.get("type", "invalid"))}
                  for err in exc.errors()]
        detail = "; ".join(f"{'.'.join(e['loc'])}: {e['msg']}" for e in errors) or "invalid request"
        return error(422, detail, errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(getattr(exc, "headers", None) or {})
        detail = str(exc.detail)
        generic = detail == responses.get(exc.status_code)
        if exc.status_code == 404 and generic:
            detail = "there is no such route; the API's routes are listed at /docs and /openapi.json"
        elif exc.status_code == 405:
            allowed = _allowed_methods(request)
            headers["Allow"] = ", ".join(allowed)
            detail = f"{request.method} is not allowed here; this path takes {', '.join(allowed)}"
        extra = {"errors": exc.errors} if isinstance(exc, BodyError) and exc.errors else {}
        return error(exc.status_code, _printable(detail), headers=headers or None, **extra)

    app.add_middleware(Edge)


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route takes on this path (Starlette names only the first route that matched it)."""
    methods: set[str] = set()
    for route in _every_route(request.app.router.routes):
        if getattr(route, "methods", None) and route.matches(request.scope)[0] != Match.NONE:
            methods |= set(route.methods)
    return sorted(methods)


def _every_route(routes: list[Any]) -> Iterator[Any]:
    """``routes`` with the routes of every included router in their place (FastAPI keeps an included ``APIRouter``
    as one entry; Skald's routers are included without a prefix, so their routes match the full path)."""
    for route in routes:
        inner = getattr(getattr(route, "original_router", None), "routes", None)
        if inner is not None:
            yield from _every_route(inner)
        else:
            yield route


class Edge:
    """Pure ASGI middleware: the header and body bounds, and the last line of defence (any exception: logged with
    its traceback, answered 500). It sits inside Starlette's ServerErrorMiddleware, which would re-raise the
    exception to uvicorn and drop the keep-alive connection."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        head = sum(len(name) + len(value) for name, value in scope["headers"])
        if head > MAX_HEADER_BYTES:
            await error(431, f"the request headers total {head:,} bytes; the limit is {MAX_HEADER_BYTES // 1024} "
                             "KiB")(scope, receive, send)
            return
        if _content_length(scope) > MAX_BODY_BYTES:
            await error(413, _too_large().detail)(scope, receive, send)
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    raise _too_large()
            return message

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watch)
        except BodyError as exc:  # read outside a route (where FastAPI would have handled it)
            if not started:
                await error(exc.status_code, exc.detail)(scope, receive, send)
        except Exception as exc:  # noqa: BLE001 - the last line of defence; logged in full
            log.error("unhandled error on %s %s", scope.get("method"), scope.get("path"), exc_info=exc)
            if started:  # too late for another response: the client sees the body end early
                return
            await error(500, "internal server error; the server log has the details")(scope, receive, send)


def _content_length(scope: Scope) -> int:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


# ------------------------------------------------------------------------------------------ OpenAPI


WHEN = {
    401: "missing or invalid token",
    403: "forbidden",
    404: "not found",
    405: "the method is not one this path takes; `Allow` lists those it does",
    409: "conflict; `turn_number` is the campaign's turn now",
    413: f"the request body is over {MAX_BODY_BYTES // 1024} KiB",
    422: "invalid request: a field, malformed JSON, a body nested over "
         f"{MAX_JSON_DEPTH} levels or a lone surrogate (`errors` lists each place)",
    429: "too many requests from this client; `Retry-After` says when to try again",
    431: f"the request headers total over {MAX_HEADER_BYTES // 1024} KiB",
    500: "internal server error (logged on the server; the answer carries no details)",
    503: "the campaign's era pack does not load on this server",
}
HEADERS = {
    401: {"WWW-Authenticate": {"description": "`Bearer`", "schema": {"type": "string"}}},
    405: {"Allow": {"description": "the methods this path takes, e.g. `GET, HEAD`", "schema": {"type": "string"}}},
    429: {"Retry-After": {"description": "seconds until a request would pass", "schema": {"type": "integer"}}},
}
EVERY_ROUTE = (405, 413, 431, 500)


def answers(*statuses: int, stream: bool = False,
            when: dict[int, str] | None = None) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of a route for ``statuses`` and :data:`EVERY_ROUTE`: each an ``ErrorBody`` as
    ``application/json`` (also on the streaming route, whose errors come before the stream), with the headers
    401, 405 and 429 carry. ``when`` overrides descriptions: ``answers(404, when={404: "unknown pack"})``."""
    when = when or {}
    out: dict[int | str, dict[str, Any]] = {}
    for status in sorted({*statuses, *EVERY_ROUTE}):
        spec: dict[str, Any] = {"description": when.get(status, WHEN[status])}
        if stream:
            spec["content"] = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
        else:
            spec["model"] = ErrorBody
        if status in HEADERS:
            spec["headers"] = HEADERS[status]
        out[status] = spec
    return out
