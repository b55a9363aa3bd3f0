"""Who is on stage this turn: known NPCs at the location, throttled introductions, procedural fallback.

- NPCs the player already knows who are at the location are on stage, up to the pack's cap for the
  location type (``rules.encounter_caps``; party companions do not count against it).
- An NPC the player addresses is introduced at once (NPC_MET).
- Otherwise at most one new NPC is introduced per ``rules.intro_every_turns`` turns; a would-be
  introduction inside that window stages INTRO_THROTTLED instead.
- A location with nobody from the pack gets one deterministic procedural NPC (NPC_SPAWN), built from the
  pack's name bank with an RNG keyed by (campaign seed, location, day), subject to the same throttle.
"""

from __future__ import annotations

from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.records import PresentNpc
from skald.core.state import GameState
from skald.core.vocab import ActionClass
from skald.rules import clock, dice
from skald.rules.scene import companions_at, pack_npcs_at, procedural_npcs_at

QUIET_TYPES = {"wilds", "ruin", "mine"}  # no procedural passers-by out here


def procedural_npc(state: GameState, pack: EraPack, location: str) -> PresentNpc:
    """The deterministic stranger for this location and day."""
    day = clock.day_of(state.world.time_minutes)
    rng = dice.rng_for(state.campaign.seed, "npc", location, day)
    bank = pack.namebank
    name = f"{rng.choice(bank.given)} {rng.choice(bank.family)}"
    role = rng.choice(bank.roles)
    return PresentNpc(id=f"proc_{location}_{day}", name=name, role=role, description=rng.choice(bank.looks),
                      procedural=True)


def cast(state: GameState, pack: EraPack) -> tuple[list[PresentNpc], list[ev.BaseEvent]]:
    """The NPCs on stage and the NPC_MET / NPC_SPAWN / NPC_INTRODUCED / INTRO_THROTTLED events to stage."""
    turn = state.turn
    location = state.after.location
    loc = pack.locations[location]
    caps = pack.era.rules.encounter_caps
    cap = caps.get(loc.type, caps.get("default", 3))
    may_introduce = turn - state.world.last_intro_turn >= pack.era.rules.intro_every_turns
    target = state.router_output.target_npc if state.router_output else None
    known = state.known_npcs
    events: list[ev.BaseEvent] = []
    on_stage: list[PresentNpc] = []
    strangers: list[PresentNpc] = []
    for npc in pack_npcs_at(state, pack, location) + procedural_npcs_at(state, location):
        (on_stage if npc.id in known else strangers).append(npc)
    addressed = next((n for n in strangers if n.id == target), None)
    if addressed is not None:
        on_stage.insert(0, addressed)
        strangers.remove(addressed)
        events.append(ev.NpcMet(npc=addressed.id, name=addressed.name))
    if strangers and addressed is None:
        newcomer = strangers[0]
        if may_introduce:
            on_stage.append(newcomer)
            events.append(ev.NpcMet(npc=newcomer.id, name=newcomer.name))
            events.append(ev.NpcIntroduced(npc=newcomer.id))
        else:
            events.append(ev.IntroThrottled(npc=newcomer.id))
    if not on_stage and not strangers and loc.type not in QUIET_TYPES:
        stranger = procedural_npc(state, pack, location)
        if stranger.id not in known and may_introduce:
            on_stage.append(stranger)
            events.append(ev.NpcSpawn(npc=stranger.id, name=stranger.name, location=location, role=stranger.role,
                                      description=stranger.description))
        elif stranger.id not in known:
            events.append(ev.IntroThrottled(npc=stranger.id))
    enemy = state.combat.enemy_id if state.combat else None
    if enemy in pack.npcs and all(n.id != enemy for n in on_stage):  # whoever you are fighting is on stage
        fighting = next((n for n in pack_npcs_at(state, pack, location) if n.id == enemy), None)
        if fighting is not None:
            on_stage.insert(0, fighting)
            if enemy not in known:
                events.append(ev.NpcMet(npc=enemy, name=fighting.name))
    if target and all(n.id != target for n in on_stage):  # addressed a companion or a capped NPC
        person = next((n for n in companions_at(state, pack, location) if n.id == target), None)
        if person is None:
            person = next((n for n in pack_npcs_at(state, pack, location) if n.id == target), None)
        if person is not None and not person.companion:
            on_stage.insert(0, person)
        elif person is not None and person.id not in known:  # a companion the player speaks to is met
            events.append(ev.NpcMet(npc=person.id, name=person.name))
    on_stage.sort(key=lambda n: n.id != target)  # the addressed NPC is never the one the cap cuts
    gone = {e.npc for e in state.staged_events if isinstance(e, ev.NpcDefeated)}  # beaten this very turn
    npcs = [n for n in on_stage if not n.companion and n.id not in gone][:cap]
    companions = [c for c in companions_at(state, pack, location)]
    return npcs + companions, events


def hazard_events(state: GameState, pack: EraPack) -> list[ev.BaseEvent]:
    """On arrival at a location with hazards, a seeded roll may start a fight (COMBAT_START); never while the player
    is down or already fighting."""
    location = state.after.location
    recovering = state.router_output is not None and state.router_output.action_class == ActionClass.RECOVER
    if location == state.location or state.combat is not None or state.after.combat is not None or \
            state.after.player.defeated or recovering:
        return []  # no ambush on someone fleeing or already fighting, knocked out, or carried to safety
    rng = dice.rng_for(state.campaign.seed, "hazard", state.turn_key)
    for hazard in pack.locations[location].hazards:
        if rng.random() < hazard.chance:
            return [ev.CombatStart(enemy_id=hazard.id, enemy_name=hazard.name, enemy_hp=hazard.hp,
                                   enemy_damage=hazard.damage, reward_credits=hazard.reward_credits,
                                   description=hazard.description)]
    return []
