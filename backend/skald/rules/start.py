"""The starting state of a new campaign, from the era pack and the chosen background."""

from __future__ import annotations

import uuid

from skald.core.pack import EraPack
from skald.core.persistent import Campaign, Player, World
from skald.core.state import GameState
from skald.rules import suggestions
from skald.rules.scene import everyone_at


def new_state(pack: EraPack, *, seed: int, background: str | None = None, name: str = "Wren",
              campaign_id: str | None = None) -> GameState:
    """The starting state of a campaign: background stats, HP, credits, items and reputation; the pack's starting
    meters; public rumors. It starts at the background's start location, else at one of the pack's
    ``start_locations`` chosen by the seed. Inventory and reputation are kept in id order. The opening offer is four
    suggestions for the scene the player starts in (everyone there may be addressed).

    :raises ValueError: unknown background id.
    """
    bg_id = background or next(iter(pack.backgrounds))
    if bg_id not in pack.backgrounds:
        raise ValueError(f"unknown background {bg_id!r}; choose one of: {', '.join(pack.backgrounds)}")
    bg = pack.backgrounds[bg_id]
    inventory: dict[str, int] = {}
    for item in bg.items:
        inventory[item] = inventory.get(item, 0) + 1
    state = GameState(
        campaign=Campaign(id=campaign_id or uuid.uuid4().hex[:12], pack_id=pack.id, seed=seed),
        player=Player(name=name, background=bg_id, stats=bg.stats.model_dump(), hp=bg.hp, max_hp=bg.hp,
                      credits=bg.credits, inventory=dict(sorted(inventory.items())),
                      stress=min(pack.era.rules.starting.stress, pack.era.rules.max_stress)),
        location=bg.start_location or pack.era.start_locations[seed % len(pack.era.start_locations)],
        world=World(time_minutes=pack.era.calendar.start_minutes,
                    tick=pack.era.calendar.start_minutes // pack.era.rules.world_tick_minutes,
                    faction_power={f.id: f.power for f in pack.factions.values()},
                    public_rumors=[r.id for r in pack.rumors.values() if r.public]),
        reputation=starting_reputation(pack, bg.reputation),
    )
    offer, _ = suggestions.suggest(state, pack, everyone_at(state, pack, state.location))
    state.offer = offer
    return state


def starting_reputation(pack: EraPack, background: dict[str, int]) -> dict[str, int]:
    """0 for every faction, plus the pack's starting reputation, plus the background's (clamped to -10..10), in
    faction-id order."""
    rep = {f: 0 for f in pack.factions}
    for extra in (pack.era.rules.starting.reputation, background):
        for faction, value in extra.items():
            rep[faction] = max(-10, min(10, rep.get(faction, 0) + value))
    return dict(sorted(rep.items()))
