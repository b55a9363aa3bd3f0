"""The wall clock: when something happens in the real world, as opposed to game time (``rules.clock``, in minutes).

It stamps stored rows (``created_at``, ``updated_at``, guided creation's ``touched_at``) and decides what is old
enough to prune (idempotency keys after ``store.idempotency.RETENTION_HOURS``, idle setup sessions). Time is an
input: the :class:`~skald.engine.Engine`, the turn graph (``TurnContext.clock``) and the store's writer take a
:data:`WallClock`, so a test fixes "now" (:func:`fixed`) and nothing a test checks depends on the date it runs on.
Durations (deadlines, timeouts, latencies) are not read from here: they use ``time.monotonic()``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

WallClock = Callable[[], datetime]
"""A function returning the current time as an aware ``datetime`` (any time zone; stored in UTC)."""


def system() -> datetime:
    """The machine's current time, in UTC: the default clock everywhere outside tests."""
    return datetime.now(UTC)


def stamp(at: datetime) -> str:
    """``at`` as the store keeps times: ISO 8601 in UTC with milliseconds (``2026-11-25T14:32:33.120+00:00``), so
    two stamps compare as text in time order. :raises ValueError: ``at`` is naive (no time zone)."""
    if at.tzinfo is None:
        raise ValueError(f"a naive datetime has no time zone to store: {at!r}")
    return at.astimezone(UTC).isoformat(timespec="milliseconds")


def parse(text: str) -> datetime:
    """A stored stamp back as an aware ``datetime`` (a stamp without a zone is read as UTC).
    :raises ValueError: not ISO 8601."""
    at = datetime.fromisoformat(text)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


class Manual:
    """A clock that stands still until moved: ``clock = Manual(at)``; ``clock()`` is ``at``; ``clock.advance(
    minutes=5)`` moves it. Tests and replays use it to fix "now".

    :param at: the time it shows first (an aware ``datetime`` or an ISO 8601 stamp).
    """

    def __init__(self, at: datetime | str):
        self.at = parse(at) if isinstance(at, str) else at
        stamp(self.at)  # refuses a naive datetime now, not at the first stamp

    def __call__(self) -> datetime:
        return self.at

    def advance(self, **delta: float) -> datetime:
        """Move the clock forward by ``timedelta(**delta)`` and return the new time."""
        self.at += timedelta(**delta)
        return self.at


def fixed(at: datetime | str) -> Manual:
    """A clock fixed at ``at`` (see :class:`Manual`)."""
    return Manual(at)
