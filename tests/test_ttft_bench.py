"""The time-to-first-token bench's simulated Ollama (``bench/ttft_server.py``, ``bench/ttft_model.py``) on its own,
driven by the real ``ChatOllama`` client: a repeated prompt is served from the slot's prefix cache, a ``num_ctx``
change or another model that needs the memory costs a load, ``keep_alive`` unloads an idle model, decode time scales
with the reply, background work holds the machine without moving the player's clock, and the characters of a scene
beat are served in the order of their names whatever order they arrive in. The times asserted are simulated numbers
(what the server reports), never measured ones."""

from __future__ import annotations

import sys
import threading

import httpx
import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_ollama import ChatOllama
from skald.llm.client import ROLE_HEADER
from support import ROOT

if str(ROOT) not in sys.path:  # `python -m pytest` from the root has it; the `pytest` script does not
    sys.path.insert(0, str(ROOT))
from bench import ttft_server  # noqa: E402
from bench.ttft_model import LLAMA31_8B, LLAMA32_3B, PROFILES, Cost, keep_alive_s  # noqa: E402
from bench.ttft_server import SimulatedOllama  # noqa: E402

GPU = PROFILES["laptop-gpu-8b"]
NS = 1e9
SYSTEM = "You narrate one turn of a text role-playing game. " * 40
SCENE = ("Location: The Slag & Lantern.\nTime: evening\nPresent: Hesper Quill (barkeep)\nPlayer input: look around\n"
         "Outcome: SUCCESS. You take in the room.")


def chat(server: SimulatedOllama, user: str, *, role: str = "narrator", model: str = LLAMA31_8B,
         num_ctx: int = 8192, keep_alive: str = "30m", system: str = SYSTEM) -> tuple[dict, Cost, str]:
    """One call through the real client: (the reply's Ollama metadata, the server's cost record, the reply)."""
    client = ChatOllama(model=model, base_url=server.url, num_ctx=num_ctx, keep_alive=keep_alive,
                        client_kwargs={"headers": {ROLE_HEADER: role}, "timeout": 30})
    reply = client.invoke([SystemMessage(system), HumanMessage(user)])
    return reply.response_metadata, server.costs[-1], str(reply.content)


@pytest.fixture
def server():
    with SimulatedOllama(GPU) as running:
        yield running


def test_a_repeated_prompt_is_served_from_the_cache(server):
    spec = GPU.models[LLAMA31_8B]
    meta, cost, _ = chat(server, SCENE)
    assert cost.load_reason == "first" and meta["load_duration"] == spec.load_s * NS
    assert cost.cached_tokens == 0 and meta["prompt_eval_count"] == cost.prompt_tokens
    assert meta["prompt_eval_duration"] == pytest.approx(cost.prompt_tokens / spec.prefill_tps * NS, abs=1)

    meta, again, _ = chat(server, SCENE)  # the same prompt: all but its last token from the cache
    assert again.load_reason == "" and meta["load_duration"] == 0
    assert again.cached_tokens == again.prompt_tokens - 1
    assert meta["prompt_eval_count"] == again.prompt_tokens  # Ollama counts the whole prompt
    assert meta["prompt_eval_duration"] == pytest.approx(1 / spec.prefill_tps * NS, abs=1)

    meta, other, _ = chat(server, SCENE.replace("look around", "ask Hesper for work"))  # the same start, then not
    assert len(SYSTEM) // 4 < other.cached_tokens < other.prompt_tokens - 1
    assert meta["prompt_eval_duration"] == pytest.approx(
        (other.prompt_tokens - other.cached_tokens) / spec.prefill_tps * NS, abs=1)


def test_a_num_ctx_change_reloads_the_model_with_an_empty_cache(server):
    spec = GPU.models[LLAMA31_8B]
    chat(server, SCENE, num_ctx=8192)
    meta, cost, _ = chat(server, SCENE, num_ctx=4096)
    assert cost.load_reason == "num_ctx" and meta["load_duration"] == spec.load_s * NS
    assert cost.cached_tokens == 0
    loaded = httpx.get(f"{server.url}/api/ps").json()["models"]
    assert [(m["name"], m["context_length"]) for m in loaded] == [(LLAMA31_8B, 4096)]
    _, back, _ = chat(server, SCENE, num_ctx=8192)
    assert back.load_reason == "num_ctx"


def test_a_model_that_needs_the_memory_evicts_the_other_and_keep_alive_unloads_an_idle_one(server):
    chat(server, SCENE)  # the 8B at 8192 and the 3B at 4096 do not fit in the laptop GPU's 7.5 GiB together
    _, small, _ = chat(server, SCENE, role="suggestion_refiner", model=LLAMA32_3B, num_ctx=4096)
    assert small.load_reason == "first"
    _, big, _ = chat(server, SCENE)
    assert big.load_reason == "evicted" and big.cached_tokens == 0

    server.begin_turn(29 * 60)  # idle less than the 30 minutes of keep_alive: still loaded, cache and all
    _, kept, _ = chat(server, SCENE)
    assert kept.load_reason == "" and kept.cached_tokens == kept.prompt_tokens - 1
    server.begin_turn(31 * 60)
    _, expired, _ = chat(server, SCENE)
    assert expired.load_reason == "keep_alive"
    _, once, _ = chat(server, SCENE, keep_alive="0")  # unloaded as soon as it answers
    _, next_one, _ = chat(server, SCENE)
    assert once.load_reason == "" and next_one.load_reason == "keep_alive"
    assert keep_alive_s("1h30m") == 5400 and keep_alive_s("-1") == float("inf") and keep_alive_s(None) == 300


def test_decode_time_scales_with_the_reply_and_the_first_sentence_comes_before_the_end(server):
    spec = GPU.models[LLAMA31_8B]
    meta, narration, text = chat(server, SCENE)
    character = ("You are Hesper Quill, barkeep.\nLines in your voice (how you talk; not said yet): \"Two greys.\"\n"
                 "Beat 1. The bar.\nRecent:\n")
    short_meta, line, short = chat(server, character, role="character")
    assert len(text) > 2 * len(short)
    for m, cost, reply in ((meta, narration, text), (short_meta, line, short)):
        assert m["eval_count"] == cost.output_tokens == -(-len(reply) // 4)  # a token for every four characters
        assert m["eval_duration"] == pytest.approx(cost.output_tokens / spec.decode_tps * NS, abs=1)
    assert meta["eval_duration"] > 2 * short_meta["eval_duration"]
    # the player reads the narration's first whole sentence before the model is done with the rest
    assert narration.load_s + narration.prefill_s < narration.first_shown_s < narration.busy_s
    assert line.first_shown_s is None  # only the narrator's prose is shown as it streams


def test_background_work_holds_the_machine_but_not_the_players_clock(server):
    chat(server, SCENE)
    start = server.begin_turn(0.0)
    _, brief, _ = chat(server, "Location: Kettle Row. Dusty.\nPresent: id hesper: Hesper Quill, barkeep.",
                       role="director", model=LLAMA32_3B, num_ctx=4096)
    _, narration, _ = chat(server, SCENE)
    assert brief.background and brief.issued == start and brief.wait_s == 0
    assert narration.issued == start  # the brief did not move the player's clock...
    assert narration.wait_s == pytest.approx(brief.busy_s)  # ...but the narrator waited for the machine
    assert narration.load_reason == "evicted"


def test_the_characters_of_a_beat_are_served_in_the_order_of_their_names(server, monkeypatch):
    monkeypatch.setattr(ttft_server, "FANOUT_WAIT_S", 30.0)  # a bound a busy machine never reaches
    cast = {"Odile": "dry.", "Bartholomew Grint": "warm and talkative, with a story for every occasion."}

    def prompt(me: str) -> str:
        other = next(name for name in cast if name != me)
        return f"You are {me}, a local.\nPersonality: {cast[me]}\nBeat 3. The bar.\nOthers here: {other}\nRecent:\n"

    def ask(me: str) -> None:
        chat(server, prompt(me), role="character", model=LLAMA32_3B, num_ctx=4096)

    first = threading.Thread(target=ask, args=("Odile",))
    first.start()  # Odile asks first, and is held until Bartholomew has asked too
    with server._beat_cond:
        assert server._beat_cond.wait_for(lambda: any("Odile" in b.arrived for b in server._beats.values()),
                                          timeout=30)
    ask("Bartholomew Grint")
    first.join(timeout=30)
    served = [c.prompt_tokens for c in server.costs if c.role == "character"]
    expected = [-(-len(ttft_server.render({"messages": [{"role": "system", "content": SYSTEM},
                                                       {"role": "user", "content": prompt(me)}]})) // 4)
                for me in ("Bartholomew Grint", "Odile")]
    assert served == expected and expected[0] != expected[1]


def test_two_alternating_prompts_in_two_slots_are_each_served_from_their_own_cache():
    spec = GPU.models[LLAMA31_8B]
    refiner_system = "You rewrite the player's suggested actions as short imperative lines. " * 30
    assert spec.memory_gib(8192, 2) <= GPU.memory_gib < spec.memory_gib(16384, 2)  # twice the KV cache: 8192 fits
    assert spec.largest_num_ctx(GPU.memory_gib, 2) == 9216

    def alternate(server: SimulatedOllama) -> list[Cost]:
        for _ in range(2):
            chat(server, SCENE)
            chat(server, SCENE, role="suggestion_refiner", system=refiner_system)
        return server.costs[2:]

    with SimulatedOllama(GPU, num_parallel=2, multiuser_cache=True) as two:
        costs = alternate(two)
    assert [c.slot for c in two.costs] == [0, 1, 0, 1]  # the second prompt forks into the unused slot
    assert all(c.cached_tokens == c.prompt_tokens - 1 and c.load_reason == "" for c in costs)

    # Ollama's default rule (findLongestCacheSlot) picks the occupied slot, which shares the chat template's header,
    # over the empty one: both prompts take turns in the first slot, as with one slot
    with SimulatedOllama(GPU, num_parallel=2) as greedy:
        costs = alternate(greedy)
    assert [c.slot for c in greedy.costs] == [0, 0, 0, 0]
    assert all(c.cached_tokens < 30 for c in costs)
    with SimulatedOllama(GPU, num_parallel=2) as too_wide, pytest.raises(httpx.HTTPError):
        chat(too_wide, SCENE, num_ctx=16384)  # 8.6 GiB: more than the GPU's 7.5
