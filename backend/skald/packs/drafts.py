"""Pack content drafted with ``skald pack draft`` (``docs/setup.md``): the kinds a designer may draft, the check
of a draft by the pack loader itself (the pack with the draft merged in, as a throw-away overlay), and the overlay
the accepted drafts are written to (never the designer's own files)."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from skald.core.pack import Episode, EraPack, Location, Npc, Quest, Rumor
from skald.packs.loader import PACKS_DIR, PackError, load_pack, resolve_pack_dir


@dataclass(frozen=True)
class Kind:
    model: type[BaseModel]
    file: str
    table: str


KINDS = {"npc": Kind(Npc, "npcs.yaml", "npcs"), "location": Kind(Location, "locations.yaml", "locations"),
         "quest": Kind(Quest, "quests.yaml", "quests"), "rumor": Kind(Rumor, "rumors.yaml", "rumors"),
         "episode": Kind(Episode, "episodes.yaml", "episodes")}
ID = re.compile(r"^[a-z][a-z0-9_]{1,60}$")


def context(pack: EraPack, kind: str) -> str:
    """What the model needs of the pack to draft a ``kind``: the setting and the ids it may refer to."""
    era = pack.era
    return "\n".join([
        f"Setting: {era.name}, {era.era}. Tone: {era.tone} Themes: {', '.join(era.themes)}.",
        "Location ids: " + ", ".join(pack.locations), "Faction ids: " + ", ".join(pack.factions),
        "NPC ids: " + ", ".join(pack.npcs), "Item ids: " + ", ".join(pack.items),
        "Quest ids: " + ", ".join(pack.quests), f"Existing {kind} ids (do not reuse): "
        + ", ".join(getattr(pack, KINDS[kind].table))])


def _provided(message: str) -> str:
    found = re.search(r"\(got (.+)\)\s*$", message.splitlines()[0])
    return found.group(1) if found else ""


def check(pack_ref: str | Path, pack: EraPack, kind: str, entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The loader's verdict on ``pack`` with ``entry`` added, as feedback issues (empty: it loads). Every issue names
    the draft's field; an id the pack already has is refused (an overlay would silently replace it)."""
    spec = KINDS[kind]
    if not ID.match(str(entry.get("id", ""))):
        return [{"field": "id", "provided": str(entry.get("id")), "problem": "not an id",
                 "requirement": "lowercase letters, digits and underscores, starting with a letter"}]
    if entry["id"] in getattr(pack, spec.table):
        article = "an" if kind[0] in "aeiou" or kind == "npc" else "a"
        return [{"field": "id", "provided": entry["id"], "requirement": "a new id",
                 "problem": f"the pack already has {article} {kind} with this id"}]
    with tempfile.TemporaryDirectory(prefix="skald-draft-") as folder:
        root = Path(folder) / "draft_check"
        root.mkdir()
        base = resolve_pack_dir(pack_ref)
        (root / "era.yaml").write_text(f"id: draft_check\nextends: {base}\n", encoding="utf-8")
        (root / spec.file).write_text(yaml.safe_dump([entry], sort_keys=False, allow_unicode=True), encoding="utf-8")
        try:
            load_pack(root)
        except PackError as exc:
            out = []
            for issue in exc.issues:
                field = re.sub(rf"^{spec.table}\[\d+\]\.?", "", issue.field) or "(entry)"
                lines = issue.message.splitlines()
                given = entry.get(re.split(r"[.\[]", field)[0])
                provided = _provided(issue.message) or ("" if given is None else str(given)[:80])
                out.append({"field": field, "provided": provided, "problem": lines[0],
                            "requirement": lines[1].strip() if len(lines) > 1 else lines[0]})
            return out
    return []


def write(pack: EraPack, kind: str, entry: dict[str, Any], out: Path | None = None) -> Path:
    """Add ``entry`` to the drafts overlay of ``pack`` (``data/era_packs/<pack>_drafts`` unless ``out``): its
    ``era.yaml`` (``extends`` the pack) is made when missing, and an entry of the same id in its file is replaced.
    Returns the overlay's folder."""
    root = out or PACKS_DIR / f"{pack.id}_drafts"
    root.mkdir(parents=True, exist_ok=True)
    era = root / "era.yaml"
    if not era.exists():
        era.write_text(f"# Drafted with `skald pack draft`: an overlay of {pack.id}. Review, then move what you keep\n"
                       f"# into the pack's own files.\nid: {root.name}\nextends: {pack.id}\n", encoding="utf-8")
    path = root / KINDS[kind].file
    entries = (yaml.safe_load(path.read_text(encoding="utf-8")) or []) if path.exists() else []
    entries = [e for e in entries if e.get("id") != entry["id"]] + [entry]
    path.write_text(yaml.safe_dump(entries, sort_keys=False, allow_unicode=True, width=110), encoding="utf-8")
    return root
