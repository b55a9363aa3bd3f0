"""A scene character's voice sheet (``state.VoiceSheet``): who they are for their agent, from the pack.

Personality: the entry's ``personality`` (default: from their disposition). How they talk: ``speech`` (default: the
first paragraph of their voice document). Background: their description. Lines: the scene's own lines for them
(``scenes.yaml`` ``lines``), then their pack ``lines`` (a companion's ``banter``) and their voice document's sample
lines. Scene instructions: the ``scenes.yaml`` entry's ``instructions`` for them. Attitude and mood:
``rules.feelings``; disposition as the rules see it now (``rules.attitude``).
"""

from __future__ import annotations

import re

from skald.packs.memo import per_pack
from skald.packs.models import EraPack
from skald.persistent import PersistentState
from skald.rules.attitude import attitude
from skald.rules.scene import cast_of
from skald.state import PresentNpc, VoiceSheet

PERSONALITY = {"hostile": "hostile to strangers, quick to take offence", "wary": "wary, slow to trust",
               "neutral": "even-tempered, minding their own business", "friendly": "open and easy to talk to"}


@per_pack
def _voice_docs(pack: EraPack) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Person id -> (the first paragraph of their voice document, its sample lines)."""
    people = set(pack.npcs) | set(pack.companions)
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for doc in pack.docs.values():
        who = [p for p in doc.meta.related if p in people][:1]
        if doc.meta.doc_type != "voice" or not who:
            continue
        body, _, samples = doc.body.partition("Sample lines:")
        first = " ".join(body.strip().split("\n\n")[0].split())
        out[who[0]] = (first[:300], tuple(" ".join(q.split()) for q in re.findall(r'"([^"]+)"', samples)))
    return out


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
    entry = pack.npcs.get(cid) or pack.companions[cid]
    who = person(cid, state, pack)
    speech, samples = _voice_docs(pack).get(cid, ("", ()))
    own = list(entry.lines) if hasattr(entry, "lines") else list(entry.banter)
    feeling = state.scenes.feelings.get(cid)
    disposition = attitude(who, state)
    return VoiceSheet(
        id=cid, name=entry.name, role=entry.role, personality=entry.personality or PERSONALITY[disposition],
        disposition=disposition, speech=entry.speech or speech, background=entry.description,
        traits=list(entry.traits), instructions=instructions,
        lines=list(dict.fromkeys([*scene_lines, *own, *samples])), scene_lines=list(scene_lines),
        attitude=feeling.attitude if feeling else 0, mood=feeling.mood if feeling else "calm")
