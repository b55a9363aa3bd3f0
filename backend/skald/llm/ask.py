"""One LLM role call as a node makes it: fit the prompt to the role's budget, call, calibrate, and collect
what the turn must record (the call's metrics, context stats, warnings) whether the call worked or not."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from skald.core.records import LLMCall
from skald.llm.budget import Fitted, Prompt
from skald.llm.client import LLMClient, LLMUnavailable, TokenSink


@dataclass
class Asked:
    """``value`` is None when the role fell back; ``warnings`` then says why."""

    value: Any = None
    calls: list[LLMCall] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    stats: list[dict[str, Any]] = field(default_factory=list)
    tail: str | None = None  # with ``ask(..., tail=True)``: the reply's text after its [ACTIONS] line, if it had one
    fitted: Fitted | None = None  # the prompt as sent, when the role was called

    def update(self) -> dict[str, Any]:
        """The state update for these records (``llm_calls``, ``warnings``, ``context_stats``)."""
        return {"llm_calls": self.calls, "warnings": self.warnings, "context_stats": self.stats}


def ask(llm: LLMClient, role: str, prompt: Callable[[], Prompt], *, schema: type[BaseModel] | None = None,
        on_token: TokenSink | None = None, deadline: float | None = None, previous: str = "",
        tail: bool = False) -> Asked:
    """Text (streamed to ``on_token``) or, with ``schema``, a validated object. Never raises LLMUnavailable.

    ``prompt`` is built only when the role can be called (not offline, disabled, with its circuit open, or with the
    turn's budget spent). ``deadline``: the turn's (``TurnContext.deadline``, ``time.monotonic()`` seconds); the call
    ends by it or by the role's own timeout, whichever comes first. ``previous``: what the player read from this role
    last (text only): a reply repeating it falls back (``llm.hygiene``). ``tail`` (text only): split the reply at its
    ``[ACTIONS]`` line (``llm.tail``) and keep what follows in ``Asked.tail``.
    """
    try:
        llm.check(role, deadline)
    except LLMUnavailable as exc:  # offline or disabled: a setting, not this turn's problem (no warning)
        return Asked(warnings=[] if exc.offline else [str(exc)], calls=[exc.call] if exc.call else [])
    fitted = llm.fit(role, prompt())
    asked = Asked(warnings=list(fitted.warnings), stats=[fitted.stats.model_dump()], fitted=fitted)
    try:
        if schema is None:
            after: list[str] | None = [] if tail else None
            asked.value, call = llm.text(role, fitted.system, fitted.user, on_token=on_token, deadline=deadline,
                                         previous=previous, tail=after)
            asked.tail = after[0] if after else None
        else:
            asked.value, call = llm.structured(role, schema, fitted.system, fitted.user, deadline=deadline)
    except LLMUnavailable as exc:
        asked.warnings.append(str(exc))
        asked.calls += [exc.call] if exc.call else []
        return asked
    llm.calibrate(role, fitted, call)
    asked.calls.append(call)
    return asked
