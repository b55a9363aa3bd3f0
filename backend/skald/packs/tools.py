"""Designer tools behind ``skald pack ...``: validate, new, schema and the ``show`` analysis.

Everything here returns data (no printing), so the CLI stays thin and the analysis is testable:

- :func:`validate` loads packs and collects their errors (never raises);
- :func:`new_pack` / :func:`new_overlay` create a pack folder from ``data/era_packs/_template`` or an overlay;
- :func:`schemas` / :func:`write_schemas` produce JSON Schema files for the YAML files (editor completion);
- :func:`analyse` checks a loaded pack for content that loads but cannot be played: unreachable locations,
  NPCs nobody can meet, factions without members, quests that can never be completed.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter

from skald.core.pack import PACK_ID, DocMeta, EraPack, Quest
from skald.packs.loader import FILES, PACKS_DIR, PackError, load_pack, resolve_pack_dir

TEMPLATE_DIR = PACKS_DIR / "_template"
SCHEMA_DIR = PACKS_DIR.parents[1] / "docs" / "schema"  # the repository's docs/schema

# ----------------------------------------------------------------------------------------- validate


@dataclass
class Validation:
    """The result of loading one pack: ``pack`` is what was asked for (an id or a path)."""

    pack: str
    loaded: EraPack | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """What loads but is probably a mistake (``EraPack.warnings``)."""
        return list(self.loaded.warnings) if self.loaded is not None else []

    @property
    def ok(self) -> bool:
        return self.loaded is not None and not self.errors


def summary(pack: EraPack) -> str:
    """``12 locations, 18 NPCs, ...``: the counts of a loaded pack on one line."""
    singular = {"NPCs": "NPC", "banter": "banter", "rumors": "rumor"}
    return ", ".join(f"{n} {kind if n != 1 else singular.get(kind, kind.removesuffix('s'))}"
                     for kind, n in counts(pack).items())


def validate_one(ref: str | Path) -> Validation:
    """Load one pack; every problem becomes an error line (a PackIssue string). Never raises."""
    result = Validation(str(ref))
    try:
        result.loaded = load_pack(ref)
    except PackError as exc:
        result.errors = [str(issue) for issue in exc.issues] or [str(exc)]
    except Exception as exc:  # noqa: BLE001 - a loader bug must still be a report, not a traceback
        result.errors = [f"{ref}: unexpected error while loading: {type(exc).__name__}: {exc}"]
    return result


def validate(refs: list[str]) -> list[Validation]:
    """Validate the named packs (ids or folder paths)."""
    return [validate_one(ref) for ref in refs]


# ----------------------------------------------------------------------------------------- new


class NewPackError(Exception):
    """The pack cannot be created (bad id, folder exists, unknown base); the message says why."""


def check_pack_id(pack_id: str) -> None:
    """:raises NewPackError: unless ``pack_id`` is lowercase snake_case (``river_town``, ``cinder_reach2``)."""
    if not PACK_ID.match(pack_id):
        raise NewPackError(f"{pack_id!r} is not a valid pack id: use lowercase snake_case, starting with a letter "
                           "(e.g. river_town)")


def _target(pack_id: str, parent: Path | None) -> Path:
    check_pack_id(pack_id)
    target = (parent if parent is not None else PACKS_DIR) / pack_id
    if target.exists():
        raise NewPackError(f"{target} already exists; pick another id or remove the folder first")
    return target


def new_pack(pack_id: str, parent: Path | None = None, template: Path = TEMPLATE_DIR) -> Path:
    """Copy the template pack to ``parent/pack_id`` (default ``data/era_packs/<id>``) with its id replaced.

    :raises NewPackError: invalid id, an existing folder or a missing template.
    """
    target = _target(pack_id, parent)
    if not (template / "era.yaml").is_file():
        raise NewPackError(f"the template pack {template} is missing")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(template, target)
    era = target / "era.yaml"
    text, replaced = re.subn(r"(?m)^id:[ \t]*[^\s#]+", f"id: {pack_id}", era.read_text(encoding="utf-8"), count=1)
    if not replaced:
        raise NewPackError(f"{template / 'era.yaml'} has no top-level 'id:' line to replace")
    era.write_text(text, encoding="utf-8")
    return target


def overlay_text(pack_id: str, base: str, base_pack: EraPack | None = None) -> str:
    """The ``era.yaml`` of a new overlay: ``id`` and ``extends`` plus commented examples using the base's ids."""
    npc = next(iter(base_pack.npcs.values()), None) if base_pack else None
    loc = next(iter(base_pack.locations), "some_location") if base_pack else "some_location"
    rumor = next(iter(base_pack.rumors), "some_rumor") if base_pack else "some_rumor"
    npc_id = npc.id if npc else "some_npc"
    npc_line = (npc.lines[0] if npc and npc.lines else "A new line.").replace('"', "'")
    return f"""\
# era.yaml of an overlay: this pack starts from {base!r} and changes only what its files say.
# Every file of an overlay is optional. In each list file (locations.yaml, npcs.yaml, quests.yaml, ...):
#   - an entry whose id the base has is merged over it (mappings merge key by key; lists and values replace);
#   - an entry with `disabled: true` removes the base's entry;
#   - any other entry is added.
# era.yaml and namebanks.yaml merge over the base's key by key; a lore/style/voices document with the same
# path replaces the base's. Check your edits with: skald pack validate {pack_id}
id: {pack_id}  # string: this pack's id, the same as its folder name
extends: {base}  # string: the base pack: an id under data/era_packs, or a folder path

# Override era fields here, e.g.:
# name: {base_pack.era.name + " (revised)" if base_pack else "A New Name"}  # string: the setting's name

# --- examples for the other files (create the file and uncomment) ---
#
# npcs.yaml: override an NPC by id (only the keys you give change):
# - id: {npc_id}
#   disposition: wary  # friendly, neutral, wary or hostile
#   lines:  # replaces the whole list
#     - "{npc_line}"
#
# npcs.yaml: add a new NPC (a complete entry, like in the base):
# - id: new_stranger
#   name: Ada Quell
#   role: traveller
#   location: {loc}
#   description: A stranger in a travel-stained coat.
#
# rumors.yaml: remove an entry of the base:
# - id: {rumor}
#   disabled: true
"""


def new_overlay(pack_id: str, base: str, parent: Path | None = None) -> Path:
    """Write a minimal overlay pack (``era.yaml`` only) that extends ``base``.

    :raises NewPackError: invalid id, an existing folder or a base pack that does not exist or does not load.
    """
    target = _target(pack_id, parent)
    try:
        base_dir = resolve_pack_dir(base)
    except PackError as exc:
        raise NewPackError(exc.issues[0].message if exc.issues else str(exc)) from None
    checked = validate_one(base)
    if not checked.ok:
        raise NewPackError(f"the base pack {base!r} has errors; fix them first (skald pack validate {base})")
    # a shipped pack is named by id; any other folder by its absolute path, which resolves the same from
    # anywhere (whatever the current directory or where the overlay is created)
    ref = base if (PACKS_DIR / base).resolve() == base_dir.resolve() else str(base_dir.resolve())
    target.mkdir(parents=True)
    (target / "era.yaml").write_text(overlay_text(pack_id, ref, checked.loaded), encoding="utf-8")
    return target


# ----------------------------------------------------------------------------------------- schema

# schema file stem -> (model, the file is a list of entries): every file the loader reads, plus document front matter
SCHEMA_KINDS: dict[str, tuple[type[BaseModel], bool]] = {
    name.removesuffix(".yaml"): (model, many) for name, (model, many, _) in FILES.items()
} | {"doc": (DocMeta, False)}


def schemas() -> dict[str, dict[str, Any]]:
    """JSON Schema (draft 2020-12, as pydantic writes it) per YAML file kind, keyed by file name."""
    out: dict[str, dict[str, Any]] = {}
    for stem, (model, many) in SCHEMA_KINDS.items():
        schema = TypeAdapter(list[model]).json_schema() if many else model.model_json_schema()
        what = "front matter of a lore/style/voices document" if stem == "doc" else f"{stem}.yaml"
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                  "title": schema.get("title", f"{model.__name__} list" if many else model.__name__),
                  "description": f"Skald era pack: {what}" + (" (a list)" if many else ""), **schema}
        out[f"{stem}.schema.json"] = schema
    return out


def write_schemas(out_dir: Path) -> list[Path]:
    """Write :func:`schemas` into ``out_dir`` (created if needed); returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = out_dir / name
        path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


# ----------------------------------------------------------------------------------------- show: analysis


def counts(pack: EraPack) -> dict[str, int]:
    """Entries per kind."""
    return {"locations": len(pack.locations), "NPCs": len(pack.npcs), "factions": len(pack.factions),
            "companions": len(pack.companions), "backgrounds": len(pack.backgrounds), "items": len(pack.items),
            "rumors": len(pack.rumors), "quests": len(pack.quests), "events": len(pack.events),
            "banter": len(pack.banter), "episodes": len(pack.episodes), "documents": len(pack.docs)}


@dataclass(frozen=True)
class TravelGraph:
    """``entry_points``: where the player can begin (era start locations and background starts);
    ``components``: groups of locations connected by links in either direction, largest first;
    ``reachable`` / ``unreachable``: locations the player can / cannot walk to from an entry point;
    ``one_way``: links (from, to) with no link back; ``dead_ends``: locations without a way out."""

    entry_points: list[str]
    components: list[list[str]]
    reachable: list[str]
    unreachable: list[str]
    one_way: list[tuple[str, str]]
    dead_ends: list[str]


def entry_points(pack: EraPack) -> list[str]:
    """Every location play can begin at, in order: the era's ``start_locations``, backgrounds' and their answers'
    ``start_location``, episodes' ``starts_at.location``, and the defeat rule's ``recover_location``."""
    starts = list(pack.era.start_locations)
    for background in pack.backgrounds.values():
        starts += [background.start_location] if background.start_location else []
        starts += [c.effects.start_location for q in background.questions for c in q.choices
                   if c.effects.start_location]
    starts += [e.starts_at.location for e in pack.episodes.values() if e.starts_at.location]
    starts.append(pack.era.rules.defeat.recover_location)
    return list(dict.fromkeys(starts))


def reachable(pack: EraPack, origins: set[str] | list[str]) -> set[str]:
    """The locations a chain of links reaches from ``origins`` (travel goes only the way a link points)."""
    return _flood({loc.id: [link.to for link in loc.links] for loc in pack.locations.values()}, list(origins))


def travel_graph(pack: EraPack) -> TravelGraph:
    links = {loc.id: [link.to for link in loc.links if link.to in pack.locations] for loc in pack.locations.values()}
    undirected: dict[str, set[str]] = {loc: set() for loc in links}
    for src, targets in links.items():
        for dst in targets:
            undirected[src].add(dst)
            undirected[dst].add(src)
    components, seen = [], set()
    for loc in links:
        if loc not in seen:
            group = _flood(undirected, [loc])
            seen |= group
            components.append(sorted(group))
    components.sort(key=lambda g: (-len(g), g))
    starts = [s for s in entry_points(pack) if s in links]
    reachable = _flood(links, starts)
    return TravelGraph(
        entry_points=entry_points(pack),
        components=components,
        reachable=[loc for loc in links if loc in reachable],
        unreachable=[loc for loc in links if loc not in reachable],
        one_way=[(src, dst) for src, targets in links.items() for dst in targets if src not in links[dst]],
        dead_ends=[loc for loc, targets in links.items() if not targets],
    )


def _flood(graph: dict[str, Any], starts: list[str]) -> set[str]:
    seen = set(starts)
    queue = deque(starts)
    while queue:
        for nxt in graph.get(queue.popleft(), ()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def npc_places(pack: EraPack, npc_id: str) -> set[str]:
    """Every location an NPC can be at: where they start, where they roam, where events move them."""
    npc = pack.npcs[npc_id]
    places = {npc.location, *npc.roams}
    places |= {dst for event in pack.events.values() for who, dst in event.effects.npc_moves.items() if who == npc_id}
    return places


@dataclass(frozen=True)
class Problem:
    """One finding: ``what`` is ``npc``, ``companion``, ``faction`` or ``quest``; ``id`` the entry's id; ``path`` the
    field inside the entry it is about (``designer.lint`` reports it at that field's line)."""

    what: str
    id: str
    problem: str
    path: tuple[Any, ...] = ()


def people_problems(pack: EraPack, reachable: set[str]) -> list[Problem]:
    """NPCs and companions placed at a location that does not exist, or that the player can never reach."""
    out = []
    for npc in pack.npcs.values():
        places = npc_places(pack, npc.id)
        missing = sorted(p for p in places if p not in pack.locations)
        if missing:
            out.append(Problem("npc", npc.id, f"location(s) that do not exist: {', '.join(missing)}"))
        if not places & reachable:
            out.append(Problem("npc", npc.id, f"never at a reachable location (at {', '.join(sorted(places))})",
                               ("location",)))
    for comp in pack.companions.values():
        if comp.location not in pack.locations:
            out.append(Problem("companion", comp.id, f"location {comp.location!r} does not exist", ("location",)))
        elif comp.location not in reachable:
            out.append(Problem("companion", comp.id, f"at {comp.location}, which is unreachable", ("location",)))
    return out


def scene_problems(pack: EraPack, reachable: set[str]) -> list[Problem]:
    """Scenes that can never open: played at a place no player reaches, or with an NPC who is never there (not their
    place, not in their ``roams``, and no event moves them there; a companion goes where the player goes)."""
    out = []
    for scene in pack.scenes.values():
        if scene.location not in reachable:
            out.append(Problem("scene", scene.id, f"plays at {scene.location}, which no player reaches", ("location",)))
            continue
        for n, who in enumerate(scene.characters):
            if who in pack.npcs and scene.location not in npc_places(pack, who):
                out.append(Problem("scene", scene.id, f"{pack.npcs[who].name} is never at {scene.location} (not "
                                   "their place, not in their roams, and no event moves them there), so the scene "
                                   "never opens", ("characters", n)))
    return out


def factions_without_members(pack: EraPack) -> list[str]:
    """Factions no NPC or companion belongs to."""
    members = {p.faction for p in [*pack.npcs.values(), *pack.companions.values()] if p.faction}
    return [fid for fid in pack.factions if fid not in members]


def item_sources(pack: EraPack, reachable: set[str]) -> dict[str, list[str]]:
    """Item id -> where a player can get it without quests: shops and discoveries at reachable locations,
    and starting items of backgrounds."""
    sources: dict[str, list[str]] = {}
    for loc in pack.locations.values():
        if loc.id not in reachable:
            continue
        for item in loc.shop:
            sources.setdefault(item, []).append(f"shop at {loc.id}")
        for found in loc.discoveries:
            if found.item:
                sources.setdefault(found.item, []).append(f"discovery {found.id} at {loc.id}")
    for bg in pack.backgrounds.values():
        for item in bg.items:
            sources.setdefault(item, []).append(f"background {bg.id}")
    return sources


def _quest_problems(pack: EraPack, quest: Quest, reachable: set[str],
                    items: set[str]) -> list[tuple[tuple[Any, ...], str]]:
    """(the field inside the quest, what is wrong) for each reason the quest can never be completed."""
    problems: list[tuple[tuple[Any, ...], str]] = []
    giver = pack.npcs.get(quest.giver)
    if giver is None:
        problems.append((("giver",), f"giver {quest.giver!r} is not an NPC"))
    elif not npc_places(pack, giver.id) & reachable:
        problems.append((("giver",), f"giver {quest.giver} is never at a reachable location"))
    for n, stage in enumerate(quest.stages):
        when, where, at = stage.when, f"stage {stage.id}: ", ("stages", n, "when")
        if when.location is not None and when.location not in reachable:
            problems.append(((*at, "location"), where + f"location {when.location} is "
                             + ("unreachable" if when.location in pack.locations else "not a location")))
        if when.npc is not None:
            if when.npc not in pack.npcs:
                problems.append(((*at, "npc"), where + f"{when.npc!r} is not an NPC"))
            else:
                places = npc_places(pack, when.npc)
                if not places & reachable:
                    problems.append(((*at, "npc"), where + f"NPC {when.npc} is never at a reachable location"))
                elif when.location is not None and when.location not in places:
                    problems.append(((*at, "npc"), where + f"NPC {when.npc} is never at {when.location} "
                                     f"(only at {', '.join(sorted(places))}): change the location, or add it to "
                                     "their roams"))
        if when.item is not None and when.item not in items:
            problems.append(((*at, "item"), where + f"item {when.item} is not sold, found or given anywhere the "
                             "player can reach (no shop, discovery, background or other quest's reward)"))
    return problems


def obtainable(pack: EraPack, reachable: set[str]) -> tuple[set[str], dict[str, Quest]]:
    """(every item a player can come to hold, the quests that can never be completed): shops and discoveries at
    reachable places, backgrounds (and their answers), and the rewards of quests that can be completed, worked out
    to a fixed point (a quest may need an item another quest gives)."""
    items = set(item_sources(pack, reachable))
    items |= {i for b in pack.backgrounds.values() for q in b.questions for c in q.choices for i in c.effects.items}
    pending = dict(pack.quests)
    changed = True
    while changed:
        changed = False
        for qid, quest in list(pending.items()):
            if not _quest_problems(pack, quest, reachable, items):
                items |= set(quest.reward.items)
                del pending[qid]
                changed = True
    return items, pending


def quest_problems(pack: EraPack, reachable: set[str]) -> list[Problem]:
    """Quests that can never be completed (see :func:`obtainable`), one :class:`Problem` per reason."""
    items, pending = obtainable(pack, reachable)
    return [Problem("quest", qid, problem, path) for qid, quest in pending.items()
            for path, problem in _quest_problems(pack, quest, reachable, items)]


def recruit_problems(pack: EraPack, impossible_quests: set[str]) -> list[Problem]:
    """Companions whose recruitment requires a quest that can never be completed."""
    return [Problem("companion", c.id, f"can never be recruited: requires quest {c.recruit.requires_quest}, "
                                       "which can never be completed", ("recruit", "requires_quest"))
            for c in pack.companions.values() if c.recruit.requires_quest in impossible_quests]


@dataclass(frozen=True)
class Analysis:
    counts: dict[str, int]
    graph: TravelGraph
    people: list[Problem]
    empty_factions: list[str]
    quests: list[Problem]
    scenes: list[Problem]

    @property
    def problem_count(self) -> int:
        return (len(self.graph.unreachable) + len(self.people) + len(self.empty_factions)
                + len({p.id for p in self.quests}) + len({p.id for p in self.scenes}))


def analyse(pack: EraPack) -> Analysis:
    """Everything ``skald pack show`` reports about a loaded pack."""
    graph = travel_graph(pack)
    reachable = set(graph.reachable)
    quests = quest_problems(pack, reachable)
    people = people_problems(pack, reachable) + recruit_problems(pack, {p.id for p in quests})
    return Analysis(counts(pack), graph, people, factions_without_members(pack), quests,
                    scene_problems(pack, reachable))
