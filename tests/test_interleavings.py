"""Every ordering of two turn requests' steps across two processes (issue 12, "Prove it"; in the manner of
PostgreSQL's isolation tester: named steps, and one permutation after another, each checked).

A request runs in four steps separated by ``engine.PAUSE_POINTS``: look up the idempotency key | load the campaign |
play and commit | build the reply. Two worker processes (tests/stepper.py) play one request each on the same save
file, and the test walks all C(8, 4) = 70 orderings of their steps for each scenario:

- ``retry``: the same key and input (a client's retry served by the other process): exactly one turn is stored, and
  both replies are that turn;
- ``race``: two keys, two inputs: every reply describes the stored turn with its input, no input is stored twice,
  and turn numbers stay contiguous; a request that loses is refused (409) with nothing written;
- ``expected``: two keys both sent with ``expected_turn``: exactly one turn is stored.
"""

from __future__ import annotations

import itertools

import pytest
from postgres import STORES, drop_database, new_database
from skald.engine import PAUSE_POINTS, Engine
from stepper import Worker

STEPS = len(PAUSE_POINTS) + 1
ORDERINGS = sorted(set(itertools.permutations("A" * STEPS + "B" * STEPS)))
REFUSED = {"TurnConflictError", "TurnStale", "TurnBusy"}
SCENARIOS = {
    "retry": (("look around", "k1", None), ("look around", "k1", None)),
    "race": (("look around", "k1", None), ("rest", "k2", None)),
    "expected": (("look around", "k1", 1), ("rest", "k2", 1)),
}


@pytest.fixture(scope="module", params=STORES)
def world(request, tmp_path_factory):
    """Two worker processes on one store: a save file, or a PostgreSQL database (two API workers' case)."""
    if request.param == "sqlite":
        path = str(tmp_path_factory.mktemp("interleave") / "two.db")
    else:
        path = new_database(request.getfixturevalue("pg_server"))
    engine = Engine(path, retriever=None)
    engine.store = request.param
    workers = {"A": Worker.start(path), "B": Worker.start(path)}
    yield engine, workers
    for worker in workers.values():
        worker.stop()
    engine.close()
    if request.param != "sqlite":
        drop_database(path)


def run(workers: dict[str, Worker], ordering: tuple[str, ...], campaign_id: str, requests) -> dict:
    started: set[str] = set()
    for name in ordering:
        worker = workers[name]
        if worker.finished is not None and name in started:
            continue
        if name in started:
            worker.go()
        else:
            started.add(name)
            worker.begin(campaign_id, *requests[name])
        worker.step()
    return {name: w.finished for name, w in workers.items()}


def stored_turns(engine: Engine, campaign_id: str) -> list[tuple[int, str]]:
    with engine.pool.connection() as conn:
        return [(r[0], r[1]) for r in conn.execute(
            "SELECT turn_number, input FROM turns WHERE campaign_id = ? ORDER BY turn_number", (campaign_id,))]


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_ordering_of_two_requests_keeps_exactly_once(world, scenario):
    engine, workers = world
    a, b = SCENARIOS[scenario]
    assert len(ORDERINGS) == 70
    for n, ordering in enumerate(ORDERINGS):
        cid = f"{scenario}-{n}"
        engine.create_campaign("cinder_reach", seed=5, campaign_id=cid)
        engine.play_turn(cid, "look around")  # turn 1, so expected_turn=1 is the current turn
        for worker in workers.values():
            worker.finished = None
        results = run(workers, ordering, cid, {"A": a, "B": b})
        where = f"{scenario}, ordering {''.join(ordering)}: {results}"
        stored = stored_turns(engine, cid)
        numbers = [number for number, _ in stored]
        assert numbers == list(range(1, len(stored) + 1)), where  # contiguous
        later = stored[1:]
        acked = {name: payload for name, (kind, payload) in results.items() if kind == "done"}
        for kind, payload in results.values():
            assert kind == "done" or payload in REFUSED, where
        for reply in acked.values():  # a reply describes the turn stored with its input, never another turn
            assert (reply["turn_number"], reply["input"]) in later, where
        if scenario == "retry":
            assert len(later) == 1 and len(acked) == 2, where
            assert acked["A"]["turn_number"] == acked["B"]["turn_number"] and acked["A"]["text"] == acked["B"]["text"]
        else:
            inputs = [text for _, text in later]
            assert len(inputs) == len(set(inputs)) == len(acked), where  # each acked request stored exactly once
            if scenario == "expected":
                assert len(later) == 1, where


def test_the_save_file_is_whole_after_all_orderings(world):
    engine, _ = world
    with engine.pool.connection() as conn:
        if engine.store == "sqlite":
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        keys = conn.execute("SELECT count(*), count(DISTINCT campaign_id || key) FROM api_idempotency").fetchone()
    assert keys[0] == keys[1] > 0
