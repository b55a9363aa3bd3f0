"""Everyday requests a fifth stranger typed (data/corpora/player_inputs.yaml has the rest of their lines), each the
second move of a fresh offline game: orders with a "please" after them, urging ("go on then, sing it"), a question
after a word of reply, thanks and apologies to people by description or to a group a detail of the place tells of,
a question about something of the one asked, a drink bought for the one spoken with, a wait for something named,
the leader of a faction named by what its description calls its people, and a place by its everyday kind."""

from __future__ import annotations

import pytest
from skald.llm.client import LLMClient
from skald.rules import parser
from skald.settings import Settings
from support import answer_to, second_move


@pytest.fixture(scope="module")
def llm():
    return LLMClient(Settings(), online=False)


@pytest.mark.parametrize(("pack_id", "first", "line", "said"), [
    # an order with a courtesy after it, and a cup where drink is poured
    ("saltmarsh_reach", "look around", "id like a willowbark tincture pls", "You buy the willowbark tincture"),
    ("saltmarsh_reach", "look around", "a mug pls", "Odile Pask pours you a mug of brown ale"),
    ("cinder_reach", "look around", "id like a willowbark tincture pls", "There is no willowbark tincture for sale in "
     "the Slag & Lantern; on offer:"),  # another pack's thing, ordered outright: what is sold here
    ("saltmarsh_reach", "talk to the innkeeper", "yes pls ill take a cup", "Odile Pask pours you a cup of brown ale"),
    # urged, not a way to go; a song asked of the one spoken with is theirs to give
    ("saltmarsh_reach", "talk to the ballad seller", "go on then sing it", "Saffy Ketteridge obliges"),
    ("saltmarsh_reach", "talk to the innkeeper", "sing us a song", "Odile Pask laughs the request off: she does not"),
    ("saltmarsh_reach", "look around", "sing a song", "You sing a song."),  # the player's own song
    # a question after a word of reply is the question; "no way" before one is surprise, not a refusal
    ("cinder_reach", "ask hesper about work", "sounds risky whats the pay", "Hesper Quill tells you that Short Pour "
     "pays 30 credits"),
    ("cinder_reach", "ask the bartender about the water", "no way, how short", "Hesper Quill tells you more"),
    ("cinder_reach", "ask hesper about work", "no way, too risky", "You tell Hesper Quill the job is not for you"),
    # "who's behind it?" after a job: its next step, not a rumor of anything
    ("saltmarsh_reach", "ask odile about her salt", "whos behind it", "Odile Pask tells you more: Look along Cockle "
     "Row for whoever has been chalking the reeve's mitres"),
    # thanks and apologies: to whom the words describe, to a group of the place, or to nobody here
    ("saltmarsh_reach", "look around", "thank the old man", "You thank Amos Tallowby"),
    ("saltmarsh_reach", "look around", "apologize to the old man", "You apologise to Amos Tallowby"),
    ("cinder_reach", "look around", "apologize to the drillers for knocking their dice",
     "You apologise to the drillers. Two drillers bend over a dice game"),
    ("saltmarsh_reach", "look around", "apologize to the drillers for knocking their dice",
     "There are no drillers in the Brass Eel Tavern"),
    ("saltmarsh_reach", "look around", "nod at the eelers", "You nod to the eelers. Eelers play a slow game of stones"),
    ("cinder_reach", "look around", "greet the drillers", "You greet the drillers. Two drillers bend over"),
    # something of the one asked: their own line, else their description
    ("cinder_reach", "talk to rhea", "what happend to ur shoulder", "\"The Charter says my shoulder is a "
     "pre-existing condition."),
    ("saltmarsh_reach", "talk to ottilie", "why'd they take ur boat", "\"They took my punt for the tithe."),
    ("saltmarsh_reach", "look around", "ask the barkeep how she got those burns", "Asked about her burns, Odile Pask "
     "puts it shortly: eel-oil burns on her knuckles."),  # her description was told meeting her, a turn ago
    # a drink for the one spoken with, and what it loosens
    ("cinder_reach", "talk to the old prospector", "fine ill buy u a drink, now talk", "You buy Tobin Marsh a mug of "
     "tap beer for 2 credits; Tobin raises it to you. It loosens Tobin's tongue:"),
    ("saltmarsh_reach", "talk to the old man", "ok ill buy u a cup. which channels do i stay out of?", "You buy Amos "
     "Tallowby a cup of brown ale for 2 greys; Amos raises it to you. It loosens Amos's tongue: A neap tide"),
    # a wait for something the place has
    ("cinder_reach", "look around", "wait for the shift board to change", "You wait a quarter of an hour in the Slag "
     "& Lantern. A cracked screen over the door shows the shift board"),
    # people by the role word itself, a faction by what its description calls its people, places by their kind
    ("saltmarsh_reach", "look around", "where can i find the headwoman of mallow eyot", "Odile Pask tells you that "
     "Wenna Culpin, a headwoman, is at Mallow Eyot."),
    ("cinder_reach", "look around", "who speaks for the miners", "Hesper Quill tells you that Bette Harrow, a union "
     "steward, speaks for the Ninth Shift Union."),
    ("saltmarsh_reach", "look around", "is there a healer or a docter in town", "Odile Pask tells you that the "
     "Almonry is"),
    ("saltmarsh_reach", "look around", "any news? whats everyone talkin about", "Odile Pask tells you what people "
     "are saying"),
    ("cinder_reach", "look around", "walk to the spaceport", "You travel to the Tether Dock."),
    # the idioms of persuasion, threat and deceit, and taking a job up
    ("cinder_reach", "look around", "lean on the old man until he talks", "You try to lean on the old man"),
    ("cinder_reach", "ask tobin about work", "Take Tobin up on the job", "You take the job and give Tobin Marsh your "
     "word"),
    ("cinder_reach", "ask tobin about work", "Tell Tobin you will take the job", "You take the job"),
    ("cinder_reach", "look around", "Ask Hesper what the trouble is around here", "Hesper Quill tells you what has "
     "the Slag & Lantern on edge"),
])
def test_a_fifth_strangers_lines_are_answered_about_what_was_asked(tmp_path, llm, pack_id, first, line, said):
    summary = answer_to(tmp_path, pack_id, first, line, llm)
    assert summary.startswith(said), summary


@pytest.mark.parametrize(("pack_id", "first", "line", "said"), [
    # speech in single quotes, before or after what the player does
    ("cinder_reach", "look around", "*I nod toward the two drillers hunched over their dice* 'What are they playing "
     "for, do you reckon?'", "Two drillers bend over a dice game"),
    ("cinder_reach", "look around", "'Who keeps the water in this town, if you don't mind my asking?'", "Hesper Quill "
     "tells you that the Wellkeepers hold the water: The water cartel"),
    ("cinder_reach", "look around", "*I count credits onto the bar* 'One burn stim, and don't tell me what's in it.'",
     "You buy the burn stim for 15 credits."),
    ("cinder_reach", "look around", "'Thanks for the drink.' *I head for the iron stairs*", "You travel to Kettle "
     "Row. Up the iron stairs to the street."),  # a way by its description is the way to where it leads
    ("cinder_reach", "look around", "'Evening, rigger. Mind if I sit?' *I nod to Rhea*", "You greet Rhea Calloway"),
    ("cinder_reach", "look around", "'Point me to the Cistern Yard, would you? I need to see these famous tanks.'",
     "Hesper Quill tells you that the Cistern Yard is 30 minutes away."),
    ("saltmarsh_reach", "ask saffy about her ballads", "*I flick a coin onto her satchel and grin* 'Go on then, sing "
     "me the one about the Fat Provost.'", "Saffy Ketteridge obliges"),
    ("cinder_reach", "look around", "*walks over to the bar* 'what's good?'", "Hesper Quill tells you that to eat "
     "and drink in the Slag & Lantern there is"),
    # a kind of person sought; a remark on the place; insults and compliments
    ("saltmarsh_reach", "look around", "I'm looking for someone honest.", "Odile Pask tells you that Ide Marrable, a "
     "tithe clerk at the Tithe House, is the one to try (honest, people say)."),
    ("cinder_reach", "look around", "i need someone tough", "Hesper Quill tells you that Rhea Calloway, a laid-off "
     "drill rigger here, is the one to try"),
    ("cinder_reach", "look around", "Nice place. Quiet, though.", "Hesper Quill follows your look around the Slag & "
     "Lantern."),
    ("saltmarsh_reach", "look around", "ur cat is ugly", "\"Your cat is ugly,\" you tell Odile Pask; Odile"),
    ("saltmarsh_reach", "look around", "mock the old man", "You insult Amos Tallowby; Amos"),
    ("saltmarsh_reach", "look around", "amos ur a legend", "Amos Tallowby will not be moved"),
    # everyday shorthand and deeds
    ("cinder_reach", "look around", "wuts there to do around here", "Hesper Quill tells you that in the Slag & Lantern "
     "you can buy"),
    ("cinder_reach", "look around", "can i pay in scrip", "Hesper Quill tells you that credits are what counts here"),
    ("cinder_reach", "look around", "*I slide onto a stool and nod at the room* 'Who do I settle up with around "
     "here?'", "Hesper Quill runs the Slag & Lantern"),
    ("cinder_reach", "look around", "look for anything valuable", "The floor is gritty with ash"),
    ("cinder_reach", "look around", "*I run my hand along the floor behind the taps, feeling for anything loose*",
     "You search the floor behind the taps."),
    ("saltmarsh_reach", "look around", "stretch", "You stretch until your back cracks"),
    ("saltmarsh_reach", "look around", "sleep", "You sleep a while in the Brass Eel Tavern."),
    ("saltmarsh_reach", "look around", "*I take a long pull of the brown ale and wipe the foam from my lip*",
     "Odile Pask pours you a cup of brown ale"),
    ("cinder_reach", "look around", "take the water ration", "You drink your water ration."),
    ("cinder_reach", "look around", "*I look the innkeeper over as she wipes down the bar*", "You look Hesper Quill "
     "over"),
    ("saltmarsh_reach", "look around", "who is that woman drinking slow by herself", "That is Ottilie Crewe"),
    ("saltmarsh_reach", "look around", "give the old man a wink", "You nod to Amos Tallowby"),
    # a seventh stranger's: where to go hurt, a search asked as a question, leaving with a hedge or a goodbye, a
    # group insulted, whoever represents a faction, a compliment to someone elsewhere, who runs a guild by name
    ("saltmarsh_reach", "look around", "where do i go if i get hurt", "Odile Pask tells you that the Almonry is"),
    ("saltmarsh_reach", "look around", "Is there anything hidden around the fireplace?", "You search the fireplace."),
    ("saltmarsh_reach", "look around", "I think I'll head out and get some fresh air.", "You travel to Cockle Row."),
    ("cinder_reach", "look around", "bye im out", "You travel to Kettle Row."),
    ("saltmarsh_reach", "look around", "insult the reeves", "You insult the reeves. Eelers, reed cutters and "
     "off-duty reeves drink here"),
    ("cinder_reach", "look around", "I'd like to speak to whoever represents the union here.", "Hesper Quill tells "
     "you that Bette Harrow, a union steward, speaks for the Ninth Shift Union."),
    ("cinder_reach", "look around", "compliment saffy's voice", "You see no Saffy here to persuade."),
    ("cinder_reach", "look around", "who leads the charter", "Hesper Quill tells you that Aurel Castell, a charter "
     "administrator, speaks for the Halvard Charter Authority."),
    ("saltmarsh_reach", "look around", "who runs the wick guild", "Odile Pask tells you that Ysmay Thorne, a "
     "guildmistress, speaks for the Wick Guild."),
    # thanks for a thing is thanks, not an order of it; a way that is not here leaves the words said
    ("cinder_reach", "look around", "'Thanks for the drink.' *I head up the plank steps*", "You thank Hesper Quill"),
    ("cinder_reach", "look around", "thanks for the drink, tobin", "You thank Tobin Marsh"),
    ("cinder_reach", "look around", "thanks for the help", "You thank Hesper Quill"),
    # a companion's fee, asked; something of theirs told a turn ago is told shortly, not again
    ("saltmarsh_reach", "look around", "how much to hire u for a day", "Ottilie Crewe asks no fee."),
    ("cinder_reach", "talk to the big woman with the pins in her shoulder", "what happened to ur crew",
     "Asked about her crew, Rhea Calloway puts it shortly: nothing to do since the Charter cut her crew."),
])
def test_a_sixth_strangers_lines_are_answered_about_what_was_asked(tmp_path, llm, pack_id, first, line, said):
    summary = answer_to(tmp_path, pack_id, first, line, llm)
    assert summary.startswith(said), summary


def test_an_insult_costs_the_attitude_of_the_one_insulted(tmp_path, llm):
    _, state = second_move(tmp_path, "saltmarsh_reach", "look around", "insult the innkeeper", llm)
    feeling = state.scenes.feelings["odile_pask"]
    assert feeling.attitude <= -2 and feeling.mood == "insulted" and not state.mechanic_result.impossible


@pytest.mark.parametrize(("line", "kind", "verb"), [
    ("Level with Hesper", None, None),  # a persuasion: the action patterns place it, not the parser
    ("sounds risky whats the pay", "question", "how_much"),
    ("yeah ok where do i start", "reply", "yes"),  # taken up, then asked: the yes decides
    ("what else is going on", "question", "news"),
])
def test_a_reply_word_before_a_question_leaves_the_question(line, kind, verb):
    read = parser.read(line)
    assert (read.kind, read.verb) == (kind, verb) if kind else read is None or read.kind != "reply"
