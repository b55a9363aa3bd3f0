"""Guided creation over HTTP (``docs/setup.md``): a setup session talks a character through, with the ``setup`` role
when it answers, else with the pack's questions, and its finish creates the campaign like ``POST /campaigns``.

- ``POST /campaigns/setup`` opens a session: its ``setup_id`` (a secret: whoever holds it may finish the session),
  its mode (``model`` or ``questions``) and the first thing to answer.
- ``POST /setup/{id}/messages`` sends the player's message (``/done`` ends the discussion); in questions mode, the
  answer to the question asked (a number or a label for a choice, empty for the default).
- ``POST /setup/{id}/finish`` (once ``can_finish``: in questions mode the name, pronouns and background are
  answered) summarizes and serializes (the model's ``submit_character``; the answers so far and
  defaults for the rest in questions mode), creates the campaign and its token, and closes the session.

Sessions live in the store (``store.setup_sessions``), so with several API workers any of them answers a session's
next message: at most :data:`MAX_SESSIONS` at once (the oldest idle one is dropped for a new one), each dropped after
:data:`IDLE_S` seconds without a message, each at most :data:`MAX_MESSAGES` messages of at most 2000 characters. One
message at a time per session, across workers: a second while the first is answered gets 409.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fastapi import HTTPException
from pydantic import BaseModel, Field

from skald import creation
from skald.core.pack import EraPack
from skald.engine import Engine
from skald.llm.conversation import ConversationError, ConversationRunner, Phase
from skald.llm.setup_stages import character
from skald.rules import setup
from skald.store import setup_sessions
from skald.wallclock import WallClock

MAX_SESSIONS = 64
IDLE_S = 1800.0
MAX_MESSAGES = 40


class SetupChoice(BaseModel):
    label: str = Field(description="the choice as players read it (never an id)")
    about: str = Field("", description="what it means, when the label does not say")


class SetupQuestion(BaseModel):
    id: str
    text: str
    default: str = Field(description="what an empty answer stands for (a choice's value)")
    default_label: str = Field(description="the default as players read it")
    options: list[str] = Field(default_factory=list, description="choices, answered by number (1-based) or label")
    choices: list[SetupChoice] = Field(default_factory=list, description="the same choices, with what each means")
    free_text: bool = Field(description="a typed answer of the player's own is taken (else only a choice)")
    required: bool = Field(description="the character needs this answered before the setup may finish")


class SetupReply(BaseModel):
    """Where a setup session stands."""

    setup_id: str
    mode: str = Field(description="model (the setup role talks it through) or questions (the pack's questions)")
    phase: str = Field(description="discuss, or summarize once the discussion is over (finish it)")
    reply: str = Field("", description="what the model answered (model mode)")
    question: SetupQuestion | None = Field(None, description="the next question (questions mode); null when none "
                                           "is left")
    can_finish: bool = Field(description="finish may be called now: in questions mode once the required questions "
                                         "are answered (the rest take their defaults); in model mode once the "
                                         "player has said something")
    warnings: list[str] = Field(default_factory=list)


class SetupMessage(BaseModel):
    text: str = Field(max_length=2000, description="the player's message, /done to end the discussion, or (questions "
                      "mode) the answer: a choice's number or label, or empty for the default")


class NewSetup(BaseModel):
    pack: str = Field(min_length=1, max_length=64, description="era pack id (see GET /packs)")
    seed: int | None = Field(None, ge=0, le=2**31 - 1, description="campaign seed (default: random)")


@dataclass
class Session:
    """One setup session while a request works on it (rebuilt from the store, and saved back, each request)."""

    id: str
    pack: EraPack
    seed: int | None
    runner: ConversationRunner | None
    draft: dict[str, Any] = field(default_factory=dict)
    messages: int = 0
    warnings: list[str] = field(default_factory=list)

    def view(self, reply: str = "") -> SetupReply:
        if self.runner is not None:
            return SetupReply(setup_id=self.id, mode="model", phase=self.runner.phase.value, reply=reply,
                              can_finish=self.messages > 0, warnings=list(self.warnings))
        left = setup.questions(self.pack, self.draft)
        q = left[0] if left else None
        question = SetupQuestion(
            id=q.id, text=q.text, default=q.default, default_label=q.default_label,
            options=[o.label for o in q.options],
            choices=[SetupChoice(label=o.label, about=o.about) for o in q.options],
            free_text=q.takes_text, required=q.required) if q else None
        return SetupReply(setup_id=self.id, mode="questions", phase="discuss" if q else "summarize",
                          question=question, can_finish=setup.may_finish(self.pack, self.draft),
                          warnings=list(self.warnings))

    def stored(self) -> setup_sessions.Stored:
        state = {"runner": self.runner.saved() if self.runner is not None else None, "draft": self.draft,
                 "warnings": self.warnings}
        return setup_sessions.Stored(self.id, self.pack.id, self.seed, state, self.messages)


class SetupSessions:
    """The open setup sessions, kept in the engine's store (see the module docstring for the bounds).

    :param clock: the wall clock that stamps and ages sessions (``wallclock``; default: the engine's).
    """

    def __init__(self, engine: Engine, *, clock: WallClock | None = None):
        self.engine = engine
        self.clock = clock or engine.clock

    def _now(self) -> datetime:
        return self.clock()

    def open(self, body: NewSetup) -> SetupReply:
        pack = self.engine.packs.get(body.pack)
        runner = self._runner(pack)
        session = Session(secrets.token_urlsafe(18), pack, body.seed, runner)
        self.engine.keep_setup(session.stored(), self._now(), idle_s=IDLE_S, limit=MAX_SESSIONS)
        greeting = "Tell me about the character you want to play (send /done when you are ready)." if runner else ""
        return session.view(greeting)

    def message(self, setup_id: str, body: SetupMessage) -> SetupReply:
        session = self._take(setup_id)
        try:
            session.messages += 1
            if session.messages > MAX_MESSAGES:
                raise HTTPException(413, f"a setup session takes at most {MAX_MESSAGES} messages: finish it")
            if session.runner is not None:
                if session.runner.phase != Phase.DISCUSS:
                    return session.view()
                try:
                    return session.view(session.runner.say(body.text))
                except ConversationError as exc:
                    session.warnings.append(f"setup: the model stopped answering ({exc}); answer the questions")
                    session.runner = None
                    return session.view()
            left = setup.questions(session.pack, session.draft)
            if left:
                try:
                    session.draft = setup.answer(session.draft, left[0], body.text, strict=True)
                except setup.NotAChoice as exc:
                    session.messages -= 1  # nothing was answered
                    raise HTTPException(422, str(exc)) from None
            return session.view()
        finally:
            self._give(session)

    def finish(self, setup_id: str) -> tuple[setup.CharacterSheet, str, Any]:
        """(the sheet, the summary, the engine's ``Created``); the session is closed."""
        session = self._take(setup_id)
        try:
            sheet = summary = None
            if session.runner is not None:
                try:
                    session.runner.summarize()
                    sheet, summary, checked = creation.from_model(session.runner, session.pack)
                    session.warnings += checked
                except ConversationError as exc:
                    session.warnings.append(f"setup: the model did not submit a character ({exc}); used the "
                                            "questions' defaults")
            if sheet is None and not setup.may_finish(session.pack, session.draft):
                raise HTTPException(409, "answer the character's name, pronouns and background first (each may be "
                                         "its default: send an empty answer); the other questions may be left")
            if sheet is None:
                sheet, summary = creation.by_default(session.pack, session.draft)
            made = self.engine.create_campaign(session.pack.id, seed=session.seed, sheet=sheet, summary=summary,
                                               with_token=True)
        except BaseException:
            self._give(session)
            raise
        self.engine.drop_setup(session.id)
        return sheet, summary, made

    # ------------------------------------------------------------------------------------------ machinery

    def _runner(self, pack: EraPack) -> ConversationRunner | None:
        llm = self.engine.llm
        if llm.asks("setup"):
            return ConversationRunner(llm, character(pack), interactive=True, budget_s=llm.settings.turn_budget_s)
        return None

    def _take(self, setup_id: str) -> Session:
        try:
            stored = self.engine.take_setup(setup_id, self._now(), idle_s=IDLE_S)
        except setup_sessions.Busy:
            raise HTTPException(409, "this setup session is answering another message") from None
        if stored is None:
            raise HTTPException(404, "no such setup session (it may have expired): open a new one")
        pack = self.engine.packs.get(stored.pack_id)
        saved = stored.state.get("runner")
        runner = None
        if saved is not None:
            runner = ConversationRunner(self.engine.llm, character(pack), interactive=True,
                                        budget_s=self.engine.llm.settings.turn_budget_s).restore(saved)
        return Session(stored.id, pack, stored.seed, runner, draft=stored.state.get("draft") or {},
                       messages=stored.messages, warnings=list(stored.state.get("warnings") or []))

    def _give(self, session: Session) -> None:
        self.engine.give_setup(session.stored(), self._now())
