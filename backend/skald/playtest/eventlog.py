"""The event log against the committed state: folding a campaign's stored events from its initial state
(``events.replay_log``) must give the state the projection tables hold (``store.reads.load_state``), on every field
the events own. A field that differs is a ``log_mismatch`` defect: an event that does not say what the turn did, or
a projection written without its event.

``mismatches(conn, campaign_id, pack)`` returns ``(key, detail)`` pairs like ``invariants.broken``; the key is the
field (``player``, ``world``...), the detail names the parts of it that differ.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from skald.core import events
from skald.core.pack import EraPack
from skald.core.persistent import PERSISTENT_FIELDS
from skald.store import reads

# The fields no event owns: the campaign's counters, the recaps of recent turns, what was told, the offer.
NOT_FROM_EVENTS = frozenset({"campaign", "recent", "told", "offer"})
OWNED = tuple(sorted(PERSISTENT_FIELDS - NOT_FROM_EVENTS))
SHOWN = 160  # characters of a value shown in a detail


def fold(conn: Any, campaign_id: str, pack: EraPack):
    """The campaign's stored events folded from its initial state."""
    return events.replay_log(reads.initial_state(conn, campaign_id), reads.event_log(conn, campaign_id),
                             events.limits_of(pack))


def mismatches(conn: Any, campaign_id: str, pack: EraPack) -> list[tuple[str, str]]:
    """Each field the events own on which the fold of the stored log and the committed state disagree (a log or
    state that does not read at all is one mismatch, keyed ``unreadable``)."""
    try:
        folded, stored = fold(conn, campaign_id, pack), reads.load_state(conn, campaign_id)
    except Exception as exc:  # a row no event class accepts, an event that does not apply: the log disagrees
        return [("unreadable", f"the event log does not fold: {type(exc).__name__}: {exc}"[:400])]
    out = []
    for name in OWNED:
        mine, theirs = getattr(folded, name), getattr(stored, name)
        if mine != theirs:
            out.append((name, f"{name}: {_difference(mine, theirs)}"[:400]))
    return out


def _difference(folded: Any, stored: Any) -> str:
    """What differs, named as deep as one level of fields or keys: "credits: the log gives 12, the state holds 7"."""
    a, b = _plain(folded), _plain(stored)
    if isinstance(a, dict) and isinstance(b, dict):
        parts = [f"{key}: the log gives {_short(a.get(key))}, the state holds {_short(b.get(key))}"
                 for key in sorted(set(a) | set(b), key=str) if a.get(key) != b.get(key)]
        return "; ".join(parts)
    return f"the log gives {_short(a)}, the state holds {_short(b)}"


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def _short(value: Any) -> str:
    said = repr(_plain(value))
    return said if len(said) <= SHOWN else said[:SHOWN] + "..."
