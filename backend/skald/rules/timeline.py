"""Timeline commands: /undo, /redo, /retry, /variants, /pick, /fork, /branches, /switch and /delete-branch.

A campaign is a tree of turns (``store.timeline``); these commands move a branch's head along it, start branches and
remove them. Nothing here reads or writes the store: the ``timeline`` node gathers the facts (:class:`Facts`),
:func:`plan` decides, and Commit carries out the :class:`Move` in one transaction (``store.writer.apply_move``).
/retry is played by the engine (``Engine.claim``): it is a turn, played again from the head's parent with the next
dice variant.

Rules:

- ``/undo [N]`` moves the head back N turns (default 1, at most to turn 0); nothing is deleted, and the turns undone
  stay on the branch's line for ``/redo [N]``. Playing a turn after an undo starts a new child of the head: the old
  future is no longer on the line but stays in the tree, as a variant of the new turn (``/variants``, ``/pick``).
- ``/variants`` lists every turn played from the same point as the head (its retries, and turns played there after
  an undo); ``/pick K`` moves the head to variant K, and the line above it follows that variant's most recent
  continuation (so ``/redo`` replays it).
- ``/fork NAME [--at TURN]`` starts branch NAME at the head (or at turn TURN of the line, up to its tip) and makes it
  the current branch; ``/switch NAME`` makes another branch current; ``/branches`` lists them;
  ``/delete-branch NAME`` removes a branch that is not the current one, with every turn no other branch reaches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from skald.core.records import Move, TimelineCommand
from skald.rules import commands
from skald.words import TERMINAL, Words

COMMANDS = commands.TIMELINE  # the timeline commands' names (their words and /help entries: ``rules.commands``)


def parse(command: str, args: str) -> TimelineCommand | Planned:
    """A timeline command the player typed (``command``: its name, e.g. ``fork``; ``args``: the rest of the line,
    e.g. ``side --at 3``), typed; or the :class:`Planned` refusal that says what is wrong with its arguments (a
    missing or malformed branch name is left to :func:`plan`, which refuses typed requests the same way).

    :raises ValueError: ``command`` is not a timeline command (:data:`COMMANDS`).
    """
    if command not in COMMANDS:
        raise ValueError(f"{command!r} is not a timeline command; commands: {', '.join(COMMANDS)}")
    if command in ("undo", "redo"):
        n = count(args, command)
        return Planned(None, n, "bad_args") if isinstance(n, str) else TimelineCommand(kind=command, turns=n)
    if command == "pick":
        word = args.strip()
        return TimelineCommand(kind="pick", variant=int(word) if word.isdigit() else None)
    if command == "fork":
        words, at = args.split(), None
        if "--at" in words:
            i = words.index("--at")
            value = words[i + 1] if i + 1 < len(words) else ""
            if not value.isdigit():
                return Planned(None, f"/fork NAME --at TURN takes a turn number of this branch, not {value!r}.",
                              "bad_turn")
            at, words = int(value), words[:i] + words[i + 2:]
        return TimelineCommand(kind="fork", name=words[0] if len(words) == 1 else " ".join(words), at=at)
    if command in ("switch", "delete-branch"):
        return TimelineCommand(kind=command, name=args.strip())
    return TimelineCommand(kind=command)


def spelled(call: TimelineCommand) -> str:
    """The command as a player would type it (``/fork side --at 3``): what a typed request is recorded and keyed as,
    so an idempotency key replays it whether it was typed or sent typed."""
    args = {"undo": [call.turns], "redo": [call.turns], "pick": [call.variant],
            "fork": [call.name, *(["--at", call.at] if call.at is not None else [])],
            "switch": [call.name], "delete-branch": [call.name]}.get(call.kind, [])
    return " ".join([f"/{call.kind}", *(str(a) for a in args if a is not None and a != "")])


NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
NAME_RULE = "1 to 40 letters, digits, '.', '_' or '-', starting with a letter or digit"


@dataclass(frozen=True)
class Variant:
    """One turn played from the head's parent."""

    variant: int
    turn_id: int
    input: str
    outcome: str | None
    first_line: str


@dataclass(frozen=True)
class BranchFacts:
    name: str
    head: int  # turn number
    tip: int
    current: bool
    location: str
    last_line: str


@dataclass(frozen=True)
class Facts:
    """What the ``timeline`` node read for a command: the branch played on, its head and tip, the variants at the
    head, every branch, and the campaign's id (for the frontend's words that name it)."""

    branch: str
    head_id: int
    head: int
    tip: int
    variants: list[Variant] = field(default_factory=list)
    branches: list[BranchFacts] = field(default_factory=list)
    campaign: str = ""

    def named(self, name: str) -> BranchFacts | None:
        return next((b for b in self.branches if b.name == name), None)


@dataclass(frozen=True)
class Planned:
    """A command's answer: a :class:`Move` for Commit (None: nothing to change) and what to tell the player (for a
    move, the line said before the scene at the new head)."""

    move: Move | None
    text: str
    reason: str | None = None  # why nothing could be done (None: done, or only listed)


def is_retry(text: str) -> bool:
    """Whether a player's input is the /retry command (``retry`` alone counts too, as every command word does)."""
    return text.strip().lstrip("/").strip().lower() == "retry"


def count(args: str, what: str) -> int | str:
    """N of ``/undo N`` or ``/redo N`` (default 1), or what is wrong with it."""
    word = args.strip()
    if not word:
        return 1
    if not word.isdigit() or int(word) < 1:
        return _not_turns(what, repr(word))
    return int(word)


def _not_turns(what: str, given: object) -> str:
    """What is wrong with /undo or /redo given ``given`` (as typed, or as sent typed) for its number of turns."""
    return f"/{what} takes a number of turns, 1 or more (e.g. /{what} 2), not {given}."


def plan(call: TimelineCommand, facts: Facts, words: Words = TERMINAL) -> Planned:
    """The move a timeline command makes from ``facts``, or the text that explains why it makes none; a move it
    points the player to next is named in the frontend's ``words``."""
    handler = _PLANS.get(call.kind)
    if handler is None:  # /retry reaches here only when the graph is run without the engine
        return Planned(None, "Retry is played by the engine: use /retry in `skald play` or POST /campaigns/{id}/retry.",
                       "not_here")
    return handler(call, facts, words)


def _undo(c: TimelineCommand, f: Facts, w: Words = TERMINAL) -> Planned:
    if c.turns < 1:
        return Planned(None, _not_turns("undo", c.turns), "bad_args")
    if f.head == 0:
        return Planned(None, "Nothing to undo: this is where the campaign starts.", "nothing_to_undo")
    to = max(0, f.head - c.turns)
    return Planned(Move(kind="undo", branch=f.branch, expect=f.head_id, to_number=to),
                   f"Undone: back to {_turn(to)}. {w.opening('redo', campaign=f.campaign)} replays what was "
                   "undone; anything you do now starts a new path from here.")


def _redo(c: TimelineCommand, f: Facts, w: Words = TERMINAL) -> Planned:
    if c.turns < 1:
        return Planned(None, _not_turns("redo", c.turns), "bad_args")
    if f.tip <= f.head:
        return Planned(None, "Nothing to redo here.", "nothing_to_redo")
    to = min(f.tip, f.head + c.turns)
    return Planned(Move(kind="redo", branch=f.branch, expect=f.head_id, to_number=to), f"Redone: on to {_turn(to)}.")


def _variants(c: TimelineCommand, f: Facts, w: Words = TERMINAL) -> Planned:
    if not f.variants:
        return Planned(None, "No turn played here yet: nothing to list.", "nothing_to_list")
    rows = [f"  {'>' if v.turn_id == f.head_id else ' '} {v.variant}. {_short(v.input)}"
            + (f" ({v.outcome.replace('_', ' ').lower()})" if v.outcome else "") + f": {v.first_line}"
            for v in f.variants]
    return Planned(None, f"Turn {f.head} was played {len(f.variants)} way(s) (> is the one you are on):\n"
                   + "\n".join(rows) + f"\n/pick K goes to variant K; {w.say('retry', campaign=f.campaign)} plays "
                   "the turn again.")


def _pick(c: TimelineCommand, f: Facts, w: Words = TERMINAL) -> Planned:
    chosen = next((v for v in f.variants if v.variant == c.variant), None)
    if chosen is None:
        have = ", ".join(str(v.variant) for v in f.variants) or "none"
        return Planned(None, f"/pick takes a variant number of turn {f.head} (variants: {have}; /variants lists them).",
                       "no_variant")
    if chosen.turn_id == f.head_id:
        return Planned(None, f"You are already on variant {chosen.variant}.")
    return Planned(Move(kind="pick", branch=f.branch, expect=f.head_id, to_number=f.head, pick=chosen.turn_id),
                   f"Variant {chosen.variant} of {_turn(f.head)}.")


def _fork(c: TimelineCommand, f: Facts, w: Words = TERMINAL) -> Planned:
    at = f.head if c.at is None else c.at
    if not 0 <= at <= f.tip:
        return Planned(None, f"/fork NAME --at TURN takes a turn from 0 to {f.tip} of this branch, not {at}.",
                       "bad_turn")
    name = c.name or ""
    if not NAME.fullmatch(name):
        return Planned(None, f"/fork takes a branch name ({NAME_RULE}), e.g. /fork bolder-plan.", "bad_name")
    if f.named(name) is not None:
        return Planned(None, f"There is already a branch called {name} ({w.say('branches', campaign=f.campaign)} "
                       "lists them).", "name_taken")
    return Planned(Move(kind="fork", branch=name, expect=f.head_id, to_number=at, source=f.branch),
                   f"Branch {name} starts at {_turn(at)} of {f.branch}, and you are on it now. "
                   f"{w.opening('switch', branch=f.branch, campaign=f.campaign)} goes back.")


def _named(c: TimelineCommand, f: Facts) -> BranchFacts | Planned:
    """The branch a command names, or the refusal that lists the branches there are."""
    name = (c.name or "").strip()
    target = f.named(name)
    return target if target is not None else Planned(None, f"No branch called {name!r}. " + _listing(f), "no_branch")


def _switch(c: TimelineCommand, f: Facts, w: Words = TERMINAL) -> Planned:
    target = _named(c, f)
    if isinstance(target, Planned):
        return target
    name = target.name
    if target.current:
        return Planned(None, f"You are on {name} already.")
    return Planned(Move(kind="switch", branch=name, expect=f.head_id), f"On branch {name}, at {_turn(target.head)}.")


def _branches(c: TimelineCommand, f: Facts, w: Words = TERMINAL) -> Planned:
    return Planned(None, _listing(f))


def _delete(c: TimelineCommand, f: Facts, w: Words = TERMINAL) -> Planned:
    target = _named(c, f)
    if isinstance(target, Planned):
        return target
    name = target.name
    if target.current:
        return Planned(None, f"{name} is the branch you are on: switch to another before deleting it.",
                       "current_branch")
    return Planned(Move(kind="delete", branch=name, expect=f.head_id),
                   f"Branch {name} is deleted, with every turn no other branch reaches.")


def _listing(f: Facts) -> str:
    rows = [f"  {'*' if b.current else ' '} {b.name}: {_turn(b.head)}"
            + (f" (+{b.tip - b.head} to redo)" if b.tip > b.head else "") + f", {b.location}. {b.last_line}"
            for b in f.branches]
    return "Branches (* is the one you are on):\n" + "\n".join(rows)


def _turn(n: int) -> str:
    return "the start" if n == 0 else f"turn {n}"


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


_PLANS = {"undo": _undo, "redo": _redo, "variants": _variants, "pick": _pick, "fork": _fork, "switch": _switch,
          "branches": _branches, "delete-branch": _delete}
