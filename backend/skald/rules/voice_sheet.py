"""A scene character's voice sheet (``state.VoiceSheet``): who they are for their agent, from the pack.

Personality: the entry's ``personality`` (default: from their disposition). How they talk: ``speech`` (default: the
first paragraph of their voice document). Background: their description. Lines: the scene's own lines for them
(``scenes.yaml`` ``lines``), then their pack ``lines`` (a companion's ``banter``) and their voice document's sample
lines. Scene instructions: the ``scenes.yaml`` entry's ``instructions`` for them. Attitude and mood:
``rules.feelings``; disposition as the rules see it now (``rules.attitude``).
"""

from __future__ import annotations

import re

from skald.core.memo import per_pack
from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.records import PresentNpc, VoiceSheet
from skald.rules.attitude import attitude
from skald.rules.scene import cast_of

PERSONALITY = {"hostile": "hostile to strangers, quick to take offence", "wary": "wary, slow to trust",
               "neutral": "even-tempered, minding their own business", "friendly": "open and easy to talk to"}


@per_pack
def voice_docs(pack: EraPack) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Person id -> (the first paragraph of their voice document ``voices/*.md``, the sample lines of all their
    voice documents: ``Sample lines: "..." "..."``, each on one line), read once per pack version. The offline
    narrator's people (``llm.offline.scene.voices``) and the scene characters' sheets both read them here."""
    people = set(pack.npcs) | set(pack.companions)
    speech: dict[str, str] = {}
    samples: dict[str, list[str]] = {}
    for doc in pack.docs.values():
        who = [p for p in doc.meta.related if p in people][:1]
        if doc.meta.doc_type != "voice" or not who:
            continue
        body, found, tail = doc.body.partition("Sample lines:")
        speech.setdefault(who[0], " ".join(body.strip().split("\n\n")[0].split())[:300])
        if found:
            samples.setdefault(who[0], []).extend(" ".join(q.split()) for q in re.findall(r'"([^"]+)"', tail))
    return {cid: (speech[cid], tuple(samples.get(cid, ()))) for cid in speech}


def person(cid: str, state: PersistentState, pack: EraPack) -> PresentNpc:
    """The pack's NPC or companion ``cid`` as the rules see them on stage."""
    npcs, waiting, party = cast_of(pack)
    if cid in npcs:
        return npcs[cid]
    return party[cid] if cid in state.party else waiting[cid]


def sheet(cid: str, state: PersistentState, pack: EraPack, instructions: str = "",
          scene_lines: list[str] = ()) -> VoiceSheet:
    """The voice sheet of ``cid`` (a pack NPC or companion id) in ``state``; ``scene_lines`` (the scene's own lines
    for them, ``scenes.yaml`` ``lines``) come first among their lines."""
    entry = pack.person(cid)
    who = person(cid, state, pack)
    speech, samples = voice_docs(pack).get(cid, ("", ()))
    own = list(entry.lines) if hasattr(entry, "lines") else list(entry.banter)
    feeling = state.scenes.feelings.get(cid)
    disposition = attitude(who, state)
    return VoiceSheet(
        id=cid, name=entry.name, role=entry.role, personality=entry.personality or PERSONALITY[disposition],
        disposition=disposition, speech=entry.speech or speech, background=entry.description,
        traits=list(entry.traits), instructions=instructions,
        lines=list(dict.fromkeys([*scene_lines, *own, *samples])), scene_lines=list(scene_lines),
        attitude=feeling.attitude if feeling else 0, mood=feeling.mood if feeling else "calm",
        pronouns=entry.pronouns or "they/them")
