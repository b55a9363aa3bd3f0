"""Embedding functions for the lore index: wordllama (offline, the default) or an Ollama embedding model.

Both implement Chroma's ``EmbeddingFunction`` protocol (``__call__``, ``name()``, ``get_config()``,
``build_from_config()``) and are registered with Chroma, so a collection can be created with either one.
``name()`` is Chroma's identifier of the *class* (a static method, by Chroma's protocol); the model an
embedder actually runs, recorded in each collection's metadata, is :attr:`Embedder.model_name`
(``wordllama-256``, ``ollama:nomic-embed-text``).

wordllama is loaded only from the weights and tokenizer shipped inside the installed package, never from the
network, and once per process (``skald.word_vectors``, which the semantic fallback shares).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
from chromadb.utils.embedding_functions import register_embedding_function

from skald.word_vectors import WORDLLAMA_DIM, wordllama_model

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"


class Embedder(EmbeddingFunction[Documents]):
    """Text -> vectors. :attr:`model_name` identifies the model; vectors of different models never mix."""

    model_name: str

    @abstractmethod
    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order."""

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def __call__(self, input: Documents) -> Embeddings:  # noqa: A002 (Chroma's parameter name)
        return [np.asarray(v, dtype=np.float32) for v in self.embed(list(input))]

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine"]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.model_name}>"


@register_embedding_function
class WordLlamaEmbedder(Embedder):
    """wordllama ``l2_supercat`` at 256 dimensions: static token embeddings, about 0.1 ms per query on a CPU."""

    def __init__(self) -> None:
        self.model_name = f"wordllama-{WORDLLAMA_DIM}"

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return wordllama_model().embed(list(texts), norm=True).tolist()

    def vectors(self, texts: list[str]) -> np.ndarray:
        """Like :meth:`embed`, as one float32 array (no list conversion)."""
        return wordllama_model().embed(list(texts), norm=True)

    @staticmethod
    def name() -> str:
        return "skald-wordllama"

    def get_config(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> WordLlamaEmbedder:
        return WordLlamaEmbedder()


@register_embedding_function
class OllamaEmbedder(Embedder):
    """An Ollama embedding model through ``langchain_ollama.OllamaEmbeddings`` (created on first use)."""

    def __init__(self, model: str, base_url: str = DEFAULT_OLLAMA_URL, timeout_s: float = 30.0) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.model_name = f"ollama:{model}"
        self._client: Any = None

    def _embeddings(self) -> Any:
        if self._client is None:
            from langchain_ollama import OllamaEmbeddings

            self._client = OllamaEmbeddings(model=self.model, base_url=self.base_url,
                                            client_kwargs={"timeout": self.timeout_s})
        return self._client

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return [list(map(float, v)) for v in self._embeddings().embed_documents(list(texts))]

    def embed_one(self, text: str) -> list[float]:
        return list(map(float, self._embeddings().embed_query(text)))

    @staticmethod
    def name() -> str:
        return "skald-ollama"

    def get_config(self) -> dict[str, Any]:
        return {"model": self.model, "base_url": self.base_url, "timeout_s": self.timeout_s}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> OllamaEmbedder:
        return OllamaEmbedder(config["model"], config.get("base_url", DEFAULT_OLLAMA_URL),
                              float(config.get("timeout_s", 30.0)))


def embedder(spec: str = "wordllama", base_url: str = DEFAULT_OLLAMA_URL, timeout_s: float = 30.0) -> Embedder:
    """The embedder a setting names: ``wordllama`` (default) or ``ollama:<model>`` (``timeout_s`` per request).

    :raises ValueError: any other spec, with the accepted forms.
    """
    value = (spec or "wordllama").strip()
    if value.lower() in ("wordllama", f"wordllama-{WORDLLAMA_DIM}"):
        return WordLlamaEmbedder()
    if value.lower().startswith("ollama:") and value.split(":", 1)[1].strip():
        return OllamaEmbedder(value.split(":", 1)[1].strip(), base_url, timeout_s)
    raise ValueError(f"unknown embeddings {spec!r}: use 'wordllama' or 'ollama:<model>' "
                     "(e.g. ollama:nomic-embed-text)")
