"""YAML syntax errors in plain words: where the mistake starts and what to type.

PyYAML reports where its scanner gave up, in its own terms ("found character '\\t' that cannot start any token",
an unclosed quote reported at the end of the file). :func:`diagnose` turns its exception and the source text into
one sentence a designer can act on, pointing at the line and column where the mistake starts: a tab used for
indentation, an unclosed quote or bracket (at the opening character), a key missing its colon, a line indented out
of step with its siblings, a value with ``: `` in it. PyYAML's own wording stays available (:func:`parser_wording`)
for a second line.

Only called after a :class:`yaml.YAMLError`, so a pack that parses pays nothing. The text is scanned line by line
for suspects (an unbalanced quote or bracket, a line without ``:`` among keys, an indentation that matches no level
above); each suspect is confirmed by repairing it in a copy and parsing again: the first repair (in line order)
that makes the file parse, or moves the first error past the original one, names the mistake. When no suspect is
confirmed, the message is PyYAML's, cleaned of its jargon, at the line PyYAML names (the opening quote or bracket
when PyYAML says where one started).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import yaml

_PARSER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader  # confirming a repair only needs the events
_MAX_REPAIRS = 40  # suspects tried per error; a file with more is reported with PyYAML's (cleaned) wording
_BLOCK_SCALAR = re.compile(r"[|>][0-9+-]*\s*(#.*)?$")
_CLOSER = {"[": "]", "{": "}"}
_BREAK = re.compile("\r\n|\r|\n|\x85|\u2028|\u2029")


@dataclass(frozen=True)
class Diagnosis:
    """Where a YAML mistake starts (1-based ``line`` and ``column``, the line offset included) and ``message``: one
    plain sentence saying what is wrong and what to type, with no PyYAML terms."""

    line: int
    column: int
    message: str


def diagnose(text: str, exc: yaml.YAMLError, line_offset: int = 0) -> Diagnosis:
    """Explain the YAML error ``exc`` raised while parsing ``text``.

    :param text: the YAML source that failed to parse (for front matter, only the block between the ``---`` lines).
    :param exc: the error PyYAML's pure-Python loader raised for it (``problem``, ``problem_mark``, ``context``,
        ``context_mark`` are read when present).
    :param line_offset: lines above ``text`` in its file (1 for front matter after the opening ``---``); added to
        the returned line and to every line named in the message.
    :returns: a :class:`Diagnosis`. Never raises: whatever cannot be explained keeps PyYAML's cleaned wording.
    """
    lines = _BREAK.split(text)  # YAML's line breaks only, so line numbers agree with PyYAML's
    problem = getattr(exc, "problem", None) or ""
    mark = getattr(exc, "problem_mark", None)
    at = (mark.line, mark.column) if mark is not None else (0, 0)
    if "'\\t'" in problem and mark is not None:
        return _tab(lines, at, line_offset)
    try:
        found = _confirmed(text, lines, exc, line_offset)
    except Exception:  # noqa: BLE001 - the diagnosis is a courtesy: a scanner slip must not hide the error itself
        found = None
    return found or _fallback(lines, exc, at, line_offset)


def parser_wording(exc: yaml.YAMLError, line_offset: int = 0) -> str:
    """PyYAML's own description of ``exc`` with its positions (1-based, ``line_offset`` added), for experts: ``found
    unexpected end of stream at line 9, column 1, while scanning a quoted scalar that starts at line 4, column 9``."""
    problem = getattr(exc, "problem", None)
    if not problem:
        return " ".join(str(exc).split())
    mark, context, start = (getattr(exc, name, None) for name in ("problem_mark", "context", "context_mark"))
    out = problem + (f" at line {mark.line + 1 + line_offset}, column {mark.column + 1}" if mark is not None else "")
    if context and start is not None:
        out += f", {context} that starts at line {start.line + 1 + line_offset}, column {start.column + 1}"
    elif context:
        out += f", {context}"
    return out


# ----------------------------------------------------------------------------------------- the line scanner


@dataclass
class _Line:
    """What the scanner saw on one line of block structure (columns 0-based)."""

    index: int
    indent: int  # column of the first character (the "-" of a list item)
    content: int  # column after the "- " markers
    dash: bool = False
    key: str | None = None  # the first mapping key on the line
    key_col: int = 0
    plain: bool = False  # the line is one plain value and no key: a value, or a key that lost its colon
    plain_value: bool = False  # the line ends in a plain value (a deeper plain line continues it)
    opens: bool = False  # ends with "key:" or a bare "-": deeper lines below belong to it
    in_flow: bool = False  # starts inside a [ ] or { } opened on an earlier line


@dataclass
class _Suspect:
    """A possible mistake: where it starts, what to tell the designer, and the text with it repaired."""

    line: int
    column: int
    message: str
    repair: Callable[[], list[str]]


def _content_end(s: str, start: int) -> int:
    """Where the text of ``s`` ends before a trailing comment or spaces (quotes are not tracked: the tail after an
    unclosed quote or bracket)."""
    hit = re.search(r"\s#", s[start:])
    end = start + hit.start() if hit else len(s)
    return len(s[:end].rstrip())


def _close_quote(s: str, i: int) -> int:
    """Index of the quote closing the one at ``s[i]`` on the same line, or -1."""
    quote, j = s[i], i + 1
    while j < len(s):
        if quote == '"' and s[j] == "\\":
            j += 2
            continue
        if s[j] == quote:
            if quote == "'" and s[j + 1:j + 2] == "'":
                j += 2
                continue
            return j
        j += 1
    return -1


def _double_quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _single_quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class _Scanner:
    """Reads the lines once, recording each line's shape and the suspects a quote or bracket gives away."""

    def __init__(self, lines: list[str], offset: int):
        self.lines = lines
        self.offset = offset
        self.records: list[_Line] = []
        self.suspects: list[_Suspect] = []
        # open brackets: char, line, column, that line's indent, and the last line inside the bracket (its own, or one
        # indented deeper than it: a line back at its indent or less is block structure the bracket swallowed)
        self.flow: list[tuple[str, int, int, int, int]] = []
        self.block_parent: int | None = None  # indent of the line that opened a | or > block scalar

    def n(self, index: int) -> int:
        """A 0-based line index as the designer's line number."""
        return index + 1 + self.offset

    def replaced(self, index: int, new: str) -> Callable[[], list[str]]:
        return lambda: [*self.lines[:index], new, *self.lines[index + 1:]]

    def scan(self) -> None:
        for index, s in enumerate(self.lines):
            if self.block_parent is not None:
                if not s.strip() or len(s) - len(s.lstrip(" \t")) > self.block_parent:
                    continue
                self.block_parent = None
            i = len(s) - len(s.lstrip(" \t"))
            if i == len(s) or s[i] == "#":
                continue
            if not self.flow and i == 0 and (s[:3] in ("---", "...") and s[3:4] in ("", " ", "\t") or s[0] == "%"):
                self.records.append(_Line(index, -1, -1))  # a document marker or directive: structure restarts
                continue
            self.line(index, s, i)
        for char, index, column, _, last in self.flow:
            closer = _CLOSER[char]
            what = "list" if char == "[" else "mapping"
            s = self.lines[last]
            start = column + 1 if last == index else len(s) - len(s.lstrip(" \t"))
            end = _content_end(s, start)
            tail = s[max(end - 24, start):end].strip()
            where = f"after {tail!r} on line {self.n(last)}" if tail else f"on line {self.n(last)}"
            self.suspects.append(_Suspect(index, column, f"the {char} that opens this {what} is never closed: add "
                                                         f"{closer} at the end of the {what}, {where}",
                                          self.replaced(last, s[:end] + closer + s[end:])))

    def line(self, index: int, s: str, i: int) -> None:
        rec = _Line(index, i, i, in_flow=bool(self.flow))
        self.records.append(rec)
        if not self.flow:
            while s[i:i + 1] == "-" and s[i + 1:i + 2] in ("", " ", "\t"):
                rec.dash, rec.opens = True, True
                i += 1
                while s[i:i + 1] in (" ", "\t"):
                    i += 1
            rec.content = i
        expect_value, first, value_col, last_plain = True, True, None, False
        while i < len(s):
            c = s[i]
            if c in " \t":
                i += 1
                continue
            if c == "#" and (i == 0 or s[i - 1] in " \t"):
                break
            rec.opens = False
            flow = bool(self.flow)
            if expect_value and c in "\"'":
                close = _close_quote(s, i)
                if close < 0:
                    self.unclosed_quote(index, s, i)
                    return
                k = close + 1
                while s[k:k + 1] in (" ", "\t"):
                    k += 1
                rest = s[k:k + 1]
                if rest == ":" and s[k + 1:k + 2] in ("", " ", "\t"):
                    if first and not flow:
                        rec.key, rec.key_col = s[i:close + 1], i
                    expect_value, first, last_plain = True, False, False
                    i = k + 1
                    while s[i:i + 1] in (" ", "\t"):
                        i += 1
                    value_col = i if i < len(s) and s[i] != "#" else None
                    rec.opens = value_col is None and not flow
                    continue
                if rest and rest != "#" and not (flow and rest in ",]}:"):
                    self.text_after_quote(index, s, i, close)
                    return
                expect_value, first, last_plain, i = False, False, False, close + 1
                continue
            if c in "[{" and (expect_value or flow):
                self.flow.append((c, index, i, rec.indent, index))
                expect_value, first, last_plain, i = True, False, False, i + 1
                continue
            if c in "]}" and self.flow:
                if _CLOSER[self.flow[-1][0]] == c:
                    opened = self.flow.pop()
                    if not self.flow and opened[1] == index and value_col is not None:
                        rest = s[i + 1:].strip()
                        if rest and not rest.startswith("#") and not rest.startswith(":"):
                            self.text_after_bracket(index, s, opened[0], value_col)
                            return
                expect_value, last_plain, i = False, False, i + 1
                continue
            if c == "," and flow:
                expect_value, i = True, i + 1
                continue
            if expect_value and not flow and c in "|>" and _BLOCK_SCALAR.match(s[i:]):
                self.block_parent = rec.key_col if rec.key is not None else rec.indent
                return
            if expect_value and c in "&!*":
                while i < len(s) and s[i] not in " \t":
                    i += 1
                expect_value = expect_value and c != "*"
                first = first and c != "*"
                continue
            j = i
            while j < len(s):
                if s[j] == ":" and (j + 1 == len(s) or s[j + 1] in " \t" or (flow and s[j + 1] in ",[]{}")):
                    break
                if flow and s[j] in ",[]{}":
                    break
                if s[j] == "#" and s[j - 1] in " \t":
                    break
                j += 1
            if j < len(s) and s[j] == ":":
                if first and not flow:
                    rec.key, rec.key_col = s[i:j].strip(), i
                elif not flow and rec.key is not None and value_col is not None:
                    self.colon_in_value(index, s, rec.key, value_col)
                    return
                expect_value, first, last_plain = True, False, False
                i = j + 1
                k = i
                while s[k:k + 1] in (" ", "\t"):
                    k += 1
                value_col = k if k < len(s) and s[k] != "#" else None
                rec.opens = value_col is None and not flow
                continue
            if first and not flow and not self.flow:
                rec.plain = True
            expect_value, first, last_plain, i = False, False, True, j
        rec.plain_value = last_plain and not self.flow
        for k, (char, line, column, indent, _) in enumerate(self.flow):
            if line == index or rec.indent > indent:
                self.flow[k] = (char, line, column, indent, index)
        if rec.in_flow:
            rec.plain = rec.plain_value = rec.opens = False

    def unclosed_quote(self, index: int, s: str, i: int) -> None:
        quote = s[i]
        end = len(s.rstrip())
        tip = " (write an apostrophe inside '...' as '')" if quote == "'" else ""
        self.suspects.append(_Suspect(index, i, f"the {quote} that opens this value is never closed: add the closing "
                                                f"{quote} at the end of the value on line {self.n(index)}{tip}",
                                      self.replaced(index, s[:end] + quote + s[end:])))

    def text_after_quote(self, index: int, s: str, i: int, close: int) -> None:
        end = len(s.rstrip())
        raw = s[i:end]
        if s[i] == "'":
            inner = raw[1:-1] if raw.endswith("'") and len(raw) > 1 else raw[1:]
            fixed = _double_quoted(inner)
            message = (f"this value's ' closes at column {close + 1}, before the text after it: write an apostrophe "
                       f"inside '...' as '', or put the value in double quotes: {fixed}")
        else:
            fixed = _single_quoted(raw)
            message = (f'text follows the " that closes this value at column {close + 1}: write a " inside "..." as '
                       f'\\", or put the whole value in single quotes: {fixed}')
        self.suspects.append(_Suspect(index, i, message, self.replaced(index, s[:i] + fixed + s[end:])))

    def text_after_bracket(self, index: int, s: str, char: str, value_col: int) -> None:
        end = _content_end(s, value_col)
        fixed = _double_quoted(s[value_col:end])
        what = "list" if char == "[" else "mapping"
        self.suspects.append(_Suspect(index, value_col, f"a value that starts with {char} is read as a {what}, and "
                                                        f"text follows its {_CLOSER[char]}: put the whole value in "
                                                        f"quotes: {fixed}",
                                      self.replaced(index, s[:value_col] + fixed + s[end:])))

    def colon_in_value(self, index: int, s: str, key: str, value_col: int) -> None:
        end = _content_end(s, value_col)
        fixed = _double_quoted(s[value_col:end])
        self.suspects.append(_Suspect(index, value_col, f"this value contains ': ', which YAML reads as the start of "
                                                        f"another key: put the whole value in quotes: {key}: {fixed}",
                                      self.replaced(index, s[:value_col] + fixed + s[end:])))


def _structure(scanner: _Scanner) -> None:
    """Suspects from the lines' indentation: a key deeper or shallower than every level above it, and a plain line
    among keys (a key that lost its ``:``)."""
    levels: list[tuple[int, int]] = []  # open block levels, innermost last: (column, a line at that column)
    pending = False  # the line above opened a block ("key:" or "-"): a deeper line starts it
    prev: _Line | None = None
    for position, rec in enumerate(scanner.records):
        if rec.indent < 0:
            levels, pending, prev = [], False, None
            continue
        if rec.in_flow:
            continue
        col = rec.indent
        if not levels or (pending and col > levels[-1][0]) or (pending and rec.dash and col == levels[-1][0]):
            levels.append((col, rec.index))
        elif any(level == col for level, _ in levels):
            while levels[-1][0] != col:
                levels.pop()
            levels[-1] = (col, rec.index)
        elif col > levels[-1][0] and prev is not None and prev.plain_value and rec.plain:
            continue  # a long plain value wrapped onto the next line
        else:  # the nearest level first (the deeper on a tie), then the level on its other side
            deeper = col > levels[-1][0]
            targets = [levels[-1]] if deeper else sorted(
                [max((lv for lv in levels if lv[0] < col), default=levels[0]), min(lv for lv in levels if lv[0] > col)],
                key=lambda lv: (abs(lv[0] - col), -lv[0]))
            scanner.suspects.extend(_misaligned(scanner, rec, target, deeper) for target in targets)
            while levels and levels[-1][0] > targets[0][0]:
                levels.pop()
            levels[-1] = (targets[0][0], rec.index)
        if rec.dash and rec.content > col and (rec.key is not None or rec.plain):
            levels.append((rec.content, rec.index))
        text = scanner.lines[rec.index]
        if rec.plain and text[rec.content] == "-" and prev is not None and prev.dash and prev.indent == col:
            fixed = f"- {text[rec.content + 1:].lstrip()}"
            scanner.suspects.append(_Suspect(rec.index, rec.content, f"a list item needs a space after its -: {fixed}",
                                             scanner.replaced(rec.index, text[:rec.content] + fixed)))
        elif rec.plain and _among_keys(scanner.records, position, rec):
            scanner.suspects.append(_no_colon(scanner, rec))
        pending, prev = rec.opens, rec


def _among_keys(records: list[_Line], position: int, rec: _Line) -> bool:
    """Whether the nearest line above or below ``rec`` (in the same document) is a key at ``rec``'s column: a plain
    line there is a key that lost its colon, not a value (a list of plain lines is not suspect)."""
    for step in (-1, 1):
        k = position + step
        while 0 <= k < len(records) and records[k].in_flow:
            k += step
        if 0 <= k < len(records) and records[k].indent >= 0 and records[k].key is not None:
            near = records[k]
            if (near.key_col if near.dash else near.indent) == rec.content:
                return True
    return False


def _label(s: str, rec: _Line, column: int | None = None) -> str:
    """How the message names a line at ``column`` (its indent by default): its key (``"hp:"``) when the key starts
    there, else its first words (``"- to: old_road"``)."""
    at = rec.indent if column is None else column
    if rec.key is not None and at == (rec.key_col if rec.dash else rec.indent):
        return f'"{rec.key}:"'
    words = s[at:_content_end(s, at)]
    words = words[:30] + ("..." if len(words) > 30 else "")
    return f"'{words}'" if '"' in words else f'"{words}"'


def _misaligned(scanner: _Scanner, rec: _Line, target: tuple[int, int], deeper: bool) -> _Suspect:
    s = scanner.lines[rec.index]
    column, sibling = target
    other = scanner.lines[sibling]
    other_rec = next(r for r in scanner.records if r.index == sibling)
    that = f"{_label(other, other_rec, column)} on line {scanner.n(sibling)}"
    if deeper:
        message = (f"{_label(s, rec)} is indented deeper than {that} above it: line it up with its siblings, at "
                   f"column {column + 1}")
    else:
        message = (f"{_label(s, rec)} starts at column {rec.indent + 1}, which lines up with no line above it: line it "
                   f"up with {that}, at column {column + 1}")

    def repair() -> list[str]:
        out = list(scanner.lines)
        delta = column - rec.indent
        for k in range(rec.index, len(out)):
            line = out[k]
            width = len(line) - len(line.lstrip(" "))
            if k > rec.index and line.strip() and width <= rec.indent:
                break
            out[k] = " " * max(width + delta, 0) + line[width:] if line.strip() else line
        return out

    return _Suspect(rec.index, rec.indent, message, repair)


def _no_colon(scanner: _Scanner, rec: _Line) -> _Suspect:
    s = scanner.lines[rec.index]
    end = _content_end(s, rec.content)
    key, _, value = s[rec.content:end].partition(" ")
    fixed = f"{key}: {value.strip()}" if value.strip() else f"{key}:"
    return _Suspect(rec.index, rec.content, f'"{s[rec.content:end][:40]}" has no \':\' after its key: add \': \' after '
                                            f'the key: {fixed}',
                    scanner.replaced(rec.index, s[:rec.content] + fixed + s[end:]))


# ----------------------------------------------------------------------------------------- confirming a suspect


def _first_error_line(text: str) -> int | None:
    """The 0-based line of the first syntax error in ``text`` (-1 when PyYAML names none), or None if it parses."""
    try:
        for _ in yaml.parse(text, Loader=_PARSER):
            pass
    except yaml.MarkedYAMLError as exc:
        return exc.problem_mark.line if exc.problem_mark is not None else -1
    except yaml.YAMLError:
        return -1
    return None


def _confirmed(text: str, lines: list[str], exc: yaml.YAMLError, offset: int) -> Diagnosis | None:
    """The first suspect (in line order, up to the error) whose repair fixes the error, or None."""
    original = _first_error_line(text)
    if original is None or original < 0:
        return None  # not a syntax error (an undefined alias, a second document): PyYAML's words are precise
    marks = [m for m in (getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)) if m is not None]
    last = max((m.line for m in marks), default=len(lines))
    scanner = _Scanner(lines, offset)
    scanner.scan()
    _structure(scanner)
    suspects = sorted((s for s in scanner.suspects if s.line <= last), key=lambda s: (s.line, s.column))
    for suspect in suspects[:_MAX_REPAIRS]:
        after = _first_error_line("\n".join(suspect.repair()))
        if after is None or after > original:
            return Diagnosis(suspect.line + 1 + offset, suspect.column + 1, suspect.message)
    return None


# ----------------------------------------------------------------------------------------- PyYAML's words, cleaned


def _tab(lines: list[str], at: tuple[int, int], offset: int) -> Diagnosis:
    line, column = at
    before = lines[line][:column] if line < len(lines) else ""
    if not before.strip(" \t-"):
        message = ("a tab is used for indentation: YAML needs spaces; replace the tab with spaces (set your editor to "
                   "insert spaces in YAML files)")
    else:
        message = "a tab separates the parts of this line: YAML needs spaces; replace the tab with a space"
    return Diagnosis(line + 1 + offset, column + 1, message)


_TOKENS = {
    "'<scalar>'": "a value", "'<block mapping start>'": "a new key", "'<block sequence start>'": "a new list item",
    "'<block end>'": "the end of the block", "<block end>": "the end of the block", "'<stream end>'":
        "the end of the file", "'-'": "a list item ('-')", "'<document start>'": "a '---' line",
    "'<flow mapping start>'": "a {", "'?'": "a new key", "'<flow sequence start>'": "a [", "did not find expected key":
        "expected another key here", "did not find expected '-' indicator": "expected another list item here",
    "expected <block end>, but found": "expected the block to end here, but found",
}


def _cleaned(problem: str) -> str:
    for token, words in _TOKENS.items():
        problem = problem.replace(token, words)
    return re.sub(r"<[^>]*>", "a value", problem)


def _fallback(lines: list[str], exc: yaml.YAMLError, at: tuple[int, int], offset: int) -> Diagnosis:
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    context = getattr(exc, "context", None) or ""
    start = getattr(exc, "context_mark", None)

    def here(line: int, column: int, message: str) -> Diagnosis:
        return Diagnosis(line + 1 + offset, column + 1, message)

    char = ""
    if start is not None and start.line < len(lines):
        char = lines[start.line][start.column:start.column + 1]
    if context.startswith("while scanning a quoted scalar") and start is not None and char in ("'", '"'):
        return here(start.line, start.column, f"the {char} that opens this value is never closed: add the closing "
                                              f"{char} at the end of the value")
    if context.startswith("while parsing a flow") and start is not None and char in _CLOSER:
        what = "list" if char == "[" else "mapping"
        return here(start.line, start.column, f"the {char} that opens this {what} is never closed (or a , is "
                                              f"missing in it): add {_CLOSER[char]} at the end of the {what}")
    if problem == "could not find expected ':'" and start is not None:
        return here(start.line, start.column, "this line has no ':' after its key: add ': ' after the key, or indent "
                                              "it under the line above if it continues that value")
    found = re.match(r"found character '(.+)' that cannot start any token", problem)
    if found:
        return here(*at, f"a value cannot start with {found[1]}: put the whole value in quotes")
    alias = re.match(r"found undefined alias '(.*)'", problem)
    if alias:
        return here(*at, f"*{alias[1]} reads as a reference to an anchor &{alias[1]} that does not exist: put the "
                         "value in quotes if the * is part of the text")
    if problem == "but found another document":
        return here(*at, "a second document starts here (a '---' line): a pack file holds one document; remove the "
                         "line")
    if problem == "mapping values are not allowed here":
        return here(*at, "a ': ' here starts a key where none can start: put the value in quotes if it contains ': ', "
                         "or line this key up with its siblings")
    if problem.startswith(("expected <block end>", "did not find expected")):
        return here(*at, f"this line does not line up with the lines above it ({_cleaned(problem)}): line it up with "
                         "its siblings, and check the line above for an unclosed quote")
    return here(*at, f"YAML cannot read this ({_cleaned(problem)}): check this line's indentation, quotes and "
                     "brackets, and the line above")
