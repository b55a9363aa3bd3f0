"""The interactive API docs work with no network: /docs (Swagger UI) and /redoc load every script, stylesheet and
icon from the server itself (the assets of the fastapi-offline package), never from a CDN. Checked against the real
app on a loopback uvicorn server, as a browser would fetch the pages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from urllib.parse import urlsplit

import httpx
import pytest
from skald.api import create_app
from skald.api.server import LiveServer

CDN_HOSTS = ("cdn.jsdelivr.net", "unpkg.com", "cdnjs.cloudflare.com", "fonts.googleapis.com", "fonts.gstatic.com",
             "fastapi.tiangolo.com")


class _Assets(HTMLParser):
    """Every URL a page makes the browser load: <script src>, <link href>, <img src>."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[tuple[str, str]] = []  # (tag, url)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"script": "src", "link": "href", "img": "src"}.get(tag)
        for name, value in attrs:
            if name == wanted and value:
                self.urls.append((tag, value))


def page_assets(html: str) -> list[tuple[str, str]]:
    parser = _Assets()
    parser.feed(html)
    return parser.urls


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    app = create_app(tmp_path_factory.mktemp("docs") / "skald.db")
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=20) as http:
        yield http


def assert_local_page(client: httpx.Client, path: str) -> list[tuple[str, str]]:
    reply = client.get(path)
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/html")
    html = reply.text
    for host in CDN_HOSTS:
        assert host not in html, f"{path} still points at {host}"
    assert not re.findall(r"(?:https?:)?//[\w.-]+\.\w", html), f"{path} loads something from another host"
    assets = page_assets(html)
    for _, url in assets:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc and url.startswith("/"), f"{path}: {url} is not a local path"
    return assets


def assert_served(client: httpx.Client, url: str, content_type: str, min_bytes: int) -> None:
    reply = client.get(url)
    assert reply.status_code == 200, f"{url}: {reply.status_code}"
    assert reply.headers["content-type"].split(";")[0] == content_type, (url, reply.headers["content-type"])
    assert len(reply.content) >= min_bytes, f"{url} is only {len(reply.content)} bytes"


def test_swagger_ui_loads_its_script_and_stylesheet_from_this_server(client: httpx.Client) -> None:
    assets = assert_local_page(client, "/docs")
    scripts = [url for tag, url in assets if tag == "script"]
    styles = [url for tag, url in assets if tag == "link" and url.endswith(".css")]
    assert [url.rsplit("/", 1)[1] for url in scripts] == ["swagger-ui-bundle.js"]
    assert [url.rsplit("/", 1)[1] for url in styles] == ["swagger-ui.css"]
    for url in scripts:
        assert_served(client, url, "text/javascript", 500_000)  # the whole Swagger UI bundle, not a stub
    for url in styles:
        assert_served(client, url, "text/css", 50_000)
    icons = [url for tag, url in assets if tag == "link" and url.endswith(".png")]
    assert icons
    for url in icons:
        assert_served(client, url, "image/png", 100)
    assert "SwaggerUIBundle" in client.get(scripts[0]).text


def test_swagger_ui_reads_this_servers_schema_and_has_its_oauth2_redirect_page(client: httpx.Client) -> None:
    html = client.get("/docs").text
    assert "url: '/openapi.json'" in html
    assert "/campaigns/{campaign_id}/turns" in client.get("/openapi.json").json()["paths"]
    assert "'/docs/oauth2-redirect'" in html
    redirect = client.get("/docs/oauth2-redirect")
    assert redirect.status_code == 200 and "oauth2" in redirect.text.lower()
    assert '"validatorUrl": null' in html  # no badge fetched from the online validator


def test_redoc_loads_its_standalone_script_from_this_server_without_web_fonts(client: httpx.Client) -> None:
    assets = assert_local_page(client, "/redoc")
    scripts = [url for tag, url in assets if tag == "script"]
    assert [url.rsplit("/", 1)[1] for url in scripts] == ["redoc.standalone.js"]
    assert_served(client, scripts[0], "text/javascript", 500_000)
    assert 'spec-url="/openapi.json"' in client.get("/redoc").text


def test_the_docs_routes_stay_out_of_the_schema_and_a_missing_asset_is_a_json_404(client: httpx.Client) -> None:
    paths = set(client.get("/openapi.json").json()["paths"])
    assert not {p for p in paths if p.startswith(("/docs", "/redoc"))}
    missing = client.get("/docs/assets/nothing-here.js")
    assert missing.status_code == 404 and "detail" in missing.json()
