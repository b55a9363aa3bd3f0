"""The wordllama model: static token embeddings (``l2_supercat`` truncated to 256 dimensions), the offline vectors
of both the semantic fallback (``rules.semantic``) and the lore index (``rag.embeddings.WordLlamaEmbedder``).

It is loaded once per process, on first use, from the weights and tokenizer shipped inside the installed
``wordllama`` package (``cache_dir=<package dir>, disable_download=True``): never from the network. Imports nothing
of Skald's, so a rule and the lore index share one model without either importing the other's floor.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

WORDLLAMA_CONFIG = "l2_supercat"
WORDLLAMA_DIM = 256

_lock = threading.Lock()
_model: Any = None


def wordllama_model() -> Any:
    """The process's ``wordllama.WordLlama`` (``embed(texts, norm=True)`` gives ``(len(texts), 256)`` float32)."""
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                import wordllama
                from wordllama import WordLlama

                _model = WordLlama.load(config=WORDLLAMA_CONFIG, dim=WORDLLAMA_DIM,
                                        cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    return _model


def loaded() -> bool:
    """Whether the model has been loaded in this process (tests check that a path never loads it)."""
    return _model is not None
