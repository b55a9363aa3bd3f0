"""LLM access: one ``ChatOllama`` per role, an availability probe, and call metrics.

Nodes never talk to Ollama themselves: they call :meth:`LLMClient.text` or :meth:`LLMClient.structured`,
and on :class:`LLMUnavailable` use their deterministic fallback and add a warning to the turn.
"""

from __future__ import annotations

import time
from typing import Any, TypeVar

import httpx
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_ollama import ChatOllama
from pydantic import BaseModel

from skald.settings import ROLES, Settings
from skald.state import LLMCall

SchemaT = TypeVar("SchemaT", bound=BaseModel)


class LLMUnavailable(Exception):
    """The role could not produce a usable reply (offline, timeout, HTTP error, invalid reply).

    ``call`` holds the failed call's metrics (``ok=False``) when a request was made; None when offline.
    """

    def __init__(self, message: str, call: LLMCall | None = None):
        super().__init__(message)
        self.call = call


def _failed(call: LLMCall, reason: str) -> LLMUnavailable:
    return LLMUnavailable(reason, call.model_copy(update={"ok": False, "fallback_reason": reason}))


def probe_ollama(base_url: str, timeout_s: float) -> tuple[bool, str]:
    """Ask Ollama's ``/api/tags``. Returns (reachable, human-readable detail)."""
    try:
        reply = httpx.get(f"{base_url.rstrip('/')}/api/tags", timeout=timeout_s)
        reply.raise_for_status()
        models = [m.get("name", "?") for m in reply.json().get("models", [])]
        return True, f"Ollama at {base_url} ({len(models)} models pulled)"
    except (httpx.HTTPError, ValueError) as exc:
        return False, f"Ollama unreachable at {base_url} ({type(exc).__name__})"


class LLMClient:
    """Per-role chat models over one Ollama server.

    :param settings: resolved settings (base URL, model per role, timeout).
    :param online: True to call Ollama, False for deterministic fallbacks only. ``None`` probes Ollama
        once (``settings.llm == "auto"``), or follows ``settings.llm`` when it is ``on``/``off``.
    """

    def __init__(self, settings: Settings, online: bool | None = None):
        self.settings = settings
        if online is None:
            if settings.llm == "auto":
                online, self.detail = probe_ollama(settings.ollama_base_url, settings.probe_timeout_s)
            else:
                online = settings.llm == "on"
                self.detail = f"SKALD_LLM={settings.llm}"
        else:
            self.detail = "online" if online else "offline by request"
        self.online = online
        self._models: dict[str, ChatOllama] = {}

    @property
    def mode(self) -> str:
        if self.online:
            return f"LLM mode: {self.detail}; narrator model {self.settings.narrator_model}"
        return f"offline narrator: deterministic prose ({self.detail})"

    def model(self, role: str) -> ChatOllama:
        if role not in ROLES:
            raise ValueError(f"unknown LLM role {role!r}; roles: {', '.join(ROLES)}")
        if role not in self._models:
            self._models[role] = ChatOllama(
                model=self.settings.model_for(role),
                base_url=self.settings.ollama_base_url,
                temperature=0.7 if role == "narrator" else 0.2,
                client_kwargs={"timeout": self.settings.llm_timeout_s},
            )
        return self._models[role]

    def _call(self, role: str, fn: Any) -> tuple[Any, LLMCall]:
        if not self.online:
            raise LLMUnavailable(f"{role}: offline fallback ({self.detail})")
        model_name = self.settings.model_for(role)
        model = self.model(role)  # built before the clock starts: construction is not call latency
        started = time.perf_counter()
        try:
            value = fn(model)
        except Exception as exc:  # any client, HTTP or parsing failure becomes a fallback, never a lost turn
            detail = " ".join(str(exc).split())[:120]  # one line: parser errors span several
            reason = f"{role}: fallback after {type(exc).__name__}: {detail}"
            call = LLMCall(role=role, model=model_name, ok=False, fallback_reason=reason,
                           latency_ms=(time.perf_counter() - started) * 1000)
            raise LLMUnavailable(reason, call) from exc
        call = LLMCall(role=role, model=model_name, ok=True, latency_ms=(time.perf_counter() - started) * 1000)
        return value, call

    def text(self, role: str, system: str, user: str) -> tuple[str, LLMCall]:
        """Plain text reply. :raises LLMUnavailable: offline, failed, or an empty reply."""
        messages: list[BaseMessage] = [SystemMessage(system), HumanMessage(user)]
        reply, call = self._call(role, lambda m: m.invoke(messages))
        content = reply.content if isinstance(reply.content, str) else str(reply.content)
        if not content.strip():
            raise _failed(call, f"{role}: fallback after an empty reply")
        return content, call

    def structured(self, role: str, schema: type[SchemaT], system: str, user: str) -> tuple[SchemaT, LLMCall]:
        """A reply validated against ``schema`` via ``with_structured_output``.

        :raises LLMUnavailable: offline, failed, or the reply does not validate.
        """
        messages: list[BaseMessage] = [SystemMessage(system), HumanMessage(user)]
        value, call = self._call(role, lambda m: m.with_structured_output(schema).invoke(messages))
        if not isinstance(value, schema):
            raise _failed(call, f"{role}: fallback after a reply that is not {schema.__name__}")
        return value, call
