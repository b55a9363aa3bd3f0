"""Skald's HTTP API: a thin FastAPI layer over the same ``run_turn`` the terminal uses (see docs/api.md).

``create_app(db_path, ...)`` builds the application; ``skald serve`` runs it with uvicorn.
"""

from skald.api.app import create_app

__all__ = ["create_app"]
