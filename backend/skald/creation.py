"""Guided creation of a character and campaign (``docs/setup.md``), for any frontend that can ask a line and say one:
``skald new`` in the terminal (``cli.main``), the recorder (``replay.session``) and, through :func:`from_model` and
:func:`by_default`, the API's setup sessions (``api.setup``): the model when the ``setup`` role answers, else the
pack's questions.

With a model (the ``setup`` role online): Discuss (interactive: a conversation, ``/done`` to finish; direct: the
whole of stdin is one message, "a disgraced surveyor who owes the union"), Summarize (printed), Serialize
(``submit_character``). A model that never submits a valid character leaves a warning and the offline chain takes
over. Offline: the question chain (``rules.setup.questions``): interactive prompts with numbered choices, or in
direct mode one answer per line of stdin in the order of the questions, defaults for the rest
(``printf 'Mara Venn\\nshe/her\\n' | skald new -I``).

The campaign is created from the sheet in one transaction, with the summary as the character's first memory;
:func:`run` says the character and the campaign id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from skald.core.pack import EraPack
from skald.engine import Engine
from skald.llm.client import LLMClient
from skald.llm.conversation import ConversationError, ConversationRunner, Phase
from skald.llm.setup_stages import character
from skald.rules import setup

Ask = Callable[[str], str | None]  # prompt -> the user's line, None at the end of input


def lines_of(stream: Any) -> Ask:
    """Answers read one per line from ``stream`` (direct mode); None once it runs out."""
    it: Iterator[str] = iter(stream)

    def ask(_: str) -> str | None:
        line = next(it, None)
        return None if line is None else line.rstrip("\n")
    return ask


def replaying(lines: list[str], then: Ask) -> Ask:
    """Answers from ``lines`` first, then from ``then``."""
    pending = list(lines)

    def ask(prompt: str) -> str | None:
        return pending.pop(0) if pending else then(prompt)
    return ask


def offline(pack: EraPack, ask: Ask, say: Callable[[str], None], interactive: bool) -> tuple[setup.CharacterSheet,
                                                                                               str]:
    """The question chain: each question asked (choices numbered when interactive), answered by ``ask``."""
    draft: dict[str, Any] = {}
    while True:
        left = setup.questions(pack, draft)
        if not left:
            break
        question = left[0]
        if interactive:
            say(question.text + f"  [{question.default_label}]")
            for i, option in enumerate(question.options, 1):
                say(f"  {i}. {option.label}" + (f": {option.about}" if option.about else ""))
        reply = ask("> " if interactive else "")
        try:
            draft = setup.answer(draft, question, reply or "", strict=interactive)
        except setup.NotAChoice as exc:  # asked again
            say(str(exc))
    return by_default(pack, draft)


def by_default(pack: EraPack, draft: dict[str, Any]) -> tuple[setup.CharacterSheet, str]:
    """The character ``draft`` answers, every question it leaves at its default, and the rules' summary of it."""
    while left := setup.questions(pack, draft):
        draft = setup.answer(draft, left[0], "")
    sheet = setup.sheet_of(draft, pack)
    return sheet, setup.summary_of(sheet, pack)


def from_model(runner: ConversationRunner, pack: EraPack) -> tuple[setup.CharacterSheet, str, list[str]]:
    """The character the ``setup`` role submits (``submit_character``) and the summary a player may read of it
    (checked: ``ConversationRunner.checked_summary``), with warnings. :raises ConversationError: no valid character."""
    sheet = runner.serialize()
    summary, warnings = runner.checked_summary(sheet, pack)
    return sheet, summary, warnings


def discuss(runner: ConversationRunner, ask: Ask, say: Callable[[str], None], first: str | None = None) -> str:
    """The Discuss phase on a terminal (``skald new -i``, ``skald pack draft -i``): ``first`` if given, then each
    line ``ask`` reads (empty lines skipped), the model's replies shown by ``say``, until the discussion ends or the
    input does; returns the summary. :raises ConversationError: the model cannot be reached."""
    pending = [first] if first else []
    while runner.phase == Phase.DISCUSS:
        line = pending.pop() if pending else ask("> ")
        if line is None:
            break
        if not line.strip():
            continue
        reply = runner.say(line)
        if reply:
            say(reply)
    return runner.summarize()


def with_model(llm: LLMClient, pack: EraPack, ask: Ask, say: Callable[[str], None], interactive: bool,
               retriever: Any = None) -> tuple[setup.CharacterSheet, str]:
    """Discuss, Summarize, Serialize with the ``setup`` role. :raises ConversationError: no valid character."""
    runner = ConversationRunner(llm, character(pack, retriever), interactive=interactive)
    if interactive:
        say("Tell me about the character you want to play (type /done when you are ready).")
        discuss(runner, ask, say)
    else:
        concept = []
        while (line := ask("")) is not None:
            concept.append(line)
        runner.direct(" ".join(concept))
    sheet, summary, warnings = from_model(runner, pack)  # habits, limits and names checked; else the rules'
    say("")
    for warning in warnings:
        say(f"! {warning}")
    say(summary)
    return sheet, summary


def run(db: Path, llm: LLMClient, pack_id: str, seed: int, interactive: bool,
        ask: Ask, say: Callable[[str], None], retriever: Any = None) -> tuple[Engine, str]:
    """Create the character and the campaign; returns the engine (open) and the campaign id."""
    engine = Engine(db, llm=llm, retriever=retriever)
    try:
        pack = engine.packs.get(pack_id)
        sheet = summary = None
        if llm.asks("setup"):
            read: list[str | None] = []

            def kept(prompt: str) -> str | None:
                read.append(ask(prompt))
                return read[-1]
            try:
                sheet, summary = with_model(llm, pack, kept, say, interactive, retriever)
            except ConversationError as exc:
                say(f"! the model could not settle a character ({exc}); asking the questions instead")
                if not interactive:  # the lines the model read answer the questions, in order
                    ask = replaying([x for x in read if x is not None], ask)
        if sheet is None:
            sheet, summary = offline(pack, ask, say, interactive)
        made = engine.create_campaign(pack.id, seed=seed, sheet=sheet, summary=summary or "",
                                      campaign_id=engine.free_campaign_id(pack.id, seed))
    except BaseException:
        engine.close()
        raise
    bg = pack.backgrounds[sheet.background]
    say("")
    say(f"{sheet.name} ({sheet.pronouns}), {bg.name}.")
    if sheet.hook:
        say(sheet.hook)
    say(f"Campaign {made.state.campaign.id} is ready.")
    return engine, made.state.campaign.id
