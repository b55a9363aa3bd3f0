"""docs/architecture.md's mermaid diagram must match the compiled graph edge for edge."""

from __future__ import annotations

import re

from skald.graph import compiled_graph
from support import ROOT

EDGE = re.compile(r"^\s*(\w+)(?:\(\[\w+\]\))?\s*(-->|-\.->)(?:\|\w+\|)?\s*(\w+)")


def test_diagram_edges_match_the_compiled_graph():
    doc = (ROOT / "docs" / "architecture.md").read_text()
    block = doc.split("```mermaid", 1)[1].split("```", 1)[0]
    drawn = set()
    for line in block.splitlines():
        match = EDGE.match(line)
        if match:
            a, _, b = match.groups()
            drawn.add(({"START": "__start__"}.get(a, a), {"END": "__end__"}.get(b, b)))
    actual = {(e.source, e.target) for e in compiled_graph().get_graph().edges}
    assert drawn == actual
