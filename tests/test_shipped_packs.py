"""The standard every shipped era pack (not overlays) must meet: the content minimums of the era-pack issue, a
two-way connected map, a bar to start in, and names the engine understands."""

from __future__ import annotations

import pytest
from skald.core.vocab import ActionClass, Tone
from skald.packs.loader import available_packs, load_pack
from skald.packs.tools import reachable

BASE_PACKS = [p for p in available_packs() if not load_pack(p).layers]
ACTION_NAMES = {a.value for a in ActionClass}
TONE_NAMES = {t.value for t in Tone}


@pytest.fixture(scope="module", params=BASE_PACKS)
def pack(request):
    return load_pack(request.param)


def test_both_genres_ship():
    assert {"cinder_reach", "saltmarsh_reach"} <= set(BASE_PACKS)


def test_content_minimums(pack):
    assert len(pack.locations) >= 15 and len(pack.npcs) >= 25 and len(pack.factions) >= 4
    assert len(pack.companions) >= 4 and len(pack.backgrounds) >= 4 and len(pack.quests) >= 6
    assert len(pack.rumors) >= 20 and len(pack.events) >= 4 and len(pack.items) >= 12
    assert len(pack.docs) >= 15
    assert {d.meta.doc_type for d in pack.docs.values()} == {"lore", "style", "voice"}
    assert sum(len(b.lines) for b in pack.banter.values()) >= 10
    assert pack.era.style.strip()
    bank = pack.namebank
    assert len(bank.given) >= 12 and len(bank.family) >= 12 and len(bank.roles) >= 6 and len(bank.looks) >= 6
    assert sum(r.public for r in pack.rumors.values()) >= 3
    assert any(not r.public for r in pack.rumors.values()) and any(not r.true for r in pack.rumors.values())


def test_links_are_two_way_and_every_place_is_reachable(pack):
    for loc in pack.locations.values():
        for link in loc.links:
            back = [b for b in pack.locations[link.to].links if b.to == loc.id]
            assert back, f"{loc.id} -> {link.to} has no link back"
            assert (back[0].minutes, back[0].risk) == (link.minutes, link.risk), f"{loc.id} <-> {link.to}"
    for start in pack.era.start_locations:
        assert reachable(pack, {start}) == set(pack.locations), start


def test_the_first_start_is_a_bar_with_someone_behind_it(pack):
    start = pack.era.start_locations[0]
    assert pack.locations[start].type == "bar" and pack.locations[start].shop
    assert any(npc.role in ("bartender", "innkeeper") and npc.location == start for npc in pack.npcs.values())


def test_names_the_engine_reads_are_real(pack):
    for comp in pack.companions.values():
        assert set(comp.likes) | set(comp.dislikes) <= TONE_NAMES | ACTION_NAMES, comp.id
        assert set(comp.bonus) <= ACTION_NAMES, comp.id
    for quest in pack.quests.values():
        for stage in quest.stages:
            assert set(stage.when.action_classes) <= ACTION_NAMES, (quest.id, stage.id)
    names = [npc.name for npc in pack.npcs.values()] + [c.name for c in pack.companions.values()]
    assert len(set(names)) == len(names)


def test_every_way_of_recruiting_is_used(pack):
    recruits = [c.recruit for c in pack.companions.values()]
    assert any(r.cost_credits == 0 and not r.min_reputation and r.requires_quest is None and r.min_affinity <= 0
               for r in recruits)
    assert any(r.cost_credits > 0 for r in recruits)
    assert any(r.min_reputation for r in recruits) and any(r.requires_quest for r in recruits)


def test_episodes_start_short_use_every_mode_and_chain(pack):
    """A new player who only ever plays the first suggestion reaches the first episode's end within its budget, and
    every later episode is offered by another's ``next`` or starts by itself."""
    episodes = list(pack.episodes.values())
    assert len(episodes) >= 4
    assert {e.completion_mode for e in episodes} == {"open", "beat_gated", "turn_limited", "objective"}
    first = episodes[0]
    assert first.completion_mode in ("turn_limited", "beat_gated") and 6 <= (first.turn_budget or 0) <= 10
    assert first.starts_at.empty and first.next and set(first.next) <= set(pack.episodes)
    offered = {n for e in episodes for n in e.next}
    for episode in episodes[1:]:
        assert episode.id in offered or not episode.starts_at.empty, episode.id
    assert all(e.hook for e in episodes) and any(e.progress_visible for e in episodes)
    assert not pack.warnings
