"""The world simulation: what happens off-stage when the clock crosses a tick boundary or the player travels.

Each tick uses its own RNG derived from (campaign seed, "world", tick index), so the world moves the same
way whatever the player rolled. Per tick: one faction move (power +-1 and a news line; a gain costs one of its
``rivals`` a point), one hidden rumor
made public, roaming NPCs step to their next location, and the pack's world events (``events.yaml``) whose
trigger holds fire with their effects. Travel without a tick spreads talk only.
"""

from __future__ import annotations

from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.rules import dice
from skald.rules.clock import ticks_crossed


def _world_events(state: PersistentState, pack: EraPack, tick: int, rng, power: dict[str, int], public: list[str],
                  npc_at: dict[str, str]) -> list[ev.BaseEvent]:
    """The pack's world events (``events.yaml``) whose trigger holds on this tick, with their effects."""
    out: list[ev.BaseEvent] = []
    fired = set(state.world.fired_events)
    for event in pack.events.values():
        trigger = event.trigger
        if (trigger.once and event.id in fired) or tick < trigger.from_tick:
            continue
        if trigger.every_ticks and tick % trigger.every_ticks:
            continue
        if trigger.arc_stage and trigger.arc_stage != state.arc_stage.value:
            continue
        if any(power.get(f, pack.factions[f].power) < need for f, need in trigger.min_power.items()):
            continue
        if rng.random() >= trigger.chance:
            continue
        out.append(ev.EventFired(event=event.id, once=trigger.once, tick=tick, factions=event.factions))
        news = event.news.replace("{faction}", pack.factions[event.factions[0]].name) if event.factions else event.news
        out.append(ev.News(text=news, tick=tick))
        for faction, delta in event.effects.faction_power.items():
            power[faction] = power.get(faction, pack.factions[faction].power) + delta
            out.append(ev.FactionMove(faction=faction, delta=delta))
        if event.effects.rumor and event.effects.rumor not in public:
            public.append(event.effects.rumor)
            out.append(ev.RumorSpread(rumor=event.effects.rumor))
        for npc_id, location in event.effects.npc_moves.items():
            if npc_id in state.world.defeated_npcs:
                continue
            npc_at[npc_id] = location
            out.append(ev.NpcMove(npc=npc_id, to=location))
        here = not event.locations or state.location in event.locations
        if event.effects.stress and here:
            out.append(ev.StressChange(delta=event.effects.stress))
        fired.add(event.id)
    return out


def tick_events(state: PersistentState, pack: EraPack, minutes: int, travelled: bool,
                variant: int = 0) -> list[ev.BaseEvent]:
    """Events for every tick crossed by advancing ``minutes`` from the current world time (``variant``: the turn's
    dice variant, for the rumor a journey may spread; the ticks themselves are the world's, keyed by tick).

    :returns: WORLD_TICK, FACTION_MOVE, NEWS, RUMOR_SPREAD and NPC_MOVE events; empty when no tick is
        crossed and the player did not travel.
    """
    before = state.world.time_minutes
    crossed = ticks_crossed(before, before + minutes, pack.era.rules.world_tick_minutes)
    events: list[ev.BaseEvent] = []
    public = list(state.world.public_rumors)
    power = dict(state.world.faction_power)
    npc_at = dict(state.world.npc_locations)
    for tick in crossed[-3:]:  # a long rest crosses at most three ticks' worth of news
        rng = dice.rng_for(state.campaign.seed, "world", tick)
        events.append(ev.WorldTick(tick=tick))
        factions = sorted(pack.factions)
        faction = pack.factions[rng.choice(factions)]
        delta = rng.choice((-1, 1, 1))
        if not 0 <= power.get(faction.id, faction.power) + delta <= 10:
            delta = -delta
        power[faction.id] = power.get(faction.id, faction.power) + delta
        news = rng.choice(faction.moves).replace("{faction}", faction.name)
        events.append(ev.FactionMove(faction=faction.id, delta=delta))
        rivals = [r for r in faction.rivals if power.get(r, pack.factions[r].power) > 0]
        if delta > 0 and rivals:  # one faction's gain is a rival's loss
            rival = rng.choice(rivals)
            power[rival] = power.get(rival, pack.factions[rival].power) - 1
            events.append(ev.FactionMove(faction=rival, delta=-1, rival_of=faction.id))
        events.append(ev.News(text=news, tick=tick))
        hidden = [r for r in pack.rumors if r not in public]
        if hidden:
            rumor = rng.choice(hidden)
            public.append(rumor)
            events.append(ev.RumorSpread(rumor=rumor))
        for npc in pack.npcs.values():
            if len(npc.roams) > 1 and npc.id not in state.world.defeated_npcs:
                here = npc_at.get(npc.id, npc.location)
                nxt = npc.roams[(npc.roams.index(here) + 1) % len(npc.roams)] if here in npc.roams else npc.roams[0]
                if nxt != here and rng.random() < 0.5:
                    npc_at[npc.id] = nxt
                    events.append(ev.NpcMove(npc=npc.id, to=nxt))
        events += _world_events(state, pack, tick, rng, power, public, npc_at)
    if not crossed and travelled:
        rng = dice.rng_for(state.campaign.seed, "travel", dice.turn_key(state.campaign.turn_number, variant))
        hidden = [r for r in pack.rumors if r not in public and pack.rumors[r].location]
        if hidden and rng.random() < 0.3:
            events.append(ev.RumorSpread(rumor=rng.choice(hidden)))
    return events
