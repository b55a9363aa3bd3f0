"""Retrieval: chunking, the embedders, incremental ingest into Chroma, index status, the lanes and the CLI.

Every test builds its own small pack ("ragtest", written below) and its own store in a temporary folder.
"""

from __future__ import annotations

import hashlib
import math
import re
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import typer
from chromadb.utils.embedding_functions import register_embedding_function
from skald.packs.loader import load_pack
from skald.rag.chunking import MAX_WORDS, chunk_doc, hook_sources, pack_sources, sections, source_hashes, split_section
from skald.rag.embeddings import Embedder, OllamaEmbedder, WordLlamaEmbedder, embedder
from skald.rag.retrieve import Found, Retriever, estimate_tokens, fit_budget
from skald.rag.store import IndexClosed, LoreIndex, close_stores, collection_name, ingest, read_manifest
from skald.word_vectors import wordllama_model
from typer.testing import CliRunner

PACK_FILES = {
    "era.yaml": """
id: ragtest
name: Lantern Vale
era: The Quiet Years
tone: Small, warm and a little uneasy.
themes: [tolls, old roads]
start_locations: [lantern_inn]
style: Second person, present tense, short plain sentences.
rules:
  defeat:
    recover_location: lantern_inn
    text: You wake by the inn's fire with a sore head.
items:
  - id: lamp
    name: Lamp
    description: A tin lamp with a good wick.
""",
    "locations.yaml": """
- id: lantern_inn
  name: The Lantern Inn
  type: bar
  description: A low inn with one fire and too many chairs.
  faction: wardens
  links: [{to: old_road, minutes: 60}]
- id: old_road
  name: The Old Road
  type: wilds
  description: A rutted road between dark hedges.
  links: [{to: lantern_inn, minutes: 60}]
""",
    "npcs.yaml": """
- id: mara_vell
  name: Mara Vell
  role: innkeeper
  location: lantern_inn
  faction: wardens
  description: A tall woman with flour on her sleeves.
- id: tam_rook
  name: Tam Rook
  role: toll keeper
  location: old_road
  description: A bored man with a lantern and a ledger.
""",
    "factions.yaml": """
- id: wardens
  name: The Road Wardens
  description: Volunteers who keep the old road open.
  agenda: Keep the toll fair and the wolves away.
  moves: ["{faction} post a new toll notice."]
""",
    "companions.yaml": """
- id: ivo_brand
  name: Ivo Brand
  role: carter
  location: lantern_inn
  description: A big, patient man.
  banter: [Roads are just long rooms with no roof.]
""",
    "backgrounds.yaml": """
- id: drifter
  name: Drifter
  description: You came in on the old road.
  stats: {might: 11, agility: 12, wits: 10, presence: 9}
  hp: 10
  credits: 20
""",
    "rumors.yaml": """
- id: road_toll
  text: The wardens doubled the toll on the old road and nobody knows where the money goes.
  location: old_road
  faction: wardens
  public: true
- id: hidden_cache
  text: Somebody hides stolen cheese under the hedges by the inn.
  location: lantern_inn
  "true": false
""",
    "quests.yaml": """
- id: fair_toll
  title: A Fair Toll
  giver: mara_vell
  summary: Mara wants to know why the toll on the old road went up.
  stages:
    - id: walk_road
      objective: Walk the old road and count the toll posts.
      when: {location: old_road}
""",
    "namebanks.yaml": """
given: [Alda, Bram, Cora, Dunn]
family: [Ashby, Brook, Coll, Dray]
roles: [drover, tinker]
looks: [a mud-spattered coat, a wide straw hat]
""",
}

CELLAR = "\n\n".join(
    " ".join([f"The cellar under the inn keeps barrels of {thing}, and the stone stays cool all summer."] * 6)
    for thing in ("cider", "salted pork", "pickled onions"))
DOCS = {
    "lore/lantern_inn.md": ("The Lantern Inn", "lore", "place", ["inn", "fire"], ["lantern_inn", "mara_vell"], f"""
The inn has stood at the crossroads for a hundred years, a low house of grey stone.

## The Fire
The great hearth never goes out. Mara Vell banks it with peat every night and says a cold hearth is bad luck.

## The Cellar
{CELLAR}

### Old Barrels
Nobody has opened the oldest barrels since the flood.

```
# not a heading, a comment in a code block
```
"""),
    "lore/the_toll.md": ("The Toll", "lore", "custom", ["money", "tolls"], ["tam_rook", "old_road", "wardens"],
                         "The toll on the old road is a copper a cart and two for a cart with a lamp. Tam Rook keeps "
                         "the ledger of every coin and every cart, and the wardens count the money each market day."),
    "lore/wolves.md": ("Wolves of the Road", "lore", "custom", ["wolves", "danger", "night"], ["old_road"],
                       "Thin grey wolves hunt along the hedges at night. They howl before they attack, and they "
                       "never come near a lit lamp. Travellers walk in pairs after dark."),
    "style/base.md": ("Base style", "style", "base", ["narration"], [],
                      "Second person, present tense. Short sentences; one sensory detail per beat."),
    "style/era.md": ("The Quiet Years", "style", "era", ["narration"], [],
                     "The Quiet Years are poor but peaceful; people mend rather than buy."),
    "style/genre.md": ("Cosy mystery", "style", "genre", ["narration"], [],
                       "Small stakes, real feelings: a missing cheese matters as much as a murder."),
    "style/archetype.md": ("The drifter", "style", "archetype", ["narration"], [],
                           "The player is a newcomer: people explain local things to them, a little slowly."),
    "voices/mara_vell.md": ("Voice of Mara Vell", "voice", "person", ["innkeeper"], ["mara_vell", "lantern_inn"],
                            "Mara talks warmly and fast, calls everyone love, and always asks about the weather "
                            "on the road before she asks about anything else."),
    "voices/tam_rook.md": ("Voice of Tam Rook", "voice", "person", ["toll"], ["tam_rook", "mara_vell"],
                           "Tam speaks in sums and sighs. He reads numbers aloud from his ledger and complains "
                           "about Mara's cider prices."),
}


def write_doc(root: Path, path: str, title: str, doc_type: str, kind: str, tags: list[str], related: list[str],
              body: str) -> None:
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(f"---\ntitle: {title}\ndoc_type: {doc_type}\nsection_kind: {kind}\ntags: [{', '.join(tags)}]\n"
                    f"related: [{', '.join(related)}]\n---\n{body.strip()}\n")


@pytest.fixture
def pack_dir(tmp_path) -> Path:
    root = tmp_path / "ragtest"
    root.mkdir()
    for name, text in PACK_FILES.items():
        (root / name).write_text(text.lstrip())
    for path, spec in DOCS.items():
        write_doc(root, path, *spec)
    return root


@pytest.fixture(scope="session")
def embed() -> Embedder:
    return embedder("wordllama")


@pytest.fixture
def index(tmp_path, embed) -> LoreIndex:
    return LoreIndex(tmp_path / "chroma", embed)


@pytest.fixture
def ready(pack_dir, index):
    """The test pack, ingested."""
    pack = load_pack(pack_dir)
    ingest(index, [pack])
    return pack


def chunk_ids(index: LoreIndex, pack_id: str, path: str | None = None) -> list[str]:
    collection = index.collection(pack_id)
    return sorted(collection.get(where={"path": path} if path else None)["ids"])


@register_embedding_function
class HashEmbedder(Embedder):
    """A different kind of embedder: 64-dimensional bags of hashed words."""

    def __init__(self, model_name: str = "hash-64") -> None:
        self.model_name = model_name

    def embed(self, texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * 64
            for word in re.findall(r"[a-z]+", text.lower()):
                vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % 64] += 1.0
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            out.append([v / norm for v in vector])
        return out

    @staticmethod
    def name() -> str:
        return "skald-test-hash"

    def get_config(self) -> dict:
        return {"model_name": self.model_name}

    @staticmethod
    def build_from_config(config: dict) -> HashEmbedder:
        return HashEmbedder(config["model_name"])


# --- chunking ----------------------------------------------------------------------------------------------------
def test_chunks_follow_headings_with_stable_ids_and_metadata(pack_dir):
    pack = load_pack(pack_dir)
    chunks = chunk_doc("ragtest", pack.docs["lore/lantern_inn.md"])
    headings = [c.metadata["heading"] for c in chunks]
    assert headings[0] == "The Lantern Inn" and headings[1] == "The Fire"
    assert headings.count("The Cellar") == 2  # 3 paragraphs of ~100 words: split at a paragraph boundary
    assert headings[-1] == "Old Barrels"  # ### is a section; the "#" line inside the code block is not
    assert "# not a heading" in chunks[-1].text
    assert [c.id for c in chunks] == [f"ragtest:lore/lantern_inn.md#{n}" for n in range(len(chunks))]
    assert [c.id for c in chunk_doc("ragtest", load_pack(pack_dir).docs["lore/lantern_inn.md"])] == \
        [c.id for c in chunks]
    assert chunks[0].text.startswith("The Lantern Inn\n")
    assert chunks[1].text.startswith("The Lantern Inn: The Fire\n")
    for chunk in chunks:
        assert len(chunk.text.split("\n", 1)[1].split()) <= MAX_WORDS
    cellar = [c for c in chunks if c.metadata["heading"] == "The Cellar"]
    assert "salted pork" in cellar[0].text and "cider" in cellar[0].text and "pickled" not in cellar[0].text
    assert "pickled onions" in cellar[1].text and cellar[1].text.startswith("The Lantern Inn: The Cellar\nThe")
    meta = chunks[1].metadata
    assert meta["pack"] == "ragtest" and meta["path"] == "lore/lantern_inn.md"
    assert meta["doc_type"] == "lore" and meta["section_kind"] == "place" and meta["tags"] == "inn,fire"
    assert meta["related"] == ",lantern_inn,mara_vell," and meta["rel_mara_vell"] is True
    assert meta["primary"] == "lantern_inn" and len(meta["hash"]) == 16
    assert all(isinstance(v, str | int | float | bool) for v in meta.values())
    assert "(inn, fire)" in chunks[0].for_embedding and "(inn" not in chunks[0].text


def test_wrapped_lines_join_and_sections_drop_empty_text(pack_dir):
    assert sections("intro\n# One\n\n## Two\ntext", "Title") == [("Title", "intro"), ("Two", "text")]
    assert sections("no headings at all", "T") == [("T", "no headings at all")]
    write_doc(pack_dir, "lore/wrapped.md", "Wrapped", "lore", "custom", [], [],
              "A line wrapped\nin the file.\n\n- one item\n- another\n\nLast\nparagraph.")
    (chunk,) = chunk_doc("ragtest", load_pack(pack_dir).docs["lore/wrapped.md"])
    assert chunk.text == "Wrapped\nA line wrapped in the file.\n\n- one item\n- another\n\nLast paragraph."


def test_overlong_paragraph_splits_at_sentences():
    text = " ".join(f"Sentence number {i} has exactly seven words." for i in range(60))  # 420 words, one para
    pieces = split_section(text, 200)
    assert len(pieces) == 3 and all(len(p.split()) <= 200 for p in pieces)
    assert all(p.rstrip().endswith(".") for p in pieces)
    assert " ".join(pieces).split() == text.split()


def test_hook_chunks_from_quests_and_rumors(pack_dir):
    quests, rumors = hook_sources(load_pack(pack_dir))
    (quest,) = quests.chunks
    assert quest.id == "ragtest:quests.yaml#fair_toll"
    assert quest.text == ("Quest: A Fair Toll\nMara wants to know why the toll on the old road went up.\n"
                          "First objective: Walk the old road and count the toll posts.")
    assert quest.metadata["doc_type"] == "hook" and quest.metadata["section_kind"] == "quest"
    for entity in ("mara_vell", "lantern_inn", "wardens", "old_road"):  # giver, giver's place and faction, stage
        assert quest.metadata[f"rel_{entity}"] is True
    assert [c.id for c in rumors.chunks] == ["ragtest:rumors.yaml#road_toll", "ragtest:rumors.yaml#hidden_cache"]
    assert rumors.chunks[0].metadata["related"] == ",old_road,wardens,"
    assert rumors.chunks[1].metadata["true"] is False and rumors.chunks[0].metadata["public"] is True


# --- embedders ---------------------------------------------------------------------------------------------------
def test_wordllama_embedder_is_loaded_once_and_is_a_chroma_embedding_function(embed, tmp_path):
    assert embed.model_name == "wordllama-256" and isinstance(embed, WordLlamaEmbedder)
    vectors = embed.embed(["the eel fishers", "a toll on the road"])
    assert len(vectors) == 2 and len(vectors[0]) == 256
    assert abs(float(np.linalg.norm(vectors[0])) - 1.0) < 1e-4
    assert wordllama_model() is wordllama_model()
    assert embedder("wordllama").embed(["x"]) == embed.embed(["x"])
    assert not embed.is_legacy() and embed.default_space() == "cosine"
    assert embed.build_from_config(embed.get_config()).model_name == embed.model_name
    assert len(embed(["one", "two"])) == 2  # Chroma's call protocol

    import chromadb

    client = chromadb.PersistentClient(str(tmp_path / "direct"), settings=chromadb.Settings(anonymized_telemetry=False))
    collection = client.create_collection("skald-direct", embedding_function=embed,
                                          configuration={"hnsw": {"space": "cosine"}})
    collection.add(ids=["a", "b"], documents=["wolves howl on the road at night", "the cellar holds cider"])
    assert collection.query(query_texts=["barrels of cider"], n_results=1)["ids"] == [["b"]]


def test_embedder_specs():
    ollama = embedder("ollama:nomic-embed-text", "http://ollama:11434")
    assert isinstance(ollama, OllamaEmbedder) and ollama.model_name == "ollama:nomic-embed-text"
    assert ollama.get_config() == {"model": "nomic-embed-text", "base_url": "http://ollama:11434", "timeout_s": 30.0}
    assert OllamaEmbedder.build_from_config(ollama.get_config()).model_name == ollama.model_name
    assert ollama._client is None  # nothing connects until the first embedding
    for bad in ("bert", "ollama:", "openai:text-embedding-3"):
        with pytest.raises(ValueError, match="wordllama"):
            embedder(bad)


class FakeEmbedServer:
    """Answers Ollama's ``POST /api/embed`` with hashed bag-of-words vectors (what ``OllamaEmbeddings`` calls)."""

    def __enter__(self) -> FakeEmbedServer:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        hasher = HashEmbedder()
        requests = self.requests = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                requests.append((self.path, body))
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = json.dumps({"model": body["model"], "embeddings": hasher.embed(inputs)}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_ollama_embeddings_end_to_end(pack_dir, tmp_path):
    pack = load_pack(pack_dir)
    with FakeEmbedServer() as server:
        index = LoreIndex(tmp_path / "chroma", embedder("ollama:fake-embed", server.url))
        report = ingest(index, [pack])
        assert report.added == len(pack_sources(pack)) and index.status(pack) == "ok"
        assert {path for path, _ in server.requests} == {"/api/embed"}
        assert index.collection("ragtest").metadata["embedding_model"] == "ollama:fake-embed"
        hits = Retriever(index, pack).lore("ragtest", "thin grey wolves hunt along the hedges at night", k=1).hits
        assert hits[0].source_path == "lore/wolves.md"
    down = Retriever(LoreIndex(tmp_path / "chroma", embedder("ollama:fake-embed", server.url)), pack)
    found = down.lore("ragtest", "a new question")
    assert found.hits == []  # Ollama went away: no results, a warning, no exception
    assert found.warnings[0].startswith("retrieval: the lore lane failed for ragtest: ")


# --- ingest and status -------------------------------------------------------------------------------------------
def test_incremental_ingest(pack_dir, index):
    pack = load_pack(pack_dir)
    assert index.status(pack) == "missing" and not index.exists()
    first = ingest(index, [pack])
    sources = pack_sources(pack)
    assert (first.added, first.updated, first.skipped, first.removed) == (len(sources), 0, 0, 0)
    assert first.chunks == sum(len(s.chunks) for s in sources) == index.collection("ragtest").count()
    assert index.status(pack) == "ok" and index.packs() == ["ragtest"]
    assert read_manifest(index.collection("ragtest")) == source_hashes(pack)

    again = ingest(index, [pack])
    assert (again.added, again.updated, again.skipped, again.removed, again.chunks) == (0, 0, len(sources), 0, 0)

    wolves = pack_dir / "lore/wolves.md"
    wolves.write_text(wolves.read_text().replace("Thin grey wolves", "Thin black wolves"))
    edited = load_pack(pack_dir)
    assert index.check(edited).state == "stale" and "lore/wolves.md" in index.check(edited).reason
    seen = []
    report = ingest(index, [edited], progress=lambda pack_id, done, total, path: seen.append((done, total, path)))
    assert (report.added, report.updated, report.skipped, report.removed) == (0, 1, len(sources) - 1, 0)
    assert report.chunks == 1 and seen[-1][:2] == (len(sources), len(sources))
    (text,) = index.collection("ragtest").get(ids=["ragtest:lore/wolves.md#0"])["documents"]
    assert "Thin black wolves" in text and index.status(edited) == "ok"

    (pack_dir / "lore/the_toll.md").unlink()
    write_doc(pack_dir, "lore/cheese.md", "Cheese", "lore", "custom", [], ["mara_vell"], "Mara's cheese is famous.")
    changed = load_pack(pack_dir)
    report = ingest(index, [changed])
    assert (report.added, report.updated, report.removed) == (1, 0, 1)
    assert chunk_ids(index, "ragtest", "lore/the_toll.md") == []
    assert chunk_ids(index, "ragtest", "lore/cheese.md") == ["ragtest:lore/cheese.md#0"]
    assert index.status(changed) == "ok"

    rebuilt = ingest(index, [changed], rebuild=True)
    assert rebuilt.added == len(pack_sources(changed)) and rebuilt.rebuilt == {"ragtest": "--rebuild"}


def test_hooks_follow_quest_and_rumor_changes(pack_dir, index):
    ingest(index, [load_pack(pack_dir)])
    rumors = pack_dir / "rumors.yaml"
    rumors.write_text(rumors.read_text().replace("stolen cheese", "stolen ham"))
    pack = load_pack(pack_dir)
    assert index.check(pack).state == "stale"
    report = ingest(index, [pack])
    assert report.updated == 1 and report.chunks == 2
    assert "stolen ham" in index.collection("ragtest").get(ids=["ragtest:rumors.yaml#hidden_cache"])["documents"][0]


def test_another_embedding_model_rebuilds_never_mixes(pack_dir, tmp_path, embed):
    pack = load_pack(pack_dir)
    hashed = LoreIndex(tmp_path / "chroma", HashEmbedder())
    ingest(hashed, [pack])
    assert hashed.status(pack) == "ok"
    index = LoreIndex(tmp_path / "chroma", embed)
    status = index.check(pack)
    assert status.state == "stale" and "embedding model" in status.reason
    report = ingest(index, [pack])
    assert "ragtest" in report.rebuilt and report.added == len(pack_sources(pack))
    assert index.status(pack) == "ok" and hashed.status(pack) == "stale"
    assert index.collection("ragtest").metadata["embedding_model"] == "wordllama-256"

    # same kind of embedder, another model: the recorded model name decides
    other = LoreIndex(tmp_path / "chroma", HashEmbedder("hash-64b"))
    ingest(other, [pack])
    assert LoreIndex(tmp_path / "chroma", HashEmbedder("hash-64")).check(pack).reason.startswith(
        "embedding model changed: indexed with hash-64b")


def test_collection_names():
    assert collection_name("cinder_reach") == "skald-cinder_reach"
    assert collection_name("_template") == "skald-template"
    assert collection_name("odd pack!") == "skald-odd_pack"


# --- lanes -------------------------------------------------------------------------------------------------------
def test_lanes_filter_by_doc_type(ready, index):
    retriever = Retriever(index, ready)
    found = retriever.lore("ragtest", "wolves howling at night on the road", budget=None)
    lore = found.hits
    assert lore[0].source_path == "lore/wolves.md"
    assert {h.doc_type for h in lore} == {"lore"} and len(lore) == 4
    assert all(0 < h.score <= 1 for h in lore) and lore == sorted(lore, key=lambda h: -h.score)
    hooks = retriever.hooks("ragtest", "who is taking the toll money", budget=None).hits
    assert {h.doc_type for h in hooks} == {"hook"} and {h.source_path for h in hooks} == {"quests.yaml",
                                                                                            "rumors.yaml"}
    voices = retriever.voice("ragtest", [], query="numbers and sums", budget=None)
    assert voices.hits[0].source_path == "voices/tam_rook.md" and {h.doc_type for h in voices.hits} == {"voice"}
    assert found.warnings == [] and voices.warnings == []


def test_lore_prefers_entities_on_stage_then_falls_back(ready, index):
    retriever = Retriever(index, ready)
    plain = retriever.lore("ragtest", "wolves howling at night", k=3, budget=None).hits
    assert plain[0].source_path == "lore/wolves.md" and "lore/the_toll.md" not in [h.source_path for h in plain]
    hits = retriever.lore("ragtest", "wolves howling at night", entities=["tam_rook"], k=3, budget=None).hits
    assert hits[0].source_path == "lore/the_toll.md"  # the only lore about Tam comes first, though it scores lower
    assert len(hits) == 3 and hits[1].source_path == "lore/wolves.md"  # topped up with the best of the rest
    mara = retriever.lore("ragtest", "wolves howling at night", entities=["mara_vell", "tam_rook"], k=3,
                          budget=None).hits
    assert all({"mara_vell", "tam_rook"} & set(h.related) for h in mara)  # enough related chunks: no top-up


def test_lanes_respect_budgets(ready, index):
    retriever = Retriever(index, ready)
    for budget in (60, 120, 400):
        hits = retriever.lore("ragtest", "the cellar barrels", budget=budget).hits
        assert hits and sum(estimate_tokens(h.text) for h in hits) <= budget
    tiny = retriever.lore("ragtest", "the cellar barrels", budget=10).hits
    assert len(tiny) == 1 and tiny[0].tokens <= 10 and tiny[0].text.endswith("…")
    assert len(retriever.voice("ragtest", ["mara_vell", "tam_rook"], budget=1000).hits) == 2
    assert len(retriever.voice("ragtest", ["mara_vell", "tam_rook"], budget=50).hits) == 1


def test_fit_budget_passes_over_a_big_hit_for_smaller_ones():
    from skald.rag.retrieve import Hit

    hits = [Hit("a", "x" * 40, 0.9, "p", "h", "lore"), Hit("b", "y" * 400, 0.8, "p", "h", "lore"),
            Hit("c", "z" * 40, 0.7, "p", "h", "lore")]
    assert [h.id for h in fit_budget(hits, 25)] == ["a", "c"]
    assert fit_budget(hits, None) == hits and fit_budget([], 10) == []


def test_style_lane_takes_one_of_each_kind(ready, index, pack_dir):
    retriever = Retriever(index, ready)
    hits = retriever.style("ragtest", "how to narrate", budget=None).hits
    assert [h.section_kind for h in hits] == ["base", "era", "genre", "archetype"]
    for name in ("era", "genre", "archetype"):
        (pack_dir / f"style/{name}.md").unlink()
    write_doc(pack_dir, "style/tone.md", "Tone", "style", "tone", [], [], "Warm and uneasy, like a fire in fog.")
    write_doc(pack_dir, "style/pacing.md", "Pacing", "style", "pacing", [], [], "Short scenes, quick exits.")
    pack = load_pack(pack_dir)
    ingest(index, [pack])
    hits = Retriever(index, pack).style("ragtest", "warm fire in the fog", k=2, budget=None).hits
    assert [h.section_kind for h in hits] == ["base"]  # the one labelled kind present wins
    (pack_dir / "style/base.md").unlink()
    pack = load_pack(pack_dir)
    ingest(index, [pack])
    hits = Retriever(index, pack).style("ragtest", "warm fire in the fog", k=2, budget=None).hits
    assert [h.source_path for h in hits] == ["style/tone.md", "style/pacing.md"]  # no labels: top k


def test_voice_lane_per_speaker(ready, index):
    retriever = Retriever(index, ready)
    mara = retriever.voice("ragtest", ["mara_vell"], k=2, budget=None).hits
    # Tam's voice mentions Mara too, but Mara's own voice comes first
    assert [h.source_path for h in mara] == ["voices/mara_vell.md", "voices/tam_rook.md"]
    assert [h.source_path for h in retriever.voice("ragtest", ["mara_vell"], k=1).hits] == ["voices/mara_vell.md"]
    both = retriever.voice("ragtest", ["tam_rook", "mara_vell"], k=1, budget=None).hits
    assert [h.source_path for h in both] == ["voices/tam_rook.md", "voices/mara_vell.md"]
    nobody = retriever.voice("ragtest", ["ivo_brand"])
    assert nobody.hits == [] and nobody.warnings == []


def test_missing_index_gives_nothing_and_a_warning(pack_dir, tmp_path, embed):
    index = LoreIndex(tmp_path / "nowhere", embed)
    retriever = Retriever(index, load_pack(pack_dir))
    missing = ["retrieval: the lore index for ragtest is missing; run `skald ingest ragtest`"]
    for found in (retriever.lore("ragtest", "wolves", ["mara_vell"]), retriever.style("ragtest", "x"),
                  retriever.voice("ragtest", ["mara_vell"]), retriever.hooks("ragtest", "x")):
        assert found.hits == [] and found.warnings == missing  # each call says so: a turn reports its own
    assert not (tmp_path / "nowhere").exists()  # reading creates nothing


def test_stale_index_gives_nothing_and_a_warning(ready, index, pack_dir):
    (pack_dir / "lore/wolves.md").unlink()
    retriever = Retriever(index, load_pack(pack_dir))
    found = retriever.lore("ragtest", "wolves")
    assert found.hits == []
    assert found.warnings == ["retrieval: the lore index for ragtest is stale (files changed since ingest); "
                              "run `skald ingest ragtest`"]
    assert retriever.status("ragtest").state == "stale"


def test_a_failing_lane_warns_instead_of_raising(ready, index, monkeypatch):
    retriever = Retriever(index, ready)
    assert retriever.lore("ragtest", "wolves").hits

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(index.embed, "embed_one", broken)
    found = retriever.hooks("ragtest", "something new")
    assert found.hits == []
    assert found.warnings == ["retrieval: the hooks lane failed for ragtest: RuntimeError: disk on fire"]


def test_retriever_picks_up_a_reloaded_pack(ready, index, pack_dir):
    retriever = Retriever(index, ready)
    assert retriever.status("ragtest").state == "ok"
    (pack_dir / "lore/wolves.md").unlink()
    retriever.set_pack(load_pack(pack_dir))
    assert retriever.status("ragtest").state == "stale"


def test_retriever_notices_an_ingest_after_warning(pack_dir, index, monkeypatch):
    import skald.rag.retrieve as retrieve

    pack = load_pack(pack_dir)
    retriever = Retriever(index, pack)
    assert retriever.lore("ragtest", "wolves").hits == [] and retriever.status("ragtest").state == "missing"
    ingest(index, [pack])
    assert retriever.lore("ragtest", "wolves").hits == []  # not looked at again at once...
    monkeypatch.setattr(retrieve, "RECHECK_SECONDS", 0.0)
    assert retriever.lore("ragtest", "wolves").hits  # ...but after a while


def test_retriever_survives_a_rebuild_by_someone_else(ready, index):
    retriever = Retriever(index, ready)
    assert retriever.lore("ragtest", "wolves").hits
    ingest(LoreIndex(index.path, index.embed), [ready], rebuild=True)  # the collection is dropped and made again
    found = retriever.lore("ragtest", "wolves at night")
    assert found.hits and found.hits[0].source_path == "lore/wolves.md" and found.warnings == []


def test_closing_the_stores_waits_for_a_lane_under_way_then_refuses_lanes(ready, index, monkeypatch):
    retriever = Retriever(index, ready)
    assert retriever.lore("ragtest", "wolves").hits  # the store is open
    inside, release = threading.Event(), threading.Event()
    embed_one, calls = index.embed.embed_one, []

    def held(text: str) -> list[float]:  # the first lane below stops inside the store until released
        calls.append(text)
        if len(calls) == 1:
            inside.set()
            assert release.wait(30), "the test never released the lane"
        return embed_one(text)

    monkeypatch.setattr(index.embed, "embed_one", held)
    with ThreadPoolExecutor(2) as pool:
        lane = pool.submit(retriever.lore, "ragtest", "wolves at dusk")
        assert inside.wait(30)
        closing = pool.submit(close_stores, 30)
        until = time.monotonic() + 30  # an upper bound for the closing to begin, never reached
        while not (refused := retriever.hooks("ragtest", "the toll")).warnings:  # lanes run until closing begins
            assert time.monotonic() < until, "close_stores never began"
        assert refused == Found([], ["retrieval: the hooks lane was not run: the lore index is closed (Skald is "
                                     "ending)"])
        release.set()
        found = lane.result(timeout=30)
        assert closing.result(timeout=30) is True
    assert found.hits and found.warnings == []  # the store stayed open under the lane that was inside it
    with pytest.raises(IndexClosed):
        index.client  # noqa: B018 - the property raises
    again = Retriever(LoreIndex(index.path, index.embed), ready)  # a new index opens the folder anew
    assert again.lore("ragtest", "wolves").hits


# --- CLI ---------------------------------------------------------------------------------------------------------
def test_cli_ingest_query_and_status(pack_dir, tmp_path, monkeypatch):
    from skald.cli.rag_commands import ingest_command, lore_app

    app = typer.Typer()
    app.command("ingest")(ingest_command)
    app.add_typer(lore_app, name="lore")
    runner = CliRunner()
    store = str(tmp_path / "cli-chroma")
    result = runner.invoke(app, ["ingest", str(pack_dir), "--chroma-path", store])
    assert result.exit_code == 0, result.output
    assert f"ragtest: {len(DOCS) + 2} added, 0 updated, 0 unchanged, 0 removed" in result.output
    result = runner.invoke(app, ["ingest", str(pack_dir), "--chroma-path", store])
    assert f"0 added, 0 updated, {len(DOCS) + 2} unchanged" in result.output
    result = runner.invoke(app, ["lore", "query", "wolves at night", "--pack", str(pack_dir), "--chroma-path", store,
                                 "-k", "2"])
    assert result.exit_code == 0, result.output
    assert "1. " in result.output and "lore/wolves.md" in result.output and "3. " not in result.output
    result = runner.invoke(app, ["lore", "query", "toll", "--pack", str(pack_dir), "--chroma-path", store,
                                 "--lane", "hook"])
    assert "quests.yaml" in result.output or "rumors.yaml" in result.output
    result = runner.invoke(app, ["lore", "status", str(pack_dir), "--chroma-path", store])
    assert result.exit_code == 0 and result.output.startswith("ok")
    shutil.rmtree(tmp_path / "cli-chroma")
    result = runner.invoke(app, ["lore", "query", "toll", "--pack", str(pack_dir), "--chroma-path", store])
    assert result.exit_code == 1 and "missing; run `skald ingest ragtest`" in result.output
    result = runner.invoke(app, ["lore", "query", "toll", "--lane", "gossip"])
    assert result.exit_code == 2
