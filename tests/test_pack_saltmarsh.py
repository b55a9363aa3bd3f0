"""The Saltmarsh Reach pack: it loads, meets the content minimums, its map and people play well with the
router, and its 30-turn script plays offline end to end on a real SQLite file."""

from __future__ import annotations

import re

import pytest
from skald.engine import start_campaign
from skald.graph import run_turn
from skald.llm.client import LLMClient
from skald.packs.loader import PACKS_DIR, load_pack
from skald.rules.intent import classify
from skald.rules.start import new_state
from skald.settings import Settings
from skald.store import reads
from skald.store.db import connect
from support import ROOT, script_lines

PACK_ID = "saltmarsh_reach"
SCRIPT = ROOT / "data" / "scripts" / f"{PACK_ID}_30.txt"
SETTLED = {"bar", "street", "market", "office", "clinic", "bridge", "village", "hall", "works"}
ROUGH = {"wilds", "ruin", "mine"}


@pytest.fixture(scope="module")
def salt():
    return load_pack(PACK_ID)


# --- content minimums ------------------------------------------------------------------------------------------------


def test_documents_cover_lore_style_and_voices(salt):
    docs = salt.docs.values()
    assert len(salt.docs) >= 15
    by_folder = {folder: [d for d in docs if d.path.startswith(folder + "/")] for folder in ("lore", "style", "voices")}
    assert sum(map(len, by_folder.values())) == len(salt.docs)
    assert len(by_folder["style"]) >= 1 and len(by_folder["voices"]) >= 4 and len(by_folder["lore"]) >= 1
    expected = {"lore": "lore", "style": "style", "voices": "voice"}
    people = set(salt.npcs) | set(salt.companions)
    for folder, found in by_folder.items():
        for doc in found:
            assert doc.meta.doc_type == expected[folder], doc.path
            assert doc.meta.title and doc.meta.section_kind and doc.meta.tags and doc.meta.related, doc.path
            least = 1 if folder == "style" else 2  # a style document is held to the style guide's budget (pack lint)
            assert len([p for p in doc.body.split("\n\n") if p.strip()]) >= least, f"{doc.path}: a few paragraphs"
    assert len({p for d in by_folder["voices"] for p in d.meta.related if p in people}) >= 4
    assert any(set(d.meta.related) & set(salt.companions) for d in by_folder["voices"])
    assert len(salt.era.style) > 200


def test_banter_exchanges_are_named_lines_between_companions(salt):
    assert sum(len(b.lines) for b in salt.banter.values()) >= 10
    assert any(len(b.speakers) >= 2 for b in salt.banter.values())
    for banter in salt.banter.values():
        names = {salt.companions[c].name for c in banter.speakers}
        for line in banter.lines:
            speaker, _, text = line.partition(": ")
            assert speaker in names and text.strip(), f"{banter.id}: {line!r}"
    for comp in salt.companions.values():
        assert len(comp.banter) >= 4


def test_world_events_use_every_trigger_and_effect(salt):
    events = list(salt.events.values())
    assert any(e.trigger.every_ticks for e in events)
    assert any(e.trigger.chance < 1 for e in events)
    assert any(e.trigger.min_power for e in events)
    assert any(e.trigger.arc_stage for e in events)
    assert any(e.trigger.once for e in events)
    assert any(e.effects.faction_power for e in events)
    assert any(e.effects.rumor for e in events)
    assert any(e.effects.npc_moves for e in events)
    assert any(e.effects.stress for e in events)
    for event in events:
        assert event.locations or event.factions, event.id


def test_rules_start_and_defeat(salt):
    rules = salt.era.rules
    assert rules.starting.stress >= 1 and rules.starting.reputation
    assert len(salt.era.start_locations) >= 2
    assert salt.locations[rules.defeat.recover_location].type == "clinic"
    assert sum(item.heal > 0 for item in salt.items.values()) >= 2
    taverns = [loc for loc in salt.era.start_locations if salt.locations[loc].type == "bar"]
    assert taverns and salt.locations[taverns[0]].shop
    assert any(npc.role in ("innkeeper", "bartender") and npc.location in taverns for npc in salt.npcs.values())
    default = next(iter(salt.backgrounds.values()))
    assert default.start_location in taverns, "the default background starts in the tavern"


# --- the map ---------------------------------------------------------------------------------------------------------


def test_settlements_are_safe_and_the_wilds_are_not(salt):
    for loc in salt.locations.values():
        for link in loc.links:
            if loc.type in SETTLED and salt.locations[link.to].type in SETTLED:
                assert link.risk == "SAFE" and 5 <= link.minutes <= 90, f"{loc.id} -> {link.to}"
            else:
                assert link.risk != "SAFE" and 60 <= link.minutes <= 180, f"{loc.id} -> {link.to}"
        if loc.type in ROUGH:
            assert 1 <= len(loc.hazards) <= 2, loc.id
    assert sum(bool(loc.discoveries) for loc in salt.locations.values()) >= 8
    assert sum(bool(loc.shop) for loc in salt.locations.values()) >= 4


# --- people ----------------------------------------------------------------------------------------------------------


def test_people_have_unique_capitalised_names_and_hostiles_stay_in_the_wilds(salt):
    people = list(salt.npcs.values()) + list(salt.companions.values())
    names = [p.name for p in people]
    assert len(set(names)) == len(names)
    for person in people:
        parts = person.name.split()
        assert len(parts) == 2 and all(p[:1].isupper() for p in parts), person.name
    hostile = [n for n in salt.npcs.values() if n.disposition == "hostile"]
    assert hostile
    for npc in hostile:
        for place in [npc.location, *npc.roams]:
            assert salt.locations[place].type not in SETTLED, f"{npc.id} is hostile in {place}"
    for npc in salt.npcs.values():
        assert npc.location in npc.roams or not npc.roams


def test_companions_cover_every_way_of_joining(salt):
    comps = list(salt.companions.values())
    starts = set(salt.era.start_locations)
    assert any(c.location in starts and c.recruit.cost_credits == 0 and not c.recruit.min_reputation
               and c.recruit.requires_quest is None and c.recruit.min_affinity <= 0 for c in comps)


def test_quest_triggers_can_be_met_in_play(salt):
    for quest in salt.quests.values():
        for stage in quest.stages:
            when = stage.when
            assert when.location or when.npc or when.item, f"{quest.id}/{stage.id} has no condition"
            if when.npc:
                npc = salt.npcs[when.npc]
                assert not npc.roams, f"{quest.id}/{stage.id}: {npc.id} roams away from the objective"
                if when.location:
                    assert npc.location == when.location
        obtainable = {i for loc in salt.locations.values() for i in loc.shop} | {
            d.item for loc in salt.locations.values() for d in loc.discoveries if d.item}
        for stage in quest.stages:
            assert stage.when.item is None or stage.when.item in obtainable, f"{quest.id}: {stage.when.item}"


def test_names_and_places_route_as_the_player_means_them(salt):
    state = new_state(salt, seed=1)
    for person in list(salt.npcs.values()) + list(salt.companions.values()):
        here = state.model_copy(update={"location": person.location})
        for text in (f"Talk to {person.name}", f"talk to {person.name.split()[0]}",
                     f"talk to the {person.role.split()[-1]}"):
            routed = classify(text, here, salt)
            assert routed.intent == "TALK" and routed.target_npc == person.id, (text, routed.target_npc)
            assert routed.tone == "NEUTRAL", text
    tavern = next(loc for loc in salt.era.start_locations if salt.locations[loc].type == "bar")
    routed = classify("talk to the innkeeper", state.model_copy(update={"location": tavern}), salt)
    assert salt.npcs[routed.target_npc].role == "innkeeper"
    for origin in salt.locations:
        here = state.model_copy(update={"location": origin})
        for dest, loc in salt.locations.items():
            if dest != origin:
                routed = classify(f"go to {loc.name}", here, salt)
                assert (routed.action_class, routed.target_location) == ("TRAVEL", dest), (origin, loc.name)
        search = classify(f"Search {salt.locations[origin].name} for anything useful", here, salt)
        assert search.action_class == "INVESTIGATE" and search.target_npc is None, origin
        for item in salt.locations[origin].shop:
            routed = classify(f"buy {salt.items[item].name.lower()}", here, salt)
            assert (routed.action_class, routed.target_item) == ("BUY", item), (origin, item)


def test_the_pack_folder_holds_only_known_files():
    root = PACKS_DIR / PACK_ID
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    yaml_files = {f for f in files if "/" not in f}
    assert yaml_files <= {"era.yaml", "locations.yaml", "npcs.yaml", "factions.yaml", "companions.yaml",
                          "backgrounds.yaml", "rumors.yaml", "quests.yaml", "events.yaml", "banter.yaml",
                          "episodes.yaml", "scenes.yaml", "namebanks.yaml"}
    assert all(re.fullmatch(r"(lore|style|voices)/[a-z0-9_]+\.md", f) for f in files - yaml_files)


# --- the scripted session --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def session(salt, tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("saltmarsh") / "salt.db")
    llm = LLMClient(Settings(), online=False)
    state = start_campaign(conn, salt, seed=1, campaign_id="saltmarsh")
    states = []
    for line in script_lines(SCRIPT):
        state = run_turn(conn, state.model_copy(update={"player_input": line}), pack=salt, llm=llm)
        states.append(state)
    yield conn, states
    conn.close()


def test_the_script_has_thirty_turns_of_every_route():
    lines = script_lines(SCRIPT)
    assert len(lines) == 30
    assert any(line.startswith("/") for line in lines)


def test_thirty_scripted_turns_play_offline_and_are_stored(session):
    conn, states = session
    story = [line for line in script_lines(SCRIPT) if not line.startswith("/")]
    assert states[-1].campaign.turn_number == len(story)  # a /command is not a turn
    turns = reads.rendered_turns(conn, "saltmarsh")
    assert [t["turn_number"] for t in turns] == list(range(1, len(story) + 1))
    assert [t["input"] for t in turns] == story
    assert all(t["text"].strip() for t in turns)
    assert {t["intent"] for t in turns} == {"TALK", "ACTION"}


def test_the_script_reaches_the_key_beats(session, salt):
    conn, states = session
    events = reads.turn_events(conn, "saltmarsh")
    kinds = {e["type"] for e in events}
    assert {"COMPANION_JOIN", "MOVE", "WORLD_TICK", "COMBAT_START", "QUEST_UPDATE", "DISCOVERY"} <= kinds
    joined = {e["data"]["companion"] for e in events if e["type"] == "COMPANION_JOIN"}
    assert joined and all(salt.companions[c].recruit.cost_credits == 0 for c in joined)
    fights = [e for e in events if e["type"] == "COMBAT_START"]
    where = {s.campaign.turn_number: s.location for s in states}
    assert all(salt.locations[where[e["turn_number"]]].type not in SETTLED for e in fights)
    done = [e for e in events if e["type"] == "QUEST_UPDATE" and e["data"]["status"] == "completed"]
    assert done and done[0]["turn_number"] <= 12, "a quest from the tavern is done within a dozen turns"
    assert states[-1].player.hp > 0 and not states[-1].player.defeated
    visited = {e["data"]["to"] for e in events if e["type"] == "MOVE"}
    assert len(visited) >= 5
