"""Every command a player can type, in one table: its name and the other words it answers to, what it takes, its
/help entry, and who answers it. ``/help`` is built from this table and the router learns the command words from
it, so a new command is one row here plus its handler:

- ``game`` commands (/status, /map, /end...) are answered by the ``meta`` node, one handler class each in
  ``skald.meta_commands`` (keyed by the command's name);
- ``timeline`` commands (/undo, /fork...) by the ``timeline`` node, one plan each in ``rules.timeline`` (/retry is
  played by the engine as a turn: ``Engine.retry``);
- ``terminal`` commands (/dice) by the terminal itself, never sent to the engine; they are listed only in the
  terminal's /help.

``tests/rules/test_commands.py`` checks that every row has its handler and every handler its row.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from skald.words import TERMINAL, Words

Group = Literal["game", "timeline", "terminal"]


@dataclass(frozen=True)
class Command:
    """One command: ``name`` (typed with or without the slash), ``aliases`` (other words for it), ``takes`` (its
    arguments as /help shows them, e.g. ``[N]``), ``summary`` (its /help entry) and ``group`` (who answers it)."""

    name: str
    summary: str
    takes: str = ""
    aliases: tuple[str, ...] = ()
    group: Group = "game"

    @property
    def keys(self) -> tuple[str, ...]:
        """Every word the command answers to, its name first."""
        return (self.name, *self.aliases)

    @property
    def usage(self) -> str:
        """``undo [N]``: the command as /help shows it, without the slash."""
        return f"{self.name} {self.takes}".strip()


COMMANDS: tuple[Command, ...] = (
    Command("help", "this list"),
    Command("status", "where and when you are, HP, money, stress, reputation"),
    Command("inventory", "what you carry"),
    Command("party", "your companions and how they feel about you"),
    Command("quests", "jobs you have taken on"),
    Command("rumors", "what you have heard"),
    Command("news", "what has happened in the world lately"),
    Command("map", "the ways from here, and how far every other place is"),
    Command("rules", "how checks, HP, stress and being beaten work here (there are no levels)"),
    Command("episode", "the episode you are in, how it ends, and what comes next", aliases=("episodes",)),
    Command("journal", "how each finished episode went"),
    Command("end", "close the episode and see how it went (/end yes abandons one that is not open)"),
    Command("next", "start the suggested episode (/next ID for another)"),
    Command("save", "every turn is saved as you play; shows how to resume"),
    Command("load", "the campaigns in this save file and how to resume one"),
    Command("quit", "leave the game (progress is already saved)", aliases=("exit",)),
    Command("dice", "show or hide the dice line under each turn (this terminal only)", "[on|off]", group="terminal"),
    Command("undo", "take back the last turn (or N turns); nothing is lost", "[N]", group="timeline"),
    Command("redo", "replay what /undo took back", "[N]", group="timeline"),
    Command("retry", "play the last turn again with new dice", group="timeline"),
    Command("variants", "the ways the last turn was played", group="timeline"),
    Command("pick", "go to variant K of the last turn", "K", group="timeline"),
    Command("fork", "start a branch here (--at TURN: from an earlier turn)", "NAME", group="timeline"),
    Command("branches", "list the branches", group="timeline"),
    Command("switch", "go to another branch", "NAME", group="timeline"),
    Command("delete-branch", "delete a branch you are not on", "NAME", group="timeline"),
)
BY_KEY: dict[str, Command] = {key: command for command in COMMANDS for key in command.keys}
ENGINE_KEYS: tuple[str, ...] = tuple(key for key, command in BY_KEY.items() if command.group != "terminal")
"""Every word a command the engine answers to (typed alone, with or without the slash, it is that command)."""
TIMELINE: tuple[str, ...] = tuple(command.name for command in COMMANDS if command.group == "timeline")


SHORTEST_PREFIX = 2  # "/in" is /inventory; a single letter is too easy to type by accident
WHOLE_WORD_ONLY = frozenset({"delete-branch"})  # never reached by a prefix: it deletes


def find(word: str) -> Command | None:
    """The command ``word`` names (a name or an alias, any case, with or without its slash), or one it begins and no
    other command begins (``/inv``: /inventory; at least :data:`SHORTEST_PREFIX` letters), or None."""
    key = word.strip().lstrip("/").lower()
    if key in BY_KEY:
        return BY_KEY[key]
    begun = beginning(key)
    return begun[0] if len(begun) == 1 else None


def beginning(key: str, *, every: bool = False) -> list[Command]:
    """The commands one of whose words begins with ``key`` (at least :data:`SHORTEST_PREFIX` letters; with ``every``,
    one letter is enough), in the table's order; :data:`WHOLE_WORD_ONLY` commands only with ``every`` (named as a
    guess, never run from a prefix)."""
    if len(key) < (1 if every else SHORTEST_PREFIX):
        return []
    return [c for c in COMMANDS if (every or c.name not in WHOLE_WORD_ONLY) and any(k.startswith(key) for k in c.keys)]


def meant(word: str) -> list[str]:
    """What an unknown command ``word`` may have meant, as ``/name`` (the commands it begins, else up to three that
    it nearly spells: ``/qeusts`` -> ``/quests``); empty when nothing is close."""
    key = word.strip().lstrip("/").lower()
    near = difflib.get_close_matches(key, list(BY_KEY), n=3, cutoff=0.7)
    begun = beginning(key, every=True) or [BY_KEY[k] for k in near]
    return [f"/{c.name}" for c in dict.fromkeys(begun)]


def rows(group: Group) -> list[str]:
    """The /help rows of one group's commands (``  /status     where and when you are...``), in the table's order."""
    return [_row(c) for c in COMMANDS if c.group == group]


def help_text(words: Words = TERMINAL) -> str:
    """The engine's /help listing in a frontend's ``words``: the game commands, then the timeline commands with what
    they take, leaving out what the frontend hides and what it has buttons for. (The terminal adds its own commands'
    :func:`rows` when it shows the listing: the engine never answers them.)"""
    listed = [_row(c) for c in COMMANDS if c.group == "game" and c.name not in words.hidden]
    timeline = [c for c in COMMANDS if c.group == "timeline" and c.name not in words.buttons]
    width = max(len(c.usage) for c in timeline) if timeline else 0
    times = [f"  /{c.usage:<{width}}  {c.summary}" for c in timeline]
    note = [words.buttons_note] if words.buttons_note else []
    return "\n".join(["Commands:", *listed, "Timeline:", *times, *note,
                      "Otherwise type what you do, or a number 1-4 to play a suggestion."])


def _row(command: Command) -> str:
    return f"  /{command.name:<10} {command.summary}"
