"""Bounds on what a pack file may make the loader do (issue 34): a hostile or broken pack is refused at its file and
line, saying which bound it passed, before it can hang or crash the loader.

* **Size**: a pack file (YAML or Markdown) of at most :data:`MAX_FILE_BYTES`.
* **Nesting**: YAML nested at most :data:`MAX_DEPTH` collections deep. PyYAML builds its node tree recursively, so
  20,000 levels end in a ``RecursionError``; the depth is counted on the parser's events first, which need no
  recursion.
* **Expansion**: at most :data:`MAX_NODES` nodes once every alias is expanded (a "billion laughs" chain of anchors
  and aliases is a few lines that expand to billions of values, which the loader and validation would walk). The
  expanded size is counted on the node tree with each node's size worked out once, so counting costs as much as
  the file, not as much as the expansion.

The shipped packs are far inside all three (the largest file is a few kilobytes, nested 8 deep, with a few hundred
nodes).
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 100_000


class LimitExceeded(yaml.YAMLError):
    """A pack file over one of the bounds: ``line`` and ``column`` (1-based) where it goes over, and ``message``
    saying which bound and what to do."""

    def __init__(self, line: int, column: int, message: str):
        self.line, self.column, self.message = line, column, message
        super().__init__(f"line {line}, column {column}: {message}")


def check_size(size: int) -> None:
    """:raises LimitExceeded: ``size`` bytes is more than a pack file may hold."""
    if size > MAX_FILE_BYTES:
        raise LimitExceeded(1, 1, f"the file is {size:,} bytes; a pack file may hold at most {MAX_FILE_BYTES:,} "
                                  "(split it, or move long text into lore/ documents)")


def check_events(text: str, loader: type) -> None:
    """Count nesting on ``loader``'s parser events (no recursion, no values built).

    :raises LimitExceeded: nested deeper than :data:`MAX_DEPTH`. :raises yaml.YAMLError: the text does not parse.
    (The file's size is checked before it is read: :func:`check_size`, in the loader's ``_read_text``.)
    """
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                raise LimitExceeded(mark.line + 1, mark.column + 1,
                                    f"nested more than {MAX_DEPTH} levels deep; a pack never needs that many")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def check_expansion(node: yaml.Node | None) -> None:
    """:raises LimitExceeded: the node tree, every alias expanded, has more than :data:`MAX_NODES` nodes (said at
    the first node whose expansion goes over)."""
    sizes: dict[int, int] = {}

    def size(current: yaml.Node) -> int:
        key = id(current)
        if key in sizes:
            return sizes[key]
        sizes[key] = 1  # a node that contains itself (a recursive alias) counts once
        children: list[Any] = []
        if isinstance(current, yaml.MappingNode):
            children = [part for pair in current.value for part in pair]
        elif isinstance(current, yaml.SequenceNode):
            children = list(current.value)
        total = 1 + sum(size(child) for child in children)
        if total > MAX_NODES:
            mark = current.start_mark
            raise LimitExceeded(mark.line + 1, mark.column + 1,
                                f"this expands to more than {MAX_NODES:,} values once its aliases (*name) are "
                                "filled in; write the values out, or use fewer aliases of aliases")
        sizes[key] = total
        return total

    if node is not None:
        size(node)
