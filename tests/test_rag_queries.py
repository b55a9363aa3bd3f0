"""Retrieval quality over the shipped packs: hand-written questions, each expecting a particular document (or, for
hooks, one of the quests and rumors telling that story) among the top 3 of the lane a node would ask.

The index is built once per session, with the default embedder (wordllama), into a temporary folder.
"""

from __future__ import annotations

import pytest
from skald.packs.loader import available_packs, load_pack
from skald.rag.embeddings import embedder
from skald.rag.retrieve import Retriever
from skald.rag.store import LoreIndex, ingest

C, S = "cinder_reach", "saltmarsh_reach"

# (pack, lane, question, expected source path)
DOC_QUERIES = [
    (C, "lore", "where do the poor people live on the slag heaps", "lore/slagside.md"),
    (C, "lore", "how are miners paid, company tokens and debt", "lore/scrip_and_debt.md"),
    (C, "lore", "who controls the water supply and the pipeline", "lore/the_wellkeepers.md"),
    (C, "lore", "secret radio broadcasts from the old mast", "lore/the_night_band.md"),
    (C, "lore", "how did the union start after the mine collapse", "lore/the_ninth_shift.md"),
    (C, "lore", "scavengers living among abandoned drilling machines", "lore/the_rustwake.md"),
    (C, "lore", "illegal water distilled from volcanic steam", "lore/the_fumaroles.md"),
    (C, "lore", "prospectors staking claims out on the ash plains", "lore/the_ash_country.md"),
    (C, "lore", "dust storms in the wilderness", "lore/the_ash_country.md"),
    (C, "lore", "ore trains climbing the wall to the dock", "lore/the_railhead.md"),
    (C, "lore", "lamps lit for miners who never came back", "lore/the_lamplight_chapel.md"),
    (C, "lore", "history of the mining company and its charter", "lore/the_charter_years.md"),
    (C, "lore", "the main street on the cliff and the guard rail", "lore/kettle_row.md"),
    (C, "style", "how do workers talk, slang and dialogue", "style/how_kettle_talks.md"),
    (C, "style", "pacing of danger and describing the gas giant in the sky", "style/pacing_and_the_sky.md"),
    (C, "voice", "a bartender who trades in information", "voices/hesper_quill.md"),
    (C, "voice", "soft-spoken water boss who never threatens directly", "voices/silas_mourne.md"),
    (C, "voice", "nervous radio broadcaster who loves numbers", "voices/idris_vell.md"),
    (C, "voice", "fast-talking scrounger at the docks", "voices/fitch_navarro.md"),
    (C, "voice", "loud rigger who jokes about machinery", "voices/rhea_calloway.md"),
    (C, "voice", "barrel warden patient with children", "voices/marisol_venn.md"),
    (S, "lore", "who smuggles salt through the reed channels", "lore/the_neap_company.md"),
    (S, "lore", "why do the causeway lamps keep going out", "lore/the_wick_guild.md"),
    (S, "lore", "catching and smoking eels", "lore/eels_and_eeling.md"),
    (S, "lore", "the bell that rings in the sunken abbey", "lore/the_drowned_abbey.md"),
    (S, "lore", "what money do people use, coins and tokens", "lore/coin_and_reckoning.md"),
    (S, "lore", "the bishop's tax on salt", "lore/the_third_tithe.md"),
    (S, "lore", "ghostly lights over the marsh that lead travellers astray", "lore/wandering_glims.md"),
    (S, "lore", "the village assembly under the willow tree", "lore/the_fen_commons.md"),
    (S, "lore", "the town on stilts by the river and its toll bridge", "lore/sallowford.md"),
    (S, "lore", "boiling sea water into salt", "lore/the_brine_pans.md"),
    (S, "style", "how should the narrator describe the wet grey weather", "style/narration.md"),
    (S, "style", "local idioms, oaths and how fen folk speak", "style/speech_of_the_reach.md"),
    (S, "voice", "an innkeeper who calls everyone love", "voices/odile_pask.md"),
    (S, "voice", "a smuggler captain who speaks softly and politely", "voices/rafe_lusk.md"),
    (S, "voice", "a friar who jokes about scripture and tide tables", "voices/tobiah_quaintance.md"),
    (S, "voice", "lamplighter who talks about lamps like family", "voices/sabine_loveday.md"),
    (S, "voice", "a loud eeler who lost her punt", "voices/ottilie_crewe.md"),
    (S, "voice", "a quiet pilot who guides boats through the reeds", "voices/lowry_dunlin.md"),
    (S, "voice", "gruff guild mistress with singed eyebrows", "voices/ysmay_thorne.md"),
]

# (pack, question, acceptable hook ids: the quest and the rumors telling that story)
HOOK_QUERIES = [
    (C, "an old mining machine has come back to life", {"quests.yaml#dead_drill", "rumors.yaml#waking_drills"}),
    (C, "the bar's water delivery keeps coming up short", {"quests.yaml#short_pour"}),
    (C, "water tanks vanished from the dock manifest", {"quests.yaml#quiet_cargo", "rumors.yaml#missing_tanks"}),
    (C, "the scales that weigh the ore are rigged", {"quests.yaml#crooked_scales", "rumors.yaml#rigged_scales"}),
    (C, "someone is sabotaging the train brakes", {"rumors.yaml#brakes_cut"}),
    (C, "the company wants to sell the clinic", {"rumors.yaml#clinic_sold"}),
    (S, "someone is cutting the eel traps", {"quests.yaml#empty_traps", "rumors.yaml#ula_empties_traps"}),
    (S, "the toll box on the bridge is being robbed", {"quests.yaml#short_box", "rumors.yaml#toll_box_skimmed"}),
    (S, "false lights luring ships onto the flats", {"rumors.yaml#ships_lured"}),
    (S, "treasure in the flooded abbey", {"rumors.yaml#abbey_silver"}),
    (S, "who is putting out the causeway lamps", {"quests.yaml#the_dark_mile",
                                                  "rumors.yaml#lamps_doused_deliberately"}),
    (S, "the inn's pickling salt was seized by the reeve", {"quests.yaml#salt_for_the_pickle",
                                                            "rumors.yaml#odile_paid_tithe"}),
]


@pytest.fixture(scope="session")
def retriever(tmp_path_factory) -> Retriever:
    packs = [load_pack(pack_id) for pack_id in available_packs()]
    index = LoreIndex(tmp_path_factory.mktemp("rag") / "chroma", embedder("wordllama"))
    ingest(index, packs)
    return Retriever(index, packs)


def _top3(retriever: Retriever, pack: str, lane: str, query: str) -> list[str]:
    found = retriever.lane(lane, pack, query, k=3, budget=None)
    hits = found.hits
    assert not found.warnings
    return [hit.source_path for hit in hits]


@pytest.mark.parametrize(("pack", "lane", "query", "expected"), DOC_QUERIES,
                         ids=[f"{p}-{lane}-{q}" for p, lane, q, _ in DOC_QUERIES])
def test_document_in_top_3(retriever, pack, lane, query, expected):
    assert expected in _top3(retriever, pack, lane, query)


@pytest.mark.parametrize(("pack", "query", "expected"), HOOK_QUERIES,
                         ids=[f"{p}-hook-{q}" for p, q, _ in HOOK_QUERIES])
def test_hook_in_top_3(retriever, pack, query, expected):
    hits = retriever.hooks(pack, query, k=3, budget=None).hits
    ids = {hit.id.removeprefix(f"{pack}:") for hit in hits}
    assert ids & expected, ids


def test_entities_on_stage_pull_their_documents_first(retriever):
    hits = retriever.lore(C, "what is going on around here", entities=["marisol_venn"], k=3, budget=None).hits
    assert hits[0].source_path == "lore/slagside.md"
    hits = retriever.lore(S, "tell me about this place", entities=["ysmay_thorne"], k=3, budget=None).hits
    assert hits[0].source_path == "lore/the_wick_guild.md"


def test_voice_lane_by_speaker(retriever):
    hits = retriever.voice(C, ["hesper_quill", "silas_mourne"], k=1, budget=None).hits
    assert [h.source_path for h in hits] == ["voices/hesper_quill.md", "voices/silas_mourne.md"]
    assert [h.source_path for h in retriever.voice(S, ["rafe_lusk"], k=1).hits] == ["voices/rafe_lusk.md"]


def test_overlay_pack_has_its_base_documents(retriever):
    assert "lore/the_night_band.md" in _top3(retriever, "cinder_reach_nightshift", "lore",
                                             "secret radio broadcasts from the old mast")


def test_every_shipped_document_is_indexed(retriever):
    for pack_id in (C, S):
        pack = load_pack(pack_id)
        collection = retriever.index.collection(pack_id)
        paths = {meta["path"] for meta in collection.get(include=["metadatas"])["metadatas"]}
        assert set(pack.docs) <= paths and {"quests.yaml", "rumors.yaml"} <= paths
