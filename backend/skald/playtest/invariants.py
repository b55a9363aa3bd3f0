"""State invariants a committed turn must keep, checked after every turn a machine player plays.

``broken(state, pack, before_minutes, present)`` returns ``(key, detail)`` for each one broken: ``key`` names the
invariant (it groups the defect across campaigns), ``detail`` says what was seen. Units: HP and stress points,
credits, minutes of game time.
"""

from __future__ import annotations

from skald.core.pack import EraPack
from skald.core.persistent import PersistentState

REPUTATION = (-10, 10)
POWER = (0, 10)


def broken(state: PersistentState, pack: EraPack, before_minutes: int | None,
           present: list[tuple[str, bool]]) -> list[tuple[str, str]]:
    """Every invariant ``state`` breaks. ``before_minutes``: the world clock before the turn (None: the first
    turn); ``present``: (id, is a companion) of everyone the turn put on stage."""
    player, out = state.player, []
    if not 0 <= player.hp <= player.max_hp:
        out.append(("hp_range", f"HP {player.hp} outside 0..{player.max_hp}"))
    if player.credits < 0:
        out.append(("money_negative", f"money {player.credits}"))
    if not 0 <= player.stress <= pack.era.rules.max_stress:
        out.append(("stress_range", f"stress {player.stress} outside 0..{pack.era.rules.max_stress}"))
    for faction, value in state.reputation.items():
        if not REPUTATION[0] <= value <= REPUTATION[1]:
            out.append(("reputation_range", f"reputation with {faction} {value} outside -10..10"))
    for faction, value in state.world.faction_power.items():
        if not POWER[0] <= value <= POWER[1]:
            out.append(("power_range", f"{faction}'s power {value} outside 0..10"))
    if before_minutes is not None and state.world.time_minutes < before_minutes:
        out.append(("time_backwards", f"the clock went from minute {before_minutes} back to "
                    f"{state.world.time_minutes}"))
    if state.location not in pack.locations:
        out.append(("unknown_location", f"the player is at {state.location!r}, which is not a place of the pack"))
    for item, qty in state.player.inventory.items():
        if item not in pack.items:
            out.append(("unknown_item", f"the inventory holds {item!r}, which is not an item of the pack"))
        if qty <= 0:
            out.append(("item_quantity", f"the inventory holds {qty} of {item!r}"))
    return out + _companions(state, pack, present)


def _companions(state: PersistentState, pack: EraPack, present: list[tuple[str, bool]]) -> list[tuple[str, str]]:
    """A companion is in one place: with the player while in the party, else where the pack puts them."""
    out = []
    party = state.party
    for cid in party:
        if cid not in pack.companions:
            out.append(("unknown_companion", f"the party holds {cid!r}, which is not a companion of the pack"))
            continue
        moved = state.world.npc_locations.get(cid)
        if moved is not None and moved != state.location:
            out.append(("companion_two_places", f"{pack.companions[cid].name} is in the party at {state.location} "
                        f"and also at {moved}"))
    on_stage = [pid for pid, companion in present if companion]
    for cid in sorted({c for c in on_stage if on_stage.count(c) > 1}):
        out.append(("companion_two_places", f"{cid} is on stage twice at {state.location}"))
    for cid in sorted(set(on_stage)):
        home = pack.companions[cid].location if cid in pack.companions else None
        if cid not in party and home != state.location:
            out.append(("companion_two_places", f"{cid} is on stage at {state.location} while waiting at {home}"))
    return out
