"""A simulated Ollama on a loopback port, for the time-to-first-token bench (``bench/ttft.py``): it speaks Ollama's
``/api/chat`` as ``tests/fake_ollama.py`` does (NDJSON streamed with chunked transfer encoding, then a final ``done``
line), answers every role with the scripted model's reply (``skald.replay.scripted``, which
writes a valid reply for every role from the prompt), and reports what each request would have cost on a
:class:`~bench.ttft_model.Profile`'s machine, in simulated time, never sleeping.

* ``POST /api/chat``: the reply; its final line carries Ollama's ``load_duration``, ``prompt_eval_count`` (the whole
  prompt), ``prompt_eval_cached_count`` (the part served from the slot's cache), ``prompt_eval_duration`` (only the
  rest), ``eval_count``, ``eval_duration`` and ``total_duration``, in nanoseconds of simulated time. A model the
  profile does not have gets HTTP 404, as Ollama answers a model that is not pulled. ``stream: false`` gets one JSON.
* ``GET /api/tags``: the profile's models; ``GET /api/ps``: the models loaded now, with their ``context_length``.

The prompt the cost model reads is the chat rendered as Llama 3's template renders it. The request's role comes from
Skald's ``X-Skald-Role`` header: ``director`` requests are the scene briefs Skald writes in the background between
turns, so they do not move the player's clock (:class:`~bench.ttft_model.Machine`). For a ``narrator`` request, the
server runs the reply through Skald's own ``hygiene.StreamCleaner`` word by word (Ollama streams about a token a line)
to find how much of it had been generated when the player saw its first sentence. The stream itself carries
:data:`WORDS_PER_LINE` words a line, as the scripted model's does: the figures do not depend on it, and the client's
per-chunk work (the cleaner checks the whole reply again at every chunk) would slow the bench for nothing.

The characters of a scene beat are asked in parallel (LangGraph ``Send``); Ollama serves them one after another in
whatever order they arrive. So that the figures do not depend on thread scheduling, the server holds each character's
request until every character the prompt names (``You are X``, ``Others here: ...``) has asked for that beat, or
:data:`FANOUT_WAIT_S` has passed, and serves them in the order of their names.

    with SimulatedOllama(PROFILES["laptop-gpu-8b"]) as server:
        started = server.begin_turn(think_s=20)   # the player's turn starts, on the simulated clock
        ...  Settings(ollama_base_url=server.url, ...), play a turn
        costs = server.take()                     # what each request of it cost (bench.ttft_model.Cost)
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from skald.llm import hygiene, tail
from skald.llm.client import ROLE_HEADER
from skald.replay.scripted import ScriptedOllama

from bench.ollama_wire import LoopbackServer, WireHandler
from bench.ttft_model import Cost, Machine, Profile, Request

BACKGROUND_ROLES = ("director",)  # Skald never calls these inside a turn (llm.briefs)
DEFAULT_NUM_CTX = 4096  # what Ollama loads a model with when a request sets no num_ctx
WORDS_PER_LINE = 4
FANOUT_WAIT_S = 2.0  # the longest a character's request waits for the rest of its beat (real seconds)
CREATED_AT = "2025-01-01T00:00:00Z"
NS = 1_000_000_000


def render(body: dict[str, Any]) -> str:
    """The chat of an ``/api/chat`` body as Llama 3's chat template renders it (tools as JSON before the messages)."""
    out = ["<|begin_of_text|>"]
    if body.get("tools"):
        out.append(f"<|start_header_id|>system<|end_header_id|>\n\n{json.dumps(body['tools'])}<|eot_id|>")
    for message in body.get("messages") or []:
        content = message.get("content") or ""
        if message.get("tool_calls"):
            content += json.dumps(message["tool_calls"])
        out.append(f"<|start_header_id|>{message.get('role', 'user')}<|end_header_id|>\n\n{content}<|eot_id|>")
    out.append("<|start_header_id|>assistant<|end_header_id|>\n\n")
    return "".join(out)


def words(content: str) -> list[str]:
    """``content`` cut into words, each with the space before it (the last with any trailing space)."""
    found = re.findall(r"\s*\S+", content)
    if found:
        found[-1] += content[len("".join(found)):]
    return found


def first_shown(parts: list[str], previous: str = "") -> int:
    """Characters of the reply generated when ``hygiene.StreamCleaner`` (as the client runs it on a narration) first
    shows the player anything: its first whole sentence that is sure to be story. All of it when nothing shows before
    the end (the client then shows the cleaned reply whole)."""
    shown: list[str] = []
    cleaner = hygiene.StreamCleaner(shown.append, role="narrator", previous=previous)
    splitter = tail.Splitter()  # the actions after the prose are never shown (llm.tail)
    fed = 0
    for part in parts:
        prose = splitter.feed(part)
        if prose:
            cleaner.feed(prose)
        fed += len(part)
        if shown:
            return fed
    return fed


def _fanout(role: str, body: dict[str, Any]) -> tuple[str, str, frozenset[str]] | None:
    """(beat key, this character, every character of the beat) for a scene character's request, else None."""
    if role != "character":
        return None
    users = [str(m.get("content") or "") for m in body.get("messages") or [] if m.get("role") == "user"]
    text = users[-1] if users else ""
    me = re.search(r"You are ([^,\n]+),", text)
    beat = re.search(r"^Beat \d+\..*$", text, re.MULTILINE)
    if me is None or beat is None:
        return None
    others = re.search(r"^Others here: (.*)$", text, re.MULTILINE)
    names = {n.strip() for n in others.group(1).split(",") if n.strip()} if others else set()
    everyone = frozenset({me.group(1).strip(), *names})
    return f"{beat.group(0)}|{'|'.join(sorted(everyone))}", me.group(1).strip(), everyone


@dataclass
class _Beat:
    expected: frozenset[str]
    until: float
    arrived: set[str] = field(default_factory=set)
    done: set[str] = field(default_factory=set)


class SimulatedOllama(LoopbackServer):
    """A threaded Ollama-like server on 127.0.0.1 (an ephemeral port) that costs every request on ``profile``'s
    :class:`~bench.ttft_model.Machine`. Use as a context manager, or :meth:`start` and :meth:`stop`.

    ``num_parallel``, ``multiuser_cache``: Ollama's ``OLLAMA_NUM_PARALLEL`` and ``OLLAMA_MULTIUSER_CACHE``
    (:class:`~bench.ttft_model.Machine`). :attr:`costs` lists every request's :class:`~bench.ttft_model.Cost` in
    the order it was served.
    """

    def __init__(self, profile: Profile, background_roles: tuple[str, ...] = BACKGROUND_ROLES, num_parallel: int = 1,
                 multiuser_cache: bool = False):
        self.machine = Machine(profile, num_parallel, multiuser_cache)
        self.background_roles = background_roles
        self.costs: list[Cost] = []
        self._taken = 0
        self._scripted = ScriptedOllama(turn_of=lambda: 0)
        self._previous = ""  # the last narration, for the StreamCleaner's repeat check
        self._lock = threading.Lock()
        self._beats: dict[str, _Beat] = {}
        self._beat_cond = threading.Condition()

    # -- the bench's side ------------------------------------------------------------------------------------

    def begin_turn(self, think_s: float) -> float:
        """The player reads and types for ``think_s`` simulated seconds, then a turn starts: returns its start on the
        simulated clock."""
        with self._lock:
            return self.machine.idle(think_s)

    def take(self) -> list[Cost]:
        """The costs of the requests served since the last call."""
        with self._lock:
            out = self.costs[self._taken:]
            self._taken = len(self.costs)
        return out

    # -- serving ---------------------------------------------------------------------------------------------

    def reply(self, role: str, body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        """The scripted model's reply to ``body``: (content, tool calls)."""
        request = httpx.Request("POST", "http://simulated/api/chat", headers={ROLE_HEADER: role},
                                content=json.dumps(body).encode())
        response = self._scripted.handle_request(request)
        content, calls = [], []
        for line in response.read().decode().splitlines():
            message = json.loads(line).get("message") or {}
            content.append(message.get("content") or "")
            calls += message.get("tool_calls") or []
        return "".join(content), calls

    def cost(self, role: str, body: dict[str, Any], content: str, parts: list[str]) -> Cost:
        """Cost one request on the machine (in the order of names for the characters of one beat). ``parts``: the
        reply's words (:func:`words`)."""
        options = body.get("options") or {}
        narration = role == "narrator"
        request = Request(model=body.get("model", ""), num_ctx=int(options.get("num_ctx") or DEFAULT_NUM_CTX),
                          keep_alive=body.get("keep_alive"), prompt=render(body), reply=content, role=role,
                          background=role in self.background_roles,
                          first_shown_chars=first_shown(parts, self._previous) if narration else None)

        def serve() -> Cost:
            with self._lock:
                cost = self.machine.serve(request)
                self.costs.append(cost)
                if narration:
                    self._previous = content
            return cost

        fanout = _fanout(role, body)
        return serve() if fanout is None else self._in_order(*fanout, serve)

    def _in_order(self, key: str, me: str, everyone: frozenset[str], serve: Any) -> Cost:
        with self._beat_cond:
            beat = self._beats.setdefault(key, _Beat(everyone, time.monotonic() + FANOUT_WAIT_S))
            beat.arrived.add(me)
            self._beat_cond.notify_all()
            while True:
                waiting = sorted(beat.arrived - beat.done)
                whole = beat.expected <= beat.arrived or time.monotonic() >= beat.until
                if whole and waiting and waiting[0] == me:
                    break
                self._beat_cond.wait(0.05)
            try:
                return serve()
            finally:
                beat.done.add(me)
                if beat.done >= beat.expected or time.monotonic() >= beat.until:
                    self._beats.pop(key, None)
                self._beat_cond.notify_all()

    # -- lifecycle -------------------------------------------------------------------------------------------


def _final(model: str, cost: Cost) -> dict[str, Any]:
    """The ``done`` line's fields, as Ollama reports them (durations in nanoseconds)."""
    return {"done": True, "done_reason": "stop", "total_duration": round(cost.busy_s * NS),
            "load_duration": round(cost.load_s * NS), "prompt_eval_count": cost.prompt_tokens,
            "prompt_eval_cached_count": cost.cached_tokens, "prompt_eval_duration": round(cost.prefill_s * NS),
            "eval_count": cost.output_tokens, "eval_duration": round(cost.decode_s * NS)}


class _Handler(WireHandler):
    @property
    def simulated(self) -> SimulatedOllama:
        return self.owner

    def do_GET(self) -> None:
        machine = self.simulated.machine
        if self.path == "/api/tags":
            self.send_json(200, {"models": [{"name": m, "model": m, "size": 1, "digest": "0" * 12}
                                            for m in machine.profile.models]})
        elif self.path == "/api/ps":
            with self.simulated._lock:
                loaded = machine.loaded()
            self.send_json(200, {"models": [{"name": m, "model": m, "context_length": ctx} for m, ctx in loaded]})
        else:
            self.send_json(404, {"error": "not found"})

    def do_POST(self) -> None:
        body, _ = self.read_json()
        if body is None:
            self.send_json(400, {"error": "invalid JSON body"})
            return
        if self.path != "/api/chat":
            self.send_json(404, {"error": "not found"})
            return
        model = body.get("model", "")
        if not self.simulated.machine.knows(model):
            self.send_json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        role = self.headers.get(ROLE_HEADER, "?")
        content, calls = self.simulated.reply(role, body)
        parts = words(content)
        cost = self.simulated.cost(role, body, content, parts)
        try:
            if body.get("stream", True):
                lines = ["".join(parts[i:i + WORDS_PER_LINE]) for i in range(0, len(parts), WORDS_PER_LINE)]
                self._stream(model, lines, calls, cost)
            else:
                message = {"role": "assistant", "content": content} | ({"tool_calls": calls} if calls else {})
                self.send_json(200, {"model": model, "created_at": CREATED_AT, "message": message} |
                               _final(model, cost))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up

    def _stream(self, model: str, parts: list[str], calls: list[dict[str, Any]], cost: Cost) -> None:
        self.begin_stream()
        head = {"model": model, "created_at": CREATED_AT}
        lines = [head | {"message": {"role": "assistant", "content": p}, "done": False} for p in parts]
        if calls:
            lines.append(head | {"message": {"role": "assistant", "content": "", "tool_calls": calls}, "done": False})
        lines.append(head | {"message": {"role": "assistant", "content": ""}} | _final(model, cost))
        for line in lines:
            self.send_line(line)
        self.end_stream()


SimulatedOllama.handler = _Handler
SimulatedOllama.thread_name = "simulated-ollama"
