"""The SQLite schema, created and migrated with ``sqlite_utils.Migrations``.

Applied migrations are recorded in ``_sqlite_migrations``; ``PRAGMA user_version`` mirrors the count, so
``schema_version(conn)`` is one cheap read, and opening a save file that is up to date reads that and nothing else
(sqlite-utils is imported only when a migration is pending).

A new, empty save file is created from ``current_schema.sql``: the tables and indexes exactly as the migrations leave
them, with every migration recorded as applied (one script in one transaction, about 1 ms, where running the 14
migrations through sqlite-utils takes about 120 ms and imports it and numpy). ``tests/test_current_schema.py``
fails when that file falls behind the migrations; ``python -m skald.store.schema`` rewrites it.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils
    from sqlite_utils import Migrations


def m001_initial(db: sqlite_utils.Database) -> None:
    db["campaigns"].create(
        {"id": str, "pack_id": str, "pack_hash": str, "seed": int, "turn_number": int, "story_turns": int,
         "initial_state": str, "created_at": str, "updated_at": str},
        pk="id",
    )
    db["world_state"].create(
        {"campaign_id": str, "location": str, "time_minutes": int, "arc_stage": str, "arc_stage_turn": int,
         "combat": str, "world": str},
        pk="campaign_id", foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["characters"].create(
        {"campaign_id": str, "char_id": str, "name": str, "background": str, "hp": int, "max_hp": int,
         "credits": int, "stress": int, "stats": str, "defeated": int},
        pk=("campaign_id", "char_id"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["inventory"].create(
        {"campaign_id": str, "item_id": str, "qty": int},
        pk=("campaign_id", "item_id"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["party"].create(
        {"campaign_id": str, "companion_id": str, "affinity": int, "loyalty": int, "in_party": int,
         "joined_turn": int},
        pk=("campaign_id", "companion_id"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["reputation"].create(
        {"campaign_id": str, "faction_id": str, "value": int},
        pk=("campaign_id", "faction_id"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["known_npcs"].create(
        {"campaign_id": str, "npc_id": str, "name": str, "first_met_turn": int, "procedural": int,
         "location": str, "role": str, "description": str},
        pk=("campaign_id", "npc_id"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["quests"].create(
        {"campaign_id": str, "quest_id": str, "status": str, "stage": int},
        pk=("campaign_id", "quest_id"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["turns"].create(
        {"campaign_id": str, "turn_number": int, "input": str, "intent": str, "action_class": str,
         "outcome": str, "text": str, "suggestions": str, "warnings": str, "mechanic": str, "llm_calls": str,
         "location": str, "world_time_minutes": int, "created_at": str},
        pk=("campaign_id", "turn_number"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["turn_events"].create(
        {"id": int, "campaign_id": str, "turn_number": int, "seq": int, "type": str, "data": str},
        pk="id", foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["turn_events"].create_index(["campaign_id", "turn_number", "seq"], unique=True)


def m002_retrieval(db: sqlite_utils.Database) -> None:
    """Lore citations per rendered turn, and a short summary of every turn for episodic memory."""
    db["turns"].add_column("lore_citations", str)
    db["turn_memories"].create(
        {"campaign_id": str, "turn_number": int, "location": str, "summary": str},
        pk=("campaign_id", "turn_number"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )


def m003_api(db: sqlite_utils.Database) -> None:
    """The HTTP API: per-campaign access tokens (only a sha256 of each token is stored) and the idempotency
    records of turn requests (``response`` is NULL while the turn is being played)."""
    db["api_tokens"].create(
        {"campaign_id": str, "token_hash": str, "created_at": str},
        pk="campaign_id", foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["api_idempotency"].create(
        {"campaign_id": str, "key": str, "input_hash": str, "based_on": int, "turn_number": int, "response": str,
         "created_at": str},
        pk=("campaign_id", "key"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )


def m004_views(db: sqlite_utils.Database) -> None:
    """Typed turn views: a flag for turns the offline narrator wrote (instead of three constant warnings on every
    row), and the indexes behind listing campaigns, paging the transcript by turn and pruning idempotency records."""
    db["turns"].add_column("offline", int, not_null_default=0)
    _settle_pending_keys(db)
    db.execute("CREATE INDEX campaigns_by_update ON campaigns (updated_at DESC, id)")
    db["api_idempotency"].create_index(["campaign_id", "created_at"], index_name="idempotency_by_age")


def _settle_pending_keys(db: sqlite_utils.Database) -> None:
    """Engines before m004 wrote an idempotency record before its turn and the response after; a process that died in
    between left the record pending. Since m004 the record is written in the turn's own transaction, so settle those
    once: a pending key whose turn committed (the next turn has the same input) gets that turn's transcript entry as
    its stored response; any other pending key is dropped (its turn never committed, and a retry plays it)."""
    pending = list(db.query("SELECT campaign_id, key, input_hash, based_on FROM api_idempotency "
                            "WHERE response IS NULL"))
    for row in pending:
        turn = next(db.query("SELECT * FROM turns WHERE campaign_id = ? AND turn_number = ?",
                             (row["campaign_id"], row["based_on"] + 1)), None)
        where = "campaign_id = ? AND key = ?"
        if turn is None or hashlib.sha256(turn["input"].encode("utf-8", "surrogatepass")).hexdigest() != \
                row["input_hash"]:
            db.execute(f"DELETE FROM api_idempotency WHERE {where}", (row["campaign_id"], row["key"]))
            continue
        body = {"campaign_id": turn["campaign_id"], "turn_number": turn["turn_number"], "input": turn["input"],
                "intent": turn["intent"], "action_class": turn["action_class"], "text": turn["text"],
                "suggestions": json.loads(turn["suggestions"] or "[]"),
                "warnings": json.loads(turn["warnings"] or "[]"),
                "recovered": True}
        db.execute(f"UPDATE api_idempotency SET response = ?, turn_number = ? WHERE {where}",
                   (json.dumps(body), turn["turn_number"], row["campaign_id"], row["key"]))


def m005_offer(db: sqlite_utils.Database) -> None:
    """The four suggestions standing for the next turn (JSON), kept with the world state: what 1-4 play, what every
    /command and a resumed game show. Older saves read the last turn's suggestions instead."""
    db["world_state"].add_column("offer", str)


def m006_quest_hints(db: sqlite_utils.Database) -> None:
    """What would complete a quest's current stage, after an attempt that nearly counted (QUEST_HINT)."""
    db["quests"].add_column("hint", str)


def m007_episodes(db: sqlite_utils.Database) -> None:
    """The Director's episode layer: its state (JSON) beside the world state, and one row per evaluated episode
    (the EPISODE_COMPLETED event's evaluation, looked up by campaign and number or by ``share_id``)."""
    db["world_state"].add_column("director", str)
    db["episode_evaluations"].create(
        {"campaign_id": str, "number": int, "episode_id": str, "share_id": str, "turn_number": int, "trigger": str,
         "outcome": str, "playstyle": str, "evaluation": str, "created_at": str},
        pk=("campaign_id", "number"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["episode_evaluations"].create_index(["share_id"], unique=True)


def m008_scene_briefs(db: sqlite_utils.Database) -> None:
    """The Director's scene brief each turn used (JSON: the brief, its origin and source) and its scene key, indexed
    so a process without the brief in memory reads it back instead of writing it again."""
    db["turns"].add_column("scene_key", str)
    db["turns"].add_column("brief", str)
    db["turns"].create_index(["campaign_id", "scene_key", "turn_number"])


def m009_scenes(db: sqlite_utils.Database) -> None:
    """Multi-character scenes: the scene layer's state (JSON: the running scene, NPC feelings, scenes played) beside
    the world state, and every transcript line a turn's scene beats spoke (``turn_dialogue``)."""
    db["world_state"].add_column("scenes", str)
    db["turn_dialogue"].create(
        {"campaign_id": str, "turn_number": int, "seq": int, "scene_id": str, "beat": int, "speaker": str,
         "name": str, "target": str, "action": str, "tone": str, "content": str, "nonverbal": str, "after": str},
        pk=("campaign_id", "turn_number", "seq"), foreign_keys=[("campaign_id", "campaigns", "id")],
    )
    db["turn_dialogue"].create_index(["campaign_id", "scene_id", "turn_number"])


def m010_profiles(db: sqlite_utils.Database) -> None:
    """The player's profile (JSON: pronouns, concept, hook, tone, content limits), settled by guided creation."""
    db["characters"].add_column("profile", str)


def m011_snapshots(db: sqlite_utils.Database) -> None:
    """The persistent state every ``writer.SNAPSHOT_EVERY`` turns, written by the turn's own Commit, so the state at
    any turn is a snapshot plus at most that many turns of events (``reads.state_at``)."""
    db["turn_snapshots"].create({"campaign_id": str, "turn_number": int, "state": str},
                                pk=("campaign_id", "turn_number"), foreign_keys=[("campaign_id", "campaigns", "id")])


def m012_timelines(db: sqlite_utils.Database) -> None:
    """Timelines: every campaign becomes a tree of turns with named branches (``store.timeline``).

    - ``turns`` gets ``turn_id`` (its key, unique in the file), ``parent_turn_id`` (0: the campaign's start),
      ``branch`` (the branch it was played on) and ``variant`` (0 for the first turn played from its parent, then 1,
      2... for retries and for other turns played from it after an undo). Two turns of one campaign may now share a
      number (the number is the turn's depth in the tree).
    - ``turn_events``, ``turn_memories``, ``turn_dialogue``, ``turn_snapshots`` and ``episode_evaluations`` are keyed
      by ``turn_id`` (the number stays, for reading).
    - ``branches`` holds each branch's head; ``branch_turns`` each branch's line (the turn at every number from 1 to
      its tip; the numbers above the head are what /redo replays); ``campaigns.branch`` is the branch the projections
      show (the current one).

    A linear save becomes the branch ``main``, its turns in order, its head the last turn: nothing is lost.
    """
    db["turns"].add_column("turn_id", int)
    db["turns"].add_column("parent_turn_id", int)
    db["turns"].add_column("branch", str)
    db["turns"].add_column("variant", int, not_null_default=0)
    db.execute("UPDATE turns SET turn_id = rowid, branch = 'main'")
    db.execute("UPDATE turns SET parent_turn_id = COALESCE((SELECT p.turn_id FROM turns p WHERE p.campaign_id = "
               "turns.campaign_id AND p.turn_number = turns.turn_number - 1), 0)")
    db["turns"].transform(pk="turn_id")
    db["turns"].create_index(["campaign_id", "parent_turn_id"])
    for table in ("turn_events", "turn_memories", "turn_dialogue", "turn_snapshots", "episode_evaluations"):
        db[table].add_column("turn_id", int)
        db.execute(f"UPDATE {table} SET turn_id = COALESCE((SELECT t.turn_id FROM turns t WHERE t.campaign_id = "
                   f"{table}.campaign_id AND t.turn_number = {table}.turn_number), 0)")
    db.execute("DROP INDEX IF EXISTS idx_turn_events_campaign_id_turn_number_seq")
    db["turn_events"].create_index(["turn_id", "seq"], unique=True)
    db["turn_memories"].transform(pk=("campaign_id", "turn_id"))
    db["turn_dialogue"].transform(pk=("turn_id", "seq"))
    db["turn_snapshots"].transform(pk="turn_id")
    db.execute("DROP INDEX IF EXISTS idx_episode_evaluations_share_id")
    db["episode_evaluations"].transform(pk=("turn_id", "number"))
    db["episode_evaluations"].create_index(["share_id"])
    db["episode_evaluations"].create_index(["campaign_id", "number"])
    db["campaigns"].add_column("branch", str, not_null_default="main")
    db["branches"].create(
        {"campaign_id": str, "name": str, "head_turn_id": int, "head_turn": int, "forked_from": str,
         "forked_at": int, "created_at": str, "updated_at": str},
        pk=("campaign_id", "name"), foreign_keys=[("campaign_id", "campaigns", "id")])
    db["branch_turns"].create({"campaign_id": str, "branch": str, "turn_number": int, "turn_id": int},
                              pk=("campaign_id", "branch", "turn_number"),
                              foreign_keys=[("campaign_id", "campaigns", "id")])
    db["branch_turns"].create_index(["turn_id"])
    db.execute("INSERT INTO branches (campaign_id, name, head_turn_id, head_turn, created_at, updated_at) SELECT c.id, "
               "'main', COALESCE((SELECT t.turn_id FROM turns t WHERE t.campaign_id = c.id AND t.turn_number = "
               "c.turn_number), 0), c.turn_number, c.created_at, c.updated_at FROM campaigns c")
    db.execute("INSERT INTO branch_turns (campaign_id, branch, turn_number, turn_id) SELECT campaign_id, 'main', "
               "turn_number, turn_id FROM turns ORDER BY campaign_id, turn_number")


def m013_setup_sessions(db: sqlite_utils.Database) -> None:
    """Guided creation's unfinished sessions in the store, so any API worker answers a session's next message
    (``store.setup_sessions``): the session's state as JSON, its message count, and a lease while one is answered."""
    db["setup_sessions"].create(
        {"id": str, "pack_id": str, "seed": int, "state": str, "messages": int, "touched_at": str,
         "busy_until": str},
        pk="id", not_null={"pack_id", "state", "messages", "touched_at"},
    )
    db["setup_sessions"].create_index(["touched_at"])


def m014_unique_variants(db: sqlite_utils.Database) -> None:
    """One dice variant per turn played from a turn: ``(campaign_id, parent_turn_id, variant)`` is unique. Turns that
    two branches played at once from one turn before this could share a variant; the later ones (by ``turn_id``)
    take the next free variants first (:func:`renumber_shared_variants`), so ``/pick K`` names one turn again."""
    renumber_shared_variants(db.conn, "?")
    db["turns"].create_index(["campaign_id", "parent_turn_id", "variant"], unique=True)


def renumber_shared_variants(conn, mark: str) -> int:
    """Give every turn that shares its (campaign, parent, variant) with an older turn the next free variant of its
    parent, oldest first; ``mark`` is the driver's placeholder (``?`` for SQLite, ``%s`` for psycopg). Returns how
    many turns were renumbered. Used by the SQLite migration and the PostgreSQL upgrade alike."""
    shared = conn.execute(
        "SELECT t.turn_id, t.campaign_id, t.parent_turn_id FROM turns t WHERE EXISTS (SELECT 1 FROM turns o WHERE "
        "o.campaign_id = t.campaign_id AND o.parent_turn_id = t.parent_turn_id AND o.variant = t.variant AND "
        "o.turn_id < t.turn_id) ORDER BY t.turn_id").fetchall()
    for turn_id, campaign_id, parent in shared:
        conn.execute(f"UPDATE turns SET variant = (SELECT MAX(variant) + 1 FROM turns WHERE campaign_id = {mark} AND "
                     f"parent_turn_id = {mark}) WHERE turn_id = {mark}", (campaign_id, parent, turn_id))
    return len(shared)


MIGRATIONS = (m001_initial, m002_retrieval, m003_api, m004_views, m005_offer, m006_quest_hints, m007_episodes,
              m008_scene_briefs, m009_scenes, m010_profiles, m011_snapshots, m012_timelines, m013_setup_sessions,
              m014_unique_variants)
SCHEMA_VERSION = len(MIGRATIONS)
# The tables a save file of SCHEMA_VERSION has (tests/test_fsck.py holds this to what the migrations create): one
# missing is damage no other table can repair (store.fsck, and every open of an up-to-date file).
TABLES = ("api_idempotency", "api_tokens", "branch_turns", "branches", "campaigns", "characters",
          "episode_evaluations", "inventory", "known_npcs", "party", "quests", "reputation", "setup_sessions",
          "turn_dialogue", "turn_events", "turn_memories", "turn_snapshots", "turns", "world_state")


def missing(have: list[str]) -> list[str]:
    """The tables of this schema (:data:`TABLES`) not among ``have`` (a store's tables, as its backend lists them)."""
    present = set(have)
    return [t for t in TABLES if t not in present]


CURRENT_SCHEMA = Path(__file__).with_name("current_schema.sql")
MIGRATION_SET = "skald"  # the ``migration_set`` sqlite-utils records each applied migration under


def registry() -> Migrations:
    """The migrations as a ``sqlite_utils.Migrations`` set, in order."""
    from sqlite_utils import Migrations

    migrations = Migrations(MIGRATION_SET)
    for step in MIGRATIONS:
        migrations()(step)
    return migrations


def migrate(conn: sqlite3.Connection) -> int:
    """Apply pending migrations; return the schema version (number of applied migrations). A new, empty database
    gets :data:`CURRENT_SCHEMA` instead, with the same result."""
    if schema_version(conn) == SCHEMA_VERSION:
        return SCHEMA_VERSION
    if _empty(conn):
        return create_current(conn)
    import sqlite_utils

    migrations = registry()
    db = sqlite_utils.Database(conn)
    migrations.apply(db)
    version = len(migrations.applied(db))
    conn.execute(f"PRAGMA user_version = {version}")
    return version


def create_current(conn: sqlite3.Connection) -> int:
    """Give an empty database the current schema in one transaction: the DDL of :data:`CURRENT_SCHEMA`, every
    migration recorded as applied (as ``sqlite_utils.Migrations.apply`` records it), and ``user_version``. A crash
    part-way leaves the file empty. Returns :data:`SCHEMA_VERSION`.

    :raises sqlite3.Error: the script does not run (the database was not empty).
    """
    applied_at = str(datetime.datetime.now(datetime.UTC))
    rows = ",\n".join(f"('{MIGRATION_SET}', '{step.__name__}', '{applied_at}')" for step in MIGRATIONS)
    conn.executescript(f"BEGIN;\n{CURRENT_SCHEMA.read_text(encoding='utf-8')}\n"
                       f"INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES\n{rows};\n"
                       f"PRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;")
    return SCHEMA_VERSION


def dump_schema(conn: sqlite3.Connection) -> str:
    """The DDL that recreates ``conn``'s tables, indexes, views and triggers (not SQLite's own ``sqlite_*`` tables),
    tables first, each kind in the order it was made."""
    order = {"table": 0, "index": 1, "view": 2, "trigger": 3}
    rows = conn.execute("SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
                        "ORDER BY rowid").fetchall()
    return "".join(f"{sql};\n" for _kind, sql in sorted(rows, key=lambda row: order[row[0]]))


def migrated_schema() -> str:
    """What :data:`CURRENT_SCHEMA` should hold: a header, then the DDL the migrations produce on an empty in-memory
    database, run through sqlite-utils."""
    import sqlite_utils

    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        registry().apply(sqlite_utils.Database(conn))
        return ("-- The schema a new SQLite save file gets: what skald.store.schema's migrations leave.\n"
                "-- Generated by `python -m skald.store.schema`; do not edit by hand.\n" + dump_schema(conn))
    finally:
        conn.close()


def _empty(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0


def schema_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


if __name__ == "__main__":  # python -m skald.store.schema: rewrite current_schema.sql from the migrations
    CURRENT_SCHEMA.write_text(migrated_schema(), encoding="utf-8")
