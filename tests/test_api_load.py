"""Load: 20 concurrent clients over 5 campaigns play 200 turns in all through a real loopback server. Every turn
commits exactly once, turn numbers stay contiguous per campaign, and nothing answers 5xx ("database is locked"
would). Clients retry on 409 after refreshing the campaign's turn number; every loop is bounded."""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
from skald.api import create_app
from skald.api.server import LiveServer
from skald.store.db import connect

CLIENTS = 20
CAMPAIGNS = 5
TURNS = 200
DEADLINE_S = 60.0
MAX_TRIES = 400  # per turn
LINES = ["look around", "talk to the bartender", "search the room", "listen to the crowd", "ask about work",
         "wait a while", "go outside", "rest a moment"]  # story turns only: a /command is not a turn


def test_twenty_clients_five_campaigns_two_hundred_turns(tmp_path: Path) -> None:
    db = tmp_path / "load.db"
    with LiveServer(create_app(db)) as server, httpx.Client(base_url=server.url, timeout=20) as setup:
        campaigns = []
        for seed in range(CAMPAIGNS):
            body = setup.post("/campaigns", json={"pack": "cinder_reach", "seed": seed}).json()
            campaigns.append((body["campaign_id"], {"Authorization": f"Bearer {body['token']}"}))

        tickets = itertools.count()  # next(tickets) < TURNS: one more turn to play (thread-safe in CPython)
        statuses: Counter[int] = Counter()
        lock = threading.Lock()
        failures: list[str] = []
        started = time.monotonic()

        def client(n: int) -> None:
            cid, auth = campaigns[n % CAMPAIGNS]
            rng = random.Random(n)
            use_expected = n % 2 == 0  # half the clients say which turn they saw; the others just play
            with httpx.Client(base_url=server.url, timeout=20) as http:
                while (ticket := next(tickets)) < TURNS:
                    key = f"client{n}-ticket{ticket}"
                    body = {"input": rng.choice(LINES)}
                    for tries in range(MAX_TRIES):
                        if time.monotonic() - started > DEADLINE_S:
                            failures.append(f"deadline passed with ticket {ticket} unplayed")
                            return
                        if use_expected:
                            seen = http.get(f"/campaigns/{cid}", headers=auth)
                            with lock:
                                statuses[seen.status_code] += 1
                            body["expected_turn"] = seen.json()["turn_number"]
                        reply = http.post(f"/campaigns/{cid}/turns", json=body,
                                          headers=auth | {"Idempotency-Key": key})
                        with lock:
                            statuses[reply.status_code] += 1
                        if reply.status_code == 200:
                            break
                        if reply.status_code != 409:
                            failures.append(f"{reply.status_code}: {reply.text[:200]}")
                            return
                        assert isinstance(reply.json()["turn_number"], int)
                        time.sleep(rng.uniform(0.005, 0.02) * min(tries + 1, 4))  # back off, with jitter
                    else:
                        failures.append(f"ticket {ticket}: no turn after {MAX_TRIES} tries")
                        return

        threads = [threading.Thread(target=client, args=(n,), name=f"client-{n}") for n in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(DEADLINE_S + 30)
        assert not any(t.is_alive() for t in threads)
        elapsed = time.monotonic() - started
        assert not failures, failures[:5]
        assert not [s for s in statuses if s >= 500], statuses
        assert set(statuses) <= {200, 409}, statuses

        numbers = {}
        for cid, auth in campaigns:
            numbers[cid] = []
            after: int | None = 0
            while after is not None:  # page through the transcript
                page = setup.get(f"/campaigns/{cid}/turns", params={"after_turn": after, "limit": 100},
                                 headers=auth).json()
                numbers[cid] += [t["turn_number"] for t in page["turns"]]
                after = page["next_after_turn"]
            assert numbers[cid] == list(range(1, page["total"] + 1))
            assert setup.get(f"/campaigns/{cid}", headers=auth).json()["turn_number"] == page["total"]
        assert sum(len(n) for n in numbers.values()) == TURNS
    conn = connect(db)
    assert conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == TURNS
    assert conn.execute("SELECT COUNT(*) FROM api_idempotency WHERE response IS NOT NULL").fetchone()[0] == TURNS
    assert conn.execute("SELECT COUNT(*) FROM api_idempotency WHERE response IS NULL").fetchone()[0] == 0
    conn.close()
    print(f"\n{TURNS} turns in {elapsed:.1f} s ({TURNS / elapsed:.0f}/s); responses {dict(statuses)}")
