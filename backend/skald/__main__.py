"""``python -m skald``: the ``skald`` command."""

from skald.commands import app

app()
