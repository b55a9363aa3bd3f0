"""Shared fixtures: the shipped pack, a real SQLite file per test, and an offline LLM client."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("SKALD_LLM", "off")  # no Ollama here; tests that need one start their own server
os.environ.setdefault("SKALD_RETRIEVAL", "false")  # tests that retrieve build their own index

from skald.engine import start_campaign  # noqa: E402
from skald.llm.client import LLMClient  # noqa: E402
from skald.packs.loader import load_pack  # noqa: E402
from skald.settings import Settings  # noqa: E402
from skald.store.db import connect  # noqa: E402


@pytest.fixture(scope="session")
def pack():
    return load_pack("cinder_reach")


@pytest.fixture
def offline_llm():
    return LLMClient(Settings(), online=False)


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "skald.db"


@pytest.fixture
def conn(db_path):
    connection = connect(db_path)
    yield connection
    connection.close()


@pytest.fixture
def campaign(conn, pack):
    return start_campaign(conn, pack, seed=1, campaign_id="test-1")
