"""docs/architecture.md shows the graph LangGraph draws from the compiled graph (refreshed by ``make docs``)."""

from __future__ import annotations

import importlib.util

from support import ROOT


def _diagram():
    spec = importlib.util.spec_from_file_location("diagram", ROOT / "docs" / "diagram.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_documented_diagram_is_the_compiled_graphs():
    diagram = _diagram()
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert diagram.drawn(text) == diagram.block(), "the graph changed: run `make docs` and commit the diagram"


def test_every_node_is_documented_with_its_module():
    from skald.graph import NODES

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for name in NODES:
        assert f"| {name} | `nodes/{name}.py` |" in text, name
