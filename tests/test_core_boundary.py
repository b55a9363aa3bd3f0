"""The data core (``skald.core``) is the floor everything stands on: its modules import only each other, the text
helpers (``skald.text``, ``skald.words``), the errors (``skald.errors``), the standard library and the libraries
that define shapes (pydantic, PyYAML). Never the rules, the LLM roles, retrieval, the store, the nodes, the graph,
the packs' loader and tools, or a frontend, not even inside a function or for type checking: a shape that needs a
rule belongs above the rules (as ``skald.views`` builds the views ``skald.core.views`` defines)."""

from __future__ import annotations

import sys

from support import ROOT, imports_of

CORE = ROOT / "backend" / "skald" / "core"
ALLOWED_SKALD = ("skald.core", "skald.text", "skald.words", "skald.errors")
ALLOWED_OTHERS = {"pydantic", "yaml"}


def _allowed(module: str) -> bool:
    if module == "skald" or module.startswith("skald."):
        return any(module == a or module.startswith(a + ".") for a in ALLOWED_SKALD)
    top = module.split(".")[0]
    return top in sys.stdlib_module_names or top in ALLOWED_OTHERS or top == "__future__"


def test_the_core_imports_nothing_above_it():
    wrong = [f"{path.relative_to(ROOT)}:{line}: {module}" for path in sorted(CORE.glob("*.py"))
             for line, module in imports_of(path) if not _allowed(module)]
    assert wrong == []


def test_the_check_sees_a_forbidden_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("def f():\n    from skald.rules import dice\n    from skald import store\n", encoding="utf-8")
    assert [m for _, m in imports_of(planted) if not _allowed(m)] == ["skald.rules", "skald.store"]


def test_the_text_helpers_and_errors_the_core_may_import_import_no_more_of_skald():
    for name in ("text", "words", "errors"):
        path = ROOT / "backend" / "skald" / f"{name}.py"
        assert [m for _, m in imports_of(path) if m.startswith("skald") and not _allowed(m)] == [], name
