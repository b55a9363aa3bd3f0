"""A small stand-in for an Ollama server, for tests that drive the real ``ChatOllama`` client.

It speaks the two endpoints Skald uses, the way Ollama does:

* ``GET /api/tags``: ``{"models": [{"name": ..., "model": ...}, ...]}``.
* ``POST /api/chat``: with ``"stream": true`` (what ``ChatOllama`` sends, even for ``invoke``), an
  ``application/x-ndjson`` body sent with chunked transfer encoding: one ``ChatResponse`` line per piece of the
  content (``done: false``), then a final line with empty content, ``done: true``, ``done_reason`` and the eval
  counts. With ``"stream": false``, one JSON ``ChatResponse``. Errors are ``{"error": "..."}`` with a status code.

Replies are scripted per model (or for :data:`ANY` model) as a queue and/or a standing reply; a reply may also
be a function of the request body. Lookup order: the model's queue, the ANY queue, the model's standing reply,
the ANY standing reply, else 404 "model not found" (as Ollama answers). Every request is recorded in
:attr:`FakeOllama.requests`.

The final ``done`` line reports ``prompt_eval_count`` (by default one token per four characters of the request's
messages) and ``eval_count`` (by default the words of the whole reply); a reply can set either. A :class:`Gate`
holds a stream before a given line until the test releases it.

    with FakeOllama(models=["nar"]) as server:
        server.always("nar", text("You look around."))
        server.queue("nar", http_error(500))          # the next call fails, later calls get the standing reply
        ...  Settings(ollama_base_url=server.url, ...)

        gate = Gate()
        server.queue("nar", held("First. Second.", gate, after=1))  # one line, then wait for gate.release()
        server.always(ANY, hung())                    # every model hangs until the server stops
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from support import ROOT

if str(ROOT) not in sys.path:  # `python -m pytest` from the root has it; the `pytest` script does not
    sys.path.insert(0, str(ROOT))
from bench.ollama_wire import LoopbackServer, WireHandler  # noqa: E402

ANY = "*"  # script key matching every model


@dataclass(eq=False)
class Gate:
    """Holds a streamed reply at one line: ``reached`` is set when the stream gets there, and the line (and the
    rest) goes out once :meth:`release` is called (or the server stops)."""

    reached: threading.Event = field(default_factory=threading.Event)
    opened: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.opened.set()


@dataclass(frozen=True)
class Reply:
    """One scripted answer to ``/api/chat``.

    :param content: the assistant message content (split into ``chunk_chars`` pieces when streaming).
    :param status: HTTP status; anything but 200 sends ``{"error": error}`` instead of a chat reply.
    :param delay_s: wait before sending the headers (a model that is slow to answer, or a hang).
    :param chunk_delay_s: wait between streamed lines (a model that answers slowly but steadily).
    :param stream_error: sent as an ``{"error": ...}`` line after the content, as Ollama does mid-stream.
    :param prompt_eval_count: prompt tokens reported in the final line (default: request characters / 4).
    :param eval_count: output tokens reported in the final line (default: words in ``content``).
    :param gate: hold the stream before line ``gate_after`` (0-based; the final line counts) until released.
    :param tool_calls: Ollama tool calls (``{"function": {"name", "arguments"}}``), sent in one line after the
        content, as Ollama streams them.
    :param done_reason: the final line's ``done_reason``: ``stop``, or ``length`` for a reply cut at ``num_predict``.
    :param thinking: what a thinking model reasons before it answers. Sent as Ollama sends it: in
        ``message.thinking`` when the request asked ``think: true``, not at all with ``think: false``, and leaked into
        the content as a ``<think>`` block when the request said nothing (the model's default).
    :param final: more fields of the final line, or ones to put in place of the defaults (``load_duration`` in
        nanoseconds, ``prompt_eval_cached_count`` as newer Ollama versions send it).
    """

    content: str = ""
    status: int = 200
    error: str = "internal server error"
    delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    chunk_chars: int = 16
    stream_error: str | None = None
    prompt_eval_count: int | None = None
    eval_count: int | None = None
    gate: Gate | None = None
    gate_after: int = 1
    tool_calls: tuple[dict[str, Any], ...] = ()
    done_reason: str = "stop"
    thinking: str | None = None
    final: tuple[tuple[str, Any], ...] = ()


Responder = Reply | Callable[[dict[str, Any]], Reply]


def text(content: str, **kw: Any) -> Reply:
    """Answer with this content."""
    return Reply(content=content, **kw)


def taking_turns(*contents: str, **kw: Any) -> Callable[[dict[str, Any]], Reply]:
    """Answer with each of ``contents`` in turn (a narrator that does not tell two turns the same way: one that did
    would be refused as a repeat, as ``llm.hygiene`` refuses a real model's)."""
    calls = itertools.count()

    def respond(body: dict[str, Any]) -> Reply:
        return Reply(content=contents[next(calls) % len(contents)], **kw)
    return respond


def json_reply(value: Any, **kw: Any) -> Reply:
    """Answer with ``value`` serialised as the message content (what a ``format``-constrained model returns)."""
    return Reply(content=json.dumps(value), **kw)


def slow(content: str, chunk_delay_s: float, chunk_chars: int = 16) -> Reply:
    """Stream ``content`` with a pause before every line."""
    return Reply(content=content, chunk_delay_s=chunk_delay_s, chunk_chars=chunk_chars)


def hang(seconds: float, content: str = "too late") -> Reply:
    """Say nothing for ``seconds`` (past the client's timeout), then answer. ``stop()`` cuts the wait short."""
    return Reply(content=content, delay_s=seconds)


def hung() -> Reply:
    """Accept the request and never answer: no status line, no byte, until ``stop()`` (a model that hangs)."""
    return Reply(content="never sent", delay_s=math.inf)


def tool_call(tool: str, /, _content: str = "", **arguments: Any) -> Reply:
    """Answer with a call of ``tool`` with ``arguments`` (and ``_content`` before it, if any)."""
    return Reply(content=_content, tool_calls=({"function": {"name": tool, "arguments": arguments}},))


def tool_calls(*calls: tuple[str, dict[str, Any]], content: str = "") -> Reply:
    """Answer with several tool calls at once: ``("name", {args}), ...``."""
    return Reply(content=content, tool_calls=tuple({"function": {"name": n, "arguments": a}} for n, a in calls))


def http_error(status: int = 500, error: str = "internal server error") -> Reply:
    return Reply(status=status, error=error)


def empty() -> Reply:
    """A reply with no content at all: just the final ``done`` line."""
    return Reply(content="")


def held(content: str, gate: Gate, after: int = 1, chunk_chars: int = 16) -> Reply:
    """Stream ``after`` lines of ``content``, then wait for ``gate.release()`` before the rest."""
    return Reply(content=content, gate=gate, gate_after=after, chunk_chars=chunk_chars)


class FakeOllama(LoopbackServer):
    """A threaded Ollama-like HTTP server on 127.0.0.1, on an ephemeral port.

    Use as a context manager, or call :meth:`start` and :meth:`stop`. ``stop`` wakes any scripted waits,
    shuts the server down and joins every request thread.

    :param models: names listed by ``/api/tags`` (models that are scripted are listed too).
    :param thinkers: the models that can think; with ``strict_think``, any other model asked with a ``think`` field
        answers HTTP 400 '"<model>" does not support thinking', as some Ollama versions do even for ``think: false``.
    """

    def __init__(self, models: list[str] | tuple[str, ...] = (), thinkers: tuple[str, ...] = (),
                 strict_think: bool = False):
        self.models = list(models)
        self.thinkers = set(thinkers)
        self.strict_think = strict_think
        self.requests: list[dict[str, Any]] = []  # {"method", "path", "body"}, in arrival order
        self._queues: dict[str, deque[Responder]] = {}
        self._standing: dict[str, Responder] = {}
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)  # notified as each request is recorded
        self._stop = threading.Event()

    # -- scripting ------------------------------------------------------------------------------------------

    def queue(self, model: str, *replies: Responder) -> FakeOllama:
        """Answer the next calls for ``model`` (or :data:`ANY`) with these replies, in order."""
        with self._lock:
            self._queues.setdefault(model, deque()).extend(replies)
        return self

    def always(self, model: str, reply: Responder) -> FakeOllama:
        """Answer every call for ``model`` (or :data:`ANY`) with ``reply`` once its queue is empty."""
        with self._lock:
            self._standing[model] = reply
        return self

    def _next_reply(self, model: str, body: dict[str, Any]) -> Reply:
        with self._lock:
            for key in (model, ANY):
                if self._queues.get(key):
                    responder: Responder | None = self._queues[key].popleft()
                    break
            else:
                responder = self._standing.get(model, self._standing.get(ANY))
        if responder is None:
            return http_error(404, f'model "{model}" not found, try pulling it first')
        if not callable(responder):
            return responder
        try:
            return responder(body)
        except Exception as exc:  # a broken test responder shows up in the client's error, not as a hang
            return http_error(500, f"fake responder failed: {exc!r}")

    # -- inspection -----------------------------------------------------------------------------------------

    def chat_requests(self, model: str | None = None) -> list[dict[str, Any]]:
        """Bodies of the ``/api/chat`` requests received (for ``model`` only, when given)."""
        with self._lock:
            return [r["body"] for r in self.requests
                    if r["path"] == "/api/chat" and (model is None or r["body"].get("model") == model)]

    def wait_for_chats(self, count: int, timeout_s: float = 60) -> bool:
        """Wait until at least ``count`` ``/api/chat`` requests have arrived (a call started in a background thread
        reaches the server a moment after it is counted); False if ``timeout_s`` passes first (a bound, not a
        timing)."""
        with self._arrived:
            return self._arrived.wait_for(
                lambda: sum(r["path"] == "/api/chat" for r in self.requests) >= count, timeout_s)

    # -- lifecycle (bench.ollama_wire.LoopbackServer) ---------------------------------------------------------

    def _starting(self) -> None:
        self._stop.clear()

    def _stopping(self) -> None:
        self._stop.set()  # wakes every scripted delay

    def _wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds`` (``math.inf``: until the server stops); False if the server is stopping."""
        return not (seconds > 0 and self._stop.wait(None if math.isinf(seconds) else seconds))

    def _wait_for(self, gate: Gate) -> bool:
        """Wait until ``gate`` is released; False if the server is stopping first."""
        gate.reached.set()
        while not gate.opened.wait(0.02):
            if self._stop.is_set():
                return False
        return True


def prompt_tokens(body: dict[str, Any]) -> int:
    """The default ``prompt_eval_count``: one token per four characters of the request's message contents."""
    return max(1, math.ceil(sum(len(m.get("content") or "") for m in body.get("messages", [])) / 4))


def _chat_line(model: str, content: str, done: bool, reply: Reply | None = None,
               body: dict[str, Any] | None = None) -> dict[str, Any]:
    line: dict[str, Any] = {"model": model, "created_at": "2025-01-01T00:00:00.000000Z",
                            "message": {"role": "assistant", "content": content}, "done": done}
    if done:
        reply = reply or Reply(content=content)
        prompt = reply.prompt_eval_count if reply.prompt_eval_count is not None else prompt_tokens(body or {})
        output = reply.eval_count if reply.eval_count is not None else len(reply.content.split())
        line |= {"done_reason": reply.done_reason, "total_duration": 1_000_000, "load_duration": 1000,
                 "prompt_eval_count": prompt, "prompt_eval_duration": 1000, "eval_count": output,
                 "eval_duration": 1000} | dict(reply.final)
    return line


class _Handler(WireHandler):
    @property
    def fake(self) -> FakeOllama:
        return self.owner

    def do_GET(self) -> None:
        self._record(None)
        if self.path == "/api/tags":
            names = list(dict.fromkeys(self.fake.models + [m for m in self.fake._standing if m != ANY]))
            self.send_json(200, {"models": [{"name": n, "model": n, "size": 1, "digest": "0" * 12} for n in names]})
        else:
            self.send_json(404, {"error": "not found"})

    def do_POST(self) -> None:
        body, raw = self.read_json()
        if body is None:
            self._record({"_raw": raw.decode(errors="replace")})
            self.send_json(400, {"error": "invalid JSON body"})
            return
        self._record(body)
        if self.path != "/api/chat":
            self.send_json(404, {"error": "not found"})
            return
        model = body.get("model", "")
        if "think" in body and self.fake.strict_think and model not in self.fake.thinkers:
            self.send_json(400, {"error": f'"{model}" does not support thinking'})
            return
        reply = self.fake._next_reply(model, body)
        if reply.thinking is not None and body.get("think") is None:  # the model's default: it thinks out loud
            reply = dataclasses.replace(reply, content=f"<think>\n{reply.thinking}\n</think>\n\n{reply.content}")
        if not self.fake._wait(reply.delay_s):
            self.close_connection = True  # stopping: do not wait for the client's next request on this connection
            return
        try:
            if reply.status != 200:
                self.send_json(reply.status, {"error": reply.error})
            elif body.get("stream", True):
                self._stream(model, reply, body)
            else:
                line = _chat_line(model, reply.content, True, reply, body)
                if reply.tool_calls:
                    line["message"]["tool_calls"] = list(reply.tool_calls)
                self.send_json(200, line)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): nothing left to do

    def _record(self, body: dict[str, Any] | None) -> None:
        with self.fake._arrived:
            self.fake.requests.append({"method": self.command, "path": self.path, "body": body})
            self.fake._arrived.notify_all()

    def _stream(self, model: str, reply: Reply, body: dict[str, Any]) -> None:
        self.begin_stream()
        size = max(1, reply.chunk_chars)
        lines = [_chat_line(model, reply.content[i:i + size], done=False) for i in range(0, len(reply.content), size)]
        if reply.thinking is not None and body.get("think") is True:  # asked to think: the reasoning comes apart
            lines.insert(0, _chat_line(model, "", done=False))
            lines[0]["message"]["thinking"] = reply.thinking
        if reply.tool_calls:
            call = _chat_line(model, "", done=False)
            call["message"]["tool_calls"] = list(reply.tool_calls)
            lines.append(call)
        if reply.stream_error is not None:
            lines.append({"error": reply.stream_error})
        else:
            lines.append(_chat_line(model, "", True, reply, body))
        for index, line in enumerate(lines):
            if reply.gate is not None and index == reply.gate_after and not self.fake._wait_for(reply.gate):
                return
            if not self.fake._wait(reply.chunk_delay_s):
                return
            self.send_line(line)
        self.end_stream()


FakeOllama.handler = _Handler
FakeOllama.thread_name = "fake-ollama"
