"""Soft locks: a committed state from which the game can no longer go anywhere, though nothing crashed.

``soft_locks(state, pack)`` returns ``(key, detail)`` for each that holds after a turn:

- ``no_exit``: the player's place has no link to any place;
- ``trapped``: no chain of links leads from the player's place back to any place play begins at
  (``packs.tools.entry_points``): a one-way link led here;
- ``broke``: no money, nothing carried that is worth selling, no settled place within reach to work for pay (work is
  refused in wilds, ruins and mines), and no quest left unfinished can progress: none whose giver can still be met,
  or whose current stage's place, person and item are within reach (an item counts when it is carried, lies in a
  discovery not yet found, costs nothing in a shop, or is another unfinished quest's reward).
"""

from __future__ import annotations

from skald.core.pack import EraPack, QuestTrigger
from skald.core.persistent import PersistentState
from skald.core.vocab import QuestStatus
from skald.packs import tools

ROUGH = {"wilds", "ruin", "mine"}  # the location types where nobody hires (rules.resolution.ROUGH_PLACES)


def soft_locks(state: PersistentState, pack: EraPack) -> list[tuple[str, str]]:
    """Each soft lock ``state`` is in, as (key, detail); the key names the lock and the place."""
    here = pack.locations.get(state.location)
    if here is None:
        return []  # an invariant (unknown_location) reports it
    if not [link for link in here.links if link.to in pack.locations]:
        return [(f"no_exit:{here.id}", f"{here.name} has no way out: no link leads anywhere from it")]
    reach = tools.reachable(pack, {here.id})
    out = []
    if not reach & set(tools.entry_points(pack)):
        out.append((f"trapped:{here.id}", f"from {here.name} no chain of links leads back to where play begins"))
    if _broke(state, pack, reach):
        out.append((f"broke:{here.id}", f"at {here.name} with no money, nothing to sell, no work within reach and no "
                    "quest that can progress"))
    return out


def _broke(state: PersistentState, pack: EraPack, reach: set[str]) -> bool:
    player = state.player
    if player.credits > 0:
        return False
    if any(pack.items[i].value > 0 for i, qty in player.inventory.items() if qty > 0 and i in pack.items):
        return False
    if any(pack.locations[p].type not in ROUGH for p in reach):
        return False
    unfinished = [q for q in pack.quests.values() if (held := state.quests.get(q.id)) is None
                  or held.status != QuestStatus.COMPLETED]
    return bool(unfinished) and not any(_can_progress(state, pack, reach, q.id) for q in unfinished)


def _can_progress(state: PersistentState, pack: EraPack, reach: set[str], quest_id: str) -> bool:
    quest, held = pack.quests[quest_id], state.quests.get(quest_id)
    if held is None:
        return bool(tools.npc_places(pack, quest.giver) & reach)
    if held.stage >= len(quest.stages):
        return False
    return _within_reach(quest.stages[held.stage].when, state, pack, reach, quest_id)


def _within_reach(when: QuestTrigger, state: PersistentState, pack: EraPack, reach: set[str], quest_id: str) -> bool:
    if when.location is not None and when.location not in reach:
        return False
    if when.npc is not None and not tools.npc_places(pack, when.npc) & reach:
        return False
    if when.item is None or state.player.inventory.get(when.item, 0) > 0:
        return True
    for place in reach:
        spot = pack.locations[place]
        if any(d.item == when.item and d.id not in state.world.discoveries for d in spot.discoveries):
            return True
        if when.item in spot.shop and pack.items[when.item].value == 0:
            return True
    return any(when.item in q.reward.items for q in pack.quests.values() if q.id != quest_id
               and (state.quests.get(q.id) is None or state.quests[q.id].status != QuestStatus.COMPLETED))
