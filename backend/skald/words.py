"""How a frontend names the moves that are not story (issue 33). The terminal types commands, the play page has
buttons, and an HTTP client calls endpoints. A reply that points the player at such a move says it in the words of
the frontend that asked, from one :class:`Words` each: after an undo, what redoes it; after a fork, what goes back;
between episodes, what starts the next; on /quit or /save, how to come back. Rules never spell those moves out
themselves.

A frontend picks its words once: the CLI plays with :data:`TERMINAL`; the HTTP API with :data:`API`, or with the
words a request names in its ``Skald-Words`` header (``page`` for the play page, :data:`PAGE`); see :func:`named`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Words:
    """One frontend's words. Each is a phrase that reads as the subject of a sentence ("{redo} replays what was
    undone"), with ``{branch}``, ``{campaign}`` or ``{command}`` filled in by :meth:`say`.

    ``resume``: the sentence that tells how to come back to a campaign (``{command}``: how the terminal resumes it,
    e.g. ``skald play --campaign ID --db PATH``). ``hidden``: commands this frontend has no use for, left out of
    /help (the page has no /quit). ``buttons``: commands the frontend has controls for, which /help leaves to
    ``buttons_note`` (the page's Undo, Redo, Retry and branch buttons).
    """

    frontend: str
    redo: str = "/redo"
    retry: str = "/retry"
    switch: str = "/switch {branch}"
    branches: str = "/branches"
    next: str = "/next"
    resume: str = "Resume with: {command}"
    hidden: tuple[str, ...] = ()
    buttons: tuple[str, ...] = ()
    buttons_note: str = ""

    def say(self, phrase: str, **values: str) -> str:
        """The phrase ``phrase`` (a field name) with ``values`` filled in; a placeholder given no value stays as
        written."""
        return getattr(self, phrase).format_map(_Keep(values))

    def opening(self, phrase: str, **values: str) -> str:
        """:meth:`say`, as a sentence's start: a capital first letter unless it starts with a command's slash or a
        quotation mark."""
        said = self.say(phrase, **values)
        return said[:1].upper() + said[1:] if said[:1].isalpha() else said


class _Keep(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


TERMINAL = Words("terminal")
PAGE = Words("page", redo="“Redo”", retry="“Retry last turn”", switch="“Switch” beside {branch} under Branches",
             branches="the Branches panel", next="“Next episode” (or /next)",
             resume="“Your campaigns”, at the top of this page, resumes it in this browser.",
             hidden=("quit", "save", "load"),
             buttons=("undo", "redo", "retry", "fork", "branches", "switch", "delete-branch"),
             buttons_note="The buttons under the story undo, redo and retry a turn and start a branch; the Branches "
                          "panel switches between branches and deletes them.")
API = Words("api", redo="POST /campaigns/{campaign}/redo", retry="POST /campaigns/{campaign}/retry",
            switch="POST /campaigns/{campaign}/branches/{branch}/switch",
            branches="GET /campaigns/{campaign}/branches", next="a turn whose input is /next",
            resume="Resume with GET /campaigns/{campaign}/scene and the campaign's token.",
            hidden=("quit", "load"))
BY_NAME = {w.frontend: w for w in (TERMINAL, PAGE, API)}


def named(name: str | None, default: Words = API) -> Words:
    """The words called ``name`` (``terminal``, ``page``, ``api``; any case); ``default`` when ``name`` is empty or
    unknown."""
    return BY_NAME.get((name or "").strip().lower(), default)
