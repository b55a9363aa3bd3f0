"""The game state that flows through the turn graph.

``GameState`` = the committed :class:`~skald.core.persistent.PersistentState` (campaign, player sheet, party, world,
known NPCs, arc, quests; what the turn starts from) + :class:`TurnFields` (scratch for one turn: intent, mechanic
result, present NPCs, staged events, director instructions, prose, suggestions, warnings...) + ``after``, the persistent
state as it will be after this turn's staged events (folded once per batch by ``events.stage``). The records a turn
makes (router output, mechanic result, LLM calls, scene tasks...) are ``skald.core.records``.

The graph's input schema is :class:`TurnInput` (the committed state, the player's input and ``after``), so every
per-turn field starts at its default on every turn: nothing from turn N leaks into turn N+1.

Units: times are minutes of game time; money is credits; HP and stress are points.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from pydantic import Field

from skald.core.events import Event
from skald.core.persistent import RECENT_TURNS, TOLD_TURNS, Model, PersistentState, SceneLine, Suggestion, TurnSummary
from skald.core.records import (
    CharacterReply,
    CharacterTask,
    EpisodeProgress,
    LLMCall,
    MechanicResult,
    Move,
    PresentNpc,
    PromptHead,
    RouterOutput,
    SceneInstructions,
    TimelineCommand,
    turn_key,
)
from skald.core.views import TimelineView, TurnView
from skald.core.vocab import Intent
from skald.text import sentences, told_keys


class TurnFields(Model):
    router_output: RouterOutput | None = None
    intent: Intent | None = None
    quit_requested: bool = False
    mechanic_result: MechanicResult | None = None
    present_npcs: list[PresentNpc] = Field(default_factory=list)
    staged_events: Annotated[list[Event], operator.add] = Field(default_factory=list)
    episode_progress: EpisodeProgress | None = None
    director_instructions: SceneInstructions | None = None
    scene_tasks: list[CharacterTask] = Field(default_factory=list, description="the beat the scene node sends out")
    scene_replies: Annotated[list[CharacterReply], operator.add] = Field(default_factory=list)
    scene_lines: list[SceneLine] = Field(default_factory=list, description="this turn's scene lines, all beats, in "
                                         "order (the narrator weaves them in verbatim)")
    scene_beats: int = Field(0, description="scene beats played this turn")
    suggested_actions: list[Suggestion] = Field(default_factory=list)
    final_text: str = ""
    narrated_actions: list[str] | None = Field(None, description="the four suggestions' labels as the narrator "
                                               "reworded them after its prose (llm.tail), for the Refiner to check")
    narrator_head: PromptHead | None = Field(None, description="the start of the narrator's prompt as sent this turn, "
                                             "for the Director's brief of the scene (llm.briefs.prefetch)")
    warnings: Annotated[list[str], operator.add] = Field(default_factory=list)
    llm_calls: Annotated[list[LLMCall], operator.add] = Field(default_factory=list)
    lore_citations: Annotated[list[str], operator.add] = Field(
        default_factory=list, description="ids of the lore chunks the prompts used this turn")
    context_stats: Annotated[list[dict[str, Any]], operator.add] = Field(
        default_factory=list, description="llm.budget.ContextStats per role called this turn (for --debug)")
    timeline_move: Move | None = Field(None, description="what a timeline command changes (Commit carries it out)")
    timeline_view: TimelineView | None = Field(None, description="what a timeline command did, for its view")
    view: TurnView | None = Field(None, description="what the player sees of this turn, built by Commit")


class TurnInput(PersistentState):
    """What one turn starts from: the graph's input schema."""

    player_input: str = ""
    command: TimelineCommand | None = Field(None, description="a timeline command sent typed (``Engine.undo``...): "
                                            "played as such, whatever player_input says (which spells it)")
    branch: str = Field("main", description="the branch of the campaign's turn tree this turn is played on")
    variant: int = Field(0, description="the turn's dice variant: 0 for the first turn played from its parent, then "
                         "1, 2... for retries (``rules.dice.turn_key``)")
    after: PersistentState | None = Field(
        None, description="the persistent state as it will be after this turn: starts as the committed state with "
                          "campaign.turn_number + 1, and every staged batch of events is folded into it once")


class GameState(TurnInput, TurnFields):
    """Everything one turn needs. See the module docstring for which fields persist."""

    @classmethod
    def starting(cls, committed: PersistentState, player_input: str = "") -> GameState:
        """A fresh turn on ``committed``: every per-turn field at its default, ``after`` = the committed state with
        the number of the turn to play. (The graph takes it as input; rules tests start turns with it too.)"""
        base = committed.persistent()
        after = base.model_copy(update={"campaign": base.campaign.model_copy(
            update={"turn_number": base.campaign.turn_number + 1})})
        return cls(**dict(base), player_input=player_input, after=after)  # validated: fast for model instances

    @property
    def before(self) -> PersistentState:
        """The state as committed before this turn: where the turn starts from (``after`` is where it is now). The
        same object, read through its persistent fields: nodes read the turn's start from here and "now" from
        ``after``, never from the bare fields, so one cannot be taken for the other (``tests/test_core_boundary.py``
        checks every node)."""
        return self

    @property
    def turn(self) -> int:
        """The number of the turn being played (the committed turn number + 1)."""
        return self.campaign.turn_number + 1

    @property
    def turn_key(self) -> int | tuple[int, int]:
        """What keys this turn's randomness with the campaign seed (``rules.dice.turn_key``)."""
        return turn_key(self.turn, self.variant)

    def closing(self) -> PersistentState:
        """The persistent state this turn commits: ``after`` with the story-turn count advanced, this turn added to
        ``recent`` and its suggestions as the ``offer``; exactly what reading the campaign back from the store gives.
        (Most META commands commit nothing; the episode commands ``/end`` and ``/next`` commit their events without
        counting a story turn.)"""
        after = self.after
        summary = TurnSummary(
            turn=after.campaign.turn_number, input=self.player_input,
            action_class=self.router_output.action_class.value if self.router_output else "",
            outcome=self.mechanic_result.outcome.value if self.mechanic_result else "",
            location=after.location, sentences=sentences(self.final_text))
        if self.intent == Intent.META:  # /end, /next: committed for their events, not a story turn
            return after.model_copy(update={"offer": list(self.suggested_actions)})
        campaign = after.campaign.model_copy(update={"story_turns": after.campaign.story_turns + 1})
        told = [*after.told, [k for s in summary.sentences for k in told_keys(s)]][-TOLD_TURNS:]
        return after.model_copy(update={"campaign": campaign, "recent": [*after.recent, summary][-RECENT_TURNS:],
                                        "told": told, "offer": list(self.suggested_actions)})

    def played(self) -> dict[str, Any]:
        """What the player saw this turn: intent, action class, prose and the four suggestions (JSON-ready)."""
        return {
            "intent": self.intent.value if self.intent else None,
            "action_class": self.router_output.action_class.value if self.router_output else None,
            "text": self.final_text,
            "suggestions": [{"label": s.label, "tone": s.tone.value, "risk": s.risk.value}
                            for s in self.suggested_actions],
        }


# Which fields of GameState live for one turn and which persist (kept outside the model: LangGraph would
# treat class attributes as state channels).
PER_TURN_FIELDS: frozenset[str] = frozenset(TurnFields.model_fields) | {
    "player_input", "command", "branch", "variant", "after"}
