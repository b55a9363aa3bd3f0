"""The HTTP API is assembled from one ``APIRouter`` module per resource (``skald/api/routes/``): ``create_app`` only
builds the engine and its services and includes them, and no function of the API runs past 80 lines."""

from __future__ import annotations

import ast

from skald.api.routes import ROUTERS
from support import ROOT

API = ROOT / "backend" / "skald" / "api"


def test_no_function_of_the_api_runs_past_80_lines():
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in sorted(API.rglob("*.py"))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno >= 80]
    assert long == []


def test_every_route_lives_in_a_router_module_and_app_defines_none():
    tree = ast.parse((API / "app.py").read_text(encoding="utf-8"))
    decorated = [node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                 for d in node.decorator_list if isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute)
                 and d.func.attr in ("get", "post", "put", "delete", "patch")]
    assert decorated == []
    paths = [route.path for router in ROUTERS for route in router.routes]
    assert "/campaigns/{campaign_id}/turns" in paths and "/campaigns/{campaign_id}/undo" in paths
    assert len(paths) == len(set((route.path, tuple(sorted(route.methods))) for router in ROUTERS
                                 for route in router.routes))
