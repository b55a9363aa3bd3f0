"""Time to the first narrated token, simulated (issue 31, item 7): the committed 50-turn scripts
(``data/scripts/*_50*.txt``, each on its pack) played through the real engine (a real SQLite file, seed 1, retrieval
off) with the real client talking to a simulated Ollama on a loopback port (``bench/ttft_server.py``), which answers
with the scripted model's replies and costs every request on one of two machines (``bench/ttft_model.py``:
``laptop-gpu-8b``, ``cpu-3b``; their figures and sources are there). Each profile plays the scripts with the engine's
default role models (one model for every role, llama3.1:8b) and with one model for every role that is the profile's own
(what a player with that machine would run; played once when it is the default), each role keeping its default
``num_ctx`` and ``keep_alive``. ``laptop-gpu-8b`` plays them again with one model for every role loaded with four cache
slots (``OLLAMA_NUM_PARALLEL=4``), so the narrator's prompt can keep a slot of its own while the other roles' prompts
take the others (in a scene, each character's from the beat before); the model then holds four times the KV cache, and
is loaded with the largest ``num_ctx`` up to its roles' own (8192) at which it fits the profile's memory (4096,
:data:`PARALLEL_SLOTS`); and once more so with ``OLLAMA_MULTIUSER_CACHE=1``, as with Ollama's default rule for picking a
slot every request lands in the first one (``bench/ttft_model.py`` says why).

Time is simulated, never slept: a turn starts :data:`THINK_S` after the last one ended (the player reads and types;
the Director's background brief runs then, on the same machine), and the engine's own work counts as nothing. Per
profile and configuration, over the story turns (``/commands`` are not):

* the time to the first narrated token: from the turn's start until the player sees the narrator's first whole
  sentence (``hygiene.StreamCleaner``), which is every LLM call before the narrator, any background work still
  holding the machine, the narrator's load, prefill, and decode up to that sentence: p50, p90 and the share within
  1.5 s (target: 1.5 s on 90% of turns on the GPU profile);
* LLM calls before the narrator's first token, a story turn (target <= 0.3);
* model reloads (a model loaded again after it was unloaded: another model needed the memory, a ``num_ctx`` change,
  or ``keep_alive``) (target 0);
* each role's share of prompt tokens served from the prefix cache, in turns after the first of a scene (the scene as
  the Director's brief keys it) (target >= 80%);
* prompt tokens a story turn across all calls, background briefs included (target <= 2,500);
* LLM time a story turn (load, prefill, decode; reported).

The figures are deterministic: the replies are the scripted model's, every cost is a function of the requests, and the
characters of a scene beat are served in the order of their names. What the simulation leaves out, and how it leans:

* the engine waits for each background brief before the next turn (``Engine.settle``), so every turn's prompt has the
  brief it would have had on a fast machine; on the simulated clock the turn still waits for the machine while the
  brief is being written (reported as "waiting for background work");
* the turn budget (``SKALD_TURN_BUDGET_S``) is wall-clock time, which here is milliseconds: a turn whose simulated
  calls run past it is counted, not cut as real play would cut it;
* the scripted replies are shorter than a real model's (a 5-7 sentence narration of ~100 tokens against the 250 words
  the narrator may write), which flatters decode times, and the first sentence as well;
* one request at a time, with several slots as well (``bench/ttft_model.py`` says why): slots are modelled for the
  prefixes they keep cached, not for serving two requests at once.
"""

from __future__ import annotations

import math
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from skald.engine import Engine
from skald.llm.client import LLMClient
from skald.packs.cache import PackCache
from skald.settings import ROLES, Settings

from bench.ttft_model import PROFILES, Cost, Profile
from bench.ttft_server import SimulatedOllama

SCRIPTS = Path(__file__).resolve().parents[1] / "data" / "scripts"
PLAYS = tuple((p.name.split("_50")[0].removesuffix("_fresh"), p.name) for p in sorted(SCRIPTS.glob("*_50*.txt")))
THINK_S = 20.0  # simulated seconds a player reads and types between turns
SEED = 1
TTFT_TARGET_S, TTFT_SHARE_TARGET, TTFT_PROFILE = 1.5, 0.90, "laptop-gpu-8b"
CALLS_BEFORE_TARGET = 0.3
CACHE_TARGET = 0.80
PROMPT_TARGET = 2500
PARALLEL_SLOTS = {"laptop-gpu-8b": 4}  # profile -> OLLAMA_NUM_PARALLEL of its third configuration


@dataclass
class Turn:
    """One player turn on the simulated clock: when it started, and what the machine served from then until the next
    turn started (the background brief it set off included)."""

    line: str
    story: bool
    first_in_scene: bool
    start: float
    costs: list[Cost] = field(default_factory=list)

    @property
    def narrator(self) -> Cost | None:
        return next((c for c in self.costs if c.role == "narrator" and not c.background), None)

    @property
    def ttft(self) -> float | None:
        """Seconds from the turn's start to the narrator's first sentence on the player's screen."""
        n = self.narrator
        return None if n is None or n.first_shown_s is None else n.start + n.first_shown_s - self.start

    @property
    def before(self) -> list[Cost]:
        """The turn's own calls before the narrator's."""
        n = self.narrator
        if n is None:
            return []
        return [c for c in self.costs[:self.costs.index(n)] if not c.background]

    @property
    def waited(self) -> float:
        """Seconds the turn's calls up to the narrator's waited for the machine, busy with background work (the
        Director's brief of the turn before): a turn's own calls follow each other."""
        n = self.narrator
        return sum(c.wait_s for c in self.before) + (n.wait_s if n is not None else 0.0)

    @property
    def end(self) -> float:
        own = [c for c in self.costs if not c.background]
        return own[-1].end if own else self.start


@dataclass(frozen=True)
class Config:
    """One configuration of a profile: the roles' models (role -> model; the rest on their defaults), the slots of a
    loaded model, and any other role settings (``SKALD_<ROLE>_<KEY>`` as :class:`Settings` keywords)."""

    label: str
    models: dict[str, str]
    num_parallel: int = 1
    settings: dict[str, object] = field(default_factory=dict)
    multiuser_cache: bool = False


def play(profile: Profile, script: str, pack: str, config: Config) -> list[Turn]:
    """Play ``script`` on ``pack`` against a simulated Ollama on ``profile``'s machine in ``config``. Returns every
    turn (the campaign's opening brief in the first)."""
    lines = [x.strip() for x in (SCRIPTS / script).read_text().splitlines() if x.strip()]
    turns: list[Turn] = []
    server = SimulatedOllama(profile, num_parallel=config.num_parallel, multiuser_cache=config.multiuser_cache)
    with server, tempfile.TemporaryDirectory(prefix="skald-bench-ttft-") as folder:
        settings = Settings(llm="on", ollama_base_url=server.url, retrieval=False,
                            **{f"{role}_model": model for role, model in config.models.items()}, **config.settings)
        llm = LLMClient(settings, online=True)
        engine = Engine(Path(folder) / "ttft.db", llm=llm, packs=PackCache(), retriever=None)
        try:
            engine.create_campaign(pack, seed=SEED, campaign_id="ttft")
            engine.settle()
            opening = server.take()
            scene = None
            for line in lines:
                start = server.begin_turn(THINK_S)
                played = engine.play_turn("ttft", line)
                engine.settle()
                brief = played.view.brief if played.view is not None else None
                key = brief.scene_key if brief is not None else scene
                turns.append(Turn(line, brief is not None, brief is not None and key != scene, start,
                                  opening + server.take()))
                opening, scene = [], key
        finally:
            engine.close()
            llm.close()
    return turns


@dataclass
class Figures:
    """The figures of one profile and configuration over every script played."""

    profile: Profile
    label: str
    turns: list[Turn]

    @property
    def story(self) -> list[Turn]:
        return [t for t in self.turns if t.story]

    @property
    def costs(self) -> list[Cost]:
        return [c for t in self.turns for c in t.costs]

    def per_story_turn(self, total: float) -> float:
        return total / max(1, len(self.story))

    def report(self) -> list[str]:
        story, budget = self.story, Settings().turn_budget_s
        firsts = sorted(t.ttft for t in story if t.ttft is not None)
        within = sum(1 for x in firsts if x <= TTFT_TARGET_S) / max(1, len(firsts))
        out = [f"    {self.label}, {len(story)} story turns",
               f"      first narrated token: p50 {_pct(firsts, 0.5):.2f} s, p90 {_pct(firsts, 0.9):.2f} s, "
               f"{within:.0%} within {TTFT_TARGET_S} s   " + (
                   f"(target: within {TTFT_TARGET_S} s on {TTFT_SHARE_TARGET:.0%} of turns)" if self.profile.name ==
                   TTFT_PROFILE else f"(the {TTFT_TARGET_S} s target is {TTFT_PROFILE}'s)"),
               *self._breakdown(story, budget),
               f"      LLM calls before the narrator's first token: "
               f"{self.per_story_turn(sum(len(t.before) for t in story)):.2f} a story turn   "
               f"(target <= {CALLS_BEFORE_TARGET})"]
        reloads = [c for c in self.costs if c.load_reason not in ("", "first")]
        why = defaultdict(int)
        for c in reloads:
            why[c.load_reason] += 1
        detail = ", ".join(f"{n} {reason}" for reason, n in sorted(why.items()))
        out.append(f"      model reloads: {len(reloads)}, {self.per_story_turn(len(reloads)):.2f} a story turn"
                   f"{f' ({detail})' if detail else ''}   (target 0)")
        out.append(f"      prompt served from the prefix cache after a scene's first turn: {self._cache()}   "
                   f"(target >= {CACHE_TARGET:.0%} for each role)")
        prompt = self.per_story_turn(sum(c.prompt_tokens for c in self.costs))
        out.append(f"      prompt tokens a story turn, all calls: {prompt:,.0f}   (target <= {PROMPT_TARGET:,})")
        load, prefill, decode = (self.per_story_turn(sum(getattr(c, k) for c in self.costs))
                                 for k in ("load_s", "prefill_s", "decode_s"))
        out.append(f"      LLM time a story turn, all calls: {load + prefill + decode:.2f} s (load {load:.2f}, "
                   f"prefill {prefill:.2f}, decode {decode:.2f})   (reported)")
        return out

    def _breakdown(self, story: list[Turn], budget: float) -> list[str]:
        timed = [t for t in story if t.ttft is not None]
        if not timed:
            return ["      (no narration streamed)"]
        n = len(timed)

        def mean(values: Iterable[float]) -> float:
            return sum(values) / n

        before = mean(sum(c.busy_s for c in t.before) for t in timed)
        queued = mean(t.waited for t in timed)
        load = mean(t.narrator.load_s for t in timed)
        prefill = mean(t.narrator.prefill_s for t in timed)
        first = mean(t.narrator.first_shown_s - t.narrator.load_s - t.narrator.prefill_s for t in timed)
        waiting = sum(1 for t in timed if t.waited > 0)
        over = sum(1 for t in timed if t.end - t.start > budget)
        return [f"        mean {mean(t.ttft for t in timed):.2f} s = calls before {before:.2f} + waiting for "
                f"background work {queued:.2f} + narrator load {load:.2f} + prefill {prefill:.2f} + decode to the "
                f"first sentence {first:.2f}",
                f"        turns that waited for background work: {waiting}; turns whose LLM calls outran the "
                f"{budget:.0f} s turn budget: {over}"]

    def _cache(self) -> str:
        cached: dict[str, int] = defaultdict(int)
        prompt: dict[str, int] = defaultdict(int)
        for t in self.story:
            if t.first_in_scene:
                continue
            for c in t.costs:
                cached[c.role] += c.cached_tokens
                prompt[c.role] += c.prompt_tokens
        return ", ".join(f"{role} {cached[role] / prompt[role]:.0%}" for role in sorted(prompt, key=_role_order))


def _role_order(role: str) -> int:
    return ROLES.index(role) if role in ROLES else len(ROLES)


def _pct(values: list[float], p: float) -> float:
    """The nearest-rank ``p`` quantile of sorted ``values`` (nan when empty)."""
    return values[max(0, math.ceil(p * len(values)) - 1)] if values else math.nan


def configurations(profile: Profile) -> list[Config]:
    defaults = Settings()
    narrator, other = defaults.model_for("narrator"), defaults.model_for("suggestion_refiner")
    single = {role: profile.single_model for role in ROLES}
    if all(defaults.model_for(role) == profile.single_model for role in ROLES):
        out = [Config(f"one model for every role ({profile.single_model}), the default", {})]
    else:
        out = [Config(f"default role models (narrator {narrator}, the others {other})", {}),
               Config(f"one model for every role ({profile.single_model})", single)]
    slots = PARALLEL_SLOTS.get(profile.name)
    if slots:
        wanted = max(defaults.role(role).num_ctx for role in ROLES)  # one num_ctx per model: its roles' largest
        fits = profile.models[profile.single_model].largest_num_ctx(profile.memory_gib, slots)
        num_ctx = min(wanted, fits)
        spec = profile.models[profile.single_model]
        label = (f"one model for every role ({profile.single_model}), {slots} slots (OLLAMA_NUM_PARALLEL={slots}) of "
                 f"num_ctx {num_ctx}: {spec.memory_gib(num_ctx, slots):.1f} of {profile.memory_gib} GiB"
                 + ("" if num_ctx == wanted else f", the largest that fits ({wanted} does not)"))
        fit = {} if num_ctx == wanted else {f"{role}_num_ctx": num_ctx for role in ROLES}
        out += [Config(label, single, slots, fit),
                Config(label + ", OLLAMA_MULTIUSER_CACHE=1", single, slots, fit, multiuser_cache=True)]
    return out


def measure(profile: Profile, plays: tuple[tuple[str, str], ...] = PLAYS) -> list[Figures]:
    return [Figures(profile, c.label, [t for pack, script in plays for t in play(profile, script, pack, c)])
            for c in configurations(profile)]


def run(plays: tuple[tuple[str, str], ...] = PLAYS) -> list[str]:
    out = [f"ttft: time to the first narrated token, simulated (a loopback Ollama with a cost model), "
           f"{', '.join(s.removesuffix('.txt') for _, s in plays)}, seed {SEED}, {THINK_S:.0f} s to read and type "
           "between turns"]
    for profile in PROFILES.values():
        out.append(f"  {profile.name}: {profile.description}")
        for figures in measure(profile, plays):
            out += figures.report()
    return out


if __name__ == "__main__":
    print("\n".join(run()))
