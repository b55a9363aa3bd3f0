"""Reading a line from the terminal."""

from __future__ import annotations


def prompt_tty(prompt: str) -> str | None:
    """Interactive input; None at end of input (Ctrl-D)."""
    try:
        return input(prompt)
    except EOFError:
        return None
