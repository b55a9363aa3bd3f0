"""What the API does, without HTTP: campaign tokens, campaigns, turns (with idempotency keys), and reads.

Turns on one campaign are serialized by a per-campaign lock in this process, taken without waiting: a turn
request that finds another turn of the same campaign in progress is refused at once (:class:`TurnBusy`, 409)
rather than queued behind it. Under the lock the idempotency key is checked, the campaign is loaded, the turn is
played by ``graph.run_turn`` / ``graph.stream_turn`` (whose Commit does a compare-and-swap on the turn number, so
a turn played by another process on the same file is refused with ``TurnConflictError``, never applied twice),
and the response is stored under the key.

Idempotency records (table ``api_idempotency``, migration m003) go through three steps: a *pending* record
(the key, a hash of the input and the turn number the turn is based on) is written before the turn is played;
the engine commits the turn in its own transaction; the response is then stored on the record. A retry finds:

* a stored response: it is returned as it was, and the turn is not played again;
* a pending record while the original request still plays: the lock is held, so 409 (retry later);
* a pending record left by a request that died between the turn's commit and storing its response: if the turn
  after ``based_on`` exists with the same input, that turn *was* played; its response is rebuilt from the
  transcript row (with the campaign's current state) and stored, and nothing is played again. Otherwise the turn
  never committed and it is played now.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from skald.api.models import SEED_MAX, NewCampaign
from skald.api.packs import PackCache
from skald.api.pool import ConnectionPool
from skald.cli.session import turn_json
from skald.engine import start_campaign
from skald.errors import TurnConflictError
from skald.graph import run_turn, stream_turn
from skald.llm.client import LLMClient, probe_ollama
from skald.packs.models import EraPack
from skald.settings import ROLES
from skald.state import GameState
from skald.store import reads, writer
from skald.store.db import writing
from skald.store.schema import schema_version

log = logging.getLogger("skald.api")

_NO_TOKEN = hashlib.sha256(b"no token for this campaign").hexdigest()  # compared when a campaign has no token
HEALTH_PROBE_CACHE_S = 5.0


class TurnBusy(Exception):
    """Another turn of this campaign is being played (or the campaign is being deleted)."""

    def __init__(self, turn_number: int):
        self.turn_number = turn_number
        super().__init__(f"another turn of this campaign is being played; the campaign is at turn {turn_number}: "
                         "wait for it, reload the campaign and try again")


class TurnStale(Exception):
    """The client's ``expected_turn`` is not the campaign's turn number."""

    def __init__(self, expected: int, turn_number: int):
        self.turn_number = turn_number
        super().__init__(f"the campaign is at turn {turn_number}, not {expected}: reload it and play your turn again")


class KeyReused(Exception):
    """An idempotency key sent again with a different input."""

    def __init__(self) -> None:
        super().__init__("this Idempotency-Key was already used for a different input on this campaign; "
                         "use a new key for a new turn")


class BadRequest(ValueError):
    """A request the engine cannot honour (e.g. an unknown background); the message says why."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _input_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(eq=False)
class Slot:
    """The right to play one turn of a campaign: holds the campaign's lock until :meth:`release`."""

    campaign_id: str
    state: GameState
    pack: EraPack
    text: str
    key: str | None
    input_hash: str
    _lock: threading.Lock
    handed_off: bool = False  # a worker owns the slot now and releases it when the turn is over
    _released: bool = field(default=False, repr=False)
    _guard: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def release(self) -> None:
        """Give the campaign's lock back (once; later calls do nothing)."""
        with self._guard:
            if self._released:
                return
            self._released = True
        self._lock.release()


@dataclass
class Claim:
    """Either a stored response to replay (idempotent retry) or a slot to play the turn with."""

    replay: dict[str, Any] | None = None
    slot: Slot | None = None


class Game:
    """The API's engine room: one pool of connections, one pack cache, one LLM client for every campaign."""

    def __init__(self, pool: ConnectionPool, packs: PackCache, llm: LLMClient, *, retriever: Any = True,
                 graph: CompiledStateGraph | None = None, admin_key: str | None = None):
        self.pool = pool
        self.packs = packs
        self.llm = llm
        self.retriever = retriever
        self.graph = graph
        self._admin_hash = token_hash(admin_key) if admin_key else None
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._probes: dict[str, tuple[float, bool, str]] = {}

    # ------------------------------------------------------------------ access

    def check_token(self, campaign_id: str, token: str | None) -> bool:
        """Whether ``token`` is ``campaign_id``'s token. Constant-time compare of hashes; a campaign without a
        token (or no campaign at all) is compared against a dummy hash, so both take the same path."""
        presented = token_hash(token or "")
        with self.pool.connection() as conn:
            row = conn.execute("SELECT token_hash FROM api_tokens WHERE campaign_id = ?", (campaign_id,)).fetchone()
        matches = hmac.compare_digest(presented, row[0] if row else _NO_TOKEN)
        return bool(token) and row is not None and matches

    @property
    def admin_enabled(self) -> bool:
        return self._admin_hash is not None

    def check_admin(self, key: str | None) -> bool:
        if self._admin_hash is None:
            return False
        return hmac.compare_digest(token_hash(key or ""), self._admin_hash) and bool(key)

    # ------------------------------------------------------------------ campaigns

    def create_campaign(self, request: NewCampaign) -> dict[str, Any]:
        """:raises UnknownPackError: not a shipped pack. :raises BadRequest: unknown background."""
        pack = self.packs.get(request.pack)
        if request.background is not None and request.background not in pack.backgrounds:
            raise BadRequest(f"unknown background {request.background!r}; choose one of: "
                             f"{', '.join(pack.backgrounds)}")
        seed = secrets.randbelow(SEED_MAX + 1) if request.seed is None else request.seed
        token = secrets.token_urlsafe(32)
        with self.pool.connection() as conn:
            state = start_campaign(conn, pack, seed=seed, background=request.background, name=request.name,
                                   token_hash=token_hash(token))
        return {"campaign_id": state.campaign.id, "token": token, "state": self._campaign_view(state, pack)}

    def campaign_state(self, campaign_id: str) -> dict[str, Any]:
        state = self._load(campaign_id)
        return self._campaign_view(state, self.packs.for_view(state))

    def delete_campaign(self, campaign_id: str) -> None:
        """:raises TurnBusy: a turn of the campaign is being played."""
        lock = self._lock_for(campaign_id)
        if not lock.acquire(blocking=False):
            raise TurnBusy(self._turn_number(campaign_id))
        try:
            with self.pool.connection() as conn:
                writer.delete_campaign(conn, campaign_id)
            self.packs.forget(campaign_id)
        finally:
            lock.release()

    def list_campaigns(self) -> list[dict[str, Any]]:
        with self.pool.connection() as conn:
            return [{"campaign_id": r["id"], "pack": r["pack_id"], "turn_number": r["turn_number"],
                     "updated_at": r["updated_at"]}
                    for r in conn.execute("SELECT id, pack_id, turn_number, updated_at FROM campaigns "
                                          "ORDER BY updated_at DESC, id")]

    # ------------------------------------------------------------------ reads

    def transcript(self, campaign_id: str, offset: int, limit: int) -> dict[str, Any]:
        with self.pool.connection() as conn:
            total = conn.execute("SELECT COUNT(*) FROM turns WHERE campaign_id = ?", (campaign_id,)).fetchone()[0]
            rows = conn.execute(
                "SELECT * FROM turns WHERE campaign_id = ? ORDER BY turn_number LIMIT ? OFFSET ?",
                (campaign_id, limit, offset)).fetchall()
        return {"campaign_id": campaign_id, "total": total, "offset": offset, "limit": limit,
                "turns": [_turn_record(r) for r in rows]}

    def rumors(self, campaign_id: str) -> dict[str, Any]:
        state = self._load(campaign_id)
        pack = self.packs.for_view(state)

        def listed(ids: list[str]) -> list[dict[str, str]]:
            return [{"id": r, "text": pack.rumors[r].text} for r in ids if r in pack.rumors]

        return {"known": listed(state.world.known_rumors), "public": listed(state.world.public_rumors)}

    def party(self, campaign_id: str) -> list[dict[str, Any]]:
        state = self._load(campaign_id)
        pack = self.packs.for_view(state)
        return [{"id": c.id, "name": pack.companions[c.id].name, "role": pack.companions[c.id].role,
                 "in_party": c.in_party, "affinity": c.affinity, "loyalty": c.loyalty, "joined_turn": c.joined_turn}
                for c in state.companions.values() if c.id in pack.companions]

    def quests(self, campaign_id: str) -> list[dict[str, Any]]:
        state = self._load(campaign_id)
        pack = self.packs.for_view(state)
        out = []
        for qid, q in state.quests.items():
            if qid not in pack.quests:
                continue
            quest = pack.quests[qid]
            active = q.status != "completed" and q.stage < len(quest.stages)
            out.append({"id": qid, "title": quest.title, "status": q.status, "stage": q.stage,
                        "objective": quest.stages[q.stage].objective if active else None})
        return out

    # ------------------------------------------------------------------ turns

    def claim_turn(self, campaign_id: str, text: str, key: str | None, expected: int | None) -> Claim:
        """Check the key, take the campaign's lock and load it; see the module docstring.

        :raises KeyReused: the key was used with another input. :raises TurnBusy: a turn is in progress.
        :raises TurnStale: ``expected`` is not the campaign's turn number.
        """
        digest = _input_hash(text)
        if key is not None:
            stored = self._stored_response(campaign_id, key, digest)
            if stored is not None:
                return Claim(replay=stored)
        lock = self._lock_for(campaign_id)
        if not lock.acquire(blocking=False):
            raise TurnBusy(self._turn_number(campaign_id))
        try:
            with self.pool.connection() as conn:
                replay = None if key is None else self._settle_key(conn, campaign_id, key, digest)
                if replay is not None:
                    lock.release()
                    return Claim(replay=replay)
                state = reads.load_state(conn, campaign_id)
                if expected is not None and expected != state.campaign.turn_number:
                    raise TurnStale(expected, state.campaign.turn_number)
                pack = self.packs.for_turn(state)
                if key is not None:
                    with writing(conn):
                        conn.execute(
                            "INSERT OR REPLACE INTO api_idempotency (campaign_id, key, input_hash, based_on, "
                            "turn_number, response, created_at) VALUES (?, ?, ?, ?, NULL, NULL, ?)",
                            (campaign_id, key, digest, state.campaign.turn_number, _now()))
        except BaseException:
            lock.release()
            raise
        return Claim(slot=Slot(campaign_id, state, pack, text, key, digest, lock))

    def play(self, slot: Slot) -> dict[str, Any]:
        """Play the claimed turn and release the slot. :raises TurnConflictError: lost the race to another
        process; nothing was written (and the key is free again)."""
        try:
            with self.pool.connection() as conn:
                try:
                    final = run_turn(conn, slot.state.model_copy(update={"player_input": slot.text}), pack=slot.pack,
                                     llm=self.llm, graph=self.graph, retriever=self.retriever)
                except TurnConflictError:
                    self._forget_key(conn, slot)
                    raise
                body = turn_json(final, slot.pack)
                self._store_response(conn, slot, body)
                return body
        finally:
            slot.release()

    def stream(self, slot: Slot, emit: Callable[[str, Any], None]) -> None:
        """Play the claimed turn through ``graph.stream_turn``, calling ``emit(kind, data)`` for each event:
        ``progress`` ({"node"}), ``token`` ({"text"}), then ``turn`` (the result) or ``error``; ``end`` last.
        Runs on a worker thread; releases the slot."""
        try:
            with self.pool.connection() as conn:
                try:
                    for kind, payload in stream_turn(conn, slot.state.model_copy(update={"player_input": slot.text}),
                                                     pack=slot.pack, llm=self.llm, graph=self.graph,
                                                     retriever=self.retriever):
                        if kind == "progress":
                            emit("progress", {"node": payload})
                        elif kind == "token":
                            emit("token", {"text": payload})
                        elif kind == "turn":
                            body = turn_json(payload, slot.pack)
                            self._store_response(conn, slot, body)
                            emit("turn", body)
                except TurnConflictError as exc:
                    self._forget_key(conn, slot)
                    emit("error", {"status": 409, "detail": str(exc), "turn_number": exc.current_turn})
        except Exception:
            log.exception("streamed turn of campaign %s failed", slot.campaign_id)
            emit("error", {"status": 500, "detail": "internal server error; the turn may not have been played: "
                                                    "reload the campaign", "turn_number": None})
        finally:
            slot.release()
            emit("end", None)

    # ------------------------------------------------------------------ health

    def health(self) -> tuple[bool, dict[str, Any]]:
        """(database usable, the /health body)."""
        try:
            with self.pool.connection() as conn:
                version = schema_version(conn)
                conn.execute("SELECT COUNT(*) FROM campaigns").fetchone()
            db = {"ok": True, "schema_version": version, "detail": "database opens and answers"}
        except Exception as exc:  # noqa: BLE001 - reported, without paths
            db = {"ok": False, "schema_version": None, "detail": f"database does not answer ({type(exc).__name__})"}
        roles = {}
        for role in ROLES:
            cfg = self.llm.config(role)
            if not self.llm.online:
                reachable, detail = None, f"offline: deterministic fallbacks ({self.llm.detail})"
            elif not cfg.enabled:
                reachable, detail = None, "role disabled: uses its fallback"
            else:
                reachable, detail = self._probe(cfg.base_url)
            roles[role] = {"model": cfg.model, "base_url": cfg.base_url, "enabled": cfg.enabled,
                           "reachable": reachable, "detail": detail}
        llm_ok = all(r["reachable"] is not False for r in roles.values())
        body = {"status": "ok" if db["ok"] and llm_ok else "degraded", "db": db,
                "llm": {"online": bool(self.llm.online), "detail": self.llm.mode, "roles": roles},
                "pack_errors": dict(self.packs.errors)}
        return db["ok"], body

    def _probe(self, base_url: str) -> tuple[bool, str]:
        now = time.monotonic()
        cached = self._probes.get(base_url)
        if cached is not None and now - cached[0] < HEALTH_PROBE_CACHE_S:
            return cached[1], cached[2]
        ok, detail = probe_ollama(base_url, self.llm.settings.probe_timeout_s)
        self._probes[base_url] = (now, ok, detail)
        return ok, detail

    # ------------------------------------------------------------------ internals

    def _lock_for(self, campaign_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(campaign_id, threading.Lock())

    def _load(self, campaign_id: str) -> GameState:
        with self.pool.connection() as conn:
            return reads.load_state(conn, campaign_id)

    def _turn_number(self, campaign_id: str) -> int:
        with self.pool.connection() as conn:
            return reads.turn_number(conn, campaign_id)

    def _campaign_view(self, state: GameState, pack: EraPack) -> dict[str, Any]:
        p = state.player
        return turn_json(state, pack)["state"] | {
            "campaign_id": state.campaign.id, "pack": state.campaign.pack_id, "seed": state.campaign.seed,
            "turn_number": state.campaign.turn_number, "name": p.name, "background": p.background,
            "inventory": dict(p.inventory), "reputation": dict(state.reputation)}

    def _stored_response(self, campaign_id: str, key: str, digest: str) -> dict[str, Any] | None:
        with self.pool.connection() as conn:
            row = conn.execute("SELECT input_hash, response FROM api_idempotency WHERE campaign_id = ? AND key = ?",
                               (campaign_id, key)).fetchone()
        if row is None or row["response"] is None:
            return None
        if row["input_hash"] != digest:
            raise KeyReused()
        return json.loads(row["response"])

    def _settle_key(self, conn: sqlite3.Connection, campaign_id: str, key: str, digest: str) -> dict[str, Any] | None:
        """Under the campaign's lock: the response to replay for ``key``, if its turn was played."""
        row = conn.execute("SELECT * FROM api_idempotency WHERE campaign_id = ? AND key = ?",
                           (campaign_id, key)).fetchone()
        if row is None:
            return None
        if row["input_hash"] != digest:
            raise KeyReused()
        if row["response"] is not None:
            return json.loads(row["response"])
        # pending: left by a request that stopped after taking the key; did its turn commit?
        played = conn.execute("SELECT * FROM turns WHERE campaign_id = ? AND turn_number = ?",
                              (campaign_id, row["based_on"] + 1)).fetchone()
        if played is None or _input_hash(played["input"]) != digest:
            return None  # it did not: play it now
        state = reads.load_state(conn, campaign_id)
        pack = self.packs.for_view(state)
        body = _recovered_turn(played, state, pack)
        with writing(conn):
            conn.execute("UPDATE api_idempotency SET response = ?, turn_number = ? WHERE campaign_id = ? AND key = ?",
                         (json.dumps(body), body["turn_number"], campaign_id, key))
        log.warning("campaign %s: idempotency key of turn %d recovered from the transcript", campaign_id,
                    body["turn_number"])
        return body

    def _store_response(self, conn: sqlite3.Connection, slot: Slot, body: dict[str, Any]) -> None:
        if slot.key is None:
            return
        with writing(conn):  # an upsert: the pending row may have been taken out by a loser in another process
            conn.execute(
                "INSERT INTO api_idempotency (campaign_id, key, input_hash, based_on, turn_number, response, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (campaign_id, key) DO UPDATE SET "
                "input_hash = excluded.input_hash, based_on = excluded.based_on, turn_number = excluded.turn_number, "
                "response = excluded.response",
                (slot.campaign_id, slot.key, slot.input_hash, slot.state.campaign.turn_number, body["turn_number"],
                 json.dumps(body), _now()))

    def _forget_key(self, conn: sqlite3.Connection, slot: Slot) -> None:
        """The turn did not commit: free its key (a retry plays it)."""
        if slot.key is None:
            return
        with writing(conn):
            conn.execute("DELETE FROM api_idempotency WHERE campaign_id = ? AND key = ? AND response IS NULL",
                         (slot.campaign_id, slot.key))


def _json_column(value: str | None, default: Any) -> Any:
    return json.loads(value) if value else default


def _turn_record(row: sqlite3.Row) -> dict[str, Any]:
    return {"turn_number": row["turn_number"], "input": row["input"], "intent": row["intent"],
            "action_class": row["action_class"], "outcome": row["outcome"], "text": row["text"],
            "suggestions": _json_column(row["suggestions"], []), "warnings": _json_column(row["warnings"], []),
            "location": row["location"], "world_time_minutes": row["world_time_minutes"],
            "created_at": row["created_at"]}


def _recovered_turn(row: sqlite3.Row, state: GameState, pack: EraPack) -> dict[str, Any]:
    """A turn's response rebuilt from its transcript row; ``state`` is the campaign's state now."""
    mechanic = _json_column(row["mechanic"], None)
    return {
        "campaign_id": row["campaign_id"], "turn_number": row["turn_number"], "input": row["input"],
        "intent": row["intent"], "action_class": row["action_class"], "text": row["text"],
        "suggestions": [{"label": s["label"], "tone": s["tone"], "risk": s["risk"]}
                        for s in _json_column(row["suggestions"], [])],
        "mechanic": None if mechanic is None else {k: mechanic.get(k) for k in ("outcome", "roll", "total", "dc",
                                                                                  "minutes")},
        "warnings": _json_column(row["warnings"], []),
        "state": turn_json(state, pack)["state"],
    }
