"""Skald: a text role-playing game engine; deterministic rules, LLM-written prose."""

__version__ = "0.1.0"
