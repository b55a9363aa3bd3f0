"""Quest progress: offering a quest, completing its stages, rewards, and hints when an attempt nearly counted.

A quest is OFFERED when the player first speaks to its giver, and taken up (ACTIVE) when they say yes to the giver
(``rules.conversation``) or simply do its first step. Saying no leaves it on offer: nothing pushes it on the player.

A stage completes after a turn when every condition of its ``when`` holds (``core.pack.QuestTrigger``): the
player is at its location, addressed its NPC, holds its item, played one of its action classes, and (unless
``success: false``) the action succeeded. An action that could not happen (``MechanicResult.impossible``) never
counts. When the player's attempt matched the stage's target (its NPC, or its location when it has no NPC) but
not the rest, a QUEST_HINT says what would work ("Juno will need persuading"); the quest log shows it until
the stage changes.
"""

from __future__ import annotations

from skald.core import events as ev
from skald.core.pack import EraPack, Quest, QuestTrigger
from skald.core.state import GameState
from skald.core.vocab import ActionClass, QuestStatus
from skald.text import or_list

NOT_ASKING = {ActionClass.ATTACK, ActionClass.SNEAK}  # nobody offers a job to someone hitting or robbing them

# How each action class is named in a hint: "<name> will need <approach>".
APPROACH = {
    "DIALOGUE_ONLY": "a word", "PERSUADE": "persuading", "DECEIVE": "a convincing story", "INTIMIDATE": "leaning on",
    "RECRUIT": "asking to join you", "ATTACK": "a fight", "SNEAK": "a quiet approach",
    "INVESTIGATE": "a careful search", "TRAVEL": "a journey", "INTERACT": "a hands-on try", "BUY": "buying",
    "SELL": "selling", "GIVE": "a gift", "USE_ITEM": "the right item, used", "REST": "rest",
}


def quest_events(state: GameState, pack: EraPack) -> list[ev.BaseEvent]:
    """QUEST_UPDATE (offered, stage done, completed), reward events and QUEST_HINT for this turn."""
    router, result = state.router_output, state.mechanic_result
    if router is None or result is None:
        return []
    events: list[ev.BaseEvent] = []
    for quest in pack.quests.values():
        qstate = state.quests.get(quest.id)
        if qstate is None:
            if router.target_npc == quest.giver and router.action_class not in NOT_ASKING and not result.impossible:
                events.append(ev.QuestUpdate(quest=quest.id, status=QuestStatus.OFFERED, stage=0))
            continue
        if qstate.status not in (QuestStatus.ACTIVE, QuestStatus.OFFERED):
            continue
        when = quest.stages[qstate.stage].when
        missing = unmet(when, state, pack)
        if missing and qstate.status == QuestStatus.OFFERED:
            continue  # no hints for a job not taken up
        if missing:
            hint = _hint(when, missing, state, pack)
            if hint and hint != qstate.hint:
                events.append(ev.QuestHint(quest=quest.id, stage=qstate.stage, hint=hint))
            continue
        events += _advance(quest, qstate.stage)
    return events


def unmet(when: QuestTrigger, state: GameState, pack: EraPack) -> list[str]:
    """The conditions of ``when`` this turn did not meet: "location", "npc", "item", "action", "success"."""
    router, result = state.router_output, state.mechanic_result
    gained = {e.item for e in state.staged_events if isinstance(e, ev.ItemGet)}
    checks = {
        "location": when.location is None or when.location == state.after.location,
        "npc": when.npc is None or when.npc == router.target_npc,
        "item": when.item is None or when.item in gained or state.player.inventory.get(when.item, 0) > 0,
        "action": not when.action_classes or router.action_class.value in when.action_classes,
        "success": not result.impossible and (not when.success or result.outcome.succeeded),
    }
    return [name for name, holds in checks.items() if not holds]


def _hint(when: QuestTrigger, missing: list[str], state: GameState, pack: EraPack) -> str | None:
    """A hint when the attempt reached the stage's target (its NPC, or else its location) but missed the rest."""
    on_target = when.npc is not None and "npc" not in missing or when.npc is None and when.location is not None and \
        "location" not in missing and state.router_output.action_class != ActionClass.TRAVEL
    if not on_target:
        return None
    person = pack.npcs[when.npc].name.split()[0] if when.npc else None
    if "item" in missing and when.item in pack.items:
        item = pack.items[when.item].name.lower()
        return f"{person} wants to see the {item} first." if person else f"You will need the {item} here."
    if "action" in missing:
        approach = or_list([APPROACH.get(a, a.lower()) for a in when.action_classes])
        return f"{person} will need {approach}." if person else f"This place will need {approach}."
    if "success" in missing:
        return f"{person} is not won over yet; try again." if person else "Nothing yet; try again."
    return None


def _advance(quest: Quest, stage: int) -> list[ev.BaseEvent]:
    if stage + 1 < len(quest.stages):
        return [ev.QuestUpdate(quest=quest.id, status=QuestStatus.ACTIVE, stage=stage + 1)]
    events: list[ev.BaseEvent] = [ev.QuestUpdate(quest=quest.id, status=QuestStatus.COMPLETED, stage=stage + 1)]
    reward = quest.reward
    if reward.credits:
        events.append(ev.CreditsChange(delta=reward.credits, reason=quest.title))
    for item in reward.items:
        events.append(ev.ItemGet(item=item, qty=1))
    for faction, delta in reward.reputation.items():
        events.append(ev.ReputationChange(faction=faction, delta=delta, reason=quest.title))
    return events
