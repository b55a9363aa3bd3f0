"""Place names in running prose: a location's optional ``prose_name`` ("the Cistern Yard") is how every sentence the
rules and the offline narrator write names it; without one, ``skald.text.the_place``'s rule decides. Every location
of every shipped pack reads right in "You walk into ...", and as the pack's own prose names it mid-sentence."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from pydantic import ValidationError
from skald.core.pack import Location
from skald.packs.loader import PACKS_DIR, available_packs, load_pack, pack_layers
from skald.rules import checks, episodes, intent, setup
from skald.rules.start import new_state
from skald.text import place_at_start, the_place

MINI = Path(__file__).resolve().parent / "fixtures" / "packs" / "mini"
PACKS = [*available_packs(), "_template"]

# Read by hand: every location of the base packs as it reads after "You walk into" (the overlay
# cinder_reach_nightshift shares cinder_reach's places). The two of cinder_reach marked with a * set prose_name: the
# rule leaves them bare, but the pack's own prose always says "the Cistern Yard", "the Tether Dock".
READS = {
    "cinder_reach": {
        "slag_and_lantern": "the Slag & Lantern", "kettle_row": "Kettle Row", "scrip_market": "the Scrip Market",
        "lowvent_clinic": "the Lowvent Clinic", "charter_house": "the Charter House",
        "union_hall": "the Hall of the Ninth Shift", "cistern_yard": "the Cistern Yard",  # *
        "tether_dock": "the Tether Dock",  # *
        "ash_flats": "the Ash Flats", "drill_graveyard": "the Drill Graveyard", "shaft_seven": "Shaft Seven",
        "glass_ridge": "Glass Ridge", "slagside": "Slagside", "lamplight_chapel": "the Lamplight Chapel",
        "railhead": "the Railhead", "relay_mast": "the Relay Mast", "the_fumaroles": "the Fumaroles",
    },
    "saltmarsh_reach": {
        "brass_eel": "the Brass Eel Tavern", "cockle_row": "Cockle Row", "staithe_market": "the Staithe Market",
        "tithe_house": "the Tithe House", "wickhall": "Wickhall", "almonry": "the Almonry",
        "pennyweight_bridge": "Pennyweight Bridge", "brine_pans": "the Brine Pans", "mallow_eyot": "Mallow Eyot",
        "eel_smokery": "the Eel Smokery", "moot_willow": "the Moot Willow", "long_causeway": "the Long Causeway",
        "reedmaze": "the Reedmaze", "whimbrel_flats": "Whimbrel Flats", "drowned_abbey": "the Drowned Abbey",
        "blackmoss_cuttings": "Blackmoss Cuttings", "ebb_hulk": "the Ebb Hulk", "heron_lamp": "the Heron Lamp",
    },
}
FIXED = {("cinder_reach", "cistern_yard"): "the Cistern Yard", ("cinder_reach", "tether_dock"): "the Tether Dock",
         ("_template", "market_square"): "the Market Square"}


def own_prose(pack_id: str) -> str:
    """Every line a pack's (and its bases') files hold, but the names: how its authors write its places."""
    return "\n".join(line for root in pack_layers(PACKS_DIR / pack_id) for path in sorted(root.rglob("*"))
                     if path.suffix in (".yaml", ".md") for line in path.read_text(encoding="utf-8").splitlines()
                     if not re.match(r"\s*-?\s*(?:prose_)?name:", line))


def test_prose_name_is_how_the_place_reads_inside_and_at_the_start_of_a_sentence():
    loc = Location(id="cistern_yard", name="Cistern Yard", prose_name="the Cistern Yard", type="street",
                   description="A yard.", links=[])
    assert the_place(loc) == "the Cistern Yard" and place_at_start(loc) == "The Cistern Yard"
    plain = loc.model_copy(update={"prose_name": None})
    assert the_place(plain) == the_place("Cistern Yard") == "Cistern Yard"  # unset: the rule, as for a bare name


@pytest.mark.parametrize("prose_name", ["the Old Road", "The Old Road", "Old Road", "the old  road"])
def test_prose_name_accepts_the_name_with_or_without_an_article(prose_name: str):
    loc = Location(id="old_road", name="The Old Road", prose_name=prose_name, type="wilds", description="A road.",
                   links=[])
    assert the_place(loc) == prose_name


@pytest.mark.parametrize("prose_name", ["the hedge road", "the Old Road north", ""])
def test_prose_name_must_be_the_name(prose_name: str):
    with pytest.raises(ValidationError) as info:
        Location(id="old_road", name="The Old Road", prose_name=prose_name, type="wilds", description="A road.",
                 links=[])
    assert info.value.errors()[0]["loc"] == ("prose_name",)


@pytest.mark.parametrize("pack_id", PACKS)
def test_every_place_of_every_shipped_pack_reads_right_mid_sentence(pack_id: str):
    pack = load_pack(PACKS_DIR / pack_id)
    text = own_prose(pack_id)
    for loc in pack.locations.values():
        said = f"You walk into {the_place(loc)}."
        assert not re.search(r"\s(?:The|A|An)\s", said), said  # "into The Slag & Lantern"
        if re.match(r"^[A-Z][\w'-]* of ", loc.name):
            assert said.startswith("You walk into the "), said  # "into Hall of the Ninth Shift"
        bare_name = re.sub(r"^(?:The|A|An) ", "", loc.name)
        with_the = len(re.findall(rf"\bthe {re.escape(bare_name)}\b", text))
        bare = [w for w in re.findall(rf"\b([a-z]+) {re.escape(bare_name)}\b", text) if w != "the"]
        if not the_place(loc).startswith(("the ", "a ", "an ")):  # the pack's own prose says "the X" more often
            assert with_the <= len(bare), f"{said} but the pack writes 'the {bare_name}' {with_the} times"
        assert place_at_start(loc)[0].isupper()
    for (pid, loc_id), prose_name in FIXED.items():
        if pid == pack_id:
            assert pack.locations[loc_id].prose_name == prose_name


@pytest.mark.parametrize("pack_id", sorted(READS))
def test_each_place_of_the_base_packs_reads_as_read_by_hand(pack_id: str):
    pack = load_pack(pack_id)
    assert {loc.id: the_place(loc) for loc in pack.locations.values()} == READS[pack_id]


def test_the_overlay_keeps_its_bases_prose_names():
    night = load_pack("cinder_reach_nightshift")
    assert night.layers and night.locations["cistern_yard"].prose_name == "the Cistern Yard"


def test_an_overlay_sets_a_prose_name_and_the_rules_prose_uses_it(tmp_path: Path):
    root = tmp_path / "overlay"
    root.mkdir()
    (root / "era.yaml").write_text(f"id: overlay\nextends: {MINI}\n", encoding="utf-8")
    (root / "locations.yaml").write_text("- id: old_road\n  name: Old Road\n  prose_name: the old road\n",
                                         encoding="utf-8")
    pack = load_pack(root)
    assert pack.locations["old_road"].prose_name == "the old road"
    assert pack.locations["old_road"].description == load_pack(MINI).locations["old_road"].description  # merged
    state = new_state(pack, seed=1, campaign_id="overlay")
    state.location = "lantern_inn"
    router = intent.classify("go to the old road", state, pack)
    assert router.target_location == "old_road"
    summary = checks.resolve(router, state, pack, random.Random(1)).result.summary
    assert "the old road" in summary and "Old Road" not in summary


def test_rules_prose_names_a_place_by_its_prose_name():
    pack = load_pack("cinder_reach")
    state = new_state(pack, seed=3, campaign_id="prose-name")
    state.location = "scrip_market"
    router = intent.classify("go to the cistern yard", state, pack)
    result = checks.resolve(router, state, pack, random.Random(3)).result
    assert "the Cistern Yard" in result.summary and not re.search(r"(?<!the )Cistern Yard", result.summary)


def test_an_episodes_summary_names_its_places_as_running_prose_does():
    pack = load_pack("cinder_reach")
    episode = next(iter(pack.episodes.values()))
    facts = {"turns": 4, "style": "a talker", "lead": None, "pivot": None, "trigger": "player_end", "outcome": "won"}
    one = episodes.summary_text(episode, 1, facts | {"places": ["Hall of the Ninth Shift"]}, pack)
    assert "ran 4 story turns in the Hall of the Ninth Shift." in one
    two = episodes.summary_text(episode, 1, facts | {"places": ["Cistern Yard", "The Scrip Market"]}, pack)
    assert "from the Cistern Yard to the Scrip Market." in two


def test_the_setup_summary_names_the_start_as_running_prose_does():
    pack = load_pack("cinder_reach")
    sheet = setup.CharacterSheet(name="Ada Quell", pronouns="she/her", background=next(iter(pack.backgrounds)),
                                 start_location="union_hall")
    assert "The story starts at the Hall of the Ninth Shift." in setup.summary_of(sheet, pack)
