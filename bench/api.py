"""Turns per second through the HTTP API with the offline narrator: a real uvicorn server on a loopback port,
4 clients each playing their own campaign, 200 turns in all (httpx clients in threads of this process, so the
clients' own work shares the 2 cores and the GIL with the server)."""

from __future__ import annotations

import logging
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
from skald.api import create_app
from skald.api.server import LiveServer
from skald.llm.client import LLMClient
from skald.settings import Settings

SCRIPT = Path(__file__).resolve().parents[1] / "data" / "scripts" / "cinder_reach_30.txt"
CLIENTS = 4
TURNS = 200


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request would drown the figures


def run(clients: int = CLIENTS, turns: int = TURNS) -> list[str]:
    inputs = [line for line in SCRIPT.read_text().splitlines() if line.strip() and not line.startswith("/quit")]
    per_client = turns // clients
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Path(tmp) / "bench.db", llm=LLMClient(Settings(), online=False))
        with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=30) as setup:
            campaigns = []
            for n in range(clients):
                body = setup.post("/campaigns", json={"pack": "cinder_reach", "seed": n + 1}).json()
                campaigns.append((body["campaign_id"], {"Authorization": f"Bearer {body['token']}"}))

            def client(n: int) -> None:
                cid, auth = campaigns[n]
                with httpx.Client(base_url=server.url, timeout=30) as http:
                    for turn in range(per_client):
                        started = time.perf_counter()
                        reply = http.post(f"/campaigns/{cid}/turns", json={"input": inputs[turn % len(inputs)]},
                                          headers=auth | {"Idempotency-Key": f"bench-{turn}"})
                        elapsed = (time.perf_counter() - started) * 1000
                        with lock:
                            latencies.append(elapsed)
                            if reply.status_code != 200:
                                errors.append(f"{reply.status_code} {reply.text[:80]}")

            threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - started
    played = len(latencies) - len(errors)
    lines = [f"HTTP API, offline narrator, {clients} clients x {per_client} turns on a loopback uvicorn server",
             f"  {played / wall:6.1f} turns/s   request p50 {statistics.median(latencies):6.2f} ms   "
             f"p99 {_pct(latencies, 0.99):6.2f} ms"]
    if errors:
        lines.append(f"  {len(errors)} failed request(s), first: {errors[0]}")
    return lines
