"""Deterministic stand-ins for the LLM roles, used whenever Ollama is off or fails.

The offline narrator writes 5-8 second-person sentences from the mechanic result, the scene, the people
on stage, the turn's events and the pack's descriptions. Choices come from an RNG keyed by (campaign seed,
turn), and no sentence of the previous turn is used again, so consecutive turns never repeat a sentence.
"""

from __future__ import annotations

import random

from skald import events as ev
from skald.packs.models import EraPack
from skald.persistent import PersistentState
from skald.rules import clock
from skald.rules.prose import MAX_SENTENCES, MIN_SENTENCES
from skald.rules.scene import everyone_at
from skald.state import GameState, PresentNpc, SceneInstructions
from skald.text import sentences
from skald.vocab import Outcome, QuestStatus

OPENERS = {
    # Every opener says "you": the opener is always used, so the prose stays second person even when the
    # other "you" lines were skipped as repeats of the previous turn.
    "arrive": ["You reach {place}.", "{place} opens up around you.", "You come into {place} at last.",
               "The way ends for you at {place}."],
    "stay": ["{place} goes on around you.", "You are still in {place}.", "{place} keeps its own rhythm around you.",
             "Here in {place}, nothing stands still for long, and neither do you."],
}
TIME_LINES = {
    "night": ["It is deep night, {clock}.", "Night presses on everything; it is {clock}."],
    "dawn": ["Dawn is thin and grey; it is {clock}.", "The first light creeps in, {clock}."],
    "morning": ["The morning is under way, {clock}.", "It is morning, {clock}, and the day is still young."],
    "afternoon": ["The afternoon drags on, {clock}.", "It is afternoon, {clock}."],
    "evening": ["Evening settles in, {clock}.", "The light goes amber; it is {clock}."],
}
OUTCOME_LINES = {
    Outcome.CRITICAL_SUCCESS: ["It goes better than you dared hope.", "Everything lines up at once, cleanly."],
    Outcome.SUCCESS: ["It works.", "You pull it off.", "It holds together."],
    Outcome.FAILURE: ["It does not go your way.", "It slips out of your grasp.", "The moment turns against you."],
    Outcome.CRITICAL_FAILURE: ["It goes badly wrong.", "Everything that could slip, slips."],
}
MOODS = {
    "SETUP": ["Something here is waiting to begin.", "You sense threads you have not yet pulled."],
    "RISING": ["The pressure is building, and everyone feels it.", "Things are moving faster than they were."],
    "CLIMAX": ["This is the edge of it; what you do now will count.", "Everything is coming to a head."],
    "RESOLUTION": ["The dust is starting to settle.", "For a moment the world lets you breathe."],
}
PRESENCE = ["{name}, the {role}, is here: {description}", "Nearby is {name}, the {role}. {description}",
            "You notice {name}, {a_role}. {description}"]
SAYS = ["{name} says, \"{line}\"", "\"{line}\" {name} tells you.", "{name} mutters, \"{line}\""]


def _pick(rng: random.Random, options: list[str], used: set[str], **fields: object) -> str | None:
    fresh = [o.format(**fields) for o in options]
    fresh = [f for f in fresh if f not in used]
    return rng.choice(fresh) if fresh else None


def _end(text: str) -> str:
    text = text.strip()
    return text if text[-1:] in ".!?\"" else text + "."


def narrate(state: GameState, pack: EraPack, rng: random.Random) -> str:
    """Offline prose for this turn: 5-8 sentences, second person, no sentence from the previous turn."""
    result = state.mechanic_result
    instructions = state.director_instructions
    location = pack.locations[state.after.location]
    used = set(state.recent[-1].sentences) if state.recent else set()
    out: list[str] = []

    def add(text: str | None) -> None:
        """Add a whole piece (all its sentences) if none was used last turn and it still fits."""
        parts = sentences(text) if text else []
        if not parts or any(p in used or p in out for p in parts) or len(out) + len(parts) > MAX_SENTENCES:
            return
        out.extend(parts)

    moved = location.id != state.location
    add(_pick(rng, OPENERS["arrive" if moved else "stay"], used, place=location.name))
    if moved:
        add(sentences(location.description)[0])
    when = state.after.world.time_minutes
    now = clock.clock_text(when, pack.era.calendar.day_names)
    add(_pick(rng, TIME_LINES[clock.time_of_day(when)], used, clock=now))
    if result is not None:
        add(_end(result.summary))
        if result.outcome != Outcome.NO_ROLL:
            add(_pick(rng, OUTCOME_LINES[result.outcome], used))
    for line in _event_lines(state, pack):
        add(line)
    focus = _focus(state.present_npcs, instructions)
    if focus is not None:
        a_role = f"{'an' if focus.role[:1].lower() in 'aeiou' else 'a'} {focus.role}"
        add(_pick(rng, PRESENCE, used, name=focus.name, role=focus.role, a_role=a_role,
                  description=_end(focus.description)))
        npc = pack.npcs.get(focus.id)
        if npc and npc.lines:
            add(_pick(rng, SAYS, used, name=focus.name.split()[0], line=rng.choice(npc.lines).rstrip()))
    if instructions and instructions.banter:
        add(instructions.banter)
    details = [d for d in location.details if d not in used]
    rng.shuffle(details)
    for detail in details:
        if len(out) >= MIN_SENTENCES + 1:
            break
        add(_end(detail))
    if len(out) < MIN_SENTENCES:
        add(_pick(rng, MOODS[state.arc_stage.value], used))
    while len(out) < MIN_SENTENCES:  # a pack with few details: fall back on the description
        before = len(out)
        for sentence in sentences(location.description):
            add(sentence)
        add(_pick(rng, [f"You take stock of {location.name}.", "You let a breath go.",
                        "You keep your wits about you."], used))
        if len(out) == before:
            break
    return " ".join(out)


def _focus(present: list[PresentNpc], instructions: SceneInstructions | None) -> PresentNpc | None:
    if instructions and instructions.focus_npc:
        match = next((p for p in present if p.id == instructions.focus_npc), None)
        if match:
            return match
    return next((p for p in present if not p.companion), None)


def _event_lines(state: GameState, pack: EraPack) -> list[str]:
    lines = []
    for e in state.staged_events:
        match e:
            case ev.Damage():
                lines.append(f"It costs you {e.amount} HP.")
            case ev.Heal() if e.source in pack.companions:
                lines.append(f"{pack.companions[e.source].name} patches you up ({e.amount} HP).")
            case ev.ItemGet():
                lines.append(f"You now carry {pack.items[e.item].name.lower()}.")
            case ev.CreditsChange() if e.delta > 0:
                lines.append(f"You come away {e.delta} credits richer.")
            case ev.RumorHeard():
                lines.append(f"You hear talk: {_end(pack.rumors[e.rumor].text)}")
            case ev.CompanionJoin():
                lines.append(f"{pack.companions[e.companion].name} is with you now.")
            case ev.CompanionLeave():
                lines.append(f"{pack.companions[e.companion].name} has had enough and walks away.")
            case ev.CombatStart():
                described = f" {_end(e.description)}" if e.description else ""
                lines.append(f"{e.enemy_name} comes at you.{described}")
            case ev.QuestUpdate():
                quest = pack.quests[e.quest]
                if e.status == QuestStatus.COMPLETED:
                    lines.append(f"That settles it: {quest.title} is done.")
                elif e.stage == 0:
                    lines.append(f"A job comes your way: {_end(quest.summary)}")
                else:
                    lines.append(f"Next: {_end(quest.stages[e.stage].objective)}")
            case ev.News():
                lines.append(f"Word travels fast: {_end(e.text)}")
            case ev.Defeated():
                lines.append("Your legs give out and the world goes dark.")
    return lines[:4]


def director_note(state: GameState, pack: EraPack, beat: str, mood: str) -> str:
    """The deterministic director's note: one or two plain sentences of emphasis for the narrator."""
    result = state.mechanic_result
    stakes = result.summary if result else "The player takes stock."
    return f"Play this as {beat} with a {mood} mood. Keep the outcome plain: {stakes}"


def scene_text(state: PersistentState, pack: EraPack, *, resumed: bool) -> str:
    """The scene a campaign starts in, or stands at when it is resumed: where the player is, when, who is about,
    and (on resume) what happened last. Plain, second person, from the pack's own words."""
    here = pack.locations[state.location]
    now = clock.clock_text(state.world.time_minutes, pack.era.calendar.day_names)
    people = everyone_at(state, pack, state.location)
    locals_ = [p for p in people if not p.companion]
    waiting = [p for p in people if p.companion and p.id not in state.party]
    party = [pack.companions[c].name for c in state.party if c in pack.companions]
    lines: list[str] = []
    if resumed:
        lines.append(f"You are back in {here.name}, {clock.time_of_day(state.world.time_minutes)}, {now}.")
        if state.recent:
            last = state.recent[-1]
            lines.append(f"Where you left off: {last.sentences[0] if last.sentences else last.input}")
    else:
        bg = pack.backgrounds[state.player.background]
        lines.append(f"{pack.era.name}, {pack.era.era}. You are {state.player.name}, {_article(bg.name)}: "
                     f"{_end(bg.description)}")
        lines.append(f"{here.name}. {_end(here.description)}")
        lines.append(f"It is {clock.time_of_day(state.world.time_minutes)}, {now}.")
    if locals_:
        named = [f"{p.name}, {_article(p.role)}" for p in locals_[:3]]
        lines.append(("Here: " if resumed else "About the place: ") + "; ".join(named) + ".")
    else:
        lines.append("Nobody you know is about.")
    for person in waiting[:1]:
        lines.append(f"{person.name} is here too, {_article(person.role)} looking for work.")
    if party:
        lines.append(f"With you: {', '.join(party)}.")
    return " ".join(lines)


def _article(noun: str) -> str:
    noun = noun.strip()
    if noun[:4].lower() in ("the ", "a ", "an ") or noun[:2].lower() == "a ":
        return noun
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun[:1].lower()}{noun[1:]}"
