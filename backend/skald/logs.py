"""Where log records go: to the log file, and to stderr only when asked (``--debug``), never into play.

Libraries log as they please: httpx one INFO line per request (``HTTP Request: POST .../api/chat ...``), chromadb,
uvicorn an access line per request. With no handler on the root logger Python prints only warnings, but wordllama
calls ``logging.basicConfig(level=logging.INFO)`` when it is imported (as retrieval and the semantic matcher load it),
which put every INFO record of every library on the terminal during play. :func:`configure` gives the root logger
its handlers first (``logging.basicConfig`` does nothing once it has some): the ``skald`` command calls it before
each command runs, from ``SKALD_LOG_FILE`` (default ``data/logs/skald.log``; empty: no file). :func:`show` adds
stderr: every record for ``skald play --debug``, warnings and errors for ``skald serve``.

The file is appended to by every ``skald`` process (API workers included) and never trimmed by Skald; it is reopened
when it is moved, so ``logrotate`` (or deleting it) is safe.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path

FILE_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"
SHOWN_FORMAT = "%(levelname)s %(name)s: %(message)s"


class _LogFile(logging.handlers.WatchedFileHandler):
    """Appends to the file, making it and its folder only when the first record comes (a quiet command leaves
    nothing behind), and reopening it when it was moved or deleted."""

    def _open(self):  # noqa: ANN202 - logging's signature
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
        return super()._open()


class _Stderr(logging.StreamHandler):
    """stderr as it is when a record comes (as ``logging.lastResort`` writes it: a test may swap ``sys.stderr``)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self):  # noqa: ANN201 - a text stream
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:  # noqa: ANN001 - StreamHandler.__init__ sets it
        pass


class _Nowhere(logging.NullHandler):
    """No log file: records go nowhere, and ``logging.basicConfig`` still finds a handler."""


class ToRoot(logging.Handler):
    """Hands each record to the root logger's handlers, for a logger whose parent would print it: uvicorn's access
    lines (``uvicorn.access``), whose parent ``uvicorn`` writes to stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        logging.getLogger().handle(record)


OURS = (_LogFile, _Stderr, _Nowhere)  # the handlers configure() and show() add; a second call replaces them


def log_file() -> Path | None:
    """The log file ``SKALD_LOG_FILE`` names (relative paths from the working folder), or None when it is empty. Read
    even when other settings are invalid (the command reports those itself)."""
    from skald.settings import Settings, SettingsError, get_settings

    try:
        value = get_settings().log_file
    except SettingsError:
        value = os.environ.get("SKALD_LOG_FILE", Settings.model_fields["log_file"].default)
    return Path(value) if value.strip() else None


def configure(path: Path | None, level: int = logging.INFO) -> None:
    """Send log records of ``level`` and above from every logger to the file ``path`` (None: nowhere), and nowhere
    else until :func:`show` says so. Replaces the handlers an earlier call added and leaves others alone (pytest's)."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, OURS)]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)
    handler = _LogFile(path, encoding="utf-8", delay=True) if path else _Nowhere()
    handler.setFormatter(logging.Formatter(FILE_FORMAT))
    root.addHandler(handler)  # logging.basicConfig, as wordllama calls it, does nothing from now on


def show(level: int = logging.INFO) -> None:
    """Print log records of ``level`` and above on stderr too: every record with ``skald play --debug``, warnings and
    errors for ``skald serve`` (its operator must see a failing request or a pack that no longer loads). One stderr
    handler however often it is called; the last call sets its level."""
    root = logging.getLogger()
    handler = next((h for h in root.handlers if isinstance(h, _Stderr)), None)
    if handler is None:
        handler = _Stderr()
        handler.setFormatter(logging.Formatter(SHOWN_FORMAT))
        root.addHandler(handler)
    handler.setLevel(level)
