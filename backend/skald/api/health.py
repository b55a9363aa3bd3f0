"""``GET /health``: whether the database answers and, per LLM role, whether its Ollama server does (probes cached for
a few seconds, so a polling monitor does not hammer Ollama). Model names, Ollama URLs and pack file paths are shown
only to the admin key's holder."""

from __future__ import annotations

import threading
import time
from typing import Any

from skald.engine import Engine
from skald.llm.client import probe_ollama
from skald.settings import ROLES

HEALTH_PROBE_CACHE_S = 5.0


class HealthCheck:
    def __init__(self, engine: Engine):
        self.engine = engine
        self._probes: dict[str, tuple[float, bool, str]] = {}
        self._lock = threading.Lock()

    def __call__(self, admin: bool = False) -> tuple[bool, dict[str, Any]]:
        """(database usable, the /health body). Without ``admin``, ``model``, ``base_url`` and the ``detail`` of
        each role and of the LLM are null, and each pack's errors are one line saying how many there are."""
        try:
            version = self.engine.store_version()
            db = {"ok": True, "schema_version": version, "detail": "database opens and answers"}
        except Exception as exc:  # noqa: BLE001 - reported, without paths
            db = {"ok": False, "schema_version": None, "detail": f"database does not answer ({type(exc).__name__})"}
        llm = self.engine.llm
        roles = {}
        for role in ROLES:
            cfg = llm.config(role)
            if not llm.online:
                reachable, detail = None, f"offline: deterministic fallbacks ({llm.detail})"
            elif not cfg.enabled:
                reachable, detail = None, "role disabled: uses its fallback"
            else:
                reachable, detail = self._probe(cfg.base_url, llm.settings.probe_timeout_s)
            roles[role] = {"model": cfg.model if admin else None, "base_url": cfg.base_url if admin else None,
                           "enabled": cfg.enabled, "reachable": reachable, "detail": detail if admin else None}
        llm_ok = all(r["reachable"] is not False for r in roles.values())
        pack_errors = dict(self.engine.packs.errors)
        if not admin:
            pack_errors = {pack: [f"the last edit was refused: {len(problems)} problem(s), listed in the server log "
                                  "and to the admin key"] for pack, problems in pack_errors.items()}
        body = {"status": "ok" if db["ok"] and llm_ok else "degraded", "db": db,
                "llm": {"online": bool(llm.online), "detail": llm.mode if admin else None, "roles": roles},
                "pack_errors": pack_errors}
        return db["ok"], body

    def _probe(self, base_url: str, timeout_s: float) -> tuple[bool, str]:
        now = time.monotonic()
        with self._lock:
            cached = self._probes.get(base_url)
        if cached is not None and now - cached[0] < HEALTH_PROBE_CACHE_S:
            return cached[1], cached[2]
        ok, detail = probe_ollama(base_url, timeout_s)
        with self._lock:
            self._probes[base_url] = (now, ok, detail)
        return ok, detail
