"""The offline narrator's other parts of a turn: what the turn changed (told in numbers), the place and the hour,
how it went (by outcome, action and tone), and the party."""

from __future__ import annotations

import re
from string import Formatter

from skald.core import events as ev
from skald.core.pack import EraPack, Location
from skald.core.vocab import ActionClass, Outcome, QuestStatus
from skald.llm.offline import phrases as ph
from skald.llm.offline.draft import (
    AGAIN,
    AIR,
    ARRIVAL,
    ARRIVED,
    COMPANY,
    EVENTS,
    FIGHT,
    LEAD,
    MOOD,
    OUTCOME,
    TIME,
    TONE,
    Draft,
    end,
    fill,
    spread,
)
from skald.llm.offline.scene import Scene
from skald.rules import clock, prose
from skald.rules.money import money
from skald.rules.prose import MAX_SENTENCES
from skald.text import counted, inner, plural_of, sentences, with_article

INDOOR = {"bar", "clinic", "office", "hall", "hideout", "tower", "mine"}
LIVELY = {"crowded", "noisy", "loud", "busy"}
GROUP = {
    ActionClass.ATTACK: "fight", ActionClass.TRAVEL: "road", ActionClass.PERSUADE: "social",
    ActionClass.DECEIVE: "social", ActionClass.INTIMIDATE: "social", ActionClass.RECRUIT: "social",
    ActionClass.INVESTIGATE: "search", ActionClass.SNEAK: "sneak", ActionClass.INTERACT: "hands",
    ActionClass.BUY: "trade", ActionClass.SELL: "trade", ActionClass.GIVE: "gift", ActionClass.USE_ITEM: "care",
    ActionClass.REST: "care", ActionClass.DIALOGUE_ONLY: "talk", ActionClass.RECOVER: "recover",
}
_CLOCK = re.compile(r"\b\d\d:\d\d\b")


# ------------------------------------------------------------------ what the turn changed


def events(d: Draft, scene: Scene) -> None:
    """Every change to the player the summary did not tell (HP, money, items, in numbers), and the story events:
    a fight starting or ending, a defeat, quests (and a quest's hint), companions, a rumour, the news."""
    state, pack = scene.state, scene.pack
    facts = prose.outcome_facts(state.staged_events, state.player.hp, state.player.max_hp, pack)
    hp, max_hp = state.player.hp, state.player.max_hp
    summary = d.result.summary if d.result else ""
    for e in state.staged_events:
        match e:
            case ev.Damage(amount=amount) if amount > 0:
                hp -= amount
                if prose.missing_facts(d.text(), [_fact(facts, str(amount))]):
                    d.put(EVENTS, d.choose_any("hurt", ph.HURT, n=amount), must=True)
                else:
                    d.put(EVENTS, d.choose("hurt-told", ph.HURT_TOLD), limit=MAX_SENTENCES - 1)
            case ev.Heal(amount=amount, source=source):
                gained = max(0, min(amount, max_hp - max(hp, 0)))
                hp += gained
                if not gained or not prose.missing_facts(d.text(), [_fact(facts, str(gained))]):
                    continue
                if source in pack.companions:
                    comp = pack.companions[source].name.split()[0]
                    d.put(EVENTS, d.choose_any("patched", ph.PATCHED, comp=comp, n=gained), must=True)
                else:
                    d.put(EVENTS, d.choose_any("healed", ph.HEALED, n=gained), must=True)
            case ev.CreditsChange(delta=delta) if delta and prose.missing_facts(d.text(),
                                                                                [_fact(facts, str(abs(delta)))]):
                sum_ = money(abs(delta), pack)
                options = ph.GAINED if delta > 0 else ph.SPENT
                d.put(EVENTS, d.choose_any("gained" if delta > 0 else "spent", options, money=sum_, Money=sum_),
                      must=True)
            case ev.ItemGet(item=item, qty=qty) if item in pack.items:
                name = pack.items[item].name.lower()
                if prose.missing_facts(d.text(), [f for f in facts if name in f.line]):
                    if qty == 1:
                        d.put(EVENTS, d.choose_any("got", ph.GOT_ITEM, an_item=with_article(name),
                                                   An_item=with_article(name), item=name), must=True)
                    else:  # "2 smoked eels go into your pack"
                        some = counted(qty, name, plural_of(name))
                        d.put(EVENTS, d.choose_any("got", ph.GOT_ITEMS, an_item=some, An_item=some), must=True)
            case ev.ItemLose(item=item) if item in pack.items:
                name = pack.items[item].name.lower()
                if prose.missing_facts(d.text(), [f for f in facts if name in f.line]):
                    d.put(EVENTS, d.choose_any("lost", ph.LOST_ITEM, item=name), must=True)
            case ev.CombatStart():
                if e.description:
                    d.put(FIGHT, end(e.description), must=True)
                started = scene.action == ActionClass.ATTACK  # the player started it (an ambush comes on arrival)
                d.put(FIGHT, d.choose_any("fight-on" if started else "enemy", ph.FIGHT_ON if started else
                                          ph.ENEMY_APPEARS, **enemy_fields(e.enemy_name)), must=True)
            case ev.CombatEnd(outcome="victory"):
                d.put(FIGHT, d.choose("won", ph.WON), limit=MAX_SENTENCES - 1)
            case ev.CombatEnd(outcome="fled"):
                d.put(FIGHT, d.choose("fled", ph.FLED), limit=MAX_SENTENCES - 1)
            case ev.Defeated():
                d.put(FIGHT, d.choose_any("down", ph.DOWN), must=True)
            case ev.QuestUpdate():
                _quest(d, e, pack)
            case ev.QuestHint(hint=hint):  # what would count, after an attempt that nearly did: said once, plainly
                d.put(EVENTS, hint, must=True)
            case ev.CompanionJoin(companion=cid) if cid in pack.companions and pack.companions[cid].name not in summary:
                d.put(EVENTS, d.choose_any("joins", ph.JOINS, comp=pack.companions[cid].name), must=True)
            case ev.CompanionLeave(companion=cid) if cid in pack.companions:
                d.put(EVENTS, d.choose_any("leaves", ph.LEAVES, comp=pack.companions[cid].name), must=True)
            case ev.RumorHeard(rumor=rid) if rid in pack.rumors and d.tail(pack.rumors[rid].text).rstrip(
                    ".").lower() not in summary.lower():  # told already when the rules' answer is the rumor itself
                text = d.tail(pack.rumors[rid].text)
                teller = scene.people.get(e.source)
                line = d.choose("rumor-from", ph.RUMOR_FROM, text=text, **teller.fields()) if teller else None
                opening = text.split(" ", 1)[0].lower()
                plain = [r for r in ph.RUMOR if r.split(" ", 1)[0].lower() != opening] or ph.RUMOR
                d.put(EVENTS, line or d.choose_any("rumor", plain, text=text), limit=MAX_SENTENCES - 1)


def _fact(facts: list[prose.Fact], mark: str) -> prose.Fact:
    return next((f for f in facts if mark in f.marks), prose.Fact((mark,), ""))


def enemy_fields(name: str) -> dict[str, str]:
    return {"enemy": inner(name), "Enemy": name}


def _quest(d: Draft, e: ev.QuestUpdate, pack: EraPack) -> None:
    quest = pack.quests.get(e.quest)
    if quest is None:
        return
    if e.status == QuestStatus.COMPLETED:
        d.put(EVENTS, d.choose_any("quest-done", ph.QUEST_DONE, title=quest.title, Title=quest.title), must=True)
    elif e.stage == 0 and e.status == QuestStatus.OFFERED:
        told = (d.result.summary if d.result else "").lower()
        if end(quest.summary).rstrip(".").lower() not in told:  # the rules' answer may be the job itself
            d.put(EVENTS, d.choose_any("quest-offer", ph.QUEST_OFFER, text=d.tail(quest.summary)), must=True)
        d.put(EVENTS, d.choose_any("quest-ask", ph.QUEST_ASK, title=quest.title, Title=quest.title), must=True)
    elif e.stage == 0:  # taken up: the rules' answer gave the word and the first step
        pass
    elif e.stage < len(quest.stages):
        d.put(EVENTS, d.choose_any("quest-next", ph.QUEST_NEXT, text=d.tail(quest.stages[e.stage].objective)),
              must=True)


# ------------------------------------------------------------------ the place, the hour, the air


def details(location: Location) -> list[str]:
    return [end(x) for x in location.details]


def arrival(d: Draft, scene: Scene) -> None:
    """A new place: what it is, when the player has not been here in the recent turns; else a line of return."""
    location, here = scene.location, scene.here
    visited = any(t.location == location.id for t in scene.state.recent)
    described = sentences(location.description)
    text = None
    if not visited and described:
        lead = [f"{fill(o, here)} {d.tail(described[0])}" for o in ph.FIRST_LOOK]
        text = d.choose(f"first-look/{location.id}", lead)
    if text is None:
        text = d.choose("back", ph.BACK_AGAIN, **here) if visited else d.choose("arrive", ph.ARRIVE, **here)
    d.put(ARRIVAL, text)


def lead(d: Draft, scene: Scene) -> None:
    """A staying turn opens on the place: one of its details, or how its air feels at this hour."""
    options = details(scene.location)
    if d.every("lead", 3) or scene.fighting:
        options = tag_lines(scene) or options
    d.put(LEAD, d.choose(f"lead/{scene.location.id}", options), limit=MAX_SENTENCES - 1)


def hour(d: Draft, scene: Scene) -> None:
    """The clock, when it matters: after a long action, on arrival, when the part of the day changes, or when it
    has not been told for a few turns (never in the middle of a fight)."""
    state = scene.state
    when, before = state.after.world.time_minutes, state.world.time_minutes
    told_lately = _CLOCK.search(" ".join(s for t in state.recent[-3:] for s in t.sentences)) is not None
    if when - before >= 60:
        options = ph.HOURS_PASSED if when - before >= 180 else ph.TIME_PASSED
        options = ph.TIME_ARRIVED if scene.moved and not scene.recovering else options
        d.put(ARRIVED if scene.moved else TIME, d.choose("passed", options, clock=scene.now), limit=MAX_SENTENCES - 1)
    elif not scene.fighting and (scene.moved or not told_lately or clock.time_of_day(before) != scene.period):
        d.put(ARRIVED if scene.moved else TIME, d.choose(f"time/{scene.period}", ph.TIME_TOLD[scene.period],
                                                          clock=scene.now), limit=MAX_SENTENCES - 2)


def tag_lines(scene: Scene) -> list[str]:
    tags = [ph.TAGS.get(tag, {}) for tag in scene.location.tags]
    return [line for lines in tags for line in lines.get(scene.period, []) + lines.get("any", [])]


def air(d: Draft, scene: Scene, target: int) -> None:
    """Fill towards ``target`` sentences with the place: its tags at this hour, its details, its hazards, the hour
    itself; and last the arc's mood."""
    location = scene.location
    by_hour = (ph.PERIOD_INDOOR if location.type in INDOOR else ph.PERIOD_OUTDOOR)[scene.period]
    if location.type in INDOOR and set(location.tags) & LIVELY:
        by_hour = by_hour + ph.PERIOD_LIVELY[scene.period]
    sources: list[tuple[str, list[str]]] = [(f"tags/{location.id}", tag_lines(scene)),
                                            (f"detail/{location.id}", details(location)),
                                            (f"hour/{scene.period}", by_hour)]
    if location.hazards and not scene.fighting:
        sources.insert(1, ("hazard", ph.HAZARD_UNEASE))
    start = spread(d.turn, d.seed, "air", len(sources))
    for i in range(len(sources) * 2):
        if d.count >= target:
            return
        key, options = sources[(start + i) % len(sources)]
        d.put(AIR, d.choose(key, options, **scene.here), limit=target)
    stage = scene.state.after.arc_stage.value
    d.put(MOOD, d.choose(f"mood/{stage}", ph.MOODS[stage]), limit=target)


# ------------------------------------------------------------------ the outcome and the party


def outcome(d: Draft, scene: Scene) -> None:
    """How it went (by the kind of action and the outcome; an impossible action gets no flourish of success), how
    the player went about it (their tone), and whether they are trying again."""
    result, action, tone, state = d.result, scene.action, scene.tone, scene.state
    if result.impossible:
        d.put(OUTCOME, d.choose(f"impossible/{tone}", ph.IMPOSSIBLE[tone] + ph.IMPOSSIBLE["NEUTRAL"], **scene.here),
              limit=MAX_SENTENCES - 1)
        return
    if state.router_output is not None and state.router_output.verb == "away":  # "brb": nothing was done, nothing
        return  # took a while (rules.interact.away)
    group = GROUP.get(action, "hands") if action else "hands"
    fields: dict[str, object] = dict(scene.here)
    fought = state.after.combat or state.combat
    started = next((e for e in state.staged_events if isinstance(e, ev.CombatStart)), None)
    enemy = fought.enemy_name if fought else started.enemy_name if started else None
    fields |= enemy_fields(enemy) if enemy else {}
    if scene.target is not None:
        fields |= scene.target.fields()
    item = state.router_output.target_item if state.router_output else None
    fields |= {"item": scene.pack.items[item].name.lower()} if item in scene.pack.items else {}
    pools = ph.FLOURISH.get(group, {})
    options = pools.get(result.outcome.value, [])
    if scene.target is not None:
        options = ph.FLOURISH_AT.get(group, {}).get(result.outcome.value, []) + options
    options = [o for o in options if _fills(o, fields)]  # no "{item}" without an item, no "{enemy}" without a fight
    d.put(OUTCOME, d.choose(f"flourish/{group}/{result.outcome.value}", options, **fields), limit=MAX_SENTENCES - 1)
    if scene.fighting and action == ActionClass.ATTACK:  # a fight reads short: no asides
        return
    last = state.recent[-1] if state.recent else None
    if last is not None and action is not None and last.action_class == action.value and action.value in ph.AGAIN:
        d.put(AGAIN, d.choose(f"again/{action.value}", ph.AGAIN[action.value]), limit=MAX_SENTENCES - 2)
    elif last is not None and last.outcome in (Outcome.FAILURE, Outcome.CRITICAL_FAILURE) and \
            result.outcome != Outcome.NO_ROLL:
        d.put(AGAIN, d.choose("after-failure", ph.AFTER_FAILURE), limit=MAX_SENTENCES - 2)
    if (result.outcome != Outcome.NO_ROLL or action == ActionClass.DIALOGUE_ONLY) and (
            tone != "NEUTRAL" or d.every("plain", 3)):
        options = ph.TONE_LINES[tone]
        if scene.target is not None and not scene.target.companion:
            options = ph.TONE_AT[tone] + options
        d.put(TONE, d.choose(f"tone/{tone}", [o for o in options if _fills(o, fields)], **fields),
              limit=MAX_SENTENCES - 2)


def _fills(template: str, fields: dict[str, object]) -> bool:
    return all(name in fields for _, name, _, _ in Formatter().parse(template) if name)


def company(d: Draft, scene: Scene) -> None:
    """The party (the director's banter, companions' reactions), reputation, a fight going on, how the player is."""
    state, pack = scene.state, scene.pack
    instructions = state.director_instructions
    if instructions and instructions.banter:
        d.put(COMPANY, instructions.banter, limit=MAX_SENTENCES)
    done = d.result is not None and d.result.impossible  # nothing happened: nobody reacts to it
    said: set[str] = set()
    for e in state.staged_events if not done else []:
        if isinstance(e, ev.AffinityChange) and e.delta and e.companion in pack.companions and "comp" not in said:
            comp = pack.companions[e.companion].name.split()[0]
            options = ph.COMPANION_LIKES if e.delta > 0 else ph.COMPANION_DISLIKES
            said.add("comp")
            if d.every(e.companion, 3) or e.delta < 0:  # a look now and then, not a meter
                d.put(COMPANY, d.choose(f"affinity/{e.delta > 0}", options, comp=comp), limit=MAX_SENTENCES - 1)
        if isinstance(e, ev.ReputationChange) and e.delta and e.faction in pack.factions and "rep" not in said:
            name = pack.factions[e.faction].name
            name = name if name.startswith("The ") else f"The {name}"
            options = ph.REPUTATION_UP if e.delta > 0 else ph.REPUTATION_DOWN
            said.add("rep")
            d.put(COMPANY, d.choose(f"rep/{e.delta > 0}", options, faction=inner(name), Faction=name),
                  limit=MAX_SENTENCES - 2)
    after = state.after
    fight = after.combat
    if fight is not None and not d.fight_told and not any(isinstance(e, ev.CombatStart) for e in state.staged_events):
        weak = fight.enemy_hp * 3 <= max(1, _enemy_start_hp(pack, fight.enemy_id))
        d.put(FIGHT, d.choose("enemy-weak" if weak else "in-fight", ph.ENEMY_WEAK if weak else ph.IN_FIGHT,
                              **enemy_fields(fight.enemy_name)), limit=MAX_SENTENCES - 1)
    hp, max_hp = after.player.hp, after.player.max_hp
    if not after.player.defeated and hp != state.player.hp and (fight is not None or hp * 2 <= max_hp):
        options = ph.HP_LEFT if hp < state.player.hp else ph.HP_BACK  # in a fight, the count is what matters
        d.put(FIGHT, d.choose("hp-left" if hp < state.player.hp else "hp-back", options, hp=hp, max=max_hp),
              limit=MAX_SENTENCES - 1)
    elif not after.player.defeated and hp * 3 <= max_hp:
        d.put(FIGHT, d.choose("low-hp", ph.LOW_HP), limit=MAX_SENTENCES - 1)
    stress = sum(e.delta for e in state.staged_events if isinstance(e, ev.StressChange))
    if stress > 0 and after.player.stress * 2 >= pack.era.rules.max_stress:
        d.put(COMPANY, d.choose("stress-up", ph.STRESS_UP), limit=MAX_SENTENCES - 2)
    elif stress < 0:
        d.put(COMPANY, d.choose("stress-down", ph.STRESS_DOWN), limit=MAX_SENTENCES - 2)
    party = [pack.companions[c].name.split()[0] for c in after.party if c in pack.companions]
    if len(party) >= 2 and after.world.tension >= 3:
        d.put(COMPANY, d.choose("tension", ph.TENSION), limit=MAX_SENTENCES - 2)
    elif party and d.every("near", 4):
        d.put(COMPANY, d.choose("near", ph.COMPANION_NEAR, comp=party[d.turn % len(party)]), limit=MAX_SENTENCES - 2)


def _enemy_start_hp(pack: EraPack, enemy_id: str) -> int:
    if enemy_id in pack.npcs:
        return pack.npcs[enemy_id].hp
    hazard = next((h for loc in pack.locations.values() for h in loc.hazards if h.id == enemy_id), None)
    return hazard.hp if hazard else 10
