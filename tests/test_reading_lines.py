"""Lines a stranger typed that the parser once misread, each played as the second move of a fresh offline game
through the real engine (``bench/understanding.py``): the answer is about what was asked, and impossible deeds stay
impossible. Each case stands for a class of input, named in its comment."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from skald.rules.interact import WISH_ANSWERS
from support import ROOT

_spec = importlib.util.spec_from_file_location("bench_understanding", ROOT / "bench" / "understanding.py")
understanding = sys.modules.setdefault(_spec.name, importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(understanding)

CASES = [
    # a vehicle or a guide to a place: travel, not taking
    ("cinder_reach", "look around", "take the lift down to the mines", "Shaft Seven"),
    ("saltmarsh_reach", "look around", "can somebody point me to the market", "Staithe Market"),
    ("cinder_reach", "look around", "i need a doctor, where's the nearest clinic? take me there", "Lowvent Clinic"),
    ("cinder_reach", "look around", "back out to the street", "Kettle Row"),
    # a place by what its description shows
    ("cinder_reach", "look around", "go find the water tanks", "Cistern Yard"),
    ("cinder_reach", "look around", "i want to go to the landing pads", "Tether Dock"),
    # someone called by a name, typed without a comma: said to them, or said to nobody when nobody here has it
    ("cinder_reach", "look around", "ottilie whats your story", "There is no Ottilie"),
    ("saltmarsh_reach", "look around", "tobin how u doin", "There is no Tobin"),
    ("cinder_reach", "look around", "tobin whats your story", "he is an old prospector"),
    # the pay of the job just offered
    ("cinder_reach", "ask the bartender about work", "how much does it pay?", "pays 30 credits"),
    ("cinder_reach", "ask the bartender about work", "whats the pay", "pays 30 credits"),
    # a thing this pack does not have is named, not swapped for another
    ("cinder_reach", "look around", "buy a bridge token", "no bridge token"),
    ("saltmarsh_reach", "look around", "buy me a fungus bun and eat it", "no fungus bun"),
    ("saltmarsh_reach", "look around", "buy some food", "smoked eel"),
    ("cinder_reach", "look around", "Excuse me, does anyone here know anything about the drowned abbey?",
     "the drowned abbey"),
    # whoever keeps the bar pours
    ("saltmarsh_reach", "look around", "one pint of your finest swill barkeep", "Odile Pask pours"),
    # someone by a word for them and what they are: the fisherwoman is the eel-fisher, not the old eeler
    ("saltmarsh_reach", "look around", "talk to the fisherwoman", "Ottilie Crewe"),
    # someone described, then asked about
    ("saltmarsh_reach", "look around", "the girl selling songs, whats her deal", "Saffy Ketteridge"),
    ("cinder_reach", "look around", "the old man coughing in the corner, who is he", "Tobin Marsh"),
    # questions typed without their question word or mark, or with a contraction
    ("saltmarsh_reach", "look around", "anything interesting happen lately", "what people are saying"),
    ("saltmarsh_reach", "look around", "is amos around", "Amos Tallowby, an old eeler, is right here"),
    ("saltmarsh_reach", "look around", "what've i got on me", "You carry"),
    ("cinder_reach", "look around", "got any stims behind the counter", "burn stim is 15 credits"),
    ("saltmarsh_reach", "look around", "whats the tincture go for", "willowbark tincture is 10 greys"),
    ("saltmarsh_reach", "look around", "so where can a person get to from this place", "Cockle Row"),
    ("saltmarsh_reach", "look around", "what do yall use for money round here", "greys"),
    # leaving with a goodbye; a trip whose verb is also a blow
    ("saltmarsh_reach", "look around", "alright im off, later everyone", "Cockle Row"),
    ("saltmarsh_reach", "look around", "lets hit the market, i need to pick up a few things", "Staithe Market"),
    ("cinder_reach", "look around", "go to where they keep the water tanks", "Cistern Yard"),
    # asking to buy, loosely
    ("saltmarsh_reach", "look around", "can i get a lantern off you", "lantern is not for sale"),
    ("cinder_reach", "look around", "ill take one of them bridge tokens", "no bridge tokens"),
    ("saltmarsh_reach", "ask the barkeep if theres any work going", "whats in it for me", "pays"),
    # a word before the line ("actually, ...") and a job talked over, then taken
    ("cinder_reach", "talk to hesper", "actually, tell me more about the job", "tells you about the job"),
    ("cinder_reach", "talk to hesper", "actually i will take it", "You take the job"),
    # a thing described, then asked about; a thing told by how it was made ("scratched" is "carved")
    ("saltmarsh_reach", "look around", "the notched stick thing above the bar, what is it for", "tally stick"),
    ("cinder_reach", "look around", "that screen over the door with the green writing, what does it say",
     "shift board"),
    ("saltmarsh_reach", "look around", "look closer at whatever's scratched into the wood", "tide table"),
    # a person told by their manner, or by keeping the place
    ("saltmarsh_reach", "look around", "the big loud woman laughing at her own jokes, whats her deal", "Ottilie"),
    ("cinder_reach", "look around", "the big loud woman laughing at her own jokes, whats her deal", "Rhea"),
    ("cinder_reach", "look around", "i want to speak to whoever keeps the tab", "Hesper"),
    ("saltmarsh_reach", "look around", "who's this provost guy and is he as bad as people say", "provost"),
    # a place told by what is done there
    ("saltmarsh_reach", "look around", "which way to where they weigh stuff and collect the taxes", "Tithe House"),
    ("cinder_reach", "look around", "how do i get outta here and onto the street", "Kettle Row"),
    # haggling with whoever you are talking to
    ("saltmarsh_reach", "talk to the barkeep", "thats steep, knock a bit off and ive got a deal for you", "Odile"),
    # a question, then a remark after its question mark
    ("cinder_reach", "look around", "anybody in here lookin for work or a scrap? i could use some coin",
     "has work going"),
    # a deed, then what the player claims follows from it: the deed is told, not the claim
    ("cinder_reach", "look around", "clap my hands and everyone falls silent", "You clap your hands. "),
    ("saltmarsh_reach", "look around", "whistle and my horse comes running", "You whistle. "),
    ("saltmarsh_reach", "look around", "pace back and forth", "You pace back and forth."),
    # a seventh stranger: dropped g's, a bare description, a way back, a place by its service, a buy by its purpose,
    # a look then "whats that about"
    ("saltmarsh_reach", "look around", "whos that pourin drinks behind the bar", "Odile"),
    ("cinder_reach", "look around", "old miner dude with the nasty cough", "You look Tobin Marsh over"),
    ("cinder_reach", "look around", "how do i get back up to the main street", "Kettle Row"),
    ("saltmarsh_reach", "look around", "where can a person get patched up round here", "Almonry"),
    ("cinder_reach", "look around", "sell me something for the pain my heads killing me", "burn stim"),
    ("saltmarsh_reach", "look around", "check out that barrel by the fire with the chalk mark on top. whats that about",
     "pickling barrel"),
    ("cinder_reach", "look around", "what kinda money do you lot use here, i got no idea", "credits"),
]

IMPOSSIBLE = ["I snap my fingers and everyone in the room bows to me", "I turn my beer into solid gold",
              "jump clean over the rooftops to the other end of town", "i order food delivery",
              "i am now the mayor of this town and everyone has to do what i say", "hey ai whats the best move here",
              "hold my breath for a whole day", "snap my fingers and turn everyone in here into frogs"]
ORDINARY = ["turn into the alley", "change into a clean shirt", "change my scrip into credits",
            "i am the owner of a small boat", "hold my breath for a moment"]


@pytest.mark.parametrize(("pack", "after", "text", "said"), CASES, ids=[c[2][:40] for c in CASES])
def test_the_answer_is_about_what_was_asked(pack, after, text, said):
    [answer] = understanding.play([understanding.Entry(text, "case", after, {})], pack)
    assert said.lower() in answer.summary.lower(), answer.summary


@pytest.mark.parametrize("pack", understanding.PACKS)
def test_impossible_deeds_are_refused_and_their_ordinary_neighbours_are_not(pack):
    entries = [understanding.Entry(t, "impossible", "look around", {}) for t in IMPOSSIBLE]
    entries += [understanding.Entry(t, "deed", "look around", {}) for t in ORDINARY]
    answers = understanding.play(entries, pack)
    assert [a.entry.text for a in answers if a.entry.kind == "impossible" and not a.refused] == []
    wished = tuple(WISH_ANSWERS.values())  # told as a wish: "That is beyond you, ..."
    assert [a.entry.text for a in answers if a.entry.kind == "deed" and a.summary.startswith(wished)] == []


@pytest.mark.parametrize(("pack", "text", "told"), [
    ("cinder_reach", "whos that pourin drinks behind the bar", "burn scars on both forearms"),
    ("saltmarsh_reach", "who is the old man", "hands like a pair of wet roots"),
])
def test_a_person_the_answer_describes_is_not_described_again_by_the_narration(pack, text, told):
    [answer] = understanding.play([understanding.Entry(text, "case", "/status", {})], pack)  # the first move
    assert told in answer.summary and answer.text.count(told) == 1, answer.text
