"""Histories of turn requests against real ``skald serve`` processes, and a checker for them.

A :class:`Cluster` runs ``python -m skald serve`` processes (offline narrator) on one save file, each restartable on
its port after a SIGKILL. :func:`run_load` sends turn requests from client threads to any server at random, each
under its own idempotency key and with an input no other request sends (``"look around [s1-t17]"``: the router
strips bracketed tags, so it plays as "look around"), and retries the same key through injected faults until a
server acknowledges it (a 200 with a turn number): read timeouts, connections dropped right after the request was
sent or half-way through its body, streams abandoned mid-turn, and servers killed mid-load. Every attempt is
recorded (:class:`Request`, :class:`Attempt`). :func:`check` then compares the record with the save file (read with
``sqlite3`` directly, read-only) and with the transcript each server serves, per campaign:

- every stored turn answers exactly one request: its input is one a request sent, and no input is stored twice;
- turn numbers are 1..N with no gap, the campaign's counter is N, and no event belongs to a turn that is not stored;
- every acknowledged request happened exactly once, and every acknowledgement of it carries that turn's number,
  input, narration and state; at most one of them is not a replay;
- a request acknowledged before another was first sent has the smaller turn number (real-time order);
- every stored idempotency key is its request's, with that request's input hash and turn; every turn has its key;
- each server's transcript is the save file's, and each says the campaign is at turn N;
- no answer was a 5xx, and no request was refused as invalid (422); 409 (busy, stale, lost race) is a refusal to
  retry after a short backoff.

A request whose every attempt failed may or may not have happened; the uniqueness check proves it did not happen
twice. Used by ``tests/test_history.py`` (a bounded run with two kills) and ``bench/soak.py`` (an hour of it).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

ROOT = Path(__file__).resolve().parents[1]
PACK = "cinder_reach"
ACTIONS = ("look around", "search the room", "listen to the crowd", "ask about work", "wait a while",
           "talk to the bartender", "rest a moment", "go outside")  # story turns; a /command is not a turn
FAULTS = {"none": 60, "timeout": 12, "drop": 10, "partial": 5, "stream": 8, "stream_drop": 5}  # kind: weight
READS = ("", "/scene", "/turns", "/party", "/quests", "/rumors", "/news", "/inventory")  # under /campaigns/{id}
PORTS = (20000, 32000)  # below Linux's ephemeral range, so no client connection holds a server's port
SERVER_ENV = {"SKALD_LLM": "off", "SKALD_RETRIEVAL": "false"}


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------- servers


class Server:
    """One ``skald serve`` process on the save file; :meth:`kill` SIGKILLs it, :meth:`start` (re)starts it on the
    same port (a new one only when that one is taken). Its output goes to ``<workdir>/server-<name>.log``."""

    def __init__(self, name: str, db: Path, workdir: Path):
        self.name = name
        self.db = db
        self.log = workdir / f"server-{name}.log"
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.generation = 0  # how many times it was started
        self.ready = False  # answering (False from a kill until a restart answers /health)
        self.inflight = 0  # requests being sent to it now (the chaos waits for one before a kill)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def start(self, timeout_s: float = 60.0) -> None:
        for _ in range(3):
            if not self.port:
                self.port = free_port()
            self.generation += 1
            with self.log.open("ab") as log:
                log.write(f"\n--- {self.name} generation {self.generation}, port {self.port} ---\n".encode())
                log.flush()
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "skald", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                     "--db", str(self.db), "--access-log"], cwd=ROOT, env=os.environ | SERVER_ENV, stdout=log,
                    stderr=subprocess.STDOUT)
            if self._wait_healthy(timeout_s):
                self.ready = True
                return
            if "address already in use" not in self.log_tail().lower():
                break
            self.port = 0  # taken meanwhile: try another
        raise RuntimeError(f"server {self.name} did not start; its log ends:\n{self.log_tail()}")

    def _wait_healthy(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                return False
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return True
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        self.kill()
        return False

    def kill(self) -> None:
        self.ready = False
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM (uvicorn finishes the requests it has), SIGKILL if it takes over 20 s."""
        self.ready = False
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


def port_range() -> tuple[int, int]:
    """The part of :data:`PORTS` this process picks from: all of it, or under pytest-xdist the worker's own slice
    (``gw0`` the first of ``PYTEST_XDIST_WORKER_COUNT``), so two workers never probe the same port at once and start
    servers on it (a probed port is free only until someone binds it)."""
    worker, count = os.environ.get("PYTEST_XDIST_WORKER", ""), os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if not (worker.startswith("gw") and worker[2:].isdigit() and count.isdigit() and int(count) > 1):
        return PORTS
    index, size = int(worker[2:]), (PORTS[1] - PORTS[0]) // int(count)
    return PORTS[0] + index * size, PORTS[0] + (index + 1) * size


def free_port(rng: random.Random | None = None) -> int:
    """A port on 127.0.0.1 that nobody listens on now, from :func:`port_range`: a server started on it may still
    find it taken (by a process outside this test run), so its starter retries on another."""
    rng = rng or random.Random()
    for _ in range(200):
        port = rng.randrange(*port_range())
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port")


@contextmanager
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections while the block runs: bound here but never listening, so no other
    process (another test worker's server) can take it meanwhile."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@dataclass
class Campaign:
    id: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass
class Kill:
    server: str
    pid: int
    at: float  # seconds into the load
    inflight: int  # requests in flight to it when it was killed
    down_s: float  # from the kill until it answered again


class Cluster:
    """Servers on one save file. ``with Cluster(db, workdir) as cluster:`` starts them and stops them on exit."""

    def __init__(self, db: Path, workdir: Path, names: tuple[str, ...] = ("a", "b")):
        self.db = db
        self.servers = [Server(name, db, workdir) for name in names]
        self.kills: list[Kill] = []
        self.errors: list[str] = []  # servers that did not (re)start, with the end of their logs
        self.t0 = time.monotonic()
        self._lock = threading.Lock()

    def __enter__(self) -> Cluster:
        from skald.store.db import connect

        connect(self.db).close()  # create and migrate the file once, so the servers start side by side
        threads = [threading.Thread(target=self._start, args=(s,)) for s in self.servers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if self.errors:
            self.stop()
            raise RuntimeError("\n".join(self.errors))
        return self

    def _start(self, server: Server) -> bool:
        try:
            server.start()
        except Exception as exc:  # noqa: BLE001 - reported by the caller
            with self._lock:
                self.errors.append(str(exc))
            return False
        return True

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def create_campaign(self, seed: int, pack: str = PACK) -> Campaign:
        reply = httpx.post(f"{self.servers[0].url}/campaigns", json={"pack": pack, "seed": seed}, timeout=30)
        reply.raise_for_status()
        body = reply.json()
        return Campaign(body["campaign_id"], body["token"])

    def kill(self, server: Server, rng: random.Random, wait_inflight_s: float = 1.0) -> threading.Thread:
        """SIGKILL ``server`` once a request is in flight to it (or after ``wait_inflight_s``), then restart it on
        the same file and port in the background; returns the restarting thread."""
        deadline = time.monotonic() + wait_inflight_s
        while server.inflight == 0 and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.uniform(0, 0.03))  # somewhere inside the turn: routing, narrating or committing
        pid, inflight, killed = server.pid or 0, server.inflight, time.monotonic()
        server.kill()
        down = rng.uniform(0.05, 0.5)

        def restart() -> None:
            time.sleep(down)
            if not self._start(server):
                return
            with self._lock:
                self.kills.append(Kill(server.name, pid, round(killed - self.t0, 2), inflight,
                                       round(time.monotonic() - killed, 2)))

        thread = threading.Thread(target=restart, name=f"restart-{server.name}", daemon=True)
        thread.start()
        return thread


# ---------------------------------------------------------------------------------------------- the record


@dataclass(slots=True)
class Attempt:
    """One try of a request: where it went, how it was sent (``kind``: a fault or ``none``), what came back."""

    server: str
    generation: int
    kind: str
    start: float  # seconds into the load
    end: float = 0.0
    status: int | None = None  # None: no HTTP answer (refused, reset, timed out, dropped by the client)
    error: str | None = None
    turn_number: int | None = None  # of a 200, or the campaign's number in a 409
    replayed: bool = False
    input: str | None = None  # what the acknowledgement says was played
    text_hash: str | None = None
    location: str | None = None
    minutes: int | None = None

    @property
    def acked(self) -> bool:
        return self.status == 200 and self.turn_number is not None


@dataclass(slots=True)
class Request:
    """One logical turn request: a key and an input no other request uses, and the attempts made to play it (all of
    them, or only the acknowledged ones when the load keeps no more)."""

    campaign_id: str
    key: str
    input: str
    first_sent: float = float("inf")
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def acks(self) -> list[Attempt]:
        return [a for a in self.attempts if a.acked]


@dataclass
class History:
    """Every request, counts of every attempt's outcome, and the answers that are violations on their own (a 5xx,
    a 422, any status but 200 and 409)."""

    requests: list[Request] = field(default_factory=list)
    acked: int = 0  # requests acknowledged at least once
    outcomes: Counter[str] = field(default_factory=Counter)  # HTTP status, or "no answer"
    kinds: Counter[str] = field(default_factory=Counter)  # how attempts were sent
    causes: Counter[str] = field(default_factory=Counter)  # why an attempt got no answer
    failures: list[str] = field(default_factory=list)
    reads: Counter[str] = field(default_factory=Counter)  # "GET <path> <status or error>"
    kills: list[Kill] = field(default_factory=list)
    seconds: float = 0.0
    deadline_hit: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def note(self, request: Request, tried: Attempt, keep: bool) -> None:
        """Count ``tried`` (and keep it in ``request.attempts`` if ``keep`` or it is an acknowledgement)."""
        first_ack = tried.acked and not any(a.acked for a in request.attempts)
        request.first_sent = min(request.first_sent, tried.start)
        if keep or tried.acked:
            request.attempts.append(tried)
        with self._lock:
            self.acked += first_ack
            self.outcomes[str(tried.status) if tried.status is not None else "no answer"] += 1
            self.kinds[tried.kind] += 1
            if tried.status is None:
                self.causes[(tried.error or "?").split(":")[0]] += 1
            elif tried.status not in (200, 409) or (tried.status == 200 and not tried.acked):
                what = {422: "refused as invalid", 200: "answered 200 with no turn number"}.get(
                    tried.status, f"answered {tried.status}")
                self.failures.append(f"{request.key}: {what} by {tried.server} (gen {tried.generation}, "
                                     f"{tried.kind}) at {tried.start:.2f}s: {tried.error}")

    def dump(self, path: Path) -> None:
        path.write_text(json.dumps({
            "seconds": self.seconds, "kills": [asdict(k) for k in self.kills], "outcomes": dict(self.outcomes),
            "failures": self.failures, "reads": dict(self.reads),
            "requests": [{"campaign_id": r.campaign_id, "key": r.key, "input": r.input, "first_sent": r.first_sent,
                          "attempts": [asdict(a) for a in r.attempts]} for r in self.requests]}, indent=1))


# ---------------------------------------------------------------------------------------------- load


@dataclass
class Load:
    """How :func:`run_load` plays. ``requests`` None: issue requests until ``seconds`` have passed."""

    clients: int = 20
    requests: int | None = 150
    seconds: float = 40.0  # no new request after this
    grace_s: float = 20.0  # requests under way may retry this much longer
    max_attempts: int = 200
    faults: dict[str, int] = field(default_factory=lambda: dict(FAULTS))
    read_ratio: float = 0.1  # a read of some campaign view before a request, this often
    expected_ratio: float = 0.25  # requests that send expected_turn (refreshed from each 409)
    verify_ratio: float = 0.1  # after an ack, send the key once more and expect the same turn, replayed
    timeout_s: float = 15.0  # an attempt with no fault
    think_s: float = 0.0  # pause between a client's requests (up to this, at random)
    keep_all: bool = True  # keep every attempt (False: only acknowledgements; an hour of attempts is a lot)


def run_load(cluster: Cluster, campaigns: list[Campaign], load: Load, seed: int,
             chaos: Callable[[History, threading.Event], None] | None = None,
             on_attempt: Callable[[Attempt], None] | None = None) -> History:
    """Play ``load`` against ``cluster``; ``chaos(history, done)`` runs beside it (it should return soon after
    ``done`` is set). Returns the record of every request."""
    history = History()
    tickets = itertools.count()
    started = cluster.t0 = time.monotonic()
    no_more = started + load.seconds
    hard_stop = no_more + load.grace_s
    done = threading.Event()
    kinds, weights = list(load.faults), list(load.faults.values())

    def attempt(http: httpx.Client, rng: random.Random, campaign: Campaign, request: Request, kind: str,
                expected: int | None) -> Attempt:
        server = rng.choice(cluster.servers)
        tried = Attempt(server.name, server.generation, kind, round(time.monotonic() - started, 4))
        body: dict[str, Any] = {"input": request.input}
        if expected is not None:
            body["expected_turn"] = expected
        headers = campaign.auth | {"Idempotency-Key": request.key}
        with cluster._lock:
            server.inflight += 1
        try:
            send(http, rng, server.url, f"/campaigns/{campaign.id}/turns", body, headers, kind, load.timeout_s,
                 tried)
        finally:
            with cluster._lock:
                server.inflight -= 1
            tried.end = round(time.monotonic() - started, 4)
        if on_attempt is not None:
            on_attempt(tried)
        return tried

    def play(http: httpx.Client, rng: random.Random, campaign: Campaign, request: Request) -> None:
        expected = None
        if rng.random() < load.expected_ratio:
            expected = current_turn(http, rng.choice(cluster.servers).url, campaign)
        busy = unanswered = 0
        for _ in range(load.max_attempts):
            if time.monotonic() > hard_stop:
                history.deadline_hit = True
                return
            kind = rng.choices(kinds, weights)[0]
            tried = attempt(http, rng, campaign, request, kind, expected)
            history.note(request, tried, load.keep_all)
            if tried.acked:
                if rng.random() < load.verify_ratio:
                    history.note(request, attempt(http, rng, campaign, request, "verify", expected), load.keep_all)
                return
            if tried.status is not None:
                unanswered = 0
            if tried.status == 409:
                busy += 1
                if expected is not None and tried.turn_number is not None:
                    expected = tried.turn_number
                time.sleep(rng.uniform(0.005, 0.03) * min(busy, 5))
            elif tried.status is None:
                unanswered += 1  # a server down for seconds is not worth hammering
                time.sleep(rng.uniform(0.005, 0.03) * min(unanswered, 8))
            elif tried.status == 422:
                return  # refused as invalid: a violation (check reports it); retrying would not change it
            else:
                time.sleep(rng.uniform(0.05, 0.2))  # a 5xx (a violation) or anything else: retried

    def read(http: httpx.Client, rng: random.Random, campaign: Campaign) -> None:
        server = rng.choice(cluster.servers)
        part = rng.choice(READS)
        params = {"after_turn": rng.randrange(0, 50), "limit": rng.randrange(1, 101)} if part == "/turns" else None
        try:
            reply = http.get(f"{server.url}/campaigns/{campaign.id}{part}", params=params, headers=campaign.auth,
                             timeout=load.timeout_s)
            outcome = str(reply.status_code)
            if reply.status_code != 200:
                with history._lock:
                    history.failures.append(f"GET /campaigns/ID{part} on {server.name}: {reply.status_code} "
                                            f"{reply.text[:200]}")
        except httpx.TransportError as exc:
            outcome = type(exc).__name__
        with history._lock:
            history.reads[f"GET {part or '/'} {outcome}"] += 1

    def client(n: int) -> None:
        rng = random.Random(f"{seed}-{n}")
        with httpx.Client() as http:
            while True:
                if time.monotonic() > no_more:
                    history.deadline_hit = history.deadline_hit or load.requests is not None  # some never sent
                    return
                ticket = next(tickets)
                if load.requests is not None and ticket >= load.requests:
                    return
                campaign = campaigns[ticket % len(campaigns)]
                if rng.random() < load.read_ratio:
                    read(http, rng, campaign)
                key = f"s{seed}-t{ticket}"
                request = Request(campaign.id, key, f"{rng.choice(ACTIONS)} [{key}]")
                history.add(request)
                play(http, rng, campaign, request)
                if load.think_s:
                    time.sleep(rng.uniform(0, load.think_s))

    threads = [threading.Thread(target=client, args=(n,), name=f"client-{n}", daemon=True)
               for n in range(load.clients)]
    chaos_thread = threading.Thread(target=chaos, args=(history, done), name="chaos", daemon=True) if chaos else None
    if chaos_thread is not None:
        chaos_thread.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(1.0, hard_stop - time.monotonic() + load.timeout_s + 5))
    done.set()
    if chaos_thread is not None:
        chaos_thread.join(120)
    history.seconds = round(time.monotonic() - started, 2)
    history.kills = list(cluster.kills)
    stuck = [t.name for t in threads if t.is_alive()]
    if stuck:
        raise RuntimeError(f"client threads did not finish: {stuck}")
    return history


def kills_at_progress(cluster: Cluster, total: int, fractions: tuple[float, ...], seed: int
                      ) -> Callable[[History, threading.Event], None]:
    """Chaos for a bounded run: when each fraction of ``total`` requests is acknowledged, SIGKILL the next server
    (round robin) while a request is in flight to it, and restart it on the same file. A restart takes seconds
    and goes on in the background, so a later kill may find the other server still down: then none answers for
    a moment, and every client retries until one does."""
    rng = random.Random(f"chaos-{seed}")

    def chaos(history: History, done: threading.Event) -> None:
        restarts = []
        for n, fraction in enumerate(fractions):
            while history.acked < fraction * total:
                if done.wait(0.01):
                    break
            else:
                restarts.append(cluster.kill(cluster.servers[n % len(cluster.servers)], rng))
        for thread in restarts:
            thread.join()

    return chaos


def current_turn(http: httpx.Client, url: str, campaign: Campaign) -> int | None:
    try:
        reply = http.get(f"{url}/campaigns/{campaign.id}", headers=campaign.auth, timeout=10)
    except httpx.TransportError:
        return None
    return reply.json()["turn_number"] if reply.status_code == 200 else None


# ---------------------------------------------------------------------------------------------- sending


def send(http: httpx.Client, rng: random.Random, url: str, path: str, body: dict[str, Any],
         headers: dict[str, str], kind: str, timeout_s: float, into: Attempt) -> None:
    """Send one turn request the way ``kind`` says, filling ``into`` with the outcome:

    ``none`` / ``verify``: a plain POST; ``timeout``: a read timeout of 5-200 ms (the client gives up, the server
    goes on); ``drop``: the whole request on a raw socket, reset 0-30 ms later without reading the answer;
    ``partial``: the headers and half the body, then reset (the server never gets a request); ``stream``: the
    stream endpoint, read to its ``turn`` or ``error`` event; ``stream_drop``: the stream, abandoned at its first
    event."""
    try:
        if kind in ("drop", "partial"):
            raw(url, path, body, headers, rng, whole=kind == "drop")
            into.error = f"{kind}: the client reset the connection"
        elif kind in ("stream", "stream_drop"):
            stream(http, url + path + "/stream", body, headers, timeout_s, kind == "stream_drop", into)
        else:
            timeout = httpx.Timeout(timeout_s, read=rng.uniform(0.005, 0.2)) if kind == "timeout" else timeout_s
            reply = http.post(url + path, json=body, headers=headers, timeout=timeout)
            answered(into, reply.status_code, _json(reply), reply.headers.get("idempotent-replayed") == "true")
    except (httpx.TransportError, OSError) as exc:
        into.status = None
        into.error = f"{type(exc).__name__}: {exc}"[:200]


def raw(url: str, path: str, body: dict[str, Any], headers: dict[str, str], rng: random.Random, whole: bool) -> None:
    parts = urlsplit(url)
    payload = json.dumps(body).encode()
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    request = (f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(payload)}\r\n{head}\r\n").encode()
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(request + (payload if whole else payload[: len(payload) // 2]))
        time.sleep(rng.uniform(0, 0.03))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset


def stream(http: httpx.Client, url: str, body: dict[str, Any], headers: dict[str, str], timeout_s: float,
           abandon: bool, into: Attempt) -> None:
    with http.stream("POST", url, json=body, headers=headers, timeout=timeout_s) as reply:
        if reply.status_code != 200:
            reply.read()
            answered(into, reply.status_code, _json(reply), False)
            return
        replayed = reply.headers.get("idempotent-replayed") == "true"
        for kind, data in sse(reply.iter_lines()):
            if abandon:
                into.error = f"stream_drop: the client hung up after the {kind!r} event"
                return
            if kind == "turn":
                answered(into, 200, data, replayed)
                return
            if kind == "error":
                into.status, into.turn_number = data.get("status"), data.get("turn_number")
                into.error = f"stream error event: {data.get('detail')}"[:200]
                return
        into.error = "the stream ended with neither a turn nor an error"


def sse(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    kind, data = None, []
    for line in lines:
        if line == "":
            if kind is not None or data:
                yield kind or "message", json.loads("\n".join(data)) if data else None
            kind, data = None, []
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())


def answered(into: Attempt, status: int, body: Any, replayed: bool) -> None:
    into.status = status
    if not isinstance(body, dict):
        into.error = f"not a JSON object: {str(body)[:100]}"
        return
    into.turn_number = body.get("turn_number")
    if status == 200:
        into.replayed = replayed
        into.input = body.get("input")
        into.text_hash = text_hash(body.get("text", ""))
        state = body.get("state") or {}
        into.location, into.minutes = state.get("location"), state.get("world_time_minutes")
    else:
        into.error = str(body.get("detail"))[:200]


def _json(reply: httpx.Response) -> Any:
    try:
        return reply.json()
    except ValueError:
        return reply.text


# ---------------------------------------------------------------------------------------------- the check


@dataclass
class Turn:
    number: int
    input: str
    text_hash: str
    location: str
    minutes: int


@dataclass
class Report:
    violations: list[str]
    stats: dict[str, Any]

    def lines(self) -> list[str]:
        out = [f"  {k}: {v}" for k, v in self.stats.items()]
        out += [f"  VIOLATION {v}" for v in self.violations[:50]]
        if len(self.violations) > 50:
            out.append(f"  ... and {len(self.violations) - 50} more violations")
        return out


def stored_turns(db: Path, campaign_id: str) -> tuple[int, list[Turn], list[tuple], list[int], str]:
    """(the campaign's turn number, its turns, its idempotency rows, the turn numbers its events belong to,
    quick_check's answer), read from the save file read-only."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        number = conn.execute("SELECT turn_number FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()[0]
        turns = [Turn(r[0], r[1], text_hash(r[2]), r[3], r[4]) for r in conn.execute(
            "SELECT turn_number, input, text, location, world_time_minutes FROM turns WHERE campaign_id = ? "
            "ORDER BY turn_number", (campaign_id,))]
        keys = conn.execute("SELECT key, input_hash, turn_number, response FROM api_idempotency WHERE "
                            "campaign_id = ?", (campaign_id,)).fetchall()
        events = [r[0] for r in conn.execute("SELECT DISTINCT turn_number FROM turn_events WHERE campaign_id = ?",
                                             (campaign_id,))]
        quick = conn.execute("PRAGMA quick_check").fetchone()[0]
    finally:
        conn.close()
    return number, turns, keys, events, quick


def served_turns(url: str, campaign: Campaign) -> tuple[int, list[Turn]]:
    """(the campaign's turn number, its transcript) as a server serves them."""
    out: list[Turn] = []
    after: int | None = 0
    with httpx.Client(base_url=url, headers=campaign.auth, timeout=30) as http:
        number = http.get(f"/campaigns/{campaign.id}").json()["turn_number"]
        while after is not None:
            page = http.get(f"/campaigns/{campaign.id}/turns", params={"after_turn": after, "limit": 100}).json()
            out += [Turn(t["turn_number"], t["input"], text_hash(t["text"]), t["location"], t["world_time_minutes"])
                    for t in page["turns"]]
            after = page["next_after_turn"]
    return number, out


def check(history: History, cluster: Cluster, campaigns: list[Campaign], *, via_api: bool = True) -> Report:
    """Check ``history`` against the save file and (``via_api``) each live server's transcript."""
    violations = list(history.failures)
    happened_unacked = lost = 0
    replays = sum(a.replayed for r in history.requests for a in r.acks)

    by_input = {r.input: r for r in history.requests}
    total_turns = 0
    for campaign in campaigns:
        number, turns, keys, event_turns, quick = stored_turns(cluster.db, campaign.id)
        total_turns += len(turns)
        cid = campaign.id
        if quick != "ok":
            violations.append(f"{cid}: PRAGMA quick_check says {quick}")
        if [t.number for t in turns] != list(range(1, len(turns) + 1)):
            gaps = sorted(set(range(1, max((t.number for t in turns), default=0) + 1)) - {t.number for t in turns})
            violations.append(f"{cid}: turn numbers are not contiguous 1..N; missing {gaps[:20]}")
        if number != len(turns):
            violations.append(f"{cid}: the campaign says turn {number} but {len(turns)} turns are stored")
        stray = sorted(set(event_turns) - {t.number for t in turns})
        if stray:
            violations.append(f"{cid}: events stored for turns that are not: {stray[:20]}")

        stored_by_input: dict[str, list[Turn]] = {}
        for turn in turns:
            stored_by_input.setdefault(turn.input, []).append(turn)
            request = by_input.get(turn.input)
            if request is None or request.campaign_id != cid:
                violations.append(f"{cid}: turn {turn.number} has input {turn.input!r}, which no request sent")
        for text, copies in stored_by_input.items():
            if len(copies) > 1:
                violations.append(f"{cid}: input {text!r} stored {len(copies)} times, as turns "
                                  f"{[t.number for t in copies]}")

        mine = [r for r in history.requests if r.campaign_id == cid]
        turn_of: dict[str, Turn] = {}
        for request in mine:
            copies = stored_by_input.get(request.input, [])
            if copies:
                turn_of[request.key] = copies[0]
            acks = request.acks
            if not acks:
                happened_unacked += bool(copies)
                lost += not copies
                continue
            if len(copies) != 1:
                violations.append(f"{request.key}: acknowledged ({_acks(acks)}) but stored {len(copies)} times")
                continue
            stored = copies[0]
            for a in acks:
                seen = Turn(a.turn_number or 0, a.input or "", a.text_hash or "", a.location or "", a.minutes or 0)
                if seen != stored:
                    violations.append(f"{request.key}: an acknowledgement from {a.server} (gen {a.generation}, "
                                      f"{a.kind}, replayed={a.replayed}) carries {seen} but the stored turn is "
                                      f"{stored}")
            originals = [a for a in acks if not a.replayed]
            if len(originals) > 1:
                violations.append(f"{request.key}: {len(originals)} acknowledgements say they played the turn "
                                  f"(not replayed): {_acks(originals)}")

        violations += _real_time_order(mine, turn_of, cid)

        key_of = {r.key: r for r in mine}
        keyed_turns = set()
        for key, input_hash, turn_number, response in keys:
            request = key_of.get(key)
            if request is None:
                violations.append(f"{cid}: idempotency key {key!r} stored, but no request sent it")
                continue
            played = turn_of.get(key)
            if input_hash != hashlib.sha256(request.input.encode()).hexdigest():
                violations.append(f"{key}: stored with another input's hash")
            if played is None or turn_number != played.number:
                violations.append(f"{key}: stored for turn {turn_number}, but its input is stored as turn "
                                  f"{played.number if played else None}")
            if response is None:
                violations.append(f"{key}: stored with no response (pending)")
            else:
                body = json.loads(response)
                if body.get("turn_number") != turn_number or body.get("input") != request.input:
                    violations.append(f"{key}: its stored response is turn {body.get('turn_number')} "
                                      f"{body.get('input')!r}, not turn {turn_number} {request.input!r}")
            keyed_turns.add(turn_number)
        unkeyed = sorted({t.number for t in turns} - keyed_turns)
        if unkeyed:
            violations.append(f"{cid}: turns with no idempotency key stored: {unkeyed[:20]}")

        if via_api:
            for server in cluster.servers:
                try:
                    served_number, served = served_turns(server.url, campaign)
                except (httpx.HTTPError, KeyError, ValueError) as exc:
                    violations.append(f"{cid}: server {server.name} did not serve the transcript: {exc!r}")
                    continue
                if served_number != number or served != turns:
                    first = next((f"{a} vs {b}" for a, b in zip(served, turns, strict=False) if a != b),
                                 f"{len(served)} vs {len(turns)} turns")
                    violations.append(f"{cid}: server {server.name} serves turn {served_number} and a transcript "
                                      f"that differs from the save file: {first}")

    stats = {
        "seconds": history.seconds,
        "requests": len(history.requests),
        "acknowledged": history.acked,
        "not acknowledged, happened": happened_unacked,
        "not acknowledged, never happened": lost,
        "stored turns": total_turns,
        "attempts": sum(history.outcomes.values()),
        "replayed acknowledgements": replays,
        "attempt outcomes": dict(sorted(history.outcomes.items())),
        "attempt kinds": dict(sorted(history.kinds.items())),
        "no answer, by cause": dict(history.causes.most_common()),
        "reads": sum(history.reads.values()),
        "kills": [f"{k.server} pid {k.pid} at {k.at:.1f}s, {k.inflight} in flight, back in {k.down_s:.1f}s"
                  for k in history.kills],
        "deadline hit": history.deadline_hit,
    }
    return Report(violations, stats)


def _real_time_order(requests: list[Request], turn_of: dict[str, Turn], cid: str) -> list[str]:
    """A request acknowledged before another was first sent must have the smaller turn number."""
    acked = sorted(((r.acks[0].end, turn_of[r.key].number, r.key) for r in requests
                    if r.acks and r.key in turn_of), key=lambda x: x[0])
    later = sorted(((r.first_sent, turn_of[r.key].number, r.key) for r in requests if r.key in turn_of),
                   key=lambda x: x[0])
    out, best, i = [], (0, ""), 0
    for start, number, key in later:
        while i < len(acked) and acked[i][0] < start:
            best = max(best, (acked[i][1], acked[i][2]))
            i += 1
        if best[0] >= number:
            out.append(f"{cid}: {key} (first sent at {start:.3f}s) is turn {number}, but {best[1]} was acknowledged "
                       f"before it was sent, as turn {best[0]}")
    return out


def _acks(acks: list[Attempt]) -> str:
    return ", ".join(f"turn {a.turn_number} from {a.server}/gen{a.generation} ({a.kind}"
                     f"{', replayed' if a.replayed else ''})" for a in acks)
