"""Every module imports only from its own floor and the floors below it, imports inside functions included: the
floors ``docs/architecture.md`` draws, held here, so a new import that reaches up is caught when it is written."""

from __future__ import annotations

import re

from support import ROOT
from test_import_graph import PACKAGE, _imports, _module

# Bottom to top; a module is on the floor of the longest name below that it is or sits inside.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("skald", "skald.text", "skald.words", "skald.errors", "skald.settings", "skald.logs",
              "skald.wallclock", "skald.turn_cancel", "skald.shutdown", "skald.store_targets",
              "skald.word_vectors")),
    ("core", ("skald.core",)),
    ("store", ("skald.store",)),
    ("packs", ("skald.packs",)),
    ("rules", ("skald.rules", "skald.views", "skald.meta_commands")),
    ("roles", ("skald.llm", "skald.rag")),
    ("graph", ("skald.graph", "skald.context", "skald.nodes")),
    ("designer", ("skald.designer",)),
    ("facade", ("skald.engine", "skald.creation")),
    ("frontends", ("skald.cli", "skald.api", "skald.replay", "skald.playtest", "skald.commands", "skald.startup",
                   "skald.__main__")),
)


def floor_of(module: str) -> int:
    """The index in :data:`FLOORS` of ``module``'s floor. :raises LookupError: a module no floor names."""
    best = None
    for level, (_name, names) in enumerate(FLOORS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and (best is None or len(name) > len(best[1])):
                best = (level, name)
    if best is None or (best[1] == "skald" and module != "skald"):
        raise LookupError(f"{module} is on no floor: add it to FLOORS here and to docs/architecture.md's drawing")
    return best[0]


def test_every_module_is_on_a_floor():
    for path in sorted(PACKAGE.rglob("*.py")):
        floor_of(_module(path))


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Each import in ``graph`` (module -> the modules it imports) that reaches a floor above the importer's."""
    found = []
    for me, imported in sorted(graph.items()):
        for other in sorted(imported):
            if floor_of(other) > floor_of(me):
                found.append(f"{me} ({FLOORS[floor_of(me)][0]}) imports {other} ({FLOORS[floor_of(other)][0]})")
    return found


def test_no_module_imports_from_a_floor_above_its_own():
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module(p) for p in paths}
    found = upward({_module(p): _imports(p, modules) for p in paths})
    assert found == [], "\n".join(found)


def test_the_floors_are_the_ones_the_architecture_draws():
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = doc[doc.index("Skald stands on floors"):doc.index("`tests/test_core_boundary.py`")]
    drawn = [m.group(1) for m in re.finditer(r"^([a-z]+) {2,}", drawing, re.M)]
    assert drawn == [name for name, _ in reversed(FLOORS)]
    for _name, names in FLOORS:
        for name in names[1:] if names[0] == "skald" else names:
            shown = name.removeprefix("skald.").replace(".", "/")
            assert re.search(rf"\b{re.escape(shown)}(?:/|\.py)", drawing), f"{shown} is not in the drawing"


def test_the_check_catches_an_import_that_reaches_up():
    graph = {"skald.rules.parser": {"skald.llm.prompts", "skald.core.pack"}, "skald.settings": {"skald.store.db"},
             "skald.engine": {"skald.graph"}}
    assert upward(graph) == ["skald.rules.parser (rules) imports skald.llm.prompts (roles)",
                             "skald.settings (base) imports skald.store.db (store)"]
