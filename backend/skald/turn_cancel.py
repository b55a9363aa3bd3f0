"""Cancelling a turn in flight (the play page's "Stop this turn"): a turn asked to stop is refused at Commit, the
only writer, so nothing of it is saved, and the player's words go back to them. A turn whose Commit has begun cannot
be stopped: it is saved whole, as if no one had asked.

The check and the start of Commit happen under one lock, so a request and a Commit never both win.
"""

from __future__ import annotations

import threading

from skald.errors import TurnCancelled


class TurnCancel:
    """One turn's cancellation: :meth:`request` from any thread, :meth:`committing` from Commit."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requested = False
        self.committed = False

    def request(self) -> bool:
        """Ask the turn to stop. True: it will stop before anything is saved; False: too late, Commit has begun."""
        with self._lock:
            if self.committed:
                return False
            self.requested = True
            return True

    def committing(self) -> None:
        """Commit's first step: the turn is saved from here on.

        :raises TurnCancelled: the turn was asked to stop; nothing is written.
        """
        with self._lock:
            if self.requested:
                raise TurnCancelled()
            self.committed = True
