"""The offline ``character`` role: a scene character's reply for one beat, in the tag-line format
(``rules.tag_line``), from the pack alone. Deterministic for (campaign seed, turn, beat, character).

Whom they answer, among the lines since the player last spoke (that one included): whoever last spoke to them by
name; failing that, the last other voice (a character's, to anyone, or the player's), so two characters answer each
other across beats. What they say: one of the scene's own lines for them (``scenes.yaml`` ``lines``) while any is
left, else one of their own lines (pack ``lines``, a companion's ``banter``, their voice document's samples); never
one said in the recent transcript or the recent turns' narration; addressed by name when it answers another
character (a line that already opens on someone's name is said to them, as written). Their tone follows how they
feel about whom they answer. Like people, they speak to the topic: a line of theirs is used when it is one of the
scene's own lines or shares a content word with what was just said; with nothing on the topic they answer short
("Couldn't say.") when they were asked, and keep out of it otherwise, so a beat can stall and the scene's world events
come, offline too. With nothing left to say they react or keep silent (or, nudged by the moderator, say a line again);
right after a world event some react to it. They never interrupt (an interruption needs the other
line of the same beat, which an agent running in parallel does not see).
"""

from __future__ import annotations

import re

from skald.core.records import CharacterTask
from skald.rules import dice
from skald.rules.moderator import PASSIVE
from skald.rules.pronouns import parse as parse_pronouns
from skald.rules.tag_line import Reply, render

# Skald's own frames for a line said to another character by name
TO_SOMEONE = ("{first}. {line}", "Listen, {first}. {line}", "{line} You know that, {first}.", "{first}, {line_lc}",
              "{line}")
GESTURES = {
    "sharp": ("jabs a finger at the table", "sets a cup down hard", "leans in"),
    "cold": ("does not look up", "crosses both arms", "lets the silence sit a beat too long"),
    "guarded": ("glances at the door", "looks at the others first", "keeps close to the wall"),
    "even": ("shrugs", "spreads both hands", "nods slowly"),
    "warm": ("smiles", "makes room at the table", "nods in greeting"),
    "dry": ("raises an eyebrow", "half-smiles", "drums on the table"),
    "wry": ("snorts", "shakes {poss} head, smiling", "raises a cup an inch"),
    "nervous": ("wipes both palms dry", "looks to the door", "keeps very still"),
}
EVENT_REACTIONS = ("turns toward the noise", "goes still and listens", "looks to the door", "stops mid-gesture")
SILENCES = ("looks from one face to the next", "waits", "stays out of it")
SHORT_REPLIES = ("Couldn't say.", "Not my business.", "Ask someone who knows.", "Hm.", "No idea.",
                 "Wouldn't know.")  # asked about what they have nothing on
# Words too common to make two lines about the same thing.
_STOP = frozenset("""the a an and or but of to in on at by for with from is are was were be been it its this that
these those there here you your i me my we our they them their he him his she her what who why how when where which
not no do does did have has had will would can could should just so all any some one as if then than about into out
up down over again more very too also get got go going know think say said tell like well yes now make made take want
need look come give find keep mean thing things something anything everything everyone anyone people here there
what's whats""".split())


def _words(text: str) -> frozenset[str]:
    """The content words of ``text`` (lower case, four letters or more, stop words out; a plural's -s dropped)."""
    return frozenset(w[:-1] if len(w) > 4 and w.endswith("s") else w for w in re.findall(r"[a-z']+", text.lower())
                     if len(w) >= 4 and w not in _STOP)


def _tone_for_player(task: CharacterTask) -> str:
    sheet = task.sheet
    by_mood = {"angry": "sharp", "annoyed": "cold", "afraid": "nervous", "amused": "dry", "pleased": "warm",
               "wary": "guarded", "insulted": "cold"}
    if sheet.mood in by_mood:
        return by_mood[sheet.mood]
    if sheet.attitude >= 4:
        return "warm"
    if sheet.attitude <= -4:
        return "cold"
    return {"hostile": "cold", "wary": "guarded", "friendly": "warm"}.get(sheet.disposition, "even")


def line(task: CharacterTask) -> str:
    """The character's reply for this beat, as a tag line."""
    sheet, update = task.sheet, task.update
    rng = dice.rng_for(task.seed, f"character:{sheet.id}:{update.beat}", dice.turn_key(task.turn, task.variant))
    recent = update.transcript[-6:]
    said = {x.content for x in update.transcript}
    if update.last_event and not any(x.speaker == sheet.id for x in recent if x.beat == update.beat) and \
            rng.random() < 0.5:
        return render(Reply(action="react", tone="startled", nonverbal=rng.choice(EVENT_REACTIONS)))
    since = []  # the lines since the player last spoke, that one included
    for x in reversed(recent):
        since.append(x)
        if x.speaker == "player":
            break
    answer = next((x for x in since if x.speaker not in (sheet.id, "event")), None)
    to_me = next((x for x in since if x.speaker not in (sheet.id, "event", "player") and x.target == sheet.id), None)
    answer = to_me or answer  # whoever spoke to me since the player did; else the last other voice
    other = answer if answer is not None and answer.speaker != "player" else None
    target = other.speaker if other is not None else "player"
    told = " ".join([*said, task.heard]).lower()  # what the scene and the recent narration have said already
    options = [x for x in sheet.lines if x.strip() and x.strip().rstrip(".!?").lower() not in told]
    nudged = PASSIVE in (update.moderator_note or "")
    if not options:
        if nudged and sheet.lines:
            options = list(sheet.lines)
        else:
            return render(Reply(action="silent", nonverbal=rng.choice(SILENCES)))
    asked_me = to_me is not None or (answer is not None and answer.speaker == "player" and bool(answer.content)
                                     and answer.target in (sheet.id, "all"))  # a deed asks nobody anything
    named = _words(" ".join([task.player, sheet.name, *task.others.values()]))
    topic = _words(" ".join(x.content for x in since if x.speaker != sheet.id)) - named
    topical = [x for x in options if x in sheet.scene_lines or not topic or _words(x) & topic]  # about what was
    if not topical:  # just said (an open question is about anything): with nothing on it, people answer short when
        if asked_me or nudged:  # asked (or nudged), else keep out of it
            return render(Reply(action="speak", target=task.player if answer.speaker == "player" else
                                task.others.get(answer.speaker, answer.speaker), tone=_tone_for_player(task),
                                content=rng.choice(SHORT_REPLIES)))
        return render(Reply(action="silent", nonverbal=rng.choice(SILENCES)))
    pool = [x for x in topical if x in sheet.scene_lines] or topical  # the scene's own lines first
    chosen = pool[rng.randrange(len(pool))].strip()
    opens_on = next((cid for cid, nm in task.others.items() if re.match(rf"{re.escape(nm.split()[0])}\b", chosen)),
                    None)
    if opens_on is not None:  # a line that opens on someone's name is said to them, as it is written
        name = task.others[opens_on]
        tone = rng.choice(("sharp", "dry", "even", "cold", "wry"))
        gesture = rng.choice(GESTURES.get(tone, GESTURES["even"])) if rng.random() < 0.6 else None
        return render(Reply(action="speak", target=name, tone=tone, content=chosen, nonverbal=_own(gesture, sheet)))
    if target == "player":
        tone = _tone_for_player(task)
        content = chosen
        to = task.player
    else:
        tone = rng.choice(("sharp", "dry", "even", "cold", "wry"))
        name = task.others.get(target, target)
        first = name.split()[0]
        frame = TO_SOMEONE[rng.randrange(len(TO_SOMEONE))]
        lowered = chosen[:1].lower() + chosen[1:] if chosen.split()[0] not in ("I", "I'm", "I've", "I'd", "I'll") and (
            chosen.split()[0].lower() in _COMMON) else None
        if "{line_lc}" in frame and lowered is None:
            frame = TO_SOMEONE[0]
        content = frame.format(first=first, line=chosen, line_lc=lowered or chosen)
        to = name
    gesture = rng.choice(GESTURES.get(tone, GESTURES["even"])) if rng.random() < 0.6 else None
    return render(Reply(action="speak", target=to, tone=tone, content=content, nonverbal=_own(gesture, sheet)))


def _own(gesture: str | None, sheet) -> str | None:
    """A gesture with the character's own possessive ('shakes her head'), from their pronouns."""
    return gesture.format(poss=parse_pronouns(sheet.pronouns).possessive) if gesture else None


# sentence starters that read right in lower case after "Name, "
_COMMON = frozenset("""a an the this that these those there here it its nobody no not nothing everyone everybody
someone somebody you your we our they their he she his her if when what who why how where all some any every one
don't can't won't never always maybe just only then so but and or too now well yes""".split())
