"""Skald's HTTP API: a thin FastAPI layer over the engine facade (``skald.engine``), the same the terminal uses (see
docs/api.md).

``create_app(db_path, ...)`` builds the application; ``skald serve`` runs it with uvicorn. FastAPI is imported only
when the application is built, so the ``skald`` command starts without it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from skald.api.app import create_app

        return create_app
    raise AttributeError(name)
