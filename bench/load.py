"""A load driver for the HTTP API: concurrent clients play turns on a few campaigns of any running server, and
checks that every turn committed exactly once. Used by ``tests/test_api_load.py`` and ``bench/throughput.py``.

:func:`drive` creates ``campaigns`` campaigns, then ``clients`` threads (client ``n`` plays campaign ``n %
campaigns``) take tickets from one counter until ``turns`` are handed out. A ticket is one turn request: its own
``Idempotency-Key`` (``t<ticket>``) and an input no other ticket sends (``"look around [t17]"``; the router strips
bracketed tags, so it plays as "look around"). Half the clients first read the campaign and send its number as
``expected_turn``. A 409 (a turn being played, a stale ``expected_turn``, a lost commit race) is retried under the
same key after a jittered back-off; its body must carry an int ``turn_number`` and a ``detail``. Every loop is bounded:
``max_tries`` per ticket, ``deadline_s`` for the whole load, ``timeout_s`` per request.

:func:`check` lists what the answers break (any status but 200 and 409, a ticket not played, a ticket refused with 409
and never played, turn numbers not 1..N per campaign in the transcript, an ack not matching the transcript);
:func:`check_store` compares the acknowledgements with the store itself (each stored turn is one acknowledged
ticket's input, each ticket's idempotency key is stored once, for its turn, with a response). :class:`Serve` runs a
``skald serve --workers N`` process for them.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))
import history  # noqa: E402 - tests/history.py: its Server (start, /health, logs), Campaign and story actions


@dataclass(frozen=True)
class Ack:
    """A ticket's 200: the campaign, the turn number it says was played, and the input it played."""

    campaign_id: str
    turn_number: int
    input: str


@dataclass
class Result:
    """What :func:`drive` saw. ``statuses``: answers to ``POST /turns``; ``reads``: to the ``GET /campaigns/{id}``
    before an ``expected_turn``; ``conflicts``: 409s by detail (digits as N); ``conflicted``: keys refused with 409 at
    least once; ``acks``: key -> its 200; ``transcripts``: campaign -> [(turn number, input)] paged from
    ``GET /campaigns/{id}/turns`` after the load."""

    turns: int
    campaigns: list[history.Campaign]
    statuses: Counter[int] = field(default_factory=Counter)
    reads: Counter[int] = field(default_factory=Counter)
    conflicts: Counter[str] = field(default_factory=Counter)
    conflicted: set[str] = field(default_factory=set)
    acks: dict[str, Ack] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    transcripts: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    elapsed: float = 0.0

    @property
    def turns_per_s(self) -> float:
        return len(self.acks) / self.elapsed if self.elapsed else 0.0

    def summary(self) -> str:
        return (f"{len(self.acks)} turns in {self.elapsed:.1f} s ({self.turns_per_s:.1f}/s); answers "
                f"{dict(sorted(self.statuses.items()))}; {sum(self.conflicts.values())} 409s")


def create_campaigns(base_url: str, count: int, pack: str = history.PACK) -> list[history.Campaign]:
    with httpx.Client(base_url=base_url, timeout=30) as http:
        made = []
        for seed in range(count):
            reply = http.post("/campaigns", json={"pack": pack, "seed": seed})
            reply.raise_for_status()
            made.append(history.Campaign(reply.json()["campaign_id"], reply.json()["token"]))
        return made


def drive(base_url: str, campaigns: int = 5, clients: int = 20, turns: int = 200, deadline_s: float = 60.0,
          max_tries: int = 400, timeout_s: float = 20.0) -> Result:
    """Play ``turns`` turns from ``clients`` threads over ``campaigns`` new campaigns of the server at ``base_url``
    (see the module's docstring); ``elapsed`` runs from the first client's start to the last one's end."""
    result = Result(turns, create_campaigns(base_url, campaigns))
    tickets = itertools.count()  # next(tickets) is atomic in CPython
    lock = threading.Lock()
    started = time.monotonic()
    stop_at = started + deadline_s

    def fail(message: str) -> None:
        with lock:
            result.failures.append(message)

    def client(n: int) -> None:
        campaign = result.campaigns[n % campaigns]
        rng = random.Random(n)
        use_expected = n % 2 == 0  # half the clients say which turn they saw; the others just play
        with httpx.Client(base_url=base_url, timeout=timeout_s) as http:
            while (ticket := next(tickets)) < turns:
                key = f"t{ticket}"
                body: dict[str, object] = {"input": f"{rng.choice(history.ACTIONS)} [{key}]"}
                for tries in range(max_tries):
                    if time.monotonic() > stop_at:
                        return fail(f"{key}: deadline ({deadline_s:g} s) passed before it was played")
                    try:
                        if use_expected:
                            seen = http.get(f"/campaigns/{campaign.id}", headers=campaign.auth)
                            with lock:
                                result.reads[seen.status_code] += 1
                            if seen.status_code != 200:
                                return fail(f"{key}: GET /campaigns/ID answered {seen.status_code}: {seen.text[:200]}")
                            body["expected_turn"] = seen.json()["turn_number"]
                        reply = http.post(f"/campaigns/{campaign.id}/turns", json=body,
                                          headers=campaign.auth | {"Idempotency-Key": key})
                    except httpx.TransportError as exc:  # the turn may or may not have happened: check_store says
                        return fail(f"{key}: no answer ({type(exc).__name__}: {exc})")
                    with lock:
                        result.statuses[reply.status_code] += 1
                    if reply.status_code == 200:
                        played = reply.json()
                        with lock:
                            result.acks[key] = Ack(campaign.id, played["turn_number"], played["input"])
                        break
                    if reply.status_code != 409:
                        return fail(f"{key}: answered {reply.status_code}: {reply.text[:200]}")
                    refused = reply.json()
                    detail = refused.get("detail")
                    with lock:
                        result.conflicted.add(key)
                        result.conflicts[re.sub(r"\d+", "N", str(detail))[:90]] += 1
                    if not isinstance(refused.get("turn_number"), int) or not isinstance(detail, str) or not detail:
                        fail(f"{key}: a 409 without an int turn_number and a detail: {reply.text[:200]}")
                    time.sleep(rng.uniform(0.005, 0.02) * min(tries + 1, 4))  # back off, with jitter
                else:
                    return fail(f"{key}: not played after {max_tries} tries")

    threads = [threading.Thread(target=client, args=(n,), name=f"load-client-{n}", daemon=True)
               for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, stop_at - time.monotonic()) + timeout_s + 5)
    result.elapsed = time.monotonic() - started
    stuck = [t.name for t in threads if t.is_alive()]
    if stuck:
        result.failures.append(f"client threads still running past the deadline: {stuck}")
    result.transcripts = {c.id: transcript(base_url, c, pages=turns // 100 + 5) for c in result.campaigns}
    return result


def transcript(base_url: str, campaign: history.Campaign, pages: int) -> list[tuple[int, str]]:
    """(turn number, input) of each turn of the campaign, paged from ``GET /campaigns/{id}/turns`` (``pages`` at
    most; the list ends with (-1, why) when the pages did not end or the campaign disagrees with its transcript)."""
    turns: list[tuple[int, str]] = []
    after: int | None = 0
    with httpx.Client(base_url=base_url, timeout=30) as http:
        for _ in range(pages):
            page = http.get(f"/campaigns/{campaign.id}/turns", params={"after_turn": after, "limit": 100},
                            headers=campaign.auth).json()
            turns += [(t["turn_number"], t["input"]) for t in page["turns"]]
            after = page["next_after_turn"]
            if after is None:
                break
        else:
            return turns + [(-1, f"more than {pages} pages")]
        number = http.get(f"/campaigns/{campaign.id}", headers=campaign.auth).json()["turn_number"]
    if number != page["total"] or len(turns) != page["total"]:
        turns.append((-1, f"the campaign says turn {number}, its transcript {page['total']} turns, {len(turns)} "
                          "listed"))
    return turns


def check(result: Result) -> list[str]:
    """What the answers break (empty: nothing)."""
    out = list(result.failures)
    if set(result.statuses) - {200, 409} or set(result.reads) - {200}:
        out.append(f"answers other than 200 and 409: turns {dict(result.statuses)}, reads {dict(result.reads)}")
    if len(result.acks) != result.turns:
        out.append(f"{len(result.acks)} tickets played of {result.turns}")
    lost = sorted(result.conflicted - set(result.acks))
    if lost:
        out.append(f"{len(lost)} tickets refused with 409 and never played: {lost[:10]}")
    if sum(result.conflicts.values()) != result.statuses[409]:
        out.append(f"{result.statuses[409]} 409s answered, {sum(result.conflicts.values())} counted")
    for campaign in result.campaigns:
        listed = result.transcripts.get(campaign.id, [])
        if [n for n, _ in listed] != list(range(1, len(listed) + 1)):
            out.append(f"{campaign.id}: transcript turn numbers are not 1..N: {[n for n, _ in listed][:30]}")
        acked = {(a.turn_number, a.input) for a in result.acks.values() if a.campaign_id == campaign.id}
        if acked != set(listed):
            out.append(f"{campaign.id}: acknowledged turns and the transcript differ: "
                       f"{sorted(acked ^ set(listed))[:10]}")
    if sum(len(t) for t in result.transcripts.values()) != result.turns:
        out.append(f"{sum(len(t) for t in result.transcripts.values())} turns in the transcripts, not {result.turns}")
    return out


def check_store(result: Result, db: str | Path) -> list[str]:
    """What the store at ``db`` (a save file or a PostgreSQL URL) says against the acknowledgements of ``result``'s
    campaigns: each stored turn is the acknowledged ticket with its input, once; each ticket's key is stored once,
    for that turn, with a response (empty: nothing)."""
    from skald.store.db import connect

    mine = {c.id for c in result.campaigns}
    conn = connect(db)
    try:
        turns = [r for r in conn.execute("SELECT campaign_id, turn_number, input FROM turns").fetchall()
                 if r[0] in mine]
        keys = [r for r in conn.execute("SELECT campaign_id, key, turn_number, response IS NULL FROM "
                                        "api_idempotency").fetchall() if r[0] in mine]
    finally:
        conn.close()
    out = []
    stored = Counter((cid, number, text) for cid, number, text in turns)
    acked = Counter((a.campaign_id, a.turn_number, a.input) for a in result.acks.values())
    if stored != acked:
        out.append(f"{len(turns)} turns stored, {len(result.acks)} acknowledged; stored and not acknowledged (or "
                   f"twice): {list((stored - acked).items())[:5]}; acknowledged and not stored: "
                   f"{list((acked - stored).items())[:5]}")
    by_key = {key: (cid, number) for cid, key, number, _ in keys}
    if len(by_key) != len(keys) or by_key != {k: (a.campaign_id, a.turn_number) for k, a in result.acks.items()}:
        out.append(f"{len(keys)} idempotency records for {len(result.acks)} acknowledged tickets, or not each for its "
                   "ticket's turn")
    pending = [key for _, key, _, none in keys if none]
    if pending:
        out.append(f"idempotency records with no response: {pending[:10]}")
    return out


class Serve(history.Server):
    """``skald serve --workers N`` (offline narrator) on ``db``, a save file or a PostgreSQL URL, in a process group
    of its own so that :meth:`stop` and :meth:`kill` reach uvicorn's worker processes too. Output goes to
    ``<workdir>/server-<name>.log``; :meth:`start` returns once every worker says its application started."""

    def __init__(self, db: str | Path, workdir: Path, workers: int = 1, name: str = "load"):
        super().__init__(name, db, workdir)  # type: ignore[arg-type] - history.Server passes db on as str(db)
        self.workers = workers

    def start(self, timeout_s: float = 60.0) -> None:
        for _ in range(3):
            self.port = self.port or history.free_port()
            self.generation += 1
            with self.log.open("ab") as log:
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "skald", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                     "--db", str(self.db), "--workers", str(self.workers), "--access-log"], cwd=ROOT,
                    env=os.environ | history.SERVER_ENV, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            if self._wait_healthy(timeout_s) and self._wait_workers(timeout_s):
                self.ready = True
                return
            if "address already in use" not in self.log_tail().lower():
                break
            self.kill()
            self.port = 0
        self.kill()
        raise RuntimeError(f"skald serve --workers {self.workers} did not start; its log ends:\n{self.log_tail()}")

    def _wait_workers(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.proc is not None and self.proc.poll() is None:
            if self.log_tail(10**7).count("Application startup complete") >= self.workers:
                return True
            time.sleep(0.1)
        return False

    def _signal(self, sig: signal.Signals, wait_s: float) -> None:
        if self.proc is None:
            return
        try:  # the group, even when uvicorn's supervisor is gone: its workers may not be
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            return
        self.proc.wait(wait_s)

    def kill(self) -> None:
        self.ready = False
        self._signal(signal.SIGKILL, 10)

    def stop(self) -> None:
        """SIGTERM to the group (uvicorn finishes the requests it has), SIGKILL if it takes over 20 s."""
        self.ready = False
        try:
            self._signal(signal.SIGTERM, 20)
        except subprocess.TimeoutExpired:
            self.kill()

    def errors(self) -> list[str]:
        """Lines of the log that look like trouble: tracebacks, ERROR lines, 5xx in the access log."""
        return [line for line in self.log_tail(10**7).splitlines()
                if "Traceback" in line or "ERROR" in line or re.search(r'" 5\d\d\b', line)]
