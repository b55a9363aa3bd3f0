"""Recorded sessions: record play with any LLM, replay it without one, and show what changed."""
