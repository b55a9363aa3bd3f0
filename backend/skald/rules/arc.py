"""Story pacing: the arc stage and quest progress. Thresholds are Skald's own.

Arc stages cycle SETUP -> RISING -> CLIMAX -> RESOLUTION -> SETUP (a new arc):
- SETUP -> RISING after 6 story turns in the stage, or as soon as a quest is active;
- RISING -> CLIMAX after 24 story turns in the stage, or when 2 quests are completed, or tension reaches 6;
- CLIMAX -> RESOLUTION after 10 story turns in the stage, or when a quest completes during the climax;
- RESOLUTION -> SETUP after 6 story turns in the stage.
"""

from __future__ import annotations

from skald import events as ev
from skald.packs.models import EraPack
from skald.state import GameState
from skald.vocab import ActionClass, ArcStage, QuestStatus

SETUP_TURNS, RISING_TURNS, CLIMAX_TURNS, RESOLUTION_TURNS = 6, 24, 10, 6
NOT_ASKING = {ActionClass.ATTACK, ActionClass.SNEAK}  # nobody offers a job to someone hitting or robbing them


def quest_events(state: GameState, pack: EraPack) -> list[ev.BaseEvent]:
    """QUEST_UPDATE (offered, stage done, completed) and reward events for this turn."""
    router, result = state.router_output, state.mechanic_result
    if router is None or result is None:
        return []
    events: list[ev.BaseEvent] = []
    location = state.after.location
    gained = {e.item for e in state.staged_events if isinstance(e, ev.ItemGet)}
    for quest in pack.quests.values():
        qstate = state.quests.get(quest.id)
        if qstate is None:
            if router.target_npc == quest.giver and router.action_class not in NOT_ASKING:
                events.append(ev.QuestUpdate(quest=quest.id, status=QuestStatus.ACTIVE, stage=0))
            continue
        if qstate.status != QuestStatus.ACTIVE:
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
            events.append(ev.QuestUpdate(quest=quest.id, status=QuestStatus.ACTIVE, stage=qstate.stage + 1))
            continue
        events.append(ev.QuestUpdate(quest=quest.id, status=QuestStatus.COMPLETED, stage=qstate.stage + 1))
        reward = quest.reward
        if reward.credits:
            events.append(ev.CreditsChange(delta=reward.credits, reason=quest.title))
        for item in reward.items:
            events.append(ev.ItemGet(item=item, qty=1))
        for faction, delta in reward.reputation.items():
            events.append(ev.ReputationChange(faction=faction, delta=delta, reason=quest.title))
    return events


def next_stage(state: GameState, quest_events_now: list[ev.BaseEvent]) -> ArcStage | None:
    """The stage to move to after this turn, or None to stay."""
    in_stage = state.campaign.story_turns + 1 - state.arc_stage_turn
    updates = [e for e in quest_events_now if isinstance(e, ev.QuestUpdate)]
    completed = sum(1 for q in state.quests.values() if q.status == QuestStatus.COMPLETED)
    completing = sum(1 for e in updates if e.status == QuestStatus.COMPLETED)
    active = any(q.status == QuestStatus.ACTIVE for q in [*state.quests.values(), *updates])
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
