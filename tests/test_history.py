"""Prove it: two ``skald serve`` processes on one save file, 20 clients sending 150 turn requests to either at
random under idempotency keys, through read timeouts, dropped connections, abandoned streams and two SIGKILLed
servers (each restarted on the same file). Every acknowledged request is stored exactly once and its answers carry
its own turn; no stored turn answers two requests or none; turn numbers are 1..N (``history.check`` lists every
property).

``HISTORY_RUNS=10`` plays ten seeds (default one); ``HISTORY_SEED`` picks the first (default 1). (Not
``SKALD_*``: the servers refuse a ``SKALD_`` variable that is not a setting.) A failing run leaves
``history.json`` (every attempt) and the servers' logs in its ``tmp_path``.
"""

from __future__ import annotations

import os
from pathlib import Path

import history
import pytest

RUNS = int(os.environ.get("HISTORY_RUNS", "1"))
FIRST_SEED = int(os.environ.get("HISTORY_SEED", "1"))
REQUESTS = 150
KILLS_AT = (0.2, 0.5)  # fractions of the requests acknowledged when a server is killed (alternating servers)
LOAD_S = 40  # a bound, not a target: the load takes 10-25 s on two slow cores


@pytest.mark.parametrize("seed", range(FIRST_SEED, FIRST_SEED + RUNS))
def test_every_acknowledged_turn_request_is_stored_once_through_drops_and_kills(tmp_path: Path, seed: int) -> None:
    load = history.Load(clients=20, requests=REQUESTS, seconds=LOAD_S, grace_s=10)
    record = None
    where = f"(every attempt: {tmp_path / 'history.json'}; server logs: {tmp_path}/server-*.log)"
    try:
        with history.Cluster(tmp_path / "history.db", tmp_path) as cluster:
            campaign = cluster.create_campaign(seed)
            record = history.run_load(cluster, [campaign], load, seed,
                                      chaos=history.kills_at_progress(cluster, REQUESTS, KILLS_AT, seed))
            report = history.check(record, cluster, [campaign])
    finally:
        if record is not None:
            record.dump(tmp_path / "history.json")
    print(f"\nseed {seed}:", *report.lines(), sep="\n")
    assert not cluster.errors, "\n".join(cluster.errors)
    assert not report.violations, "\n".join([where, *report.violations[:30]])
    assert len(record.kills) == len(KILLS_AT), f"only {len(record.kills)} kills happened {where}"
    unacked = [r.key for r in record.requests if not r.acks]
    assert len(record.requests) == REQUESTS and not unacked, (
        f"{len(record.requests)} of {REQUESTS} requests sent, {len(unacked)} never acknowledged {unacked[:10]}"
        f"{' before the load ran out of time' if record.deadline_hit else ''} {where}")
