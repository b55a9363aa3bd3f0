"""The retriever as nodes get it: opened on first use only (chromadb and the embedding model cost about a second
to load, and offline turns never need them), and told which pack the turn plays."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from skald.core.pack import EraPack


class LazyRetriever:
    """Builds a ``skald.rag.retrieve.Retriever`` over the index at ``path`` when a lane is first asked for.

    :param path: the Chroma folder (``SKALD_CHROMA_PATH``).
    :param embeddings: ``wordllama`` or ``ollama:<model>``.
    """

    def __init__(self, path: Path, embeddings: str = "wordllama", base_url: str = "http://127.0.0.1:11434"):
        self.path = Path(path)
        self.embeddings = embeddings
        self.base_url = base_url
        self._real: Any = None
        self._packs: set[tuple[str, str]] = set()
        self._lock = threading.Lock()  # API turns run in parallel threads

    def real(self, pack: EraPack) -> Any:
        with self._lock:
            if self._real is None:
                from skald.rag.embeddings import embedder
                from skald.rag.retrieve import Retriever
                from skald.rag.store import LoreIndex

                self._real = Retriever(LoreIndex(self.path, embedder(self.embeddings, self.base_url)))
            if (pack.id, pack.content_hash) not in self._packs:
                self._real.set_pack(pack)
                self._packs.add((pack.id, pack.content_hash))
            return self._real

    def embed(self, pack: EraPack, texts: list[str]) -> list[list[float]]:
        """Embeddings with the index's model (for episodic memory), one vector per text.

        :raises skald.rag.store.IndexClosed: the process is ending (``skald.shutdown``)."""
        index = self.real(pack).index
        with index.using():  # the tokenizer is native code too: a closing process waits for it
            return index.embed.embed(texts)



def private_index(packs: list[EraPack], embeddings: str = "wordllama") -> LazyRetriever:
    """A fresh index of ``packs`` in a temporary folder, so recordings and replays see the same lore whatever the
    state of the player's ``data/chroma``. Costs about a second."""
    from skald.rag.embeddings import embedder
    from skald.rag.store import LoreIndex, ingest

    path = Path(tempfile.mkdtemp(prefix="skald-index-"))
    ingest(LoreIndex(path, embedder(embeddings)), packs)
    return LazyRetriever(path, embeddings)
