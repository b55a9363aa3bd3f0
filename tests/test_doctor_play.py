"""``skald doctor --play``, the model acceptance run: the real command, as a subprocess, against the loopback
Ollama-speaking server behaving as well-behaved models, models with habits, models that refuse, and no server at all;
and, in this process, the two parts it is built on: the prompt-cache ledger under the real ``ChatOllama`` client, and
the grouping of fallback reasons the real client records."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_ollama import ANY, FakeOllama, Reply, hang, http_error, prompt_tokens, text
from history import closed_port
from skald.core.brief import BriefDraft
from skald.core.records import LLMCall
from skald.llm.acceptance import RoleFigures, fallback_kind, percentile, verdict
from skald.llm.client import LLMClient, LLMUnavailable
from skald.llm.prompt_cache import LOADED_S, PromptLedger, estimated_cached, prompt_text, shared_prefix
from skald.replay.scripted import ScriptedOllama
from skald.settings import ROLES, Settings

SKALD = [sys.executable, "-m", "skald"]
ROLE_OF = {"nar": "narrator", "ref": "suggestion_refiner", "dir": "director", "chr": "character", "int": "interpreter",
           "eva": "evaluator", "set": "setup"}
MODELS = {f"SKALD_{role.upper()}_MODEL": model for model, role in ROLE_OF.items()}
SCRIPTED = ScriptedOllama(turn_of=lambda: 1)  # the recordings' model: valid replies for every role
PLACES = ("the lamps", "the rail", "the far wall", "the stair", "the vent", "the door")
SIGHTS = ["A kettle ticks on a hotplate, {n} minutes from the boil.",
          "Someone has chalked the number {n} on the nearest beam and circled it twice.",
          "You count {n} rivets along the seam before the count slips away from you.",
          "Ash settles on your sleeve in a fine grey line, the {n}th of the day.",
          "A pump coughs {n} times somewhere below and falls quiet.",
          "Your boots leave prints in the grit, {n} paces of them back to {place}.",
          "The light stutters, and for {n} heartbeats nobody speaks.",
          "A draught from {place} carries the smell of hot iron and old rain, round {n}.",
          "Down the way a bell rings {n} times for a shift nobody here works.",
          "You feel the cold of the rock through your soles, day {n} of it.",
          "The nearest lamp hums, its glass scratched with {n} tally marks.",
          "Steam beads on {place} and runs down in {n} thin tracks."]


def _line(body: dict[str, Any], prefix: str) -> str:
    users = [str(m.get("content") or "") for m in body.get("messages") or [] if m.get("role") == "user"]
    return next((line[len(prefix):].strip() for line in (users[-1] if users else "").splitlines()
                 if line.startswith(prefix)), "")


def story(n: int, body: dict[str, Any]) -> str:
    """A narration as a careful model writes it: the place, the outcome as the rules decided it, and four sentences
    told no other turn (each turn takes other sights, numbered by the call)."""
    place = _line(body, "Location:").split(".")[0] or "the place"
    summary = _line(body, "Outcome:").partition(".")[2].strip()
    sights = [SIGHTS[(4 * n + k) % len(SIGHTS)].format(n=n + 2, place=PLACES[(n + k) % len(PLACES)])
              for k in range(4)]
    return " ".join([f"You take stock of {place} for the {n + 1}th time today.", summary, *sights]).replace("  ", " ")


def models(narrator: Any = None, refiner: Any = None) -> Any:
    """A responder for every model: ``narrator(n, body)`` and ``refiner(body)`` when given, else a careful model
    (the story above; the scripted model's JSON and tag lines for the other roles)."""
    calls = itertools.count()

    def respond(body: dict[str, Any]) -> Reply:
        role = ROLE_OF.get(body.get("model", ""), "narrator")
        if role == "narrator":
            return Reply(content=(narrator or (lambda n, b: story(n, b)))(next(calls), body), chunk_chars=200)
        if role == "suggestion_refiner" and refiner is not None:
            return Reply(content=refiner(body), chunk_chars=200)
        return Reply(content=SCRIPTED.reply(role, body), chunk_chars=200)
    return respond


def doctor_play(tmp_path: Path, url: str, **extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKALD_")} | MODELS | {
        "SKALD_LLM": "auto", "SKALD_LOG_FILE": "", "SKALD_RETRIEVAL": "false", "SKALD_OLLAMA_BASE_URL": url,
        "SKALD_DB_PATH": str(tmp_path / "player.db"), "SKALD_BREAKER_SECONDS": "3600"} | extra
    return subprocess.run([*SKALD, "doctor", "--play"], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=300)


def block(out: str, role: str) -> str:
    """The report's block of one role (from its heading to the blank line)."""
    found = re.search(rf"^{role} \(.*?(?=\n\n)", out, re.MULTILINE | re.DOTALL)
    assert found, f"no block for {role} in:\n{out}"
    return found.group(0)


def verdicts(out: str) -> dict[str, str]:
    part = out.split("\nverdicts\n", 1)[1].split("\noverall:", 1)[0]
    return {line.split()[0]: line.split(None, 2)[2] for line in part.splitlines()}


def overall(out: str) -> str:
    return out.rsplit("overall: ", 1)[1].strip()


# -------------------------------------------------------------------------------------- the command, end to end


def test_well_behaved_models_all_work_and_every_figure_is_counted(tmp_path: Path) -> None:
    with FakeOllama(models=list(ROLE_OF)) as server:
        server.always(ANY, models())
        run = doctor_play(tmp_path, server.url)
        asked = {model: server.chat_requests(model) for model in ROLE_OF}
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    assert out.startswith("skald doctor --play: 20 story turns of doctor_play.txt on cinder_reach (seed 1)")
    assert "turn 20/20: tell Hesper what I found" in run.stderr  # progress goes to stderr, the report to stdout
    said = verdicts(out)
    for role in ("narrator", "suggestion_refiner", "director", "character", "interpreter", "evaluator"):
        assert said[role].endswith("works"), (role, out)
    assert said["setup"].endswith("not called by this script (guided creation: try skald new)")
    assert said["beat_classifier"].endswith("disabled: uses its fallback")
    assert overall(out) == "works"
    narrator = block(out, "narrator")
    assert "calls 20 (20 requests), fallbacks 0" in narrator and "habits stripped: none" in narrator
    assert re.search(r"latency p50 \d+\.\d\d s, p95 \d+\.\d\d s; first token p50 \d+\.\d\d s, p95", narrator)
    sent = asked["nar"]  # every figure of tokens is what the server reported, summed
    words = sum(len(story(n, body).split()) for n, body in enumerate(sent))
    assert f"tokens: prompt {sum(prompt_tokens(b) for b in sent):,}, completion {words:,};" in narrator
    assert re.search(r"; \d+% of the prompt from the cache \(estimated\)", narrator)
    distinct = re.search(r"the story: (\d+)% distinct sentences \((\d+) of (\d+)\)", narrator)
    assert distinct and int(distinct.group(2)) / int(distinct.group(3)) >= 0.9
    assert "calls 20 (20 requests), fallbacks 0" in block(out, "suggestion_refiner")
    assert "calls 1 (1 requests)" in block(out, "interpreter") and len(asked["int"]) == 1
    assert f"calls {len(asked['dir'])} ({len(asked['dir'])} requests)" in block(out, "director")
    assert not asked["set"]
    assert not (tmp_path / "player.db").exists()  # a throwaway save file: never the player's


def test_habits_are_counted_per_habit_and_the_models_still_work(tmp_path: Path) -> None:
    def chatty(n: int, body: dict[str, Any]) -> str:
        return ("<think>\nThe player acted; I should describe the scene and the outcome.\n</think>\n\n"
                f"Sure! Here is the narration for this turn:\n\n{story(n, body)} What do you do next?")

    def fenced(body: dict[str, Any]) -> str:
        return f"```json\n{SCRIPTED.reply('suggestion_refiner', body)}\n```"

    with FakeOllama(models=list(ROLE_OF)) as server:
        server.always(ANY, models(narrator=chatty, refiner=fenced))
        run = doctor_play(tmp_path, server.url)
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    narrator = block(out, "narrator")
    assert narrator.startswith("narrator (nar): works with habits (")
    assert "fallbacks 0" in narrator
    habits = dict(re.findall(r"(\w+) (\d+)", narrator.split("habits stripped: ")[1].splitlines()[0]))
    assert habits == {"reasoning": "20", "preamble": "20", "closing_question": "20"}
    refiner = block(out, "suggestion_refiner")
    assert refiner.startswith("suggestion_refiner (ref): works with habits (code_fence 20 of 20)")
    assert verdicts(out)["director"].endswith("works")
    assert overall(out) == "works with habits"


def test_refusals_and_broken_json_make_roles_unusable_and_the_run_fail(tmp_path: Path) -> None:
    def refusing(n: int, body: dict[str, Any]) -> str:
        return "I'm sorry, but as an AI language model I can't continue this story."

    with FakeOllama(models=list(ROLE_OF)) as server:
        server.always(ANY, models(narrator=refusing, refiner=lambda body: "Here are four ideas: look, talk, go, wait."))
        run = doctor_play(tmp_path, server.url)
        refiner_requests = len(server.chat_requests("ref"))
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    narrator = block(out, "narrator")  # a refusal never opens the circuit: the server answers, every turn asks again
    assert narrator.startswith("narrator (nar): unusable (20 of 20 calls fell back: refusal 20)")
    assert "calls 20 (20 requests), fallbacks 20: refusal 20" in narrator
    assert "    refusal: narrator: fallback after a reply the player may not see (refusal)" in narrator
    assert "habits stripped: none" in narrator  # a refusal is a fallback, not a habit stripped
    refiner = block(out, "suggestion_refiner")  # three attempts a call, each with the validation feedback
    assert refiner_requests == 9 and "calls 20 (9 requests), fallbacks 20: circuit open 17, invalid JSON 3" in refiner
    assert "    invalid JSON: suggestion_refiner: fallback after 1 validation issue(s) after 3 attempt(s)" in refiner
    assert verdicts(out)["director"].endswith("works")
    assert overall(out) == "unusable (narrator, suggestion_refiner)"


def test_no_ollama_exits_2_with_the_fix_and_plays_nothing(tmp_path: Path) -> None:
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}"
        run = doctor_play(tmp_path, url)
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"PROBLEM  Ollama does not answer at {url} (ConnectError)" in run.stdout
    assert f"fix: OLLAMA_HOST={url} ollama serve" in run.stdout
    assert "nothing was played" in run.stdout and "turn 1/" not in run.stderr and "Traceback" not in run.stderr


def test_with_the_llm_off_there_is_nothing_to_try(tmp_path: Path) -> None:
    run = doctor_play(tmp_path, "http://127.0.0.1:9", SKALD_LLM="off")
    assert run.returncode == 2 and "SKALD_LLM=off" in run.stderr


# ------------------------------------------------------------------------------ the prompt cache's share


SYSTEM = "You are the narrator of a frontier mining moon. " * 40


def _client(server: FakeOllama, ledger: PromptLedger, **kw: Any) -> LLMClient:
    settings = Settings(ollama_base_url=server.url, llm="on", retry_backoff_s=0.01, narrator_model="m",
                        director_model="m", retrieval=False, **kw)
    return LLMClient(settings, transport=ledger)


def test_the_share_is_estimated_from_the_prefix_the_last_prompt_of_the_model_shares() -> None:
    ledger = PromptLedger()
    with FakeOllama(models=["m"]) as server:
        server.queue("m", text("One.", prompt_eval_count=1000), text("Two.", prompt_eval_count=1000),
                     text("Three.", prompt_eval_count=1000, final=(("load_duration", int(2e9 * LOADED_S)),)))
        llm = _client(server, ledger)
        for user in ("Location: Kettle Row.", "Location: the Scrip Market.", "Location: Kettle Row."):
            llm.text("narrator", SYSTEM, user)
        bodies = server.chat_requests("m")
    first, second, third = ledger.sent
    assert (first.cached_tokens, first.reported) == (0, False)  # nothing was held for the model yet
    shared = shared_prefix(prompt_text(bodies[1]), prompt_text(bodies[0]))
    assert shared > len(SYSTEM)  # the system prompt and the start of the user message
    assert second.cached_tokens == round(1000 * shared / len(prompt_text(bodies[1])))
    assert third.cached_tokens == 0  # it waited a second for its runner: the model was loaded, its cache empty
    assert [s.role for s in ledger.sent] == ["narrator"] * 3 and second.prompt_tokens == 1000
    figures = RoleFigures("narrator", "m", sent=ledger.sent)
    assert figures.loads == (1, 2 * LOADED_S) and figures.tokens == (3000, 3, first.cached_tokens +
                                                                    second.cached_tokens)


def test_a_reported_cached_count_is_used_as_reported_and_another_num_ctx_starts_empty() -> None:
    ledger = PromptLedger()
    with FakeOllama(models=["m"]) as server:
        server.queue("m", text("One.", prompt_eval_count=900), text("Two.", prompt_eval_count=900),
                     text("Three.", prompt_eval_count=900, final=(("prompt_eval_cached_count", 640),)))
        wide = _client(server, ledger, narrator_num_ctx=8192)
        # the roles sharing a model share its widest num_ctx: a second client, every role at 4096
        narrow = _client(server, ledger, **{f"{role}_num_ctx": 4096 for role in ROLES})
        wide.text("narrator", SYSTEM, "Location: Kettle Row.")
        narrow.text("narrator", SYSTEM, "Location: Kettle Row.")  # the same model and prompt, another num_ctx
        wide.text("narrator", SYSTEM, "Location: Kettle Row.")
    narrator, director, again = ledger.sent
    assert director.cached_tokens == 0 and not director.reported
    assert (again.cached_tokens, again.reported) == (640, True)


def test_the_estimate_keeps_one_token_evaluated_and_needs_a_held_prompt() -> None:
    assert estimated_cached(100, "same", "same") == 99
    assert estimated_cached(100, "abcd", None) == 0
    assert estimated_cached(100, "abcd", "abXY") == 50
    assert shared_prefix("abc", "abd") == 2 and shared_prefix("", "x") == 0


# ---------------------------------------------------------------------- fallbacks, as the real client records them


def test_each_failure_the_client_records_is_grouped_by_why() -> None:
    with FakeOllama(models=["m"]) as server:
        server.queue("m", http_error(500), text(""), text("I'm sorry, but as an AI language model I can't continue "
                                                          "this story."), text("Not JSON at all."), hang(30))
        llm = _client(server, PromptLedger(), retries=0, breaker_failures=100, director_attempts=1,
                      narrator_timeout_s=0.5)
        asks = [lambda: llm.text("narrator", SYSTEM, "Go."), lambda: llm.text("narrator", SYSTEM, "Go."),
                lambda: llm.text("narrator", SYSTEM, "Go."),
                lambda: llm.structured("director", BriefDraft, SYSTEM, "Go."),
                lambda: llm.text("narrator", SYSTEM, "Go.")]
        calls = []
        for ask in asks:
            with pytest.raises(LLMUnavailable) as failed:
                ask()
            calls.append(failed.value.call)
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}"
        nobody = LLMClient(Settings(ollama_base_url=url, llm="on", retries=0, retrieval=False),
                           transport=PromptLedger())
        with pytest.raises(LLMUnavailable) as failed:
            nobody.text("narrator", SYSTEM, "Go.")
    calls.append(failed.value.call)
    assert [fallback_kind(c) for c in calls] == ["HTTP error", "empty", "refusal", "invalid JSON", "timeout",
                                                 "HTTP error"], [c.fallback_reason for c in calls]


def test_verdicts_follow_the_shares_of_fallbacks_and_habits() -> None:
    def calls(ok: int, failed: int, habits: tuple[str, ...] = ()) -> list[LLMCall]:
        return [LLMCall(role="narrator", model="m", ok=True, latency_ms=10.0 * i, habits=list(habits))
                for i in range(ok)] + [LLMCall(role="narrator", model="m", ok=False, outcome="circuit_open",
                                               latency_ms=0.0) for _ in range(failed)]

    assert verdict(RoleFigures("narrator", "m", calls=calls(20, 0)))[0] == "works"
    assert verdict(RoleFigures("narrator", "m", calls=calls(18, 2)))[0] == "works"  # one call in ten
    assert verdict(RoleFigures("narrator", "m", calls=calls(17, 3)))[0] == "falls back often"
    assert verdict(RoleFigures("narrator", "m", calls=calls(10, 10)))[0] == "unusable"
    assert verdict(RoleFigures("narrator", "m", calls=calls(20, 0, ("preamble",))))[0] == "works with habits"
    assert verdict(RoleFigures("narrator", "m", calls=calls(20, 0), sentences=(80, 100)))[0] == "works with habits"
    assert verdict(RoleFigures("narrator", "m", calls=calls(20, 0), replaced=3))[0] == "falls back often"
    assert RoleFigures("narrator", "m", calls=calls(20, 5)).latency_ms == (90.0, 180.0)  # skipped calls left out
    assert percentile([], 0.5) is None and percentile([3.0, 1.0, 2.0], 0.5) == 2.0
