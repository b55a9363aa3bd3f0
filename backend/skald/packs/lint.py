"""``skald pack lint``: content that validates but can never happen in play, each finding named by file, line and
field like the validator's errors (``PackIssue``), with what to change.

The checks, in order (each a function below, run on the pack as loaded, with the YAML nodes for line numbers):

- **unreachable places**: a location no chain of links reaches from where campaigns start (the era's
  ``start_locations``, backgrounds' and background answers' ``start_location``, episodes' ``starts_at.location``,
  the defeat rule's ``recover_location``); and a reachable place with no way back out to them (a one-way link);
- **people nobody meets**: an NPC or companion whose every place (``location``, ``roams``, events' ``npc_moves``)
  is unreachable;
- **items nothing grants**: an item in no shop, discovery, background, background answer or quest reward;
- **quest stages that cannot complete**: a stage waiting for an NPC at a place that NPC is never at, at a place no
  one reaches, or for an item nothing grants; and a stage whose own ``objective`` wording the router classifies as
  another action class than the stage's ``when.action_class`` asks (a player who does what the objective says
  would not advance it);
- **rumors and events that can never happen**: a rumor at an unreachable place; an event with ``chance: 0``, at
  places none of which is reachable, or waiting for a faction power above 10 (a faction's power stays within 0..10,
  and world ticks move every faction, so any power up to 10 can come);
- and the loader's own warnings (story flags nothing sets).

Warnings never stop a pack from loading; ``skald pack lint --strict`` exits 1 when there is any.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skald.packs.loader import Located, PackIssue, read_located
from skald.packs.models import EraPack

MAX_POWER = 10  # a faction's power stays within 0..10 (rules.world)


@dataclass(frozen=True)
class Lint:
    """What ``skald pack lint`` found in one pack: ``warnings`` (each a :class:`PackIssue`), in file then line
    order."""

    pack: str
    warnings: list[PackIssue]


def lint(ref: str | Path) -> Lint:
    """Lint the pack ``ref`` (an id or a folder).

    :raises PackError: the pack does not load (its errors come first: fix them, then lint).
    """
    located = read_located(ref)
    pack = located.pack
    for check in (_places, _people, _items, _quest_stages, _rumors_and_events):
        for entry_kind, key, path, message in check(pack):
            located.warn(entry_kind, key, path, message)
    found = sorted({(w.file, w.line, w.column, w.field, w.message): w for w in located.warnings()}.values(),
                   key=lambda w: (w.file, w.line, w.column, w.field))
    return Lint(pack.id, found)


Finding = tuple[str, str, tuple[Any, ...], str]  # (table, entry id ("" for era.yaml), path in the entry, message)


def starts(pack: EraPack) -> set[str]:
    """Every location a campaign (or an episode, or a recovery) can begin at."""
    out = set(pack.era.start_locations) | {pack.era.rules.defeat.recover_location}
    for background in pack.backgrounds.values():
        out |= {background.start_location} if background.start_location else set()
        out |= {c.effects.start_location for q in background.questions for c in q.choices if c.effects.start_location}
    out |= {e.starts_at.location for e in pack.episodes.values() if e.starts_at.location}
    return out


def reachable(pack: EraPack, origins: set[str]) -> set[str]:
    """The locations a chain of links (travel goes only the way a link points) reaches from ``origins``."""
    seen = set(origins)
    queue = deque(origins)
    while queue:
        for link in pack.locations[queue.popleft()].links:
            if link.to not in seen:
                seen.add(link.to)
                queue.append(link.to)
    return seen


def _places(pack: EraPack) -> Iterator[Finding]:
    begin = starts(pack)
    reached = reachable(pack, begin)
    for place in pack.locations.values():
        if place.id not in reached:
            into = sorted(p.id for p in pack.locations.values() if place.id in {lk.to for lk in p.links})
            hint = f"only {', '.join(into)} link to it, and no player reaches them" if into else "nothing links to it"
            yield ("locations", place.id, ("id",), f"no player can reach {place.id!r} ({hint}): add a link to it "
                   f"from a place players reach, e.g. {sorted(reached)[0]!r}, or make it a start location")
        elif not reachable(pack, {place.id}) & begin:
            yield ("locations", place.id, ("links",), f"a player who comes to {place.id!r} can never leave for where "
                   "campaigns start: add a link back (links go one way)")


def _places_of(pack: EraPack, npc_id: str, home: str, roams: list[str]) -> set[str]:
    moved = {to for e in pack.events.values() for who, to in e.effects.npc_moves.items() if who == npc_id}
    return {home, *roams} | moved


def _people(pack: EraPack) -> Iterator[Finding]:
    reached = reachable(pack, starts(pack))
    for kind, people in (("npcs", pack.npcs), ("companions", pack.companions)):
        for person in people.values():
            places = _places_of(pack, person.id, person.location, list(getattr(person, "roams", [])))
            if not places & reached:
                yield (kind, person.id, ("location",), f"{person.name} is only ever at {', '.join(sorted(places))}, "
                       "which no player reaches: place them where players go, or link that place in")


def _granted(pack: EraPack) -> set[str]:
    out = {i for place in pack.locations.values() for i in place.shop}
    out |= {d.item for place in pack.locations.values() for d in place.discoveries if d.item}
    for background in pack.backgrounds.values():
        out |= set(background.items)
        out |= {i for q in background.questions for c in q.choices for i in c.effects.items}
    out |= {i for quest in pack.quests.values() for i in quest.reward.items}
    return out


def _items(pack: EraPack) -> Iterator[Finding]:
    granted = _granted(pack)
    for n, item in enumerate(pack.era.items):
        if item.id not in granted:
            yield ("era", "", ("items", n, "id"), f"nothing grants {item.id!r}: no shop sells it, no discovery, "
                   "background or quest reward gives it; add it to a location's shop or a discovery, or remove it")


def _quest_stages(pack: EraPack) -> Iterator[Finding]:
    from skald.rules.intent import kind_of
    from skald.rules.start import new_state

    reached = reachable(pack, starts(pack))
    granted = _granted(pack)
    state = new_state(pack, seed=1)
    for quest in pack.quests.values():
        for n, stage in enumerate(quest.stages):
            when, at = stage.when, ("stages", n, "when")
            if when.location and when.location not in reached:
                yield ("quests", quest.id, (*at, "location"), f"stage {stage.id!r} needs the player at "
                       f"{when.location!r}, which no player reaches")
            if when.npc and when.location and when.npc in pack.npcs:
                npc = pack.npcs[when.npc]
                if when.location not in _places_of(pack, npc.id, npc.location, npc.roams):
                    yield ("quests", quest.id, (*at, "npc"), f"stage {stage.id!r} needs {npc.name} at "
                           f"{when.location!r}, where they never are (they are at {npc.location!r}"
                           f"{', roaming ' + ', '.join(npc.roams) if npc.roams else ''}): change the location, or "
                           "add it to their roams")
            if when.item and when.item not in granted:
                yield ("quests", quest.id, (*at, "item"), f"stage {stage.id!r} needs the item {when.item!r}, which "
                       "nothing grants: sell it in a shop or give it in a discovery or an earlier reward")
            wanted = when.action_classes
            if wanted:
                where = when.location or (pack.npcs[when.npc].location if when.npc in pack.npcs else None)
                here = state.model_copy(update={"location": where}) if where in pack.locations else state
                heard = kind_of(stage.objective, here, pack)[0].value
                if heard not in wanted:
                    yield ("quests", quest.id, ("stages", n, "objective"), f"the objective {stage.objective!r} reads "
                           f"as {heard} to the router, but the stage needs {' or '.join(wanted)}: a player who does "
                           f"what it says would not advance it. Reword the objective, or add {heard} to "
                           "when.action_class")


def _rumors_and_events(pack: EraPack) -> Iterator[Finding]:
    reached = reachable(pack, starts(pack))
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


__all__ = ["Lint", "Located", "lint", "reachable", "starts"]
