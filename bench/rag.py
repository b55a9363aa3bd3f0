"""Retrieval: ingest every shipped pack into an empty store (target < 30 s), ingest again with nothing changed
(target < 2 s), and the latency of each lane over 200 queries (target p50 < 20 ms)."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from skald.packs.loader import PackError, available_packs, load_pack
from skald.rag.embeddings import embedder
from skald.rag.retrieve import Retriever
from skald.rag.store import LoreIndex, ingest

QUERIES = 200
GENERIC = ("who runs this place", "a fight breaks out in the bar", "the weather turns", "someone owes money",
           "what do people fear at night", "an old ruin", "a deal goes wrong", "the law comes to town")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _queries(packs: list) -> list[tuple[str, str, list[str]]]:
    """(pack id, query, entities on stage): document titles and headings, quest titles, NPC roles, generic."""
    out: list[tuple[str, str, list[str]]] = []
    for pack in packs:
        npcs = list(pack.npcs.values())
        texts = [doc.meta.title for doc in pack.docs.values()] + [q.title for q in pack.quests.values()]
        texts += [f"{n.name} the {n.role}" for n in npcs] + list(GENERIC)
        for i, text in enumerate(texts):
            entities = [npcs[i % len(npcs)].id, npcs[i % len(npcs)].location] if npcs and i % 2 else []
            out.append((pack.id, text, entities))
    repeated = (out * (QUERIES // max(1, len(out)) + 1))[:QUERIES]
    return [(pack_id, f"{text} ({i})", entities) for i, (pack_id, text, entities) in enumerate(repeated)]  # no cache


def run() -> list[str]:
    packs, broken = [], []
    for pack_id in available_packs():
        try:
            packs.append(load_pack(pack_id))
        except PackError:
            broken.append(pack_id)
    embed = embedder("wordllama")
    lines = [f"retrieval, {len(packs)} shipped pack(s) ({', '.join(p.id for p in packs)}), {embed.model_name}"
             + (f"; skipped, not loading: {', '.join(broken)}" if broken else "")]
    with tempfile.TemporaryDirectory() as tmp:
        index = LoreIndex(Path(tmp) / "chroma", embed)
        started = time.perf_counter()
        first = ingest(index, packs)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        again = ingest(index, packs)
        warm = time.perf_counter() - started
        lines.append(f"  ingest into an empty store: {cold:.2f} s, {first.added} sources, {first.chunks} chunks "
                     "(model load included)   (target < 30 s)")
        lines.append(f"  ingest again, nothing changed: {warm * 1000:.0f} ms, {again.skipped} skipped, "
                     f"{again.chunks} chunks written   (target < 2000 ms)")
        retriever = Retriever(index, packs)
        queries = _queries(packs)
        warnings: list[str] = []
        for lane in ("lore", "style", "voice", "hook"):
            times = []
            for pack_id, text, entities in queries:
                npcs = retriever.packs()[pack_id].npcs
                ids = [e for e in entities if e in npcs] or list(npcs)[:1]
                started = time.perf_counter()
                if lane == "lore":
                    found = retriever.lore(pack_id, text, entities)
                elif lane == "style":
                    found = retriever.style(pack_id, text)
                elif lane == "voice":
                    found = retriever.voice(pack_id, ids)
                else:
                    found = retriever.hooks(pack_id, text)
                times.append((time.perf_counter() - started) * 1000)
                warnings += [w for w in found.warnings if w not in warnings]
            lines.append(f"  {lane:<5} lane, {len(times)} queries: p50 {statistics.median(times):.2f} ms, "
                         f"p99 {_percentile(times, 0.99):.2f} ms   (target p50 < 20 ms)")
        lines += [f"  warning: {w}" for w in warnings]
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
