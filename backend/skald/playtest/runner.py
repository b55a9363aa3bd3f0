"""Playing the campaigns: each through the engine facade (``skald.engine.Engine``: ``create_campaign``,
``play_turn``), offline (the offline narrator; no model, no lore index), on its own SQLite save file in a temporary
folder, in worker processes.

Reproducible: campaign ``i`` of a run seeded ``S`` is the campaign seeded ``S + i``, and its player's choices come
from ``random.Random`` seeded from that same number (:func:`rng_for`), so ``--campaigns 1 --seed S+i`` plays it
again, turn for turn. The engine's own dice are the campaign seed's (``rules.dice.turn_rng``).

Every :data:`LOG_EVERY` lines and at the end of each campaign the stored event log is folded and compared with the
committed state (``playtest.eventlog``), through the engine's own connection pool.
"""

from __future__ import annotations

import random
import tempfile
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from skald.core.pack import EraPack
from skald.playtest import checks, eventcheck, eventlog, invariants, policies, softlocks
from skald.playtest.record import CampaignRecord, note_turn

Progress = Callable[[int, int], None]  # (campaigns done, campaigns in all)
LOG_EVERY = 25  # lines: how often the event log is folded and compared with the state (and at the end)


@dataclass(frozen=True)
class CampaignSpec:
    """One campaign to play: the pack as given (an id or a folder), its index in the run, its seed and policy, how
    many lines to type (``turns``) and the folder its save file goes in."""

    pack: str
    index: int
    seed: int
    policy: str
    turns: int
    folder: str


def rng_for(seed: int) -> random.Random:
    """The machine player's random numbers for the campaign seeded ``seed`` (independent of the process's hash
    seed: a string seed is hashed with SHA-512)."""
    return random.Random(f"skald-playtest:{seed}")


def specs(pack: str, campaigns: int, turns: int, policy: str, seed: int, folder: str) -> list[CampaignSpec]:
    """The run's campaigns: campaign ``i`` seeded ``seed + i``, playing ``policies.policy_name(policy, i)``."""
    return [CampaignSpec(pack, i, seed + i, policies.policy_name(policy, i), turns, folder) for i in range(campaigns)]


def play_all(pack: str, campaigns: int, turns: int, policy: str, seed: int, workers: int,
             progress: Progress | None = None) -> tuple[list[CampaignRecord], float]:
    """Play the run; (the records in campaign order, wall seconds). ``workers`` <= 1 plays in this process."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="skald-playtest-") as folder:
        todo = specs(pack, campaigns, turns, policy, seed, folder)
        if workers <= 1:
            records = []
            for spec in todo:
                records.append(play_campaign(spec))
                if progress:
                    progress(len(records), len(todo))
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = [pool.submit(play_campaign, spec) for spec in todo]
                for done, _ in enumerate(as_completed(futures), 1):
                    if progress:
                        progress(done, len(todo))
                records = [f.result() for f in futures]
    return records, time.perf_counter() - started


def play_campaign(spec: CampaignSpec) -> CampaignRecord:
    """Play one campaign on a new save file (deleted afterwards) and return what it reached and broke."""
    from skald.engine import Engine
    from skald.llm.client import LLMClient
    from skald.packs.cache import PackCache
    from skald.settings import Settings

    record = CampaignRecord(spec.index, spec.seed, spec.policy)
    db = Path(spec.folder) / f"campaign-{spec.index}.db"
    engine = Engine(db, llm=LLMClient(Settings(), online=False), retriever=None, packs=PackCache(allow_paths=True))
    try:
        _play(engine, spec, record)
    finally:
        engine.close()
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    return record


@dataclass
class _Seen:
    """What the player saw last, carried from one line to the next."""

    suggestions: tuple[str, ...]
    text: str
    present: tuple[tuple[str, str], ...]
    last_input: str = ""
    last_intent: str | None = None
    next_episode: str | None = None


def _play(engine, spec: CampaignSpec, record: CampaignRecord) -> None:
    from skald.errors import PlayerInputError
    from skald.settings import get_settings

    pack = engine.packs.get(spec.pack)
    created = engine.create_campaign(spec.pack, seed=spec.seed, campaign_id=f"playtest-{spec.seed}")
    state, campaign = created.state.persistent(), created.state.campaign.id
    seen = _Seen(tuple(s.label for s in created.scene.suggestions), created.scene.text,
                 _people_at(pack, state, state.location))
    player, rng, repeats = policies.make(spec.policy), rng_for(spec.seed), checks.Repeats()
    record.visited.add(state.location)
    record.visits[state.location] += 1
    addressed: set[str] = set()
    max_chars = get_settings().max_input_chars
    started = time.perf_counter()
    for step in range(1, spec.turns + 1):
        line = player.choose(policies.Observation(
            pack, step, state, seen.suggestions, seen.text, seen.last_input, seen.last_intent, seen.present,
            frozenset(record.visited), frozenset(addressed), seen.next_episode, max_chars), rng)
        record.steps, seen.last_input = step, line
        before = time.perf_counter()
        try:
            played = engine.play_turn(campaign, line)
        except PlayerInputError:
            record.rejected += 1
            continue
        except Exception as exc:  # a crash is a defect of the engine: noted, and the campaign ends there
            record.defect("crash", f"{type(exc).__name__}: {exc}"[:160], _crash(exc, line), step)
            break
        finally:
            record.engine_seconds += time.perf_counter() - before
        record.turns += 1
        clock, before_hp = state.world.time_minutes, (state.player.hp, state.player.max_hp)
        for key, detail in eventcheck.condition_failures(state, list(played.state.staged_events), pack):
            record.defect("event_condition", key, detail, step)
        state = played.state.persistent()
        _inspect(record, played, pack, step, clock, repeats, before_hp)
        target = played.state.router_output.target_npc if played.state.router_output else None
        if target:
            addressed.add(target)
        view = played.view
        ended = view.episode is not None and view.episode.ended and view.episode.evaluation is not None
        seen = _Seen(tuple(s.label for s in view.suggestions), view.text, _present(pack, played.state), line,
                     view.intent.value if view.intent else None,
                     view.episode.evaluation.next_episode if ended else None)
    _check_log(engine, campaign, pack, record, record.steps)
    record.seconds = time.perf_counter() - started


def _check_log(engine, campaign: str, pack: EraPack, record: CampaignRecord, step: int) -> None:
    """Fold the stored event log and compare it with the committed state (after line ``step``)."""
    with engine.pool.connection() as conn:
        found = eventlog.mismatches(conn, campaign, pack)
    for key, detail in found:
        record.defect("log_mismatch", key, detail, step)


def _inspect(record: CampaignRecord, played, pack: EraPack, step: int, clock: int, repeats: checks.Repeats,
             before_hp: tuple[int, int]) -> None:
    """Every check of one played turn, noted in ``record`` (``clock``, ``before_hp``: the world clock and the
    player's (HP, max HP) before it)."""
    view, final = played.view, played.state
    note_turn(record, list(final.staged_events), view.state.location, pack)
    present = [(n.id, n.companion) for n in final.present_npcs]
    for key, detail in invariants.broken(final, pack, clock, present):
        record.defect("invariant", key, detail, step)
    for key, detail in softlocks.soft_locks(final, pack):
        record.defect("soft_lock", key, detail, step)
    for key, detail in checks.idle_wins(list(final.staged_events), record.policy, pack):
        record.defect("idle_win", key, detail, step)
    if view.intent is None or view.intent.value == "META":
        return
    for key, detail in checks.refused(view.text, view.input, record.policy):
        record.defect("refused_input", key, detail, step)
    for key, detail in checks.missing_outcome(list(final.staged_events), final.final_text, list(final.warnings),
                                              *before_hp, pack):
        record.defect("missing_outcome", key, detail, step)
    summary = view.mechanic.summary if view.mechanic else ""
    for key, detail in repeats.told(view.text, summary, step):
        record.defect("repeated_sentence", key, detail, step)


def _crash(exc: BaseException, line: str) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"the engine raised {type(exc).__name__}{where} on {line[:80]!r}: {exc}"[:400]


def _present(pack: EraPack, state) -> tuple[tuple[str, str], ...]:
    """(id, name) of the pack's people the turn put on stage."""
    return tuple((n.id, n.name) for n in state.present_npcs if not n.procedural and pack.person(n.id) is not None)


def _people_at(pack: EraPack, state, location: str) -> tuple[tuple[str, str], ...]:
    """(id, name) of the pack's NPCs and companions placed at ``location`` (before the first turn puts anyone on
    stage)."""
    people = [*pack.npcs.values(), *pack.companions.values()]
    return tuple((p.id, p.name) for p in people if state.world.npc_locations.get(p.id, p.location) == location)
