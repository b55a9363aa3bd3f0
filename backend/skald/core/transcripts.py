"""Scene transcripts: what ``skald transcript`` prints and ``GET /campaigns/{id}/scenes/{scene}/transcript`` returns.

One :class:`SceneTranscript` per scene opened in a campaign (a scene opened twice, after the player walked out, is two
transcripts): its header (scene, place, characters, goal), its lines by beat (``turn_dialogue``), and its end (beats,
characters, goal achieved, duration in game minutes and turns, completion tokens, processing time). :func:`markdown`
renders the Scene Moderator design's transcript format (``../shared/seeds``: header, ``[SCENE START]``, the setting,
one line per utterance with its bracketed ``TO``/``TONE``/gesture, ``[EVENT: ...]``, ``[SCENE END - Goal: ...]`` and
the statistics), with Skald's additions: the beat and turn a line belongs to, the player's deeds shown as deeds (not
quoted as speech), and a ``[SYSTEM: ...]`` line for a character who could not answer:

    SCENE: scrip_dispute
    CHARACTERS: Oda Brannock, Juno Farrow
    GOAL: ...
    LOCATION: The Scrip Market

    ---

    [SCENE START]
    [Setting: The Scrip Market, morning]

    [Beat 1, turn 5]
    Wren [TO: everyone] "What is the fuss about?"
    Oda Brannock [TO: Juno Farrow, TONE: sharp, *jabs a finger*] "..."
    Wren [TO: Oda Brannock, *threaten Oda*]
    [EVENT: A whistle shrieks down the rift.]
    [SYSTEM: Juno Farrow could not answer]

    [SCENE END - Goal: Achieved]

    ---

    STATISTICS:
    - Duration: 6 beats, 48 game minutes over 3 turns
    - Characters: 2
    - Processing time: 3.2s
    - Total tokens: 512
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
    opened_minutes: int | None = Field(None, description="world time it opened at (game minutes)")
    lines: list[TranscriptLine] = Field(default_factory=list)
    end: SceneEnd | None = Field(None, description="null while the scene still runs")
    processing_ms: int = Field(0, description="milliseconds its character and moderator calls took, as measured "
                               "when played (0 offline)")
