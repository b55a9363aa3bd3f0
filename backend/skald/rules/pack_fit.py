"""Whether an edited era pack still fits a running campaign (``skald play --watch``, ``skald serve
--reload-packs``): swapping in a pack that lost the player's location, background, items, companions or quests would
break the game, so such an edit is refused and the last good pack stays in use."""

from __future__ import annotations

from skald.core.pack import EraPack
from skald.core.persistent import PersistentState


def problems(pack: EraPack, state: PersistentState) -> list[str]:
    """What in a running campaign the pack no longer has; swapping such a pack in would break the game."""
    problems = []
    if state.location not in pack.locations:
        problems.append(f"campaign: the player is at {state.location!r}, which the edited pack does not have")
    if state.player.background not in pack.backgrounds:
        problems.append(f"campaign: the player's background {state.player.background!r} is gone")
    for item in state.player.inventory:
        if item not in pack.items:
            problems.append(f"campaign: the player carries {item!r}, which is no longer an item")
    for comp in state.companions:
        if comp not in pack.companions:
            problems.append(f"campaign: companion {comp!r} is gone")
    for qid, quest in state.quests.items():
        if qid not in pack.quests:
            problems.append(f"campaign: quest {qid!r} is gone")
        elif quest.status == "active" and quest.stage >= len(pack.quests[qid].stages):
            problems.append(f"campaign: quest {qid!r} is at stage {quest.stage + 1}, but now has "
                            f"{len(pack.quests[qid].stages)} stage(s)")
    for npc, loc in state.world.npc_locations.items():
        if npc in pack.npcs and loc not in pack.locations:
            problems.append(f"campaign: NPC {npc!r} is at {loc!r}, which the edited pack does not have")
    return problems
