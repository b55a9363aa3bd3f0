"""Ollama's wire protocol on a loopback port, the part shared by the project's two Ollama servers: the test server
(``tests/fake_ollama.py``, scripted replies and faults) and the bench's simulated Ollama (``bench/ttft_server.py``,
scripted-model replies costed on a simulated machine).

* :class:`LoopbackServer`: a threaded HTTP server on 127.0.0.1 at an ephemeral port, started and stopped (or used as
  a context manager); ``stop`` joins every request thread, so nothing leaks between tests.
* :class:`WireHandler`: reading a request's JSON body, answering JSON (``{"error": ...}`` with a status for errors),
  and streaming ``application/x-ndjson`` lines with chunked transfer encoding, as Ollama streams ``/api/chat``.
  Every response closes its connection.

The protocol is Ollama's own, as its API reference documents it (github.com/ollama/ollama, ``docs/api.md``).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 whose requests :attr:`handler` serves; the handler reaches this object as
    ``self.owner``. Subclasses set :attr:`handler` and :attr:`thread_name`, and may hook :meth:`_starting` and
    :meth:`_stopping` (called before the server starts and before it shuts down)."""

    handler: type[BaseHTTPRequestHandler]
    thread_name = "loopback-ollama"

    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``. :raises AssertionError: the server is not started."""
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> Self:
        self._starting()
        server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler)
        server.daemon_threads = False  # request threads are joined by server_close: no leaks
        server.block_on_close = True
        server.owner = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping()
        self._server.shutdown()
        self._server.server_close()
        assert self._thread is not None
        self._thread.join(timeout=5)
        self._server = None

    def _starting(self) -> None:
        """Called before the server starts."""

    def _stopping(self) -> None:
        """Called before the server shuts down (e.g. to wake scripted waits)."""

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class WireHandler(BaseHTTPRequestHandler):
    """What both servers' handlers share: JSON in, JSON or a chunked NDJSON stream out."""

    protocol_version = "HTTP/1.1"  # chunked streaming, like Ollama
    timeout = 5  # bound on reading a request

    @property
    def owner(self) -> Any:
        return self.server.owner  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence per-request logging
        pass

    def read_json(self) -> tuple[dict[str, Any] | None, bytes]:
        """The request's body parsed as JSON (``{}`` when empty; None when it is not JSON), and its raw bytes."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"{}"), raw
        except ValueError:
            return None, raw

    def send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def begin_stream(self) -> None:
        """The headers of an NDJSON stream; then :meth:`send_line` per line and :meth:`end_stream`."""
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def send_line(self, line: dict[str, Any]) -> None:
        data = json.dumps(line).encode() + b"\n"
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
