"""Split a pack's documents into retrieval chunks, and turn its quests and rumors into "hook" chunks.

A document is cut at its Markdown headings (``#``, ``##``, ``###``; text before the first heading is a section
headed by the document's title). A section longer than :data:`MAX_WORDS` is split at paragraph boundaries (a
single overlong paragraph at sentence boundaries). Every chunk's text starts with the document's title (and
the section heading), so a chunk read on its own still says what it is about.

Chunk ids are stable: ``<pack>:<path>#<n>``, ``n`` counting the document's chunks from 0; hook ids are
``<pack>:quests.yaml#<quest id>`` and ``<pack>:rumors.yaml#<rumor id>``. The unit of incremental ingest is a
*source*: one document, or all quests (``quests.yaml``) or all rumors (``rumors.yaml``) of the pack, each with
a content hash of exactly what its chunks are made from.

Metadata values are scalars. ``related`` is comma-joined with leading and trailing commas
(``",hesper_quill,slag_and_lantern,"``) for display; filtering uses one boolean key per related id,
``rel_<id>: True`` (Chroma 1.5's ``$contains`` on a string value is not a substring match, so the joined
string cannot be filtered on). ``primary`` is the first related id: whose voice a voice document is.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from skald.core.pack import Doc, EraPack

CHUNKER_VERSION = "1"  # bump when chunk text or metadata changes shape: every source is then re-chunked
MAX_WORDS = 200
HOOK_SOURCES = ("quests.yaml", "rumors.yaml")
REL_PREFIX = "rel_"

_HEADING = re.compile(r"^(#{1,3})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+")


@dataclass(frozen=True)
class Chunk:
    """``text`` is what a lane returns; ``embed_text`` (``text`` when empty) is what gets embedded: the text
    with the document's tags after the title, so a query for "smugglers" finds a document tagged so."""

    id: str
    text: str
    metadata: dict[str, Any]
    embed_text: str = ""

    @property
    def for_embedding(self) -> str:
        return self.embed_text or self.text


@dataclass
class Source:
    """One unit of incremental ingest: a document, or the pack's quests or rumors."""

    path: str
    hash: str
    chunks: list[Chunk] = field(default_factory=list)


def rel_key(entity: str) -> str:
    """The boolean metadata key that marks a chunk as related to ``entity``."""
    return REL_PREFIX + re.sub(r"[^A-Za-z0-9_]", "_", entity)


def _hash(*parts: Any) -> str:
    return hashlib.sha256(json.dumps([CHUNKER_VERSION, *parts], sort_keys=True, default=str).encode()).hexdigest()[
        :16]


def doc_hash(doc: Doc) -> str:
    """Content hash of everything a document's chunks are made from (front matter and body)."""
    return _hash(doc.path, doc.meta.model_dump(mode="json"), doc.body)


def sections(body: str, title: str) -> list[tuple[str, str]]:
    """``(heading, text)`` per Markdown section, in order; text before the first heading is headed ``title``.
    Headings inside fenced code blocks are text. Sections with no text are dropped."""
    out: list[tuple[str, list[str]]] = [(title, [])]
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match:
            out.append((match.group(2).strip(), []))
        else:
            out[-1][1].append(line)
    return [(heading, text) for heading, lines in out if (text := "\n".join(lines).strip())]


def _unwrapped(text: str) -> str:
    """:func:`unwrap` outside fenced code blocks."""
    parts = re.split(r"(^[ \t]*(?:```|~~~).*?^[ \t]*(?:```|~~~)[^\n]*$)", text, flags=re.M | re.S)
    out = []
    for i, part in enumerate(parts):
        if i % 2 or not part.strip():
            out.append(part)
        else:
            core = part.strip("\n")
            start = part.index(core)
            out.append(part[:start] + unwrap(core) + part[start + len(core):])
    return "".join(out).strip()


_BLOCK_LINE = re.compile(r"^\s*([-*+>|]|\d+[.)])\s")


def unwrap(text: str) -> str:
    """Hard-wrapped lines of a paragraph joined with spaces (list items, quotes and table rows keep their lines;
    blank lines between paragraphs stay)."""
    out: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if out and stripped and out[-1].strip() and not _BLOCK_LINE.match(line) and not _BLOCK_LINE.match(out[-1]):
            out[-1] = f"{out[-1].rstrip()} {stripped}"
        else:
            out.append(line.rstrip())
    return "\n".join(out).strip()


def _words(text: str) -> int:
    return len(text.split())


def split_section(text: str, max_words: int = MAX_WORDS) -> list[str]:
    """Pieces of at most ``max_words`` words, cut at paragraph boundaries where possible, then at sentence
    boundaries, and only for a single overlong sentence at a word boundary."""
    if _words(text) <= max_words:
        return [text]
    units: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if not para:
            continue
        if _words(para) <= max_words:
            units.append(para)
            continue
        for sentence in _SENTENCE_END.split(para):
            words = sentence.split()
            units += [" ".join(words[i:i + max_words]) for i in range(0, len(words), max_words)]
    pieces: list[str] = []
    current: list[str] = []
    for unit in units:
        if current and _words("\n\n".join([*current, unit])) > max_words:
            pieces.append("\n\n".join(current))
            current = []
        current.append(unit)
    if current:
        pieces.append("\n\n".join(current))
    return _rebalance(pieces, max_words)


def _rebalance(pieces: list[str], max_words: int) -> list[str]:
    """Even out the last two pieces (no tiny tail): move paragraphs from the second-last piece to the last while
    that makes their sizes closer and the last piece stays within ``max_words``."""
    if len(pieces) < 2:
        return pieces
    prev, last = pieces[-2].split("\n\n"), pieces[-1].split("\n\n")
    while len(prev) > 1:
        moved = _words(prev[-1])
        before = abs(_words("\n\n".join(prev)) - _words("\n\n".join(last)))
        after = abs(_words("\n\n".join(prev)) - 2 * moved - _words("\n\n".join(last)))
        if after >= before or _words("\n\n".join(last)) + moved > max_words:
            break
        prev, last = prev[:-1], [prev[-1], *last]
    return [*pieces[:-2], "\n\n".join(prev), "\n\n".join(last)]


def _joined(ids: list[str] | tuple[str, ...]) -> str:
    return f",{','.join(ids)}," if ids else ""


def _base_meta(pack_id: str, path: str, doc_type: str, section_kind: str, tags: list[str], related: list[str],
               heading: str, title: str, content_hash: str) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "pack": pack_id, "path": path, "doc_type": doc_type, "section_kind": section_kind,
        "tags": ",".join(tags), "related": _joined(related), "heading": heading, "title": title,
        "hash": content_hash, "primary": related[0] if related else "",
    }
    for entity in related:
        meta[rel_key(entity)] = True
    return meta


def chunk_doc(pack_id: str, doc: Doc, max_words: int = MAX_WORDS) -> list[Chunk]:
    """The chunks of one document, ids ``<pack>:<path>#<n>``."""
    title = doc.meta.title
    content_hash = doc_hash(doc)
    chunks: list[Chunk] = []
    for heading, text in sections(doc.body, title):
        text = _unwrapped(text)
        prefix = title if heading == title else f"{title}: {heading}"
        for piece in split_section(text, max_words):
            n = len(chunks)
            meta = _base_meta(pack_id, doc.path, doc.meta.doc_type, doc.meta.section_kind, doc.meta.tags,
                              doc.meta.related, heading, title, content_hash)
            meta["n"] = n
            tags = f" ({', '.join(doc.meta.tags)})" if doc.meta.tags else ""
            chunks.append(Chunk(f"{pack_id}:{doc.path}#{n}", f"{prefix}\n{piece}", meta, f"{prefix}{tags}\n{piece}"))
    return chunks


def _unique(ids: list[str | None]) -> list[str]:
    return list(dict.fromkeys(i for i in ids if i))


def hook_sources(pack: EraPack) -> list[Source]:
    """``quests.yaml`` and ``rumors.yaml`` as hook chunks (doc_type ``hook``) for the Director's hooks lane.

    A quest's chunk is its title, summary and first objective, related to its giver and the giver's location
    and faction; a rumor's is its text, related to its location and faction."""
    quests = Source("quests.yaml", "")
    for quest in pack.quests.values():
        giver = pack.npcs.get(quest.giver)
        related = _unique([quest.giver, quest.id, giver.location if giver else None, giver.faction if giver else None,
                           quest.stages[0].when.location])
        text = f"Quest: {quest.title}\n{quest.summary}\nFirst objective: {quest.stages[0].objective}"
        meta = _base_meta(pack.id, quests.path, "hook", "quest", [], related, quest.title, quest.title, "")
        quests.chunks.append(Chunk(f"{pack.id}:{quests.path}#{quest.id}", text, meta))
    rumors = Source("rumors.yaml", "")
    for rumor in pack.rumors.values():
        related = _unique([rumor.location, rumor.faction])
        heading = f"Rumor {rumor.id}"
        meta = _base_meta(pack.id, rumors.path, "hook", "rumor", [], related, heading, heading, "")
        meta.update(public=rumor.public, true=rumor.true)
        rumors.chunks.append(Chunk(f"{pack.id}:{rumors.path}#{rumor.id}", f"Rumor: {rumor.text}", meta))
    out = []
    for source in (quests, rumors):
        source.hash = _hash(source.path, [(c.id, c.text, c.embed_text, c.metadata) for c in source.chunks])
        for chunk in source.chunks:
            chunk.metadata["hash"] = source.hash
        out.append(source)
    return out


def pack_sources(pack: EraPack, max_words: int = MAX_WORDS) -> list[Source]:
    """Every source of a pack with its chunks: the documents in path order, then the hooks."""
    docs = [Source(path, doc_hash(doc), chunk_doc(pack.id, doc, max_words)) for path, doc in sorted(pack.docs.items())]
    return docs + hook_sources(pack)


def source_hashes(pack: EraPack) -> dict[str, str]:
    """path -> content hash for every source of the pack: what an up-to-date index's manifest holds."""
    hashes = {path: doc_hash(doc) for path, doc in pack.docs.items()}
    hashes.update({source.path: source.hash for source in hook_sources(pack)})
    return hashes
