"""The scene brief's rules: when a scene changes (:func:`scene_key`), the deterministic brief (:func:`offline_brief`),
its per-turn parts (:func:`for_turn`), and the checks the validator runs on the prose (:func:`unconveyed`,
:func:`leaks`).

A scene is (location, the cast on stage, the fight, the active quests' stages, the running episode and its beat,
the world tick): any change to one of them is a new scene and a new brief; anything else (a roll, time passing
within a tick, a line of talk) reuses the scene's brief. The cast is everyone at the place
(``rules.scene.everyone_at``, met or not). The key a turn computes from the state after it equals the key of the
committed state, except on the turn an episode ends (the Director runs before the evaluator ends it): the next turn
is then in a new scene.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache

from skald.core import events as ev
from skald.core.brief import (
    BRIEF_TOKENS,
    FIELD_NAMES,
    LABELS,
    MARKER,
    BriefDraft,
    CompanionMood,
    Focus,
    NpcIntention,
    SceneBrief,
    Secret,
)
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.records import PresentNpc
from skald.core.state import GameState
from skald.core.vocab import QuestStatus
from skald.rules import clock, prose
from skald.rules.attitude import attitude
from skald.rules.scene import everyone_at
from skald.text import end, sentences, with_article

CONVEYED_SHARE = 0.5  # a must-convey fact is told when half its content words (by stem) are in the prose
LEAK_SHARE = 0.6  # a secret leaks when one sentence carries this share of its content words (at least 3)
VERDICT_WORDS = re.compile(r"\b(?:true|truth|false|lie|lies|lying|untrue|baseless|genuine|real|nonsense|rubbish|"
                           r"made up|confirm\w*|den(?:y|ies|ied))\b", re.IGNORECASE)
STOP = frozenset("""a an the and or but if of to in on at by for with from into onto over under up down out off as is
are was were be been being it its this that these those there here you your yours he him his she her hers they them
their theirs we us our i me my not no so than then too very can could will would shall should may might must do does
did done have has had what who whom which when where why how all any some each every one two about just only also
still yet again now""".split())


_ECHOES = (MARKER.lower(), *(n for n in FIELD_NAMES if n not in ("focus", "summary")), *LABELS)

# ------------------------------------------------------------------------------------------------- the scene key


def cast_at(state: PersistentState, pack: EraPack) -> list[PresentNpc]:
    """Who is where the player is: the people placed there (met or not), the strangers met there, the companions."""
    return everyone_at(state, pack, state.location)


def called(person: PresentNpc, state: PersistentState) -> str:
    """How the brief names someone: by name once the player has met them, else by role ("a bartender")."""
    return person.name if person.companion or person.id in state.known_npcs else with_article(person.role)


def names_for(state: PersistentState, pack: EraPack) -> dict[str, str]:
    """id -> how the brief names each person where the player is (:func:`called`)."""
    return {p.id: called(p, state) for p in cast_at(state, pack)}


def key_parts(state: PersistentState, pack: EraPack) -> dict[str, object]:
    """What makes a scene, as plain values (shown by ``--debug``)."""
    director = state.director
    return {
        "location": state.location,
        "cast": sorted(p.id for p in cast_at(state, pack)),
        "combat": state.combat.enemy_id if state.combat is not None else None,
        "quests": sorted(f"{q.id}:{q.stage}" for q in state.quests.values() if q.status == QuestStatus.ACTIVE),
        "episode": f"{director.episode}:{director.current_beat}" if director.episode else None,
        "tick": state.world.tick,
    }


def scene_key(state: PersistentState, pack: EraPack) -> str:
    """A short stable id of the scene ``state`` stands in (12 hex digits of a BLAKE2b of :func:`key_parts`)."""
    canonical = json.dumps(key_parts(state, pack), sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(canonical.encode(), digest_size=6).hexdigest()


# ------------------------------------------------------------------------------------------------- the offline brief


def offline_brief(state: PersistentState, pack: EraPack, turn: int) -> SceneBrief:
    """The deterministic brief of the scene ``state`` stands in, written on ``turn``: every field from the pack and
    the state, trimmed to :data:`~skald.core.brief.BRIEF_TOKENS`."""
    here = pack.locations[state.location]
    cast = cast_at(state, pack)
    locals_ = [p for p in cast if not p.companion]
    focus_npc = _focus(state, pack, locals_)
    opening = sentences(here.description)[:1] or [here.name]
    who = (f"{_names(locals_, state)} {'is' if len(locals_) == 1 else 'are'} here." if locals_ else
           "Nobody the player knows is about.")
    summary = [f"{here.name}, {clock.time_of_day(state.world.time_minutes)}: {_lower_first(opening[0])}", who]
    stakes = _stakes(state, pack)
    if stakes:
        summary.append(stakes)
    brief = SceneBrief.model_construct(
        generated_at_turn=turn, scene_key=scene_key(state, pack),
        focus=Focus(location=here.id, place=here.name, npc=focus_npc.id if focus_npc else None,
                    name=called(focus_npc, state) if focus_npc else None),
        summary=" ".join(sentences(" ".join(end(s) for s in summary))[:3])[:400],
        key_facts=_facts(state, pack, locals_)[:5], must_convey=[],
        npc_intentions=[_intention(p, state, pack) for p in _ranked(locals_, focus_npc)[:3]],
        companion_mood=None, suggested_topics=_topics(state, pack, locals_)[:3],
        do_not_reveal=_secrets(state, pack, locals_)[:3])
    return fit(brief)


def merge(base: SceneBrief, draft: BriefDraft, state: PersistentState, pack: EraPack) -> tuple[SceneBrief, list[str]]:
    """The model's draft over the deterministic brief: its summary, facts and topics; its intentions for people on
    stage, companions included, as the prompt listed them (attitudes stay the rules'). Returns the brief and
    warnings (intentions for people not on stage, dropped)."""
    cast = {p.id: p for p in cast_at(state, pack)}
    intentions: dict[str, NpcIntention] = {}
    warnings = []
    for item in draft.npc_intentions:
        if item.npc_id not in cast:
            warnings.append(f"director: the brief named {item.npc_id!r}, who is not on stage; dropped")
            continue
        intentions[item.npc_id] = NpcIntention(npc_id=item.npc_id, wants=item.wants.strip().rstrip("."),
                                               attitude=attitude(cast[item.npc_id], state))
    for item in base.npc_intentions:  # people the model left out keep the rules' line
        intentions.setdefault(item.npc_id, item)
    brief = base.model_copy(update={
        "summary": draft.summary.strip(), "key_facts": [f.strip() for f in draft.key_facts if f.strip()],
        "npc_intentions": list(intentions.values())[:3],
        "suggested_topics": [t.strip() for t in draft.suggested_topics if t.strip()] or base.suggested_topics})
    return fit(brief), warnings


def fit(brief: SceneBrief) -> SceneBrief:
    """``brief`` validated, cut to :data:`BRIEF_TOKENS` first by dropping its least needed items (topics, then key
    facts from the end, then secrets beyond the first, then intentions beyond the first)."""
    for field_name, keep in (("suggested_topics", 0), ("key_facts", 1), ("do_not_reveal", 1),
                             ("npc_intentions", 1), ("key_facts", 0)):
        while len(getattr(brief, field_name)) > keep and brief.tokens > BRIEF_TOKENS:
            brief = brief.model_copy(update={field_name: getattr(brief, field_name)[:-1]})
    return SceneBrief.model_validate(brief.model_dump())


def _focus(state: PersistentState, pack: EraPack, locals_: list[PresentNpc]) -> PresentNpc | None:
    """The person the scene turns on: one the current stage of an active quest needs, else the first one here."""
    wanted = {stage.when.npc for stage in _stages(state, pack)}
    return next((p for p in locals_ if p.id in wanted), locals_[0] if locals_ else None)


def _ranked(locals_: list[PresentNpc], focus: PresentNpc | None) -> list[PresentNpc]:
    return sorted(locals_, key=lambda p: p is not focus)


def _stages(state: PersistentState, pack: EraPack):
    """The current stage of each active quest, in the pack's order."""
    for quest_id, quest in pack.quests.items():
        held = state.quests.get(quest_id)
        if held is not None and held.status == QuestStatus.ACTIVE and held.stage < len(quest.stages):
            yield quest.stages[held.stage]


def _stakes(state: PersistentState, pack: EraPack) -> str | None:
    """What the scene is for: the running episode's premise, else the objective of a quest that points here."""
    episode = pack.episodes.get(state.director.episode or "")
    if episode is not None:
        return f"The episode: {_lower_first(sentences(episode.premise)[0])}" if episode.premise else None
    for stage in _stages(state, pack):
        if stage.when.location in (None, state.location):
            return f"The player is after this: {_lower_first(stage.objective)}"
    return None


def _facts(state: PersistentState, pack: EraPack, locals_: list[PresentNpc]) -> list[str]:
    here = pack.locations[state.location]
    facts = []
    on_stage = {p.id for p in locals_}
    for quest_id, quest in pack.quests.items():
        held = state.quests.get(quest_id)
        if held is None or held.status != QuestStatus.ACTIVE or held.stage >= len(quest.stages):
            continue
        stage = quest.stages[held.stage]
        if stage.when.location in (None, here.id) or stage.when.npc in on_stage:
            facts.append(f"{quest.title}: {end(stage.objective)}")
    if state.combat is not None:
        facts.append(f"A fight is on with {state.combat.enemy_name} ({state.combat.enemy_hp} HP left).")
    if here.faction and here.faction in pack.factions:
        faction = pack.factions[here.faction]
        facts.append(f"{faction.name} hold this place; the player's standing with them is "
                     f"{state.reputation.get(faction.id, 0):+d}.")
    facts += [f"Danger here: {end(h.description)}" for h in here.hazards[:1]]
    facts += [end(d) for d in here.details[:1]]
    return [f[:160] for f in facts]


def _intention(person: PresentNpc, state: PersistentState, pack: EraPack) -> NpcIntention:
    npc = pack.npcs.get(person.id)
    wants = npc.wants if npc is not None and npc.wants else None
    if wants is None and person.faction in pack.factions:
        wants = f"what the {_strip_the(pack.factions[person.faction].name)} want: " + _lower_first(
            pack.factions[person.faction].agenda.rstrip("."))
    if wants is None:
        wants = f"to get on with the work of {with_article(person.role)}"
    return NpcIntention(npc_id=person.id, wants=wants[:160], attitude=attitude(person, state))


def _topics(state: PersistentState, pack: EraPack, locals_: list[PresentNpc]) -> list[str]:
    topics = [pack.quests[q].title for q, held in state.quests.items()
              if held.status == QuestStatus.ACTIVE and q in pack.quests]
    here = state.location
    topics += [_short(pack.rumors[r].text) for r in state.world.known_rumors
               if r in pack.rumors and pack.rumors[r].location == here]
    topics += [pack.factions[p.faction].name for p in locals_ if p.faction in pack.factions]
    return list(dict.fromkeys(t[:80] for t in topics))


def _secrets(state: PersistentState, pack: EraPack, locals_: list[PresentNpc]) -> list[Secret]:
    """Rumors the scene may touch (told here, or about a faction on stage): the verdict of those the player may hear
    or has heard, and the very story of those not yet spread."""
    factions = {p.faction for p in locals_ if p.faction} | ({pack.locations[state.location].faction} - {None})
    heard = set(state.world.known_rumors) | set(state.world.public_rumors)
    out = []
    for rumor in pack.rumors.values():
        if rumor.location != state.location and rumor.faction not in factions:
            continue
        out.append(verdict(rumor.text, rumor.true) if rumor.public or rumor.id in heard else
                   Secret(text=end(rumor.text)[:300]))
    return out


def verdict(story: str, true: bool) -> Secret:
    """The secret of a rumor's truth: the story may be told, never whether it is true."""
    text = f"Whether it is true that {_lower_first(story.rstrip('.'))}: it is {'true' if true else 'false'}."
    return Secret(text=text[:300], about=story[:300])


# ------------------------------------------------------------------------------------------------- per turn


def for_turn(brief: SceneBrief, state: GameState, pack: EraPack) -> SceneBrief:
    """The scene's brief with this turn's parts: the facts the outcome requires (the check's summary, then what
    changed for the player, then what the turn set going), the party's mood, and the verdict of a rumor heard now."""
    after = state.after
    party = [c for c in after.party if c in pack.companions]
    mood = None
    if party:
        mood = CompanionMood(tension=after.world.tension, last_reaction=_reaction(state, pack) or (
            brief.companion_mood.last_reaction if brief.companion_mood else None))
    return fit(brief.model_copy(update={"must_convey": must_convey(state, pack), "companion_mood": mood,
                                        "do_not_reveal": _told(brief.do_not_reveal, state, pack)}))


def _told(secrets: list[Secret], state: GameState, pack: EraPack) -> list[Secret]:
    """The scene's secrets once the player has heard some of the rumors they keep: a rumor heard (this turn or
    before) is a story that may be told, and only its truth is kept. Each stays in its place, so the brief reads the
    same from turn to turn; a rumor heard now that the scene did not hold takes the last place."""
    heard = set(state.after.world.known_rumors) | set(state.after.world.public_rumors)
    now = [e.rumor for e in state.staged_events if isinstance(e, ev.RumorHeard) and e.rumor in pack.rumors]
    heard |= set(now)
    kept = {end(r.text)[:300]: r for r in pack.rumors.values()}
    out = [verdict(kept[s.text].text, kept[s.text].true)
           if s.about is None and s.text in kept and kept[s.text].id in heard else s for s in secrets]
    for rid in now:
        told = verdict(pack.rumors[rid].text, pack.rumors[rid].true)
        if all(s.about != told.about for s in out):
            out = [*out[:2], told]
    return out


def must_convey(state: GameState, pack: EraPack) -> list[str]:
    """At most 3 facts this turn's outcome requires the prose to tell."""
    items = [end(state.mechanic_result.summary)] if state.mechanic_result else []
    items += [f.line for f in prose.outcome_facts(state.staged_events, state.player.hp, state.player.max_hp, pack)]
    for event in state.staged_events:
        match event:
            case ev.CombatStart(enemy_name=name):
                items.append(f"{name} comes at you: a fight starts.")
            case ev.CompanionJoin(companion=cid) if cid in pack.companions:
                items.append(f"{pack.companions[cid].name} joins you.")
            case ev.Defeated():
                items.append("You go down.")
            case ev.QuestUpdate(quest=qid, stage=stage, status=status) if qid in pack.quests:
                quest = pack.quests[qid]
                if stage >= len(quest.stages):
                    items.append(f"{quest.title} is done.")
                elif status == QuestStatus.OFFERED:  # a job offered: what it is about, and that it is the player's
                    items.append(end(quest.summary))  # to take up
                else:  # taken up or a stage reached: what to do next
                    items.append(end(quest.stages[stage].objective))
    return [i[:200] for i in dict.fromkeys(items)][:3]


def _reaction(state: GameState, pack: EraPack) -> str | None:
    for event in reversed(state.staged_events):
        match event:
            case ev.CompanionActs(companion=cid, act=act) if cid in pack.companions:
                return f"{pack.companions[cid].name} acted: {act}"[:200]
            case ev.AffinityChange(companion=cid, delta=delta) if cid in pack.companions and delta:
                feeling = "approved of" if delta > 0 else "did not like"
                return f"{pack.companions[cid].name} {feeling} what the player just did"
    return None


# ------------------------------------------------------------------------------------------------- the prose checks


def unconveyed(text: str, brief: SceneBrief) -> list[str]:
    """The must-convey facts ``text`` does not tell: fewer than half of a fact's content words (compared by their
    first five letters, numbers whole) appear in it."""
    have = _stems(text)
    out = []
    for item in brief.must_convey:
        wanted = _stems(item)
        if wanted and len(wanted & have) / len(wanted) < CONVEYED_SHARE:
            out.append(item)
    return out


def _verdict(sentence: str, story: str) -> bool:
    """Whether ``sentence`` has a word of verdict the story itself does not ("false fires" in a rumor told as it goes
    is the rumor's, not a verdict on it)."""
    told = {w.lower() for w in VERDICT_WORDS.findall(story)}
    return any(w.lower() not in told for w in VERDICT_WORDS.findall(sentence))


def leaks(text: str, brief: SceneBrief) -> list[tuple[str, str]]:
    """(sentence, why) for each sentence of ``text`` that gives the brief away: its marker or a field name or label,
    a secret's story (most of its content words in one sentence), or a verdict on a story it keeps (the story and a
    word such as "true" or "lie" in one sentence)."""
    out = []
    for sentence in sentences(text):
        lowered = sentence.lower()
        marker = next((m for m in _ECHOES if m in lowered or m.replace("_", " ") in lowered), None)
        if marker is not None:
            out.append((sentence, f"it echoes the brief ({marker!r})"))
            continue
        have = _stems(sentence)
        for secret in brief.do_not_reveal:
            story = _stems(secret.about or secret.text)
            share = len(story & have) / len(story) if story else 0.0
            if secret.about is not None and share >= CONVEYED_SHARE and _verdict(sentence, secret.about):
                out.append((sentence, "it says whether a rumor is true"))
                break
            if secret.about is None and share >= LEAK_SHARE and len(story & have) >= 3:
                out.append((sentence, "it tells a secret the scene keeps"))
                break
    return out


def strip_leaks(text: str, brief: SceneBrief) -> tuple[str, list[str]]:
    """``text`` without its leaking sentences, and a warning for each."""
    found = leaks(text, brief)
    if not found:
        return text, []
    cut = {s for s, _ in found}
    kept = " ".join(s for s in sentences(text) if s not in cut)
    return kept, [f"validator: removed a sentence that {why}: {s[:60]!r}" for s, why in found]


@lru_cache(maxsize=4096)
def _stems(text: str) -> frozenset[str]:
    words = re.findall(r"[a-z]+|\d+", text.lower())
    return frozenset(w if w.isdigit() else w[:5] for w in words if w not in STOP and (w.isdigit() or len(w) > 2))


# ------------------------------------------------------------------------------------------------- wording


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    return text if first[:1].isupper() and first not in ("The", "A", "An", "It", "Some", "Every") and not (
        first.isupper()) and _looks_named(first) else text[:1].lower() + text[1:]


def _looks_named(word: str) -> bool:
    """A capitalised word that is not a sentence opener: kept capitalised ("Hesper", "Charter")."""
    return word.lower() not in STOP and word not in ("Find", "Ask", "Get", "Talk", "Go", "Take", "Bring", "Learn",
                                                     "Speak", "Meet", "Return", "Search", "Follow", "Win", "Make")


def _strip_the(name: str) -> str:
    return name[4:] if name.startswith("The ") else name


def _names(people: list[PresentNpc], state: PersistentState) -> str:
    named = [called(p, state) for p in people[:3]]
    more = len(people) - len(named)
    if more:
        return ", ".join(named) + f" and {more} more"
    text = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return text[:1].upper() + text[1:]


def _short(text: str) -> str:
    words = text.rstrip(".").split()
    return " ".join(words[:8]) + ("..." if len(words) > 8 else "")
