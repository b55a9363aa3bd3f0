"""LLM access: one ``ChatOllama`` per role, with deadlines, retries, a circuit breaker, streaming,
validation feedback for structured output, and metrics for every call.

Nodes never talk to Ollama themselves: they call :meth:`LLMClient.text` or :meth:`LLMClient.structured`,
and on :class:`LLMUnavailable` use their deterministic fallback and add a warning to the turn.

Every call runs its HTTP work on a daemon worker thread and waits for it in the calling thread against its
deadline: the role's ``timeout_s`` (retries and feedback attempts included), or the end of the turn's budget
(``SKALD_TURN_BUDGET_S``) when that comes first, so a model that stalls or trickles cannot hold a turn longer than
that. A role with less than :data:`MIN_CALL_S` of the turn budget left is not called at all. Fault rules are in
``llm.faults``; the feedback shape in ``llm.feedback``.

:meth:`LLMClient.close` ends a client's work before the process exits (``skald.shutdown`` closes every client the
process made, :func:`close_clients`).
"""

from __future__ import annotations

import json
import queue
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, stop_any, wait_exponential

import skald.shutdown  # noqa: F401 - registers close_all at exit, which closes every client
from skald.core.records import LLMCall
from skald.llm import hygiene
from skald.llm import tail as split
from skald.llm.brief_cache import BriefCache
from skald.llm.budget import Fitted, Prompt, TokenCounter, fit
from skald.llm.faults import CircuitBreaker, LLMTimeout, fair_wait_s, is_transient
from skald.llm.feedback import feedback
from skald.settings import ROLES, RoleConfig, Settings, SettingsError

if TYPE_CHECKING:  # langchain-ollama, ollama and httpx are imported when a role is first called, never offline
    import httpx
    from langchain_ollama import ChatOllama

SchemaT = TypeVar("SchemaT", bound=BaseModel)
ROLE_HEADER = "X-Skald-Role"
# httpx's own read timeout, past the role's deadline: the deadline always fires first (with one meaning, "the role's
# deadline passed"), and httpx ends a request the deadline abandoned shortly after.
HTTP_TIMEOUT_SLACK_S = 1.0
# A role is not called with less than this many seconds of the turn budget left: no reply fits in less, and a call
# cut at once would only tell the player half a sentence.
MIN_CALL_S = 1.0
TokenSink = Callable[[str], None]


REJECTED = "a reply the player may not see"  # in the fallback reason of a reply llm.hygiene judged unusable
_CLIENTS: weakref.WeakSet[LLMClient] = weakref.WeakSet()  # every client of the process, for close_clients
_CLIENTS_LOCK = threading.Lock()


def close_clients(timeout: float | None = None) -> bool:
    """:meth:`LLMClient.close` every client of the process, ``timeout`` seconds at most in all (None: as long as their
    background briefs take). Returns True when no background brief is left running."""
    with _CLIENTS_LOCK:
        clients = list(_CLIENTS)
    end = None if timeout is None else time.monotonic() + timeout
    done = True
    for client in clients:
        done = client.close(None if end is None else max(0.0, end - time.monotonic())) and done
    return done


class LLMUnavailable(Exception):
    """The role could not produce a usable reply (offline, circuit open, timeout, HTTP error, invalid reply).

    ``call`` holds the call's metrics (``ok=False``) when one was attempted or skipped by the breaker. ``offline`` is
    True when the role is not to be called at all (the client is offline, or the role is disabled): a setting of the
    whole process, shown once (``skald play``'s start line, ``TurnView.offline``, ``/health``), not a turn's warning.
    """

    def __init__(self, message: str, call: LLMCall | None = None, offline: bool = False):
        super().__init__(message)
        self.call = call
        self.offline = offline


def probe_ollama(base_url: str, timeout_s: float) -> tuple[bool, str]:
    """Ask Ollama's ``/api/tags``. Returns (reachable, human-readable detail)."""
    import httpx

    try:
        reply = httpx.get(f"{base_url.rstrip('/')}/api/tags", timeout=timeout_s)
        reply.raise_for_status()
        models = [m.get("name", "?") for m in reply.json().get("models", [])]
        return True, f"Ollama at {base_url} ({len(models)} models pulled)"
    except (httpx.HTTPError, ValueError) as exc:
        return False, f"Ollama unreachable at {base_url} ({type(exc).__name__})"


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:120]}"


class LLMClient:
    """Per-role chat models.

    :param settings: resolved settings (roles, retries, breaker).
    :param online: True to call Ollama, False for deterministic fallbacks only. ``None`` probes Ollama
        once (``settings.llm == "auto"``), or follows ``settings.llm`` when it is ``on``/``off``.
    :param clock: monotonic seconds, for the circuit breakers (tests pass a fake clock).
    :param sleep: how to wait between retries, in seconds (tests pass a recorder; default: a wait that
        :meth:`close` cuts short).
    :param transport: an httpx transport for every role's requests (recording and replay, ``skald.replay``);
        each request carries the role in the ``X-Skald-Role`` header.
    """

    def __init__(self, settings: Settings, online: bool | None = None, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] | None = None, transport: httpx.BaseTransport | None = None):
        self.settings = settings
        self.configs: dict[str, RoleConfig] = settings.roles()
        if online is None:
            if settings.llm == "auto":
                online, self.detail = probe_ollama(settings.ollama_base_url, settings.probe_timeout_s)
            else:
                online = settings.llm == "on"
                self.detail = f"SKALD_LLM={settings.llm}"
        else:
            self.detail = "online" if online else "offline by request"
        self.online = online
        self._closed = threading.Event()
        self._flows: set[queue.SimpleQueue] = set()  # the hand-over queues of calls under way (close ends them)
        self.sleep = sleep or self._closed.wait
        self.transport = transport
        self.breakers = {role: CircuitBreaker(settings.breaker_failures, settings.breaker_seconds, clock)
                         for role in ROLES}
        self.counters = {role: TokenCounter() for role in ROLES}
        self._models: dict[str, ChatOllama] = {}
        self._no_think: set[str] = set()  # models that answered "does not support thinking": asked without think
        self._structured: dict[tuple[str, type[BaseModel]], Any] = {}
        self._models_lock = threading.Lock()
        self.briefs = BriefCache()  # the Director's scene briefs held by this process (llm.briefs)
        with _CLIENTS_LOCK:
            _CLIENTS.add(self)

    def close(self, timeout: float | None = None) -> bool:
        """End this client's work, for a process that is ending: no call starts any more (every role is offline, as
        :meth:`check` says), the calls under way end at once with :class:`LLMUnavailable` (their HTTP requests are left
        to the daemon worker threads, which drop them at the next chunk), no background brief starts, and those under
        way are waited for, ``timeout`` seconds at most (None: as long as they take; with their calls cut, they end in
        moments). Idempotent. Returns True when no background brief is left running."""
        self._closed.set()
        with self._models_lock:
            flows = list(self._flows)
        for items in flows:
            items.put(("closed", None))
        return self.briefs.close(timeout)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def mode(self) -> str:
        if self.online:
            return f"LLM mode: {self.detail}; narrator model {self.configs['narrator'].model}"
        return f"offline narrator: deterministic prose ({self.detail})"

    def config(self, role: str) -> RoleConfig:
        if role not in self.configs:
            raise SettingsError(f"unknown LLM role {role!r}; roles: {', '.join(ROLES)}")
        return self.configs[role]

    def asks(self, role: str) -> bool:
        """Whether a call of ``role`` would go to a model: online, and the role enabled. :raises SettingsError: an
        unknown role."""
        return self.online and self.config(role).enabled

    def model(self, role: str) -> ChatOllama:
        with self._models_lock:  # parallel API turns: build each role's client once
            return self._model(role)

    def _model(self, role: str) -> ChatOllama:
        if role not in self._models:
            from langchain_ollama import ChatOllama

            cfg = self.config(role)
            think = None if cfg.model in self._no_think else cfg.think
            self._models[role] = ChatOllama(
                model=cfg.model, base_url=cfg.base_url, temperature=cfg.temperature, num_ctx=cfg.num_ctx,
                num_predict=cfg.num_predict, reasoning=think, keep_alive=cfg.keep_alive,
                client_kwargs={"timeout": cfg.timeout_s + HTTP_TIMEOUT_SLACK_S, "headers": {ROLE_HEADER: role},
                               "verify": _tls()},
                sync_client_kwargs={"transport": self.transport} if self.transport else {},
            )
        return self._models[role]

    def _structured_runnable(self, role: str, schema: type[BaseModel]) -> Any:
        """The role's model bound to ``schema``'s JSON schema as Ollama's ``format`` (built once per schema)."""
        key = (role, schema)
        with self._models_lock:
            if key not in self._structured:
                self._structured[key] = self._model(role).bind(format=schema.model_json_schema())
            return self._structured[key]

    # ------------------------------------------------------------------ public calls

    def fit(self, role: str, prompt: Prompt) -> Fitted:
        """Trim ``prompt`` to the role's context budget (``num_ctx`` minus ``num_predict`` reserved for output) and its
        ``prompt_tokens``."""
        cfg = self.config(role)
        return fit(prompt, role, cfg.num_ctx, cfg.num_predict, self.counters[role], target=cfg.prompt_tokens)

    def calibrate(self, role: str, fitted: Fitted, call: LLMCall) -> None:
        """Teach the role's token counter from the prompt size the model reported for ``fitted``."""
        if call.ok and call.prompt_tokens and not fitted.warnings:
            self.counters[role].observe(fitted.stats.total_tokens, call.prompt_tokens)

    def text(self, role: str, system: str, user: str, on_token: TokenSink | None = None, *,
             deadline: float | None = None, previous: str = "", tail: list[str] | None = None) -> tuple[str, LLMCall]:
        """A streamed plain-text reply, through ``llm.hygiene``: ``on_token`` gets only what a player may read
        (whole sentences, once they are sure to be story), and the reply returned has every model habit stripped.

        With ``tail`` (a list), the reply is split at its ``[ACTIONS]`` line (``llm.tail``): only the part before it
        is cleaned, shown and returned, and ``tail`` is set to ``[the text after it]`` (``[]`` when the reply has
        none).

        :param deadline: the turn's deadline, in ``time.monotonic()`` seconds: the call ends by the earlier of it and
            the role's own ``timeout_s`` (None: the role's timeout alone).
        :param previous: what the player read from this role last turn: a reply repeating it is refused.
        :raises LLMUnavailable: offline, disabled, circuit open, turn budget spent, deadline passed, HTTP error, empty
            reply, or a reply hygiene refuses (a refusal, meta-talk, another language, a repeat: the reason contains
            :data:`REJECTED`).
        """
        messages: list[BaseMessage] = [SystemMessage(system), HumanMessage(user)]

        def attempt(deadline: _Deadline, metrics: dict[str, Any]) -> str:
            def show(piece: str) -> None:
                if "ttft_ms" not in metrics:  # from the call's start, like latency_ms: retries and backoff included
                    metrics["ttft_ms"] = (time.monotonic() - metrics["started"]) * 1000
                metrics["emitted"] = True
                if on_token is not None:
                    on_token(piece)

            cleaner = hygiene.StreamCleaner(show, role=role, previous=previous)
            splitter = split.Splitter() if tail is not None else None
            for chunk in self._pump(lambda stop: self._stream(self.model(role), messages, stop), deadline):
                metrics["received"] = True
                content = chunk.content if isinstance(chunk.content, str) else ""
                if content and splitter is not None:
                    content = splitter.feed(content)
                if content:
                    cleaner.feed(content)
                _note(chunk, metrics)
            if splitter is not None:
                rest = splitter.close()
                if rest:
                    cleaner.feed(rest)
                tail[:] = [splitter.tail] if splitter.found else []
            if not "".join(cleaner.raw).strip():
                raise _Rejected("an empty reply")
            cut_short = metrics.get("done_reason") == "length" and not (splitter is not None and splitter.found)
            cleaned = cleaner.close(truncated=cut_short)  # a reply cut in its actions has its prose whole
            metrics["habits"] = list(cleaned.habits)
            metrics["reasoning"] = metrics.get("reasoning") or cleaned.reasoning or None
            if not cleaned.usable:
                raise _Rejected(f"{REJECTED} ({cleaned.verdict})")
            rest = cleaned.text[len(cleaner.shown):] if cleaned.text.startswith(cleaner.shown) else ""
            if rest.strip():
                show(rest if not cleaner.shown or rest[:1].isspace() else " " + rest)
            return cleaned.text

        return self._run(role, attempt, deadline=deadline)

    def structured(self, role: str, schema: type[SchemaT], system: str, user: str, *,
                   deadline: float | None = None) -> tuple[SchemaT, LLMCall]:
        """A reply validated against ``schema``: the request carries the schema as Ollama's ``format``, bound to the
        model as langchain's ``with_structured_output(method="json_schema")`` binds it (less the LangSmith tracing
        metadata, which re-derives the schema on every call), and the reply is validated here (langchain's
        ``include_raw`` chain would start a thread pool on every call to run its one branch). The reply is streamed
        and joined here, so that its first chunk shows the model is alive (a call that times out with nothing back
        is a hung server, see :meth:`_count_failure`).

        A reply that fails validation is answered with ``llm.feedback`` and tried again, up to the role's
        ``attempts``. ``deadline`` as for :meth:`text`. :raises LLMUnavailable: as :meth:`text`, or after the last
        attempt still fails.
        """
        messages: list[BaseMessage] = [SystemMessage(system), HumanMessage(user)]

        def whole_reply(runnable: Any, deadline: _Deadline, metrics: dict[str, Any]) -> AIMessage:
            reply: Any = None
            for chunk in self._pump(lambda stop: self._stream(runnable, messages, stop), deadline):
                metrics["received"] = True
                reply = chunk if reply is None else reply + chunk
            if reply is None:
                raise _Rejected("an empty reply")
            return reply

        def attempt(deadline: _Deadline, metrics: dict[str, Any]) -> SchemaT:
            runnable = self._structured_runnable(role, schema)
            tries = self.config(role).attempts
            for number in range(1, tries + 1):
                metrics["attempts"] = number
                raw: AIMessage = self._with_retries(role, deadline, metrics,
                                                    lambda: whole_reply(runnable, deadline, metrics))
                metrics["usage"] = raw.usage_metadata or metrics.get("usage")
                _note(raw, metrics)
                content = raw.content if isinstance(raw.content, str) else json.dumps(raw.content)
                content, habits = hygiene.json_text(content)
                metrics["habits"] = list(dict.fromkeys([*metrics.get("habits", []), *habits]))
                problems = feedback(schema, content)
                if problems is None:
                    value = schema.model_validate_json(content)
                    if hygiene.foreign_values(value.model_dump()):
                        metrics["habits"].append("wrong_language")
                        raise _Rejected(f"{REJECTED} (wrong_language)")
                    return value
                if number == tries:
                    raise _Rejected(f"{problems['issue_count']} validation issue(s) after {tries} attempt(s)")
                metrics.setdefault("feedback", []).append(problems)  # the feedback sent, as LLMCall.feedback says
                messages.extend([AIMessage(content), HumanMessage(json.dumps(problems))])
            raise AssertionError("unreachable")

        return self._run(role, attempt, retries_inside=True, deadline=deadline)

    def converse(self, role: str, messages: list[BaseMessage], tools: list[dict[str, Any]] | None = None, *,
                 tool_choice: str | None = None, deadline: float | None = None) -> tuple[AIMessage, LLMCall]:
        """One turn of a conversation with tools (``llm.conversation``): ``messages`` as they stand, ``tools`` as
        OpenAI-style function specs bound through langchain's ``bind_tools`` with ``tool_choice`` (langchain-ollama
        accepts it and Ollama ignores it, so a required call is the caller's to enforce). The reply is streamed and
        joined; its tool calls are on ``AIMessage.tool_calls``. ``deadline`` as for :meth:`text`.

        :raises LLMUnavailable: as :meth:`text` (an empty reply with no tool call included).
        """
        def attempt(deadline: _Deadline, metrics: dict[str, Any]) -> AIMessage:
            runnable = self.model(role).bind_tools(tools, tool_choice=tool_choice) if tools else self.model(role)
            reply: Any = None
            for chunk in self._pump(lambda stop: self._stream(runnable, messages, stop), deadline):
                metrics["received"] = True
                reply = chunk if reply is None else reply + chunk
            if reply is None or (not str(reply.content).strip() and not reply.tool_calls):
                raise _Rejected("an empty reply")
            metrics["usage"] = reply.usage_metadata or metrics.get("usage")
            _note(reply, metrics)
            content = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
            answer, reasoning, closed = hygiene.split_reasoning(content)
            if reasoning or not closed:  # the talk is the player's to read: never the model's reasoning
                metrics["habits"] = ["reasoning"]
                metrics["reasoning"] = metrics.get("reasoning") or reasoning
                content = answer.strip()
                if not content and not reply.tool_calls:
                    raise _Rejected(f"{REJECTED} (empty)")
            return AIMessage(content=content, tool_calls=list(reply.tool_calls))

        return self._run(role, attempt, deadline=deadline)

    # ------------------------------------------------------------------ machinery

    def check(self, role: str, deadline: float | None = None) -> None:
        """Raise :class:`LLMUnavailable` when the role cannot be called now: offline, closed, disabled, circuit open, or
        less than :data:`MIN_CALL_S` seconds left before ``deadline`` (the turn's, in ``time.monotonic()`` seconds)."""
        cfg = self.config(role)
        if not self.online:
            raise LLMUnavailable(f"{role}: offline fallback ({self.detail})", offline=True)
        if self.closed:
            raise LLMUnavailable(f"{role}: offline fallback (the client is closed: Skald is ending)", offline=True)
        if not cfg.enabled:
            raise LLMUnavailable(f"{role}: offline fallback (disabled by SKALD_{role.upper()}_ENABLED)", offline=True)
        breaker = self.breakers[role]
        if not breaker.allow():
            reason = f"{role}: fallback, circuit open after {breaker.reason} ({breaker.remaining():.0f} s left)"
            raise LLMUnavailable(reason, self._skipped(role, "circuit_open", reason))
        if deadline is not None and deadline - time.monotonic() < MIN_CALL_S:
            reason = f"{role}: fallback, turn budget spent"
            raise LLMUnavailable(reason, self._skipped(role, "budget_spent", reason))

    def _skipped(self, role: str, outcome: str, reason: str) -> LLMCall:
        """The record of a call not made: no request, no wait."""
        return LLMCall(role=role, model=self.config(role).model, ok=False, outcome=outcome, latency_ms=0.0, attempts=0,
                       fallback_reason=reason)

    def _run(self, role: str, attempt: Callable[[_Deadline, dict[str, Any]], Any], retries_inside: bool = False,
             deadline: float | None = None) -> tuple[Any, LLMCall]:
        self.check(role, deadline)
        cfg = self.config(role)
        self.model(role)  # built before the clock starts: construction is not call latency
        started = time.monotonic()
        own = started + cfg.timeout_s
        ends = (_Deadline(own, "the role's deadline passed") if deadline is None or own <= deadline
                else _Deadline(deadline, "the turn budget ran out"))
        metrics: dict[str, Any] = {"attempts": 1, "started": started}
        try:
            try:
                value = self._attempt(role, attempt, ends, metrics, retries_inside)
            except Exception as exc:
                if not self._thinking_refused(role, exc):
                    raise
                value = self._attempt(role, attempt, ends, metrics, retries_inside)  # asked again without think
        except Exception as exc:  # any failure becomes a fallback, never a lost turn
            if not isinstance(exc, ClientClosed) and REJECTED not in str(exc):  # the client closing says nothing
                # about the model, and a reply hygiene refused came from a server that answers (no circuit opens)
                self._count_failure(role, exc, time.monotonic() - started, bool(metrics.get("received")))
            reason = f"{role}: fallback after {exc}" if isinstance(exc, _Rejected) else (
                f"{role}: fallback after {_one_line(exc)}")
            raise LLMUnavailable(reason, self._call(role, started, metrics, ok=False, reason=reason)) from exc
        self.breakers[role].success()
        return value, self._call(role, started, metrics, ok=True)

    def _attempt(self, role: str, attempt: Callable[[_Deadline, dict[str, Any]], Any], ends: _Deadline,
                 metrics: dict[str, Any], retries_inside: bool) -> Any:
        if retries_inside:
            return attempt(ends, metrics)
        return self._with_retries(role, ends, metrics, lambda: attempt(ends, metrics))

    def _thinking_refused(self, role: str, exc: Exception) -> bool:
        """True (and the role's model is asked without Ollama's ``think`` from now on) when Ollama refused the call
        because the model cannot think: it answers HTTP 400 "... does not support thinking" to any ``think`` value
        on some versions, though only ``think: true`` should need the capability."""
        cfg = self.config(role)
        if "does not support thinking" not in str(exc) or cfg.model in self._no_think:
            return False
        with self._models_lock:
            self._no_think.add(cfg.model)
            for name, other in self.configs.items():
                if other.model == cfg.model:
                    self._models.pop(name, None)
                    self._structured = {k: v for k, v in self._structured.items() if k[0] != name}
        return True

    def _count_failure(self, role: str, exc: Exception, waited: float, received: bool) -> None:
        """Tell the breakers. A call that ran into its deadline after a fair wait (``llm.faults.fair_wait_s``) opens
        its role's circuit at once; if nothing at all came back from the model in ``waited`` seconds, the server is
        hung, and every role served from the same URL opens too. Any other failure counts as one."""
        cfg = self.config(role)
        if not isinstance(exc, LLMTimeout) or waited < fair_wait_s(cfg.timeout_s, self.settings.turn_budget_s):
            self.breakers[role].failure()
        elif received:
            self.breakers[role].trip(f"a call cut off at its deadline after {waited:.1f} s")
        else:
            self.breakers[role].trip(f"a call that got no reply in {waited:.1f} s")
            for other, other_cfg in self.configs.items():
                if other != role and other_cfg.base_url.rstrip("/") == cfg.base_url.rstrip("/"):
                    self.breakers[other].trip(f"the {role}'s call to the same server got no reply in {waited:.1f} s",
                                              failed=False)

    def _with_retries(self, role: str, deadline: _Deadline, metrics: dict[str, Any], fn: Callable[[], Any]) -> Any:
        """Retry ``fn`` after transient errors (``llm.faults.is_transient``) with exponential backoff (tenacity): at
        most ``settings.retries`` times, never once a token reached the player, and never when the wait would end
        past the role's ``deadline``. The last error is raised as it was."""

        def past_deadline(state: RetryCallState) -> bool:
            return time.monotonic() + (state.upcoming_sleep or 0.0) >= deadline.at

        def count(state: RetryCallState) -> None:
            metrics["retries"] = metrics.get("retries", 0) + 1

        retrying = Retrying(
            retry=retry_if_exception(lambda exc: is_transient(exc) and not metrics.get("emitted")),
            stop=stop_any(stop_after_attempt(self.settings.retries + 1), past_deadline, lambda _: self.closed),
            wait=wait_exponential(multiplier=self.settings.retry_backoff_s, exp_base=2, min=0),
            sleep=self.sleep, before_sleep=count, reraise=True)
        return retrying(fn)

    @staticmethod
    def _stream(runnable: Any, messages: list[BaseMessage], stop: threading.Event) -> Iterator[Any]:
        for chunk in runnable.stream(messages):
            if stop.is_set():
                return
            yield chunk

    def _pump(self, produce: Callable[[threading.Event], Iterator[Any]], deadline: _Deadline) -> Iterator[Any]:
        """Run ``produce`` on a worker thread; yield its items here, raising LLMTimeout at the deadline and
        ClientClosed when the client closes."""
        items: queue.SimpleQueue = queue.SimpleQueue()  # the C one: a chunk's hand-over costs least
        stop = threading.Event()

        def work() -> None:
            try:
                for item in produce(stop):
                    items.put(("item", item))
                items.put(("done", None))
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                items.put(("error", exc))

        with self._models_lock:
            if self.closed:
                raise ClientClosed("the client is closed")
            self._flows.add(items)
        try:
            _WORKERS.run(work)
            while True:
                remaining = deadline.at - time.monotonic()
                try:
                    if remaining <= 0:
                        raise queue.Empty
                    kind, value = items.get(timeout=remaining)
                except queue.Empty:
                    raise LLMTimeout(deadline.why) from None
                if kind == "done":
                    return
                if kind == "error":
                    raise value
                if kind == "closed":
                    raise ClientClosed("the client was closed during the call")
                yield value
        finally:
            stop.set()  # the worker drops the request at its next chunk (a no-op once it is done)
            with self._models_lock:
                self._flows.discard(items)

    def _call(self, role: str, started: float, metrics: dict[str, Any], ok: bool, reason: str | None = None) -> LLMCall:
        usage = metrics.get("usage") or {}
        return LLMCall(
            role=role, model=self.config(role).model, ok=ok, outcome="ok" if ok else "fallback",
            latency_ms=(time.monotonic() - started) * 1000, ttft_ms=metrics.get("ttft_ms"),
            prompt_tokens=usage.get("input_tokens"), completion_tokens=usage.get("output_tokens"),
            attempts=metrics.get("attempts", 1), retries=metrics.get("retries", 0),
            feedback=metrics.get("feedback", []), fallback_reason=reason, habits=metrics.get("habits", []),
            reasoning=metrics.get("reasoning"), done_reason=metrics.get("done_reason"),
        )


def _note(chunk: Any, metrics: dict[str, Any]) -> None:
    """Keep what a streamed chunk says about the call: token usage, ``done_reason``, separated reasoning."""
    if getattr(chunk, "usage_metadata", None):
        metrics["usage"] = chunk.usage_metadata
    done = (getattr(chunk, "response_metadata", None) or {}).get("done_reason")
    if done:
        metrics["done_reason"] = done
    thought = (getattr(chunk, "additional_kwargs", None) or {}).get("reasoning_content")
    if thought:
        metrics["reasoning"] = (metrics.get("reasoning") or "") + thought


@lru_cache(maxsize=1)
def _tls() -> Any:
    """One TLS context (the system's CA bundle, as httpx loads it by default) for every role's clients: each
    ChatOllama builds a sync and an async client, and loading the CA bundle for each costs tens of milliseconds."""
    import httpx

    return httpx.create_ssl_context()


class _Workers:
    """Daemon threads, started on demand and kept for the next call, that run the HTTP work of LLM calls.

    Skald's own rather than ``concurrent.futures.ThreadPoolExecutor``: the executor's threads are joined when the
    interpreter exits, so one request abandoned at its deadline (a hung model) would hold up ``/quit`` until httpx
    gave up on it; these are daemons and never do. A thread that waits for work longer than ``idle_s`` ends.
    """

    def __init__(self, idle_s: float = 60.0):
        self.idle_s = idle_s
        self._tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = 0
        self._lock = threading.Lock()

    def run(self, task: Callable[[], None]) -> None:
        with self._lock:
            spare = self._idle > 0
            if spare:
                self._idle -= 1
        self._tasks.put(task)
        if not spare:
            threading.Thread(target=self._serve, daemon=True, name="skald-llm").start()

    def _serve(self) -> None:
        while True:
            try:
                task = self._tasks.get(timeout=self.idle_s)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # nobody has claimed this thread: it may go
                        self._idle -= 1
                        return
                continue  # a task is on its way to this thread
            task()
            with self._lock:
                self._idle += 1


_WORKERS = _Workers()


@dataclass(frozen=True)
class _Deadline:
    """When a call must end (``time.monotonic()`` seconds) and what its LLMTimeout says then."""

    at: float
    why: str


class _Rejected(Exception):
    """A reply arrived but cannot be used (empty, or invalid after every attempt)."""


class ClientClosed(Exception):
    """The client was closed (:meth:`LLMClient.close`): the call ends unanswered."""
