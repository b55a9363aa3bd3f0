"""``skald pack ...``: the designer's tools (validate, new, schema, show)."""

from __future__ import annotations

import typer

pack_app = typer.Typer(help="Era pack tools for designers: validate, new, schema, show.", no_args_is_help=True)
