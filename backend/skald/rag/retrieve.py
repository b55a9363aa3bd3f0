"""Read-only retrieval for the graph's nodes: lanes of pack knowledge, each within a token budget.

* :meth:`Retriever.lore` - lore documents, preferring chunks related to the entities on stage;
* :meth:`Retriever.style` - style guides (one of each of base / era / genre / archetype when the pack labels
  its style documents with those section kinds);
* :meth:`Retriever.voice` - how particular NPCs and companions talk;
* :meth:`Retriever.hooks` - quests and rumors as adventure hooks for the Director.

Scores are ``1 - cosine distance``. A lane takes chunks in its order (best first) while they fit the budget,
by ``llm.budget.estimate_tokens``; when not even the first fits, it is cut to the budget at a word boundary.

A lane never raises: it returns :class:`Found`, the hits and the warnings of that call. When the pack's index is
missing or stale, closed (the process is ending), or anything fails, the hits are empty and a warning says what to
run. Lanes may run on any number of threads at once. Warnings belong to the call
that met the problem (a turn reports its own, never another turn's).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from skald.core.pack import EraPack
from skald.llm.budget import TokenCounter
from skald.rag.chunking import rel_key
from skald.rag.store import IndexClosed, IndexStatus, LoreIndex
from skald.text import estimate_tokens

STYLE_KINDS = ("base", "era", "genre", "archetype")
RECHECK_SECONDS = 10.0  # how often a missing or stale index is looked at again (someone may be ingesting)
_QUERY_CACHE = 256


@dataclass(frozen=True)
class Hit:
    id: str
    text: str
    score: float
    source_path: str
    heading: str
    doc_type: str
    section_kind: str = ""
    related: tuple[str, ...] = ()

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


@dataclass(frozen=True)
class Found:
    """What one lane call found: the hits, best first, and warnings about anything that kept hits out."""

    hits: list[Hit]
    warnings: list[str]

    @property
    def ids(self) -> list[str]:
        return [hit.id for hit in self.hits]


def fit_budget(hits: list[Hit], budget: int | None) -> list[Hit]:
    """The hits, in order, that fit ``budget`` tokens together (a hit too big to fit is passed over for smaller
    later ones); when none fits, the first one cut to the budget. ``None``: no limit."""
    if budget is None:
        return list(hits)
    out: list[Hit] = []
    used = 0
    for hit in hits:
        if used + hit.tokens <= budget:
            out.append(hit)
            used += hit.tokens
    if not out and hits and budget > 0:
        first = hits[0]
        limit = budget * TokenCounter.CHARS_PER_TOKEN - 1
        cut = first.text[:limit].rsplit(None, 1)[0] if " " in first.text[:limit] else first.text[:limit]
        out.append(Hit(first.id, cut.rstrip(" ,;:") + "…", first.score, first.source_path, first.heading,
                       first.doc_type, first.section_kind, first.related))
    return out


@dataclass
class _PackState:
    pack: EraPack
    status: IndexStatus
    collection: Any
    checked: float


class Retriever:
    """Read-only lanes over a :class:`LoreIndex` for the given packs (more can be added with :meth:`set_pack`;
    a pack id not given is loaded with ``get_pack`` on first use)."""

    def __init__(self, index: LoreIndex, packs: EraPack | Iterable[EraPack] = ()) -> None:
        self.index = index
        self._packs: dict[str, EraPack] = {}
        self._state: dict[str, _PackState] = {}
        self._vectors: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()  # nodes may run in threads: the caches are shared
        for pack in [packs] if isinstance(packs, EraPack) else packs:
            self.set_pack(pack)

    # --- packs and state -------------------------------------------------------------------------------------
    def set_pack(self, pack: EraPack) -> None:
        """Use this version of the pack (e.g. after a reload); its index status is checked again on next use."""
        self._packs[pack.id] = pack
        state = self._state.get(pack.id)
        if state is not None and state.pack.content_hash != pack.content_hash:
            del self._state[pack.id]

    def status(self, pack_id: str) -> IndexStatus:
        """The pack's index status (``missing`` with the reason when the pack or the store cannot be read)."""
        try:
            with self.index.using():
                state = self._pack_state(pack_id, [])
        except Exception as exc:  # never raises into a caller
            return IndexStatus("missing", f"{type(exc).__name__}: {exc}")
        return state.status if state else IndexStatus("missing", "pack not available")

    def packs(self) -> dict[str, EraPack]:
        """The packs this retriever knows, by id."""
        return dict(self._packs)

    @staticmethod
    def _warn(notes: list[str], message: str) -> None:
        if message not in notes:
            notes.append(message)

    def _pack_state(self, pack_id: str, notes: list[str]) -> _PackState | None:
        state = self._state.get(pack_id)
        now = time.monotonic()
        if state is not None and (state.status.state == "ok" or now - state.checked < RECHECK_SECONDS):
            return state
        pack = self._packs.get(pack_id)
        if pack is None:
            from skald.packs.loader import get_pack

            try:
                pack = self._packs[pack_id] = get_pack(pack_id)
            except Exception as exc:  # PackError, missing folder: no retrieval, say why
                self._warn(notes, f"retrieval: pack {pack_id} could not be loaded ({str(exc).splitlines()[0]})")
                return None
        status = self.index.check(pack)
        collection = self.index.collection(pack_id) if status.state == "ok" else None
        state = self._state[pack_id] = _PackState(pack, status, collection, now)
        return state

    def _collection(self, pack_id: str, notes: list[str]) -> Any | None:
        state = self._pack_state(pack_id, notes)
        if state is None:
            return None
        if state.status.state == "missing":
            self._warn(notes, f"retrieval: the lore index for {pack_id} is missing; run `skald ingest {pack_id}`")
            return None
        if state.status.state == "stale":
            detail = state.status.reason or "files changed since ingest"
            if detail.startswith("files changed"):
                detail = "files changed since ingest"
            self._warn(notes, f"retrieval: the lore index for {pack_id} is stale ({detail}); run "
                              f"`skald ingest {pack_id}`")
            return None
        return state.collection

    # --- querying --------------------------------------------------------------------------------------------
    def _vector(self, query: str) -> list[float]:
        with self._lock:
            vector = self._vectors.get(query)
            if vector is not None:
                self._vectors.move_to_end(query)
                return vector
        vector = self.index.embed.embed_one(query)
        with self._lock:
            self._vectors[query] = vector
            if len(self._vectors) > _QUERY_CACHE:
                self._vectors.popitem(last=False)
        return vector

    @staticmethod
    def _where(doc_type: str, entities: Iterable[str] = ()) -> dict[str, Any]:
        keys = [{rel_key(e): True} for e in dict.fromkeys(entities) if e]
        if not keys:
            return {"doc_type": doc_type}
        related = keys[0] if len(keys) == 1 else {"$or": keys}
        return {"$and": [{"doc_type": doc_type}, related]}

    @staticmethod
    def _hits(ids: list[str], documents: list[str], metadatas: list[dict[str, Any]],
              scores: list[float]) -> list[Hit]:
        out = []
        for chunk_id, text, meta, score in zip(ids, documents, metadatas, scores, strict=True):
            meta = meta or {}
            related = tuple(r for r in str(meta.get("related", "")).split(",") if r)
            out.append(Hit(chunk_id, text or "", float(score), str(meta.get("path", "")), str(meta.get("heading", "")),
                           str(meta.get("doc_type", "")), str(meta.get("section_kind", "")), related))
        return out

    def _query(self, collection: Any, query: str, where: dict[str, Any], n: int) -> list[Hit]:
        if n <= 0:
            return []
        result = collection.query(query_embeddings=[self._vector(query)], n_results=n, where=where,
                                  include=["documents", "metadatas", "distances"])
        return self._hits(result["ids"][0], result["documents"][0], result["metadatas"][0],
                          [1.0 - d for d in result["distances"][0]])

    def _lane(self, lane: str, pack_id: str, run: Any) -> Found:
        from chromadb.errors import NotFoundError

        notes: list[str] = []
        try:
            with self.index.using():  # the store stays open until the lane is done (store.close_stores waits)
                for attempt in (1, 2):
                    try:
                        collection = self._collection(pack_id, notes)
                        return Found([] if collection is None else run(collection), notes)
                    except NotFoundError:  # the collection was dropped under us (an ingest --rebuild): look again
                        self._state.pop(pack_id, None)
                        if attempt == 2:
                            self._warn(notes, f"retrieval: the lore index for {pack_id} changed during the query; "
                                              f"run `skald lore status {pack_id}`")
        except IndexClosed:
            self._warn(notes, f"retrieval: the {lane} lane was not run: the lore index is closed (Skald is ending)")
        except Exception as exc:  # retrieval must never break a turn
            self._state.pop(pack_id, None)
            self._warn(notes, f"retrieval: the {lane} lane failed for {pack_id}: {type(exc).__name__}: {exc}")
        return Found([], notes)

    # --- lanes -----------------------------------------------------------------------------------------------
    def lore(self, pack_id: str, query: str, entities: Iterable[str] = (), k: int = 4,
             budget: int | None = 400) -> Found:
        """Lore chunks for ``query``: those related to ``entities`` first (best first), topped up to ``k`` with the
        best unrelated ones when fewer than ``k`` are related."""
        entities = list(entities)

        def run(collection: Any) -> list[Hit]:
            return fit_budget(self._preferring(collection, "lore", query, entities, k), budget)

        return self._lane("lore", pack_id, run)

    def _preferring(self, collection: Any, doc_type: str, query: str, entities: list[str], k: int) -> list[Hit]:
        hits = self._query(collection, query, self._where(doc_type, entities), k) if entities else []
        if len(hits) < k:
            seen = {hit.id for hit in hits}
            more = self._query(collection, query, self._where(doc_type), k + len(hits))
            hits += [hit for hit in more if hit.id not in seen][:k - len(hits)]
        return hits

    def style(self, pack_id: str, query: str, k: int = 2, budget: int | None = 300) -> Found:
        """Style chunks: when the pack's style documents use the section kinds base / era / genre / archetype,
        the best chunk of each kind present (in that order); otherwise the top ``k``."""

        def run(collection: Any) -> list[Hit]:
            hits = self._query(collection, query, {"doc_type": "style"}, max(k, 32))
            best: dict[str, Hit] = {}
            for hit in hits:
                if hit.section_kind in STYLE_KINDS:
                    best.setdefault(hit.section_kind, hit)
            chosen = [best[kind] for kind in STYLE_KINDS if kind in best] if best else hits[:k]
            return fit_budget(chosen, budget)

        return self._lane("style", pack_id, run)

    def voice(self, pack_id: str, ids: Iterable[str], query: str = "", k: int = 2,
              budget: int | None = 300) -> Found:
        """Voice chunks for each NPC or companion id (``k`` per id, the speaker's own voice document first),
        taken in turn across ids so every speaker gets a share of the budget. With a ``query``, each id's chunks
        are ranked by it (and with no ids, the best ``k`` voice chunks overall); without one, in document
        order with score 1."""
        ids = [i for i in dict.fromkeys(ids) if i]

        def per_id(collection: Any, entity: str) -> list[Hit]:
            where = self._where("voice", [entity])
            if query:
                hits = self._query(collection, query, where, max(k, 8))
            else:
                got = collection.get(where=where, include=["documents", "metadatas"])
                order = sorted(range(len(got["ids"])), key=lambda i: (got["metadatas"][i].get("primary") != entity,
                                                                       got["metadatas"][i].get("path", ""),
                                                                       got["metadatas"][i].get("n", 0)))
                hits = self._hits([got["ids"][i] for i in order], [got["documents"][i] for i in order],
                                  [got["metadatas"][i] for i in order], [1.0] * len(order))
            own = [h for h in hits if h.related[:1] == (entity,)]
            return (own + [h for h in hits if h.related[:1] != (entity,)])[:k]

        def run(collection: Any) -> list[Hit]:
            if not ids:
                return fit_budget(self._query(collection, query, {"doc_type": "voice"}, k), budget) if query else []
            lists = [per_id(collection, entity) for entity in ids]
            merged: list[Hit] = []
            seen: set[str] = set()
            for rank in range(k):
                for hits in lists:
                    if rank < len(hits) and hits[rank].id not in seen:
                        merged.append(hits[rank])
                        seen.add(hits[rank].id)
            return fit_budget(merged, budget)

        return self._lane("voice", pack_id, run)

    def hooks(self, pack_id: str, query: str, k: int = 3, budget: int | None = 300,
              entities: Iterable[str] = ()) -> Found:
        """Adventure hooks (quests and rumors) for ``query``; with ``entities``, those related to them first."""
        entities = list(entities)

        def run(collection: Any) -> list[Hit]:
            return fit_budget(self._preferring(collection, "hook", query, entities, k), budget)

        return self._lane("hooks", pack_id, run)

    def lane(self, name: str, pack_id: str, query: str, entities: Iterable[str] = (), k: int = 4,
             budget: int | None = None) -> Found:
        """Any lane by name (``lore``, ``style``, ``voice``, ``hook``/``hooks``), as the CLI and bench use them."""
        if name == "lore":
            return self.lore(pack_id, query, entities, k=k, budget=budget)
        if name == "style":
            return self.style(pack_id, query, k=k, budget=budget)
        if name == "voice":
            return self.voice(pack_id, entities, query=query, k=k, budget=budget)
        if name in ("hook", "hooks"):
            return self.hooks(pack_id, query, k=k, budget=budget, entities=entities)
        raise ValueError(f"unknown lane {name!r}: lore, style, voice or hook")
