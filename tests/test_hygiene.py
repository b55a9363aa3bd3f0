"""Output hygiene (``llm.hygiene``): what real local models send never reaches a player as sent.

Two layers:

* the corpora of replies as small local models write them (``data/corpora/model_replies*.yaml``: reasoning blocks,
  preambles, sign-offs, markdown, labels, refusals, meta-talk, other languages, repeats, cut replies, JSON in fences),
  each with what the player must see. The holdout, fresh and third corpora were written by others who never saw the
  code, and measured before any tuning on them (85%, 64%, 70% right; see each corpus's header);
* the real ``ChatOllama`` client against the loopback server behaving as local models do: a thinking model, a
  server that refuses ``think`` for a model that cannot think, a refusal, a reply cut at ``num_predict``, a
  narrator repeating itself, a brief in another language.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_ollama import FakeOllama, Reply, json_reply, taking_turns, text
from skald.core.brief import BriefDraft
from skald.engine import start_campaign
from skald.llm import hygiene, tail
from skald.llm.client import REJECTED, LLMClient, LLMUnavailable
from skald.packs.loader import load_pack
from skald.rules import tag_line
from skald.settings import Settings
from skald.store.db import connect

CORPORA = Path(__file__).resolve().parents[1] / "data" / "corpora"
FILES = ("model_replies.yaml", "model_replies_holdout.yaml", "model_replies_fresh.yaml", "model_replies_third.yaml")
SAID_PLAIN = ("model_replies_fresh.yaml", "model_replies_third.yaml")  # a character's `clean` is its words alone
STRUCTURED = ("director", "suggestion_refiner", "interpreter", "structured")
NOT_THE_STORY = {"refusal", "meta"}  # two names for a reply that talks about the task instead of doing it


def _entries() -> list[Any]:
    return [pytest.param(name, row, id=row["id"]) for name in FILES
            for row in yaml.safe_load((CORPORA / name).read_text(encoding="utf-8"))]


def _norm(text: str | None) -> str:
    return " ".join((text or "").split())


def _spoken(text: str) -> str:
    return " ".join(_norm(q) for q in re.findall(r'["\u201c]([^"\u201c\u201d]*)["\u201d]', text or ""))


@pytest.fixture(scope="module")
def names() -> list[str]:
    packs = [load_pack(p) for p in ("saltmarsh_reach", "cinder_reach")]
    found = {n for p in packs for x in [*p.npcs.values(), *p.companions.values()] for n in (x.name, x.name.split()[0])}
    return sorted(found, key=len, reverse=True)


@pytest.mark.parametrize(("name", "row"), _entries())
def test_every_reply_of_the_corpora_is_cleaned_as_a_player_should_read_it(name: str, row: dict[str, Any],
                                                                       names: list[str]) -> None:
    if row["role"] in STRUCTURED:
        found, _ = hygiene.json_text(row["reply"])
        try:
            value = json.loads(found)
        except ValueError:
            value = None
        if value is not None and hygiene.foreign_values(value):
            value = None
        assert value == (row.get("json") if row["verdict"] == "usable" else None)
        return
    cleaned = hygiene.clean(row["reply"], role=row["role"], truncated=row.get("done_reason") == "length",
                            previous=row.get("previous") or "")
    verdict = row["verdict"]
    assert cleaned.verdict == verdict or {cleaned.verdict, verdict} <= NOT_THE_STORY, cleaned
    if verdict != "usable":
        assert cleaned.text == ""
    elif row["role"] == "character":  # what the character says, as the scene reads the line (rules.tag_line)
        speaker = next((n for n in names if n in row["reply"]), "")
        want = row["clean"] or ""
        want = _spoken(want) if name not in SAID_PLAIN or re.search(r'["\u201c]', want) else _norm(want)
        assert _norm(tag_line.parse(cleaned.text, speaker).content) == want
    else:
        assert _norm(cleaned.text) == _norm(row["clean"])


@pytest.mark.parametrize(("name", "row"), [p for p in _entries() if p.values[1]["role"] == "narrator"])
def test_a_streamed_reply_shows_only_what_the_whole_reply_keeps(name: str, row: dict[str, Any]) -> None:
    """Fed seven characters at a time: what reaches the player before the end is always the start of the cleaned
    reply, and nothing at all of a reply that turns out unusable."""
    shown: list[str] = []
    cleaner = hygiene.StreamCleaner(shown.append, role="narrator", previous=row.get("previous") or "")
    for i in range(0, len(row["reply"]), 7):
        cleaner.feed(row["reply"][i:i + 7])
    final = cleaner.close(truncated=row.get("done_reason") == "length")
    seen = "".join(shown)
    if final.usable:
        assert final.text.startswith(seen) and seen == cleaner.shown
    elif row["verdict"] != "wrong_language":  # a foreign reply may open with an English sentence (see below)
        assert seen == ""


def test_a_reply_that_turns_foreign_after_its_first_sentence_is_replaced_in_the_narration(tmp_path: Path) -> None:
    """The one case where the player may have read a sentence before the reply proved unusable: the narrator then
    replaces it (a ``replace`` event) with the offline narrator's prose, as for any unusable stream."""
    english = "You step off the punt and the mud takes your boot to the ankle."
    foreign = "泥地很软，芦苇在风中沙沙作响。远处有人在喊你的名字。你停下脚步，听着。天色渐暗，潮水正在上涨。"
    with FakeOllama(models=MODELS) as server:
        server.always("nar", text(f"{english} {foreign}", chunk_chars=16))
        server.always("ref", json_reply({"suggestions": []}))
        state, events = _turn(tmp_path, server, "look around")
    assert english not in state.final_text and "泥" not in state.final_text
    assert any(kind == "replace" for kind, _ in events)
    narrator = next(c for c in state.llm_calls if c.role == "narrator")
    assert not narrator.ok and REJECTED in (narrator.fallback_reason or "")


# -- the client against a server that behaves as local models do ---------------------------------------------------

MODELS = ["nar", "dir", "ref", "chr"]
STORY = ("You work the loose tile free with your thumbs. Beneath it lies a twist of oilcloth. Inside are two "
         "brass tokens and a note in a careful hand. Nobody at the bar looks your way.")


def _client(server: FakeOllama, **kw: Any) -> LLMClient:
    settings = Settings(ollama_base_url=server.url, llm="on", llm_timeout_s=30, retry_backoff_s=0.01, turn_budget_s=120,
                        narrator_model="nar", director_model="dir", suggestion_refiner_model="ref",
                        character_model="chr", **kw)
    return LLMClient(settings, clock=lambda: 1000.0)


def _turn(tmp_path: Path, server: FakeOllama, *lines: str) -> tuple[Any, list[tuple[str, Any]]]:
    from skald.graph import stream_turn

    pack = load_pack("cinder_reach")
    conn = connect(tmp_path / "h.db")
    state = start_campaign(conn, pack, seed=3, campaign_id="hygiene")
    llm = _client(server)
    events: list[tuple[str, Any]] = []
    try:
        for line in lines:
            events = list(stream_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm,
                                      retriever=None))
            state = events[-1][1]
    finally:
        conn.close()
    return state, [(k, p) for k, p in events if k in ("token", "replace")]


def test_thinking_is_turned_off_and_models_stay_loaded() -> None:
    with FakeOllama(models=MODELS, thinkers=("nar",)) as server:
        server.always("nar", Reply(content=STORY, thinking="The player searches. Outcome: success. Mention the note."))
        tokens: list[str] = []
        reply, call = _client(server).text("narrator", "s", "u", on_token=tokens.append)
        [body] = server.chat_requests("nar")
    assert body["think"] is False and body["keep_alive"] == "30m"  # as the role's settings say
    assert reply == STORY == "".join(tokens) and call.ok and call.habits == [] and call.reasoning is None


def test_a_thinking_model_left_to_its_default_has_its_reasoning_stripped_and_kept_for_the_record() -> None:
    with FakeOllama(models=MODELS, thinkers=("nar",)) as server:
        server.always("nar", Reply(content=STORY, thinking="Outcome is success. Keep it short.", chunk_chars=9))
        tokens: list[str] = []
        llm = _client(server)
        llm.configs["narrator"] = llm.configs["narrator"].model_copy(update={"think": None})  # the model's default
        reply, call = llm.text("narrator", "s", "u", on_token=tokens.append)
        [body] = server.chat_requests("nar")
    assert "think" not in body
    assert reply == STORY and "think" not in "".join(tokens) and "Outcome" not in "".join(tokens)
    assert "reasoning" in call.habits and call.reasoning == "Outcome is success. Keep it short."


def test_asked_to_think_the_reasoning_comes_apart_and_is_recorded() -> None:
    with FakeOllama(models=MODELS, thinkers=("nar",)) as server:
        server.always("nar", Reply(content=STORY, thinking="Short and plain."))
        reply, call = _client(server, narrator_think=True).text("narrator", "s", "u")
        [body] = server.chat_requests("nar")
    assert body["think"] is True and reply == STORY and call.reasoning == "Short and plain."


def test_a_server_that_refuses_think_for_a_model_that_cannot_think_is_asked_again_without_it() -> None:
    with FakeOllama(models=MODELS, strict_think=True) as server:
        server.always("nar", text(STORY))
        llm = _client(server)
        first, call = llm.text("narrator", "s", "u")
        second, _ = llm.text("narrator", "s", "u2")
        bodies = server.chat_requests("nar")
    assert first == second == STORY and call.ok and call.retries == 0
    assert ["think" in b for b in bodies] == [True, False, False]  # refused once, then never sent again


@pytest.mark.parametrize(("reply", "habit"), [
    ("Sure! Here is the narration for this turn:\n\n" + STORY + "\n\nWhat do you do next?", "preamble"),
    ("## The Slag & Lantern\n\n**Narrator:** " + STORY + "\n\nLet me know if you'd like me to continue!", "markdown"),
    ("<think>\nThe outcome is a success.\n</think>\n\n" + STORY, "reasoning"),
    (STORY + " (OOC: I kept it to four sentences.)", "ooc_note"),
], ids=["preamble_and_question", "markdown_label_signoff", "think_block", "ooc_note"])
def test_habits_never_reach_the_stream_nor_the_story(tmp_path: Path, reply: str, habit: str) -> None:
    with FakeOllama(models=MODELS) as server:
        server.always("nar", text(reply, chunk_chars=11))
        server.always("ref", json_reply({"suggestions": []}))
        state, events = _turn(tmp_path, server, "look around")
    streamed = "".join(p for k, p in events if k == "token")
    assert streamed == STORY and state.final_text.startswith(STORY)
    for mark in ("Sure", "Here is", "What do you do", "#", "**", "Narrator", "Let me know", "think", "OOC"):
        assert mark not in streamed and mark not in state.final_text
    narrator = next(c for c in state.llm_calls if c.role == "narrator")
    assert narrator.ok and habit in narrator.habits


def test_a_refusal_falls_back_to_the_rules_narration_and_says_why(tmp_path: Path) -> None:
    with FakeOllama(models=MODELS) as server:
        server.always("nar", text("I'm sorry, but as an AI language model I can't continue this story."))
        server.always("ref", json_reply({"suggestions": []}))
        state, events = _turn(tmp_path, server, "look around")
    assert "sorry" not in state.final_text and "AI" not in state.final_text and state.final_text
    assert not [p for k, p in events if k == "token"]  # nothing of it was ever shown
    narrator = next(c for c in state.llm_calls if c.role == "narrator")
    assert narrator.outcome == "fallback" and f"{REJECTED} (refusal)" in narrator.fallback_reason
    assert "refusal" in narrator.habits


def test_refusals_never_open_the_circuit() -> None:
    """The server answers: a reply hygiene refuses is a fallback, not a sign the model is down."""
    with FakeOllama(models=MODELS) as server:
        server.always("nar", text("I'm sorry, but I can't continue this story."))
        llm = _client(server)
        for n in range(5):
            with pytest.raises(LLMUnavailable, match=re.escape(f"{REJECTED} (refusal)")):
                llm.text("narrator", "s", f"u{n}")
        assert len(server.chat_requests("nar")) == 5 and llm.breakers["narrator"].allow()


def test_a_reply_cut_at_num_predict_ends_at_its_last_full_sentence() -> None:
    with FakeOllama(models=MODELS) as server:
        server.always("nar", Reply(content=STORY + " Then the door opens and a tall", done_reason="length"))
        reply, call = _client(server).text("narrator", "s", "u")
    assert reply == STORY and call.done_reason == "length" and "truncated" in call.habits


def test_a_narrator_telling_the_last_turn_again_is_refused(tmp_path: Path) -> None:
    with FakeOllama(models=MODELS) as server:
        server.always("nar", taking_turns(STORY, STORY.replace("two brass", "three brass")))  # all but the same
        server.always("ref", json_reply({"suggestions": []}))
        state, _ = _turn(tmp_path, server, "look around", "search the bar")
    narrator = next(c for c in state.llm_calls if c.role == "narrator")
    assert f"{REJECTED} (repeat)" in narrator.fallback_reason and "three brass" not in state.final_text


BRIEF = {"summary": "The bar is loud and short of water.", "key_facts": ["The taps run dry at noon."],
         "npc_intentions": [], "suggested_topics": ["the water"]}


def test_a_structured_reply_in_a_fence_with_commentary_and_comments_is_read() -> None:
    wrapped = ("Here is the scene brief as JSON:\n\n```json\n" + json.dumps(BRIEF, indent=2)[:-2] +
               ",  // all facts listed\n}\n```\n\nLet me know if you need changes.")
    with FakeOllama(models=MODELS) as server:
        server.always("dir", text(wrapped))
        value, call = _client(server).structured("director", BriefDraft, "s", "u")
    assert value.model_dump() == BriefDraft.model_validate(BRIEF).model_dump()
    assert {"code_fence", "json_commentary"} <= set(call.habits)


def test_a_structured_reply_in_another_language_falls_back() -> None:
    chinese = {"summary": "酒馆里很吵，水也不够。", "key_facts": ["中午水龙头就干了。"], "npc_intentions": [],
               "suggested_topics": ["水的问题"]}
    with FakeOllama(models=MODELS) as server:
        server.always("dir", json_reply(chinese))
        with pytest.raises(LLMUnavailable, match=re.escape(f"{REJECTED} (wrong_language)")):
            _client(server).structured("director", BriefDraft, "s", "u")


def test_a_character_answering_in_prose_says_only_its_words() -> None:
    line = hygiene.clean('Sure! Here is Hesper\'s line:\n\nHesper: *wipes the bar* "Two credits. Pay first."',
                         role="character")
    reply = tag_line.parse(line.text, "Hesper Quill")
    assert (reply.content, reply.nonverbal) == ("Two credits. Pay first.", "wipes the bar")
    assert {"preamble", "speaker_label"} <= set(line.habits)


# -- model text beyond hygiene: an episode's summary (rules.model_text) ---------------------------------------------

@pytest.mark.parametrize(("summary", "why"), [
    ("You walked into Kettle Row, married Hesper Quill and left a richer soul.", "it claims a marriage"),
    ("You pulled the core for Tobin and were crowned queen of the ash by the grateful miners.", "it claims a title"),
    ("You argued with Grimbold the Unwashed until the lamps went out.", "it names Grimbold"),
    ("You opened the foreman's throat and watched the blood pool on the ash.", "it touches what the player's limits"),
])
def test_a_summary_that_claims_what_never_happened_or_breaks_a_limit_is_refused(summary: str, why: str) -> None:
    from skald.rules import model_text
    from skald.rules.start import new_state

    pack = load_pack("cinder_reach")
    state = new_state(pack, seed=1)
    profile = state.player.profile.model_copy(update={"limits": ["no gore"]})
    state = state.model_copy(update={"player": state.player.model_copy(update={"profile": profile})})
    found = model_text.problems(summary, state, pack, "you pulled the core and tobin marsh paid you.", defeats=False)
    assert found and found[0].startswith(why), found
    assert model_text.problems("You pulled the core from the drill for Tobin Marsh, and he paid you in credits.",
                               state, pack, "you pulled the core and tobin marsh paid you.", defeats=False) == []


FOURTH = yaml.safe_load((CORPORA / "model_replies_fourth.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", FOURTH, ids=[f"fourth-{r['id']}" for r in FOURTH])
def test_a_strangers_narrator_replies_show_the_player_only_the_story(row: dict[str, Any]) -> None:
    """The fourth corpus, as the client reads a narrator's reply: split at its [ACTIONS] marker as it streams
    (``llm.tail``), the prose cleaned (``done_reason`` as Ollama reported it); a usable reply shows none of the habits
    the author listed, and an unusable one shows nothing."""
    splitter = tail.Splitter()
    prose = splitter.feed(row["reply"]) + splitter.close()
    cleaned = hygiene.clean(prose, role="narrator", truncated=row.get("done_reason") == "length")
    assert (cleaned.verdict == "usable") == (row["expect"] == "usable"), cleaned
    shown = cleaned.text if cleaned.usable else ""
    assert [s for s in row["must_not_show"] if s in shown] == []


@pytest.mark.parametrize("row", FOURTH, ids=[f"fourth-stream-{r['id']}" for r in FOURTH])
def test_a_strangers_narrator_replies_streamed_show_nothing_the_whole_reply_drops(row: dict[str, Any]) -> None:
    """The same replies fed seven characters at a time, as the client streams them: what the player saw before the
    end is the start of the cleaned reply (nothing of an unusable one), and none of the listed habits."""
    shown: list[str] = []
    cleaner, splitter = hygiene.StreamCleaner(shown.append, role="narrator"), tail.Splitter()
    for i in range(0, len(row["reply"]), 7):
        cleaner.feed(splitter.feed(row["reply"][i:i + 7]))
    cleaner.feed(splitter.close())
    final = cleaner.close(truncated=row.get("done_reason") == "length")
    seen = "".join(shown)
    assert final.text.startswith(seen) if final.usable else seen == ""
    assert [s for s in row["must_not_show"] if s in seen] == []
