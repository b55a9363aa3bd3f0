"""The worst case of one turn when every LLM role hangs: a fake Ollama on a loopback port that accepts each connection
and never answers a byte. Target (issue 12): no turn longer than the turn budget plus 1 s (the engine's own work),
where it took 184 s before (60 s per role, three roles) and the first three turns each waited that long.

Played through the real graph on a real SQLite file with a short budget (``BUDGET_S``) so the bench stays quick.
Two runs of three turns: with the breaker's defaults (the hang opens every role's circuit on the first turn), and with
``SKALD_BREAKER_SECONDS=0`` (every call is a trial, so every turn meets the hang: the budget alone bounds it). The
role clients are built before the clock starts (the first one imports langchain-ollama: a one-off of the process).
"""

from __future__ import annotations

import socket
import tempfile
import threading
import time
from pathlib import Path

from skald.engine import start_campaign
from skald.graph import run_turn
from skald.llm.client import LLMClient
from skald.packs.loader import load_pack
from skald.settings import ROLES, Settings
from skald.store.db import connect

BUDGET_S = 3.0
TURNS = 3
SLACK_S = 1.0  # the target: the budget plus the engine's own work


class SilentServer:
    """A TCP server on 127.0.0.1 that accepts every connection and never sends a byte (closed on exit)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.05)  # so the accept loop sees ``stopping`` (closing does not wake accept())
        self.stopping = threading.Event()
        self.accepted: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True, name="silent-ollama")

    @property
    def url(self) -> str:
        host, port = self.listener.getsockname()[:2]
        return f"http://{host}:{port}"

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.accepted.append(conn)  # held open, never read from or written to

    def __enter__(self) -> SilentServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        self.listener.close()
        for conn in self.accepted:
            conn.close()


def play(url: str, db: Path, breaker_seconds: float | None) -> list[float]:
    """Seconds of wall clock for each of ``TURNS`` turns on a new campaign."""
    extra = {} if breaker_seconds is None else {"breaker_seconds": breaker_seconds}
    llm = LLMClient(Settings(llm="on", ollama_base_url=url, turn_budget_s=BUDGET_S, **extra))
    for role in ROLES:
        llm.model(role)
    pack = load_pack("cinder_reach")
    conn = connect(db)
    state = start_campaign(conn, pack, seed=1, campaign_id="hung")
    times = []
    for _ in range(TURNS):
        started = time.perf_counter()
        state = run_turn(conn, state.model_copy(update={"player_input": "look around"}), pack=pack, llm=llm,
                         retriever=None)
        times.append(time.perf_counter() - started)
    conn.close()
    return times


def run() -> list[str]:
    with tempfile.TemporaryDirectory() as tmp, SilentServer() as server:
        tripped = play(server.url, Path(tmp) / "breaker.db", None)
        trials = play(server.url, Path(tmp) / "trials.db", 0.0)
    worst = max(tripped + trials)

    def shown(times: list[float]) -> str:
        return ", ".join(f"{t:.2f}" for t in times)

    return [f"hung model, every role: turn budget {BUDGET_S:g} s, role timeouts 60 s, {TURNS} turns a run",
            f"  breaker defaults: turns {shown(tripped)} s (the first waits the budget once; then every circuit is "
            "open)",
            f"  breaker off (every call a trial): turns {shown(trials)} s",
            f"  worst turn {worst:.2f} s   (target <= turn budget + {SLACK_S:g} s = {BUDGET_S + SLACK_S:g} s; "
            "184 s before issue 12)"]


if __name__ == "__main__":
    print("\n".join(run()))
