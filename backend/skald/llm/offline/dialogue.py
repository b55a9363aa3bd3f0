"""A scene's lines woven into prose: each line's words verbatim inside quotes, with who says it, to whom and how.
Used by the offline narrator, and by the validator to add a line the model's prose left out."""

from __future__ import annotations

from skald.core import events as ev
from skald.core.persistent import SceneLine
from skald.llm.offline.draft import SPEECH, Draft, spread

# Skald's own frames. {name} speaker, {to} whom (a name, or "you"), {tone} how (``how``), {words} the line verbatim.
# The words always come after who says them: a frame that opens on the words leaves "Hesper says to Rhea in an even
# voice." as a sentence of its own, which reads as a line with no words once sentences are told apart.
TO_YOU = ('{name} says to you {tone}: "{words}"', '{name} tells you {tone}: "{words}"',
          '{name} turns to you {tone}: "{words}"')
TO_OTHER = ('{name} answers {to} {tone}: "{words}"', '{name} rounds on {to} {tone}: "{words}"',
            '{name} says to {to} {tone}: "{words}"', '{name} turns to {to} {tone}: "{words}"')
TO_ROOM = ('{name} says to the room {tone}: "{words}"', '{name} says {tone}, to nobody in particular: "{words}"',
           '{name} speaks up {tone}: "{words}"')
# how a scene that ends this turn is told, by why it ended ({names}: its characters' first names)
ENDS = {
    "goal": ("That settles it, for now: {names} let the matter rest.",
             "The quarrel goes out of the room; {names} have what they came for, or near enough."),
    "max_beats": ("The talk runs its course, and {names} go back to their own business.",
                  "Nobody has anything left to add; {names} drift back to what they were doing."),
}
CUT_IN = ('{name} interrupts {tone}: "{words}"', '{name} talks over {to} {tone}: "{words}"')


def how(tone: str | None) -> str:
    """A line's tone as it reads after the verb: "dryly" stays, "dry" is "in a dry voice"."""
    tone = " ".join((tone or "").split()).rstrip(".")
    if not tone:
        return "plainly"
    if tone.split()[-1].endswith("ly") or tone.startswith(("in ", "with ")):
        return tone
    return f"in {'an' if tone[0].lower() in 'aeiou' else 'a'} {tone} voice"


def woven(line: SceneLine, names: dict[str, str], pick: int = 0, named: set[str] | None = None) -> str:
    """``line`` as one or two sentences of prose (``names``: id -> name; ``pick`` chooses the frame; ``named``: ids
    already named in full in the prose, who go by their first name, updated with the speaker and whom they talk to)."""
    if line.action == "event":
        text = line.content.strip()
        return text if text.endswith((".", "!", "?")) else text + "."
    named = set() if named is None else named

    def called(cid: str, name: str) -> str:
        short = name.split()[0] if cid in named else name
        named.add(cid)
        return short

    who = called(line.speaker, line.name)
    gesture = f"{who} {line.nonverbal.rstrip('.')}." if line.nonverbal else ""
    if gesture:
        who = line.name.split()[0]
    if line.action == "react" or not line.content:
        return gesture or f"{who} reacts without a word."
    tone = how(line.tone)
    to = "you" if line.target == "player" else (
        called(line.target, names[line.target]) if line.target in names else "")
    if line.action == "interrupt":
        frames = CUT_IN if to and to != "you" else CUT_IN[:1]
    elif line.target == "player":
        frames = TO_YOU
    elif to:
        frames = TO_OTHER
    else:
        frames = TO_ROOM
    said = frames[pick % len(frames)].format(name=who, to=to, tone=tone, words=line.content)
    return f"{gesture} {said}" if gesture else said


def spoken_lines(lines: list[SceneLine]) -> list[SceneLine]:
    """The lines the prose must carry: everything but the player's own."""
    return [x for x in lines if x.action != "player"]


def ending(state, names: dict[str, str], pick: int = 0) -> str | None:
    """One sentence telling that the scene ends this turn (its goal met, or its beats spent); None otherwise."""
    closed = next((e for e in state.staged_events if isinstance(e, ev.SceneClosed)), None)
    opened = state.scenes.scene or state.after.scenes.scene
    if closed is None or closed.reason not in ENDS:
        return None
    cast = opened.characters if opened is not None and opened.id == closed.scene else []
    firsts = [names.get(c, c).split()[0] for c in cast] or ["everyone"]
    listed = " and ".join([", ".join(firsts[:-1]), firsts[-1]]) if len(firsts) > 1 else firsts[0]
    frames = ENDS[closed.reason]
    return frames[pick % len(frames)].format(names=listed)


def dialogue(d: Draft, lines: list[SceneLine], names: dict[str, str]) -> None:
    """Every line of this turn's scene, in order, in the speech slot (they must be told), and its end if it ends."""
    named: set[str] = set()
    for i, line in enumerate(spoken_lines(lines)):
        d.put(SPEECH, woven(line, names, spread(d.turn + i, d.seed, f"dialogue/{line.speaker}", 4), named),
              must=True)
    d.put(SPEECH, ending(d.state, names, spread(d.turn, d.seed, "scene-end", 2)), must=True)
