"""How much of each prompt Ollama's prompt cache served: an httpx transport under every role's ``ChatOllama``
(:class:`PromptLedger`) that passes each request on untouched, streaming included, and notes for each ``/api/chat``
request what was sent and what the final line of the reply counted (:class:`Sent`).

What Ollama reports
    ``prompt_eval_count`` does **not** tell cached tokens apart. Since Ollama 0.1.49 (ollama/ollama#5371, July 2024)
    it counts the whole prompt whether or not the cache served part of it: that release stopped subtracting the
    cached tokens, the Go runners that came after set it to the prompt's token count before the cache lookup
    (``numPromptInputs``), and the llama-server engine of 0.30.1 and later sends ``cache_n + prompt_n``
    (ollama/ollama#16428; 0.30.0 alone sent only ``prompt_n``, the tokens evaluated). Before 0.1.49 it counted the
    evaluated tokens and was left out when the cache served everything. So comparing it with the prompt's size (the
    client's estimate, ``llm.budget``) measures nothing on a current Ollama: both count the whole prompt. A final line
    that carries ``prompt_eval_cached_count`` (the tokens read from the cache, as proposed in ollama/ollama#16138 and
    reported by Ollama's cloud; the local server's source up to 0.33.0-rc2, the newest read for this, has no such
    field) says it outright, and it is used as reported.

How the share is had otherwise: estimated
    Ollama keeps, per loaded model, the tokens of the last prompt each slot processed (one slot unless
    ``OLLAMA_NUM_PARALLEL`` says more), and a new request evaluates only what follows the longest prefix it shares
    with them. The ledger keeps the last prompt sent to each model (per server URL), as text: every message's role
    and content in order. A request's cached tokens are then estimated as its ``prompt_eval_count`` times the share of
    its text that is a prefix of the last prompt sent to the same model with the same ``num_ctx``, at most all of the
    prompt but one token (a request always evaluates one). Nothing is cached when the model was loaded for the request:
    a different ``num_ctx`` (Ollama reloads the model for it), or a final line whose ``load_duration`` is at least
    :data:`LOADED_S` (the request waited that long for its runner, which is what loading a model costs).

Limits of the estimate
    * Characters stand for tokens: the shared share of the text is taken as the shared share of the tokens. The chat
      template's own tokens (role headers, a tool list in the system prompt) are not in the text.
    * One slot per model is assumed. With ``OLLAMA_NUM_PARALLEL`` above 1 Ollama picks the slot that shares most, and
      llama.cpp's server (Ollama 0.30 and later) may also restore an earlier prompt it keeps in host memory: the
      estimate is then low.
    * A model unloaded and loaded again in less than :data:`LOADED_S` (a small model, read back from the page cache)
      is not seen: the estimate is then high.
    * Requests of one model that run at once (a scene's characters) are compared in the order they were sent.

Every count is in the model's tokens as Ollama reported them; a request whose reply carried no final line (an HTTP
error, a broken stream) is noted with ``None`` counts and is left out of the sums.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

import httpx

from skald.llm.client import ROLE_HEADER
from skald.llm.tee import Tee

LOADED_S = 0.5  # a request that waited this many seconds or more for its runner is taken to have loaded the model


@dataclass(frozen=True)
class Sent:
    """One ``/api/chat`` request and the counts of its reply's final line.

    :param role: the Skald role (``X-Skald-Role``), ``?`` when the header is missing.
    :param status: the HTTP status of the reply (0 when no reply came: the connection failed).
    :param prompt_tokens: Ollama's ``prompt_eval_count`` (the whole prompt, see the module docstring), or None.
    :param completion_tokens: Ollama's ``eval_count``, or None.
    :param cached_tokens: prompt tokens the cache served: as reported (``prompt_eval_cached_count``), else estimated;
        None when ``prompt_tokens`` is.
    :param reported: True when ``cached_tokens`` was reported by Ollama, False when estimated.
    :param load_s: Ollama's ``load_duration`` in seconds, or None.
    """

    role: str
    model: str
    status: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    reported: bool = False
    load_s: float | None = None


def prompt_text(body: dict[str, Any]) -> str:
    """The prompt of a chat request as the ledger compares it: each message's role and content, in order."""
    return "".join(f"<{m.get('role', '')}>{m.get('content') or ''}\n" for m in body.get("messages") or [])


def shared_prefix(a: str, b: str) -> int:
    """The length, in characters, of the longest common prefix of ``a`` and ``b``."""
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:  # binary search on slices: C-speed comparisons for prompts of tens of thousands of characters
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def estimated_cached(prompt_tokens: int, text: str, last: str | None) -> int:
    """Cached tokens of a prompt of ``prompt_tokens`` tokens and text ``text`` when the model's slot holds ``last``
    (None: nothing): the shared prefix's share of the text, of the tokens, keeping at least one token evaluated."""
    if not last or not text or prompt_tokens <= 0:
        return 0
    share = shared_prefix(text, last) / len(text)
    return max(0, min(prompt_tokens - 1, round(prompt_tokens * share)))


def _final_line(data: bytes) -> dict[str, Any] | None:
    """The last ``done: true`` line of an NDJSON chat stream (or a whole non-streamed reply), or None."""
    for raw in reversed(data.decode("utf-8", errors="replace").splitlines()):
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and line.get("done"):
            return line
    return None


class PromptLedger(httpx.BaseTransport):
    """Forwards every request to ``inner`` (default: a real ``httpx.HTTPTransport``) and notes each ``/api/chat``
    request in :attr:`sent`, in the order their replies ended. Thread-safe (a scene's characters call at once)."""

    def __init__(self, inner: httpx.BaseTransport | None = None):
        self.inner = inner or httpx.HTTPTransport()
        self.sent: list[Sent] = []
        self._slots: dict[tuple[str, str], tuple[Any, str]] = {}  # (server, model) -> (num_ctx, last prompt text)
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/api/chat"):
            return self.inner.handle_request(request)
        try:
            body = json.loads(request.content or b"{}")
        except ValueError:
            body = {}
        role, model = request.headers.get(ROLE_HEADER, "?"), str(body.get("model", ""))
        num_ctx = (body.get("options") or {}).get("num_ctx")
        text = prompt_text(body)
        key = (f"{request.url.scheme}://{request.url.netloc.decode()}", model)
        with self._lock:  # the slot as this request finds it, then holding this prompt
            held_ctx, last = self._slots.get(key, (None, None))
            self._slots[key] = (num_ctx, text)
        if held_ctx != num_ctx:
            last = None  # another num_ctx: Ollama loads the model anew, with an empty cache
        try:
            response = self.inner.handle_request(request)
        except httpx.TransportError:
            self._note(Sent(role, model, 0))
            raise

        def done(data: bytes) -> None:
            final = _final_line(data) if response.status_code == 200 else None
            if final is None:
                self._note(Sent(role, model, response.status_code))
                return
            prompt, load = final.get("prompt_eval_count"), final.get("load_duration")
            load_s = load / 1e9 if isinstance(load, int | float) else None
            reported = final.get("prompt_eval_cached_count")
            if isinstance(reported, int):
                cached = reported
            elif isinstance(prompt, int):
                cached = estimated_cached(prompt, text, None if load_s is not None and load_s >= LOADED_S else last)
            else:
                cached = None
            self._note(Sent(role, model, 200, prompt if isinstance(prompt, int) else None, final.get("eval_count"),
                            cached, isinstance(reported, int), load_s))

        return httpx.Response(response.status_code, headers=response.headers, stream=Tee(response.stream, done),
                              extensions=response.extensions)

    def _note(self, sent: Sent) -> None:
        with self._lock:
            self.sent.append(sent)

    def close(self) -> None:
        self.inner.close()
