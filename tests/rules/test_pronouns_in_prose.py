"""NPC pronouns come from the pack (``pronouns`` on an NPC or companion), not always "they": the offline narrator's
people and the scene characters' gestures use them; a pack without them still reads them from the description."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from skald.core.pack import Npc
from skald.core.records import PresentNpc, VoiceSheet
from skald.llm.offline.characters import _own
from skald.llm.offline.scene import _person
from skald.packs.loader import load_pack


def present(pack, npc_id: str) -> PresentNpc:
    npc = pack.npcs[npc_id]
    return PresentNpc(id=npc.id, name=npc.name, role=npc.role, description=npc.description)


def test_the_shipped_packs_name_every_persons_pronouns():
    for pack_id in ("saltmarsh_reach", "cinder_reach"):
        pack = load_pack(pack_id)
        assert all(p.pronouns for p in [*pack.npcs.values(), *pack.companions.values()]), pack_id


def test_the_narrator_uses_the_packs_pronouns_over_its_guess():
    pack = load_pack("saltmarsh_reach")
    assert (_person(present(pack, "odile_pask"), pack).their, _person(present(pack, "amos_tallowby"), pack).them) == (
        "her", "him")
    odile = pack.npcs["odile_pask"].model_copy(update={"pronouns": "they/them"})
    changed = pack.model_copy(update={"npcs": {**pack.npcs, "odile_pask": odile}})
    assert _person(present(changed, "odile_pask"), changed).their == "their"  # the description says "woman"


def test_a_characters_gesture_is_their_own():
    sheet = VoiceSheet(id="x", name="X", role="r", personality="p", background="b", pronouns="she/her")
    assert _own("shakes {poss} head, smiling", sheet) == "shakes her head, smiling"
    assert _own("snorts", sheet) == "snorts" and _own(None, sheet) is None


def test_pronouns_that_are_not_pronouns_are_a_pack_error():
    with pytest.raises(ValidationError, match="pronouns"):
        Npc(id="a", name="A", role="r", location="here", description="d", pronouns="she")


def test_no_line_of_the_offline_narrator_gives_someone_a_head_without_a_pronoun():
    from skald.llm.offline import characters, phrases

    tables = [v for v in vars(phrases).values() if isinstance(v, list | tuple)]
    tables += [t for v in vars(phrases).values() if isinstance(v, dict)
               for t in v.values() if isinstance(t, list | tuple)]
    tables += list(characters.GESTURES.values())
    lines = [line for table in tables for line in table if isinstance(line, str)]
    assert len(lines) > 100  # the tables were found
    assert not [x for x in lines if "tips a head" in x or "shakes a head" in x or "nods a head" in x]
