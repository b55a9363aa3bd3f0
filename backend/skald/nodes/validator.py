"""Narrative Validator node: deterministic checks that the prose matches the outcome and the world, and the two
repairs that keep a turn honest whatever the narrator wrote."""

from __future__ import annotations

from langgraph.runtime import Runtime

from skald.context import TurnContext
from skald.core.pack import EraPack
from skald.core.state import GameState
from skald.core.views import PROSE_REPLACED
from skald.llm import offline
from skald.llm.offline.dialogue import spoken_lines, woven
from skald.rules import brief as brief_rules
from skald.rules import dice, prose, setup, subjects


def known_names(state: GameState, pack: EraPack) -> frozenset[str]:
    """The pack's names and the scene's: the player, the people met, the people on stage."""
    before = state.before
    scene = {before.player.name} | {k.name for k in before.known_npcs.values()} | {p.name for p in state.present_npcs}
    return prose.pack_names(pack) | scene


def validator(state: GameState, runtime: Runtime[TurnContext]) -> dict:
    """Reads: final_text, mechanic_result, staged events, player, present_npcs, known_npcs, the scene brief.
    Writes: warnings; and final_text when it repairs the prose:
    - the model's prose (whole, or as far as it streamed) that contradicts the check (a failure told as a success, an
      impossible action told as done) is replaced by the offline narrator's, which states the outcome as the rules
      decided it. The player may have read it already: a custom stream event ``{"kind": "replace", "text": ...,
      "reason": ...}`` and a warning containing ``PROSE_REPLACED`` say it was replaced;
    - what the player's line asked about (a person, item, place or topic: ``rules.subjects``) that the rules'
      summary names and the prose names nowhere (by name, alias or role; a pronoun is not enough) is a fact left
      out like the next: the summary's sentences that name it are added, with a warning;
    - a fact the prose leaves out (HP lost or regained, money, items gained or lost) is added as a plain sentence
      ("You lose 3 HP."), so no change to the player is ever silent. The offline narrator is checked the same way;
    - a sentence that echoes the Director's brief (its marker, a field name or label), tells a secret it keeps, or
      says whether a rumor it keeps is true, is removed (``rules.brief.leaks``), with a warning;
    - a sentence with words the player's content limits keep out (``rules.setup.limit_pattern``: "no gore" keeps
      blood out too) is removed, with a warning (the outcome's own summary stays);
    - a scene line (``scene_lines``) whose words the prose does not carry verbatim is added, woven as the offline
      narrator weaves it, with a warning;
    - a fact the brief says this turn must convey and the prose leaves out (``rules.brief.unconveyed``) is added
      as it stands in the brief, with a warning (one repair pass: the facts are added once, never re-checked).
    Never halts the turn."""
    pack = runtime.context.pack
    text = state.final_text
    warnings = []
    result = state.mechanic_result
    replaced = ""  # why the model's prose was replaced, if it was
    if result is not None:
        conflicts = prose.outcome_conflicts(text, result)
        warnings += [f"validator: {w}" for w in conflicts]
        if conflicts and _streamed(state):
            rng = dice.rng_for(state.before.campaign.seed, "narrate", state.turn_key)
            text, _ = prose.clean_narration(offline.narrate(state, pack, rng),
                                            len(spoken_lines(state.scene_lines)))
            replaced = (f"validator: {PROSE_REPLACED} with the offline narrator's, which tells the outcome as "
                        "the rules decided it")
            warnings.append(replaced)
    brief = state.director_instructions.brief if state.director_instructions else None
    if brief is not None:  # the brief is for the narrator alone: its words, its secrets
        text, leaked = brief_rules.strip_leaks(text, brief)
        warnings += leaked
    avoid = setup.limit_pattern(state.before.player.profile.limits)
    if avoid is not None:  # what the player asked the story to leave out stays out, whatever the model wrote
        summary = result.summary if result is not None else None
        parts = prose.sentences(text)
        kept = [p for p in parts if p == summary or not avoid.search(p)]
        if len(kept) < len(parts):
            warnings.append(f"validator: removed {len(parts) - len(kept)} sentence(s) the player's content limits "
                            f"keep out ({', '.join(state.before.player.profile.limits)})")
            text = " ".join(kept)
    left_out = missing_lines(text, state)
    if left_out:  # a scene's lines are told verbatim, whatever the narrator made of them
        warnings.append(f"validator: prose left out {len(left_out)} scene line(s); added them in order")
        names = offline.scene_names(state, pack)
        text = " ".join([text, *(woven(line, names) for line in left_out)]).strip()
    asked = subjects.asked_facts(state.router_output, result.summary, state, pack) \
        if result is not None and state.router_output is not None else []
    unnamed = prose.missing_facts(text, asked)
    if unnamed:  # the answer is about what the player asked: the person, thing, place or topic is named in it
        told, what = list(dict.fromkeys(f.line for f in unnamed)), ", ".join(f.marks[0] for f in unnamed)
        warnings.append(f"validator: prose never names what the player asked about ({what}); added: " + " ".join(told))
        text = " ".join([text, *told]).strip()
    facts = prose.outcome_facts(state.staged_events, state.before.player.hp, state.before.player.max_hp, pack)
    missing = prose.missing_facts(text, facts)
    if missing:
        warnings.append("validator: prose left out what changed; added: " + " ".join(f.line for f in missing))
        text = " ".join([text, *(f.line for f in missing)]).strip()
    for item in brief_rules.unconveyed(text, brief) if brief is not None else []:  # one repair pass
        warnings.append(f"validator: prose did not convey what the brief required; added: {item}")
        text = f"{text} {item}".strip()
    if text and not prose.second_person(text):
        warnings.append("validator: prose is not in the second person")
    for name in prose.invented_names(text, known_names(state, pack)):
        warnings.append(f"validator: prose names {name!r}, which is not in the pack or the scene")
    if replaced:  # the final text, facts added: what the player should read instead of what streamed
        runtime.stream_writer({"kind": "replace", "text": text, "reason": replaced})
    update: dict = {"warnings": warnings} if warnings else {}
    return update | ({"final_text": text} if text != state.final_text else {})


def missing_lines(text: str, state: GameState) -> list:
    """This turn's scene lines whose words the prose does not carry verbatim (an interrupted line up to its cut)."""
    flat = " ".join(text.split())
    return [x for x in spoken_lines(state.scene_lines)
            if x.content and " ".join(x.content.rstrip("\u2014").split()) not in flat]



def _streamed(state: GameState) -> bool:
    """Whether the prose is the model's: the narrator's call streamed tokens (it may have broken off after them)."""
    return any(c.role == "narrator" and c.ttft_ms is not None for c in state.llm_calls)
