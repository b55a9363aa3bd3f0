"""Who and what is at a location: pure lookups over the pack and the persistent state.

Used by the Router (to resolve targets), the Encounter node (to stage introductions) and the Director
(to lint suggestions), so all three agree on one scene.
"""

from __future__ import annotations

import heapq

from skald.core.memo import per_pack
from skald.core.pack import EraPack, Link
from skald.core.persistent import PersistentState
from skald.core.records import PresentNpc
from skald.core.vocab import Risk


def npc_location(state: PersistentState, pack: EraPack, npc_id: str) -> str:
    return state.world.npc_locations.get(npc_id) or pack.npcs[npc_id].location


@per_pack
def cast_of(pack: EraPack) -> tuple[dict[str, PresentNpc], dict[str, PresentNpc], dict[str, PresentNpc]]:
    """The pack's people as they appear on stage, built once per pack version (views are never modified): every NPC,
    every companion waiting for the player, every companion in the party."""
    npcs = {n.id: PresentNpc(id=n.id, name=n.name, role=n.role, description=n.description,
                             disposition=n.disposition, faction=n.faction) for n in pack.npcs.values()}
    waiting, party = {}, {}
    for c in pack.companions.values():
        fields = {"id": c.id, "name": c.name, "role": c.role, "description": c.description,
                  "faction": c.faction, "companion": True}
        waiting[c.id] = PresentNpc(**fields, disposition="neutral")
        party[c.id] = PresentNpc(**fields, disposition="friendly")
    return npcs, waiting, party


def pack_npcs_at(state: PersistentState, pack: EraPack, location: str) -> list[PresentNpc]:
    """Pack NPCs whose current location is ``location``, in pack order, excluding defeated ones."""
    defeated = state.world.defeated_npcs
    moved = state.world.npc_locations
    npcs = cast_of(pack)[0]
    return [npcs[npc.id] for npc in pack.npcs.values()
            if moved.get(npc.id, npc.location) == location and npc.id not in defeated]


def procedural_npcs_at(state: PersistentState, location: str) -> list[PresentNpc]:
    return [
        PresentNpc(id=k.id, name=k.name, role=k.role, description=k.description, procedural=True)
        for k in state.known_npcs.values()
        if k.procedural and k.location == location and k.id not in state.world.defeated_npcs
    ]


def companions_at(state: PersistentState, pack: EraPack, location: str) -> list[PresentNpc]:
    """Party members (always with the player) and unrecruited companions waiting at ``location``."""
    _, waiting, party = cast_of(pack)
    out = []
    for comp in pack.companions.values():
        cstate = state.companions.get(comp.id)
        if cstate is not None and cstate.in_party:
            out.append(party[comp.id])
        elif comp.location == location:
            out.append(waiting[comp.id])
    return out


def everyone_at(state: PersistentState, pack: EraPack, location: str) -> list[PresentNpc]:
    """Every character who could be addressed at ``location`` (not throttled, not capped)."""
    return pack_npcs_at(state, pack, location) + procedural_npcs_at(state, location) + companions_at(
        state, pack, location
    )


def links_from(pack: EraPack, location: str) -> list[Link]:
    return pack.locations[location].links


def way_label(pack: EraPack, link: Link) -> str:
    """A way as prose names it: 'Cockle Row (5 min)', 'the Long Causeway (40 min, risky)'."""
    from skald.text import the_place

    risk = "" if link.risk == Risk.SAFE else ", " + link.risk.value.lower()
    return f"{the_place(pack.locations[link.to])} ({link.minutes} min{risk})"


def link_to(pack: EraPack, origin: str, destination: str) -> Link | None:
    return next((link for link in pack.locations[origin].links if link.to == destination), None)


RISK_ORDER = {Risk.SAFE: 0, Risk.RISKY: 1, Risk.DANGEROUS: 2}


def route(pack: EraPack, origin: str, destination: str) -> list[Link] | None:
    """The quickest chain of links from ``origin`` to ``destination`` (Dijkstra on minutes), or None."""
    best = {origin: 0}
    back: dict[str, tuple[str, Link]] = {}
    frontier = [(0, origin)]
    while frontier:
        cost, here = heapq.heappop(frontier)
        if here == destination:
            path = []
            while here != origin:
                here, link = back[here]
                path.append(link)
            return path[::-1]
        if cost > best.get(here, cost):
            continue
        for link in pack.locations[here].links:
            total = cost + link.minutes
            if total < best.get(link.to, total + 1):
                best[link.to] = total
                back[link.to] = (here, link)
                heapq.heappush(frontier, (total, link.to))
    return None


def minutes_to(pack: EraPack, origin: str, destination: str) -> int | None:
    """Minutes of the quickest way from ``origin`` to ``destination`` (0 for the same place), or None: no way."""
    path = route(pack, origin, destination) if destination != origin else []
    return None if path is None else sum(link.minutes for link in path)


def nearest(pack: EraPack, origin: str, candidates: list[str]) -> str | None:
    """The candidate place with the quickest way from ``origin`` (ties: the first given), or None when no way
    reaches any."""
    best: tuple[int, str] | None = None
    for loc_id in candidates:
        minutes = minutes_to(pack, origin, loc_id)
        if minutes is not None and (best is None or minutes < best[0]):
            best = (minutes, loc_id)
    return best[1] if best else None


def held(state: PersistentState, item_id: str) -> bool:
    return state.player.inventory.get(item_id, 0) > 0
