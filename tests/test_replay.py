"""Recorded sessions: the shipped recordings replay cleanly, the format is stable, rule and prompt changes show
up as readable diffs, the CLI exits 0/1, and a recording made against a (fake) Ollama server replays with no server.

The shipped recordings under ``data/recordings`` are made with Skald's scripted model (``skald record --llm
scripted``); see ``data/recordings/README.md`` for the commands.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from fake_ollama import FakeOllama, Reply, taking_turns, text
from skald.cli.session import Session
from skald.commands import app
from skald.core.brief import END_MARKER, MARKER, BriefDraft
from skald.core.vocab import Risk
from skald.llm import prompts
from skald.llm.client import ROLE_HEADER, LLMClient
from skald.replay.recording import FILE, RecordingError, read
from skald.replay.scripted import ScriptedOllama, load_faults
from skald.replay.session import Recorder, find_recordings, recording_transport, replay, source_of
from skald.rules import dc, prose
from skald.settings import Settings
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = find_recordings([ROOT / "data" / "recordings"])
SCRIPTS = ROOT / "data" / "scripts"
VOLATILE_KEYS = {"created_at", "total_duration", "load_duration", "prompt_eval_duration", "eval_duration",
                 "latency_ms", "ttft_ms", "timestamp"}


def lines_of(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / FILE).read_text(encoding="utf-8").splitlines()]


def outcomes(folder: Path) -> list[dict]:
    return [line for line in lines_of(folder) if line["kind"] == "outcome"]


def shortened(source: Path, target: Path, turns: int) -> Path:
    """A copy of ``source`` with only its first ``turns`` turns (a valid, shorter recording)."""
    target.mkdir(parents=True)
    kept = [line for line in (source / FILE).read_text(encoding="utf-8").splitlines()
            if json.loads(line)["kind"] == "header" or json.loads(line)["turn"] <= turns]
    (target / FILE).write_text("\n".join(kept) + "\n", encoding="utf-8")
    return target


def record(script: Path, out: Path, seed: int, *extra: str) -> None:
    result = CliRunner().invoke(app, ["record", "--llm", "scripted", "--pack", "cinder_reach", "--script",
                                      str(script), "--seed", str(seed), "--out", str(out), *extra])
    assert result.exit_code == 0, result.output


# ------------------------------------------------------------------------------------- shipped recordings


def test_recordings_are_shipped():
    assert len(RECORDINGS) >= 3, f"expected at least 3 recordings under {ROOT / 'data' / 'recordings'}"


@pytest.mark.parametrize("folder", RECORDINGS, ids=lambda path: path.name)
def test_shipped_recording_replays(folder):
    recording = read(folder)
    assert recording.header["source"] == "scripted"
    assert recording.header["pack"] == "cinder_reach"
    assert len(recording.turns) >= 20
    report = replay(folder)
    assert report.ok, report.render()
    assert report.turns == len(recording.turns)


def test_shipped_recordings_cover_the_engine():
    """Together the recordings play META, TALK and ACTION turns, travel with a world tick, a fight, a companion
    joining, selling and giving, actions that could not happen, a knockout in the middle of a fight, a resumed save,
    and the LLM fallback paths (HTTP 500, invalid structured output, feedback that fixes a reply, an open circuit
    breaker)."""
    intents, events, calls, statuses, done, refused = set(), set(), set(), set(), set(), set()
    travel_ticks = feedback_fixed = retry_recovered = bad_schema = not_json = knockouts = resumes = 0
    for folder in RECORDINGS:
        lines = lines_of(folder)
        for line in lines:
            if line["kind"] == "outcome" and line.get("resumed"):
                resumes += len(line["scene"]["suggestions"]) == 4
            elif line["kind"] == "outcome" and "error" not in line:
                kinds = {e["type"] for e in line["events"]}
                knockouts += {"COMBAT_END", "DEFEATED"} <= kinds and line["state"]["combat"] is None
                if line["mechanic"]:
                    (refused if line["mechanic"]["impossible"] else done).add(line["action_class"])
                intents.add(line["intent"])
                events |= kinds
                calls |= set(line["llm_calls"])
                travel_ticks += line["action_class"] == "TRAVEL" and "WORLD_TICK" in kinds
            elif line["kind"] == "llm":
                statuses.add(line["response"].get("status"))
        for turn in read(folder).turns:
            refiner = [x for x in turn.exchanges if x.role == "suggestion_refiner"]
            feedback_fixed += (len(refiner) > 1 and "suggestion_refiner:ok" in turn.outcome.get("llm_calls", [])
                               and "validation_failed" in json.dumps(refiner[-1].request["messages"]))
            narrator = [x.response.get("status") for x in turn.exchanges if x.role == "narrator"]
            retry_recovered += narrator == [500, 200] and "narrator:ok" in turn.outcome.get("llm_calls", [])
            for x in refiner:
                content = "".join(line["message"]["content"] for line in x.response.get("lines", []))
                bad_schema += '"HEROIC"' in content
                not_json += bool(content) and not content.lstrip().startswith("{")
    assert {"META", "TALK", "ACTION"} <= intents
    assert {"WORLD_TICK", "COMBAT_START", "COMPANION_JOIN", "MOVE", "QUEST_UPDATE"} <= events
    assert travel_ticks >= 1
    assert {"SELL", "GIVE"} <= done and {"INTERACT", "GIVE", "SELL"} <= refused
    assert knockouts >= 1 and resumes >= 1
    assert {"narrator:fallback", "director:fallback", "suggestion_refiner:fallback", "narrator:circuit_open"} <= calls
    assert {200, 500} <= statuses
    assert feedback_fixed >= 1 and retry_recovered >= 1 and bad_schema >= 1 and not_json >= 1
    assert {"SCENE_OPENED", "SCENE_BEAT", "SCENE_CLOSED", "ATTITUDE_CHANGE"} <= events  # multi-character scenes
    assert {"interpreter:ok", "interpreter:fallback"} <= calls  # lines the parser could not place, read by a model


def test_a_shipped_recording_reads_odd_lines_with_the_interpreter():
    """``plain_words``: lines the parser and its semantic fallback cannot place go to the interpreter role, whose
    action the rules decide; an invalid reply is fixed by the feedback, and a failed call leaves the honest refusal."""
    folder = ROOT / "data" / "recordings" / "plain_words"
    read_as = []
    for line in outcomes(folder):
        calls = line["llm_calls"]
        if any(c.startswith("interpreter") for c in calls):
            read_as.append((line["action_class"], line["mechanic"]["impossible"], calls.count("interpreter:ok")))
    assert len(read_as) >= 4
    assert any(not impossible and ok for _, impossible, ok in read_as)  # read as an action the rules answered
    assert any(impossible and not ok for _, impossible, ok in read_as)  # the call failed: the refusal stands


def test_a_shipped_recording_starts_with_guided_creation():
    """One recording creates its character with `skald new -I` (the setup role's discussion, research tool call,
    summary and submit_character, all at the campaign's start) and plays that character."""
    guided = [read(f) for f in RECORDINGS if read(f).header.get("setup")]
    assert guided, "no shipped recording starts with skald new"
    setup = guided[0].header["setup"]
    assert setup["profile"]["pronouns"] != "they/them" and setup["profile"]["limits"]
    roles = [x.role for x in guided[0].opening]
    assert roles.count("setup") >= 4 and "director" in roles
    bodies = [json.dumps(x.request) for x in guided[0].opening if x.role == "setup"]
    assert any("submit_character" in b for b in bodies) and any("list_backgrounds" in b for b in bodies)


# ------------------------------------------------------------------------------------------------- format


def no_volatile(value, where: str) -> None:
    if isinstance(value, dict):
        assert not VOLATILE_KEYS & set(value), f"volatile key in {where}"
        for child in value.values():
            no_volatile(child, where)
    elif isinstance(value, list):
        for child in value:
            no_volatile(child, where)
    elif isinstance(value, str):
        assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", value), f"timestamp in {where}"
        assert not re.search(r"\(\d+ s left\)|127\.0\.0\.1:\d+", value), f"volatile text in {where}"


def test_recording_format_is_stable_and_free_of_volatile_values():
    for folder in RECORDINGS:
        raw = (folder / FILE).read_text(encoding="utf-8").splitlines()
        lines = [json.loads(line) for line in raw]  # every line is JSON
        assert lines[0]["kind"] == "header" and all(line["kind"] != "header" for line in lines[1:])
        assert list(lines[0])[:2] == ["kind", "format"]
        orders: dict[str, list[str]] = {}
        for line in lines[1:]:
            assert list(line)[:2] == ["kind", "turn"], line
            if line.get("resumed"):  # a resume step's outcome is the scene the resumed game showed
                assert list(line) == ["kind", "turn", "resumed", "scene"], line
                continue
            keys = [k for k in line if k != "lore"]  # the lore chunk ids, last, on a turn the index gave lore
            order = orders.setdefault(line["kind"], keys)
            assert "lore" not in line or list(line)[-1] == "lore", line
            if "error" not in line:
                assert keys == order, f"{folder}: {line['kind']} keys out of order in turn {line['turn']}"
        assert set(orders) == {"input", "llm", "outcome"}
        assert orders["llm"] == ["kind", "turn", "role", "seq", "request_hash", "request", "response"]

        for line in lines:
            no_volatile(line, f"{folder}: {line['kind']} line of turn {line.get('turn')}")
        for turn in read(folder).turns:  # the turns in order, each with its exchanges numbered 1, 2, ... per role
            for role in {x.role for x in turn.exchanges}:
                assert [x.seq for x in turn.exchanges if x.role == role] == list(
                    range(1, 1 + sum(x.role == role for x in turn.exchanges)))


def test_rerecording_gives_identical_bytes(tmp_path):
    faults = ROOT / "data" / "recordings" / "bad_signal" / "faults.yaml"
    args = ("--background", "claim_drifter", "--faults", str(faults))
    record(SCRIPTS / "bad_signal.txt", tmp_path / "one", 3, *args)
    record(SCRIPTS / "bad_signal.txt", tmp_path / "two", 3, *args)
    first = (tmp_path / "one" / FILE).read_bytes()
    assert first == (tmp_path / "two" / FILE).read_bytes()
    assert json.loads(first.splitlines()[0])["source"] == "scripted"
    assert len(read(tmp_path / "one").turns) >= 20


# --------------------------------------------------------------------------------------- what a diff looks like


def test_a_dc_rule_change_fails_with_a_diff_naming_turn_and_field(tmp_path, monkeypatch):
    folder = tmp_path / "frontier_day"
    shutil.copytree(ROOT / "data" / "recordings" / "frontier_day", folder)
    first = next(o for o in outcomes(folder) if o.get("mechanic") and o["mechanic"]["risk"] == "RISKY"
                 and o["mechanic"]["dc"] is not None)
    turn, recorded_dc = first["turn"], first["mechanic"]["dc"]
    monkeypatch.setitem(dc.TIER_DC, Risk.RISKY, dc.TIER_DC[Risk.RISKY] + 2)

    report = replay(folder)
    rendered = report.render()
    assert not report.ok
    assert report.differences[0].turn == turn
    assert f"first difference at turn {turn} " in rendered
    assert "mechanic" in rendered.split(f"first difference at turn {turn} ")[1].splitlines()[0]
    assert f"--- recorded turn {turn} mechanic" in rendered
    assert f"+++ replayed turn {turn} mechanic" in rendered
    assert f'-  "dc": {recorded_dc},' in rendered
    assert f'+  "dc": {recorded_dc + 2},' in rendered

    updated = replay(folder, update=True)
    assert any("updated" in note for note in updated.notes)
    again = replay(folder)
    assert again.ok, again.render()
    assert outcomes(folder)[turn - 1]["mechanic"]["dc"] == recorded_dc + 2


def test_a_prompt_change_fails_with_the_prompt_diff(tmp_path, monkeypatch):
    folder = shortened(ROOT / "data" / "recordings" / "union_business", tmp_path / "short", 8)
    old_rules = prompts.NARRATOR_RULES
    new_rules = "Narrate one turn in the second person, in exactly five short sentences."
    monkeypatch.setattr(prompts, "NARRATOR_RULES", new_rules)

    report = replay(folder)
    rendered = report.render()
    assert not report.ok
    assert not report.differences  # the outcomes are the same: the recorded replies are served
    assert report.prompt_diffs
    assert "LLM prompt(s) changed" in rendered
    assert "--- recorded turn 1 narrator prompt" in rendered and "+++ replayed turn 1 narrator prompt" in rendered
    assert f"-{old_rules}" in rendered.splitlines()
    assert f"+{new_rules}" in rendered.splitlines()

    replay(folder, update=True)
    assert replay(folder).ok
    narrator = next(x for t in read(folder).turns for x in t.exchanges if x.role == "narrator")
    assert narrator.request["messages"][0]["content"].endswith(new_rules)


def test_a_changed_llm_call_structure_is_reported(tmp_path):
    folder = shortened(ROOT / "data" / "recordings" / "frontier_day", tmp_path / "short", 3)
    lines = (folder / FILE).read_text(encoding="utf-8").splitlines()
    narrated = [json.loads(line) for line in lines if json.loads(line)["kind"] == "llm"
                and json.loads(line)["role"] == "narrator"]
    turn = narrated[1]["turn"]  # drop the second turn's narrator call: the engine still makes it
    kept = [line for line in lines if not (json.loads(line)["kind"] == "llm" and json.loads(line)["turn"] == turn
                                           and json.loads(line)["role"] == "narrator")]
    (folder / FILE).write_text("\n".join(kept) + "\n", encoding="utf-8")
    report = replay(folder)
    assert not report.ok
    assert f"turn {turn}: narrator call #1 is not in the recording (re-record it)" in report.render()


# --------------------------------------------------------------------------------------------------- the CLI


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKALD_")} | {"SKALD_LLM": "off",
                                                                                 "SKALD_LOG_FILE": ""}
    return subprocess.run([sys.executable, "-c", "from skald.commands import app; app()", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)


def test_cli_replay_exits_0_when_clean_and_1_with_the_diff(tmp_path):
    clean = shortened(ROOT / "data" / "recordings" / "frontier_day", tmp_path / "clean", 6)
    broken = shortened(ROOT / "data" / "recordings" / "frontier_day", tmp_path / "broken", 6)
    lines = (broken / FILE).read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        value = json.loads(line)
        if value["kind"] == "outcome" and value["turn"] == 5:
            value["state"]["credits"] += 100
            lines[index] = json.dumps(value, ensure_ascii=False)
    (broken / FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")

    ok = run_cli("replay", str(clean))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"{clean}: 6 turns: ok" in ok.stdout

    bad = run_cli("replay", str(clean), str(broken))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert f"{broken}: 6 turns: MISMATCH" in bad.stdout
    assert "first difference at turn 5" in bad.stdout
    assert "--- recorded turn 5 state" in bad.stdout and "+++ replayed turn 5 state" in bad.stdout
    assert "1 of 2 recording(s) replayed cleanly" in bad.stdout


# --------------------------------------------------------------------- a recording made against a real server


def _refiner_reply(body: dict) -> Reply:
    """Echo the suggestions back unchanged, the way a careful model would."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    listed = user.split("Suggestions to rewrite:", 1)[1]
    return text(json.dumps(json.JSONDecoder().raw_decode(listed[listed.index("{"):])[0]))


NARRATION = ("You stand in the ash and take a slow breath. The heat presses on you from every side. You keep your "
             "voice level and your hands in sight. Somewhere below, a drill shudders. You wait for what comes next.")
OTHER_NARRATION = ("You let the room settle around you. A fan rattles in its cage overhead. Somebody counts credits "
                   "out loud and loses track. The lift bell rings twice. You take your time.")


def test_a_recording_against_an_ollama_server_replays_without_it(tmp_path):
    folder = tmp_path / "loopback"
    inputs = ["look around", "/status", "talk to the bartender", "ask Rhea to join me", "go to Kettle Row"]
    with FakeOllama(models=["dir-m", "nar-m", "ref-m"]) as server:
        server.always("dir-m", text(json.dumps({"summary": "The bar waits.", "key_facts": ["Water is short."],
                                                "npc_intentions": [], "suggested_topics": []})))
        server.always("nar-m", taking_turns(NARRATION, OTHER_NARRATION))  # the same prose twice is a repeat
        server.always("ref-m", _refiner_reply)
        settings = Settings(llm="on", ollama_base_url=server.url, director_model="dir-m", narrator_model="nar-m",
                            suggestion_refiner_model="ref-m", llm_timeout_s=20)
        transport = recording_transport()
        llm = LLMClient(settings, transport=transport)
        session = Session.open(Path(":memory:"), llm, pack_id="cinder_reach", seed=7)
        session.recorder = Recorder(folder, session.pack, session.state, llm, transport,
                                    source=source_of(llm, scripted=False))
        try:
            for line in inputs:
                session.play(line)
        finally:
            session.close()
        models = {body["model"] for body in server.chat_requests()}
        url = server.url
    with pytest.raises(httpx.ConnectError):  # the server is stopped: nothing answers there any more
        httpx.get(f"{url}/api/tags", timeout=2)

    recording = read(folder)
    assert recording.header["source"] == "ollama:nar-m"
    assert recording.header["models"] == {"director": "dir-m", "narrator": "nar-m", "suggestion_refiner": "ref-m",
                                          "evaluator": "llama3.1:8b", "beat_classifier": "llama3.1:8b",
                                          "character": "llama3.1:8b", "moderator": "llama3.1:8b",
                                          "setup": "llama3.1:8b", "interpreter": "llama3.1:8b"}
    assert models == {"dir-m", "nar-m", "ref-m"}
    assert [t.input for t in recording.turns] == inputs
    assert recording.turns[1].exchanges == []  # META: no LLM calls
    assert all(t.outcome["llm_calls"][-2:] == ["narrator:ok", "suggestion_refiner:ok"]
               and set(t.outcome["llm_calls"][:-2]) <= {"director:ok"} for t in recording.turns if t.input != "/status")
    assert {x.role for x in recording.opening} == {"director"}  # the opening brief, written as the campaign began
    assert {x.request["model"] for t in recording.turns for x in [*recording.opening, *t.exchanges]} == {
        "dir-m", "nar-m", "ref-m"}
    report = replay(folder)
    assert report.ok, report.render()
    assert report.turns == 5


# ------------------------------------------------------------------------------------------- unreadable files


def test_unreadable_recordings_name_the_file_and_line(tmp_path):
    with pytest.raises(RecordingError, match=re.escape(f"{tmp_path / 'nothing'}: no recording here")):
        read(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RecordingError, match=re.escape(f"{tmp_path / 'empty' / FILE}: no recording here")):
        read(tmp_path / "empty")
    with pytest.raises(RecordingError, match="no recording here"):
        replay(tmp_path / "nothing")

    folder = shortened(ROOT / "data" / "recordings" / "frontier_day", tmp_path / "broken", 2)
    lines = (folder / FILE).read_text(encoding="utf-8").splitlines()
    (folder / FILE).write_text("\n".join([*lines[:2], '{"kind": "llm", "turn": 1, ', *lines[2:]]) + "\n",
                               encoding="utf-8")
    with pytest.raises(RecordingError, match=re.escape(f"{folder / FILE}:3: malformed line")):
        read(folder)

    (folder / FILE).write_text("\n".join([*lines[:2], '{"kind": "outcome"}']) + "\n", encoding="utf-8")
    with pytest.raises(RecordingError, match=re.escape(f"{folder / FILE}:3: malformed line (KeyError")):
        read(folder)

    (folder / FILE).write_text("\n".join([*lines[:2], '{"kind": "chatter", "turn": 1}']) + "\n", encoding="utf-8")
    with pytest.raises(RecordingError, match=re.escape(f"{folder / FILE}:3: unknown line kind 'chatter'")):
        read(folder)

    (folder / FILE).write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    with pytest.raises(RecordingError, match=re.escape(f"{folder / FILE}: no header line")):
        read(folder)


# ---------------------------------------------------------------------------------------- the scripted model


SCENE = """Location: The Scrip Market.
Time: day 1, 09:16
Present: Juno Farrow (water seller), Oda Brannock (scrip changer)
Player input: persuade juno to tell me why the water was cut
Outcome: SUCCESS. You persuade Juno Farrow.
Consequences: REPUTATION_CHANGE, QUEST_UPDATE
Director: beat a turn in the story; mood busy, morning. Keep it plain."""
SUGGESTIONS = {"suggestions": [
    {"label": "Ask Juno to trust you", "tone": "PARAGON", "risk": "RISKY"},
    {"label": "Ask Oda what the talk around here is", "tone": "INVESTIGATE", "risk": "SAFE"},
    {"label": "Threaten Oda until they talk", "tone": "RENEGADE", "risk": "RISKY"},
    {"label": "Talk to Juno Farrow", "tone": "NEUTRAL", "risk": "SAFE"}]}


def ask(model: ScriptedOllama, role: str, user: str, fmt: dict | None = None,
        extra: list[dict] | None = None) -> tuple[int, str, list[dict]]:
    body = {"model": "m", "messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": user},
                                       *(extra or [])], "stream": True, "format": fmt}
    response = httpx.Client(transport=model, base_url="http://scripted").post(
        "/api/chat", json=body, headers={ROLE_HEADER: role})
    if response.status_code != 200:
        return response.status_code, response.json()["error"], []
    lines = [json.loads(line) for line in response.text.splitlines()]
    return 200, "".join(line["message"]["content"] for line in lines), lines


DIRECTOR_SCENE = ("Location: The Scrip Market. A covered market.\nPresent: id juno_farrow: Juno Farrow, water broker. "
                  "Sharp.\nPresent: id oda_brannock: a scrip changer (not yet met: do not name them), scrip changer."
                  "\nAlready in the brief:\nKeep in mind:\n- Water is short.")


def test_scripted_narrator_writes_from_the_scene():
    model = ScriptedOllama(lambda: 1)
    status, narration, lines = ask(model, "narrator", SCENE)
    assert status == 200
    assert 5 <= len(prose.sentences(narration)) <= 7
    assert prose.second_person(narration)
    assert "Scrip Market" in narration and "Juno Farrow" in narration and "Oda" not in narration
    assert not prose.FAILURE_WORDS.search(narration)
    assert lines[-1]["done"] is True and lines[-1]["eval_count"] == len(narration.split())
    assert lines[-1]["prompt_eval_count"] == (len("rules") + len(SCENE)) // 4
    assert len(lines) > 3 and all(len(line["message"]["content"].split()) <= 4 for line in lines)
    assert ask(model, "narrator", SCENE)[1] == narration  # deterministic
    failed = ask(model, "narrator", SCENE.replace("SUCCESS. You persuade", "FAILURE. You try to persuade"))[1]
    assert failed != narration and not prose.SUCCESS_WORDS.search(failed)

    brief = json.loads(ask(model, "director", DIRECTOR_SCENE)[1])
    assert BriefDraft.model_validate(brief).summary.startswith("The Scrip Market")
    assert [i["npc_id"] for i in brief["npc_intentions"]] == ["juno_farrow"]
    assert brief["key_facts"] == ["Water is short."]
    # after a narrator's prompt (prompts.director_prompt with its head): the brief between the markers, with the parts
    # that read otherwise now in place of the same parts
    after = (f"The scene:\nLocation: The Scrip Market.\n\n{MARKER}\nScene: A market.\nKeep in mind:\n"
             f"- Water is short.\n- Dust.\nPeople:\n- Juno wants water.\n{END_MARKER}\n\nTurn 3 (look):\nYou look.\n\n"
             "Now you are the director.\nPresent: id juno_farrow: Juno Farrow, water broker.\n"
             "The brief now reads (in place of the same parts above):\nKeep in mind:\n- Water is rationed.\n"
             "Time: Haulday (day 1), 08:00")
    brief = json.loads(ask(model, "director", after)[1])
    assert brief["key_facts"] == ["Water is rationed.", "Juno wants water."]
    assert brief["summary"].startswith("The Scrip Market") and brief["npc_intentions"][0]["npc_id"] == "juno_farrow"


def test_scripted_refiner_keeps_tone_risk_and_names():
    model = ScriptedOllama(lambda: 1)
    user = f"{SCENE}\n\nSuggestions to rewrite:\n{json.dumps(SUGGESTIONS)}"
    reply = json.loads(ask(model, "suggestion_refiner", user, fmt={"type": "object"})[1])
    assert [(s["tone"], s["risk"]) for s in reply["suggestions"]] == [
        (s["tone"], s["risk"]) for s in SUGGESTIONS["suggestions"]]
    for new, old in zip(reply["suggestions"], SUGGESTIONS["suggestions"], strict=True):
        assert len(new["label"]) <= 80
        assert new["label"] == old["label"] or new["label"].lower().endswith(old["label"].lower())


def test_scripted_faults_and_their_once_variants():
    turn = [1]
    faults = {1: {"narrator": "http_500", "suggestion_refiner": "bad_schema_once"},
              2: {"narrator": "empty", "suggestion_refiner": "not_json"}}
    model = ScriptedOllama(lambda: turn[0], faults)
    user = f"{SCENE}\n\nSuggestions to rewrite:\n{json.dumps(SUGGESTIONS)}"
    assert ask(model, "narrator", SCENE)[0] == 500
    assert ask(model, "narrator", SCENE)[0] == 500  # every request of the role in the turn
    bad = json.loads(ask(model, "suggestion_refiner", user, fmt={"type": "object"})[1])
    assert bad["suggestions"][0]["tone"] == "HEROIC"
    feedback = [{"role": "assistant", "content": json.dumps(bad)},
                {"role": "user", "content": json.dumps({"result": "validation_failed"})}]
    fixed = json.loads(ask(model, "suggestion_refiner", user, fmt={"type": "object"}, extra=feedback)[1])
    assert [s["tone"] for s in fixed["suggestions"]] == ["PARAGON", "INVESTIGATE", "RENEGADE", "NEUTRAL"]
    assert ask(model, "director", SCENE)[0] == 200  # no fault for the director

    turn[0] = 2
    assert ask(model, "narrator", SCENE)[1] == ""
    not_json = ask(model, "suggestion_refiner", user, fmt={"type": "object"})[1]
    with pytest.raises(ValueError):
        json.loads(not_json)
    turn[0] = 3
    assert ask(model, "narrator", SCENE)[0] == 200


def test_scripted_model_lists_itself():
    reply = httpx.Client(transport=ScriptedOllama(lambda: 0), base_url="http://scripted").get("/api/tags")
    assert reply.status_code == 200 and reply.json()["models"][0]["name"] == "scripted"


def test_load_faults(tmp_path):
    assert load_faults(None) == {}
    good = tmp_path / "faults.yaml"
    good.write_text("3: {narrator: http_500}\n'4': {suggestion_refiner: bad_schema_once, director: empty}\n")
    assert load_faults(good) == {3: {"narrator": "http_500"},
                                 4: {"suggestion_refiner": "bad_schema_once", "director": "empty"}}
    for content in ("3: {narrator: on_fire}\n", "3: {poet: http_500}\n", "three: {narrator: empty}\n",
                    "- 3\n", "3: [narrator]\n", "3: {narrator: [unclosed\n"):
        bad = tmp_path / "bad.yaml"
        bad.write_text(content)
        with pytest.raises(ValueError, match=re.escape(str(bad))):
            load_faults(bad)
    with pytest.raises(ValueError, match="missing.yaml"):
        load_faults(tmp_path / "missing.yaml")


def test_record_refuses_a_bad_faults_file(tmp_path):
    bad = tmp_path / "faults.yaml"
    bad.write_text("3: {narrator: on_fire}\n")
    args = ["record", "--script", str(SCRIPTS / "bad_signal.txt"), "--out", str(tmp_path / "out"), "--faults", str(bad)]
    result = CliRunner().invoke(app, [*args, "--llm", "scripted"])
    assert result.exit_code == 2 and f"{bad}: turn 3: unknown fault 'on_fire'" in result.output
    result = CliRunner().invoke(app, [*args, "--llm", "off"])
    assert result.exit_code == 2 and "--faults needs --llm scripted" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["frontier_day", "union_business", "bad_signal", "hard_bargains"])
def test_the_fold_of_the_stored_log_is_the_committed_state(name):
    """Every shipped recording, replayed: folding its stored events from the initial state gives exactly the state
    Commit stored, field by field, and the events read back as the typed events that were staged."""
    from skald.core import events
    from skald.replay.recording import read
    from skald.store import reads

    campaign = read(ROOT / "data" / "recordings" / name).header["campaign"]

    def folds(engine) -> None:
        with engine.pool.connection() as conn:
            committed = reads.load_state(conn, campaign)
            log = reads.event_log(conn, campaign)
            initial = reads.initial_state(conn, campaign)
        pack = engine.packs.get(committed.campaign.pack_id)
        folded = events.replay_log(initial, log, events.limits_of(pack))
        assert log and all(isinstance(e, events.BaseEvent) for _, e in log)
        for field in ("player", "location", "world", "reputation", "companions", "known_npcs", "quests",
                      "arc_stage", "arc_stage_turn", "combat"):
            assert getattr(folded, field) == getattr(committed, field), field

    assert replay(ROOT / "data" / "recordings" / name, check=folds).ok
