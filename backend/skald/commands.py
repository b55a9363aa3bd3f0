"""The ``skald`` command: the terminal's commands (``skald.cli``) and ``serve``, which runs the HTTP API
(``skald.api``, imported only when the command runs), gathered here so that neither frontend imports the other."""

from __future__ import annotations

from typing import Annotated

import typer

from skald.cli.main import app
from skald.cli.store_option import DbOption, chosen


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8000,
    db: DbOption = None,
    workers: Annotated[int, typer.Option(min=1, max=64, help="worker processes (uvicorn's); more than one wants "
                                         "PostgreSQL (docs/deploy.md)")] = 1,
    reload_packs: Annotated[bool, typer.Option(help="reload an era pack when its files change (an edit with errors "
                                                    "keeps the last good version)")] = False,
    access_log: Annotated[bool, typer.Option(help="print a line for each request on stdout (otherwise it goes to "
                                                  "the log file, SKALD_LOG_FILE)")] = False,
) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs; see docs/api.md). SKALD_ADMIN_KEY enables GET /campaigns."""
    from skald.api.server import serve as run_server

    run_server(host, port, chosen(db), reload_packs, workers=workers, access_log=access_log)
