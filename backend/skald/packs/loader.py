"""Load and validate an era pack folder into an :class:`EraPack`.

``load_pack(path_or_id)`` reads every YAML file, validates each against its model and checks every
cross-reference. All problems in the pack are collected and raised together as one :class:`PackError`,
each naming ``file:line:column``, the field path, the offending value and what was expected.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from skald.packs.models import (
    Background,
    Companion,
    Era,
    EraPack,
    Faction,
    Location,
    NameBank,
    Npc,
    Quest,
    Rumor,
)

DATA_DIR = Path(__file__).resolve().parents[3] / "data"
PACKS_DIR = DATA_DIR / "era_packs"

# file name -> (model, is a list of entries)
FILES: dict[str, tuple[type[BaseModel], bool]] = {
    "era.yaml": (Era, False),
    "locations.yaml": (Location, True),
    "npcs.yaml": (Npc, True),
    "factions.yaml": (Faction, True),
    "companions.yaml": (Companion, True),
    "backgrounds.yaml": (Background, True),
    "rumors.yaml": (Rumor, True),
    "quests.yaml": (Quest, True),
    "namebanks.yaml": (NameBank, False),
}


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


def _node_at(node: yaml.Node | None, path: tuple[Any, ...], at_key: bool = False) -> yaml.Node | None:
    """Walk a composed YAML node along a pydantic error location; stop at the deepest node found.

    With ``at_key`` the last step stops on the mapping key instead of its value (an unknown key's value
    may start on a later line, e.g. a block list).
    """
    for depth, key in enumerate(path):
        if isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if k.value == key), None)
            if pair is None:
                return node
            node = pair[0] if at_key and depth == len(path) - 1 else pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            return node
    return node


def _field_path(prefix: str, loc: tuple[Any, ...]) -> str:
    out = prefix
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class _PackReader:
    def __init__(self, root: Path):
        self.root = root
        self.issues: list[PackIssue] = []
        # ids of list entries that failed validation: still "known", so references to them are not reported too
        self.invalid_ids: dict[str, set[str]] = {}
        # kinds whose file is missing or unparseable: references to them cannot be checked
        self.unreadable: set[str] = set()
        self.nodes: dict[str, yaml.Node | None] = {}
        self.display = _display_path(root)

    def issue(self, file: str, path: tuple[Any, ...], prefix: str, message: str, at_key: bool = False) -> None:
        node = _node_at(self.nodes.get(file), path, at_key)
        line, col = (node.start_mark.line + 1, node.start_mark.column + 1) if node is not None else (1, 1)
        self.issues.append(PackIssue(f"{self.display}/{file}", line, col, _field_path(prefix, path) or "-", message))

    def read(self, file: str) -> Any:
        path = self.root / file
        if not path.exists():
            self.unreadable.add(file.removesuffix(".yaml"))
            self.issues.append(PackIssue(f"{self.display}/{file}", 1, 1, "-", "file is missing"))
            return None
        text = path.read_text(encoding="utf-8")
        try:
            self.nodes[file] = yaml.compose(text, Loader=yaml.SafeLoader)
            return yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
            problem = getattr(exc, "problem", None) or str(exc)
            self.unreadable.add(file.removesuffix(".yaml"))
            self.issues.append(PackIssue(f"{self.display}/{file}", line, col, "-", f"YAML syntax error: {problem}"))
            return None

    def validate(self, file: str, model: type[BaseModel], many: bool) -> Any:
        data = self.read(file)
        prefix = file.removesuffix(".yaml")
        if data is None:
            if not many and prefix not in self.unreadable:  # an empty file; a list file may be empty
                self.issues.append(PackIssue(f"{self.display}/{file}", 1, 1, "-", "file is empty; expected a mapping"))
            return [] if many else None
        if many:
            if not isinstance(data, list):
                self.issue(file, (), prefix, f"expected a list of {prefix}, got {type(data).__name__}")
                self.unreadable.add(prefix)
                return []
            out = []
            for index, entry in enumerate(data):
                parsed = self._one(file, model, entry, (index,), prefix)
                if parsed is not None:
                    out.append((index, parsed))
                elif isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    self.invalid_ids.setdefault(prefix, set()).add(entry["id"])
            return out
        return self._one(file, model, data, (), prefix)

    def _one(self, file: str, model: type[BaseModel], data: Any, base: tuple[Any, ...], prefix: str) -> Any:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            for err in exc.errors():
                loc = base + tuple(err["loc"])
                given = err.get("input")
                shown = "" if err["type"] == "missing" else f"  (got {given!r:.60})"
                self.issue(file, loc, prefix, f"{_explain(err)}{shown}", at_key=err["type"] == "extra_forbidden")
            return None


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


def resolve_pack_dir(pack: str | Path) -> Path:
    """A pack id (a folder under ``data/era_packs``) or a path to a pack folder."""
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


def _hash_folder(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def load_pack(pack: str | Path) -> EraPack:
    """Load, validate and cross-check one pack.

    :param pack: pack id or folder path.
    :returns: the frozen :class:`EraPack`.
    :raises PackError: listing every problem, each with file, line, column and field path.
    """
    root = resolve_pack_dir(pack)
    reader = _PackReader(root)
    parsed = {name: reader.validate(name, model, many) for name, (model, many) in FILES.items()}
    tables: dict[str, dict[str, Any]] = {}
    for name, (_, many) in FILES.items():
        if not many:
            continue
        prefix = name.removesuffix(".yaml")
        table: dict[str, Any] = {}
        for index, entry in parsed[name]:
            if entry.id in table:
                reader.issue(name, (index, "id"), prefix, f"duplicate id {entry.id!r}")
            table[entry.id] = (index, entry)
        tables[prefix] = table
    era, namebank = parsed["era.yaml"], parsed["namebanks.yaml"]
    if era is not None:
        _check_references(reader, era, tables)
    if reader.issues or era is None or namebank is None:
        raise PackError(root.name, reader.issues)
    return EraPack(
        era=era,
        namebank=namebank,
        content_hash=_hash_folder(root),
        **{kind: {key: entry for key, (_, entry) in table.items()} for kind, table in tables.items()},
    )


def _check_references(reader: _PackReader, era: Era, tables: dict[str, dict[str, Any]]) -> None:
    items = {item.id for item in era.items}
    known = {kind: set(table) | reader.invalid_ids.get(kind, set()) for kind, table in tables.items()}
    known["items"] = items

    def ref(file: str, kind: str, value: str | None, path: tuple[Any, ...]) -> None:
        if value is None or value in known[kind] or kind in reader.unreadable:
            return
        listed = ", ".join(sorted(known[kind])[:12]) or "none"
        prefix = file.removesuffix(".yaml")
        reader.issue(file, path, prefix, f"{value!r} is not {_article(kind)} in this pack\n  known {kind}: {listed}")

    def each(kind: str, check: Callable[[int, Any], None]) -> None:
        for index, entry in tables[kind].values():
            check(index, entry)

    ref("era.yaml", "locations", era.start_location, ("start_location",))
    ref("era.yaml", "locations", era.rules.defeat.recover_location, ("rules", "defeat", "recover_location"))

    def location(i: int, loc: Location) -> None:
        ref("locations.yaml", "factions", loc.faction, (i, "faction"))
        for j, link in enumerate(loc.links):
            ref("locations.yaml", "locations", link.to, (i, "links", j, "to"))
        for j, item in enumerate(loc.shop):
            ref("locations.yaml", "items", item, (i, "shop", j))
        for j, found in enumerate(loc.discoveries):
            ref("locations.yaml", "items", found.item, (i, "discoveries", j, "item"))
            ref("locations.yaml", "rumors", found.rumor, (i, "discoveries", j, "rumor"))

    def npc(i: int, n: Npc) -> None:
        ref("npcs.yaml", "locations", n.location, (i, "location"))
        ref("npcs.yaml", "factions", n.faction, (i, "faction"))
        for j, loc in enumerate(n.roams):
            ref("npcs.yaml", "locations", loc, (i, "roams", j))

    def companion(i: int, c: Companion) -> None:
        ref("companions.yaml", "locations", c.location, (i, "location"))
        ref("companions.yaml", "factions", c.faction, (i, "faction"))
        ref("companions.yaml", "quests", c.recruit.requires_quest, (i, "recruit", "requires_quest"))
        for faction in c.recruit.min_reputation:
            ref("companions.yaml", "factions", faction, (i, "recruit", "min_reputation", faction))

    def background(i: int, b: Background) -> None:
        ref("backgrounds.yaml", "locations", b.start_location, (i, "start_location"))
        for j, item in enumerate(b.items):
            ref("backgrounds.yaml", "items", item, (i, "items", j))
        for faction in b.reputation:
            ref("backgrounds.yaml", "factions", faction, (i, "reputation", faction))

    def rumor(i: int, r: Rumor) -> None:
        ref("rumors.yaml", "locations", r.location, (i, "location"))
        ref("rumors.yaml", "factions", r.faction, (i, "faction"))

    def quest(i: int, q: Quest) -> None:
        ref("quests.yaml", "npcs", q.giver, (i, "giver"))
        for j, stage in enumerate(q.stages):
            ref("quests.yaml", "locations", stage.when.location, (i, "stages", j, "when", "location"))
            ref("quests.yaml", "npcs", stage.when.npc, (i, "stages", j, "when", "npc"))
            ref("quests.yaml", "items", stage.when.item, (i, "stages", j, "when", "item"))
        for j, item in enumerate(q.reward.items):
            ref("quests.yaml", "items", item, (i, "reward", "items", j))
        for faction in q.reward.reputation:
            ref("quests.yaml", "factions", faction, (i, "reward", "reputation", faction))

    def faction(i: int, f: Faction) -> None:
        for j, rival in enumerate(f.rivals):
            ref("factions.yaml", "factions", rival, (i, "rivals", j))

    each("locations", location)
    each("npcs", npc)
    each("companions", companion)
    each("backgrounds", background)
    each("rumors", rumor)
    each("quests", quest)
    each("factions", faction)


def _article(kind: str) -> str:
    singular = {"npcs": "an NPC", "items": "an item", "quests": "a quest"}.get(kind)
    return singular or f"a {kind.removesuffix('s')}"


@lru_cache(maxsize=16)
def _cached(root: str, content_hash: str) -> EraPack:
    return load_pack(root)


def get_pack(pack: str | Path) -> EraPack:
    """Load a pack once per content version; an edited pack is reloaded on the next call."""
    root = resolve_pack_dir(pack)
    return _cached(str(root.resolve()), _hash_folder(root))
