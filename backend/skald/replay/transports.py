"""httpx transports under ``ChatOllama``: one that records every ``/api/chat`` exchange while passing it on,
and one that answers from a recording. Both sit below the real client, so recording, replay and live play
run the same LLM code (streaming, structured output, retries, breaker, fallbacks).

Requests are tagged with their role in the ``X-Skald-Role`` header (``llm.client.ROLE_HEADER``); exchanges
are grouped by turn (``begin_turn``) and matched on replay by lane and call order within the turn. A lane is the
role, except for the ``character`` role, whose calls run in parallel (one per scene character, in whatever order
the threads reach the server): each character is a lane of its own (``character:<name>``), so a replay serves every
character the reply it got, whatever order the calls come in.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import httpx

from skald.llm.client import ROLE_HEADER
from skald.llm.tee import Tee
from skald.replay.recording import Exchange, request_hash, request_of

KEEP = ("model", "message", "done", "done_reason", "prompt_eval_count", "eval_count", "error")  # not timings


def lane(role: str, body: dict[str, Any]) -> str:
    """The lane a request is counted in: its role, or ``character:<name>`` for a scene character (from ``You are
    <name>,`` in its voice sheet)."""
    if role != "character":
        return role
    users = [str(m.get("content") or "") for m in body.get("messages") or [] if m.get("role") == "user"]
    found = re.search(r"You are ([^,\n]+),", users[-1] if users else "")
    return f"character:{found.group(1).strip()}" if found else role


def _clean(line: dict[str, Any]) -> dict[str, Any]:
    return {k: line[k] for k in KEEP if k in line}


class _Turns:
    """Shared bookkeeping: the current turn and a per-role call counter."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.turn = 0
        self.counts: dict[str, int] = {}

    def begin_turn(self, number: int) -> None:
        with self.lock:
            self.turn = number
            self.counts = {}

    def next_seq(self, role: str) -> int:
        with self.lock:
            self.counts[role] = self.counts.get(role, 0) + 1
            return self.counts[role]


class RecordingTransport(httpx.BaseTransport, _Turns):
    """Forward every request to ``inner`` (a real ``httpx.HTTPTransport`` or a scripted one) and keep each
    ``/api/chat`` exchange as an :class:`Exchange` of the current turn."""

    def __init__(self, inner: httpx.BaseTransport):
        _Turns.__init__(self)
        self.inner = inner
        self.exchanges: list[Exchange] = []

    def take(self, turn: int) -> list[Exchange]:
        """The exchanges recorded for ``turn``, in the order they completed (and forget them)."""
        with self.lock:
            mine = [x for x in self.exchanges if x.turn == turn]
            self.exchanges = [x for x in self.exchanges if x.turn != turn]
        return mine

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/api/chat"):
            return self.inner.handle_request(request)
        body = request_of(json.loads(request.content))
        role = lane(request.headers.get(ROLE_HEADER, "?"), body)
        turn, seq = self.turn, self.next_seq(role)

        def keep(response: dict[str, Any]) -> None:
            with self.lock:
                self.exchanges.append(Exchange(turn, role, seq, body, response))

        try:
            response = self.inner.handle_request(request)
        except httpx.TransportError as exc:
            keep({"raise": type(exc).__name__, "message": str(exc)})
            raise

        def done(data: bytes) -> None:
            text = data.decode("utf-8", errors="replace")
            if response.status_code != 200:
                try:
                    error = json.loads(text).get("error", text)
                except ValueError:
                    error = text
                keep({"status": response.status_code, "error": error})
                return
            lines = [_clean(json.loads(line)) for line in text.splitlines() if line.strip()]
            keep({"status": 200, "lines": lines})

        return httpx.Response(response.status_code, headers=response.headers,
                              stream=Tee(response.stream, done), extensions=response.extensions)


class ReplayTransport(httpx.BaseTransport, _Turns):
    """Answer ``/api/chat`` from recorded exchanges, matched by (turn, role, call order).

    A request whose hash differs from the recorded one is still answered with the recorded reply, and noted
    in ``prompt_changes`` (with the new request, for ``--update``); a call with nothing recorded gets HTTP 500
    and is noted in ``unexpected``; recorded calls never made are reported by :meth:`unused`.
    """

    def __init__(self, exchanges: list[Exchange]):
        _Turns.__init__(self)
        self.recorded = {(x.turn, x.role, x.seq): x for x in exchanges}
        self.used: set[tuple[int, str, int]] = set()
        self.prompt_changes: list[tuple[Exchange, dict[str, Any]]] = []
        self.unexpected: list[tuple[int, str, int, dict[str, Any]]] = []
        self.served: list[Exchange] = []

    def unused(self, turn: int) -> list[Exchange]:
        return [x for key, x in self.recorded.items() if key[0] == turn and key not in self.used]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/api/chat"):
            return httpx.Response(200, json={"models": []})
        body = request_of(json.loads(request.content))
        role = lane(request.headers.get(ROLE_HEADER, "?"), body)
        key = (self.turn, role, self.next_seq(role))
        recorded = self.recorded.get(key)
        if recorded is None:
            with self.lock:
                self.unexpected.append((*key, body))
            return httpx.Response(500, json={"error": "this call is not in the recording"})
        with self.lock:
            self.used.add(key)
            if request_hash(body) != request_hash(recorded.request):
                self.prompt_changes.append((recorded, body))
            self.served.append(Exchange(recorded.turn, recorded.role, recorded.seq, body, recorded.response))
        response = recorded.response
        if "raise" in response:
            error = getattr(httpx, response["raise"], httpx.ConnectError)
            raise error(response.get("message", "recorded transport error"), request=request)
        if response["status"] != 200:
            return httpx.Response(response["status"], json={"error": response["error"]})
        content = "".join(json.dumps(line) + "\n" for line in response["lines"]).encode()
        return httpx.Response(200, headers={"content-type": "application/x-ndjson"}, content=content)
