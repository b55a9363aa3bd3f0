"""The figures of a model acceptance run (``skald doctor --play``, ``cli/doctor_play.py``) and what they say: per
role, the calls and why they fell back, the habits stripped, latency, tokens and the prompt cache's share, then a
verdict per role and overall. Pure: it reads the call records (``state.LLMCall``) and the requests the ledger saw
(``llm.prompt_cache.Sent``), and plays nothing.

Verdicts (:func:`verdict`), for a role the run called at least once:

* ``unusable``: no call gave a reply the player read, or :data:`UNUSABLE_SHARE` of the calls or more fell back;
* ``falls back often``: more than :data:`OFTEN_SHARE` of the calls fell back;
* ``works with habits``: hygiene stripped a habit from at least one reply (``LLMCall.habits``), or, for the
  narrator, the story's distinct-sentence share is under :data:`DISTINCT_FLOOR` (the model repeats itself);
* ``works``: none of that.

A fallback is a call whose reply the player never read (``LLMCall.ok`` is False: a failed, refused or skipped call),
and, for the narrator, a turn whose prose the validator replaced because it told the outcome wrongly. The overall
verdict is the worst of the roles'; the run passes (:attr:`Report.exit_code` 0) when every role it called works,
with habits or without.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from skald.core.records import LLMCall
from skald.llm.client import REJECTED
from skald.llm.prompt_cache import LOADED_S, Sent

UNUSABLE_SHARE = 0.5
OFTEN_SHARE = 0.1
DISTINCT_FLOOR = 0.9  # the fresh-script floor of the offline narrator (bench/narration.py)
VERDICTS = ("works", "works with habits", "falls back often", "unusable")
PASSING = VERDICTS[:2]
TOLD_WRONGLY = "told the outcome wrongly"
# the order roles are shown in: a turn's own calls first, the rarer ones after
ORDER = ("narrator", "suggestion_refiner", "director", "character", "interpreter", "evaluator", "beat_classifier",
         "moderator", "setup")
_HYGIENE = ("refusal", "meta", "wrong_language", "repeat", "empty")


def fallback_kind(call: LLMCall) -> str:
    """Why a call fell back, in one of a few words: ``timeout``, ``HTTP error`` (an HTTP status or a failed
    connection), ``invalid JSON`` (a structured reply still invalid after every attempt), a hygiene verdict
    (``refusal``, ``meta``, ``wrong_language``, ``repeat``, ``empty``; ``llm.hygiene``), ``circuit open``, ``turn
    budget spent`` or ``other``."""
    reason = call.fallback_reason or ""
    if call.outcome == "circuit_open":
        return "circuit open"
    if call.outcome == "budget_spent":
        return "turn budget spent"
    if REJECTED in reason:
        verdict = reason.rsplit("(", 1)[-1].rstrip(")")
        return verdict if verdict in _HYGIENE else "other"
    if "an empty reply" in reason:
        return "empty"
    if "LLMTimeout" in reason:
        return "timeout"
    if "validation issue" in reason:
        return "invalid JSON"
    if any(word in reason for word in ("ResponseError", "status code", "ConnectionError", "ConnectError", "HTTPError",
                                       "HTTPStatusError", "ReadError", "RemoteProtocolError", "WriteError")):
        return "HTTP error"
    return "other"


def percentile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0-1) of ``values`` by the nearest-rank method (a value that occurred); None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


@dataclass
class RoleFigures:
    """What one role did in the run.

    :param calls: its call records, skipped calls (circuit open, budget spent) included.
    :param sent: the requests it sent (retries and validation-feedback attempts each count), from the ledger.
    :param replaced: narrator only: turns whose prose the validator replaced (told the outcome wrongly).
    :param sentences: narrator only: (distinct, all) sentences of the story's prose.
    """

    role: str
    model: str
    enabled: bool = True
    calls: list[LLMCall] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    replaced: int = 0
    sentences: tuple[int, int] | None = None

    @property
    def fallbacks(self) -> Counter[str]:
        """Fallbacks per kind (:func:`fallback_kind`; the validator's replacements as :data:`TOLD_WRONGLY`)."""
        kinds = Counter(fallback_kind(c) for c in self.calls if not c.ok)
        if self.replaced:
            kinds[TOLD_WRONGLY] += self.replaced
        return kinds

    @property
    def examples(self) -> dict[str, str]:
        """The first fallback reason of each kind, as recorded."""
        out: dict[str, str] = {}
        for call in self.calls:
            if not call.ok:
                out.setdefault(fallback_kind(call), call.fallback_reason or call.outcome)
        return out

    @property
    def habits(self) -> Counter[str]:
        """Replies each habit was stripped from. A refused reply's verdict (recorded among its habits) is its fallback
        reason, counted with the fallbacks, not here."""
        return Counter(habit for c in self.calls for habit in dict.fromkeys(c.habits)
                       if c.ok or habit != fallback_kind(c))

    @property
    def answered(self) -> int:
        """Calls whose reply the player read."""
        return sum(c.ok for c in self.calls) - self.replaced

    @property
    def latency_ms(self) -> tuple[float | None, float | None]:
        """p50 and p95 of the latency of the calls that sent a request (skipped calls left out), in milliseconds."""
        made = [c.latency_ms for c in self.calls if c.outcome not in ("circuit_open", "budget_spent")]
        return percentile(made, 0.5), percentile(made, 0.95)

    @property
    def ttft_ms(self) -> tuple[float | None, float | None]:
        """p50 and p95 of the time to the first token shown, in milliseconds (streamed roles: the narrator)."""
        firsts = [c.ttft_ms for c in self.calls if c.ttft_ms is not None]
        return percentile(firsts, 0.5), percentile(firsts, 0.95)

    @property
    def tokens(self) -> tuple[int, int, int]:
        """(prompt, completion, cached prompt) tokens summed over the requests Ollama counted."""
        counted = [s for s in self.sent if s.prompt_tokens is not None]
        return (sum(s.prompt_tokens or 0 for s in counted), sum(s.completion_tokens or 0 for s in counted),
                sum(s.cached_tokens or 0 for s in counted))

    @property
    def loads(self) -> tuple[int, float]:
        """(requests that loaded the model, the seconds they waited for it): a final line's ``load_duration`` of at
        least ``prompt_cache.LOADED_S`` (a model swapped in for another role, or a ``num_ctx`` it was not loaded
        with)."""
        loaded = [s.load_s for s in self.sent if s.load_s is not None and s.load_s >= LOADED_S]
        return len(loaded), sum(loaded)

    @property
    def cache_source(self) -> str:
        """``reported`` (Ollama sent every cached count), ``estimated`` (none), or ``partly reported``."""
        counted = [s for s in self.sent if s.prompt_tokens is not None]
        reported = sum(s.reported for s in counted)
        return "reported" if counted and reported == len(counted) else "estimated" if not reported else \
            "partly reported"

    def verdict(self) -> tuple[str, str]:
        """(one of :data:`VERDICTS`, why in a few words); see the module docstring."""
        return verdict(self)


def verdict(figures: RoleFigures) -> tuple[str, str]:
    """The verdict on a role that was called at least once, and why (see the module docstring)."""
    calls = len(figures.calls)
    fallbacks = sum(figures.fallbacks.values())
    why = ", ".join(f"{kind} {n}" for kind, n in figures.fallbacks.most_common())
    if figures.answered <= 0 or fallbacks >= UNUSABLE_SHARE * calls:
        return "unusable", f"{fallbacks} of {calls} calls fell back: {why}"
    if fallbacks > OFTEN_SHARE * calls:
        return "falls back often", f"{fallbacks} of {calls} calls fell back: {why}"
    reasons = [f"{habit} {n} of {calls}" for habit, n in figures.habits.most_common()]
    if figures.sentences is not None and figures.sentences[1]:
        distinct, told = figures.sentences
        if distinct / told < DISTINCT_FLOOR:
            reasons.append(f"repeats itself: {distinct / told:.0%} distinct sentences")
    if reasons:
        return "works with habits", "; ".join(reasons)
    return "works", f"{calls - fallbacks} of {calls} calls answered" + (f", {fallbacks} fell back" if fallbacks else "")


def _seconds(ms: float | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.2f} s"


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


@dataclass
class Report:
    """A run's figures, rendered by :meth:`render`.

    :param header: lines saying what was played, against what.
    :param roles: every role, in :data:`ORDER` (disabled ones and ones the script never called included).
    :param notes: problems found before playing (a model not pulled), each with its fix.
    :param retrieval: distinct retrieval warnings of the run's turns (an index missing, a lane failing).
    :param turns: story turns played.
    """

    header: list[str]
    roles: list[RoleFigures]
    notes: list[str] = field(default_factory=list)
    retrieval: list[str] = field(default_factory=list)
    turns: int = 0

    @property
    def judged(self) -> list[RoleFigures]:
        """The enabled roles the run called at least once (the ones with a verdict)."""
        return [r for r in self.roles if r.enabled and r.calls]

    @property
    def overall(self) -> str:
        """The worst verdict of the judged roles (``unusable`` when none was called)."""
        judged = self.judged
        if not judged:
            return "unusable"
        return max((r.verdict()[0] for r in judged), key=VERDICTS.index)

    @property
    def exit_code(self) -> int:
        """0 when every judged role works (with habits or without), 1 otherwise."""
        return 0 if self.judged and all(r.verdict()[0] in PASSING for r in self.judged) else 1

    def render(self) -> str:
        """The report as plain text: the header, one block per judged role, the verdicts, the overall verdict."""
        lines = [*self.header, *(f"PROBLEM  {note}" for note in self.notes)]
        if self.retrieval:
            lines.append(f"retrieval warned on this run: {self.retrieval[0]}" +
                         (f" (and {len(self.retrieval) - 1} more)" if len(self.retrieval) > 1 else ""))
        for figures in self.judged:
            lines += ["", *self._block(figures)]
        lines += ["", "verdicts"]
        width = max(len(r.role) for r in self.roles)
        model_width = max(len(r.model) for r in self.roles)
        for figures in self.roles:
            if not figures.enabled:
                said = "disabled: uses its fallback"
            elif not figures.calls:
                said = "not called by this script" + (" (guided creation: try skald new)" if figures.role == "setup"
                                                        else "")
            else:
                said = figures.verdict()[0]
            lines.append(f"  {figures.role:<{width}}  {figures.model:<{model_width}}  {said}")
        worst = [r.role for r in self.judged if r.verdict()[0] == self.overall]
        lines.append(f"overall: {self.overall}" + (f" ({', '.join(worst)})" if self.overall not in PASSING else ""))
        return "\n".join(lines) + "\n"

    @staticmethod
    def _block(figures: RoleFigures) -> list[str]:
        said, why = figures.verdict()
        calls, fallbacks = len(figures.calls), figures.fallbacks
        out = [f"{figures.role} ({figures.model}): {said} ({why})",
               f"  calls {calls} ({len(figures.sent)} requests), fallbacks {sum(fallbacks.values())}" +
               (f": {', '.join(f'{kind} {n}' for kind, n in fallbacks.most_common())}" if fallbacks else "")]
        out += [f"    {kind}: {' '.join(reason.split())[:110]}" for kind, reason in figures.examples.items()]
        habits = figures.habits
        out.append("  habits stripped: " + (", ".join(f"{h} {n}" for h, n in habits.most_common()) if habits
                                             else "none"))
        p50, p95 = figures.latency_ms
        timing = f"  latency p50 {_seconds(p50)}, p95 {_seconds(p95)}"
        if any(c.ttft_ms is not None for c in figures.calls):
            first50, first95 = figures.ttft_ms
            timing += f"; first token p50 {_seconds(first50)}, p95 {_seconds(first95)}"
        out.append(timing)
        prompt, completion, cached = figures.tokens
        out.append(f"  tokens: prompt {prompt:,}, completion {completion:,}; "
                   f"{_share(cached, prompt)} of the prompt from the cache ({figures.cache_source})")
        loads, waited = figures.loads
        if loads:
            out.append(f"  the model was loaded for {loads} of its requests ({waited:.1f} s in all): a cold start, or "
                       "another model or num_ctx had taken its place")
        if figures.sentences is not None:
            distinct, told = figures.sentences
            out.append(f"  the story: {_share(distinct, told)} distinct sentences ({distinct} of {told})")
        return out
