"""``python -m skald``: the ``skald`` command (see :mod:`skald.startup`)."""

from skald.startup import main

main()
