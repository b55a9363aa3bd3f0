"""How NPCs feel about the player: an attitude -10..10 and a mood (``persistent.Feeling``), moved by what the player
does to them in any turn and by how they speak in scenes. The attitude moves the rules' disposition by a step at
:data:`WARMER_AT` / :data:`COLDER_AT` (``rules.attitude``) and a social check by ``attitude // 3``
(``rules.checks``). Numbers are Skald's own."""

from __future__ import annotations

from skald.core import events as ev
from skald.core.persistent import MOODS, PersistentState, SceneLine
from skald.core.state import GameState
from skald.core.vocab import ActionClass

WARMER_AT, COLDER_AT = 4, -4

# (action class, succeeded) -> (attitude change, mood) for the NPC the action was aimed at
ACTS: dict[tuple[ActionClass, bool], tuple[int, str]] = {
    (ActionClass.PERSUADE, True): (1, "pleased"), (ActionClass.PERSUADE, False): (0, "annoyed"),
    (ActionClass.DECEIVE, True): (0, "curious"), (ActionClass.DECEIVE, False): (-2, "insulted"),
    (ActionClass.INTIMIDATE, True): (-1, "afraid"), (ActionClass.INTIMIDATE, False): (-2, "angry"),
    (ActionClass.ATTACK, True): (-4, "angry"), (ActionClass.ATTACK, False): (-3, "angry"),
    (ActionClass.GIVE, True): (1, "pleased"), (ActionClass.RECRUIT, False): (0, "wary"),
}
# words of a line's TONE -> the mood it shows
TONE_MOODS = {
    "angry": ("angry", "furious", "sharp", "hostile", "heated", "snapping", "snarling", "fierce"),
    "annoyed": ("annoyed", "cold", "curt", "irritated", "contemptuous", "sneering", "scornful", "dismissive"),
    "pleased": ("warm", "kind", "friendly", "glad", "pleased", "gentle", "fond", "grateful"),
    "amused": ("amused", "wry", "dry", "teasing", "joking", "sly", "mocking", "playful"),
    "afraid": ("afraid", "nervous", "scared", "anxious", "frightened", "startled", "shaken"),
    "curious": ("curious", "intrigued", "interested", "probing", "questioning"),
    "wary": ("wary", "guarded", "suspicious", "careful", "cautious", "flat", "even"),
    "sad": ("sad", "weary", "tired", "grieving", "quiet", "resigned"),
}
assert set(TONE_MOODS) <= set(MOODS)


def after_action(state: GameState) -> list[ev.AttitudeChange]:
    """How the NPC the player's action was aimed at takes it (companions have affinity instead)."""
    router, result = state.router_output, state.mechanic_result
    if router is None or result is None or result.impossible or router.target_npc is None:
        return []
    person = next((p for p in state.present_npcs if p.id == router.target_npc and not p.companion), None)
    if person is None:
        return []
    change = ACTS.get((router.action_class, result.outcome.succeeded))
    if change is None:
        return []
    delta, mood = change
    how = "worked" if result.outcome.succeeded else "failed"
    return [ev.AttitudeChange(npc=person.id, delta=delta, mood=mood,
                              reason=f"{router.action_class.value.lower()} {how}")]


def mood_of(tone: str | None) -> str | None:
    """The mood a line's tone shows, or None when the tone says nothing Skald reads."""
    words = set((tone or "").lower().replace(",", " ").split())
    return next((mood for mood, marks in TONE_MOODS.items() if words & set(marks)), None)


def from_lines(lines: list[SceneLine], state: PersistentState) -> list[ev.AttitudeChange]:
    """Moods shown by the characters' lines this beat (the last line of each speaker counts)."""
    last: dict[str, str] = {}
    for line in lines:
        mood = mood_of(line.tone)
        if mood and line.speaker not in ("player", "event"):
            last[line.speaker] = mood
    feelings = state.scenes.feelings
    return [ev.AttitudeChange(npc=npc, mood=mood, reason="scene")
            for npc, mood in last.items() if (feelings.get(npc).mood if npc in feelings else "calm") != mood]


def attitude_of(state: PersistentState, npc: str) -> int:
    feeling = state.scenes.feelings.get(npc)
    return feeling.attitude if feeling else 0
