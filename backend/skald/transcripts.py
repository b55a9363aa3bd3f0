"""Scene transcripts: what ``skald transcript`` prints and ``GET /campaigns/{id}/scenes/{scene}/transcript`` returns.

One :class:`SceneTranscript` per scene opened in a campaign (a scene opened twice, after the player walked out, is two
transcripts): its header (scene, place, characters, goal), its lines by beat (``turn_dialogue``), and its end (beats,
characters, goal achieved, duration in game minutes and turns, completion tokens). :func:`markdown` renders the
Scene Moderator design's transcript format:

    # SCENE: scrip_dispute
    Location: The Scrip Market · Characters: Oda Brannock, Juno Farrow
    Goal: ...

    ## Beat 1 (turn 5)
    - **Wren** (to everyone): "What is the fuss about?"
    - **Oda Brannock** (to Juno Farrow, sharp) *jabs a finger*: "..."
    - [EVENT: A whistle shrieks down the rift.]

    SCENE END · beats 6 · characters 2 · goal achieved: yes · duration 48 min over 3 turns · tokens 512
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TranscriptLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn: int
    beat: int
    speaker: str = Field(description="how the speaker is named (the player's name, a character's, or EVENT)")
    speaker_id: str = Field(description="an NPC or companion id, 'player' or 'event'")
    target: str | None = Field(None, description="whom the line is said to, by name ('everyone' for the room)")
    action: str = Field(description="speak | interrupt | react | player | event")
    tone: str | None = None
    content: str = Field(description="the words, without quotes (an event's text)")
    nonverbal: str | None = None


class SceneEnd(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn: int = Field(description="the turn it ended on")
    reason: str = Field(description="goal | max_beats | left | fight | defeated")
    goal_achieved: bool
    beats: int
    tokens: int = Field(description="completion tokens the character and moderator roles spent on it")
    minutes: int = Field(description="game minutes it lasted")


class SceneTranscript(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scene: str = Field(description="the scenes.yaml id, or talk:<location>:<turn> for a scene the talk opened")
    location: str = Field(description="the place's name")
    goal: str
    characters: list[str] = Field(description="the characters' names")
    opened_turn: int
    reason: str = Field(description="why it opened: pack, group or confrontation")
    lines: list[TranscriptLine] = Field(default_factory=list)
    end: SceneEnd | None = Field(None, description="null while the scene still runs")


def _line(x: TranscriptLine) -> str:
    if x.action == "event":
        return f"- [EVENT: {x.content}]"
    how = ", ".join(p for p in (f"to {x.target}" if x.target else "", x.tone or "") if p)
    head = f"- **{x.speaker}**" + (f" ({how})" if how else "") + (f" *{x.nonverbal}*" if x.nonverbal else "")
    if x.action == "react" or not x.content:
        return head + " (no words)"
    cut = " (interrupting)" if x.action == "interrupt" else ""
    return f'{head}{cut}: "{x.content}"'


def markdown(scenes: list[SceneTranscript]) -> str:
    """The transcripts in the design's format (see the module docstring), one after another."""
    out: list[str] = []
    for t in scenes:
        out += [f"# SCENE: {t.scene}", f"Location: {t.location} · Characters: {', '.join(t.characters)}",
                f"Goal: {t.goal}"]
        beat = None
        for x in t.lines:
            if (x.turn, x.beat) != beat:
                beat = (x.turn, x.beat)
                out += ["", f"## Beat {x.beat} (turn {x.turn})"]
            out.append(_line(x))
        if t.end is None:
            out += ["", "(the scene is still running)"]
        else:
            e = t.end
            turns = e.turn - t.opened_turn + 1
            out += ["", f"SCENE END · beats {e.beats} · characters {len(t.characters)} · goal achieved: "
                    f"{'yes' if e.goal_achieved else 'no'} ({e.reason}) · duration {e.minutes} min over {turns} "
                    f"turn{'s' if turns != 1 else ''} · tokens {e.tokens}"]
        out.append("")
    return "\n".join(out).rstrip() + "\n" if out else "No scenes yet.\n"
