"""The interactive API docs, ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), served with no network.

FastAPI's own docs pages load their JavaScript and CSS from a CDN, so they are blank offline. Following FastAPI's
recipe for self-hosting the docs assets ("Custom Docs UI Static Assets"), the app is built with ``docs_url=None`` and
``redoc_url=None`` and these routes serve the same pages with every asset from :data:`ASSETS_URL`: the files the
``fastapi-offline`` package ships (Swagger UI 5 and ReDoc 2 bundles), mounted with ``StaticFiles``. Nothing is
downloaded at run time.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS_PACKAGE = ("fastapi_offline", "static")  # swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js, favicon
ASSETS_URL = "/docs/assets"
DOCS_URL = "/docs"
REDOC_URL = "/redoc"

# Swagger UI's default online validator would fetch a badge from a remote host; there is none to reach offline.
SWAGGER_UI_PARAMETERS = {"validatorUrl": None}


def install_docs(app: FastAPI) -> None:
    """Add ``/docs``, its OAuth2 redirect page, ``/redoc`` and the assets they load to ``app`` (built with
    ``docs_url=None, redoc_url=None``). A proxy's ``root_path`` prefixes every URL the pages load, as in FastAPI's
    own docs routes."""
    assert app.openapi_url is not None and app.swagger_ui_oauth2_redirect_url is not None
    openapi_url, oauth2_redirect_url = app.openapi_url, app.swagger_ui_oauth2_redirect_url
    app.mount(ASSETS_URL, StaticFiles(packages=[ASSETS_PACKAGE]), name="docs-assets")

    def root(request: Request) -> str:
        return str(request.scope.get("root_path", "")).rstrip("/")

    @app.get(DOCS_URL, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        prefix = root(request)
        return get_swagger_ui_html(
            openapi_url=prefix + openapi_url, title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=prefix + oauth2_redirect_url, init_oauth=app.swagger_ui_init_oauth,
            swagger_js_url=f"{prefix}{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{prefix}{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{prefix}{ASSETS_URL}/favicon.png",
            swagger_ui_parameters=SWAGGER_UI_PARAMETERS | (app.swagger_ui_parameters or {}))

    @app.get(oauth2_redirect_url, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get(REDOC_URL, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        prefix = root(request)
        return get_redoc_html(openapi_url=prefix + openapi_url, title=f"{app.title} - ReDoc",
                              redoc_js_url=f"{prefix}{ASSETS_URL}/redoc.standalone.js",
                              redoc_favicon_url=f"{prefix}{ASSETS_URL}/favicon.png", with_google_fonts=False)
