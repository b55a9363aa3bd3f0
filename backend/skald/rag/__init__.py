"""Retrieval: the pack's lore, style and voice documents in a Chroma store, embedded offline with wordllama.

* :mod:`skald.rag.embeddings` - ``embedder("wordllama" | "ollama:<model>")``: Chroma embedding functions;
* :mod:`skald.rag.chunking` - documents cut at headings into chunks; quests and rumors as hook chunks;
* :mod:`skald.rag.store` - ``LoreIndex`` (one collection per pack) and incremental ``ingest``;
* :mod:`skald.rag.retrieve` - ``Retriever``: the read-only lanes (lore, style, voice, hooks) nodes use.

Nothing is imported here, so ``import skald.rag`` stays cheap; importing the modules loads chromadb.
"""
