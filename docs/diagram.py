"""Refresh the turn graph's diagram in docs/architecture.md from the compiled graph (``make docs``).

The diagram between the two markers is LangGraph's own ``draw_mermaid()`` of the graph Skald compiles; nothing in
it is written by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOC = Path(__file__).resolve().parent / "architecture.md"
BEGIN = "<!-- graph: drawn by LangGraph from the compiled graph; `make docs` refreshes it -->"
END = "<!-- end of graph -->"


def block() -> str:
    from skald.graph import mermaid

    return f"{BEGIN}\n```mermaid\n{mermaid().rstrip()}\n```\n{END}"


def drawn(text: str) -> str:
    """The diagram block as it stands in ``text`` (markers included)."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    fresh = text.replace(drawn(text), block())
    if fresh != text:
        DOC.write_text(fresh, encoding="utf-8")
        print(f"updated the diagram in {DOC}")
    else:
        print(f"the diagram in {DOC} is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
