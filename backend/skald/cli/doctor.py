"""``skald doctor``: is everything Skald needs in place? Each problem comes with the command that fixes it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import httpx

from skald.errors import SaveFileError
from skald.packs.loader import PackError, available_packs, load_pack
from skald.settings import Settings, SettingsError, load_settings
from skald.store.db import connect, verify
from skald.store.schema import schema_version


@dataclass
class Check:
    """One thing checked: whether it is right, what was found, and the command that fixes it when it is not.
    ``unreachable``: the check found that Ollama does not answer (``skald doctor --play`` then exits 2)."""

    ok: bool
    what: str
    fix: str = ""
    unreachable: bool = False


def _tags(base_url: str, timeout_s: float) -> tuple[list[str] | None, str]:
    try:
        reply = httpx.get(f"{base_url.rstrip('/')}/api/tags", timeout=timeout_s)
        reply.raise_for_status()
        return [m.get("name", "") for m in reply.json().get("models", [])], ""
    except (httpx.HTTPError, ValueError) as exc:
        return None, type(exc).__name__


def _pulled(model: str, names: list[str]) -> bool:
    wanted = model if ":" in model else f"{model}:latest"
    return model in names or wanted in names


def _postgres(url: str) -> Check:
    """The PostgreSQL database answers and has this Skald's schema version (``postgres.ensure_schema`` read-only:
    nothing is created or upgraded)."""
    from skald.store import postgres
    from skald.store.schema import SCHEMA_VERSION

    where = postgres.shown(url)
    try:
        version = postgres.ensure_schema(url, readonly=True)
    except SaveFileError as exc:
        if exc.reason == "no_schema":
            return Check(True, f"database {where} answers and is empty; the first skald serve (or skald db upgrade) "
                         f"gives it the schema (version {SCHEMA_VERSION})")
        fix = {"cannot_open": "start the server, or correct SKALD_DB_URL / --db",
               "old_schema": "skald db upgrade --db URL adds what this Skald's schema has since"}.get(
            exc.reason, "use the Skald that wrote it, or move the campaigns with skald db export / import")
        return Check(False, str(exc), fix)
    conn = connect(url, readonly=True)
    try:
        damage = structure(conn)
    finally:
        conn.close()
    if damage:
        return Check(False, f"database {where} answers (PostgreSQL, schema version {version}) but is damaged: "
                     + "; ".join(damage), "restore it from a backup, or move the campaigns that still load to a new "
                     "database with skald db export / import (`skald play` refuses what it cannot read)")
    return Check(True, f"database {where} answers (PostgreSQL, schema version {version}) and passes Skald's own "
                 "checks: its tables, every campaign's state rows, every branch head and line, every event, and each "
                 "campaign's state against its events folded")


def _save_file(path: Path | str) -> Check:
    """The save file opens read-only, is from this Skald or older, and passes ``PRAGMA integrity_check`` (a
    PostgreSQL URL: :func:`_postgres`)."""
    if isinstance(path, str) and "://" in path:
        return _postgres(path)
    path = Path(path)
    if not path.exists():
        return Check(True, f"no save file at {path} yet; skald play creates it")
    if path.stat().st_size == 0:
        return Check(True, f"{path} is an empty file; skald play makes a new save file in it")
    pending = _pending_migrations(path)
    if pending:
        return Check(True, f"database {path} is from an older Skald and needs upgrading: {'; '.join(pending)}. The "
                     "next `skald play --db` (or any command that opens it for writing) upgrades it once, keeping "
                     "every turn; copy the file first if you want to keep the old one")
    try:
        conn = connect(path, readonly=True)
        try:
            verify(conn, path, full=True)
            version = schema_version(conn)
            damage = structure(conn)
        finally:
            conn.close()
    except SaveFileError as exc:
        if exc.reason == "damaged":
            return Check(False, str(exc), "restore the file from a copy: a missing table cannot be rebuilt from the "
                         "others")
        return Check(False, str(exc), "see above; or use another file: SKALD_DB_PATH=... / --db")
    if damage:
        return Check(False, f"database {path} passes integrity_check but is damaged: " + "; ".join(damage),
                     "restore the file from a copy, or move the campaigns that still load to a new file with skald "
                     "db export / import (`skald play` refuses what it cannot read)")
    return Check(True, f"database {path} opens and passes integrity_check and Skald's own checks (schema version "
                 f"{version}): its tables, every campaign's state rows, every branch head and line, every event, and "
                 "each campaign's state against its events folded")


def structure(conn) -> list[str]:
    """Skald's own checks of the store (``store.fsck.problems``), each campaign folded with its pack's numbers
    (:func:`pack_limits`). Empty when nothing is wrong."""
    from skald.store import fsck

    return fsck.problems(conn, pack_limits)


def pack_limits(pack_id: str):
    """The numbers a campaign's events are folded with (``events.Limits``) when its pack is one of the pack folders
    and loads; None otherwise (never a path a save file or an export names)."""
    from skald.core.events import limits_of

    try:
        return limits_of(load_pack(pack_id)) if pack_id in available_packs() else None
    except PackError:
        return None


def _pending_migrations(path: Path) -> list[str]:
    """The migrations a save file still needs, each named with the first line of what it does (read without
    changing the file: a read-only open would upgrade it first). Empty when up to date, or not a readable database
    (the integrity check then says why)."""
    import sqlite3
    from urllib.parse import quote

    from skald.store.schema import MIGRATIONS
    from skald.store.sqlite import foreign_tables  # a save file, opened raw: SQLite's own

    try:
        conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
        try:
            version = schema_version(conn)
            if version == 0 and foreign_tables(conn):
                return []  # another application's database: the open below says so
        finally:
            conn.close()
    except sqlite3.Error:
        return []
    return [_named(m) for m in MIGRATIONS[version:]]


def _named(migration) -> str:
    """A migration as doctor lists it: its name and the first line of what it does (its name alone without one)."""
    first = next(iter((migration.__doc__ or "").strip().splitlines()), "").rstrip(".:")
    return f"{migration.__name__} ({first})" if first else migration.__name__


def ollama_checks(settings: Settings) -> list[Check]:
    """Ollama answers at each URL the roles use (``unreachable`` when not), and each enabled role's model is pulled
    there (judged by ``/api/tags``), each problem with the command that fixes it."""
    checks = []
    roles = settings.roles()
    for url in sorted({cfg.base_url for cfg in roles.values()}):
        names, error = _tags(url, max(settings.probe_timeout_s, 2.0))
        host = "" if url == "http://127.0.0.1:11434" else f"OLLAMA_HOST={url} "
        if names is None:
            checks.append(Check(False, f"Ollama does not answer at {url} ({error})",
                                f"{host}ollama serve   (or set SKALD_OLLAMA_BASE_URL to where Ollama runs)",
                                unreachable=True))
            continue
        checks.append(Check(True, f"Ollama answers at {url} ({len(names)} models pulled)"))
        for cfg in (c for c in roles.values() if c.base_url == url):
            if not cfg.enabled:
                checks.append(Check(True, f"{cfg.role}: disabled, uses its fallback"))
            elif _pulled(cfg.model, names):
                checks.append(Check(True, f"{cfg.role}: model {cfg.model} is pulled"))
            else:
                checks.append(Check(False, f"{cfg.role}: model {cfg.model} is not pulled at {url}",
                                    f"{host}ollama pull {cfg.model}"))
    return checks


def check_lines(checks: list[Check]) -> list[str]:
    """The checks as ``skald doctor`` prints them: ``ok`` or ``PROBLEM``, what, and the fix under a problem."""
    lines = []
    for check in checks:
        lines.append(f"{'ok     ' if check.ok else 'PROBLEM'}  {check.what}")
        if not check.ok:
            lines.append(f"         fix: {check.fix}")
    return lines


def run_checks(db_path: Path | str | None = None) -> list[Check]:
    """Every check, in order: settings, Ollama per URL, each role's model, the database, each pack."""
    try:
        settings = load_settings()
    except SettingsError as exc:
        return [Check(False, str(exc), "correct or unset the variables named above, then run skald doctor again")]
    checks = [Check(True, "settings load")]
    if settings.llm == "off":
        checks.append(Check(True, "SKALD_LLM=off: the deterministic fallbacks are in use; Ollama not checked"))
    else:
        checks += ollama_checks(settings)
    checks.append(_save_file(db_path or settings.database))
    for pack in available_packs():
        try:
            load_pack(pack)
            checks.append(Check(True, f"era pack {pack} loads"))
        except PackError as exc:
            checks.append(Check(False, str(exc), "edit the files and lines named above"))
    return checks
