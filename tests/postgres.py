"""A real PostgreSQL server for tests, from the machine's own binaries: ``initdb`` and ``pg_ctl`` in a temporary
directory, on a free port on 127.0.0.1, stopped at the end. ``make test`` installs Debian's ``postgresql`` when it is
missing and can; without it the tests that need the server are skipped, and say so.

PostgreSQL refuses to run as root: under root the server runs as the ``postgres`` user (``runuser``), in a
directory that user owns.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from history import free_port

STORES = ("sqlite", "postgresql")  # what a module with BOTH_STORES runs each test on (conftest)
_databases = itertools.count(1)


def binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (Debian keeps them under /usr/lib/postgresql/N/bin)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent  # /usr/local/bin may hold links to some of them only
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(versions[-1]).parent if versions else None


def _as_owner(command: list[str], user: str | None) -> list[str]:
    return ["runuser", "-u", user, "--", *command] if user else command


@contextmanager
def server() -> Iterator[str]:
    """Start a PostgreSQL server with its data in a new temporary directory (removed after); yield its URL (user
    ``skald``, database ``postgres``)."""
    bindir = binaries()
    if bindir is None:
        raise FileNotFoundError("no PostgreSQL binaries (initdb, pg_ctl): install Debian's postgresql")
    user = "postgres" if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="skald-pg-"))  # under /tmp, which the postgres user can reach
    data, sockets = folder / "data", folder / "sockets"
    for path in (folder, sockets):
        path.mkdir(parents=True, exist_ok=True)
        if user:
            owner = pwd.getpwnam(user)
            os.chown(path, owner.pw_uid, owner.pw_gid)
    log = folder / "server.log"
    subprocess.run(_as_owner([str(bindir / "initdb"), "-D", str(data), "-U", "skald", "--auth=trust", "-E", "UTF8",
                              "--no-sync"], user), check=True, capture_output=True)
    for attempt in range(3):  # the port can be taken between the probe and the start: then another one
        port = free_port()
        logged = log.stat().st_size if log.exists() else 0
        started = subprocess.run(_as_owner([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t",
                                            "60", "-o", f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 "
                                            "-c fsync=off", "start"], user), capture_output=True)
        if started.returncode == 0:
            break
        said = log.read_bytes()[logged:].decode(errors="replace") if log.exists() else ""
        if "already in use" not in said or attempt == 2:
            shutil.rmtree(folder, ignore_errors=True)
            raise RuntimeError(f"PostgreSQL did not start on port {port}: "
                               f"{started.stderr.decode(errors='replace')}\n{said[-3000:]}")
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready = subprocess.run([str(bindir / "pg_isready"), "-h", "127.0.0.1", "-p", str(port)],
                                   capture_output=True)
            if ready.returncode == 0:
                break
            time.sleep(0.2)
        yield f"postgresql://skald@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_owner([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], user),
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def database(url: str, name: str) -> str:
    """The URL of database ``name`` on the server of ``url``."""
    return url.rsplit("/", 1)[0] + "/" + name


def new_database(server: str, template: str | None = "skald_template") -> str:
    """A new database on the server of ``server``: a copy of ``template`` (by default the one holding Skald's schema,
    made by conftest's ``pg_server``), or empty with ``template=None``; its URL."""
    import psycopg

    name = f"t{next(_databases)}"
    copy = f" TEMPLATE {template}" if template else ""
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}{copy}")
    return database(server, name)


def drop_database(url: str) -> None:
    import psycopg

    server, name = url.rsplit("/", 1)
    with psycopg.connect(database(url, "postgres"), autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
