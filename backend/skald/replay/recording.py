"""The recording format: one JSON object per line, keys in a fixed order, readable in a review diff.

``session.jsonl`` in a recording folder holds, in order:

- one ``header``: format version, pack id and content hash, seed, background, character name, engine version,
  LLM source (``ollama:<model>``, ``scripted`` or ``offline``), the model per role and the settings that
  shape LLM behaviour (attempts, retries, breaker);
- turn 0 (optional, right after the header): ``llm`` lines of the calls made as the campaign was created (the
  Director's opening brief);
- per turn: one ``input``; one ``llm`` line per HTTP exchange with Ollama (role, call order within the turn,
  the request and its hash, the response); one ``outcome`` with what the turn committed;
- where the player quit and came back, a step whose input is :data:`RESUME` and whose outcome is the scene the
  resumed game showed (``{"resumed": true, "scene": ...}``): a replay closes its engine and opens the save
  file again at that point.

Volatile values are left out: timestamps, latencies, Ollama's durations, ports in error messages, seconds left on
an open circuit breaker and the path of the (temporary) save file.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skald.engine import Played


FORMAT = 1
FILE = "session.jsonl"
RESUME = "(resume)"  # the input of a resume step: the save was closed and opened again
_VOLATILE = [(re.compile(r"\(\d+ s left\)"), "(N s left)"), (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:PORT"),
             (re.compile(r"localhost:\d+"), "localhost:PORT"), (re.compile(r"--db \S+"), "--db SAVE")]
REQUEST_KEYS = ("model", "messages", "options", "format")


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def normalise(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def request_of(body: dict[str, Any]) -> dict[str, Any]:
    """The parts of an ``/api/chat`` body that decide the reply, in a fixed order."""
    return {key: body.get(key) for key in REQUEST_KEYS}


def request_hash(request: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def outcome_of(played: Played) -> dict[str, Any]:
    """What a turn committed, in a fixed key order: the turn's view (as the player saw it, less the campaign id and
    the input, which the recording holds already), the events it staged, its LLM calls as ``role:outcome``, and,
    when the index gave the prompts lore, the ids of the chunks it gave (``lore``: the retrieval a replay must
    reproduce, compared by id, never by the embeddings' floats, which may differ in their last bits between CPUs)."""
    body = {k: v for k, v in played.body.items() if k not in ("campaign_id", "input")}
    state = played.state
    cited = {"lore": list(state.lore_citations)} if state is not None and state.lore_citations else {}
    return body | {
        "text": normalise(body.get("text", "")),  # a /quit names the save file, which is a temporary one
        "warnings": [normalise(w) for w in body.get("warnings", [])],
        "events": [{"type": e.type, "data": e.data} for e in state.staged_events] if state else [],
        "llm_calls": [f"{c.role}:{c.outcome}" for c in state.llm_calls] if state else [],
    } | cited


def resumed_outcome(scene: Any) -> dict[str, Any]:
    """The outcome of a resume step: the scene view (text, four suggestions, status) the resumed game showed."""
    return {"resumed": True, "scene": scene.model_dump(mode="json")}


@dataclass
class Exchange:
    """One HTTP exchange with Ollama's ``/api/chat``."""

    turn: int
    role: str
    seq: int
    request: dict[str, Any]
    response: dict[str, Any]  # {"status": int, "lines": [...]} or {"status": int, "error": str} or {"raise": name}

    def line(self) -> dict[str, Any]:
        return {"kind": "llm", "turn": self.turn, "role": self.role, "seq": self.seq,
                "request_hash": request_hash(self.request), "request": self.request, "response": self.response}


@dataclass
class Turn:
    number: int
    input: str
    exchanges: list[Exchange] = field(default_factory=list)
    outcome: dict[str, Any] = field(default_factory=dict)


@dataclass
class Recording:
    header: dict[str, Any]
    turns: list[Turn] = field(default_factory=list)
    opening: list[Exchange] = field(default_factory=list)  # turn 0: the calls made as the campaign was created

    def lines(self) -> list[str]:
        out = [dumps(self.header), *(dumps(x.line()) for x in self.opening)]
        for turn in self.turns:
            out.append(dumps({"kind": "input", "turn": turn.number, "text": turn.input}))
            out += [dumps(x.line()) for x in turn.exchanges]
            out.append(dumps({"kind": "outcome", "turn": turn.number, **turn.outcome}))
        return out

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / FILE
        path.write_text("\n".join(self.lines()) + "\n", encoding="utf-8")
        return path


class RecordingError(ValueError):
    """A recording that cannot be read; the message names the file and line."""


def read(folder: Path) -> Recording:
    """Read ``folder/session.jsonl``. :raises RecordingError: missing file or malformed line."""
    path = folder / FILE if folder.is_dir() else folder
    if not path.exists():
        raise RecordingError(f"{path}: no recording here (expected {FILE})")
    recording: Recording | None = None
    turns: dict[int, Turn] = {}
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
            kind = line["kind"]
            if kind == "header":
                if line.get("format") != FORMAT:
                    raise RecordingError(f"{path}:{number}: format {line.get('format')!r}, expected {FORMAT}")
                recording = Recording(header=line)
            elif kind == "input":
                turns[line["turn"]] = Turn(number=line["turn"], input=line["text"])
            elif kind == "llm":
                if recording is None:
                    raise RecordingError(f"{path}: no header line")
                exchange = Exchange(line["turn"], line["role"], line["seq"], line["request"], line["response"])
                (recording.opening if line["turn"] == 0 else turns[line["turn"]].exchanges).append(exchange)
            elif kind == "outcome":
                turns[line["turn"]].outcome = {k: v for k, v in line.items() if k not in ("kind", "turn")}
            else:
                raise RecordingError(f"{path}:{number}: unknown line kind {kind!r}")
        except (json.JSONDecodeError, KeyError) as exc:
            raise RecordingError(f"{path}:{number}: malformed line ({type(exc).__name__}: {exc})") from None
    if recording is None:
        raise RecordingError(f"{path}: no header line")
    recording.turns = [turns[n] for n in sorted(turns)]
    return recording
