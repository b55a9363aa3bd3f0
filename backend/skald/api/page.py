"""The play page: a browser client of the HTTP API, served by ``skald serve`` at ``/`` (static files in
``skald/api/web``: one HTML page, one script, one stylesheet; no build step, no framework).

The page and its files get a strict content-security policy (scripts, styles and requests from this server only;
no inline script or style, no frames, no plugins), ``nosniff`` and no referrer. A campaign's id and token are kept
in the browser's ``localStorage``, never in a URL. The API's JSON answers and ``/docs`` keep their own headers.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

WEB = Path(__file__).parent / "web"
ASSETS = "/play"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Cache-Control": "no-cache"}


class _Files(StaticFiles):
    """The page's files, each answered with :data:`HEADERS`."""

    async def get_response(self, path: str, scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(HEADERS)
        return response


def install_page(app: FastAPI) -> None:
    """Serve the play page at ``/`` and its files under ``/play``, each with :data:`HEADERS` (set on the responses
    themselves: a middleware would wrap every API request too)."""
    app.mount(ASSETS, _Files(directory=WEB), name="play")

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(WEB / "index.html", media_type="text/html; charset=utf-8", headers=HEADERS)
