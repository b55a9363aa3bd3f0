"""Fault handling for LLM calls: which errors are transient, and a circuit breaker per role (retries with
exponential backoff are tenacity's, in ``LLMClient._with_retries``).

- Transient (retried with exponential backoff, only before any token reached the player): connection
  failures, dropped connections, HTTP 5xx and 429, and streams that break mid-way.
- Not retried: timeouts (the turn has already waited its budget), HTTP 4xx such as a missing model,
  and replies that fail validation (those get validation feedback instead, see ``llm.feedback``).
- Circuit breaker: after ``failures`` consecutive failed calls a role is *open* for ``seconds``: calls fail at
  once into the fallback instead of making every turn wait. After that one trial call is let through
  (half-open); success closes the circuit, failure opens it again.
- A timeout opens the circuit at once (:meth:`CircuitBreaker.trip`) when the call had a fair wait
  (:func:`fair_wait_s`): waiting out the deadline again on the next turns would only hold those turns. When such a
  call got nothing at all back from the model, the server is taken to be hung, and every role served from the same
  URL opens too (``LLMClient`` decides; see ``docs/llm.md``, "Faults").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


class LLMTimeout(Exception):
    """A call ran past its role's deadline."""


def is_transient(exc: BaseException) -> bool:
    import httpx
    from ollama import ResponseError  # the ollama client's own error type carries the HTTP status

    if isinstance(exc, LLMTimeout | httpx.TimeoutException):
        return False
    if isinstance(exc, httpx.TransportError | ConnectionError):
        return True
    if isinstance(exc, ResponseError):
        status = getattr(exc, "status_code", 0)
        return status == -1 or status == 429 or status >= 500  # -1: the stream broke mid-way
    return False


def fair_wait_s(timeout_s: float, turn_budget_s: float) -> float:
    """Seconds a call must have waited before running into its deadline counts as more than bad luck: half the shorter
    of its role's timeout and the turn budget (both in seconds). A call cut sooner only had what earlier roles left
    of the turn budget."""
    return min(timeout_s, turn_budget_s) / 2


@dataclass
class CircuitBreaker:
    """Consecutive-failure circuit breaker for one role. ``clock`` returns seconds (monotonic).

    ``reason`` says why the circuit last opened, to finish the sentence "circuit open after ..."."""

    failures: int
    seconds: float
    clock: Callable[[], float] = time.monotonic
    consecutive: int = 0
    opened_at: float | None = field(default=None)
    reason: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # shared by parallel API turns

    def allow(self) -> bool:
        """False while open; True when closed or when the open period has passed (a trial call)."""
        with self.lock:
            return self.opened_at is None or self.clock() - self.opened_at >= self.seconds

    def remaining(self) -> float:
        """Seconds until the open circuit lets a trial call through (0 when closed)."""
        return 0.0 if self.opened_at is None else max(0.0, self.seconds - (self.clock() - self.opened_at))

    def success(self) -> None:
        with self.lock:
            self.consecutive = 0
            self.opened_at = None

    def failure(self) -> None:
        """One more failed call; opens the circuit at ``failures`` in a row, or when the failed call was the trial."""
        with self.lock:
            self.consecutive += 1
            if self.consecutive >= self.failures or self.opened_at is not None:
                self.opened_at = self.clock()
                self.reason = f"{self.consecutive} consecutive failure{'s' if self.consecutive != 1 else ''}"

    def trip(self, reason: str, *, failed: bool = True) -> None:
        """Open the circuit now, whatever the count: ``reason`` finishes "circuit open after ...". ``failed``: this
        role's own call failed (it counts as one failure); False when another role's call showed the server hung."""
        with self.lock:
            self.consecutive += 1 if failed else 0
            self.opened_at = self.clock()
            self.reason = reason
