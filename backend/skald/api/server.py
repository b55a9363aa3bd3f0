"""Running the API with uvicorn: :func:`serve` for ``skald serve``, and :class:`LiveServer`, a real server on a
loopback port in a background thread (the tests and ``bench/api.py`` use it). Both run uvicorn's h11 protocol with
:data:`HTTP_LIMITS`, so a request head is bounded while it arrives (httptools, uvicorn's default when installed,
buffers headers of any size)."""

from __future__ import annotations

import copy
import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
import uvicorn.config
from fastapi import FastAPI

from skald.api.app import create_app
from skald.api.edge import MAX_HEADER_BYTES

HTTP_LIMITS: dict[str, Any] = {"http": "h11", "h11_max_incomplete_event_size": 4 * MAX_HEADER_BYTES}
"""A request head (request line and headers) still incomplete past 64 KiB is refused by uvicorn with a plain-text
400 and the connection closed; every head up to that size reaches the app, which answers JSON 431 when its headers
total over 16 KiB (``edge.MAX_HEADER_BYTES``)."""


def log_config(access_log: bool = False) -> dict[str, Any]:
    """uvicorn's logging configuration, with its access lines (one per request) on stdout only when ``access_log``;
    otherwise they go where every other log goes (the log file, ``skald.logs``). Its start-up and error lines stay on
    stderr."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    if not access_log:
        config["handlers"]["to_root"] = {"()": "skald.logs.ToRoot"}
        config["loggers"]["uvicorn.access"] = {"handlers": ["to_root"], "level": "INFO", "propagate": False}
    return config


def serve(host: str = "127.0.0.1", port: int = 8000, db: Path | str | None = None, reload_packs: bool = False,
          log_level: str = "info", workers: int = 1, access_log: bool = False) -> None:
    """Serve the API until interrupted (Ctrl-C). With ``workers`` > 1, uvicorn starts that many processes, each
    building its own app (:func:`worker_app`) over the same store, passed to them as ``SKALD_DB_URL`` (and
    ``SKALD_RELOAD_PACKS``); nothing they must agree on lives in a process's memory (docs/deploy.md). ``access_log``:
    print uvicorn's line for each request on stdout (:func:`log_config`)."""
    from skald import logs

    logs.show(logging.WARNING)  # the operator sees warnings and errors; the rest is in the log file
    logged = {"log_config": log_config(access_log), "log_level": log_level}
    if workers == 1:
        app = create_app(db, reload_packs=reload_packs)
        uvicorn.run(app, host=host, port=port, timeout_graceful_shutdown=10, **logged, **HTTP_LIMITS)
        return
    if db is not None:
        os.environ["SKALD_DB_URL"] = db if isinstance(db, str) else f"sqlite:///{Path(db).resolve()}"
    os.environ["SKALD_RELOAD_PACKS"] = "true" if reload_packs else "false"
    uvicorn.run("skald.api.server:worker_app", factory=True, workers=workers, host=host, port=port,
                timeout_graceful_shutdown=10, **logged, **HTTP_LIMITS)


def worker_app() -> FastAPI:
    """The app of one of ``skald serve --workers N``'s processes: the settings' store (``SKALD_DB_URL``), its logs
    sent where :func:`serve` sends them (``skald.logs``; a worker is a fresh process)."""
    from skald import logs
    from skald.settings import get_settings

    logs.configure(logs.log_file())
    logs.show(logging.WARNING)
    return create_app(reload_packs=get_settings().reload_packs)


class LiveServer:
    """``with LiveServer(app) as server: httpx.get(server.url + "/health")``: uvicorn on 127.0.0.1, on an ephemeral
    port, in a daemon thread; stopped (and joined) on exit. ``config``: more ``uvicorn.Config`` arguments (they
    override :data:`HTTP_LIMITS`)."""

    def __init__(self, app: FastAPI, **config: Any):
        self.app = app
        self.config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", access_log=False,
                                     timeout_graceful_shutdown=5, **(HTTP_LIMITS | config))
        self.server = uvicorn.Server(self.config)
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def start(self, timeout_s: float = 10.0) -> LiveServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._socket = sock
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, name="skald-api",
                                        daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the API server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._thread is None:
            return
        self.server.should_exit = True
        self._thread.join(timeout=15)
        self._thread = None
        if self._socket is not None:
            self._socket.close()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
