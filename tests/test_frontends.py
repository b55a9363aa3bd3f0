"""Every frontend plays through the facade (``skald.engine``, ``skald.creation``) and none imports another: the HTTP
API imports nothing of the terminal, the recorder and the machine player nothing of either (the terminal may run the
recorder and the machine player: they are its commands), and ``skald.commands`` is the one place the terminal's
commands and ``serve`` meet. No frontend but the terminal's store tools (``skald db``, ``skald doctor``) opens the
store itself."""

from __future__ import annotations

import ast

from support import ROOT, imports_of

PACKAGE = ROOT / "backend" / "skald"
FORBIDDEN = {"api": ("skald.cli", "skald.replay", "skald.playtest"), "replay": ("skald.cli", "skald.api"),
             "playtest": ("skald.cli", "skald.api"), "cli": ("skald.api",)}


def test_no_frontend_imports_another():
    wrong = [f"{path.relative_to(ROOT)}:{line}: {module}"
             for frontend, banned in FORBIDDEN.items() for path in sorted((PACKAGE / frontend).rglob("*.py"))
             for line, module in imports_of(path) if module.startswith(banned)]
    assert wrong == []


def test_the_api_and_the_recorder_never_open_the_store():
    opened = [f"{path.relative_to(ROOT)}:{node.lineno}"
              for frontend in ("api", "replay") for path in sorted((PACKAGE / frontend).rglob("*.py"))
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.Attribute) and node.attr == "connection"
              and isinstance(node.value, ast.Attribute) and node.value.attr == "pool"]
    assert opened == []
