"""``skald doctor --play``: a model acceptance run. Plays a fixed script of ordinary play (:data:`SCRIPT`, 20 story
turns on the default pack: talk, questions, buying, travel, checks, a two-person scene, a line only the interpreter
reads, an episode's end) against the Ollama the settings name (``SKALD_OLLAMA_BASE_URL``, the per-role models and
keys), with retrieval as configured, on a throwaway save file in a temporary folder (never the player's), through
the engine facade as ``skald play`` does. What every role did is read from each turn's call records
(``state.llm_calls``, the Director's background briefs included) and from the requests themselves
(``llm.prompt_cache.PromptLedger``, under every role's client); ``llm.acceptance`` turns them into the report.

Between turns the run waits for the Director's background brief (as a player reading the turn would, and as
recordings do), so every call belongs to a turn and the counts do not depend on the machine's speed.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from skald.cli.doctor import Check, check_lines, ollama_checks
from skald.core.records import LLMCall
from skald.core.views import PROSE_REPLACED
from skald.core.vocab import Intent
from skald.errors import SkaldError
from skald.llm.acceptance import ORDER, Report, RoleFigures
from skald.llm.client import LLMClient
from skald.llm.prompt_cache import PromptLedger
from skald.packs.loader import DATA_DIR
from skald.settings import Settings
from skald.text import sentences

SCRIPT = DATA_DIR / "scripts" / "doctor_play.txt"
SEED = 1
REPLACED = f"validator: {PROSE_REPLACED}"  # the validator replaced prose that told the outcome wrongly


class Unreachable(Exception):
    """Ollama does not answer at one of the URLs the enabled roles use. ``checks`` say where, with the fix."""

    def __init__(self, checks: list[Check]):
        super().__init__("; ".join(c.what for c in checks))
        self.checks = checks


def script_lines(path: Path = SCRIPT) -> list[str]:
    """The script's inputs, one a line, blank lines left out."""
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def servers(settings: Settings) -> list[Check]:
    """``skald doctor``'s Ollama checks (``cli.doctor.ollama_checks``): Ollama answers at every URL, each enabled
    role's model is pulled there.

    :raises Unreachable: a URL does not answer (each such URL, with the command that fixes it).
    """
    checks = ollama_checks(settings)
    missing = [c for c in checks if c.unreachable]
    if missing:
        raise Unreachable(missing)
    return checks


def play(settings: Settings, progress: Callable[[str], None] = lambda _line: None, script: Path = SCRIPT,
         ledger: PromptLedger | None = None) -> Report:
    """Play ``script`` against the configured Ollama and measure every role (see the module docstring).

    :param progress: called with a line after each turn (the input and its seconds), for a terminal to show.
    :param ledger: the transport under every role's client (default: a new one over real HTTP).
    :raises Unreachable: Ollama does not answer at a URL an enabled role uses (nothing is played).
    """
    from skald.cli.session import Session
    from skald.llm.briefs import holder
    from skald.store.timeline import MAIN

    checks = servers(settings)
    notes: list[str] = []
    ledger = ledger or PromptLedger()
    llm = LLMClient(settings, online=True, transport=ledger)
    lines = script_lines(script)
    calls: list[LLMCall] = []
    story: list[str] = []
    warnings: list[str] = []
    replaced = turns = 0
    settle_s = max(cfg.timeout_s for cfg in llm.configs.values()) + 1.0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="skald-doctor-") as folder:
        session = Session.open(Path(folder) / "doctor.db", llm, pack_id=settings.default_pack, seed=SEED,
                               retriever=True)
        try:
            for number, line in enumerate(lines, 1):
                session.engine.settle(settle_s)  # the Director's brief of the last turn: a player reads meanwhile
                began = time.monotonic()
                try:
                    played = session.play(line, on_token=lambda _token: None)  # streamed, as in a terminal
                except SkaldError as exc:
                    notes.append(f"turn {number} ({line!r}) was not played: {exc}")
                    continue
                state, view = played.state, played.view
                if state is not None:
                    calls += state.llm_calls
                    warnings += state.warnings
                    replaced += any(w.startswith(REPLACED) for w in state.warnings)
                if view is not None and view.intent != Intent.META:
                    turns += 1
                    story += sentences(view.text)
                progress(f"turn {number}/{len(lines)}: {line} ({time.monotonic() - began:.1f} s)")
            session.engine.settle(settle_s)
            for briefing in llm.briefs.unreported(holder(session.campaign_id, MAIN)):  # the last turn's brief
                calls += briefing.calls
        finally:
            session.close()
    retrieval = "off" if not settings.retrieval else f"on (index {settings.chroma_path})"
    header = [f"skald doctor --play: {turns} story turns of {script.name} on {settings.default_pack} (seed {SEED}) in "
              f"{time.monotonic() - started:.0f} s; retrieval {retrieval}", *check_lines(checks)]
    roles = []
    for role in ORDER:
        cfg = llm.configs[role]
        figures = RoleFigures(role, cfg.model, cfg.enabled, [c for c in calls if c.role == role],
                              [s for s in ledger.sent if s.role == role])
        if role == "narrator":
            figures.replaced, figures.sentences = replaced, (len(set(story)), len(story))
        roles.append(figures)
    return Report(header, roles, notes, list(dict.fromkeys(w for w in warnings if w.startswith("retrieval:"))), turns)
