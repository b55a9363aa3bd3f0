"""The ``skald`` command: the terminal's commands (``skald.cli``) and the API's ``serve`` (``skald.api``), gathered
here so that neither frontend imports the other."""

from __future__ import annotations

from skald.api.command import serve
from skald.cli.main import app

app.command()(serve)
