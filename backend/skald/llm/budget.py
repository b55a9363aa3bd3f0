"""Prompt token budgets per LLM role.

A prompt is a static system part plus per-turn sections. For prefix-cache reuse the static content (role
instructions, the era pack's style guide) always comes first and the per-turn content last: ``fit`` returns the
system text unchanged and renders every per-turn section into the separate user message, so nothing per-turn is
ever placed before static content.

Units
    Every number here is a count of *tokens* of the model's prompt, except ``len(text)``, which is characters.
    ``budget = max_context - reserved_output``: the context window minus the tokens kept free for the reply.

Trimming (``fit``)
    The prompt is held to the smaller of the context budget and the role's ``target`` (its ``prompt_tokens``
    setting: what the role needs, kept small so that a local model prefills it fast). The system text and every
    SCENE and TURN section are always kept. If they alone exceed the context budget they are kept anyway and the
    warning ``"<role>: prompt exceeds its budget (N of M tokens) even after trimming"`` is returned. Otherwise
    per-turn sections are dropped, one at a time, in this documented order until the total fits:

    1. HISTORY, oldest first (lowest ``rank``, which is the turn number; on equal ranks the one given first), all but
       the newest;
    2. LORE, least relevant first (lowest ``rank``; on equal ranks the one given last);
    3. the newest HISTORY section (the last turn is what a narrator most needs: to go on from it, and not repeat it).

    SCENE and TURN are never dropped. Trimming to the ``target`` is routine and says nothing; when the context
    budget itself forced a drop one warning is returned:
    ``"<role>: trimmed the prompt to fit N tokens: dropped H history and L lore section(s)"`` (N is the budget).

Rendering
    Kept sections are rendered in the order the prompt gives them: each builder (``llm.prompts``) lays its prompt
    out static first, so that a turn's prompt shares the longest prefix with the one before it (Ollama reuses the
    cached prefix and evaluates only the rest): what holds for the campaign and the scene, then lore, then the turns
    so far, then this turn's facts last, where they sit closest to the reply. A section with a title is rendered as
    ``title + "\\n" + text``. Sections are separated by a blank line. ``Fitted.head`` is the user message's start that
    the prompt's first ``Prompt.head`` sections rendered (the kept ones), for another role's prompt to start with.

Accounting
    Each section is charged ``count(rendered section + "\\n\\n")``, i.e. including a separator, and the system
    text ``count(system)``. Because ``ceil(a) + ceil(b) >= ceil(a + b)``, the reported ``total_tokens`` (the sum
    of the parts, so ``total == system + scene + history + lore`` exactly) is never less than
    ``count(system) + count(user)``: the per-section accounting errs on the safe side by at most a token or two
    per section. The chat template's own tokens (role headers and the like) are not counted; calibration absorbs
    them, see below.

Counting tokens (``TokenCounter``)
    No real tokenizer is available offline here: tiktoken and Hugging Face tokenizers download their vocabularies
    at run time, which this project must not do. The default counter is therefore an *approximation*: about four
    characters per token, a common rule of thumb for English text with BPE tokenizers (which includes the
    Llama-family models served by Ollama). It is not exact, and it is worse for non-English text, code, numbers
    and unusual punctuation, which all take more tokens per character. The estimate is

        count(text) = ceil(len(text) * factor / 4)

    where ``factor`` is a calibration factor that starts at 1.0. After each model call, pass the counter's own
    estimate for the prompt that was sent and the prompt token count the model reported (Ollama returns it as
    ``prompt_eval_count``) to ``observe(estimated, actual)``. The factor then moves toward the value that would
    have made the estimate exact, ``factor * actual / estimated`` (which is ``actual / estimated`` while the factor
    is still 1.0), by an exponential moving average with alpha 0.3, and is clamped to [0.5, 3.0]. Non-positive
    values are ignored (Ollama may omit ``prompt_eval_count``; treat that as 0). The factor lets the budget converge
    on the model's real tokenizer, including its chat-template overhead, during play.

``fit`` is deterministic and pure: it does not change the prompt or the counter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

SEPARATOR = "\n\n"


class SectionKind(StrEnum):
    """Kinds of per-turn section."""

    SCENE = "scene"
    HISTORY = "history"
    LORE = "lore"
    TURN = "turn"  # what only this turn has (time, the input, the outcome): never dropped, rendered last


@dataclass(frozen=True)
class Section:
    """One per-turn section of the user message.

    ``rank``: for HISTORY the turn number (higher = newer); for LORE the relevance (higher = more relevant, kept
    longer); ignored for SCENE and TURN. ``title``: an optional heading rendered on the line before the text.
    """

    kind: SectionKind
    text: str
    rank: int = 0
    title: str = ""

    def render(self) -> str:
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class Prompt:
    """A static system part (never trimmed) and the per-turn sections. ``head``: how many of the first sections another
    role's prompt may start with, byte for byte (the narrator's scene, up to its recent turns, which the Director's
    brief of the same scene starts with: ``llm.prompts.director_prompt``); ``Fitted.head`` renders them as sent."""

    system: str
    sections: tuple[Section, ...]
    head: int = 0


class TokenCounter:
    """Estimates token counts as ``ceil(len(text) * factor / 4)``, with ``factor`` calibrated by ``observe``.

    An approximation (four characters per token is a rule of thumb for English text with BPE tokenizers); see the
    module docstring.
    """

    CHARS_PER_TOKEN = 4
    ALPHA = 0.3
    MIN_FACTOR = 0.5
    MAX_FACTOR = 3.0

    def __init__(self, factor: float = 1.0) -> None:
        if not math.isfinite(factor) or factor <= 0:
            raise ValueError(f"the calibration factor must be a positive number, not {factor!r}")
        self.factor = _clamp(float(factor), self.MIN_FACTOR, self.MAX_FACTOR)

    @property
    def name(self) -> str:
        return f"estimate: 1 token per {self.CHARS_PER_TOKEN} characters x {self.factor:.2f}"

    def count(self, text: str) -> int:
        """Estimated tokens in ``text`` (0 for the empty string)."""
        if not text:
            return 0
        # Round away float noise first, so e.g. 40 characters x 1.1 gives 11 tokens, not 12.
        return math.ceil(round(len(text) * self.factor / self.CHARS_PER_TOKEN, 9))

    def observe(self, estimated: int, actual: int) -> None:
        """Calibrate from the model's reported prompt tokens.

        ``estimated``: what this counter counted for the prompt that was sent (e.g. ``ContextStats.total_tokens``);
        ``actual``: the model's own count (Ollama's ``prompt_eval_count``). Ignored unless both are positive.
        """
        if estimated <= 0 or actual <= 0:
            return
        target = _clamp(self.factor * actual / estimated, self.MIN_FACTOR, self.MAX_FACTOR)
        blended = (1 - self.ALPHA) * self.factor + self.ALPHA * target
        self.factor = _clamp(blended, self.MIN_FACTOR, self.MAX_FACTOR)


class ContextStats(BaseModel):
    """How a role's prompt was fitted into its context window; JSON-serialisable for ``--debug`` and the API."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    max_context: int
    reserved_output: int
    budget: int
    system_tokens: int
    scene_tokens: int
    history_tokens: int
    lore_tokens: int
    total_tokens: int
    history_kept: int
    history_dropped: int
    lore_kept: int
    lore_dropped: int
    counter: str


class Fitted(NamedTuple):
    system: str
    user: str
    stats: ContextStats
    warnings: list[str]
    head: str = ""  # the user message's start that the prompt's first ``Prompt.head`` sections rendered, as sent


def fit(
    prompt: Prompt,
    role: str,
    max_context: int,
    reserved_output: int,
    counter: TokenCounter | None = None,
    target: int | None = None,
) -> Fitted:
    """Fit ``prompt`` into ``max_context - reserved_output`` tokens, and into ``target`` tokens when that is smaller;
    see the module docstring for the rules."""
    if max_context <= 0:
        raise ValueError(f"{role}: max_context must be positive, not {max_context}")
    if reserved_output < 0 or reserved_output >= max_context:
        raise ValueError(f"{role}: reserved_output must be in [0, {max_context}), not {reserved_output}")
    counter = counter or TokenCounter()
    budget = max_context - reserved_output

    indexed = list(enumerate(prompt.sections))
    scene = [(i, s) for i, s in indexed if s.kind == SectionKind.SCENE]
    turn = [(i, s) for i, s in indexed if s.kind == SectionKind.TURN]
    # Everything is rendered in the order given; lore is dropped by rank, least relevant first.
    lore = sorted(((i, s) for i, s in indexed if s.kind == SectionKind.LORE), key=lambda p: (-p[1].rank, p[0]))
    history = sorted(((i, s) for i, s in indexed if s.kind == SectionKind.HISTORY), key=lambda p: (p[1].rank, p[0]))

    cost = {i: counter.count(s.render() + SEPARATOR) for i, s in indexed}
    system_tokens = counter.count(prompt.system)
    fixed = system_tokens + sum(cost[i] for i, _ in scene) + sum(cost[i] for i, _ in turn)
    total = fixed + sum(cost[i] for i, _ in lore) + sum(cost[i] for i, _ in history)

    whole = total
    limit = min(budget, target) if target else budget
    dropped: set[int] = set()
    drop_order = [i for i, _ in history[:-1]] + [i for i, _ in reversed(lore)] + [i for i, _ in history[-1:]]
    for i in drop_order:
        if total <= limit:
            break
        dropped.add(i)
        total -= cost[i]

    kept_lore = [(i, s) for i, s in lore if i not in dropped]
    kept_history = [(i, s) for i, s in history if i not in dropped]
    user = SEPARATOR.join(s.render() for i, s in indexed if i not in dropped)
    head = SEPARATOR.join(s.render() for i, s in indexed if i < prompt.head and i not in dropped)

    history_dropped = len(history) - len(kept_history)
    lore_dropped = len(lore) - len(kept_lore)
    stats = ContextStats(
        role=role,
        max_context=max_context,
        reserved_output=reserved_output,
        budget=budget,
        system_tokens=system_tokens,
        scene_tokens=sum(cost[i] for i, _ in scene) + sum(cost[i] for i, _ in turn),
        history_tokens=sum(cost[i] for i, _ in kept_history),
        lore_tokens=sum(cost[i] for i, _ in kept_lore),
        total_tokens=total,
        history_kept=len(kept_history),
        history_dropped=history_dropped,
        lore_kept=len(kept_lore),
        lore_dropped=lore_dropped,
        counter=counter.name,
    )

    warnings: list[str] = []
    if dropped and whole > budget:
        warnings.append(
            f"{role}: trimmed the prompt to fit {budget} tokens: "
            f"dropped {history_dropped} history and {lore_dropped} lore section(s)"
        )
    if total > budget:
        warnings.append(f"{role}: prompt exceeds its budget ({total} of {budget} tokens) even after trimming")
    return Fitted(system=prompt.system, user=user, stats=stats, warnings=warnings, head=head)


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))
