"""Story pacing: the arc stage and quest progress. Thresholds are Skald's own.

Arc stages cycle SETUP -> RISING -> CLIMAX -> RESOLUTION -> SETUP (a new arc):
- SETUP -> RISING after 6 story turns in the stage, or as soon as a quest is active;
- RISING -> CLIMAX after 24 story turns in the stage, or when 2 quests are completed, or tension reaches 6;
- CLIMAX -> RESOLUTION after 10 story turns in the stage, or when a quest completes during the climax;
- RESOLUTION -> SETUP after 6 story turns in the stage.
"""

from __future__ import annotations

from skald.packs.models import EraPack
from skald.rules.scene import current_location
from skald.state import ActionClass, ArcStage, Event, GameState

SETUP_TURNS, RISING_TURNS, CLIMAX_TURNS, RESOLUTION_TURNS = 6, 24, 10, 6
NOT_ASKING = {ActionClass.ATTACK, ActionClass.SNEAK}  # nobody offers a job to someone hitting or robbing them


def quest_events(state: GameState, pack: EraPack) -> list[Event]:
    """QUEST_UPDATE (offered, stage done, completed) and reward events for this turn."""
    router, result = state.router_output, state.mechanic_result
    if router is None or result is None:
        return []
    events: list[Event] = []
    location = current_location(state)
    gained = {e.data["item"] for e in state.staged_events if e.type == "ITEM_GET"}
    for quest in pack.quests.values():
        qstate = state.quests.get(quest.id)
        if qstate is None:
            if router.target_npc == quest.giver and router.action_class not in NOT_ASKING:
                events.append(Event(type="QUEST_UPDATE", data={"quest": quest.id, "status": "active", "stage": 0}))
            continue
        if qstate.status != "active":
            continue
        when = quest.stages[qstate.stage].when
        holds = (
            (when.location is None or when.location == location)
            and (when.npc is None or when.npc == router.target_npc)
            and (when.item is None or when.item in gained or state.player.inventory.get(when.item, 0) > 0)
            and (when.action_class is None or when.action_class == router.action_class.value)
            and (not when.success or result.outcome.succeeded)
        )
        if not holds:
            continue
        if qstate.stage + 1 < len(quest.stages):
            events.append(Event(type="QUEST_UPDATE", data={"quest": quest.id, "status": "active",
                                                           "stage": qstate.stage + 1}))
            continue
        events.append(Event(type="QUEST_UPDATE", data={"quest": quest.id, "status": "completed",
                                                       "stage": qstate.stage + 1}))
        reward = quest.reward
        if reward.credits:
            events.append(Event(type="CREDITS_CHANGE", data={"delta": reward.credits, "reason": quest.title}))
        for item in reward.items:
            events.append(Event(type="ITEM_GET", data={"item": item, "qty": 1}))
        for faction, delta in reward.reputation.items():
            events.append(Event(type="REPUTATION_CHANGE", data={"faction": faction, "delta": delta,
                                                                "reason": quest.title}))
    return events


def next_stage(state: GameState, quest_events_now: list[Event]) -> ArcStage | None:
    """The stage to move to after this turn, or None to stay."""
    in_stage = state.campaign.story_turns + 1 - state.arc_stage_turn
    completed = sum(1 for q in state.quests.values() if q.status == "completed")
    completing = sum(1 for e in quest_events_now if e.data.get("status") == "completed")
    active = any(q.status == "active" for q in state.quests.values()) or any(
        e.data.get("status") == "active" for e in quest_events_now)
    stage = state.arc_stage
    if stage == ArcStage.SETUP and (in_stage >= SETUP_TURNS or active):
        return ArcStage.RISING
    if stage == ArcStage.RISING and (in_stage >= RISING_TURNS or completed + completing >= 2
                                     or state.world.tension >= 6):
        return ArcStage.CLIMAX
    if stage == ArcStage.CLIMAX and (in_stage >= CLIMAX_TURNS or completing):
        return ArcStage.RESOLUTION
    if stage == ArcStage.RESOLUTION and in_stage >= RESOLUTION_TURNS:
        return ArcStage.SETUP
    return None
