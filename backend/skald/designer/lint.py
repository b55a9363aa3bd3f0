"""``skald pack lint``: content that validates but can never happen in play, each finding named by file, line and
field like the validator's errors (``PackIssue``), with what to change.

What is found (the pack's travel graph and what can be obtained come from :mod:`skald.packs.tools`, which ``skald
pack show`` prints as tables; this module places each finding at its line):

- **places**: a location no chain of links reaches from where play begins (``tools.entry_points``: start locations,
  backgrounds and their answers, episodes' starts, the defeat rule's recovery place); and a reachable place with
  no way back out to them (a one-way link that traps the player);
- **people**: an NPC or companion whose every place (``location``, ``roams``, events' ``npc_moves``) is unreachable,
  and a companion whose recruitment needs a quest that can never be completed;
- **items**: an item nothing a player can reach sells, shows or gives (shops and discoveries at reachable places,
  backgrounds and their answers, rewards of quests that can be completed);
- **quests**: a quest that can never be completed, at the field that stops it (a giver never met, a stage at an
  unreachable place, an NPC never where the stage needs them, an item nothing grants); and a stage whose own
  ``objective`` wording the router classifies as another action class than its ``when.action_class`` asks (a
  player who does what the objective says would not advance it);
- **rumors and events**: a rumor heard only at an unreachable place; an event with ``chance: 0``, at places none of
  which is reachable, or waiting for a faction power above 10 (a faction's power stays within 0..10, and world
  ticks move every faction, so any power up to 10 can come);
- **style**: paragraphs of ``style/`` documents the prompts never carry, because the style guide a prompt carries
  is held to a budget (``llm.prompts.STYLE_TOKENS``); at the first such paragraph of each document;
- and the loader's own warnings (story flags nothing sets).

Warnings never stop a pack from loading; ``skald pack lint --strict`` exits 1 when there is any.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skald.core.pack import EraPack
from skald.llm.prompts import STYLE_TOKENS, style_left_out, style_overflow
from skald.packs import tools
from skald.packs.loader import PackIssue, read_located
from skald.rules.intent import kind_of
from skald.rules.start import new_state
from skald.text import estimate_tokens

MAX_POWER = 10  # a faction's power stays within 0..10 (rules.world)
TABLES = {"npc": "npcs", "companion": "companions", "quest": "quests", "scene": "scenes"}  # Problem.what -> table

Finding = tuple[str, str, tuple[Any, ...], str]  # (table, entry id ("" for era.yaml), field path in it, message)


@dataclass(frozen=True)
class Lint:
    """What ``skald pack lint`` found in one pack: ``warnings`` (each a :class:`PackIssue`), by file and line."""

    pack: str
    warnings: list[PackIssue]


def lint(ref: str | Path) -> Lint:
    """Lint the pack ``ref`` (an id or a folder).

    :raises PackError: the pack does not load (its errors come first: fix them, then lint).
    """
    located = read_located(ref)
    pack = located.pack
    reached = set(tools.travel_graph(pack).reachable)
    for check in (_places, _analysed, _items, _wording, _rumors_and_events):
        for kind, key, path, message in check(pack, reached):
            located.warn(kind, key, path, message)
    for rel, paragraph, message in _style(pack):
        located.warn_doc(rel, paragraph, message)
    found = {(w.file, w.line, w.column, w.field, w.message): w for w in located.warnings()}
    return Lint(pack.id, sorted(found.values(), key=lambda w: (w.file, w.line, w.column, w.field)))


def _places(pack: EraPack, reached: set[str]) -> Iterator[Finding]:
    begin = set(tools.entry_points(pack))
    for place in pack.locations.values():
        if place.id not in reached:
            into = sorted(p.id for p in pack.locations.values() if place.id in {lk.to for lk in p.links})
            why = f"only {', '.join(into)} link to it, and no player reaches them" if into else "nothing links to it"
            yield ("locations", place.id, ("id",), f"no player can reach {place.id!r} ({why}): add a link to it from "
                   f"a place players reach, e.g. {sorted(reached)[0]!r}, or make it a start location")
        elif not tools.reachable(pack, {place.id}) & begin:
            yield ("locations", place.id, ("links",), f"a player who comes to {place.id!r} can never leave for where "
                   "play begins: add a link back (links go one way)")


def _analysed(pack: EraPack, reached: set[str]) -> Iterator[Finding]:
    """People and quests ``tools.analyse`` finds (``skald pack show`` lists the same), at their fields."""
    quests = tools.quest_problems(pack, reached)
    people = tools.people_problems(pack, reached) + tools.recruit_problems(pack, {p.id for p in quests})
    for problem in people:
        person = pack.npcs.get(problem.id) if problem.what == "npc" else pack.companions[problem.id]
        fix = "" if problem.path[:1] == ("recruit",) else ": place them where players go, or link that place in"
        yield (TABLES[problem.what], problem.id, problem.path, f"{person.name}: {problem.problem}{fix}")
    for problem in quests:
        yield ("quests", problem.id, problem.path, f"{pack.quests[problem.id].title}: {problem.problem}")
    for problem in tools.scene_problems(pack, reached):
        yield ("scenes", problem.id, problem.path, f"scene {problem.id}: {problem.problem}: give them the scene's "
               "place in roams, or play the scene where they are")


def _items(pack: EraPack, reached: set[str]) -> Iterator[Finding]:
    items, _ = tools.obtainable(pack, reached)
    for n, item in enumerate(pack.era.items):
        if item.id not in items:
            yield ("era", "", ("items", n, "id"), f"nothing a player can reach grants {item.id!r}: no shop or "
                   "discovery at a reachable place, background, or reward of a quest that can be completed; sell it "
                   "in a shop or give it in a discovery, or remove it")


def _wording(pack: EraPack, reached: set[str]) -> Iterator[Finding]:
    """Each stage's objective, played as the player would type it where the stage happens, must route to one of the
    action classes the stage needs (``rules.intent.kind_of``, the router's own classification)."""
    start = new_state(pack, seed=1)
    for quest in pack.quests.values():
        for n, stage in enumerate(quest.stages):
            wanted = stage.when.action_classes
            if not wanted:
                continue
            where = stage.when.location or (pack.npcs[stage.when.npc].location if stage.when.npc else None)
            state = start.model_copy(update={"location": where}) if where in pack.locations else start
            heard = kind_of(stage.objective, state, pack)[0].value
            if heard not in wanted:
                yield ("quests", quest.id, ("stages", n, "objective"), f"the objective {stage.objective!r} reads as "
                       f"{heard} to the router, but the stage needs {' or '.join(wanted)}: a player who does what it "
                       f"says would not advance it. Reword the objective, or add {heard} to when.action_class")


def _style(pack: EraPack) -> Iterator[tuple[str, str, str]]:
    """The style guide a prompt carries is held to ``llm.prompts.STYLE_TOKENS``, the era's ``style`` paragraph first:
    the first paragraph of each ``style/`` document that does not fit, as (document, paragraph, message)."""
    left = style_left_out(pack)
    over = style_overflow(pack) if left else 0
    for rel in dict.fromkeys(rel for rel, _ in left):
        mine = [paragraph for r, paragraph in left if r == rel]
        rest = f" (and {len(mine) - 1} more of this document)" if len(mine) > 1 else ""
        yield rel, mine[0], (f"this paragraph{rest} never reaches a model: the style guide a prompt carries is held to "
                             f"{STYLE_TOKENS} tokens (the era's style paragraph, {estimate_tokens(pack.era.style)}, "
                             f"first and whole), and the pack's is {over} over. Shorten the style documents or "
                             "era.yaml's style, or move detail into lore/")


def _rumors_and_events(pack: EraPack, reached: set[str]) -> Iterator[Finding]:
    for rumor in pack.rumors.values():
        if rumor.location and rumor.location not in reached:
            yield ("rumors", rumor.id, ("location",), f"rumor {rumor.id!r} is heard at {rumor.location!r}, which no "
                   "player reaches")
    for event in pack.events.values():
        trigger = event.trigger
        if trigger.chance == 0:
            yield ("events", event.id, ("trigger", "chance"), f"event {event.id!r} has chance 0, so it never fires")
        if event.locations and not set(event.locations) & reached:
            yield ("events", event.id, ("locations",), f"event {event.id!r} happens only at "
                   f"{', '.join(event.locations)}, which no player reaches")
        for faction, power in trigger.min_power.items():
            if power > MAX_POWER:
                yield ("events", event.id, ("trigger", "min_power", faction), f"event {event.id!r} waits for "
                       f"{faction} at power {power}, above the most any faction has ({MAX_POWER}): it never fires")
