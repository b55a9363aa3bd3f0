"""Guided creation's sessions live in the store (m013): two API workers (two engines on one store, SQLite or
PostgreSQL) answer one session's messages in turn, a message racing another on any worker gets 409, and a lease
left by a worker that died ends by itself."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi import HTTPException
from skald import wallclock
from skald.api.setup import NewSetup, SetupMessage, SetupSessions
from skald.engine import Engine
from skald.llm.client import LLMClient
from skald.packs.cache import PackCache
from skald.settings import Settings
from skald.store import setup_sessions

BOTH_STORES = True  # every test runs on SQLite and on PostgreSQL (conftest)


@pytest.fixture
def workers(db_path):
    clock = wallclock.fixed("2031-02-03T04:05:06+00:00")
    engines = [Engine(db_path, llm=LLMClient(Settings(llm="off"), online=False), packs=PackCache(), retriever=None,
                      clock=clock) for _ in range(2)]
    yield engines
    for engine in engines:
        engine.close()


def test_any_worker_answers_the_next_message_and_a_race_gets_409(workers):
    a, b = (SetupSessions(e) for e in workers)
    opened = a.open(NewSetup(pack="cinder_reach", seed=5))
    first = opened.question.id
    asked = b.message(opened.setup_id, SetupMessage(text="Mara Venn"))  # the other worker knows the session
    assert asked.question.id != first
    with workers[0].pool.connection() as conn:  # a message being answered on worker b holds the lease
        setup_sessions.take(conn, opened.setup_id, a._now(), idle_s=3600)
    with pytest.raises(HTTPException) as busy:
        a.message(opened.setup_id, SetupMessage(text="she/her"))
    assert busy.value.status_code == 409
    later = SetupSessions(workers[1], clock=lambda: a.clock() + timedelta(seconds=setup_sessions.LEASE_S + 1))
    assert later.message(opened.setup_id, SetupMessage(text="")).question.id != asked.question.id  # lease ended
    assert b.message(opened.setup_id, SetupMessage(text="")).can_finish  # the background: it may finish now
    sheet, _, made = b.finish(opened.setup_id)
    assert sheet.name == "Mara Venn" and made.state.player.name == "Mara Venn"
    assert workers[0].load(made.state.campaign.id).campaign.seed == 5
    with pytest.raises(HTTPException) as gone:
        a.message(opened.setup_id, SetupMessage(text="more"))  # finished: closed on every worker
    assert gone.value.status_code == 404
