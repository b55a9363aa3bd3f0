"""``make soak`` (``python -m bench.soak [--seconds 3600]``): an hour of mixed API load against two ``skald serve``
processes on one save file, with faults, watching each process for growth. Not part of CI.

The load is ``tests/history.py``'s: client threads play turns on a few campaigns through either server at random,
each request under its own idempotency key, retried through read timeouts, connections the client drops, abandoned
streams and 409s, with reads of every campaign view in between. Server ``a`` runs the whole time; server ``b`` is
SIGKILLed every ``--kill-every`` seconds or so (at random) and restarted on the same file, so ``a`` also carries the
load alone for a few seconds each time.

Every ``--sample`` seconds, per server process: threads, open file descriptors, the descriptors on the save file
(``.db``, ``-wal``, ``-shm``: its SQLite connections), RSS (``/proc/<pid>/status``) and the turns it played per
second; and the WAL's size. At the end: first, last and max of each, and the verdict on growth for ``a``: the mean of
the last quarter of the run over the mean of the first quarter (after a warm-up of the first tenth) must be at most
1.2 for threads, descriptors and RSS, and turns/s must not fall below 1/1.2 of where it was. Then the history check
over the whole soak (every acknowledged request stored exactly once, contiguous turn numbers, answers that carry
their own turn; ``tests/history.py`` lists it all). Exit status 1 if either fails.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import history  # noqa: E402 - tests/history.py, shared with tests/test_history.py

GROWTH_LIMIT = 1.2
METRICS = ("threads", "fds", "db_fds", "rss_mb", "turns_s")  # judged on server a
WARM_UP = 0.1  # the first tenth of the run is warm-up, left out of the first quarter


@dataclass
class Sample:
    t: float
    server: str
    generation: int
    pid: int
    threads: int
    fds: int
    db_fds: int
    db: int  # descriptors on the .db file, the -wal and the -shm
    wal: int
    shm: int
    rss_mb: float
    turns_s: float


@dataclass
class Watch:
    """Turns played per server since the last sample (acknowledgements that were not replays)."""

    played: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def on_attempt(self, tried: history.Attempt) -> None:
        if tried.acked and not tried.replayed:
            with self.lock:
                self.played[tried.server] += 1

    def take(self) -> Counter[str]:
        with self.lock:
            out, self.played = self.played, Counter()
        return out


def process(pid: int, db: Path) -> dict[str, float] | None:
    """Threads, RSS and descriptors of process ``pid`` (None if it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        links = []
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                links.append(str(fd.readlink()))
            except OSError:  # closed meanwhile
                pass
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    path = str(db.resolve())
    return {"threads": int(fields["Threads"]), "rss_mb": int(fields["VmRSS"].split()[0]) / 1024, "fds": len(links),
            "db": links.count(path), "wal": links.count(path + "-wal"), "shm": links.count(path + "-shm")}


def turns_stored(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute("SELECT COALESCE(SUM(turn_number), 0) FROM campaigns").fetchone()[0]
    finally:
        conn.close()


def sampler(cluster: history.Cluster, watch: Watch, every_s: float, done: threading.Event, samples: list[Sample],
            started: float) -> None:
    last, last_turns = time.monotonic(), turns_stored(cluster.db)
    while not done.wait(every_s):
        now = time.monotonic()
        dt, played = now - last, watch.take()
        stored = turns_stored(cluster.db)
        line = [f"{now - started:7.0f}s"]
        for server in cluster.servers:
            pid = server.pid
            seen = process(pid, cluster.db) if pid and server.ready else None
            if seen is None:
                line.append(f"{server.name}#{server.generation}: {'starting' if pid else 'down'}")
                continue
            sample = Sample(round(now - started, 1), server.name, server.generation, pid or 0, int(seen["threads"]),
                            int(seen["fds"]), int(seen["db"] + seen["wal"] + seen["shm"]), int(seen["db"]),
                            int(seen["wal"]), int(seen["shm"]), round(seen["rss_mb"], 1),
                            round(played[server.name] / dt, 2))
            samples.append(sample)
            line.append(f"{server.name}#{server.generation}: {sample.threads:3d} thr {sample.fds:4d} fds "
                        f"{sample.db_fds:3d} db ({sample.db}/{sample.wal}/{sample.shm}) {sample.rss_mb:7.1f} MB "
                        f"{sample.turns_s:5.1f} t/s")
        wal = cluster.db.with_name(cluster.db.name + "-wal")
        wal_mb = wal.stat().st_size / 2**20 if wal.exists() else 0.0
        line.append(f"all: {(stored - last_turns) / dt:5.1f} t/s, {stored} turns, wal {wal_mb:.1f} MB")
        print("  ".join(line), flush=True)
        last, last_turns = now, stored


def kills_every(cluster: history.Cluster, victim: history.Server, mean_s: float, seed: int
                ) -> Callable[[history.History, threading.Event], None]:
    rng = random.Random(f"soak-chaos-{seed}")

    def chaos(record: history.History, done: threading.Event) -> None:
        while not done.wait(max(5.0, rng.expovariate(1 / mean_s))):
            cluster.kill(victim, rng).join()

    return chaos


def growth(samples: list[Sample], seconds: float) -> list[tuple[str, float, float, float, bool]]:
    """(metric, first-quarter mean, last-quarter mean, ratio, ok) for each metric."""
    start = seconds * WARM_UP
    span = seconds - start
    first = [s for s in samples if start <= s.t < start + span / 4]
    last = [s for s in samples if s.t >= seconds - span / 4]
    out = []
    if not first or not last:
        return out
    for metric in METRICS:
        a = statistics.fmean(getattr(s, metric) for s in first)
        b = statistics.fmean(getattr(s, metric) for s in last)
        ratio = b / a if a else (1.0 if b == 0 else float("inf"))
        ok = ratio >= 1 / GROWTH_LIMIT if metric == "turns_s" else ratio <= GROWTH_LIMIT
        out.append((metric, a, b, ratio, ok))
    return out


def report(samples: list[Sample], seconds: float) -> bool:
    ok = True
    for name in ("a", "b"):
        mine = [s for s in samples if s.server == name]
        if not mine:
            continue
        gens = len({s.generation for s in mine})
        print(f"\nserver {name} ({gens} process{'es' if gens > 1 else ''}, {len(mine)} samples)")
        print(f"  {'':8} {'first':>9} {'last':>9} {'max':>9}")
        for metric in METRICS:
            values = [getattr(s, metric) for s in mine]
            print(f"  {metric:8} {values[0]:9.1f} {values[-1]:9.1f} {max(values):9.1f}")
        if name != "a":
            print("  (killed and restarted throughout: growth is judged on a)")
            continue
        verdicts = growth(mine, seconds)
        if not verdicts:
            print("  too few samples for a verdict on growth")
            ok = False
        for metric, first, last, ratio, good in verdicts:
            want = f">= {1 / GROWTH_LIMIT:.2f}" if metric == "turns_s" else f"<= {GROWTH_LIMIT:.1f}"
            print(f"  growth {metric:8} last quarter {last:9.1f} / first quarter {first:9.1f} = {ratio:5.2f}x "
                  f"(target {want}): {'ok' if good else 'FAIL'}")
            ok = ok and good
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3600, help="how long the load runs (default 3600)")
    parser.add_argument("--sample", type=float, default=10, help="seconds between samples (default 10)")
    parser.add_argument("--clients", type=int, default=8, help="client threads (default 8)")
    parser.add_argument("--campaigns", type=int, default=4, help="campaigns played (default 4)")
    parser.add_argument("--kill-every", type=float, default=120, help="mean seconds between kills of server b "
                                                                      "(default 120; 0: no kills)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, help="keep the save file and server logs here (default: a temporary "
                                                 "directory, removed unless the check fails)")
    args = parser.parse_args(argv)
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="skald-soak-"))
    workdir.mkdir(parents=True, exist_ok=True)
    load = history.Load(clients=args.clients, requests=None, seconds=args.seconds, grace_s=30, read_ratio=0.5,
                        think_s=0.05, keep_all=False)
    print(f"soak: {args.seconds:.0f} s, {args.clients} clients, {args.campaigns} campaigns, server b killed every "
          f"~{args.kill_every:.0f} s; save file and logs in {workdir}", flush=True)
    samples: list[Sample] = []
    watch = Watch()
    with history.Cluster(workdir / "soak.db", workdir) as cluster:
        campaigns = [cluster.create_campaign(args.seed * 100 + n) for n in range(args.campaigns)]
        done = threading.Event()
        started = time.monotonic()
        watcher = threading.Thread(target=sampler, args=(cluster, watch, args.sample, done, samples, started),
                                   daemon=True)
        watcher.start()
        chaos = kills_every(cluster, cluster.servers[1], args.kill_every, args.seed) if args.kill_every else None
        try:
            record = history.run_load(cluster, campaigns, load, args.seed, chaos=chaos, on_attempt=watch.on_attempt)
        finally:
            done.set()
            watcher.join(60)
        print("\nchecking the history against the save file and both servers' transcripts ...", flush=True)
        checked = history.check(record, cluster, campaigns)
    steady = report(samples, args.seconds)
    print("\nhistory check")
    print("\n".join(checked.lines()))
    if cluster.errors:
        print("servers that did not restart:", *cluster.errors, sep="\n  ")
    good = steady and not checked.violations and not cluster.errors
    print(f"\nverdict: {'PASS' if good else 'FAIL'} (growth {'ok' if steady else 'FAIL'}, "
          f"history {'ok' if not checked.violations else f'{len(checked.violations)} violations'})")
    if good and args.dir is None:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    elif not good:
        record.dump(workdir / "history.json")
        print(f"kept for inspection: {workdir}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
