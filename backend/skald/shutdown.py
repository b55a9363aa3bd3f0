"""Ending a process in order: its background LLM work first, then its lore stores.

Skald's background work runs on daemon threads (the Director's briefs, ``llm.brief_cache``; the HTTP work of LLM
calls, ``llm.client``), so that a hung model never holds up ``/quit``. But a daemon thread still inside native code
that let go of the GIL when the interpreter finalizes (a Chroma query in its Rust bindings, wordllama's tokenizer) is
ended by CPython with ``pthread_exit`` as it takes the GIL back, and unwinding its Rust frames that way is a
segmentation fault: ``skald play`` died like that after its last turn whenever that turn had started a scene brief,
whose lore lanes were still running as the process ended (issue 31).

:func:`close_all` closes every LLM client of the process (no call starts any more, the calls under way are cut, the
background briefs end and are waited for), then every Chroma client (the lanes under way are waited for; later ones
are refused). The ``skald`` command calls it when each command ends, the API when it shuts down, and it is registered
with :mod:`atexit` as a safety net for any other use of the engine (atexit hooks run before CPython stops daemon
threads).
"""

from __future__ import annotations

import atexit
import logging
import sys
import time

CLOSE_WAIT_S = 10.0  # the longest close_all waits for background work (cut calls and lanes end in milliseconds)


def close_all(timeout: float = CLOSE_WAIT_S) -> bool:
    """Close the process's LLM clients, then its lore stores (``timeout`` seconds at most in all). Idempotent; a
    client or index made afterwards works as new. Returns True when nothing was left running; otherwise a warning is
    logged."""
    clients, stores = sys.modules.get("skald.llm.client"), sys.modules.get("skald.rag.store")  # never imported: none
    end = time.monotonic() + timeout
    briefs = clients is None or clients.close_clients(timeout)
    stores = stores is None or stores.close_stores(max(0.0, end - time.monotonic()))
    if not (briefs and stores):
        logging.getLogger("skald").warning("still running after %.0f s at exit: %s", timeout, ", ".join(
            what for what, done in (("background briefs", briefs), ("lore lanes", stores)) if not done))
    return briefs and stores


atexit.register(close_all)
