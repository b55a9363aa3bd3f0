"""Shared fixtures: the shipped pack, a real store per test, and an offline LLM client.

The store is a new SQLite file, or, in a module that sets ``BOTH_STORES = True``, each test runs twice: on a new SQLite
file and on a new database of a real PostgreSQL server (started once per session from the machine's binaries,
``tests/postgres.py``; each test gets its own database, copied from one that holds the schema, dropped after). A test
that is about SQLite files only is marked ``@pytest.mark.sqlite_only``. ``db_path`` is the test's store (a path or a
``postgresql://`` URL); ``fresh_db(name)`` makes another one."""

from __future__ import annotations

import os
import warnings

import pytest

os.environ.setdefault("SKALD_LLM", "off")  # no Ollama here; tests that need one start their own server
os.environ.setdefault("SKALD_RETRIEVAL", "false")  # tests that retrieve build their own index
os.environ.setdefault("SKALD_LOG_FILE", "")  # no log file in the working folder; tests of logging name their own

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


from postgres import STORES, drop_database, new_database  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_only: about SQLite save files; not run on PostgreSQL")


def _builds_a_module_fixture(item) -> bool:
    """Whether ``item`` uses a fixture built once for its module or class, or a session fixture its module defines."""
    module = item.nodeid.split("::", 1)[0]
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(
        defs[-1].scope in ("class", "module", "package") or (defs[-1].scope == "session" and defs[-1].baseid == module)
        for defs in info.name2fixturedefs.values() if defs)


def pytest_collection_modifyitems(config, items):
    """On a pytest-xdist worker (``make test`` runs ``-n auto --dist loadfile --no-loadscope-reorder``: each module
    on one worker, so a fixture built once for a module is built once), the modules with such a fixture come first,
    each module's tests kept together and in order. xdist hands the modules out in this order, so the costly ones
    start early, the last ones handed out are short, and the workers finish together."""
    if not hasattr(config, "workerinput"):  # one process: the order stays as collected
        return
    modules: dict[str, list] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    costly = {name for name, tests in modules.items() if any(_builds_a_module_fixture(test) for test in tests)}
    items[:] = [test for name in sorted(modules, key=lambda name: name not in costly) for test in modules[name]]


def pytest_generate_tests(metafunc):
    if "store" in metafunc.fixturenames and getattr(metafunc.module, "BOTH_STORES", False) and \
            metafunc.definition.get_closest_marker("sqlite_only") is None:
        metafunc.parametrize("store", STORES, indirect=True)


@pytest.fixture
def store(request):
    """Which store the test runs on: ``sqlite`` (every test) or ``postgresql`` (modules with ``BOTH_STORES``)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL server for the session, with a template database holding Skald's schema: (URL, template)."""
    import postgres

    if postgres.binaries() is None:
        message = ("NO POSTGRESQL: the PostgreSQL tests are SKIPPED. Install Debian's postgresql (`make test` does "
                   "when it can).")
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    import psycopg
    from skald.store.pg_schema import create

    with postgres.server() as url:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("CREATE DATABASE skald_template")
        with psycopg.connect(postgres.database(url, "skald_template"), autocommit=True) as conn:
            create(conn)
        yield url


@pytest.fixture
def fresh_db(store, tmp_path, request):
    """``fresh_db(name)``: a new, empty store of the test's kind: ``tmp_path / name``, or a new PostgreSQL database
    (with the schema; dropped when the test ends)."""
    made = []

    def make(name: str = "skald.db"):
        if store == "sqlite":
            return tmp_path / name

        url = request.getfixturevalue("pg_server")
        made.append(new_database(url))
        return made[-1]

    yield make
    for url in made:
        drop_database(url)


@pytest.fixture
def db_path(fresh_db):
    return fresh_db()


@pytest.fixture
def conn(db_path):
    connection = connect(db_path)
    yield connection
    connection.close()


@pytest.fixture
def campaign(conn, pack):
    return start_campaign(conn, pack, seed=1, campaign_id="test-1")
