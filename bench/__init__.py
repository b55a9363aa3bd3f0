"""Benchmarks, run with ``make bench`` (``python -m bench``). Figures are printed, never asserted in tests."""
