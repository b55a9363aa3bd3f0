"""The offline narrator's people: a description the first time someone is met, then what they do and say, by how
they feel about the player (``rules.attitude``) and what the player did to them."""

from __future__ import annotations

from skald.core import events as ev
from skald.core.state import GameState
from skald.core.vocab import ActionClass
from skald.llm.offline import phrases as ph
from skald.llm.offline.draft import INTRO, PEOPLE, SPEECH, Draft, fill, spread
from skald.llm.offline.scene import Person, Scene
from skald.rules import pronouns
from skald.rules.prose import MAX_SENTENCES, described_in, described_lately
from skald.text import end, inner, sentences

SOCIAL = {ActionClass.PERSUADE, ActionClass.DECEIVE, ActionClass.INTIMIDATE, ActionClass.RECRUIT, ActionClass.GIVE,
          ActionClass.ATTACK}


def _introduced(person: Person, state: GameState) -> bool:
    """Whether the player has had this person's description already, so it is not told again: described in one of
    the turns ``state.recent`` keeps, or met before this turn and before those turns. A companion waiting
    for work counts as introduced once they join, or are named in a recent turn."""
    if described_lately(person.description, state):
        return True  # described in a recent turn, met or not ("who is the old man at the bar?")
    if state.mechanic_result is not None and described_in(person.description, state.mechanic_result.summary):
        return True  # this turn's answer describes them already ("whos that pouring drinks": "That is Hesper ...")
    met = state.known_npcs.get(person.id)
    if not person.companion and (met is None or met.first_met_turn < state.turn - len(state.recent)):
        return met is not None  # never met, or met before the recent turns
    return person.companion and (person.id in state.companions or any(person.name in s for t in state.recent
                                                                      for s in t.sentences))


def people(d: Draft, scene: Scene) -> None:
    """The person the turn is about: their description the first time; after that what they do, by their attitude
    and by what the player did to them; now and then what they say. Others new to the scene are named."""
    focus, target, action = scene.focus, scene.target, scene.action
    feeling = scene.feeling(focus)
    fields = focus.fields()
    result = d.result
    talking = action == ActionClass.DIALOGUE_ONLY and target is focus
    enemy = scene.fighting and scene.state.after.combat.enemy_id == focus.id
    if not _introduced(focus, scene.state):
        slot = INTRO if target is focus or scene.moved else PEOPLE  # right after the summary when the turn is theirs
        if _introduce(d, focus, slot) and focus.lines and not focus.companion and not enemy:
            _speak(d, focus, feeling, limit=MAX_SENTENCES - 1)
    elif target is focus and result is not None and not result.impossible:
        if talking:
            d.put(PEOPLE, d.choose(f"listens/{feeling}", ph.LISTENS[feeling], **fields), limit=MAX_SENTENCES - 1)
            if not (d.every(f"wants/{focus.id}", 2) and _wants(d, scene, focus, feeling, MAX_SENTENCES - 1)):
                _speak(d, focus, feeling, limit=MAX_SENTENCES - 1)
        elif action in SOCIAL and (action != ActionClass.ATTACK or _fought(scene, focus)):
            key = (action.value, result.outcome.succeeded)
            d.put(PEOPLE, d.choose(f"reacts/{key}", ph.REACTS.get(key, []), **fields), limit=MAX_SENTENCES - 1)
    elif enemy:  # the fight is about them: what they do stands for the fight this turn
        d.fight_told = d.put(PEOPLE, d.choose("enemy-acts", ph.ENEMY_ACTS, **fields), limit=MAX_SENTENCES - 2)
    elif not focus.companion:
        line = None
        if d.every(f"aside/{focus.id}", 5):  # now and then they talk about the player, by the player's pronouns
            line = _aside(d, focus, scene)
        elif d.every(focus.id, 3) and not _spoke_lately(focus, scene.state):
            line = _overheard(d, focus)  # now and then they say something, to someone
        elif d.every(f"wants/{focus.id}", 3) and _wants(d, scene, focus, feeling, MAX_SENTENCES - 2):
            return
        d.put(PEOPLE, line or d.choose(f"presence/{feeling}", ph.PRESENCE[feeling], **fields), limit=MAX_SENTENCES - 2)
    for e in scene.state.staged_events:  # someone new who is not the point of the turn: named, described later
        if isinstance(e, ev.NpcMet | ev.NpcSpawn) and e.npc in scene.people and e.npc != focus.id:
            d.put(PEOPLE, d.choose("also-here", ph.ALSO_HERE, **scene.people[e.npc].fields()),
                  limit=MAX_SENTENCES - 2)


def _wants(d: Draft, scene: Scene, person: Person, feeling: str, limit: int) -> bool:
    """What ``person`` wants out of the scene, from the Director's brief (``npc_intentions``), told by how they feel
    about the player; False when the brief has nothing on them, the recent turns told it already (in any of its
    phrasings), or the line does not fit."""
    brief = scene.state.director_instructions.brief if scene.state.director_instructions else None
    wanted = next((i.wants for i in brief.npc_intentions if i.npc_id == person.id), None) if brief else None
    if not wanted or wanted.rstrip(".").lower() in d.recent_text.lower():  # told in the last turns, however put
        return False
    return d.put(PEOPLE, d.choose(f"wants/{feeling}", ph.WANTS[feeling], wants=wanted.rstrip("."), **person.fields()),
                 limit=limit)


def _fought(scene: Scene, person: Person) -> bool:
    """Whether this turn's fight was with ``person`` (an attack on them, not on whatever else is fighting you)."""
    fights = [c.enemy_id for c in (scene.state.combat, scene.state.after.combat) if c is not None]
    fights += [e.enemy_id for e in scene.state.staged_events if isinstance(e, ev.CombatStart)]
    return person.id in fights


def _introduce(d: Draft, person: Person, slot: int) -> bool:
    """The person's pack description, framed; or, when it does not fit this turn, just their name and role."""
    fields = person.fields()
    if person.procedural:  # the description is a look: "a wiry hauler with ash in the creases of their coat"
        look = person.description.strip().rstrip(".")
        if d.put(slot, d.choose_any("intro-procedural", ph.INTRO_PROCEDURAL, look=look, **fields)):
            return True
    else:
        for text in _introductions(d, person):
            if d.put(slot, text):
                return True
    d.put(slot, d.choose("also-here", ph.ALSO_HERE, **fields), limit=MAX_SENTENCES - 1)
    return False


def _introductions(d: Draft, person: Person) -> list[str]:
    """The ways to put the description: "This is Odile Pask, the innkeeper: a square, weathered woman ... She keeps
    ..." (when it opens on an article) or "This is ..., the innkeeper. The Eyot's cunning man ...", each way in
    each frame, starting from this turn's frame."""
    parts = sentences(person.description)
    n = len(ph.INTRO)
    start = spread(d.turn, d.seed, "intro", n)
    heads = [fill(ph.INTRO[(start + i) % n], person.fields()) for i in range(n)]
    whole = [f"{head}. {end(person.description)}" for head in heads]
    if parts and parts[0].split()[0] in ("A", "An", "The"):
        clause = [" ".join([f"{head}: {end(inner(parts[0]))}", *parts[1:]]) for head in heads]
        return [x for pair in zip(clause, whole, strict=True) for x in pair]
    return whole


def _spoke_lately(person: Person, state: GameState) -> bool:
    return any(person.first in s and '"' in s for t in state.recent[-2:] for s in t.sentences)


def _speak(d: Draft, person: Person, feeling: str, limit: int) -> bool:
    """One of the person's lines, framed by how they feel about the player."""
    line = _line(d, person)
    if line is None:
        return False
    frames = [f for f in ph.SAYS[feeling] if not f.startswith('"') or line.endswith(".")]
    said = line[:-1] + "," if line.endswith(".") else line
    n = len(frames)
    start = spread(d.turn, d.seed, f"says/{person.id}", n)
    for i in range(n):
        frame = frames[(start + i) % n]
        text = fill(frame, {**person.fields(), "line": said if frame.startswith('"') else line})
        if d.put(SPEECH, text, limit=limit):
            return True
    return False


def _line(d: Draft, person: Person) -> str | None:
    """The person's next line: rotating through all of them, skipping any said in the recent turns."""
    lines = list(person.lines)
    if not lines:
        return None
    start = spread(d.turn, d.seed, f"line/{person.id}", len(lines))
    for i in range(len(lines)):
        line = lines[(start + i) % len(lines)].strip()
        said = line.rstrip(".!?")  # as it is quoted: its last full stop may have become a comma
        if said not in d.recent_text and said not in d.text() and not d.invents(line):
            return line
    return None


def _aside(d: Draft, person: Person, scene: Scene) -> str | None:
    """Something ``person`` says about the player to somebody else, with the player's pronouns."""
    said = pronouns.parse(scene.state.player.profile.pronouns).fields()
    day = "morning" if scene.period == "morning" else "day"
    return d.choose(f"aside/{person.id}", ph.ASIDES, day=day, player=scene.state.player.name, **said,
                    **person.fields())


def _overheard(d: Draft, person: Person) -> str | None:
    line = _line(d, person)
    return d.choose(f"overheard/{person.id}", ph.OVERHEARD, line=line, **person.fields()) if line else None
