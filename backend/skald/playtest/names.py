"""The machine players' names, for the command line (cheap to import: nothing else is loaded)."""

from __future__ import annotations

ORDER = ("suggestions", "quester", "explorer", "chatter", "chaos", "idle")  # the policies; mixed plays them in turn
MIXED = "mixed"
CHOICES = (*ORDER, MIXED)
