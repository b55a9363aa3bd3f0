"""Each event of a turn against the state it was applied to (RPGBench-style checks, after Yu et al., "RPGBench:
Evaluating Large Language Models as Role-Playing Game Engines", 2025: an event is valid only when its precondition
holds in the game state, and a variable changes only by the event's own effect).

``condition_failures(before, events, pack)`` folds the turn's staged events one by one from ``before`` (the state the
turn started from, with its turn number) and returns ``(key, detail)`` for each event whose precondition did not hold
where it was applied, and for each turn whose player variables (credits, HP, stress, items) did not move by exactly
the events' effects. Units: credits, HP and stress points.

Preconditions checked:

- ITEM_LOSE: the player held the item, as many as it takes;
- CREDITS_CHANGE that spends: the player had the credits (the purse never goes below 0, so an unaffordable spend
  would be silently forgiven);
- COMPANION_JOIN: the companion is the pack's and not in the party yet; COMPANION_LEAVE: the companion is in it;
- MOVE: it starts where the player is, and goes to one of the pack's places;
- DISCOVERY: made where the player is, a discovery of that place in the pack, not made before;
- ENEMY_DAMAGE and COMBAT_END: a fight is on;
- ITEM_GET: the item came from somewhere this turn (its provenance): bought here (the CREDITS_CHANGE just before it
  says so, and the place sells it), found (a DISCOVERY of the turn holds it), or a reward (a quest the turn completed
  gives it). Those are the rules' only three ways to gain an item (``rules.trade``, ``rules.resolution``,
  ``rules.quests``).
"""

from __future__ import annotations

from collections.abc import Iterable

from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.vocab import QuestStatus


def condition_failures(before: PersistentState, events: Iterable[ev.BaseEvent], pack: EraPack
                       ) -> list[tuple[str, str]]:
    """Every event of the turn applied where its precondition did not hold, and every player variable that did not
    move by the events' effects (see the module docstring)."""
    limits, state, out = ev.limits_of(pack), before, []
    credits, hp, stress, items = 0, 0, 0, {}
    clamped = False
    events = list(events)
    sources: list[str] = []  # items the turn's discoveries and completed quests hand over, one entry each
    for i, event in enumerate(events):
        out += _precondition(state, event, pack)
        sources += _gives(event, pack)
        if isinstance(event, ev.ItemGet):
            bought = i > 0 and _bought(events[i - 1], event, state, pack)
            if not bought and event.item not in sources:
                out.append(("item_from_nowhere", f"ITEM_GET of {event.item!r} at {state.location!r} that no purchase "
                            "here, discovery or quest reward of the turn gives"))
            elif not bought:
                sources.remove(event.item)
        after = event.apply(state, limits)
        if isinstance(event, ev.CreditsChange):
            credits += event.delta
            clamped |= state.player.credits + event.delta < 0
        elif isinstance(event, ev.Damage | ev.Heal):
            step = -event.amount if isinstance(event, ev.Damage) else event.amount
            hp += step
            clamped |= not 0 <= state.player.hp + step <= state.player.max_hp
        elif isinstance(event, ev.StressChange):
            stress += event.delta
            clamped |= not 0 <= state.player.stress + event.delta <= limits.max_stress
        elif isinstance(event, ev.ItemGet | ev.ItemLose):
            items[event.item] = items.get(event.item, 0) + (event.qty if isinstance(event, ev.ItemGet) else -event.qty)
        elif _touches_player(event):
            clamped = True  # a defeat, a recovery, a level: the player's numbers move by the rules' own amounts
        state = after
    if not clamped and not out:  # a failed precondition already names the cause
        out += _effects(before, state, credits, hp, stress, items)
    return out


def _precondition(state: PersistentState, event: ev.BaseEvent, pack: EraPack) -> list[tuple[str, str]]:
    player = state.player
    if isinstance(event, ev.ItemLose) and player.inventory.get(event.item, 0) < event.qty:
        return [("item_lost_not_held", f"ITEM_LOSE of {event.qty} {event.item!r} while the player held "
                 f"{player.inventory.get(event.item, 0)}")]
    if isinstance(event, ev.CreditsChange) and event.delta < 0 and player.credits < -event.delta:
        return [("spent_more_than_held", f"CREDITS_CHANGE {event.delta} ({event.reason or 'no reason'}) with "
                 f"{player.credits} credits held")]
    if isinstance(event, ev.CompanionJoin) and (event.companion not in pack.companions
                                                or event.companion in state.party):
        return [("join_not_possible", f"COMPANION_JOIN of {event.companion!r}, who is "
                 f"{'already in the party' if event.companion in state.party else 'not a companion of the pack'}")]
    if isinstance(event, ev.CompanionLeave) and event.companion not in state.party:
        return [("leave_not_in_party", f"COMPANION_LEAVE of {event.companion!r}, who was not in the party")]
    if isinstance(event, ev.Move) and (event.origin != state.location or event.to not in pack.locations):
        return [("move_not_from_here", f"MOVE from {event.origin!r} to {event.to!r} while the player was at "
                 f"{state.location!r}")]
    if isinstance(event, ev.Discovery):
        spot = pack.locations.get(event.location)
        known = spot is not None and any(d.id == event.discovery for d in spot.discoveries)
        if event.location != state.location or not known or event.discovery in state.world.discoveries:
            return [("discovery_not_here", f"DISCOVERY of {event.discovery!r} at {event.location!r} while the "
                     f"player was at {state.location!r}"
                     + ("; made before" if event.discovery in state.world.discoveries else "")
                     + ("" if known else "; not a discovery of that place"))]
    if isinstance(event, ev.EnemyDamage | ev.CombatEnd) and state.combat is None:
        return [("no_fight", f"{event.type} with no fight on")]
    return []


def _gives(event: ev.BaseEvent, pack: EraPack) -> list[str]:
    """The items ``event`` hands the player: a discovery's, or a completed quest's reward."""
    if isinstance(event, ev.Discovery):
        spot = pack.locations.get(event.location)
        found = next((d for d in spot.discoveries if d.id == event.discovery), None) if spot else None
        return [found.item] if found is not None and found.item else []
    if isinstance(event, ev.QuestUpdate) and event.status == QuestStatus.COMPLETED and event.quest in pack.quests:
        return list(pack.quests[event.quest].reward.items)
    return []


def _bought(paid: ev.BaseEvent, got: ev.ItemGet, state: PersistentState, pack: EraPack) -> bool:
    """Whether ``got`` is a purchase: the payment just before it names the item, and the place sells it."""
    item = pack.items.get(got.item)
    return (item is not None and isinstance(paid, ev.CreditsChange) and paid.delta < 0
            and paid.reason == f"bought {item.name}" and got.item in pack.locations[state.location].shop)


def _touches_player(event: ev.BaseEvent) -> bool:
    return isinstance(event, ev.Defeated | ev.Recovered)


def _effects(before: PersistentState, after: PersistentState, credits: int, hp: int, stress: int,
             items: dict[str, int]) -> list[tuple[str, str]]:
    """Each player variable that did not move by exactly the sum of the events' effects."""
    out = []
    for name, moved, said in (("credits", after.player.credits - before.player.credits, credits),
                              ("hp", after.player.hp - before.player.hp, hp),
                              ("stress", after.player.stress - before.player.stress, stress)):
        if moved != said:
            out.append((f"{name}_not_by_events", f"{name} moved by {moved}; the turn's events say {said}"))
    for item in sorted(set(before.player.inventory) | set(after.player.inventory) | set(items)):
        moved = after.player.inventory.get(item, 0) - before.player.inventory.get(item, 0)
        if moved != items.get(item, 0):
            out.append(("items_not_by_events", f"{item!r} moved by {moved}; the turn's events say "
                        f"{items.get(item, 0)}"))
    return out
