"""The narrator's reply in two parts: the prose, then, after a line ``[ACTIONS]``, the turn's four suggested actions
reworded to fit it (issue 31: one call a story turn instead of a narrator's and a refiner's, so the refiner's prompt
is neither sent nor prefilled, and a machine with one cache slot keeps the narrator's prompt cached from turn to turn).

:class:`Splitter` splits a streamed reply as it comes, so the player is shown the prose and never the actions;
:func:`actions` reads the four labels from the tail. Both are lenient about the ways small models write a marker
("[ACTIONS]", "**Actions:**", "## ACTIONS") and a numbered line ("1. ", "1) ", "- 1. ", a label in quotes or bold).
"""

from __future__ import annotations

import re

from skald.llm import hygiene

MARKER = "[ACTIONS]"
_WORD = "actions"
_DECORATION = " \t*_#>-:"
# a line that is only the marker, however it is dressed: "[ACTIONS]", "**Actions:**", "## actions", "ACTIONS:"
_MARKER_LINE = re.compile(r"(?im)^[ \t*_#>\-]*\[?[ \t]*(?:suggested[ \t]+)?actions[ \t]*\]?[ \t*_:]*$")
_BRACKETED = re.compile(r"(?i)\[\s*actions\s*\]")
_NUMBERED = re.compile(r"^\s*[-*]?\s*\(?([1-4])[.):]\s*(.+?)\s*$")


def find(text: str) -> re.Match[str] | None:
    """The marker in ``text`` (the earliest, bracketed anywhere or alone on a whole line), or None. A marker inside a
    reasoning block is not one: a thinking model plans its "[ACTIONS]" there before it writes the prose
    (``hygiene.reasoning_spans``)."""
    found = [m for pattern in (_BRACKETED, _MARKER_LINE) for m in pattern.finditer(text) if not _thought(text, m)]
    if not found:
        return None
    first = min(found, key=lambda m: m.start())
    if first.re is _MARKER_LINE and first.end() == len(text):  # a line is whole only once it has ended
        return None
    return first


def _thought(text: str, marker: re.Match[str]) -> bool:
    """Whether ``marker`` lies inside a reasoning block of ``text`` (an open one included)."""
    return any(start <= marker.start() < end for start, _, _, end in hygiene.reasoning_spans(text))


def _may_become_marker(line: str) -> bool:
    """Whether ``line`` (the unfinished last line of a stream) could still turn out to be the marker."""
    bare = line.lstrip(_DECORATION).lower()
    if not bare:
        return bool(line)  # "**" or "## " may open one
    bare = bare.removeprefix("[").lstrip()
    wanted = ("suggested actions", _WORD)
    return any(w.startswith(bare.rstrip(" ]*_:")) or bare.rstrip(" ]*_:") == w for w in wanted)


def _open_bracket(text: str) -> int:
    """Where an unfinished "[ACTIONS]" starts at the end of ``text`` ("… [ACT"), else len(text)."""
    start = text.rfind("[")
    if start >= 0 and "]" not in text[start:] and MARKER[1:].lower().startswith(
            text[start + 1:].strip().lower()) and len(text) - start <= len(MARKER) + 2:
        return start
    return len(text)


class Splitter:
    """Splits a streamed reply at the marker: :meth:`feed` each chunk and pass on what it returns (prose that can no
    longer turn out to be the marker); :meth:`close` returns the prose held back at the end. After the marker
    everything goes to :attr:`tail`."""

    def __init__(self) -> None:
        self._text = ""
        self._passed = 0
        self.found = False
        self.tail = ""

    def feed(self, chunk: str) -> str:
        if self.found:
            self.tail += chunk
            return ""
        self._text += chunk
        hit = find(self._text)
        if hit is not None:
            self.found = True
            self.tail = self._text[hit.end():]
            return self._release(self._text[:hit.start()])
        last_line = self._text.rsplit("\n", 1)[-1]
        safe = len(self._text) - len(last_line) if _may_become_marker(last_line) else len(self._text)
        safe = min(safe, _open_bracket(self._text))
        return self._release(self._text[:safe])

    def close(self) -> str:
        """The prose still held back when the stream ends (a last line that never became the marker)."""
        if self.found:
            return ""
        hit = next((m for m in _MARKER_LINE.finditer(self._text) if not _thought(self._text, m)), None)  # the last line
        if hit is not None:
            self.found = True
            self.tail = self._text[hit.end():]
            return self._release(self._text[:hit.start()])
        return self._release(self._text)

    def _release(self, prose: str) -> str:
        out = prose[self._passed:] if len(prose) > self._passed else ""
        self._passed = max(self._passed, len(prose))
        return out


def actions(tail: str) -> list[str] | None:
    """The four action labels of ``tail`` (numbered 1 to 4, in order), stripped of quotes, markdown and a trailing
    tone or risk note; None unless there are exactly four, numbered in order."""
    found: dict[int, str] = {}
    for line in tail.splitlines():
        m = _NUMBERED.match(line)
        if m is None:
            continue
        number, label = int(m.group(1)), m.group(2)
        if number in found:
            return None
        found[number] = _bare(label)
    if sorted(found) != [1, 2, 3, 4] or not all(found.values()):
        return None
    return [found[i] for i in (1, 2, 3, 4)]


def _bare(label: str) -> str:
    label = re.sub(r"\s*[(\[](?:paragon|investigate|renegade|neutral|safe|risky|dangerous)[^)\]]*[)\]]\s*$", "",
                   label, flags=re.I)
    label = label.strip().strip("*_`").strip()
    if len(label) > 1 and label[0] in "\"'\u201c" and label[-1] in "\"'\u201d":
        label = label[1:-1].strip()
    return label.rstrip(".").strip()
