"""Recording a play session and replaying a recording against the current engine.

``Recorder`` wraps a play session: each turn's input, LLM exchanges and committed outcome are appended to
the recording (rewritten after every turn, so an interrupted session keeps what it played).
``replay`` re-runs a recording's inputs on a fresh save file in a temporary folder, serving every LLM reply from the
recording through the real client, and compares each committed outcome with the recorded one.
"""

from __future__ import annotations

import difflib
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from skald import __version__
from skald import creation as guided
from skald.core.pack import EraPack
from skald.core.state import GameState
from skald.engine import Engine, Played
from skald.errors import SkaldError
from skald.llm.client import LLMClient
from skald.packs.loader import get_pack
from skald.rag.handle import private_index
from skald.replay.recording import FILE, FORMAT, RESUME, Exchange, Recording, Turn, outcome_of, read, resumed_outcome
from skald.replay.transports import RecordingTransport, ReplayTransport
from skald.settings import ROLES, Settings
from skald.text import sentences

ROLE_SETTINGS = ("model", "temperature", "num_ctx", "num_predict", "timeout_s", "attempts", "enabled")
GLOBAL_SETTINGS = ("retries", "retry_backoff_s", "breaker_failures", "breaker_seconds", "max_input_chars")
REPLAY_URL = "http://replay.invalid:11434"  # never contacted: the replay transport answers every request


def settings_block(settings: Settings) -> dict[str, Any]:
    """The settings that shape LLM behaviour, for the header (so a replay calls the roles the same way)."""
    roles = {role: {key: getattr(settings.role(role), key) for key in ROLE_SETTINGS} for role in ROLES}
    return {"roles": roles, **{key: getattr(settings, key) for key in GLOBAL_SETTINGS}}


def settings_from(block: dict[str, Any], online: bool) -> Settings:
    kwargs: dict[str, Any] = {key: block[key] for key in GLOBAL_SETTINGS if key in block}
    for role, values in block.get("roles", {}).items():
        kwargs |= {f"{role}_{key}": value for key, value in values.items()}
    return Settings(llm="on" if online else "off", ollama_base_url=REPLAY_URL, **kwargs)


def source_of(llm: LLMClient, scripted: bool) -> str:
    if not llm.online:
        return "offline"
    return "scripted" if scripted else f"ollama:{llm.config('narrator').model}"


class Recorder:
    """Record the turns played through ``play`` into ``folder/session.jsonl``."""

    def __init__(self, folder: Path, pack: EraPack, state: GameState, llm: LLMClient,
                 transport: RecordingTransport | None, *, source: str, retrieval: bool = False,
                 setup: dict[str, Any] | None = None):
        self.folder = folder
        self.transport = transport
        player = state.player
        self.recording = Recording(header={
            "kind": "header", "format": FORMAT, "pack": pack.id, "pack_hash": pack.content_hash,
            "seed": state.campaign.seed, "background": player.background, "name": player.name,
            "campaign": state.campaign.id, "engine": __version__, "source": source,
            "models": {role: llm.config(role).model for role in ROLES},
            "retrieval": retrieval,
            "settings": settings_block(llm.settings),
        } | ({"setup": setup} if setup else {}))
        self.llm = llm
        llm.briefs.settle()  # the opening brief, written as the campaign was created
        self.recording.opening = transport.take(0) if transport is not None else []
        self.recording.write(folder)

    def play(self, step: Callable[[str], Played], text: str) -> Played:
        """Play ``text`` with ``step`` (a session's play function) and record it, errors included."""
        number = len(self.recording.turns) + 1
        if self.transport is not None:
            self.transport.begin_turn(number)
        turn = Turn(number=number, input=text)
        try:
            played = step(text)
        except SkaldError as exc:
            turn.outcome = {"error": str(exc)}
            self._keep(turn)
            raise
        finally:
            self.llm.briefs.settle()  # a brief started after this turn is this turn's call
        turn.outcome = outcome_of(played)
        self._keep(turn)
        return played

    def begin_resume(self) -> None:
        """The save is about to be closed and opened again: calls from now on belong to the resume step."""
        if self.transport is not None:
            self.transport.begin_turn(len(self.recording.turns) + 1)

    def resume(self, scene: Any) -> None:
        """Record that the save was closed and opened again (after :meth:`begin_resume`), and the scene the resumed
        game showed."""
        self.llm.briefs.settle()
        self._keep(Turn(number=len(self.recording.turns) + 1, input=RESUME, outcome=resumed_outcome(scene)))

    def _keep(self, turn: Turn) -> None:
        turn.exchanges = self.transport.take(turn.number) if self.transport is not None else []
        self.recording.turns.append(turn)
        self.recording.write(self.folder)


def created_by(engine: Engine, campaign: str) -> dict[str, Any]:
    """What guided creation made, as a recording's header keeps it and a replay compares it: the campaign id, the
    character's name, background and profile."""
    player = engine.load(campaign).player
    return {"campaign": campaign, "profile": player.profile.model_dump(), "name": player.name,
            "background": player.background}


def recording_transport(inner: httpx.BaseTransport | None = None) -> RecordingTransport:
    return RecordingTransport(inner or httpx.HTTPTransport())


# ---------------------------------------------------------------------------------------------- replay


@dataclass
class Difference:
    turn: int
    input: str
    field: str
    diff: str


@dataclass
class ReplayReport:
    path: Path
    turns: int = 0
    differences: list[Difference] = field(default_factory=list)
    prompt_diffs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.differences or self.prompt_diffs or self.problems)

    def render(self) -> str:
        """A readable report: the first differing turn with a unified diff per field, then prompt diffs."""
        head = f"{self.path}: {self.turns} turns"
        lines = [f"{head}: ok" if self.ok else f"{head}: MISMATCH"] + [f"  note: {n}" for n in self.notes]
        lines += [f"  {p}" for p in self.problems]
        if self.differences:
            first = self.differences[0].turn
            shown = [d for d in self.differences if d.turn == first]
            others = sorted({d.turn for d in self.differences} - {first})
            lines.append(f"  first difference at turn {first} ({shown[0].input!r}): "
                         f"{', '.join(d.field for d in shown)}")
            lines += [d.diff for d in shown]
            if others:
                lines.append(f"  later turns that also differ: {', '.join(map(str, others))}")
        if self.prompt_diffs:
            lines.append(f"  {len(self.prompt_diffs)} LLM prompt(s) changed; the first:")
            lines.append(self.prompt_diffs[0])
        return "\n".join(lines)


def _pretty(value: Any) -> list[str]:
    """Lines to diff: prose one sentence per line, anything else as indented JSON."""
    if isinstance(value, str):
        return sentences(value) or [value]
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False).splitlines()


def _field_diff(turn: int, name: str, expected: Any, actual: Any) -> str:
    return "\n".join(difflib.unified_diff(_pretty(expected), _pretty(actual), f"recorded turn {turn} {name}",
                                         f"replayed turn {turn} {name}", lineterm=""))


def _prompt_text(request: dict[str, Any]) -> list[str]:
    out = [f"model: {request.get('model')}", f"options: {json.dumps(request.get('options'), sort_keys=True)}"]
    if request.get("format") is not None:  # the JSON schema of a structured reply
        out += ["format:", *json.dumps(request["format"], indent=1, sort_keys=True).splitlines()]
    for message in request.get("messages") or []:
        out.append(f"[{message.get('role')}]")
        out += str(message.get("content", "")).splitlines()
    return out


def compare(turn: Turn, actual: dict[str, Any]) -> list[Difference]:
    keys = list(dict.fromkeys([*turn.outcome, *actual]))
    return [Difference(turn.number, turn.input, key, _field_diff(turn.number, key, turn.outcome.get(key),
                                                                 actual.get(key)))
            for key in keys if turn.outcome.get(key) != actual.get(key)]


def replay(folder: Path, *, update: bool = False, check: Callable[[Engine], None] | None = None) -> ReplayReport:
    """Replay one recording. With ``update``, rewrite its outcomes (and changed prompts) from this replay.
    ``check(engine)`` runs on the replayed save (the recorded campaign id, ``replay`` in older recordings) before it
    is closed, for tests.

    :raises RecordingError: the recording cannot be read.
    """
    recording = read(folder)
    report = ReplayReport(path=folder)
    header = recording.header
    pack = get_pack(header["pack"])
    if pack.content_hash != header["pack_hash"]:
        report.notes.append(f"pack {pack.id} changed since recording ({header['pack_hash']} -> {pack.content_hash})")
    online = header["source"] != "offline"
    transport = ReplayTransport([*recording.opening, *(x for t in recording.turns for x in t.exchanges)]) \
        if online else None
    llm = LLMClient(settings_from(header["settings"], online), online=online, transport=transport,
                    sleep=lambda seconds: None)
    retriever = private_index([pack]) if header.get("retrieval") else None
    folder_tmp = tempfile.TemporaryDirectory(prefix="skald-replay-")  # a save file that a resume step reopens
    save = Path(folder_tmp.name) / "replay.db"
    campaign = header.get("campaign", "replay")

    def opened() -> Engine:
        return Engine(save, llm=llm, retriever=retriever, resume=lambda cid: f"skald play --campaign {cid} --db {save}")

    if header.get("setup"):  # guided creation, as `skald new -I` ran it, then the save opened to play
        setup = header["setup"]
        made, campaign = guided.run(save, llm, pack.id, header["seed"], False, guided.lines_of(iter(setup["inputs"])),
                                    lambda _line: None, retriever=retriever)
        actual = created_by(made, campaign)
        made.close()
        expected = {key: setup.get(key) for key in actual}
        report.differences += compare(Turn(0, "skald new", [], expected), actual)
        engine = opened()
        engine.scene(campaign)
    else:
        engine = opened()
        engine.create_campaign(pack.id, seed=header["seed"], background=header["background"], name=header["name"],
                               campaign_id=campaign)
    engine.settle()  # the opening brief (turn 0)
    opening = [x for x in transport.served if x.turn == 0] if transport is not None else []
    for recorded in transport.unused(0) if transport is not None else []:
        report.problems.append(f"campaign start: recorded {recorded.role} call #{recorded.seq} was not made")
    updated: list[Turn] = []
    try:
        for turn in recording.turns:
            if transport is not None:
                transport.begin_turn(turn.number)
            if turn.input == RESUME:  # the player quit and came back: a new engine on the same save file
                engine.close()
                engine = opened()
                actual = resumed_outcome(engine.scene(campaign))
            else:
                try:
                    actual = outcome_of(engine.play_turn(campaign, turn.input))
                except SkaldError as exc:
                    actual = {"error": str(exc)}
            engine.settle()  # a brief started after this turn is this turn's call, as it was when recorded
            report.turns += 1
            report.differences += compare(turn, actual)
            served: list[Exchange] = []
            if transport is not None:
                served = [x for x in transport.served if x.turn == turn.number]
                for recorded in transport.unused(turn.number):
                    report.problems.append(f"turn {turn.number}: recorded {recorded.role} call #{recorded.seq} "
                                           "was not made")
            updated.append(Turn(turn.number, turn.input, served, actual))
        if check is not None:
            check(engine)
    finally:
        engine.close()
        folder_tmp.cleanup()
    if transport is not None:
        for turn_no, role, seq, _ in transport.unexpected:
            report.problems.append(f"turn {turn_no}: {role} call #{seq} is not in the recording (re-record it)")
        for recorded, body in transport.prompt_changes:
            diff = "\n".join(difflib.unified_diff(_prompt_text(recorded.request), _prompt_text(body),
                                                  f"recorded turn {recorded.turn} {recorded.role} prompt",
                                                  f"replayed turn {recorded.turn} {recorded.role} prompt",
                                                  lineterm=""))
            report.prompt_diffs.append(diff)
    if update:
        if transport is not None and transport.unexpected:
            report.notes.append("not updated: the engine now makes LLM calls the recording has no reply for; "
                                "record the session again")
        else:
            Recording(header=header | {"pack_hash": pack.content_hash, "engine": __version__},
                      turns=updated, opening=opening).write(folder if folder.is_dir() else folder.parent)
            report.notes.append(f"updated {FILE} from this replay")
            report.differences, report.prompt_diffs, report.problems = [], [], []
    return report


def find_recordings(paths: list[Path]) -> list[Path]:
    """Recording folders named, or found one level below a named folder (e.g. ``data/recordings``)."""
    out = []
    for path in paths:
        if (path / FILE).exists() or path.is_file():
            out.append(path)
        elif path.is_dir():
            out += sorted(p for p in path.iterdir() if (p / FILE).exists())
    return out
