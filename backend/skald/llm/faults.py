"""Fault handling for LLM calls: which errors are transient, and a circuit breaker per role (retries with
exponential backoff are tenacity's, in ``LLMClient._with_retries``).

- Transient (retried with exponential backoff, only before any token reached the player): connection
  failures, dropped connections, HTTP 5xx and 429, and streams that break mid-way.
- Not retried: timeouts (the turn has already waited its budget), HTTP 4xx such as a missing model,
  and replies that fail validation (those get validation feedback instead, see ``llm.feedback``).
- Circuit breaker: after ``failures`` consecutive failed calls a role is *open* for ``seconds``: calls fail at
  once into the fallback instead of making every turn wait. After that one trial call is let through
  (half-open); success closes the circuit, failure opens it again.
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


@dataclass
class CircuitBreaker:
    """Consecutive-failure circuit breaker for one role. ``clock`` returns seconds (monotonic)."""

    failures: int
    seconds: float
    clock: Callable[[], float] = time.monotonic
    consecutive: int = 0
    opened_at: float | None = field(default=None)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # shared by parallel API turns

    def allow(self) -> bool:
        """False while open; True when closed or when the open period has passed (a trial call)."""
        with self.lock:
            return self.opened_at is None or self.clock() - self.opened_at >= self.seconds

    def remaining(self) -> float:
        return 0.0 if self.opened_at is None else max(0.0, self.seconds - (self.clock() - self.opened_at))

    def success(self) -> None:
        with self.lock:
            self.consecutive = 0
            self.opened_at = None

    def failure(self) -> None:
        with self.lock:
            self.consecutive += 1
            if self.consecutive >= self.failures:
                self.opened_at = self.clock()
