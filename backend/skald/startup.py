"""The ``skald`` process's entry point (``python -m skald`` and the installed ``skald`` script).

Python's cyclic garbage collector is paused while the modules import, then every object alive at that point (the
modules, their classes, compiled patterns and the libraries' own) is moved to the permanent generation with
``gc.freeze()`` and the collector resumes. Without it, full collections during the imports and the first turn walk
that whole heap again and again: about 110 ms of the ~1.1 s from process start to the first offline turn on a
2-core machine (``make bench``, start-up). Objects frozen this way are still freed by reference counting; only a
reference cycle among them would outlive its use, and the imported modules live as long as the process anyway.
A library user who imports ``skald`` is not affected: only this entry point does it.
"""

from __future__ import annotations

import gc


def main() -> None:
    """Run the ``skald`` command (``skald.commands.app``) with the collector paused for the imports."""
    gc.disable()
    try:
        from skald.commands import app
    finally:
        gc.freeze()
        gc.enable()
    app()
