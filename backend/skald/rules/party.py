"""Companion rules: recruitment, affinity and loyalty, banter, inter-party tension. Skald's own numbers.

Affinity runs -100..100; loyalty 0..10 rises by one each time affinity passes a multiple of 20.
Tension 0..10 rises when two party members react in opposite directions to the same turn.
"""

from __future__ import annotations

from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.records import MechanicResult, RouterOutput
from skald.rules.money import money
from skald.text import the_group

LIKE_DELTA = 3
DISLIKE_DELTA = -4
BANTER_EVERY_TURNS = 4


def party_bonus(state: PersistentState, pack: EraPack, action_class: str) -> list[tuple[str, int]]:
    """Check bonuses from party members for this action class, as (label, value) pairs."""
    out = []
    for cid in state.party:
        bonus = pack.companions[cid].bonus.get(action_class, 0)
        if bonus:
            out.append((f"{pack.companions[cid].name} helps", bonus))
    return out


def recruitment_blockers(state: PersistentState, pack: EraPack, companion_id: str) -> list[str]:
    """Why a companion will not join yet; an empty list means they will (on a successful check)."""
    comp = pack.companions[companion_id]
    need = comp.recruit
    out = []
    cstate = state.companions.get(companion_id)
    affinity = cstate.affinity if cstate else 0
    if affinity < need.min_affinity:
        out.append(f"they need to trust you more (affinity {affinity} of {need.min_affinity})")
    for faction, minimum in need.min_reputation.items():
        have = state.reputation.get(faction, 0)
        if have < minimum:
            group = the_group(pack.factions[faction].name)
            out.append(f"they want you in good standing with {group} ({have} of {minimum})")
    if state.player.credits < need.cost_credits:
        out.append(f"their fee is {money(need.cost_credits, pack)} and you have {money(state.player.credits, pack)}")
    if need.requires_quest:
        quest = state.quests.get(need.requires_quest)
        if quest is None or quest.status != "completed":
            out.append(f"they want to see '{pack.quests[need.requires_quest].title}' done first")
    return out


def reactions(state: PersistentState, pack: EraPack, router: RouterOutput,
              result: MechanicResult | None) -> list[ev.BaseEvent]:
    """AFFINITY_CHANGE (and LOYALTY_CHANGE, TENSION_CHANGE, COMPANION_LEAVE) for party members.

    A companion reacts to the turn's tone and action class through their pack ``likes``/``dislikes``.
    """
    events: list[ev.BaseEvent] = []
    signs = []
    keys = {router.tone.value, router.action_class.value}
    for cid in state.party:
        comp = pack.companions[cid]
        delta = LIKE_DELTA * len(keys & set(comp.likes)) + DISLIKE_DELTA * len(keys & set(comp.dislikes))
        if result is not None and result.outcome.value == "CRITICAL_FAILURE" and delta > 0:
            delta -= 1
        if not delta:
            continue
        signs.append(1 if delta > 0 else -1)
        before = state.companions[cid].affinity
        after = max(-100, min(100, before + delta))
        events.append(ev.AffinityChange(companion=cid, delta=after - before))
        if after // 20 > before // 20 and after > 0:
            events.append(ev.LoyaltyChange(companion=cid, delta=1))
        if after < comp.leave_below <= before:
            events.append(ev.CompanionLeave(companion=cid, reason="affinity"))
    if 1 in signs and -1 in signs and state.world.tension < 10:
        events.append(ev.TensionChange(delta=1))
    elif signs and state.world.tension > 0 and all(s > 0 for s in signs):
        events.append(ev.TensionChange(delta=-1))
    return events


def banter(state: PersistentState, pack: EraPack, turn: int) -> list[ev.BaseEvent]:
    """Queue one banter line every few turns: exchanges from ``banter.yaml`` whose speakers are all in the party
    (and whose location tags match, if given) come first; otherwise a party member's own lines, in turn, skipping
    those among the last few heard."""
    party = state.party
    if not party or turn - state.world.last_banter_turn < BANTER_EVERY_TURNS:
        return []
    tags = set(pack.locations[state.location].tags)
    exchanges = [b for b in pack.banter.values() if set(b.speakers) <= set(party)
                 and (not b.location_tags or tags & set(b.location_tags))]
    heard = {line.split("|", 1)[-1] for line in state.world.banter}
    fresh = [b for b in exchanges if " ".join(b.lines) not in heard]
    if fresh:
        chosen = fresh[(turn // BANTER_EVERY_TURNS) % len(fresh)]
        return [ev.BanterQueued(companion=chosen.speakers[0], line=" ".join(chosen.lines), banter=chosen.id)]
    cid = party[turn % len(party)]
    lines = [line for line in pack.companions[cid].banter if line not in heard] or pack.companions[cid].banter
    line = lines[(turn // BANTER_EVERY_TURNS) % len(lines)]  # a line not among the last few heard, when one is left
    return [ev.BanterQueued(companion=cid, line=line)]


def companion_initiative(state: PersistentState, pack: EraPack) -> list[ev.BaseEvent]:
    """Companion-initiated events: a loyal companion steps in when the player is badly hurt (once per turn)."""
    if state.player.hp * 3 > state.player.max_hp or state.player.defeated:
        return []
    for cid in state.party:
        cstate = state.companions[cid]
        if cstate.loyalty >= 1:
            heal = max(2, state.player.max_hp // 6)
            return [ev.Heal(amount=heal, source=cid),
                    ev.CompanionActs(companion=cid, act="patches you up")]
    return []
