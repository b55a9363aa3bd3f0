"""Guided creation (issue 16): the conversation runner's phases and tool gating against the fake Ollama speaking
tool calls, validation-retry with the exact feedback, the fallbacks, ``skald new`` from a pipe and under a
pseudo-terminal, and the pronouns reaching the narrator's prompt and the offline prose."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fake_ollama import FakeOllama, text, tool_call
from skald import wallclock
from skald.engine import Engine
from skald.llm.client import LLMClient
from skald.llm.conversation import ConversationError, ConversationRunner, Phase
from skald.llm.setup_stages import character
from skald.packs.cache import PackCache
from skald.rules import setup
from skald.settings import Settings

SKALD = [sys.executable, "-m", "skald"]
GOOD = {"name": "Mara Venn", "pronouns": "she/her", "concept": "A surveyor who saw too much.",
        "background": "company_surveyor", "start_location": "scrip_market", "hook": "The union holds her debt.",
        "tone": "grim", "limits": ["gore"]}


def tools_of(body: dict[str, Any]) -> list[str]:
    return sorted(t["function"]["name"] for t in body.get("tools") or [])


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(models=["set", "nar", "dir", "ref"]) as fake:
        yield fake


def client(server: FakeOllama, **kw: Any) -> LLMClient:
    return LLMClient(Settings(ollama_base_url=server.url, llm="on", llm_timeout_s=30, retry_backoff_s=0.01,
                              retrieval=False, setup_model="set", **kw), online=True)


def runner(server: FakeOllama, pack, interactive: bool = True, **kw: Any) -> ConversationRunner:
    return ConversationRunner(client(server, **kw), character(pack), interactive=interactive)


# ------------------------------------------------------------------------------------ phases and tool gating


def test_discuss_runs_research_tools_then_ends_on_ready_to_summarize(server, pack):
    server.queue("set", tool_call("list_backgrounds"),
                 text("You could be an ex-Company surveyor. What name?"),
                 tool_call("ready_to_summarize", _content="Then we are set."),
                 text("Mara Venn, she/her, a surveyor who saw too much."),
                 tool_call("submit_character", **GOOD))
    talk = runner(server, pack)
    first = talk.say("someone who knows the land and the paperwork")
    assert first == "You could be an ex-Company surveyor. What name?" and talk.phase == Phase.DISCUSS
    asked = server.chat_requests("set")
    assert tools_of(asked[0]) == ["list_backgrounds", "list_companions", "list_factions", "list_locations",
                                  "lookup_lore", "ready_to_summarize"]  # no submit_character before Serialize
    fed = [m for m in asked[1]["messages"] if m["role"] == "tool"]
    assert fed and json.loads(fed[0]["content"])["value"][0]["id"] == "company_surveyor"  # executed, fed back
    talk.say("Mara Venn, she/her")
    assert talk.phase == Phase.SUMMARIZE  # the model called ready_to_summarize
    summary = talk.summarize()
    assert summary.startswith("Mara Venn") and tools_of(server.chat_requests("set")[-1]) == []
    sheet = talk.serialize()
    assert tools_of(server.chat_requests("set")[-1]) == ["submit_character"]
    assert sheet.name == "Mara Venn" and sheet.start_location == "scrip_market" and talk.phase == Phase.DONE
    assert all(c.role == "setup" and c.ok for c in talk.calls) and len(talk.calls) == 5
    system = server.chat_requests("set")[-1]["messages"][0]["content"]
    assert system.startswith("Call submit_character") and "Remember, now: Call submit_character" in system  # sandwich


def test_discuss_ends_on_done_and_on_max_turns(server, pack):
    server.always("set", text("Tell me more."))
    talk = runner(server, pack)
    talk.say("a smuggler")
    assert talk.say("/done") == "" and talk.phase == Phase.SUMMARIZE
    assert len(server.chat_requests("set")) == 1  # /done is not sent to the model
    direct = runner(server, pack, interactive=False)
    direct.say("a smuggler")
    assert direct.phase == Phase.SUMMARIZE  # one discuss turn in direct mode
    capped = ConversationRunner(client(server), character(pack), interactive=True, max_discuss_turns=3)
    for n in range(3):
        assert capped.phase == Phase.DISCUSS, n
        capped.say(f"detail {n}")
    assert capped.phase == Phase.SUMMARIZE


def settled(server, pack, said: str, reply: str) -> tuple[setup.CharacterSheet, str, list[str]]:
    """One line said, the model's summary ``reply``, the character submitted: (sheet, summary shown, warnings)."""
    server.queue("set", text("Tell me more."), text(reply), tool_call("submit_character", **GOOD))
    talk = runner(server, pack)
    talk.say(said)
    talk.summarize()
    sheet = talk.serialize()
    return sheet, *talk.checked_summary(sheet, pack)


@pytest.mark.parametrize(("reply", "shown"), [
    # a small model's habits go; the summary stands
    ("<think>She wants a surveyor.</think>Sure! Here is a summary:\n\n**Mara Venn** is a company surveyor who saw "
     "too much, and the union holds her debt.", "Mara Venn is a company surveyor who saw too much"),
    # a name the player gave is hers to use
    ("Mara Venn learned the trade from her aunt Dorrit Venn at the Scrip Market.", "aunt Dorrit Venn"),
])
def test_the_creation_summary_is_shown_without_a_models_habits(server, pack, reply, shown):
    _, summary, warnings = settled(server, pack, "Mara Venn, a surveyor; her aunt Dorrit taught her.", reply)
    assert shown in summary and warnings == []
    assert "<think>" not in summary and "Sure" not in summary and "**" not in summary


@pytest.mark.parametrize(("reply", "why"), [
    ("Mara Venn once served under Captain Ozymandias Hark, who taught her to kill.", "Ozymandias"),
    ("Mara Venn remembers the gore of the collapse, blood and bone in the dust.", "limits"),
    ("I'm sorry, but as an AI language model I can't help create this character.", "refusal"),
])
def test_a_creation_summary_that_invents_or_breaks_the_limits_gives_way_to_the_rules_own(server, pack, reply, why):
    sheet, summary, [warning] = settled(server, pack, "Mara Venn, a surveyor who saw too much. No gore, please.", reply)
    assert summary == setup.summary_of(sheet, pack)
    assert why in warning and warning.startswith("setup: the model's summary was not shown")


def test_a_bad_submission_gets_the_exact_feedback_and_the_second_passes(server, pack):
    bad = {k: v for k, v in GOOD.items() if k != "name"} | {"background": "pirate_king"}
    server.queue("set", text("Summary."), tool_call("submit_character", **bad), tool_call("submit_character", **GOOD))
    talk = runner(server, pack, interactive=False)
    talk.phase = Phase.SUMMARIZE
    talk.summarize()
    sheet = talk.serialize()
    assert sheet.name == "Mara Venn"
    sent = [m for m in server.chat_requests("set")[-1]["messages"] if m["role"] == "tool"]
    result = json.loads(sent[0]["content"])
    allowed = ", ".join(pack.backgrounds)
    assert result == {
        "result": "validation_failed",
        "issues": {
            "invalid": [{"field": "background", "provided": "pirate_king",
                         "problem": result["issues"]["invalid"][0]["problem"],
                         "requirement": f"a background id: one of {allowed}; "
                                        f"Literal[{allowed}]"}],
            "missing": [{"field": "name", "requirement": "the character's name: letters, spaces, apostrophes, "
                                                         "hyphens; at most 40; str"}],
            "unknown": []},
        "issue_count": 2,
        "action": "Call submit_character again with corrected data. Unknown fields may be typos."}
    assert result["issues"]["invalid"][0]["problem"].startswith("Input should be")


def test_a_model_that_never_submits_raises_and_the_player_stage_falls_back(server, pack, tmp_path):
    server.always("set", text("I would rather just chat."))
    talk = runner(server, pack, interactive=False)
    talk.direct("a smuggler")
    with pytest.raises(ConversationError, match="did not call submit_character") as info:
        talk.serialize()
    assert info.value.feedback["result"] == "tool_error" and "submit_character" in info.value.feedback["action"]
    assert len(server.chat_requests("set")) == 2 + 3  # discuss, summarize, and the role's 3 attempts
    from skald import creation as new

    said: list[str] = []
    engine, cid = new.run(tmp_path / "n.db", client(server), "cinder_reach", 4, False,
                          new.lines_of(iter(["Ada Quell", "he/him"])), said.append)
    state = engine.load(cid)
    engine.close()
    assert any("asking the questions instead" in s for s in said)
    assert state.player.name == "Ada Quell" and state.player.profile.pronouns == "he/him"


# ------------------------------------------------------------------------------------ the campaign it makes


def test_the_sheet_makes_the_campaign_and_its_first_memory(tmp_path, pack):
    engine = Engine(tmp_path / "s.db", llm=LLMClient(Settings(llm="off"), online=False), packs=PackCache(),
                    retriever=None)
    sheet = setup.CharacterSheet(**GOOD, boons=setup.Boons(credits=5, items=["patch_kit"]))
    made = engine.create_campaign("cinder_reach", seed=9, sheet=sheet, summary="You are Mara Venn.")
    state = engine.load(made.state.campaign.id)
    assert state.location == "scrip_market" and state.player.profile.limits == ["gore"]
    assert state.player.credits == pack.backgrounds["company_surveyor"].credits + 5
    assert state.player.inventory.get("patch_kit", 0) >= 1
    with engine.pool.connection() as conn:
        first = conn.execute("SELECT turn_number, summary FROM turn_memories WHERE campaign_id = ?",
                             (made.state.campaign.id,)).fetchall()
    assert [tuple(r) for r in first] == [(0, "Before the story: You are Mara Venn.")]
    engine.close()


def test_the_offline_chain_asks_the_backgrounds_own_questions(pack):
    draft: dict[str, Any] = {}
    asked = []
    answers = iter(["Mara Venn", "xe/xem/xyr", "2"])
    while left := setup.questions(pack, draft):
        asked.append(left[0].id)
        draft = setup.answer(draft, left[0], next(answers, ""))
    second = list(pack.backgrounds.values())[1]
    assert asked[:3] == ["name", "pronouns", "background"] and asked[-2:] == ["tone", "limits"]
    assert asked[3:-2] == [f"q:{q.id}" for q in second.questions] and second.questions
    sheet = setup.sheet_of(draft, pack)
    assert sheet.background == second.id and sheet.pronouns == "xe/xem/xyr"


# ------------------------------------------------------------------------------------ skald new


def _env(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("SKALD_")}
    return keep | {"SKALD_RETRIEVAL": "false", "SKALD_LOG_FILE": ""} | extra  # no log file in the working folder


def test_skald_new_offline_from_a_pipe(tmp_path):
    out = subprocess.run([*SKALD, "new", "-I", "--db", str(tmp_path / "p.db"), "--seed", "5"],
                         input="Mara Venn\nshe/her\n", capture_output=True, text=True, timeout=120,
                         env=_env(SKALD_LLM="off"))
    assert out.returncode == 0, out.stderr
    assert "Mara Venn (she/her)" in out.stdout and "Campaign cinder_reach-5-1 is ready." in out.stdout
    assert "Play it with: skald play --campaign cinder_reach-5-1" in out.stdout


def test_skald_new_with_a_model_from_a_pipe(tmp_path, server):
    server.always("set", lambda body: tool_call("submit_character", **GOOD) if body.get("tools") and tools_of(body) == [
        "submit_character"] else text("Mara Venn: a surveyor who saw too much, starting at the Scrip Market."))
    out = subprocess.run([*SKALD, "new", "-I", "--db", str(tmp_path / "m.db"), "--seed", "6"],
                         input="a disgraced surveyor who owes the union\n", capture_output=True, text=True,
                         timeout=120, env=_env(SKALD_LLM="on", SKALD_OLLAMA_BASE_URL=server.url,
                                               SKALD_SETUP_MODEL="set"))
    assert out.returncode == 0, out.stderr
    assert "Mara Venn (she/her), Ex-Company Surveyor." in out.stdout
    first = server.chat_requests("set")[0]["messages"][-1]["content"]
    assert first == "a disgraced surveyor who owes the union"


def test_skald_new_interactive_under_a_pseudo_terminal(tmp_path):
    main, child = pty.openpty()
    proc = subprocess.Popen([*SKALD, "new", "--db", str(tmp_path / "t.db"), "--seed", "7", "--no-play"],
                            stdin=child, stdout=child, stderr=child, env=_env(SKALD_LLM="off"), close_fds=True)
    os.close(child)
    seen = b""

    def until(mark: bytes, timeout: float = 60, times: int = 1) -> None:
        """Read until ``mark`` has been printed ``times`` times in all (a generous deadline, never a pace)."""
        nonlocal seen
        end = time.monotonic() + timeout
        while seen.count(mark) < times:
            left = end - time.monotonic()
            assert left > 0, seen.decode(errors="replace")[-800:]
            ready, _, _ = select.select([main], [], [], left)
            if ready:
                try:
                    seen += os.read(main, 4096)
                except OSError:
                    break
    try:
        until(b"character's name")
        os.write(main, b"Juno Ash\n")
        until(b"pronouns")
        os.write(main, b"he/him\n")
        until(b"Who were they before this?")
        until(b"  1. ")  # the choices, numbered
        until(b"> ")
        os.write(main, b"1\n")
        for _ in range(8):  # the background's questions, tone and limits: defaults, each once it is asked
            until(b"> ", times=seen.count(b"> ") + 1)
            os.write(main, b"\n")
        until(b"is ready.")
    finally:
        try:
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
            os.close(main)
    assert proc.returncode == 0
    assert b"Juno Ash (he/him)" in seen


# ------------------------------------------------------------------------------------ pronouns in play


@pytest.mark.parametrize(("said", "marks"), [("she/her", ("She is", "her")), ("he/him", ("He is", "him")),
                                             ("they/them", ("They are", "them")), ("xe/xem/xyr", ("Xe is", "xem"))])
def test_pronouns_reach_the_offline_prose(tmp_path, said, marks):
    engine = Engine(tmp_path / "o.db", llm=LLMClient(Settings(llm="off"), online=False), packs=PackCache(),
                    retriever=None)
    sheet = setup.CharacterSheet(**(GOOD | {"pronouns": said, "start_location": "slag_and_lantern"}))
    cid = engine.create_campaign("cinder_reach", seed=2, sheet=sheet).state.campaign.id
    asides = []
    for _ in range(30):
        text_ = engine.play_turn(cid, "drink at the bar quietly").view.text
        asides += [s for s in text_.split(". ") if any(m in s for m in ("not from round here", "asking questions all",
                                                                        " be. ", "business is any"))]
        if asides:
            break
    engine.close()
    assert asides, "no one spoke of the player in 30 turns"
    assert any(m in " ".join(asides) for m in marks), asides


def test_pronouns_and_limits_reach_the_narrator_prompt(tmp_path, server):
    server.always("nar", text("You stand at the bar. The room hums. Nobody looks up. The heat presses. You wait."))
    server.always("dir", text("{}")).always("ref", text("{}"))
    llm = client(server, narrator_model="nar", director_model="dir", suggestion_refiner_model="ref",
                 evaluator_model="ref", character_model="ref")
    engine = Engine(tmp_path / "n.db", llm=llm, packs=PackCache(), retriever=None)
    sheet = setup.CharacterSheet(**(GOOD | {"pronouns": "xe/xem/xyr"}))
    cid = engine.create_campaign("cinder_reach", seed=2, sheet=sheet).state.campaign.id
    engine.play_turn(cid, "look around")
    engine.close()
    prompt = server.chat_requests("nar")[-1]["messages"][-1]["content"]
    assert "Player character: Mara Venn, pronouns xe/xem/xyr" in prompt and "speak of xem as 'xe'" in prompt
    assert "Leave out of the story entirely: gore." in prompt and "Tone the player asked for: grim." in prompt


def test_a_reply_that_is_not_json_tool_arguments_is_a_validation_result(pack):
    from skald.llm.setup_stages import validate_character

    assert validate_character(pack, GOOD) is None
    result = validate_character(pack, GOOD | {"pronouns": "not pronouns at all"})
    assert result["result"] == "validation_failed" and result["issues"]["invalid"][0]["field"] == "pronouns"


# ------------------------------------------------------------------------------------ the designer stage

FERRYMAN = {"id": "jory_wade", "name": "Jory Wade", "role": "ferryman", "location": "long_causeway",
            "description": "A bitter ferryman who carries letters under the thwart for a penny more than the fare.",
            "disposition": "wary", "lines": ["Fare's a grey. Letters are extra, and I never saw them."]}


def _draft_server(server: FakeOllama, *submits: dict[str, Any]) -> None:
    queue = list(submits)

    def answer(body: dict[str, Any]) -> Any:
        if tools_of(body) == ["submit_npc"]:
            return tool_call("submit_npc", **(queue.pop(0) if queue else submits[-1]))
        if body.get("tools"):
            return text("A ferryman on the Long Causeway, wary, who smuggles letters. Shall I write him up?")
        return text("Jory Wade, a wary ferryman on the Long Causeway who smuggles letters.")
    server.always("set", answer)


def test_pack_draft_writes_an_overlay_that_validates(tmp_path, server):
    _draft_server(server, FERRYMAN | {"faction": "ghost_union", "location": "nowhere"}, FERRYMAN)
    out = subprocess.run([*SKALD, "pack", "draft", "npc", "a bitter ferryman who smuggles letters", "--pack",
                          "saltmarsh_reach", "-I", "--out", str(tmp_path / "drafts")], capture_output=True, text=True,
                         timeout=120, env=_env(SKALD_LLM="on", SKALD_OLLAMA_BASE_URL=server.url,
                                               SKALD_SETUP_MODEL="set"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "wrote npc 'jory_wade'" in out.stdout and "validates" in out.stdout
    written = (tmp_path / "drafts" / "npcs.yaml").read_text(encoding="utf-8")
    assert "jory_wade" in written and "extends: saltmarsh_reach" in (tmp_path / "drafts" / "era.yaml").read_text()
    checked = subprocess.run([*SKALD, "pack", "validate", str(tmp_path / "drafts")], capture_output=True, text=True,
                             timeout=120, env=_env(SKALD_LLM="off"))
    assert checked.returncode == 0, checked.stdout
    sent = [json.loads(m["content"]) for m in server.chat_requests("set")[-1]["messages"] if m["role"] == "tool"]
    refused = next(r for r in sent if r["result"] == "validation_failed")
    fields = {i["field"] for i in refused["issues"]["invalid"]}
    assert fields == {"location", "faction"} and refused["action"].startswith("Call submit_npc again")
    faction = next(i for i in refused["issues"]["invalid"] if i["field"] == "faction")
    assert faction["provided"] == "ghost_union" and "salt_see" in faction["requirement"]
    assert sum(1 for b in server.chat_requests("set") if tools_of(b) == ["submit_npc"]) == 2  # refused, then accepted


def test_pack_draft_stops_clearly_when_the_model_never_submits(tmp_path, server):
    server.always("set", text("I'd rather describe him in prose."))
    out = subprocess.run([*SKALD, "pack", "draft", "npc", "a ferryman", "--pack", "saltmarsh_reach", "-I", "--out",
                          str(tmp_path / "drafts")], capture_output=True, text=True, timeout=120,
                         env=_env(SKALD_LLM="on", SKALD_OLLAMA_BASE_URL=server.url, SKALD_SETUP_MODEL="set"))
    assert out.returncode == 1
    assert "did not call submit_npc with valid data after 3 attempt(s)" in out.stderr
    assert not (tmp_path / "drafts").exists()


def test_a_draft_may_not_reuse_an_id_of_the_pack(pack):
    from skald.packs import drafts

    taken = next(iter(pack.npcs))
    issues = drafts.check("cinder_reach", pack, "npc", FERRYMAN | {"id": taken, "location": "slag_and_lantern"})
    assert issues == [{"field": "id", "provided": taken, "requirement": "a new id",
                       "problem": "the pack already has an npc with this id"}]


# ------------------------------------------------------------------------------------ the API's setup sessions


def test_the_api_sets_up_a_campaign_with_the_packs_questions(tmp_path):
    from test_api import live

    with live(tmp_path / "api.db", llm=LLMClient(Settings(llm="off"), online=False)) as api:
        opened = api.client.post("/campaigns/setup", json={"pack": "cinder_reach", "seed": 4})
        assert opened.status_code == 201
        body = opened.json()
        assert body["mode"] == "questions" and body["question"]["id"] == "name"
        sid = body["setup_id"]
        for text_ in ("Mara Venn", "she/her", "2"):
            body = api.client.post(f"/setup/{sid}/messages", json={"text": text_}).json()
        assert body["question"]["id"].startswith("q:")  # the chosen background's own questions
        done = api.client.post(f"/setup/{sid}/finish")
        assert done.status_code == 201
        made = done.json()
        assert made["character"]["name"] == "Mara Venn" and made["character"]["pronouns"] == "she/her"
        auth = {"Authorization": f"Bearer {made['token']}"}
        turn = api.client.post(f"/campaigns/{made['campaign_id']}/turns", json={"input": "/status"}, headers=auth)
        assert turn.status_code == 200 and "Mara Venn (she/her)" in turn.json()["text"]
        assert api.client.post(f"/setup/{sid}/finish").status_code == 404  # closed
        assert api.client.post("/setup/nope/messages", json={"text": "hi"}).status_code == 404


def test_the_api_sets_up_a_campaign_with_the_model(tmp_path, server):
    from test_api import live

    server.always("set", lambda body: tool_call("submit_character", **GOOD) if tools_of(body) == [
        "submit_character"] else text("A surveyor, then. Anything the story must leave out?"))
    with live(tmp_path / "api.db", llm=client(server)) as api:
        body = api.client.post("/campaigns/setup", json={"pack": "cinder_reach"}).json()
        assert body["mode"] == "model" and body["phase"] == "discuss"
        reply = api.client.post(f"/setup/{body['setup_id']}/messages",
                                json={"text": "a disgraced surveyor"}).json()
        assert reply["reply"].startswith("A surveyor, then.")
        assert api.client.post(f"/setup/{body['setup_id']}/messages", json={"text": "/done"}).json()["phase"] == \
            "summarize"
        made = api.client.post(f"/setup/{body['setup_id']}/finish").json()
        assert made["character"]["start_location"] == "scrip_market" and made["summary"]
        assert made["state"]["location"] == "scrip_market"


def test_setup_sessions_expire_and_are_bounded(monkeypatch):
    from skald.api import setup as api_setup
    from skald.api.setup import NewSetup, SetupMessage, SetupSessions

    clock = wallclock.fixed("2031-02-03T04:05:06+00:00")
    engine = Engine(":memory:", llm=LLMClient(Settings(llm="off"), online=False), packs=PackCache(), retriever=None,
                    clock=clock)
    sessions = SetupSessions(engine)  # the engine's clock
    monkeypatch.setattr(api_setup, "MAX_SESSIONS", 3)
    ids = [sessions.open(NewSetup(pack="cinder_reach")).setup_id for _ in range(4)]
    with pytest.raises(Exception, match="no such setup session"):
        sessions.message(ids[0], SetupMessage(text="Mara"))  # the oldest was dropped for the fourth
    clock.advance(seconds=api_setup.IDLE_S + 1)
    with pytest.raises(Exception, match="no such setup session"):
        sessions.message(ids[3], SetupMessage(text="Mara"))  # expired
    fresh = sessions.open(NewSetup(pack="cinder_reach")).setup_id
    monkeypatch.setattr(api_setup, "MAX_MESSAGES", 2)
    sessions.message(fresh, SetupMessage(text="Mara"))
    sessions.message(fresh, SetupMessage(text="she/her"))
    with pytest.raises(Exception, match="at most 2 messages"):
        sessions.message(fresh, SetupMessage(text="more"))
    engine.close()


def test_content_limits_keep_words_out_of_the_prose(tmp_path, server):
    """A player who asked for no gore: the model's sentence with blood in it is removed (with a warning), and the
    offline narrator never picks one."""
    gory = ("You look around the bar. Blood pools under a stool where someone bled out last night. The regulars "
            "keep to their glasses. The heat presses on you. Nobody looks up.")
    server.always("nar", text(gory)).always("dir", text("{}")).always("ref", text("{}"))
    llm = client(server, narrator_model="nar", director_model="dir", suggestion_refiner_model="ref",
                 evaluator_model="ref", character_model="ref")
    engine = Engine(tmp_path / "g.db", llm=llm, packs=PackCache(), retriever=None)
    sheet = setup.CharacterSheet(**(GOOD | {"limits": ["gore"]}))
    cid = engine.create_campaign("cinder_reach", seed=2, sheet=sheet).state.campaign.id
    played = engine.play_turn(cid, "look around")
    engine.close()
    assert "Blood" not in played.view.text and "The regulars keep to their glasses." in played.view.text
    assert any("content limits keep out (gore)" in w for w in played.view.warnings)
    pattern = setup.limit_pattern(["gore"])
    from skald.llm.offline import phrases

    assert pattern.search("You taste blood.") and pattern.search(phrases.HURT_TOLD[5])


def test_the_question_chain_takes_choices_by_number_or_label_and_free_text_only_where_asked(pack):
    from skald.rules import setup as chain

    first = chain.questions(pack, {})
    name, pronouns, background = first[:3]
    assert name.takes_text and pronouns.takes_text and not background.takes_text
    assert all(q.required for q in (name, pronouns, background)) and not any(q.required for q in first[3:])
    assert background.default_label == pack.backgrounds[background.default].name  # a label, never the id
    assert all("_" not in o.label and o.about for o in background.options)
    draft = chain.answer({}, name, "Mara Venn")
    draft = chain.answer(draft, pronouns, "xe/xem")  # words of the player's own, where the question takes them
    assert draft["pronouns"] == "xe/xem" and not chain.may_finish(pack, draft)
    with pytest.raises(chain.NotAChoice, match="not one of the choices"):
        chain.answer(draft, background, "a wizard", strict=True)
    assert chain.answer(draft, background, "a wizard")["background"] == background.default  # a script's line
    second = next(iter(pack.backgrounds.values()))
    by_label = chain.answer(draft, background, second.name.upper(), strict=True)
    assert by_label["background"] == second.id and chain.may_finish(pack, by_label)


def test_the_apis_setup_refuses_a_non_choice_and_an_early_finish(tmp_path):
    from test_api import live

    with live(tmp_path / "api.db", llm=LLMClient(Settings(llm="off"), online=False)) as api:
        body = api.client.post("/campaigns/setup", json={"pack": "cinder_reach"}).json()
        sid = body["setup_id"]
        assert body["can_finish"] is False and body["question"]["free_text"] is True
        assert api.client.post(f"/setup/{sid}/finish").status_code == 409  # the name first
        for text_ in ("Mara Venn", ""):
            body = api.client.post(f"/setup/{sid}/messages", json={"text": text_}).json()
        question = body["question"]
        assert question["id"] == "background" and question["free_text"] is False
        assert question["choices"][0]["about"] and question["default_label"] == question["choices"][0]["label"]
        refused = api.client.post(f"/setup/{sid}/messages", json={"text": "a wizard"})
        assert refused.status_code == 422 and "not one of the choices" in refused.json()["detail"]
        again = api.client.post(f"/setup/{sid}/messages", json={"text": question["choices"][1]["label"]}).json()
        assert again["can_finish"] is True and again["question"]["id"].startswith("q:")  # nothing was lost
        made = api.client.post(f"/setup/{sid}/finish")
        assert made.status_code == 201 and made.json()["character"]["pronouns"] == "they/them"


def test_pronouns_that_are_no_pronouns_are_asked_again_not_taken(pack):
    from skald.rules import setup as chain

    name, pronouns_q = chain.questions(pack, {})[:2]
    draft = chain.answer({}, name, "Mara")
    with pytest.raises(chain.NotAChoice, match="does not read as pronouns"):
        chain.answer(draft, pronouns_q, "banana", strict=True)
    assert chain.answer(draft, pronouns_q, "banana")["pronouns"] == "they/them"  # a script's line: the default
    assert chain.answer(draft, pronouns_q, "ze/hir", strict=True)["pronouns"] == "ze/hir"


def test_a_setup_message_is_held_to_the_turn_budget_not_the_roles_timeout(tmp_path, server):
    """The setup model hangs mid-reply: the API's message answers once the turn budget is spent (the role's own
    timeout is ten minutes here), the session turns to the pack's questions with a warning, and nothing is lost."""
    from fake_ollama import Gate, held
    from test_api import live

    gate = Gate()
    server.always("set", held("A surveyor, then. What", gate, after=1))
    llm = client(server, turn_budget_s=3, setup_timeout_s=600)
    try:
        with live(tmp_path / "api.db", llm=llm) as api:
            body = api.client.post("/campaigns/setup", json={"pack": "cinder_reach"}).json()
            assert body["mode"] == "model"
            reply = api.client.post(f"/setup/{body['setup_id']}/messages", json={"text": "a surveyor"},
                                    timeout=120).json()
            assert gate.reached.is_set() and not gate.opened.is_set()  # the model was still holding its reply
            assert reply["mode"] == "questions" and reply["question"]["id"] == "name"
            assert any("stopped answering" in w and "turn budget" in w for w in reply["warnings"]), reply
    finally:
        gate.release()
