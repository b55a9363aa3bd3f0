"""The cost model of the simulated Ollama (``bench/ttft_server.py``): one machine, its loaded models, their cache
slots (``OLLAMA_NUM_PARALLEL``, one by default) each with its own prefix cache, and a virtual clock, so the
time-to-first-token bench (``bench/ttft.py``) adds up simulated seconds instead of sleeping.

What it models, as Ollama (0.x) and llama.cpp behave:

* **One request at a time.** The machine serves one request after another in arrival order (one GPU, or one CPU's
  cores): a request waits for the one before it, whichever model that was, background work included. This holds with
  several slots too: Ollama would batch two requests for one model together, but the compute is shared, so that would
  shorten neither's prefill nor much of its decode; the slots are modelled for their caches, not for concurrency.
* **Loads.** A request for a model that is not loaded, or that is loaded with another ``num_ctx`` (Ollama reloads the
  model when a request's ``options.num_ctx`` differs from the loaded one), costs the model's load time first. Loaded
  models that no longer fit in memory beside it are unloaded, least recently used first (Ollama's scheduler evicts idle
  runners; ``OLLAMA_MAX_LOADED_MODELS`` is 3). A model is unloaded ``keep_alive`` after the end of its last request
  (``"30m"``, ``"1h"``, seconds as a number, a negative value for ever; Ollama's default is 5 minutes).
* **Slots.** A model is loaded with :attr:`Machine.num_parallel` slots (``OLLAMA_NUM_PARALLEL``), each with its own
  KV cache of ``num_ctx`` tokens: Ollama allocates ``num_ctx * num_parallel`` tokens of KV and gives each slot its
  share (``NewInputCache`` in ``runner/ollamarunner/cache.go``: ``numCtx := kvSize / int32(numSlots)``), so the model
  takes that much more memory (:meth:`ModelSpec.memory_gib`), which decides what fits and what gets evicted. A request
  goes to the free slot whose cached tokens share the longest common prefix with its prompt, the first such slot on a
  tie (``findLongestCacheSlot`` in the same file, used unless ``OLLAMA_MULTIUSER_CACHE`` is set: it skips slots in use
  and keeps the first slot with a strictly longer ``countCommonPrefix``); that slot's cache is then cut to the prefix
  and holds the new prompt and reply. Unused slots are empty, so a prompt that shares nothing goes to the first slot.
  Every prompt begins with the chat template's header (``<|begin_of_text|><|start_header_id|>system...``), so an
  occupied slot always beats an empty one: served one at a time, every request lands in the first slot and the others
  stay empty. With ``OLLAMA_MULTIUSER_CACHE=1`` (:attr:`Machine.multiuser_cache`) Ollama uses ``findBestCacheSlot``
  instead: the slot with the longest common prefix if its whole cache is that prefix, else the least recently used free
  slot, into which the longest common prefix is copied (``CopyPrefix``), so a new prompt no longer overwrites another
  prompt's slot.
* **Prefill.** A slot keeps the KV cache of its last prompt and reply; a new prompt reuses the longest common prefix
  with it, and only the rest is evaluated (at least one token, as llama.cpp always evaluates the last one; Ollama's
  ``LoadCacheSlot`` leaves one input to sample too). A load starts with every slot empty.
* **Decode.** A fixed time per output token.

Tokens are estimated as Skald estimates them (``skald.llm.budget.estimate_tokens``: one token per four characters);
the cached part of a prompt is its common prefix with the cached text, in characters, over four. Times are seconds of
simulated time (:attr:`Machine.clock`). The figures for each model on each machine are in :data:`PROFILES`, with
where they come from.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from skald.text import estimate_tokens

DEFAULT_KEEP_ALIVE_S = 300.0  # Ollama's default keep_alive (OLLAMA_KEEP_ALIVE), when a request sets none
MAX_LOADED = 3  # OLLAMA_MAX_LOADED_MODELS' default
GIB = 1024 ** 3


@dataclass(frozen=True)
class ModelSpec:
    """One model on one machine: speeds (tokens per second), load time (s) and memory (GiB).

    Memory when loaded: ``weights_gib + kv_kib_per_token * num_ctx * num_parallel / 2**20 + graph_gib`` (the f16 KV
    cache is ``2 * layers * kv_heads * head_dim * 2`` bytes a token: 128 KiB for Llama 3.1 8B, 112 KiB for Llama 3.2
    3B; every slot has ``num_ctx`` tokens of it). The compute graph is taken to be the same with more slots (it grows
    with the batch, which Ollama keeps at ``num_batch``), so with several slots this leans a little low.
    """

    prefill_tps: float
    decode_tps: float
    load_s: float
    weights_gib: float
    kv_kib_per_token: float
    graph_gib: float

    def memory_gib(self, num_ctx: int, num_parallel: int = 1) -> float:
        return self.weights_gib + self.kv_kib_per_token * num_ctx * num_parallel / 2 ** 20 + self.graph_gib

    def largest_num_ctx(self, memory_gib: float, num_parallel: int = 1, step: int = 1024) -> int:
        """The largest ``num_ctx`` (a multiple of ``step``) at which the model with ``num_parallel`` slots fits in
        ``memory_gib`` alone; 0 when none does."""
        free_kib = (memory_gib - self.weights_gib - self.graph_gib) * 2 ** 20
        return max(0, int(free_kib / (self.kv_kib_per_token * num_parallel)) // step * step)


@dataclass(frozen=True)
class Profile:
    """A machine: its memory for models (GiB), the models it can run, and the one model a player with it would give
    every role."""

    name: str
    description: str
    memory_gib: float
    models: dict[str, ModelSpec]
    single_model: str


LLAMA31_8B, LLAMA32_3B = "llama3.1:8b", "llama3.2:3b"

# Sources (figures rounded, and on the slow side of what was reported, as Ollama adds a little to llama.cpp):
# * laptop GPU, 8B decode: Ollama on an RTX 4060 Laptop GPU (8 GB), Llama 3.1 8B Q4_0 ~38 tok/s
#   (substrate.lol/site/benchmarks, 2026-03); llmfit community results for the same GPU, llama3.1:8b via Ollama,
#   47.2 tok/s (github.com/AlexsJones/llmfit/pull/958). 40 tok/s here.
# * laptop GPU, 8B prefill: llama-bench pp for Llama 3.1 8B Q4_K_M is ~3,800 tok/s on a desktop RTX 3080
#   (github.com/dmatora/LLM-inference-speed-benchmarks/issues/12); a 4060 Laptop has well under half its compute, and
#   Ollama's prompts are short batches: 1,500 tok/s here.
# * laptop GPU, 3B: Phi-3 Mini 3.8B ~55 tok/s on the same 4060 Laptop (substrate.lol); decode is memory-bound and
#   Llama 3.2 3B Q4_K_M is 2.0 GB against 4.9 GB for the 8B: 80 tok/s decode, 3,500 tok/s prefill here.
# * CPU, 3B: llama-bench, Llama 3.2 3B Q4_K_M on 8 CPU threads: pp512 72, pp4096 57, tg128 ~12 tok/s (Radxa Dragon
#   Q8B, github.com/geerlingguy/ai-benchmarks/issues/54); 2 threads of an i3-1315U: pp512 29, tg128 11
#   (github.com/geerlingguy/sbc-reviews/issues/107). 60 tok/s prefill, 10 tok/s decode here.
# * CPU, 8B: Llama 3.1 8B Q4_K_M on an i5-1135G7 laptop: pp512 25.5, tg128 6.9 (github.com/brand-o/normiebench/issues/
#   46); on the 3B machine above, scaled by size (2.5x the parameters, 2.5x the bytes a token): 24 and 4 tok/s.
# * Loads: Ollama reports a load_duration of 2.2 s for a 12B model on a fresh server (github.com/ollama/ollama/pull/
#   17943) and "<5 s on SSD" is the usual figure; the model files are taken to be in the page cache after the first
#   load: 3 s for the 8B and 1.5 s for the 3B to a laptop GPU, 2 s and 4 s from page cache on the CPU.
# * A num_ctx change reloads the model (github.com/ollama/ollama/issues/9977: "a change in context length requires a
#   model reload"); prompt_eval_count counts the whole prompt, cached tokens included (github.com/ollama/ollama/
#   pull/5371), and newer Ollama adds prompt_eval_cached_count (github.com/ollama/ollama/pull/17943).
# * Memory: an 8 GB laptop GPU leaves about 7.5 GiB to Ollama; the CPU laptop has 16 GB, 12 GiB of it for models.
PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("laptop-gpu-8b", "an 8B q4 model on an 8 GB laptop GPU (RTX 4060 Laptop class)", 7.5, {
        LLAMA31_8B: ModelSpec(1500.0, 40.0, 3.0, 4.6, 128.0, 0.6),
        LLAMA32_3B: ModelSpec(3500.0, 80.0, 1.5, 1.9, 112.0, 0.3),
    }, LLAMA31_8B),
    Profile("cpu-3b", "a 3B q4 model on a laptop CPU (8 threads, 16 GB RAM, no GPU)", 12.0, {
        LLAMA32_3B: ModelSpec(60.0, 10.0, 2.0, 1.9, 112.0, 0.3),
        LLAMA31_8B: ModelSpec(24.0, 4.0, 4.0, 4.6, 128.0, 0.6),
    }, LLAMA32_3B),
)}


def keep_alive_s(value: object) -> float:
    """Ollama's ``keep_alive`` in seconds: a number of seconds, or a Go duration (``"30m"``, ``"1h30m"``, ``"90s"``);
    negative means for ever (``math.inf``), None the default (:data:`DEFAULT_KEEP_ALIVE_S`).

    :raises ValueError: a string that is neither.
    """
    if value is None or value == "":
        return DEFAULT_KEEP_ALIVE_S
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        text = str(value).strip()
        try:
            seconds = float(text)
        except ValueError:
            parts = re.findall(r"(-?\d+(?:\.\d+)?)(ms|s|m|h)", text)
            if not parts or "".join(n + u for n, u in parts) != text:
                raise ValueError(f"keep_alive {value!r} is not a duration") from None
            seconds = sum(float(n) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[u] for n, u in parts)
    return math.inf if seconds < 0 else seconds


@dataclass(frozen=True)
class Request:
    """What the cost model needs of one ``/api/chat`` request. ``first_shown_chars``: how much of ``reply`` had been
    generated when the player saw its first words (None: not a streamed narration)."""

    model: str
    num_ctx: int
    keep_alive: object
    prompt: str
    reply: str
    role: str = "?"
    background: bool = False
    first_shown_chars: int | None = None


@dataclass(frozen=True)
class Cost:
    """What one request cost, in simulated seconds (``issued``, ``start``, ``end`` on :attr:`Machine.clock`'s scale).

    ``load_reason``: ``""`` (no load), ``first`` (the model's first load on this machine), ``num_ctx`` (loaded with
    another ``num_ctx``), ``evicted`` (unloaded for another model), ``keep_alive`` (unloaded when its keep_alive ran
    out). ``first_shown_s``: from ``start`` to the player's first words (None: not a streamed narration). ``slot``: the
    cache slot that served it.
    """

    role: str
    model: str
    num_ctx: int
    background: bool
    issued: float
    start: float
    load_s: float
    load_reason: str
    prompt_tokens: int
    cached_tokens: int
    prefill_s: float
    output_tokens: int
    decode_s: float
    first_shown_s: float | None
    end: float
    slot: int = 0

    @property
    def wait_s(self) -> float:
        """Time queued behind the request before it (the machine serves one at a time)."""
        return self.start - self.issued

    @property
    def busy_s(self) -> float:
        """Time the machine spent on this request: load, prefill and decode."""
        return self.load_s + self.prefill_s + self.decode_s


@dataclass
class _Runner:
    model: str
    num_ctx: int
    memory_gib: float
    slots: list[str] = field(default_factory=lambda: [""])  # each slot's cached prompt and reply
    last_end: float = 0.0
    keep_alive_s: float = DEFAULT_KEEP_ALIVE_S
    used: list[int] = field(default_factory=lambda: [0])  # each slot's last use (a request count; 0: never)

    def slot_for(self, prompt: str, multiuser: bool = False) -> tuple[int, int]:
        """(slot, characters of ``prompt`` served from its cache), as Ollama's ``findLongestCacheSlot`` picks (the
        slot with the longest common prefix, the first on a tie) or, ``multiuser``, its ``findBestCacheSlot`` (that
        slot if the whole of its cache is the common prefix, else the least recently used slot, given the prefix).
        Every slot is free: requests are served one at a time."""
        best, longest = 0, -1
        for i, cached in enumerate(self.slots):
            n = _common_prefix(prompt, cached)
            if n > longest:
                best, longest = i, n
        if multiuser and longest != len(self.slots[best]):
            best = min(range(len(self.slots)), key=lambda i: self.used[i])  # the first on a tie, as Ollama's `<`
        return best, longest


@dataclass
class Machine:
    """The simulated machine of one :class:`Profile`. Not thread-safe: the server calls it under a lock.

    ``num_parallel``: the slots of every loaded model (``OLLAMA_NUM_PARALLEL``); ``multiuser_cache``: Ollama's
    ``OLLAMA_MULTIUSER_CACHE``, its other rule for picking a slot. ``clock`` is the virtual time of the
    player's side: a foreground request is issued at ``clock`` and moves it to its
    end (the engine's calls of a turn follow each other); a background request is issued at ``clock`` and leaves it
    (the player reads and types meanwhile); :meth:`idle` moves it on by a player's think time.
    """

    profile: Profile
    num_parallel: int = 1
    multiuser_cache: bool = False
    clock: float = 0.0
    free_at: float = 0.0
    runners: dict[str, _Runner] = field(default_factory=dict)
    ever_loaded: dict[str, str] = field(default_factory=dict)  # model -> why it last left memory ("" while loaded)
    _served: int = 0

    def idle(self, seconds: float) -> float:
        """Let ``seconds`` of simulated time pass on the player's side; returns the new :attr:`clock`."""
        self.clock += seconds
        return self.clock

    def knows(self, model: str) -> bool:
        return model in self.profile.models

    def loaded(self) -> list[tuple[str, int]]:
        """The models loaded now, as (model, num_ctx), most recently used last."""
        return [(r.model, r.num_ctx) for r in sorted(self.runners.values(), key=lambda r: r.last_end)]

    def serve(self, request: Request) -> Cost:
        """Serve one request: queue, load when needed, prefill what the cache does not hold, decode the reply.

        :raises KeyError: the profile has no such model.
        """
        spec = self.profile.models[request.model]
        issued = self.clock
        start = max(issued, self.free_at)
        self._expire(start)
        runner, reason = self._runner(request, spec)
        load_s = spec.load_s if reason else 0.0
        prompt_tokens = estimate_tokens(request.prompt) or 1
        slot, common = runner.slot_for(request.prompt, self.multiuser_cache)
        cached_tokens = min(common // 4, prompt_tokens - 1)
        prefill_s = (prompt_tokens - cached_tokens) / spec.prefill_tps
        output_tokens = max(1, estimate_tokens(request.reply))
        decode_s = output_tokens / spec.decode_tps
        first = None
        if request.first_shown_chars is not None:
            shown = max(1, estimate_tokens(request.reply[:request.first_shown_chars]))
            first = load_s + prefill_s + shown / spec.decode_tps
        end = start + load_s + prefill_s + decode_s
        runner.slots[slot] = request.prompt + request.reply  # llama.cpp keeps the reply's KV too
        self._served += 1
        runner.used[slot] = self._served
        runner.last_end = end
        runner.keep_alive_s = keep_alive_s(request.keep_alive)
        self.free_at = end
        if not request.background:
            self.clock = end
        return Cost(request.role, request.model, request.num_ctx, request.background, issued, start, load_s, reason,
                    prompt_tokens, cached_tokens, prefill_s, output_tokens, decode_s, first, end, slot)

    def _expire(self, now: float) -> None:
        for model, runner in list(self.runners.items()):
            if runner.last_end + runner.keep_alive_s <= now:
                self._unload(model, "keep_alive")

    def _runner(self, request: Request, spec: ModelSpec) -> tuple[_Runner, str]:
        """The runner that serves ``request`` and why it was loaded now ("" when it already was)."""
        held = self.runners.get(request.model)
        if held is not None and held.num_ctx == request.num_ctx:
            return held, ""
        if held is not None:
            self._unload(request.model, "num_ctx")
        memory = spec.memory_gib(request.num_ctx, self.num_parallel)
        if memory > self.profile.memory_gib:  # Ollama would spill layers to the CPU, which this does not model
            raise ValueError(f"{request.model} with {self.num_parallel} slot(s) of num_ctx {request.num_ctx} needs "
                             f"{memory:.2f} GiB, more than {self.profile.name}'s {self.profile.memory_gib} GiB")
        by_age = sorted(self.runners.values(), key=lambda r: r.last_end)
        while by_age and (len(self.runners) >= MAX_LOADED or
                          sum(r.memory_gib for r in self.runners.values()) + memory > self.profile.memory_gib):
            self._unload(by_age.pop(0).model, "evicted")
        reason = self.ever_loaded.get(request.model, "first") or "first"
        runner = _Runner(request.model, request.num_ctx, memory, [""] * self.num_parallel, used=[0] * self.num_parallel)
        self.runners[request.model] = runner
        self.ever_loaded[request.model] = ""
        return runner, reason

    def _unload(self, model: str, why: str) -> None:
        del self.runners[model]
        self.ever_loaded[model] = why


def _common_prefix(a: str, b: str) -> int:
    """Characters ``a`` and ``b`` share from their start."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    low, high = 0, n  # a[:low] == b[:low] and a[:high] != b[:high]: bisect on the first difference
    while high - low > 1:
        mid = (low + high) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid
    return low
