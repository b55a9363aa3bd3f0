"""The world simulation: what happens off-stage when the clock crosses a tick boundary or the player travels.

Each tick uses its own RNG derived from (campaign seed, "world", tick index), so the world moves the same
way whatever the player rolled. Per tick: one faction move (power +-1 and a news line), one hidden rumor
made public, and roaming NPCs step to their next location. Travel without a tick spreads talk only.
"""

from __future__ import annotations

from skald.packs.models import EraPack
from skald.rules import dice
from skald.rules.clock import ticks_crossed
from skald.state import Event, GameState


def tick_events(state: GameState, pack: EraPack, minutes: int, travelled: bool) -> list[Event]:
    """Events for every tick crossed by advancing ``minutes`` from the current world time.

    :returns: WORLD_TICK, FACTION_MOVE, NEWS, RUMOR_SPREAD and NPC_MOVE events; empty when no tick is
        crossed and the player did not travel.
    """
    before = state.world.time_minutes
    crossed = ticks_crossed(before, before + minutes, pack.era.rules.world_tick_minutes)
    events: list[Event] = []
    public = list(state.world.public_rumors)
    power = dict(state.world.faction_power)
    npc_at = dict(state.world.npc_locations)
    for tick in crossed[-3:]:  # a long rest crosses at most three ticks' worth of news
        rng = dice.rng_for(state.campaign.seed, "world", tick)
        events.append(Event(type="WORLD_TICK", data={"tick": tick}))
        factions = sorted(pack.factions)
        faction = pack.factions[rng.choice(factions)]
        delta = rng.choice((-1, 1, 1))
        if not 0 <= power.get(faction.id, faction.power) + delta <= 10:
            delta = -delta
        power[faction.id] = power.get(faction.id, faction.power) + delta
        news = rng.choice(faction.moves).replace("{faction}", faction.name)
        events.append(Event(type="FACTION_MOVE", data={"faction": faction.id, "delta": delta}))
        events.append(Event(type="NEWS", data={"text": news, "tick": tick}))
        hidden = [r for r in pack.rumors if r not in public]
        if hidden:
            rumor = rng.choice(hidden)
            public.append(rumor)
            events.append(Event(type="RUMOR_SPREAD", data={"rumor": rumor}))
        for npc in pack.npcs.values():
            if len(npc.roams) > 1 and npc.id not in state.world.defeated_npcs:
                here = npc_at.get(npc.id, npc.location)
                nxt = npc.roams[(npc.roams.index(here) + 1) % len(npc.roams)] if here in npc.roams else npc.roams[0]
                if nxt != here and rng.random() < 0.5:
                    npc_at[npc.id] = nxt
                    events.append(Event(type="NPC_MOVE", data={"npc": npc.id, "to": nxt}))
    if not crossed and travelled:
        rng = dice.rng_for(state.campaign.seed, "travel", state.campaign.turn_number)
        hidden = [r for r in pack.rumors if r not in public and pack.rumors[r].location]
        if hidden and rng.random() < 0.3:
            events.append(Event(type="RUMOR_SPREAD", data={"rumor": rng.choice(hidden)}))
    return events
