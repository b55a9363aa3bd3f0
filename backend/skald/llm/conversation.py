"""One conversation runner for guided creation (``docs/setup.md``): Discuss -> Summarize -> Serialize.

- **Discuss**: the model talks with the user and may call the stage's read-only research tools (their results are
  fed back as tool messages) and ``ready_to_summarize``. It ends on the user's ``/done``, the model's
  ``ready_to_summarize()`` call, or after ``max_discuss_turns`` user messages (1 in direct mode, 10 interactive).
- **Summarize**: no tools; the model writes a short summary of what was settled (the user may read it).
- **Serialize**: only the stage's finalization tool is bound, and a call of it is required. Ollama ignores
  ``tool_choice``, so the runner enforces it: a reply without the call, a call of another tool, or arguments the
  stage's validator rejects get a tool result (``llm.feedback``: ``validation_failed`` with every issue, or
  ``tool_error``; ``action`` names the tool to call) and another attempt, up to the role's ``attempts``. Then
  :class:`ConversationError` (the caller decides: the designer stage stops, the player stage falls back to its
  question chain).

Tools are gated per phase through langchain's tool binding (``bind_tools``; only the phase's tools are bound).
System prompts are sandwiches: the phase's instructions first, the stage's context in the middle, a reminder of the
phase last. Tool call ids are renumbered (``call_1``, ``call_2``...) so that a conversation's requests are the same
on every run and a recording replays. Every call goes through :class:`~skald.llm.client.LLMClient` under the
``setup`` role: metered (:attr:`ConversationRunner.calls`) and, with a recording transport, recorded.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import BaseModel, ValidationError

from skald.core.records import LLMCall
from skald.llm import feedback as fb
from skald.llm import hygiene
from skald.llm.client import LLMClient, LLMUnavailable
from skald.rules import model_text, setup

ROLE = "setup"
DONE = "/done"
READY = "ready_to_summarize"
TOOL_ROUNDS = 4  # research calls the model may chain before it must answer the user
MAX_MESSAGE_CHARS = 2000


class Phase(StrEnum):
    DISCUSS = "discuss"
    SUMMARIZE = "summarize"
    SERIALIZE = "serialize"
    DONE = "done"


class ConversationError(Exception):
    """The conversation could not produce its artifact: the model never made a valid call of the finalization tool
    (``feedback`` holds the last result it was sent), or the model could not be reached."""

    def __init__(self, message: str, feedback: dict[str, Any] | None = None):
        super().__init__(message)
        self.feedback = feedback


class Invalid(Exception):
    """Raised by a finalization tool's ``run`` when the arguments do not validate: ``result`` is the
    ``validation_failed`` feedback to send back."""

    def __init__(self, result: dict[str, Any]):
        super().__init__(json.dumps(result)[:200])
        self.result = result


class Ready(BaseModel):
    """Call this when everything the conversation needs is settled."""


@dataclass(frozen=True)
class Tool:
    """A tool the model may call: its arguments' schema and what it does. ``run`` returns a JSON-ready result."""

    name: str
    description: str
    args: type[BaseModel]
    run: Callable[[BaseModel], Any]

    def spec(self) -> dict[str, Any]:
        """The OpenAI-style function spec ``bind_tools`` takes."""
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": schema}}

    def call(self, args: dict[str, Any]) -> Any:
        """Validate ``args`` and run. :raises Invalid: the arguments do not fit the schema (feedback inside)."""
        try:
            parsed = self.args.model_validate(args)
        except ValidationError:
            raise Invalid(fb.feedback(self.args, json.dumps(args), tool=self.name)) from None
        return self.run(parsed)


@dataclass
class Stage:
    """What a conversation is for: instructions per phase, the context (the pack, the rules), the research tools,
    and the finalization tool whose ``run`` validates and returns the artifact (or raises :class:`Invalid`)."""

    name: str
    instructions: dict[Phase, str]
    context: str
    research: list[Tool]
    finalize: Tool


@dataclass
class ConversationRunner:
    """Runs one :class:`Stage` with the ``setup`` role. Use :meth:`say` for each user message while :attr:`phase` is
    DISCUSS (or :meth:`direct` for direct mode), then :meth:`summarize` and :meth:`serialize`.

    :param interactive: 10 discuss turns at most (1 in direct mode), unless ``max_discuss_turns`` says otherwise.
    :param budget_s: seconds of wall clock one request may take in all (one :meth:`say`, with its tool rounds; one
        :meth:`summarize`; one :meth:`serialize`, with its attempts), as a turn's calls share ``turn_budget_s``;
        None: each call has only the role's ``timeout_s`` (the terminal, where the player watches it answer).
    """

    llm: LLMClient
    stage: Stage
    interactive: bool = True
    max_discuss_turns: int | None = None
    phase: Phase = Phase.DISCUSS
    history: list[BaseMessage] = field(default_factory=list)
    calls: list[LLMCall] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    transcript: list[tuple[str, str]] = field(default_factory=list, metadata={"doc": "(who, text) shown"})
    summary: str = ""
    turns: int = 0
    budget_s: float | None = None
    _ids: int = 0
    _deadline: float | None = None

    def __post_init__(self) -> None:
        if self.max_discuss_turns is None:
            self.max_discuss_turns = 10 if self.interactive else 1

    # ----------------------------------------------------------------------------------------- kept between requests

    def saved(self) -> dict[str, Any]:
        """The conversation as JSON-ready data (what :meth:`restore` takes back; the calls' metrics are not kept)."""
        from langchain_core.messages import messages_to_dict

        return {"phase": self.phase.value, "history": messages_to_dict(self.history), "warnings": self.warnings,
                "transcript": [list(t) for t in self.transcript], "summary": self.summary, "turns": self.turns,
                "ids": self._ids}

    def restore(self, saved: dict[str, Any]) -> ConversationRunner:
        """Continue the conversation :meth:`saved` returned (on this runner, built for the same stage); returns it."""
        from langchain_core.messages import messages_from_dict

        self.phase = Phase(saved["phase"])
        self.history = messages_from_dict(saved["history"])
        self.warnings = list(saved["warnings"])
        self.transcript = [(who, text) for who, text in saved["transcript"]]
        self.summary, self.turns, self._ids = saved["summary"], saved["turns"], saved["ids"]
        return self

    # ----------------------------------------------------------------------------------------- the phases

    def say(self, text: str) -> str:
        """One user message in Discuss; returns what the model answers (empty when the discussion ended).

        :raises ConversationError: the model cannot be reached.
        """
        if self.phase != Phase.DISCUSS:
            raise ConversationError(f"the discussion is over ({self.phase.value})")
        self._start_budget()
        text = " ".join(text.split())[:MAX_MESSAGE_CHARS]
        if text.lower() == DONE:
            self.phase = Phase.SUMMARIZE
            return ""
        self.turns += 1
        self.transcript.append(("user", text))
        self.history.append(HumanMessage(text))
        ready = Tool(READY, "Call when everything is settled and the summary can be written.", Ready,
                     lambda _: {"result": "accepted"})
        tools = {t.name: t for t in [*self.stage.research, ready]}
        answer = ""
        for _ in range(TOOL_ROUNDS + 1):
            reply = self._ask(Phase.DISCUSS, list(tools.values()))
            if not reply.tool_calls:
                answer = str(reply.content).strip()
                break
            finished = False
            for call in reply.tool_calls:
                result = self._run_tool(tools, call, Phase.DISCUSS)
                finished |= call["name"] == READY and result.get("result") == "accepted"
            if finished:
                self.phase = Phase.SUMMARIZE
                answer = str(reply.content).strip()
                break
        answer = hygiene.split_reasoning(answer)[0].strip() if answer else ""  # a thinking model's <think> block
        if answer:
            self.transcript.append(("assistant", answer))
        if self.phase == Phase.DISCUSS and self.turns >= (self.max_discuss_turns or 1):
            self.phase = Phase.SUMMARIZE
        return answer

    def direct(self, text: str) -> str:
        """Direct mode: one message, then Summarize and Serialize. Returns the summary."""
        if text.strip():
            self.say(text)
        self.phase = Phase.SUMMARIZE
        return self.summarize()

    def summarize(self) -> str:
        """The model's summary of what was settled (no tools bound).

        :raises ConversationError: the model cannot be reached.
        """
        self.phase = Phase.SUMMARIZE
        self._start_budget()
        self.history.append(HumanMessage("Summarize what we settled, in a few plain sentences."))
        reply = self._ask(Phase.SUMMARIZE, [])
        self.summary = str(reply.content).strip()
        self.transcript.append(("summary", self.summary))
        self.phase = Phase.SERIALIZE
        return self.summary

    def checked_summary(self, sheet: Any, pack: Any) -> tuple[str, list[str]]:
        """The summary as the player may read it, once ``sheet`` (the character the model submitted) is known: the
        reply's habits stripped (``llm.hygiene``), and the rules' own summary (``rules.setup.summary_of``) in its
        place when what is left is unusable, touches the sheet's limits or names what neither the pack, the sheet
        nor the player's words hold (``rules.model_text.creation_problems``). Returns (summary, warnings)."""
        cleaned = hygiene.clean(self.summary, role=ROLE)
        said = [text for who, text in self.transcript if who == "user"]
        why = [f"it was {cleaned.verdict}"] if not cleaned.usable else model_text.creation_problems(
            cleaned.text, sheet, pack, said)
        if why:
            return setup.summary_of(sheet, pack), [f"setup: the model's summary was not shown ({'; '.join(why)}); "
                                                   "used the rules' own"]
        return cleaned.text, []

    def serialize(self) -> Any:
        """The artifact: the finalization tool's result once the model calls it with valid arguments.

        :raises ConversationError: no valid call after the role's ``attempts``, or the model cannot be reached.
        """
        final = self.stage.finalize
        self.phase = Phase.SERIALIZE
        self._start_budget()
        self.history.append(HumanMessage(f"Now call {final.name} with everything settled."))
        attempts = self.llm.config(ROLE).attempts
        last: dict[str, Any] | None = None
        for _ in range(attempts):
            reply = self._ask(Phase.SERIALIZE, [final])
            calls = reply.tool_calls
            mine = [c for c in calls if c["name"] == final.name]
            for other in (c for c in calls if c["name"] != final.name):
                last = fb.tool_error(other["name"], "not a tool of this step", call=final.name)
                self._tool_message(other, last)
            if not mine:
                last = last or fb.tool_error("(none)", f"no call of {final.name}", call=final.name)
                if not calls:
                    self.history.append(HumanMessage(json.dumps(last)))
                continue
            try:
                artifact = final.call(mine[0]["args"])
            except Invalid as bad:
                last = bad.result
                self._tool_message(mine[0], last)
                continue
            except Exception as exc:  # noqa: BLE001 - a finalizer that fails is the model's to retry
                last = fb.tool_error(final.name, f"{type(exc).__name__}: {exc}")
                self._tool_message(mine[0], last)
                continue
            self._tool_message(mine[0], fb.accepted(final.name))
            self.phase = Phase.DONE
            return artifact
        raise ConversationError(f"{self.stage.name}: the model did not call {final.name} with valid data after "
                                f"{attempts} attempt(s)", last)

    # ----------------------------------------------------------------------------------------- machinery

    def _system(self, phase: Phase) -> SystemMessage:
        """The sandwich: the phase's instructions, the stage's context, the phase's reminder."""
        rules = self.stage.instructions[phase]
        return SystemMessage(f"{rules}\n\n{self.stage.context}\n\nRemember, now: {rules}")

    def _start_budget(self) -> None:
        """A request begins: its calls end by ``budget_s`` from now (none without one)."""
        self._deadline = time.monotonic() + self.budget_s if self.budget_s is not None else None

    def _ask(self, phase: Phase, tools: list[Tool]) -> AIMessage:
        messages = [self._system(phase), *self.history]
        required = tools[0].name if phase == Phase.SERIALIZE and tools else None  # enforced here all the same
        try:
            reply, call = self.llm.converse(ROLE, messages, [t.spec() for t in tools] or None, tool_choice=required,
                                            deadline=self._deadline)
        except LLMUnavailable as exc:
            self.calls += [exc.call] if exc.call else []
            raise ConversationError(str(exc)) from exc
        self.calls.append(call)
        renumbered = []
        for tc in reply.tool_calls:
            self._ids += 1
            renumbered.append({**tc, "id": f"call_{self._ids}"})
        reply = AIMessage(content=reply.content, tool_calls=renumbered)
        self.history.append(reply)
        return reply

    def _run_tool(self, tools: dict[str, Tool], call: dict[str, Any], phase: Phase) -> dict[str, Any]:
        tool = tools.get(call["name"])
        if tool is None:
            result = fb.tool_error(call["name"], f"not a tool of the {phase.value} step; tools: "
                                   f"{', '.join(tools)}", call=next(iter(tools)))
        else:
            try:
                value = tool.call(call.get("args") or {})
                result = value if isinstance(value, dict) and "result" in value else {"result": "accepted",
                                                                                      "value": value}
            except Invalid as bad:
                result = bad.result
            except Exception as exc:  # noqa: BLE001 - a research tool that fails tells the model, not the user
                result = fb.tool_error(call["name"], f"{type(exc).__name__}: {exc}")
        self._tool_message(call, result)
        return result

    def _tool_message(self, call: dict[str, Any], result: dict[str, Any]) -> None:
        self.history.append(ToolMessage(json.dumps(result, ensure_ascii=False, default=str),
                                        tool_call_id=call["id"]))
