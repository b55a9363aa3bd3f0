"""Load and validate an era pack folder into an :class:`EraPack`.

``load_pack(path_or_id)`` reads every YAML file and every Markdown document, applies overlays, validates each
entry against its model and checks every cross-reference. All problems are collected and raised together as
one :class:`PackError`, each naming ``file:line:column``, the field path, the offending value and what was
expected. Nothing is raised as a Python traceback.

Overlays: a pack whose ``era.yaml`` says ``extends: <base>`` starts from the base pack (which may itself extend
another). Its files are all optional. A list entry whose ``id`` the base has is deep-merged over it (mappings
merge key by key; lists and scalars replace); an entry with ``disabled: true`` removes the base entry; other
entries are added. ``era.yaml`` and ``namebanks.yaml`` deep-merge over the base's. A Markdown document with the
same relative path replaces the base's. Errors point at the overlay's line when the offending value came from
the overlay, and at the base's otherwise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from skald.core.pack import (
    Background,
    Banter,
    Companion,
    Doc,
    DocMeta,
    Episode,
    Era,
    EraPack,
    Faction,
    Location,
    NameBank,
    Npc,
    Quest,
    Rumor,
    SceneSpec,
    WorldEvent,
)
from skald.packs.yaml_errors import diagnose, parser_wording
from skald.packs.yaml_limits import LimitExceeded, check_events, check_expansion, check_size
from skald.text import name_key

DATA_DIR = Path(__file__).resolve().parents[3] / "data"
PACKS_DIR = DATA_DIR / "era_packs"

# file name -> (model, is a list of entries, required in a pack that extends nothing)
FILES: dict[str, tuple[type[BaseModel], bool, bool]] = {
    "era.yaml": (Era, False, True),
    "locations.yaml": (Location, True, True),
    "npcs.yaml": (Npc, True, True),
    "factions.yaml": (Faction, True, True),
    "companions.yaml": (Companion, True, True),
    "backgrounds.yaml": (Background, True, True),
    "rumors.yaml": (Rumor, True, True),
    "quests.yaml": (Quest, True, True),
    "events.yaml": (WorldEvent, True, False),
    "banter.yaml": (Banter, True, False),
    "episodes.yaml": (Episode, True, False),
    "scenes.yaml": (SceneSpec, True, False),
    "namebanks.yaml": (NameBank, False, True),
}
DOC_FOLDERS = {"lore": "lore", "style": "style", "voices": "voice"}  # folder -> doc_type


@dataclass(frozen=True)
class PackIssue:
    file: str
    line: int
    column: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}  {self.field}  {self.message}"


class PackError(Exception):
    """Raised with every problem found in a pack; ``issues`` holds them in file order."""

    def __init__(self, pack: str, issues: list[PackIssue]):
        self.pack = pack
        self.issues = issues
        lines = [f"era pack {pack!r} has {len(issues)} error(s):"] + [str(i) for i in issues]
        super().__init__("\n".join(lines))


# ----------------------------------------------------------------------------------------- YAML positions


def _walk(node: yaml.Node | None, path: tuple[Any, ...], at_key: bool = False) -> tuple[yaml.Node | None, bool]:
    """The node at ``path`` (or the deepest one found) and whether the whole path was found.

    ``at_key`` returns the key node of the last mapping step (an unknown key is reported on its own line)."""
    for depth, key in enumerate(path):
        last = depth == len(path) - 1
        if isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if _same_key(k, key)), None)
            if pair is None:
                return node, False
            node = pair[0] if (at_key and last) else pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            return node, False
    return node, True


def _same_key(node: yaml.Node, key: Any) -> bool:
    """Whether a mapping key node is ``key`` (a bool key matches an unquoted true/false/yes/no/on/off)."""
    if isinstance(key, bool):
        return node.tag.endswith(":bool") and yaml.safe_load(node.value) is key
    return node.value == key


def _field_path(prefix: str, loc: tuple[Any, ...]) -> str:
    out = prefix
    for part in loc:
        if isinstance(part, bool):
            part = str(part).lower()
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _read_text(path: Path) -> str:
    """A file's text. :raises UnicodeDecodeError: it is not UTF-8. :raises LimitExceeded: it is larger than a pack
    file may be (``yaml_limits``; checked before it is read)."""
    check_size(path.stat().st_size)
    return path.read_bytes().decode("utf-8")


def _not_utf8(display: str, exc: UnicodeDecodeError, text: bytes) -> PackIssue:
    line = text[:exc.start].count(b"\n") + 1
    column = exc.start - (text.rfind(b"\n", 0, exc.start) + 1) + 1
    return PackIssue(display, line, column, "-", f"the file is not UTF-8 text (byte {text[exc.start]:#04x}); save "
                                                 "it as UTF-8 in your editor")


@dataclass
class Origin:
    """Where (part of) a merged entry came from: a file, the entry's node in it, and its list index."""

    file: str
    node: yaml.Node | None
    index: int | None = None
    line_offset: int = 0


@dataclass
class Entry:
    """One list entry (or a whole mapping file) after overlays; ``origins`` are newest layer first."""

    data: Any
    origins: list[Origin] = field(default_factory=list)


def _deep_merge(base: Any, over: Any) -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            out[key] = _deep_merge(base[key], value) if key in base else value
        return out
    return over


class _Reader:
    def __init__(self, pack: str):
        self.pack = pack
        self.issues: list[PackIssue] = []
        self.warnings: list[PackIssue] = []  # loads, but probably a mistake (reported by ``skald pack validate``)
        self.invalid_ids: dict[str, set[str]] = {}  # entries that failed validation: still "known" for references
        self.unreadable: set[str] = set()  # kinds whose file could not be read: references to them are not checked

    def issue(self, origins: list[Origin], loc: tuple[Any, ...], prefix: str, message: str,
              at_key: bool = False, warning: bool = False) -> None:
        """Report at the newest origin that holds the whole path, else at the deepest point of the newest (as a
        warning, with ``warning``: the pack still loads)."""
        best: tuple[Origin, yaml.Node | None] | None = None
        for origin in origins:
            node, full = _walk(origin.node, loc, at_key)
            if best is None:
                best = (origin, node)
            if full:
                best = (origin, node)
                break
        origin, node = best if best else (Origin("?", None), None)
        if loc and loc[-1] == 0 and isinstance(node, yaml.ScalarNode) and not _walk(origin.node, loc)[1]:
            loc = loc[:-1]  # one value where a list may stand (``action_class: PERSUDE``) is named as itself
        line, col = (node.start_mark.line + 1 + origin.line_offset, node.start_mark.column + 1) if node else (1, 1)
        index = () if origin.index is None else (origin.index,)
        found = PackIssue(origin.file, line, col, _field_path(prefix, index + loc) or "-", message)
        (self.warnings if warning else self.issues).append(found)

    def read(self, path: Path, display: str) -> tuple[Any, yaml.Node | None, bool]:
        """(data, node, ok). A missing file is (None, None, True); a YAML error is reported, ok False."""
        if not path.exists():
            return None, None, True
        try:
            text = _read_text(path)
            data, node = _parse(text)
        except UnicodeDecodeError as exc:
            self.issues.append(_not_utf8(display, exc, path.read_bytes()))
            return None, None, False
        except LimitExceeded as exc:
            self.issues.append(_limit_issue(display, exc))
            return None, None, False
        except yaml.YAMLError as exc:
            self.issues.append(_syntax_issue(display, text, exc, "YAML syntax error"))
            return None, None, False
        duplicates = list(_duplicate_keys(node))
        for key in duplicates:  # YAML keeps the last value silently; a designer almost never means that
            self.issues.append(PackIssue(display, key.start_mark.line + 1, key.start_mark.column + 1, str(key.value),
                                         f"key {key.value!r} appears twice in the same mapping; keep one"))
        return data, node, not duplicates

    def validate(self, model: type[BaseModel], entry: Entry, prefix: str) -> Any:
        try:
            return model.model_validate(entry.data)
        except ValidationError as exc:
            for err in exc.errors():
                given = err.get("input")
                shown = "" if err["type"] == "missing" else f"  (got {given!r:.60})"
                loc = tuple(err["loc"])
                bool_key = err["type"] == "invalid_key" and isinstance(given, bool)
                if bool_key:  # pydantic's loc holds the key as 1/0; name the key YAML actually read
                    loc = (*loc[:-1], given)
                self.issue(entry.origins, loc, prefix, f"{_explain(err)}{shown}",
                           at_key=err["type"] == "extra_forbidden" or bool_key)
            return None


def _limit_issue(display: str, exc: LimitExceeded, line_offset: int = 0) -> PackIssue:
    """A file over one of the loader's bounds (``yaml_limits``), at the line where it goes over."""
    return PackIssue(display, exc.line + line_offset, exc.column, "-", f"refused: {exc.message}")


def _syntax_issue(display: str, text: str, exc: yaml.YAMLError, what: str, line_offset: int = 0) -> PackIssue:
    """A YAML syntax error as the designer reads it: where the mistake starts and what to type on the first line,
    PyYAML's own wording on a second (see :mod:`skald.packs.yaml_errors`; only runs once parsing has failed). A file
    over the loader's bounds is said so instead (:func:`_limit_issue`)."""
    if isinstance(exc, LimitExceeded):
        return _limit_issue(display, exc, line_offset)
    found = diagnose(text, exc, line_offset)
    return PackIssue(display, found.line, found.column, "-",
                     f"{what}: {found.message}\n    (YAML parser: {parser_wording(exc, line_offset)})")


_FAST = getattr(yaml, "CSafeLoader", None)  # libyaml, when PyYAML was built with it: a pack parses ~3x faster


def _parse(text: str) -> tuple[Any, yaml.Node | None]:
    """Parse once, keeping both the data and the node tree (the nodes give each value's line and column), within the
    loader's bounds (``yaml_limits``: size, nesting, expanded aliases). A file that does not parse is parsed again
    with the pure-Python loader, whose messages the designer's errors quote.

    :raises LimitExceeded: over a bound. :raises yaml.YAMLError: it does not parse.
    """
    if _FAST is not None:
        try:
            return _load(_FAST, text)
        except LimitExceeded:
            raise
        except yaml.YAMLError:
            pass
    return _load(yaml.SafeLoader, text)


def _load(loader_class: type, text: str) -> tuple[Any, yaml.Node | None]:
    check_events(text, loader_class)  # nesting, before the node tree is built (recursively)
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        check_expansion(node)  # aliases of aliases, before anything walks their expansion
        return (loader.construct_document(node) if node is not None else None), node
    finally:
        loader.dispose()


def _duplicate_keys(node: yaml.Node | None):
    """Key nodes that repeat an earlier key of the same mapping, anywhere in the document (a node an alias names
    again is looked at once)."""
    stack, seen_nodes = [node], set()
    while stack:
        current = stack.pop()
        if id(current) in seen_nodes:
            continue
        seen_nodes.add(id(current))
        if isinstance(current, yaml.MappingNode):
            seen: set[Any] = set()
            for key, value in current.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        yield key
                    seen.add(key.value)
                stack.append(value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def _explain(err: dict[str, Any]) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        return "unknown key; check the spelling against docs/era-packs.md"
    if kind == "missing":
        return "required field is missing"
    if kind == "invalid_key" and isinstance(err.get("input"), bool):
        return 'YAML reads an unquoted true/false/yes/no/on/off key as a boolean; quote it, e.g. "true": false'
    return err["msg"]


def _display_path(root: Path) -> str:
    try:
        return str(root.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(root)


# ----------------------------------------------------------------------------------------- packs on disk


def resolve_pack_dir(pack: str | Path) -> Path:
    """A pack id (a folder under ``data/era_packs``) or a path to a pack folder.

    :raises PackError: no such folder (the message lists the shipped packs).
    """
    candidate = Path(pack)
    if candidate.is_dir():
        return candidate
    folder = PACKS_DIR / str(pack)
    if folder.is_dir():
        return folder
    known = ", ".join(available_packs()) or "none"
    raise PackError(str(pack), [PackIssue(str(folder), 1, 1, "-", f"no such era pack; known packs: {known}")])


def available_packs() -> list[str]:
    """Ids of the packs shipped under ``data/era_packs`` (folders starting with ``_`` are templates)."""
    if not PACKS_DIR.is_dir():
        return []
    return sorted(p.name for p in PACKS_DIR.iterdir() if (p / "era.yaml").exists() and not p.name.startswith("_"))


def _hash_folders(roots: list[Path]) -> str:
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                digest.update(path.relative_to(root).as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def pack_layers(pack: str | Path) -> list[Path]:
    """The folders of a pack and the packs it extends, base first.

    :raises PackError: a missing base pack or a cycle of ``extends``.
    """
    chain: list[Path] = []
    root = resolve_pack_dir(pack)

    def extends_issue(message: str) -> PackError:
        """An error at the ``extends:`` line of the last pack in the chain."""
        try:
            node, _ = _walk(_parse(_read_text(chain[-1] / "era.yaml"))[1], ("extends",))
        except (yaml.YAMLError, UnicodeDecodeError):
            node = None
        line, col = (node.start_mark.line + 1, node.start_mark.column + 1) if node else (1, 1)
        return PackError(chain[-1].name, [PackIssue(_display_path(chain[-1] / "era.yaml"), line, col, "era.extends",
                                                    message)])

    while True:
        if root.resolve() in [c.resolve() for c in chain]:
            names = " -> ".join(c.resolve().name for c in [*chain, root])
            raise extends_issue(f"packs extend each other in a cycle: {names}")
        chain.append(root)
        try:
            era_file = root / "era.yaml"
            raw = _parse(_read_text(era_file))[0] if era_file.exists() else {}
        except (yaml.YAMLError, UnicodeDecodeError):
            raw = {}  # reported properly when the file is read
        base = raw.get("extends") if isinstance(raw, dict) else None
        if not base:
            return chain[::-1]
        if not isinstance(base, str):
            raise extends_issue(f"expected a pack id or a folder path, got {base!r:.60}")
        # a relative path is relative to the extending pack's folder; otherwise a pack id (or a path from here)
        beside = root / base
        try:
            root = beside if ("/" in base or base.startswith(".")) and beside.is_dir() else resolve_pack_dir(base)
        except PackError:
            known = ", ".join(available_packs()) or "none"
            raise extends_issue(f"{base!r} is not a pack (a folder under data/era_packs, or a path relative to "
                                f"this pack's folder); known packs: {known}") from None


def _layer_documents(reader: _Reader, layers: list[Path], name: str, kind: type,
                     what: str) -> tuple[list[tuple[int, str, Any, yaml.Node | None]], bool]:
    """Each layer's ``name`` that exists and holds a ``kind`` (``what`` names it in the error), base first:
    (depth, display path, data, node); and whether every file was readable."""
    found: list[tuple[int, str, Any, yaml.Node | None]] = []
    readable = True
    for depth, root in enumerate(layers):
        display = f"{_display_path(root)}/{name}"
        data, node, ok = reader.read(root / name, display)
        readable &= ok
        if data is None:
            continue
        if not isinstance(data, kind):
            reader.issue([Origin(display, node)], (), name.removesuffix(".yaml"),
                         f"expected {what}, got {type(data).__name__}")
            readable = False
            continue
        found.append((depth, display, data, node))
    return found, readable


def _merge_lists(reader: _Reader, layers: list[Path], name: str) -> tuple[dict[str, Entry], bool]:
    """List entries by id across layers (see the module docstring); returns (entries, every file was readable)."""
    prefix = name.removesuffix(".yaml")
    entries: dict[str, Entry] = {}
    documents, readable = _layer_documents(reader, layers, name, list, f"a list of {prefix}")
    for depth, display, data, node in documents:
        seen_here: set[str] = set()
        for index, raw in enumerate(data):
            origin = Origin(display, node.value[index] if node is not None else None, index)
            key = raw.get("id") if isinstance(raw, dict) else None
            if not isinstance(key, str):
                entries[f"#{depth}:{index}"] = Entry(raw, [origin])  # validation reports the missing id
                continue
            if key in seen_here:
                reader.issue([origin], ("id",), prefix, f"duplicate id {key!r}")
                continue
            seen_here.add(key)
            if "disabled" in raw and raw["disabled"] is not True:
                reader.issue([origin], ("disabled",), prefix, f"disabled must be true (unquoted) to remove an entry; "
                                                              f"got {raw['disabled']!r}")
                continue
            if raw.get("disabled") is True:
                if depth == 0:
                    reader.issue([origin], ("disabled",), prefix, "disabled: true only removes an entry of the pack "
                                                                  "this one extends; delete the entry instead")
                elif key in entries:
                    del entries[key]
                else:
                    reader.issue([origin], ("disabled",), prefix,
                                 f"disables {key!r}, which {layers[depth - 1].name} does not have")
                continue
            if key in entries and depth > 0:
                old = entries[key]
                entries[key] = Entry(_deep_merge(old.data, raw), [origin, *old.origins])
            else:
                entries[key] = Entry(raw, [origin])
    return entries, readable


def _merge_mapping(reader: _Reader, layers: list[Path], name: str) -> tuple[Entry | None, bool]:
    merged: Entry | None = None
    documents, readable = _layer_documents(reader, layers, name, dict, "a mapping")
    for _, display, data, node in documents:
        merged = Entry(data, [Origin(display, node)]) if merged is None else Entry(
            _deep_merge(merged.data, data), [Origin(display, node), *merged.origins])
    return merged, readable


def _read_docs(reader: _Reader, layers: list[Path],
               texts: dict[str, tuple[str, list[str]]] | None = None) -> dict[str, tuple[Doc, Origin]]:
    """Markdown documents with YAML front matter between ``---`` lines; later layers replace by path. ``texts``, when
    given, gets each document's displayed path and lines (for findings at a line of its body)."""
    found: dict[str, Path] = {}
    for root in layers:
        for folder in DOC_FOLDERS:
            for path in sorted((root / folder).glob("*.md")):
                found[f"{folder}/{path.name}"] = path
    out: dict[str, tuple[Doc, Origin]] = {}
    for rel, path in found.items():
        display = _display_path(path)
        try:
            text = _read_text(path)
        except UnicodeDecodeError as exc:
            reader.issues.append(_not_utf8(display, exc, path.read_bytes()))
            continue
        except LimitExceeded as exc:
            reader.issues.append(_limit_issue(display, exc))
            continue
        lines = text.splitlines()
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None) \
            if lines and lines[0].strip() == "---" else None
        if end is None:
            reader.issues.append(PackIssue(display, 1, 1, "-", "front matter missing: start the file with a '---' "
                                                               "line, the YAML fields, and a closing '---' line"))
            continue
        front = "\n".join(lines[1:end])
        try:
            data, node = _parse(front)
        except yaml.YAMLError as exc:
            reader.issues.append(_syntax_issue(display, front, exc, "YAML syntax error in front matter", 1))
            continue
        origin = Origin(display, node, line_offset=1)
        meta = reader.validate(DocMeta, Entry(data if data is not None else {}, [origin]), "front matter")
        body = "\n".join(lines[end + 1:]).strip()
        if meta is None:
            continue
        expected = DOC_FOLDERS[rel.split("/")[0]]
        if meta.doc_type != expected:
            reader.issue([origin], ("doc_type",), "front matter",
                         f"{meta.doc_type!r} does not match the folder; documents in {rel.split('/')[0]}/ are "
                         f"{expected!r}")
        if not body:
            reader.issues.append(PackIssue(display, end + 2, 1, "body", "the document has no text after its "
                                                                         "front matter"))
            continue
        out[rel] = (Doc(path=rel, meta=meta, body=body), origin)
        if texts is not None:
            texts[rel] = (display, lines)
    return out


def load_pack(pack: str | Path) -> EraPack:
    """Load, validate and cross-check one pack (with the packs it extends).

    :param pack: pack id or folder path.
    :returns: the frozen :class:`EraPack`.
    :raises PackError: listing every problem, each with file, line, column and field path.
    """
    return read_located(pack).pack


@dataclass
class Located:
    """A loaded pack with where each of its entries came from, so later checks (``designer.lint``) report a finding at
    its file, line and field exactly as the validator reports an error."""

    pack: EraPack
    reader: _Reader
    tables: dict[str, dict[str, tuple[Entry, Any]]]
    era_entry: Entry
    doc_texts: dict[str, tuple[str, list[str]]]  # a document's path in the pack -> (its displayed path, its lines)

    def warn(self, kind: str, key: str, path: tuple[Any, ...], message: str) -> None:
        """Record a warning at field ``path`` of the entry ``key`` of ``kind`` (``era`` for era.yaml, key "")."""
        entry = self.era_entry if kind == "era" else self.tables[kind][key][0]
        self.reader.issue(entry.origins, path, kind, message, warning=True)

    def warn_doc(self, rel: str, text: str, message: str) -> None:
        """Record a warning at the line of document ``rel`` (``style/narration.md``) where ``text`` starts (its first
        line, stripped), or at its first line when it is not found."""
        display, lines = self.doc_texts[rel]
        first = text.strip().splitlines()[0].strip() if text.strip() else ""
        line = next((i for i, said in enumerate(lines, 1) if first and said.strip() == first), 1)
        self.reader.warnings.append(PackIssue(display, line, 1, "body", message))

    def warnings(self) -> list[PackIssue]:
        """The loader's own warnings and every one :meth:`warn` added."""
        return list(self.reader.warnings)


def read_located(pack: str | Path) -> Located:
    """:func:`load_pack`, keeping the entries' origins (:class:`Located`). :raises PackError: as load_pack."""
    layers = pack_layers(pack)
    reader = _Reader(layers[-1].name)
    overlay = len(layers) > 1
    tables: dict[str, dict[str, tuple[Entry, Any]]] = {}
    singles: dict[str, Any] = {}
    single_entries: dict[str, Entry] = {}
    for name, (model, many, required) in FILES.items():
        prefix = name.removesuffix(".yaml")
        if many:
            entries, readable = _merge_lists(reader, layers, name)
            present = any((root / name).exists() for root in layers)
        else:
            entry, readable = _merge_mapping(reader, layers, name)
            entries = {"": entry} if entry is not None else {}
            present = entry is not None
        if not readable:
            reader.unreadable.add(prefix)
        if required and not present and readable and "era" not in reader.unreadable:
            reader.issues.append(PackIssue(f"{_display_path(layers[0])}/{name}", 1, 1, "-",
                                           "file is missing" if not (layers[0] / name).exists() else
                                           "file is empty; expected " + ("a list" if many else "a mapping")))
            reader.unreadable.add(prefix)
        table: dict[str, tuple[Entry, Any]] = {}
        for entry in entries.values():
            data = {k: v for k, v in entry.data.items() if k != "disabled"} if isinstance(entry.data, dict) else \
                entry.data
            parsed = reader.validate(model, Entry(data, entry.origins), prefix)
            if parsed is None:
                if isinstance(entry.data, dict) and isinstance(entry.data.get("id"), str):
                    reader.invalid_ids.setdefault(prefix, set()).add(entry.data["id"])
                continue
            if many:
                table[parsed.id] = (entry, parsed)
            else:
                singles[prefix], single_entries[prefix] = parsed, entry
        if many:
            tables[prefix] = table
    doc_texts: dict[str, tuple[str, list[str]]] = {}
    docs = _read_docs(reader, layers, doc_texts)
    era = singles.get("era")
    if era is not None:
        _check_references(reader, era, single_entries["era"], tables, docs)
    if reader.issues or era is None or "namebanks" not in singles:
        raise PackError(reader.pack, reader.issues)
    loaded = EraPack(
        era=era,
        namebank=singles["namebanks"],
        content_hash=_hash_folders(layers),
        layers=[root.name for root in layers] if overlay else [],
        warnings=[str(w) for w in reader.warnings],
        docs={rel: doc for rel, (doc, _) in docs.items()},
        **{kind: {key: parsed for key, (_, parsed) in table.items()} for kind, table in tables.items()},
    )
    return Located(loaded, reader, tables, single_entries["era"], doc_texts)


def _check_references(reader: _Reader, era: Era, era_entry: Entry, tables: dict[str, dict[str, tuple[Entry, Any]]],
                      docs: dict[str, tuple[Doc, Origin]]) -> None:
    known = {kind: set(table) | reader.invalid_ids.get(kind, set()) for kind, table in tables.items()}
    known["items"] = {item.id for item in era.items}

    def ref(origins: list[Origin], prefix: str, kind: str, value: str | None, path: tuple[Any, ...]) -> None:
        if value is None or value in known[kind] or kind in reader.unreadable:
            return
        listed = ", ".join(sorted(known[kind])[:12]) or "none"
        reader.issue(origins, path, prefix, f"{value!r} is not {_article(kind)} in this pack\n  known {kind}: {listed}")

    def each(kind: str, check: Callable[[Callable[..., None], Any], None]) -> None:
        for entry, parsed in tables[kind].values():
            check(lambda k, v, p, e=entry: ref(e.origins, kind, k, v, p), parsed)

    for i, loc in enumerate(era.start_locations):
        ref(era_entry.origins, "era", "locations", loc, ("start_locations", i))
    ref(era_entry.origins, "era", "locations", era.rules.defeat.recover_location,
        ("rules", "defeat", "recover_location"))
    for faction in era.rules.starting.reputation:
        ref(era_entry.origins, "era", "factions", faction, ("rules", "starting", "reputation", faction))

    def location(r: Callable[..., None], loc: Location) -> None:
        r("factions", loc.faction, ("faction",))
        for j, link in enumerate(loc.links):
            r("locations", link.to, ("links", j, "to"))
        for j, item in enumerate(loc.shop):
            r("items", item, ("shop", j))
        for j, found in enumerate(loc.discoveries):
            r("items", found.item, ("discoveries", j, "item"))
            r("rumors", found.rumor, ("discoveries", j, "rumor"))

    def npc(r: Callable[..., None], n: Npc) -> None:
        r("locations", n.location, ("location",))
        r("factions", n.faction, ("faction",))
        for j, loc in enumerate(n.roams):
            r("locations", loc, ("roams", j))

    def companion(r: Callable[..., None], c: Companion) -> None:
        r("locations", c.location, ("location",))
        r("factions", c.faction, ("faction",))
        r("quests", c.recruit.requires_quest, ("recruit", "requires_quest"))
        for faction in c.recruit.min_reputation:
            r("factions", faction, ("recruit", "min_reputation", faction))

    def background(r: Callable[..., None], b: Background) -> None:
        r("locations", b.start_location, ("start_location",))
        for j, item in enumerate(b.items):
            r("items", item, ("items", j))
        for faction in b.reputation:
            r("factions", faction, ("reputation", faction))
        for j, question in enumerate(b.questions):
            for k, choice in enumerate(question.choices):
                where = ("questions", j, "choices", k, "effects")
                r("locations", choice.effects.start_location, (*where, "start_location"))
                for m, item in enumerate(choice.effects.items):
                    r("items", item, (*where, "items", m))
                for faction in choice.effects.reputation:
                    r("factions", faction, (*where, "reputation", faction))

    def rumor(r: Callable[..., None], x: Rumor) -> None:
        r("locations", x.location, ("location",))
        r("factions", x.faction, ("faction",))

    def quest(r: Callable[..., None], q: Quest) -> None:
        r("npcs", q.giver, ("giver",))
        for j, stage in enumerate(q.stages):
            r("locations", stage.when.location, ("stages", j, "when", "location"))
            r("npcs", stage.when.npc, ("stages", j, "when", "npc"))
            r("items", stage.when.item, ("stages", j, "when", "item"))
        for j, item in enumerate(q.reward.items):
            r("items", item, ("reward", "items", j))
        for faction in q.reward.reputation:
            r("factions", faction, ("reward", "reputation", faction))

    def faction(r: Callable[..., None], f: Faction) -> None:
        for j, rival in enumerate(f.rivals):
            r("factions", rival, ("rivals", j))

    def event(r: Callable[..., None], e: WorldEvent) -> None:
        for j, loc in enumerate(e.locations):
            r("locations", loc, ("locations", j))
        for j, fac in enumerate(e.factions):
            r("factions", fac, ("factions", j))
        for fac in e.trigger.min_power:
            r("factions", fac, ("trigger", "min_power", fac))
        for fac in e.effects.faction_power:
            r("factions", fac, ("effects", "faction_power", fac))
        r("rumors", e.effects.rumor, ("effects", "rumor"))
        for npc_id, loc in e.effects.npc_moves.items():
            r("npcs", npc_id, ("effects", "npc_moves", npc_id))
            r("locations", loc, ("effects", "npc_moves", npc_id))

    def banter(r: Callable[..., None], b: Banter) -> None:
        for j, speaker in enumerate(b.speakers):
            r("companions", speaker, ("speakers", j))

    def episode(r: Callable[..., None], e: Episode) -> None:
        r("locations", e.starts_at.location, ("starts_at", "location"))
        r("quests", e.starts_at.quest, ("starts_at", "quest"))
        for j, follow in enumerate(e.next):
            r("episodes", follow, ("next", j))
        for beat, signal in e.beats.items():
            r("quests", signal.quest, ("beats", beat, "quest"))
            r("locations", signal.location, ("beats", beat, "location"))
            if signal.met is not None and signal.met not in known.get("companions", set()):
                r("npcs", signal.met, ("beats", beat, "met"))

    def scene(r: Callable[..., None], x: SceneSpec) -> None:
        r("locations", x.location, ("location",))
        r("events", x.opens_on.event, ("opens_on", "event"))
        r("episodes", x.opens_on.episode, ("opens_on", "episode"))
        if x.goal is not None:
            r("locations", x.goal.location, ("goal", "location"))
            r("npcs", x.goal.npc, ("goal", "npc"))
            r("items", x.goal.item, ("goal", "item"))

    for kind, check in (("locations", location), ("npcs", npc), ("companions", companion),
                        ("backgrounds", background), ("rumors", rumor), ("quests", quest), ("factions", faction),
                        ("events", event), ("banter", banter), ("episodes", episode), ("scenes", scene)):
        each(kind, check)
    _check_scenes(reader, tables, known)
    _check_episodes(reader, tables)
    _check_aliases(reader, tables)
    kinds = ("npcs", "companions", "locations", "factions", "quests", "items")
    if any(kind in reader.unreadable for kind in kinds):
        return  # an unreadable file hides ids a document may name: only its own error is reported
    related = set().union(*(known[k] for k in kinds))
    for _, (doc, origin) in docs.items():
        for j, entity in enumerate(doc.meta.related):
            if entity not in related:
                reader.issue([origin], ("related", j), "front matter",
                             f"{entity!r} is not an NPC, companion, location, faction, quest or item in this pack")


def _check_scenes(reader: _Reader, tables: dict[str, dict[str, tuple[Entry, Any]]],
                  known: dict[str, set[str]]) -> None:
    """A scene's characters are the pack's people; its first speaker and instructions name its own characters."""
    people = known.get("npcs", set()) | known.get("companions", set())
    people_known = not ({"npcs", "companions"} & reader.unreadable)
    for entry, x in tables.get("scenes", {}).values():
        for j, who in enumerate(x.characters):
            if people_known and who not in people:
                reader.issue(entry.origins, ("characters", j), "scenes",
                             f"{who!r} is not an NPC or companion in this pack")
        named = [(("initial_speaker",), x.initial_speaker), *((("instructions", k), k) for k in x.instructions),
                 *((("lines", k), k) for k in x.lines)]
        for path, who in named:
            if who is not None and who not in x.characters:
                reader.issue(entry.origins, path, "scenes", f"{who!r} is not one of this scene's characters "
                             f"({', '.join(x.characters)})")


def _check_episodes(reader: _Reader, tables: dict[str, dict[str, tuple[Entry, Any]]]) -> None:
    """What each completion mode needs (an error naming the field), and story flags an episode waits for that no quest
    stage or event sets (a warning: the flag may be set by a pack that extends this one)."""
    set_by = {s.set_flag for _, q in tables.get("quests", {}).values() for s in q.stages if s.set_flag}
    set_by |= {e.effects.set_flag for _, e in tables.get("events", {}).values() if e.effects.set_flag}
    set_by |= {x.set_flag for _, x in tables.get("scenes", {}).values() if x.set_flag}
    flags_known = not ({"quests", "events", "scenes"} & reader.unreadable)
    for entry, x in tables.get("scenes", {}).values() if flags_known else ():
        for j, flag in enumerate(x.goal_flags):
            if flag not in set_by:
                reader.issue(entry.origins, ("goal_flags", j), "scenes", f"flag {flag!r} is set by no quest stage, "
                             "event or scene (set_flag), so this goal can never be met", warning=True)
    for entry, ep in tables.get("episodes", {}).values():
        mode, criteria = ep.completion_mode, ep.completion_criteria
        if mode == "turn_limited" and ep.turn_budget is None:
            reader.issue(entry.origins, ("completion_mode",), "episodes",
                         "turn_limited needs turn_budget: how many story turns the episode runs")
        if mode == "objective" and (criteria.objective is None or not criteria.objective.flags):
            reader.issue(entry.origins, ("completion_criteria",), "episodes",
                         "objective needs completion_criteria.objective with flags in all or any: the story flags "
                         "(quest stages' or events' set_flag) that complete the episode")
        if mode != "objective" and criteria.objective is not None:
            reader.issue(entry.origins, ("completion_criteria", "objective"), "episodes",
                         f"only an objective episode reads an objective; this one is {mode}")
        if mode == "beat_gated" and criteria.require_resolution and criteria.required_beat == "resolution":
            reader.issue(entry.origins, ("completion_criteria", "require_resolution"), "episodes",
                         "required_beat is already resolution; drop require_resolution")
        quests = tables.get("quests", {})
        for beat, signal in ep.beats.items():
            quest = quests[signal.quest][1] if signal.quest in quests else None
            if quest is not None and signal.stage is not None and signal.stage > len(quest.stages):
                reader.issue(entry.origins, ("beats", beat, "stage"), "episodes", f"quest {signal.quest!r} has "
                             f"{len(quest.stages)} stage(s), so {signal.stage} stages can never be done")
        if not flags_known:
            continue
        waits = [(("beats", beat, "flag"), signal.flag) for beat, signal in ep.beats.items() if signal.flag]
        waits += [(("completion_criteria", "objective", part, j), flag) for part in ("all", "any")
                 for j, flag in enumerate(getattr(criteria.objective, part) if criteria.objective else [])]
        waits += [(("starts_at", "flag"), ep.starts_at.flag)] if ep.starts_at.flag else []
        for path, flag in waits:
            if flag not in set_by:
                reader.issue(entry.origins, path, "episodes", f"flag {flag!r} is set by no quest stage, event or "
                             "scene (set_flag), so this can never happen", warning=True)


def _check_aliases(reader: _Reader, tables: dict[str, dict[str, tuple[Entry, Any]]]) -> None:
    """An alias may not be the name or alias of anything else: "the See" must mean one thing."""
    owners: dict[str, str] = {}
    for kind in ("npcs", "companions", "locations", "factions"):
        for key, (_, parsed) in tables.get(kind, {}).items():
            owners.setdefault(name_key(parsed.name), f"{kind} {key}")
    for kind in ("npcs", "companions", "locations", "factions"):
        for key, (entry, parsed) in tables.get(kind, {}).items():
            for j, alias in enumerate(parsed.aliases):
                owner = owners.setdefault(name_key(alias), f"{kind} {key}")
                if owner != f"{kind} {key}":
                    reader.issue(entry.origins, ("aliases", j), kind,
                                 f"alias {alias!r} already names {owner}; an alias must mean one thing")


def _article(kind: str) -> str:
    singular = {"npcs": "an NPC", "items": "an item", "quests": "a quest", "events": "an event",
                "banter": "a banter entry", "episodes": "an episode",
                "scenes": "a scene"}.get(kind)
    return singular or f"a {kind.removesuffix('s')}"


@lru_cache(maxsize=16)
def _cached(root: str, content_hash: str) -> EraPack:
    return load_pack(root)


def get_pack(pack: str | Path) -> EraPack:
    """Load a pack once per content version; an edited pack (or base pack) is reloaded on the next call."""
    root = resolve_pack_dir(pack)
    return _cached(str(root.resolve()), _hash_folders(pack_layers(root)))
