"""Pieces every ``skald`` command shares."""

from __future__ import annotations

import typer

from skald.settings import Settings, SettingsError, get_settings


def settings_or_exit() -> Settings:
    """Settings, or a clear message and exit status 2 when the environment has unknown or invalid SKALD_*."""
    try:
        return get_settings()
    except SettingsError as exc:
        typer.echo(f"skald: {exc}", err=True)
        raise typer.Exit(2) from None
