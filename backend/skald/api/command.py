"""``skald serve``: the HTTP API under uvicorn (imported only when the command runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8000,
    db: Annotated[Path | None, typer.Option(help="save file (default: SKALD_DB_PATH)")] = None,
    reload_packs: Annotated[bool, typer.Option(help="reload an era pack when its files change (an edit with errors "
                                                    "keeps the last good version)")] = False,
) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs; see docs/api.md). SKALD_ADMIN_KEY enables GET /campaigns."""
    from skald.api.server import serve as run_server
    from skald.settings import settings_or_exit

    settings = settings_or_exit()
    run_server(host, port, db or settings.db_path, reload_packs)
