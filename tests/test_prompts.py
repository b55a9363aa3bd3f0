"""Prompt layout: static first (identical across turns, for prefix caching), the same start for every role and its
rules at the end, per-turn sections budgeted with history trimmed oldest first."""

from __future__ import annotations

from skald.core.brief import END_MARKER, MARKER
from skald.graph import run_turn
from skald.llm import prompts, tail
from skald.llm.budget import SectionKind, fit
from skald.rules import brief as brief_rules
from skald.text import estimate_tokens
from support import script_lines


def played(conn, campaign, pack, llm, turns):
    state = campaign
    states = []
    for line in [ln for ln in script_lines() if not ln.startswith("/")][:turns]:
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm)
        states.append(state)
    return states


def director_prompt(state, pack):
    """The director role's prompt for the scene ``state`` left the player in (as ``llm.briefs.write`` builds it)."""
    after = state.after
    base = brief_rules.offline_brief(after, pack, state.turn)
    return prompts.director_prompt(after, brief_rules.cast_at(after, pack), brief_rules.names_for(after, pack), pack,
                                   base)


def test_system_prompts_are_static_across_turns_share_their_start_and_end_with_the_rules(conn, campaign, pack,
                                                                                        offline_llm):
    states = played(conn, campaign, pack, offline_llm, 6)
    setting = f"Setting: {pack.era.name}, {pack.era.era}."
    for build, rules in ((prompts.narrator_prompt, prompts.NARRATOR_RULES), (director_prompt, prompts.DIRECTOR_RULES)):
        systems = {build(s, pack).system for s in states}
        assert len(systems) == 1  # byte-identical: Ollama can reuse the cached prefix every turn
        system = systems.pop()
        # every role starts alike (a machine with one cache slot reuses it across roles), and ends with its rules
        assert system.startswith(setting) and system.rstrip().endswith(rules)
    narrator = prompts.narrator_prompt(states[0], pack).system
    assert pack.era.style in narrator and "Style guide:" not in director_prompt(states[0], pack).system
    refiner = {prompts.refiner_prompt(s, pack, s.suggested_actions).system for s in states}
    assert len(refiner) == 1


def test_the_style_guide_is_carried_up_to_its_budget_paragraph_by_paragraph(pack):
    guide = prompts.style_guide(pack)
    assert guide.startswith(pack.era.style)
    assert estimate_tokens(guide) <= prompts.STYLE_TOKENS + 10
    whole = [d.body for _, d in sorted(pack.docs.items()) if d.meta.doc_type == "style"]
    kept = guide.split("\n\n")[1:]
    assert kept and all(any(p in doc for doc in whole) for p in kept)  # whole paragraphs, never cut
    assert prompts.style_overflow(pack) == max(0, estimate_tokens("\n\n".join([pack.era.style, *whole]))
                                               - estimate_tokens(guide))


def test_the_narrator_gets_the_actions_to_reword_last_and_its_lore_within_budget(conn, campaign, pack, offline_llm):
    [*_, state] = played(conn, campaign, pack, offline_llm, 4)
    prompt = prompts.narrator_prompt(state, pack)
    assert prompt.sections[-1].text.startswith(f"Actions to reword after {tail.MARKER}:")
    assert [line[3:] for line in prompt.sections[-1].text.splitlines()[1:]] == [
        s.label for s in state.suggested_actions]
    lore = [s for s in prompt.sections if s.kind == SectionKind.LORE]
    assert lore and sum(estimate_tokens(s.render()) + 1 for s in lore) <= prompts.LORE_TOKENS


def test_the_history_window_grows_by_a_turn_then_starts_anew_with_the_last_turn(conn, campaign, pack, offline_llm):
    states = played(conn, campaign, pack, offline_llm, 8)
    windows = [[s.rank for s in prompts.history_sections(st, prompts.HISTORY_BLOCK)] for st in states]
    for state, window in zip(states, windows, strict=True):
        assert 1 <= len(window) <= prompts.HISTORY_BLOCK and window[-1] == state.recent[-1].turn  # the last, always
    for before, after in zip(windows, windows[1:], strict=False):
        assert after[:-1] == before or len(after) == 1  # one turn added (the prefix holds), or the last alone
    assert any(len(w) == prompts.HISTORY_BLOCK for w in windows) and any(len(w) == 1 for w in windows[1:])


def test_per_turn_content_is_only_in_the_user_sections(conn, campaign, pack, offline_llm):
    [*_, state] = played(conn, campaign, pack, offline_llm, 5)
    prompt = prompts.narrator_prompt(state, pack)
    assert state.player_input not in prompt.system
    assert pack.locations[state.after.location].name not in prompt.system
    kinds = [s.kind for s in prompt.sections]
    assert kinds[0] == SectionKind.SCENE and SectionKind.HISTORY in kinds and SectionKind.LORE in kinds
    block = prompts.brief_block(state, pack)  # the director's brief is per-turn too: a user-side scene section
    assert block is not None and block.startswith(MARKER) and block.endswith(END_MARKER)
    assert [s.kind for s in prompt.sections if s.text == block] == [SectionKind.SCENE]
    assert state.director_instructions.brief.summary not in prompt.system
    directing = director_prompt(state, pack)
    assert state.player_input not in directing.system
    assert pack.locations[state.after.location].name not in directing.system


def test_a_small_budget_drops_the_oldest_history_first(conn, campaign, pack, offline_llm):
    [*_, state] = played(conn, campaign, pack, offline_llm, 8)
    prompt = prompts.narrator_prompt(state, pack)
    roomy = fit(prompt, "narrator", 8192, 420)
    assert roomy.stats.history_dropped == 0 and not roomy.warnings
    history = [s for s in prompt.sections if s.kind == SectionKind.HISTORY]
    tight = fit(prompt, "narrator", roomy.stats.total_tokens - 10 + 420, 420)
    assert tight.stats.history_dropped == 1 and tight.stats.lore_dropped == 0
    oldest = min(history, key=lambda s: s.rank)
    assert oldest.title not in tight.user and max(history, key=lambda s: s.rank).title in tight.user
    assert tight.warnings == [f"narrator: trimmed the prompt to fit {tight.stats.budget} tokens: dropped 1 history "
                              "and 0 lore section(s)"]


def test_an_unusable_index_falls_back_to_the_packs_own_documents(conn, campaign, pack, offline_llm):
    from skald.llm.lore import Retrieved

    [*_, state] = played(conn, campaign, pack, offline_llm, 3)
    without = prompts.narrator_prompt(state, pack)  # retrieval off: documents related to what is on stage
    broken = prompts.narrator_prompt(state, pack, Retrieved(warnings=["retrieval: the lore index is missing"]))
    titles = [s.title for s in without.sections if s.title.endswith(".md):")]
    assert titles and [s.title for s in broken.sections] == [s.title for s in without.sections]


def _prefix(fitted) -> str:
    """What a turn's prompt shares with the next one of its scene: the system text and the user message up to the
    turns so far (history changes every turn, and this turn's facts come last)."""
    return fitted.system + "\n\n" + fitted.user.split("\nTurn ")[0].split("This turn:")[0]


def test_each_roles_prompt_prefix_is_byte_identical_across_the_turns_of_a_scene(conn, campaign, pack, offline_llm):
    """Laid out static first, a scene's prompts share their head from turn to turn, so Ollama evaluates only what
    is new (its prompt cache keeps the longest common prefix)."""
    state, states = campaign, []
    for line in ("look around", "wait a while", "listen to the room", "wait a while", "sit down", "wait a while"):
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=offline_llm)
        states.append(state)
    assert len({s.after.location for s in states}) == 1  # one scene throughout
    settled = states[3:]  # by then Tobin has introduced himself, and the brief knows his name: the scene holds
    assert len({tuple(p.id for p in s.present_npcs) for s in settled}) == 1
    for build, role in ((prompts.narrator_prompt, "narrator"), (director_prompt, "director")):
        fitted = [fit(build(s, pack), role, 8192, 420) for s in settled]
        prefixes = {_prefix(f) for f in fitted}
        assert len(prefixes) == 1, role
        shared = len(prefixes.pop()) / min(len(f.system) + len(f.user) for f in fitted)
        assert shared >= 0.5, (role, shared)  # most of the prompt is reused from the turn before
    refiner = {fit(prompts.refiner_prompt(s, pack, s.suggested_actions), "suggestion_refiner", 4096, 320).system
               for s in states}
    assert len(refiner) == 1  # the refiner's prompt is all this turn's but for its system text


def test_the_directors_prompt_starts_with_the_narrators_of_the_turn_just_played(conn, campaign, pack):
    """The Director's brief of a scene is written after a turn played there (in the background): its request starts
    with that turn's narrator request byte for byte, system message included, up to the narrator's recent turns, so
    Ollama serves all of that from the narrator's cache, on one slot as on several. What only the Director reads
    comes after: the turn just played, then its task (the people by id, the time) last."""
    import json

    from skald.llm.client import ROLE_HEADER, LLMClient
    from skald.replay.scripted import ScriptedOllama
    from skald.replay.session import REPLAY_URL
    from skald.settings import Settings

    sent: list[tuple[str, list[dict]]] = []

    class Noting(ScriptedOllama):
        def handle_request(self, request):
            sent.append((request.headers[ROLE_HEADER], json.loads(request.content)["messages"]))
            return super().handle_request(request)

    llm = LLMClient(Settings(llm="on", ollama_base_url=REPLAY_URL, retrieval=False), online=True,
                    transport=Noting(lambda: 1), sleep=lambda seconds: None)
    state = campaign
    for line in ("look around", "talk to Hesper", "ask Hesper about the water", "wait a while"):
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=llm)
        assert llm.briefs.settle(30)
    briefed = 0
    for i, (role, messages) in enumerate(sent):
        if role != "director" or "Already in the brief:" in messages[-1]["content"]:
            continue  # a brief with no narrator prompt before it in its scene has a prompt of its own
        narrator = next(m for r, m in reversed(sent[:i]) if r == "narrator")
        head = narrator[-1]["content"].split("\n\nThis turn:")[0]
        assert messages[0] == narrator[0]  # the system message, byte for byte
        assert messages[-1]["content"].startswith(head + "\n\nTurn ")  # then the turn just played
        task = messages[-1]["content"][len(head):]
        assert prompts.DIRECTOR_AFTER_NARRATOR in task and "Present: id hesper_quill: " in task
        assert task.rstrip().splitlines()[-1].startswith("Time: ")
        briefed += 1
    assert briefed >= 1
    llm.close()


def test_the_brief_as_it_reads_now_is_given_where_it_differs_from_the_narrators():
    shown = "\n".join([MARKER, "Scene: The bar. A bartender is here.", "Keep in mind:", "- Dry.", "People:",
                        "- a bartender wants water (friendly toward the player).", END_MARKER])
    now = shown.replace("A bartender is", "Hesper Quill is").replace("- Dry.\n", "- Dry.\n- Hot.\n")
    assert prompts.brief_changes(shown, shown) == []
    assert prompts.brief_changes(shown, now) == ["Scene: The bar. Hesper Quill is here.", "Keep in mind:", "- Dry.",
                                                 "- Hot."]
    assert prompts.brief_changes(shown, shown.replace("Keep in mind:\n- Dry.\n", "")) == ["Keep in mind: none"]


def test_the_narrators_scene_part_holds_whoever_a_turn_is_about(conn, campaign, pack, offline_llm):
    """Turns that address one person, then another, and bring someone new on stage: the lore and the brief (the
    part before who is on stage) read the same on every turn of the scene, as long as the brief itself holds."""
    state, states = campaign, []
    for line in ("look around", "talk to Hesper", "talk to Tobin", "ask Hesper about the water", "talk to Rhea",
                 "wait a while", "ask Tobin about the drills", "ask Hesper about the rustwake", "nod at Tobin",
                 "smile at Hesper"):
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=pack, llm=offline_llm)
        states.append(state)
    assert len({s.after.location for s in states}) == 1
    heads: dict[str, set[str]] = {}
    about: dict[str, set[str | None]] = {}
    for s in states:
        block = prompts.brief_block(s, pack) or ""
        prompt = fit(prompts.narrator_prompt(s, pack), "narrator", 8192, 420)
        heads.setdefault(block, set()).add(prompt.user.partition("\n\nPresent: ")[0])
        about.setdefault(block, set()).add(s.director_instructions.focus_npc)
    assert all(len(h) == 1 for h in heads.values())
    assert any(len(people) > 1 for people in about.values())  # one brief, turns about different people, one head
    present = [prompts.present_line(s, pack) for s in states]
    names = [line.removeprefix("Present: ").split(", ") for line in present]
    for before, after in zip(names, names[1:], strict=False):  # in the pack's order: someone new never reorders it
        assert [n for n in after if n in before] == [n for n in before if n in after]


def test_a_rumor_heard_keeps_its_place_among_the_briefs_secrets():
    """The story of a rumor heard may be told and its truth is kept, in the place the untold story held."""
    from types import SimpleNamespace

    from skald.core import events as ev
    from skald.core.brief import Secret
    from skald.packs.loader import load_pack

    pack = load_pack("cinder_reach")
    rumors = list(pack.rumors.values())[:3]
    secrets = [Secret(text=brief_rules.end(r.text)[:300]) for r in rumors]
    heard = rumors[1]
    world = SimpleNamespace(known_rumors=[heard.id], public_rumors=[])
    later = SimpleNamespace(after=SimpleNamespace(world=world), staged_events=[])
    told = brief_rules._told(secrets, later, pack)
    assert [s.text for s in told][0::2] == [secrets[0].text, secrets[2].text]
    assert told[1] == brief_rules.verdict(heard.text, heard.true)
    now = SimpleNamespace(after=SimpleNamespace(world=SimpleNamespace(known_rumors=[], public_rumors=[])),
                          staged_events=[ev.RumorHeard(rumor=heard.id, source="hesper")])
    assert brief_rules._told(secrets, now, pack) == told  # heard this turn or before: the same brief


def test_what_a_turn_must_convey_is_in_its_prompt_once(conn, campaign, pack, offline_llm):
    for state in played(conn, campaign, pack, offline_llm, 8):
        user = fit(prompts.narrator_prompt(state, pack), "narrator", 8192, 420).user
        turn = user[user.index("This turn:"):]
        for item in state.director_instructions.brief.must_convey:
            assert turn.count(item.rstrip(".")) == 1, item


def test_a_characters_prompt_is_the_last_beats_with_lines_added(pack):
    """A character's prompt holds who they are and the scene's goal, place and cast, then the transcript window, then
    what changes every beat (how they feel, the beat): the prompt of a beat starts with the last beat's up to the end
    of its transcript while the window grows, and with everything before the transcript when it starts anew."""
    from skald.core.persistent import SceneLine
    from skald.core.records import CharacterTask, SceneUpdate
    from skald.rules import moderator, voice_sheet
    from skald.rules.start import new_state

    state = new_state(pack, seed=3)
    who = voice_sheet.sheet("tobin_marsh", state, pack)
    said: list[SceneLine] = []
    users = {}
    for beat in range(1, 5):
        said += [SceneLine(beat=beat, speaker="player", name="Wren", action="player", content=f"Round {beat}?"),
                 SceneLine(beat=beat, speaker="tobin_marsh", name="Tobin Marsh", content=f"Answer {beat}.")]
        update = SceneUpdate(scene_setting="Scene goal: settle the tab. Place: The Slag & Lantern, morning.",
                             scene_context=f'The player just said or did: "Round {beat}?".', beat=beat,
                             transcript=moderator.transcript_window(said[:-1], beat))
        task = CharacterTask(sheet=who.model_copy(update={"mood": ["calm", "pleased", "angry", "calm"][beat - 1]}),
                             update=update, seed=3, turn=beat, player="Wren", others={"hesper_quill": "Hesper Quill"})
        users[beat] = fit(prompts.character_prompt(task, pack), "character", 4096, 120).user
    head = {b: text.split("\n\nHow you feel")[0] for b, text in users.items()}
    assert users[2].startswith(head[1]) and users[3].startswith(head[2])  # the window grew: the prefix holds
    assert not users[4].startswith(head[3])  # it started anew at beat 3
    assert users[4].split("Recent:")[0] == users[3].split("Recent:")[0]  # who they are and the scene still hold
    assert users[1].index("Scene goal:") < users[1].index("Recent:") < users[1].index("How you feel")
