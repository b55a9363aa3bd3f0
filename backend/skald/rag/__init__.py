"""Retrieval: the pack's lore, style and voice documents in a Chroma store, embedded offline with wordllama."""
