"""Talk that answers what was said: replies to whoever spoke last and questions to the room, answered from the pack.

A reply ("yes", "why?", "tell me more", "no thanks") goes to the person the player was talking with (the router
names them: the person addressed, else the last one spoken with here, else the first person here). Speaking to
someone who has a job offers it (``rules.quests``); saying yes to them takes it up, and saying no leaves it on offer;
"why?" and "tell me more" get what they know (a rumor not yet heard, or their job). A question is answered by
someone here, or by the narrator when nobody is:

- who runs this place: its keeper (a person who lives and works here) and whose ground it is (its faction);
- what can I do here: what is sold here, who is here, whether there is work, and the ways on;
- where can I go / where am I: the ways out with their minutes and risk / the place;
- any news / what do people say about X: a rumor (about X), the latest news, or plainly nothing;
- who is X / how much is X / where is X / what time is it: the person, the price, the way or the place, the clock.

Talk costs 8 minutes (``rules.clock``) and never rolls. Skald's own wording.
"""

from __future__ import annotations

import re
from collections import Counter

from skald.core import events as ev
from skald.core.pack import EraPack
from skald.core.records import MechanicResult, PresentNpc, RouterOutput
from skald.core.state import GameState
from skald.core.vocab import ActionClass, Outcome, QuestStatus, Risk
from skald.rules import clock, examine, followup, parser, party, pronouns, prose, quests, recall, references
from skald.rules.deeds import DRINK_TAGS, FOOD_TAGS, place_line
from skald.rules.money import money
from skald.rules.parser import addressee, asked_of, read
from skald.rules.resolution import Resolution, absent_line, phrase, rumor_for
from skald.rules.scene import everyone_at, minutes_to, nearest, route, way_label
from skald.rules.trade import DRINK_PRICE
from skald.text import end, or_list, sentences, the_group, the_place, with_article

DRINK_WORDS = frozenset({"drink", "ale", "beer", "pint", "cup", "mug", "wine", "grog", "dram", "round"})


def answer(router: RouterOutput, state: GameState, pack: EraPack) -> Resolution:
    """The talk turn for a reply or a question (``router.verb``), as a NO_ROLL result costing 8 minutes."""
    people = everyone_at(state, pack, state.location)
    speaker = next((p for p in people if p.id == router.target_npc), None)
    locals_ = [p for p in people if not p.companion]
    if speaker is None:
        missing = _who_away(pack.person(router.absent_npc), None, locals_, state, pack) if router.verb == "who_is" and \
            router.absent_npc and locals_ else _asked_for_missing(router, state, pack)  # "who is juno farrow?"
        if missing is not None:
            minutes = clock.time_cost(ActionClass.DIALOGUE_ONLY)
            result = MechanicResult(action_class=ActionClass.DIALOGUE_ONLY, risk=Risk.SAFE, outcome=Outcome.NO_ROLL,
                                    minutes=minutes, summary=missing)
            return Resolution(result, [ev.TimeAdvance(minutes=minutes)])
    if speaker is None and router.verb not in _QUESTIONS and locals_:
        speaker = locals_[0]
    asked = _QUESTIONS.get(router.verb or "")
    asking = router.text.lower()
    kinds = _WHO_KINDS if re.match(r"\W*who", asking) else NAMED_KINDS | (  # "what happened to the heron lamp":
        {"place"} if router.verb == "history" else set())  # the place's own story
    named = recall.record(router.text, state, pack, frozenset(kinds)) \
        if router.verb in _OPEN_QUESTIONS and not _WHOM_TO_SEE.match(asking) and not (
            router.verb == "leader" and references.faction(router.topic or "", pack) is not None) else None
    # "who speaks for the union": its leader, not what everyone knows of it
    own = _asked_of_theirs(router.text, speaker, state, pack) if router.verb in _OPEN_QUESTIONS else None
    followed = _follow_up(router, speaker, people, state, pack) if (named is None or not named.named) and \
        own is None else None
    guarded = _guarded(router, speaker, state, pack) if speaker is not None else None
    if guarded is not None:  # "why was the water cut?" to the one a job says must be persuaded to tell
        summary, events = guarded, []
    elif own is not None:  # "what happened to your shoulder?": of their own, in their own words where they have any
        summary, events = own, []
    elif named is not None and named.named and named.weight >= recall.NAMED:  # "who are the Rustwake?"
        summary, events = _recalled(named, speaker, locals_, state, pack)
    elif followed is not None:  # "who do you suspect?" after the job: of the job
        summary, events = followed, []
    elif asked is not None:
        summary, events = asked(router.topic or "", speaker, locals_, state, pack)
    else:
        summary, events = _reply(router.verb or "", speaker, state, pack, router.text)
    minutes = clock.time_cost(ActionClass.DIALOGUE_ONLY)
    result = MechanicResult(action_class=ActionClass.DIALOGUE_ONLY, risk=Risk.SAFE, outcome=Outcome.NO_ROLL,
                            minutes=minutes, summary=summary)
    return Resolution(result, [ev.TimeAdvance(minutes=minutes), *events])


# Questions that may lean on what the last turn told ("is it dangerous?" after a job): ``rules.followup`` answers
# them from that before the rule for the words alone.
_FOLLOWED = frozenset({"about", "ask", "who_is", "danger", "history", "trouble", "news"})


def _follow_up(router: RouterOutput, speaker: PresentNpc | None, here: list[PresentNpc], state: GameState,
               pack: EraPack) -> str | None:
    """The answer to a question that leans on last turn (``rules.followup``): of the job it told, when its giver is
    the one asked (or here, when nobody was), else of the topic last turn asked about, else of the words of it the
    question takes up; None when it does not lean or nothing answers. ``here``: everyone here."""
    if router.verb not in _FOLLOWED or not followup.leans(router.text, state):
        return None
    if router.verb == "news" and not set(re.findall(r"[a-z]+", router.text.lower())) & followup.LEANING - {"work",
                                                                                                          "job"}:
        return None  # "what are people saying?": the talk of the place, not more of the job just told ("of that?")
    if (router.verb == "who_is" and set((router.topic or "").split()) - followup.LEANING) or followup.NAMING.search(
            router.text.lower()):
        return None  # "who is tobin", "what's your name": the person, not the job
    if re.search(r"\bhow (?:far|long a walk)\b|\bwhere\b", router.text.lower()) and not followup.starting(
            router.text):
        return None  # "how far is that from here?": the places' rules answer it
    alone = recall.record(router.text, state, pack)
    if alone is not None and alone.named:
        return None  # "the auditor?? who's auditing who": it names what it asks of
    locals_ = [p for p in here if not p.companion]
    who = speaker or (locals_[0] if locals_ else None)
    job = followup.told_job(state, pack)
    giver = speaker or next((p for p in locals_ if job is not None and p.id == job.giver), None)
    topic = router.topic or ""
    named = router.verb == "about" and not followup.starting(router.text) and (  # "what about knitting needles?",
        bool(set(topic.split()) - followup.LEANING - WORK_WORDS) or set(topic.split()) & WORK_WORDS)  # "the job?"
    found = followup.about_job(router.text, job, giver, state, pack) \
        if job is not None and giver is not None and giver.id == job.giver and not named else None  # "tell me
    # about this auditor": of what it names; "tell me more about the job": the rules for the job
    teller = giver if found is not None else who
    found = found or followup.about_topic(router.text, speaker, locals_, state, pack)
    asked_of = references.words(router.topic or "") & references.words(" ".join(p.name for p in here))
    if found is None and not asked_of and followup.talked(state):  # "lights on the marsh? who'd carry them?"
        found = followup.about_echo(router.text, here, state, pack)
    if found is None or teller is None:
        return None
    if found.own is not None:
        return _quote(recall.Said(found.own, found.sentence, 0.0), state)
    return phrase(state, f"{teller.name} tells you more: {found.sentence}",
                  f"{teller.name} has more to say on that: {found.sentence}")


# ------------------------------------------------------------------ replies


def _reply(verb: str, who: PresentNpc | None, state: GameState, pack: EraPack, said: str = "") -> tuple[str, list]:
    if who is None:
        return ("You say it to the room, but nobody here is waiting on your answer.", [])
    first = who.name.split()[0]
    job = _their_job(who, state, pack)
    if verb == "yes":
        offered = _offered_by(who, state, pack)
        if offered is not None:  # "deal", "i'll do it": the job is taken up
            stage = offered.stages[0].objective
            return (f"You take the job and give {who.name} your word: {end(stage)}",
                    [ev.QuestUpdate(quest=offered.id, status=QuestStatus.ACTIVE, stage=0)])
        if job:
            return (f"You give {who.name} your word: {end(job)}", [])
        return (phrase(state, f"You tell {who.name} yes, and {first} takes you at your word.",
                       f"You agree with {who.name}; {first} seems satisfied with that.",
                       f"\"Yes,\" you tell {who.name}, and {first} nods."), [])
    if verb == "no" and _offered_by(who, state, pack) is not None:
        return (f"You tell {who.name} the job is not for you; {first} lets it lie. It stays on offer if you change "
                "your mind.", [])
    if verb == "no":
        return (phrase(state, f"You tell {who.name} no; {first} lets it drop, for now.",
                       f"You turn {who.name} down, and {first} shrugs it off.",
                       f"\"No,\" you tell {who.name}. {first} does not press it."), [])
    offered = _offered_by(who, state, pack) if verb == "why" else None
    heard = " ".join(state.recent[-1].sentences).lower() if state.recent else ""
    if offered is not None and _first_sentence(offered.summary).lower() not in heard:  # "why?" to a job: its reason
        return (f"{who.name} explains: {end(offered.summary)}", [])
    if offered is not None and offered.stages and offered.stages[0].objective.lower() not in heard:  # "what's the
        return (f"{who.name} spells out what it takes: {end(offered.stages[0].objective)}", [])  # catch": the work
    if verb in ("why", "more") and said:  # "who's behind it?" after asking about the salt: more of the salt
        locals_ = [p for p in everyone_at(state, pack, state.location) if not p.companion]
        told = followup.told_job(state, pack)  # "who's behind it?" after the job: its next step
        found = followup.about_job(said, told, who, state, pack) if told is not None and told.giver == who.id \
            else None
        found = found or followup.about_topic(said, who, locals_, state, pack)
        if found is not None and found.own is not None:
            return (_quote(recall.Said(found.own, found.sentence, 0.0), state), [])
        if found is not None:
            return (f"{who.name} tells you more: {found.sentence}", [])
    if verb in ("why", "more"):
        rumor_id = rumor_for(state, pack, who)
        if rumor_id is not None:
            told = pack.rumors[rumor_id].text
            return (f"You press {who.name}, and {first} tells you what people say: {end(told)}",
                    [ev.RumorHeard(rumor=rumor_id, source=who.id)])
        if job:
            return (f"You ask {who.name} to say more; {first} comes back to the job: {end(job)}", [])
        return (f"You ask {who.name} to say more. {first} tells you about themselves: "
                f"{_told_of(who, state, pack)}", [])
    if verb == "remark":  # "nice place", "quiet in here tonight": small talk, answered by the place itself
        seen = place_line(state, pack)
        return (phrase(state, f"{who.name} follows your look around {the_place(pack.locations[state.location])}. "
                              f"{seen}", f"{first} hears you out with half an ear, and the place goes on around you. "
                                         f"{seen}"), [])
    if verb == "again":  # "say that again, slower": what they said last, once more
        again = _last_said(who, state)
        if again:
            return (f"{who.name} says it again, more slowly: {end(again)}", [])
        return (f"{who.name} says it again, more slowly, and this time you follow every word.", [])
    if verb == "why_me":  # "why me?": why they would trust a stranger with it
        if job or _offered_by(who, state, pack) is not None:
            return (phrase(state, f"{first} looks you over. \"You are new here. Nobody has bought you yet.\"",
                           f"\"Because you asked, and nobody else in here would,\" {who.name} says.",
                           f"{first} shrugs. \"You have the look of someone who finishes things.\""), [])
        return (phrase(state, f"{who.name} gives you a puzzled look: {first} has not asked anything of you.",
                       f"\"Why you what?\" {who.name} asks. {first} has asked nothing of you."), [])
    if verb == "doubt":  # "you're pulling my leg": they stand by what they told you (not a job's next step)
        claim = _last_said(who, state, claims_only=True)
        steps = {st.objective.lower() for q in pack.quests.values() for st in q.stages}
        if claim and not any(claim.lower().startswith(step[:40]) for step in steps):
            return (phrase(state, f"{who.name} does not take it back: {end(claim)}",
                           f"{first} shrugs. \"Believe what you like.\" {first} stands by it: {end(claim)}"), [])
        return (phrase(state, f"{who.name} shrugs: \"Believe what you like.\"",
                       f"\"Suit yourself,\" {who.name} says, and leaves it there."), [])
    if verb == "if_no":  # "and if I say no?": what refusing costs
        if job or _offered_by(who, state, pack) is not None:
            return (f"{who.name} shrugs: then the job waits for someone else, and {first} will not ask twice.", [])
        return (f"{who.name} shrugs: then nothing changes, and {first} will not press you.", [])
    grouped = parser.SAID_TO.match(parser.plain(said)) if verb in PLEASANTRIES and said else None
    group = references.group(grouped.group("who"), state, pack) if grouped is not None else None
    if group is not None:  # "apologise to the drillers": to the people a detail of the place tells of
        told = PLEASANTRIES[verb][0].split(",")[0].split(";")[0].format(name=grouped.group("who"), first="")
        return (f"{told}. {end(group)}", [])
    if verb in PLEASANTRIES:
        return (phrase(state, *(t.format(name=who.name, first=first) for t in PLEASANTRIES[verb])), [])
    if verb == "react":  # "ugh, that sounds disgusting", "pfft, easy": how the player takes what was said
        job = f" {first} comes back to it: {end(job)}" if job else ""
        return (phrase(state, f"You let {who.name} see what you make of that.{job}",
                       f"{who.name} catches the look on your face.{job}"), [])
    line = said.strip().rstrip(".!") or "..."
    if line.endswith("?"):  # "'rough day?' i ask her": asked, not told
        asked = f"{line[:1].upper()}{line[1:]}"
        locals_ = [p for p in everyone_at(state, pack, state.location) if not p.companion]
        answered = _from_the_pack(line, who, locals_, state, pack)
        if answered is not None:  # "'those guys trouble?'": what the pack tells of it, by any name
            return (f"\"{asked}\" you ask {who.name}. {answered[0]}", answered[1])
        return (phrase(state, f"\"{asked}\" you ask {who.name}, and {first} considers it.",
                       f"You ask {who.name}: \"{asked}\" {first} takes that in."), [])
    return (phrase(state, f"\"{line[:1].upper()}{line[1:]},\" you tell {who.name}, and {first} hears you out.",
                   f"You answer {who.name}: \"{line[:1].upper()}{line[1:]}.\" {first} takes that in."), [])


def _from_the_pack(asked: str, who: PresentNpc | None, locals_: list[PresentNpc], state: GameState,
                   pack: EraPack) -> tuple[str, list] | None:
    """The answer to words asked that no narrower rule answers ("those guys trouble? should i be worried about
    them?"): a line of ``who``'s own (of anyone in ``locals_`` when nobody was asked) that shares its telling words
    (``recall.said_line``), else the faction, lore, rumor or place they are about (``recall.record``); None when the
    pack tells nothing of them."""
    own = recall.said_line(asked, who, locals_, state, pack)
    if own is not None:
        return _quote(own, state), []
    found = recall.record(asked, state, pack)
    return _recalled(found, who, locals_, state, pack) if found is not None else None


_THIRD_PERSON = frozenset({"they", "them", "their", "it", "its", "he", "him", "his", "she", "her"})


def _followed_up(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list] | None:
    """The answer to a question that leans on the one asked last turn by a pronoun ("where do they sit?" after "ask
    the bartender about the deputies"): what the pack tells of both topics together (a line of the one asked,
    ``recall.said_line``, else a record, ``recall.record``); None when the topic has no pronoun, last turn asked
    nothing, or nothing answers."""
    if not set(topic.split()) & _THIRD_PERSON or not state.recent:
        return None
    before = read(state.recent[-1].input)
    if before is None or before.kind != "question" or not before.topic:
        return None
    return _from_the_pack(f"{topic} {before.topic}", speaker, locals_, state, pack)


_NOT_NOUN = re.compile(r"(?:he|she|it|you|i|we|that|this|there|since|when|how|why|what|who|whom|whose|"
                       r"which|long|much|many|far|ago)\b")  # a topic that is no thing to look for in the room
_PARTICLES = frozenset({"up", "down", "in", "out", "on", "off", "over", "under", "behind", "front", "next", "around",
                        "round", "about", "away", "back", "here", "there", "into", "onto", "through", "along"})


def _detail_of_line(line: str, state: GameState, pack: EraPack) -> str | None:
    """The detail of this place a whole line (what the player does and asks) is about: the one sharing the most word
    stems with it, two at least ("my stool won't budge. who bolts down the furniture?" -> the stools bolted to the
    floor); None when no detail shares two."""
    wanted = {references.stem_of(w) for w in references.words(line) if w not in _PARTICLES} - _NOT_A_THING
    shared, detail = references.most_shared(wanted, pack.locations[state.location].details)
    return detail if shared >= 2 else None


def _aim(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """"What are you going to do about it?", "what do you want?": what the one asked wants (the pack's ``wants``, else
    the sentence of their description or personality that tells it), and the job they would give for it; the
    narrator's word when nobody is here."""
    told, who = _teller(speaker, locals_)
    if who is None:
        return ("Nobody here is waiting to tell you their plans.", [])
    person = pack.person(who.id)
    wants = getattr(person, "wants", None)
    job = _job_of(who, state, pack)
    they = pronouns.of(person)
    verb = "wants" if they.subject in ("he", "she", "it") else "want"
    told = next((x for x in sentences(f"{person.description} {getattr(person, 'personality', '') or ''}")
                 if re.search(r"\b(?:wants?|wanting|longs?|hopes?|means to)\b", x)), None) if not wants else None
    said = f"{who.name} tells you straight: {they.subject} {verb} {end(wants)}" if wants else \
        f"{who.name} tells you straight: {end(told)}" if told else f"{who.name} does not say much about that."
    taken = state.quests.get(job.id) if job is not None else None
    if taken is not None and taken.status == QuestStatus.ACTIVE:  # taken already: where it stands, not the offer
        said += f" The job you took from {who.name.split()[0]} is about that: {end(_objective(job, taken))}"
    elif job is not None:
        said += f" That is where you could come in: {end(_first_sentence(job.summary))}"
    return (said[:1].upper() + said[1:], [])


_TOLD = re.compile(r"\b(?:tells? you|told you|says?|said|swears?|insists?)\b(?! (?:it|that) again)")


def _last_said(who: PresentNpc, state: GameState, claims_only: bool = False) -> str:
    """What ``who`` told you last turn (their quoted words, or the words after the colon of a sentence of last turn's
    narration that names them), or '' when last turn had none. ``claims_only``: only what they told you as so
    ("Hesper tells you what people say: ..."), never their small talk nor what they are after."""
    first = who.name.split()[0]
    told = [s for s in (state.recent[-1].sentences if state.recent else []) if first in s]
    quoted = [q.strip() for s in told for q in re.findall(r"[\"\u201c]([^\"\u201d]{8,})[\"\u201d]", s)]
    colon = [s for s in told if ": " in s and not s.startswith(("This is", "That is"))]
    passed = [s.split(": ", 1)[1].strip() for s in colon]
    if claims_only:
        claims = [part for s, part in zip(colon, passed, strict=True)
                  if _TOLD.search(s.split(": ", 1)[0]) and not part.startswith(("\"", "\u201c"))]
        return claims[-1] if claims else ""
    for found in (quoted, passed):
        if found:
            return found[-1]
    return ""


def last_place(state: GameState, pack: EraPack) -> str | None:
    """Where the job last turn's narration told of leads ('where exactly?' after Tobin's job: its next stage's place,
    or the place of the person that stage is to see), else the place that narration named last, by its name or an
    alias ('where is that?' after 'the Drowned Abbey is 90 minutes away'), other than where you stand; else None."""
    told = " ".join(state.recent[-1].sentences).lower() if state.recent else ""
    found = [(re.search(rf"\b{re.escape(name.lower())}\b", told), loc.id) for loc in pack.locations.values()
             if loc.id != state.location for name in (loc.name, *loc.aliases)]
    found = [(match.start(), lid) for match, lid in found if match is not None]
    return _job_place(told, state, pack) or (max(found)[1] if found else None)


def _job_place(told: str, state: GameState, pack: EraPack) -> str | None:
    """Where the job whose summary ``told`` (lower case) holds leads next, other than here; None for none."""
    for quest in pack.quests.values():
        if _first_sentence(quest.summary).lower() not in told:
            continue
        progress = state.quests.get(quest.id)
        for stage in quest.stages[progress.stage if progress is not None else 0:]:
            person = pack.person(stage.when.npc) if stage.when.npc else None
            place = stage.when.location or (state.world.npc_locations.get(person.id, getattr(person, "location", None))
                                            if person is not None else None)
            if place in pack.locations and place != state.location:
                return place
    return None


PLEASANTRIES = {  # (verb -> ways of telling it), {name} and {first} filled in
    "thanks": ("You thank {name}, and {first} accepts it with a nod.",
               "You thank {name}; {first} seems to appreciate it."),
    "sorry": ("You apologise to {name}, and {first} lets it go.",
              "You tell {name} you are sorry; {first} takes it well enough."),
    "hello": ("You greet {name}, and {first} greets you back.",
              "You say hello to {name}; {first} looks up and answers in kind."),
    "bye": ("You take your leave of {name}; {first} sees you off with a nod.", "You say goodbye to {name}."),
}


PAY_WORDS = frozenset({"pay", "pays", "paid", "payment", "reward", "wage", "wages", "fee", "cut", "job", "work",
                       "it", "that", "this"})


def _count(n: int, name: str) -> str:
    """'a water ration', 'two water rations'."""
    if n == 1:
        return with_article(name)
    return f"{NUMBERS.get(n, str(n))} {name if name.endswith('s') else name + 's'}"


NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _job_of(who: PresentNpc, state: GameState, pack: EraPack):
    """The quest this person gives that is going or still to be taken up (``core.pack.Quest``), or None."""
    return next((q for q in pack.quests.values() if q.giver == who.id and (
        q.id not in state.quests or state.quests[q.id].status != QuestStatus.COMPLETED)), None)


def _offered_by(who: PresentNpc, state: GameState, pack: EraPack):
    """The quest this person offered the player that they have not taken up yet, or None."""
    return next((q for q in pack.quests.values() if q.giver == who.id and q.id in state.quests
                 and state.quests[q.id].status == QuestStatus.OFFERED), None)


def _their_job(who: PresentNpc, state: GameState, pack: EraPack) -> str | None:
    """The current objective of an active quest this person gave, if any."""
    for quest_id, quest_state in state.quests.items():
        quest = pack.quests.get(quest_id)
        if quest and quest.giver == who.id and quest_state.status in (QuestStatus.ACTIVE, QuestStatus.OFFERED):
            return _objective(quest, quest_state)
    return None


def _objective(quest, quest_state) -> str:
    """The objective of the stage ``quest_state`` stands at (the last one's for a quest past its stages)."""
    return quest.stages[min(quest_state.stage, len(quest.stages) - 1)].objective


def _told_of(person, state: GameState, pack: EraPack) -> str:
    """What is said of a person: the first sentence of their description, unless a recent turn told it (meeting them
    does); then what they are about instead (their job, else whom they answer to), so no description is told twice
    in a row."""
    if not prose.described_lately(person.description, state):
        return end(_first_sentence(person.description))
    first = person.name.split()[0]
    job = _job_of(person, state, pack)
    if job:
        return f"{first} has a job going. {end(_first_sentence(job.summary))}"
    faction = pack.factions.get(getattr(person, "faction", None) or "")
    return f"{first} answers to {the_group(faction.name)}." if faction else f"You have met {first} before."


def _first_sentence(text: str) -> str:
    told = sentences(text)
    return told[0] if told else text


# ------------------------------------------------------------------ questions


def _teller(speaker: PresentNpc | None, locals_: list[PresentNpc]) -> tuple[str, PresentNpc | None]:
    """Who answers: the person asked, else the first person here, else nobody (the narrator)."""
    who = speaker or (locals_[0] if locals_ else None)
    return (f"{who.name} tells you" if who else "As far as you can tell"), who


def _who_runs(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    here = pack.locations[state.location]
    homed = [n for n in pack.npcs.values() if n.location == here.id and n.id not in state.world.defeated_npcs]
    keeper = references.keeper(homed)  # a street has no keeper
    faction = pack.factions.get(here.faction) if here.faction else None
    ground = f" It answers to {the_group(faction.name)}." if faction else ""
    told, teller = _teller(speaker, locals_)
    if keeper is None:
        return (f"{told} that nobody in particular keeps {the_place(here)}.{ground}", [])
    if teller is not None and keeper.id == teller.id:
        return (f"{keeper.name} runs {the_place(here)}, and says so.{ground}", [])
    return (f"{told} that {keeper.name}, {with_article(keeper.role)}, runs {the_place(here)}.{ground}", [])


def _who_rules(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """'who runs this whole town', 'who takes the salt money': the strongest faction of the pack (``power``), told by
    the first sentence of its description."""
    told, _ = _teller(speaker, locals_)
    ruling = max(pack.factions.values(), key=lambda f: f.power, default=None)
    if ruling is None:
        return (f"{told} that nobody holds the place but the people in it.", [])
    return (f"{told} that {the_group(ruling.name)} holds the power here: {end(sentences(ruling.description)[0])}", [])


def _factions(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """'what are the main groups in town': the pack's factions, strongest (``power``) first, each with the first
    clause of its description."""
    told, _ = _teller(speaker, locals_)
    ranked = sorted(pack.factions.values(), key=lambda f: -f.power)
    if not ranked:
        return (f"{told} that nobody holds the place but the people in it.", [])
    named = [f"{the_group(f.name)} ({_first_clause(f.description)})" for f in ranked[:5]]
    return (f"{told} who counts around here: {or_list(named, 'and')}.", [])


def _side(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """'whose side is the innkeeper on': the faction the person named answers to (``faction``), with the first clause
    of its description; the one asked, for 'you'."""
    people = everyone_at(state, pack, state.location)
    told, teller = _teller(speaker, locals_)
    who = (speaker if topic in ("you", "your", "") else None) or references.person(topic, state, pack, people) or \
        _known_by_role(topic, people, pack)
    if who is None:
        return _about(topic, speaker, locals_, state, pack)
    person = pack.person(who.id)
    faction = pack.factions.get(getattr(person, "faction", None) or "")
    clause = f"({_first_clause(faction.description)})" if faction is not None else ""
    if teller is not None and teller.id == who.id:  # asked of themselves
        return ((f"{person.name} answers to {the_group(faction.name)} {clause}, and makes no secret of it."
                 if faction is not None else f"{person.name} keeps to no side, and says so."), [])
    if faction is None:
        return (f"{told} that {person.name} keeps to no side anyone can name.", [])
    return (f"{told} that {person.name} answers to {the_group(faction.name)} {clause}.", [])


def _first_clause(text: str) -> str:
    """The first clause of a description, lower case unless a name leads it ('the bishopric of Brackmouth')."""
    clause = re.split(r"[,.;:]\s", _first_sentence(text).rstrip("."), maxsplit=1)[0]
    lead = clause.split()[0] if clause.split() else ""
    return clause[:1].lower() + clause[1:] if lead in ("The", "A", "An") else clause


def _what_here(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    here = pack.locations[state.location]
    parts = []
    if here.shop:
        parts.append("buy " + or_list([f"{pack.items[i].name.lower()} ({money(pack.items[i].value, pack)})"
                                       for i in here.shop[:4]], "and"))
    if locals_:
        parts.append("talk to " + or_list([p.name for p in locals_[:3]], "or"))
    if here.type not in ("wilds", "ruins", "mine") and state.combat is None:
        parts.append("look for work")
    told, _ = _teller(speaker, locals_)
    ways = _ways(state, pack)
    doing = f"in {the_place(here)} you can {'; '.join(parts)}" if parts else \
        f"there is little to do in {the_place(here)}"
    return (f"{told} that {doing}. {ways}", [])


def _any_work(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """'any work going?', 'what do I need to do?': the job of whoever is asked (what it needs now, once taken up),
    else the job of someone here, else where a job is to be had, else honest work for a few coins."""
    told, who = _teller(speaker, locals_)
    for person in ([who] if who else []) + [p for p in locals_ if p is not who]:
        job = _their_job(person, state, pack)
        if job:
            return (f"{person.name} comes back to the job: {end(job)}", [])
        offered = next((q for q in pack.quests.values() if q.giver == person.id and q.id not in state.quests), None)
        if offered is not None:
            return (f"{person.name} has work going: {end(offered.summary)}", [])
    elsewhere = [(q, pack.person(q.giver)) for q in pack.quests.values() if q.id not in state.quests]
    elsewhere = [(q, g) for q, g in elsewhere if g is not None and getattr(g, "location", None) in pack.locations]
    if elsewhere:
        quest, giver = elsewhere[0]
        where = the_place(pack.locations[state.world.npc_locations.get(giver.id, giver.location)])
        return (f"{told} that {giver.name} at {where} is looking for help: {end(quest.summary)}", [])
    here = pack.locations[state.location]
    return (f"{told} that an hour's honest work in {the_place(here)} pays a few {pack.era.currency.many}.", [])


def _money(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    told, _ = _teller(speaker, locals_)
    currency = pack.era.currency
    offered = references.words(topic) - {"cash", "money", "coin", "coins"}
    if offered and not offered & references.words(f"{currency.one} {currency.many}"):  # "u take company scrip?"
        token = references.item(topic, state, pack)
        if token is not None:
            return (f"{told} that {currency.many} are what counts here; {token.name.lower()} passes at "
                    f"{money(token.value, pack)}.", [])
        return (f"{told} that {topic} is no good here: it is {currency.many} or nothing. You have "
                f"{money(state.player.credits, pack)}.", [])
    return (f"{told} that money here is counted in {currency.many}: one {currency.one}, two {currency.many}; a "
            f"drink is {money(DRINK_PRICE, pack)}.", [])


LODGING_WORDS = frozenset({"lodging", "lodgings", "room", "rooms", "bed", "beds", "bunk", "bunks", "cot", "cots",
                           "inn", "sleep", "dormitory", "hostel", "boarding"})


def _lodging(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """Where a bed is to be had: a place whose description offers one (nearest first), else a bar."""
    told, _ = _teller(speaker, locals_)
    beds = [loc for loc in pack.locations.values() if references.words(loc.description) & LODGING_WORDS] or [
        loc for loc in pack.locations.values() if loc.type == "bar"]
    if not beds:
        return (f"{told} that there is no bed to be had; people sleep where they can.", [])
    where = pack.locations[nearest(pack, state.location, [loc.id for loc in beds]) or beds[0].id]
    at = "right here" if where.id == state.location else f"at {the_place(where)} ({_away(state, pack, where.id)})"
    return (f"{told} that you can get a room and a bed for the night {at}; a rest there sets you right.", [])


def _menu(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """What there is to eat and drink here: the food and drink sold here with prices, a drink poured at a bar, else
    what the place does sell."""
    here = pack.locations[state.location]
    told, _ = _teller(speaker, locals_)
    fare = [pack.items[i] for i in here.shop if set(pack.items[i].tags) & (FOOD_TAGS | DRINK_TAGS)]
    listed = [f"{item.name.lower()} ({money(item.value, pack)})" for item in fare[:4]]
    if here.type == "bar":
        listed.append(f"a drink ({money(DRINK_PRICE, pack)})")
    if not listed:
        return _what_here(topic, speaker, locals_, state, pack)
    return (f"{told} that to eat and drink in {the_place(here)} there is {or_list(listed, 'and')}.", [])


def _history(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """What is known of how things came to be here: the lore of the era (its ``era`` name, as the pack's lore tells
    it), else the place's own description."""
    here = pack.locations[state.location]
    told, _ = _teller(speaker, locals_)
    known = references.lore(pack.era.era, pack) or references.lore(here.name, pack)
    if known:
        return (f"Asked how things came to be, {told.lower() if speaker is None else told} what everyone knows: "
                f"{end(known)}", [])
    return (f"{told} what there is to tell of {the_place(here)}: {end(_first_sentence(here.description))}", [])


def _fee(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """What it takes to hire a companion ("how much to hire you for a day?"): the one asked, else the companion
    here not yet in the party; their fee (``recruit.cost_credits``) and what else they want first; anyone else is not
    for hire (and says what work they have, if any)."""
    here = everyone_at(state, pack, state.location)
    asked = speaker if speaker is not None and speaker.companion else next(
        (p for p in here if p.companion and p.id not in state.party), None)
    if asked is None or asked.id not in pack.companions:
        who = speaker or (locals_[0] if locals_ else None)
        if who is None:
            return ("Nobody here is for hire.", [])
        return (f"{who.name} is not for hire; {_their_job(who, state, pack) or 'they have their own work to do'}.", [])
    if asked.id in state.party:
        return (f"{asked.name} is with you already.", [])
    need = pack.companions[asked.id].recruit
    they = pronouns.of(pack.person(asked.id))
    joins = "join" if they.plural else "joins"
    fee = f"{asked.name}'s fee is {money(need.cost_credits, pack)}, paid when {they.subject} {joins}" \
        if need.cost_credits else f"{asked.name} asks no fee"
    blockers = party.recruitment_blockers(state, pack, asked.id)
    first = [b for b in blockers if not b.startswith("their fee")]
    more = f"; first {or_list(first, 'and')}" if first else ""
    return (f"{fee}{more}. You have {money(state.player.credits, pack)}.", [])


def _controls(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """Who holds a thing of the town ("who controls the water"): the faction its name or description names (its
    first sentence); a thing of this place ("who owns the bar") is the place's keeper (``_who_runs``); anything else
    is asked about."""
    here = pack.locations[state.location]
    if not references.words(topic) - examine.THE_PLACE_WORDS - references.words(here.name):
        return _who_runs(topic, speaker, locals_, state, pack)
    faction = references.faction(topic, pack)
    if faction is None:
        return _about(topic, speaker, locals_, state, pack)
    if references.kindred(topic) & references.words(f"{faction.name} {' '.join(faction.aliases)}"):
        return _leader(topic, speaker, locals_, state, pack)  # "who runs the wick guild": the faction itself
    told, _ = _teller(speaker, locals_)
    return (f"{told} that {the_group(faction.name)} hold the {topic}: {end(_first_sentence(faction.description))}", [])


def _someone(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """Who fits a kind of person sought ("someone honest", "someone i can trust"): the person of the pack (those
    here first) whose traits name it (or a word of its kind), else whose character does, else, for one word, whose
    own line does, with where they are; else that nobody comes to mind."""
    told, teller = _teller(speaker, locals_)
    wanted = frozenset(references.stem_of(w) for w in references.kindred(topic)) - {"trust"} or \
        frozenset(references.stem_of(w) for w in references.kindred(topic))

    def stems(text: str) -> set[str]:
        return {references.stem_of(w) for w in references.words(text)}
    here = {p.id for p in locals_}
    people = sorted((p for p in [*pack.npcs.values(), *pack.companions.values()]
                     if teller is None or p.id != teller.id), key=lambda p: p.id not in here) if wanted else []
    trait = next(((p, t) for p in people for t in getattr(p, "traits", []) if wanted & stems(t)), None)
    if trait is not None:
        person, said = trait
        return (f"{told} that {person.name}, {with_article(person.role)}{_found_at(person, state, pack)}, is the one "
                f"to try ({said}, people say).", [])
    fits = next(
        ((p, p.personality) for p in people if getattr(p, "personality", "") and wanted & stems(p.personality)),
        None) or next(((p, f'"{end(line)}"') for p in people for line in getattr(p, "lines", None) or []
                       if len(references.words(topic)) == 1 and wanted & stems(line)), None)
    if fits is None:
        kind = f"as {topic}" if len(references.words(topic)) == 1 else "for that"
        return (f"{told} that nobody comes to mind {kind}.", [])
    person, why = fits
    said = why if why.startswith('"') else end(why[:1].upper() + why[1:])
    return (f"{told} that {person.name}, {with_article(person.role)}{_found_at(person, state, pack)}, is the one to "
            f"try: {said}", [])


def _found_at(person, state: GameState, pack: EraPack) -> str:
    """Where a person of the pack is, after their name and role: " here", " at the Cistern Yard", or ''."""
    at = state.world.npc_locations.get(person.id, getattr(person, "location", None))
    if at == state.location:
        return " here"
    return f" at {the_place(pack.locations[at])}" if at in pack.locations else ""


def _leader(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """Who leads a faction the words name: its member whose role leads (steward, boss, captain...), else what the
    faction is; anything else is asked about."""
    told, _ = _teller(speaker, locals_)
    faction = references.faction(topic, pack)
    if faction is None:
        return _about(topic, speaker, locals_, state, pack)
    members = [p for p in [*pack.npcs.values(), *pack.companions.values()] if p.faction == faction.id]
    named = references.words(f"{faction.name} {' '.join(faction.aliases)}")
    heads = [p for p in members if references.words(p.role) & LEADER_WORDS]  # "charter administrator" over "train
    head = max(heads, key=lambda p: len(references.words(p.role) & named), default=None)  # boss": of the faction
    if head is not None:
        return (f"{told} that {head.name}, {with_article(head.role)}, speaks for {the_group(faction.name)}.", [])
    return (f"{told} what everyone knows of {the_group(faction.name)}: {end(_first_sentence(faction.description))}",
            [])


LEADER_WORDS = frozenset({"leader", "head", "boss", "chief", "captain", "steward", "master", "mistress", "voice",
                          "administrator", "governor", "magistrate", "guildmaster", "guildmistress", "headwoman",
                          "headman", "abbess", "commander",
                          "elder", "provost", "prior", "abbot", "warden", "organizer", "organiser", "speaker",
                          "marshal",
                          "director", "foreman", "reeve", "bishop", "matriarch", "patriarch", "president", "chair"})


def _who_here(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """Who comes here: the sentence of the place's description that tells of its regulars, and who is here now."""
    here = pack.locations[state.location]
    told, _ = _teller(speaker, locals_)
    regulars = next((s for s in [*sentences(here.description), *here.details] if references.words(s) & REGULARS),
                    None)
    now = f" Here now: {or_list([p.name for p in locals_], 'and')}." if locals_ else ""
    if regulars:
        return (f"{told} who comes to {the_place(here)}: {end(regulars)}{now}", [])
    return (f"{told} that {the_place(here)} sees whoever the day brings.{now}", [])


REGULARS = frozenset({"drink", "drinks", "drinkers", "regulars", "workers", "eelers", "crowd", "patrons", "customers",
                      "folk", "people", "shift", "sit", "come", "comes"})
# What a place's air is like, asked about ("why is it so hot in here", "what's that smell"): the words that tell of it.
FEELS = {"hot": ("fire", "hearth", "heat", "warm", "vent", "vents", "stove", "furnace", "steam", "sweltering", "rock"),
         "cold": ("draught", "draft", "wind", "cold", "damp", "chill", "ice"),
         "damp": ("wet", "damp", "steam", "steams", "water", "tide", "river", "drip", "drips", "stilts"),
         "dark": ("lamp", "lamps", "light", "candle", "candles", "dark", "shadow", "shadows", "gloom"),
         "loud": ("game", "shout", "shouting", "sing", "singing", "song", "voices", "laugh", "racket", "noise"),
         "smell": ("smell", "smells", "stink", "smoke", "smokes", "oil", "fish", "eel", "ash", "reek", "sulphur",
                   "sulfur", "filter", "brine"),
         "sound": ("hum", "sing", "song", "creak", "drip", "voices", "bell", "wind", "cables", "noise")}
FEELS |= {"warm": FEELS["hot"], "heat": FEELS["hot"], "stuffy": FEELS["hot"], "humid": FEELS["damp"],
          "chilly": FEELS["cold"], "wet": FEELS["damp"], "smoky": FEELS["smell"], "noisy": FEELS["loud"],
          "stink": FEELS["smell"], "stench": FEELS["smell"], "reek": FEELS["smell"], "noise": FEELS["sound"],
          "racket": FEELS["loud"], "quiet": FEELS["loud"], "dry": FEELS["hot"]}


def _feel(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """Why a place feels as it does: the sentence of its description or details that tells of it."""
    here = pack.locations[state.location]
    told, _ = _teller(speaker, locals_)
    wanted = set(FEELS.get(topic, (topic,)))
    lines = [*here.details, *sentences(here.description)]
    best = max(lines, key=lambda s: len(references.words(s) & wanted), default=None)
    if best is None or not references.words(best) & wanted:
        return (f"{told} that {the_place(here)} is always like this, and nobody remarks on it.", [])
    return (f"{told} it is the place itself: {end(best)}", [])


DANGERS = 3  # the places a warning names, nearest first


def _danger(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """What is dangerous about here: the risky ways out, the :data:`DANGERS` nearest places where trouble waits (a
    hazard, or only a DANGEROUS road in), each with what waits there and its minutes away, and who is trouble (hostile
    people the pack places near)."""
    told, _ = _teller(speaker, locals_)
    here = pack.locations[state.location]
    asked = references.place(topic, state, pack) if topic else None
    if asked is not None and asked != here.id:  # "is the causeway safe after dark": that place
        loc, minutes = pack.locations[asked], minutes_to(pack, here.id, asked)
        worst = max((link.risk for link in route(pack, here.id, asked) or []), key=list(Risk).index, default=Risk.SAFE)
        waits = f"; the {loc.hazards[0].name.lower()} is the thing to fear there" if loc.hazards else ""
        way = "safe enough" if worst == Risk.SAFE else "risky" if worst == Risk.RISKY else "dangerous"
        far = f" ({minutes} min)" if minutes else ""
        return (f"{told} that the way to {the_place(loc)}{far} is {way}{waits}.", [])
    nowhere = f"there is no {topic} near {the_place(here)}, and " if topic and asked is None else ""
    risky = [link for link in here.links if link.risk != "SAFE"]
    feared = {link.to for loc in pack.locations.values() for link in loc.links if link.risk == "DANGEROUS"}
    near = sorted((m, loc.id) for loc in pack.locations.values() if loc.id != here.id and (
        loc.hazards or loc.id in feared) and (m := minutes_to(pack, here.id, loc.id)) is not None)
    parts = []
    if risky:
        parts.append(f"the way to {or_list([the_place(pack.locations[link.to]) for link in risky[:2]], 'and')} is "
                     f"not to be taken lightly")
    if near:
        named = []
        for minutes, loc_id in near[:DANGERS]:
            loc = pack.locations[loc_id]
            waits = f", for the {loc.hazards[0].name.lower()}" if loc.hazards else ""
            named.append(f"{the_place(loc)} ({minutes} min{waits})")
        parts.append(f"you would do well to keep clear of {or_list(named, 'and')}")
    trouble = [n for n in pack.npcs.values() if n.disposition == "hostile" and n.id not in state.world.defeated_npcs]
    if trouble:
        parts.append(f"{or_list([f'{n.name} ({with_article(n.role)})' for n in trouble[:2]], 'and')} "
                     f"{'are' if len(trouble[:2]) > 1 else 'is'} trouble")
    if not parts:
        return (f"{told} that {nowhere}these parts are as safe as anywhere.", [])
    return (f"{told} that {nowhere}{', and '.join(parts)}.", [])


WORSHIP_WORDS = frozenset({"chapel", "church", "shrine", "temple", "abbey", "almonry", "pray", "prayer", "prayers",
                           "altar", "priest", "prior", "saint", "saints", "candle", "candles", "holy", "bell"})


WEATHER_WORDS = frozenset({"rain", "rains", "raining", "wind", "winds", "windy", "storm", "storms", "stormy", "fog",
                           "foggy", "mist", "misty", "snow", "sleet", "hail", "drizzle", "cloud", "clouds", "sun",
                           "sunlight", "ash", "ashfall", "dust", "heat", "cold", "frost", "tide", "thunder",
                           "lightning", "sky", "weather", "gale", "shower", "showers", "damp"})


WEATHER_RANK = {w: i for i, w in enumerate((
    "rain", "raining", "rains", "drizzle", "shower", "showers", "storm", "storms", "stormy", "snow", "sleet", "hail",
    "fog", "foggy", "mist", "misty", "ashfall", "gale", "wind", "winds", "windy", "thunder", "lightning"))}
SMELL_WORDS = frozenset({"smell", "smells", "stink", "stinks", "reek", "reeks", "odour", "odor", "scent", "whiff",
                         "stench", "fumes"})
SMELLY = frozenset({"smoke", "smokes", "smoky", "oil", "ash", "beer", "ale", "fish", "eel", "eels", "pipe",
                    "tar", "tarred", "salt", "mud", "damp", "steam", "steams", "sulphur", "brine", "taste", "tastes"})


def _credit(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """'can i pay later', 'put it on my tab', 'settle my tab': what is owed here (nothing: the rules sell for coin on
    the spot) and what the player has to pay with."""
    here = pack.locations[state.location]
    keeper = references.keeper(locals_)
    told = f"{keeper.name} tells you" if keeper else _teller(speaker, locals_)[0]
    purse = money(state.player.credits, pack)
    return (f"{told} that {the_place(here)} keeps no tab for you: you owe nothing here, and what you buy you pay "
            f"for on the spot, in {pack.era.currency.many}. You have {purse}.", [])


def _trouble(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """'what's everyone so worked up about': the trouble of the place, as the job of someone here tells it (the one
    asked first), else the talk of the day (:func:`_news`)."""
    told, who = _teller(speaker, locals_)
    for person in ([who] if who is not None else []) + [p for p in locals_ if who is None or p.id != who.id]:
        job = _job_of(person, state, pack)
        if job is not None:
            return (f"{told} what has {the_place(pack.locations[state.location])} on edge: {end(job.summary)}", [])
    return _news(topic, speaker, locals_, state, pack)


def _smell(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """'what is that smell': the place's line that names a smell, else one of what smells (smoke, oil, ash, beer)."""
    told, _ = _teller(speaker, locals_)
    here = pack.locations[state.location]
    lines = [*here.details, *sentences(here.description)]
    said = next((line for line in lines if references.words(line) & SMELL_WORDS), None) or next(
        (line for line in lines if references.words(line) & SMELLY), None)
    if said is None:
        return (f"{told} that {the_place(here)} smells of nothing worse than the people in it.", [])
    return (f"{told} what the smell is: {end(said)}", [])


MILD_WEATHER = frozenset({"tide", "cold", "heat", "damp", "sun", "sunlight", "dust", "ash", "sky"})  # weather, but
# also the floor's tide and the bar's heat: a line of rain or wind first


def _weather(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """'what's the weather doing', 'is it still raining': what the place's own lines say of the sky, rain, wind,
    ash or tide (its details, then its description), else those of the nearest place outside."""
    told, _ = _teller(speaker, locals_)
    here = pack.locations[state.location]
    outside = [pack.locations[link.to] for link in sorted(here.links, key=lambda link: link.minutes)]
    for tier in (WEATHER_WORDS - MILD_WEATHER, WEATHER_WORDS):
        for loc in (here, *outside):
            lines = [line for line in (*loc.details, *sentences(loc.description)) if references.words(line) & tier]
            if lines:  # the line of rain before the line of wind
                said = min(lines, key=lambda line: min(WEATHER_RANK.get(w, len(WEATHER_RANK)) for w in
                                                       references.words(line)))
                where = "" if loc.id == here.id else " outside"
                return (f"{told} what the weather is doing{where}: {end(said)}", [])
    return (f"{told} that the weather is doing nothing worth remarking on.", [])


def _worship(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    told, _ = _teller(speaker, locals_)
    holy = sorted((loc for loc in pack.locations.values() if references.words(
        f"{loc.name} {loc.type} {loc.description}") & WORSHIP_WORDS), key=lambda loc: len(
        references.words(f"{loc.name} {loc.type} {loc.description}") & WORSHIP_WORDS), reverse=True)
    if not holy:
        return (f"{told} that people here pray where they stand, if they pray at all.", [])
    where = holy[0]
    return (f"{told} that people go to {the_place(where)} to pray ({_away(state, pack, where.id)}).", [])


def _ways(state: GameState, pack: EraPack) -> str:
    here = pack.locations[state.location]
    ways = [way_label(pack, link) for link in here.links]
    return f"From {the_place(here)} the way{'s lead' if len(ways) > 1 else ' leads'} to {or_list(ways, 'and')}."


def _where_go(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    return (_ways(state, pack), [])


SIGHTS = 4  # places a newcomer is told are worth seeing


def _sights(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """What is worth seeing: the :data:`SIGHTS` nearest places within reach other than streets and wilds, each with
    its minutes away and the first words of its description; the ways out when none is."""
    told, _ = _teller(speaker, locals_)
    reach = sorted((m, loc.name, loc.id) for loc in pack.locations.values() if loc.id != state.location and
                   loc.type not in ("street", "wilds", "road") and (m := minutes_to(pack, state.location, loc.id)))
    if not reach:
        return (_ways(state, pack), [])
    seen = [f"{the_place(pack.locations[loc])} ({minutes} min)" for minutes, _, loc in reach[:SIGHTS]]
    return (f"{told} what a newcomer should see: {or_list(seen, 'and')}. {_ways(state, pack)}", [])


def _where_am_i(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    here = pack.locations[state.location]
    return (f"You are in {the_place(here)}: {end(_first_sentence(here.description))} {_ways(state, pack)}", [])


def _news(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    told, who = _teller(speaker, locals_)
    if who is not None:
        rumor_id = rumor_for(state, pack, who)
        if rumor_id is not None:
            return (f"{told} what people are saying: {end(pack.rumors[rumor_id].text)}",
                    [ev.RumorHeard(rumor=rumor_id, source=who.id)])
    if state.world.news:
        return (f"{told} the latest: {end(state.world.news[-1])}", [])
    return (f"{told} there is no news worth the name today.", [])


# A question about the one asked ("what's your story", "tell me about yourself"), as the parser leaves its topic.
SELF_TOPICS = frozenset({"yourself", "you", "story", "your story", "life", "your life", "past", "your past",
                         "background", "deal", "your deal", "self", "yourselves"})
WORK_WORDS = frozenset({"work", "job", "jobs", "task", "employment", "gig", "labour", "labor", "coin", "money"})
# "ask the bartender about rumors": the talk of the day itself, not a topic nobody knows.
TALK_WORDS = frozenset({"rumor", "rumors", "rumour", "rumours", "gossip", "news", "talk", "hearsay", "word"})


def _about(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    told, who = _teller(speaker, locals_)
    job = _their_job(who, state, pack) if who is not None and (not topic or topic in references.PRONOUNS) else None
    if job:  # "who could i ask about that?" to someone with a job going: the job says who
        return (f"{who.name} comes back to the job: {end(job)}", [])
    wanted = references.words(topic)
    if wanted & TALK_WORDS and wanted - references.QUALIFIERS - {"latest", "juicy", "local", "town"} <= TALK_WORDS:
        return _news(topic, speaker, locals_, state, pack)
    currency = pack.era.currency
    if wanted and wanted <= references.words(f"{currency.one} {currency.many}"):  # "whats a grey": the coin itself
        coin = recall.record(f"the {currency.one} coin money", state, pack, frozenset({"lore"}))
        if coin is None or not references.words(coin.sentence) & wanted:
            return _money("", speaker, locals_, state, pack)
        return (f"{told} what a {currency.one} is: {end(coin.sentence)}", [])
    if who is not None and wanted and wanted <= PAY_WORDS and wanted - {"it", "that", "this", "job", "work"} and \
            _job_of(who, state, pack) is not None:  # "what does it pay?": the job's pay
        return _how_much(topic, who, locals_, state, pack)
    if who is not None and topic in SELF_TOPICS:  # "what's your story", "tell me about yourself"
        they = pronouns.of(pack.person(who.id))
        first = _first_sentence(who.description)
        what = with_article(who.role) if prose.described_lately(who.description, state) or not first else \
            f"{with_article(who.role)}: {first[:1].lower()}{first[1:]}"  # the job, if any, is the quest's to offer
        return (f"Asked about {they.reflexive}, {who.name} tells you {they.subject} {they.be} {end(what)}", [])
    subject = _the(topic)
    own = _owned(topic, who, state, pack) if who is not None else None
    if own is not None:  # "ask the innkeeper what happened to her husband": what is told of her own
        return (f"Asked about {subject}, {who.name} tells you what there is to tell: {end(own)}", [])
    for quest in pack.quests.values():  # a job: the one this person gives first, then any the words name
        mine = who is not None and quest.giver == who.id
        told_of = wanted & references.words(f"{quest.title} {quest.summary}") - {"trouble", "problem", "thing"}
        if (mine and wanted & WORK_WORDS) or len(told_of) >= 2 or (mine and told_of):  # asked of the giver about a
            # word of their own job ("ask hesper what the trouble with the water is"): the job
            return (f"Asked about {subject}, {told.lower() if who is None else told} about the job: "
                    f"{end(quest.summary)}", [])
    if wanted & WORK_WORDS:
        here = pack.locations[state.location]
        if here.type in ("wilds", "ruins", "mine"):
            return (f"{told} there is no work to be had in {the_place(here)}.", [])
        return (f"{told} that an hour's honest work in {the_place(here)} pays a few "
                f"{pack.era.currency.many}, and that is what there is.", [])
    rumor = references.rumor(topic, state, pack)
    if rumor is not None:
        heard = [] if rumor.id in state.world.known_rumors or who is None else [
            ev.RumorHeard(rumor=rumor.id, source=who.id)]
        return (f"Asked about {subject}, {told.lower() if who is None else told} this: {end(rumor.text)}", heard)
    person = next((n for n in [*pack.npcs.values(), *pack.companions.values()]
                   if references.words(topic) & references.words(f"{n.name} {' '.join(n.aliases)}") or (
                       (who is None or n.id != who.id) and (references.kindred(topic) & references.kindred(n.role)) -
                       references.HE_WORDS - references.SHE_WORDS - references.GENERIC_PEOPLE)),
                  None)
    if person is not None:
        return (f"Asked about {subject}, {told.lower() if who is None else told} that {person.name} is "
                f"{with_article(person.role)}: {_told_of(person, state, pack)}", [])
    place_id = references.place(topic, state, pack)
    if place_id is not None and references.words(topic) & references.words(pack.locations[place_id].name):
        loc = pack.locations[place_id]
        return (f"Asked about {subject}, {told.lower() if who is None else told} that {the_place(loc)} is "
                f"{_away(state, pack, place_id)}: {end(_first_sentence(loc.description))}", [])
    faction = next((f for f in pack.factions.values() if references.kindred(topic) & references.words(
        f"{f.name} {' '.join(f.aliases)}")), None)
    if faction is not None:
        return (f"Asked about {subject}, {told.lower() if who is None else told} what everyone knows of "
                f"{the_group(faction.name)}: {end(_first_sentence(faction.description))}", [])
    said = recall.said_line(topic, speaker, locals_, state, pack)
    if said is not None:  # what someone here says on it, in their own words
        return (_quote(said, state), [])
    line = references.detail(topic, state, pack) if not _NOT_NOUN.match(topic) else None  # not "he supposed to
    if line is not None:  # show up" or "since when"
        return (f"About {subject}: {end(line)}", [])
    item = references.item(topic, state, pack)
    if item is not None:
        return (f"Asked about {subject}, {told.lower() if who is None else told} that {item.name.lower()} is "
                f"{money(item.value, pack)} or so: {end(_first_sentence(item.description))}", [])
    seen = _detail_of_line(state.player_input or "", state, pack)
    if seen is not None:  # "I lay my palm on the rock wall behind the bar. How is it this warm?": what the wall is
        return (end(seen), [])
    lore = references.lore(topic, pack) if not _NOT_NOUN.match(topic) else None
    if lore is not None:
        return (f"Asked about {subject}, {told.lower() if who is None else told} what is known: {end(lore)}", [])
    found = recall.record(state.player_input or topic, state, pack)
    if found is not None:  # what the pack tells of the words asked, by any name
        return _recalled(found, speaker, locals_, state, pack)
    followed = _followed_up(topic, speaker, locals_, state, pack)
    if followed is not None:  # "what do they charge?" after asking about the ferry
        return followed
    if who is None:
        return (f"Nobody here has anything to tell you about {subject}.", [])
    rumor_id = rumor_for(state, pack, who)
    if rumor_id is not None:  # the talk goes on: what they do know
        return (f"{who.name} knows nothing about {subject}, but passes on what people are saying: "
                f"{end(pack.rumors[rumor_id].text)}", [ev.RumorHeard(rumor=rumor_id, source=who.id)])
    return (f"{who.name} knows nothing about {subject} worth the telling.", [])


# Questions whose rule answers for the place or the room ("who runs this", "what happened here"): a line that names a
# faction, a lore document or a rumor by its own words is about that instead ("who runs the Charter?"). Not a place:
# "are the drills out past the flats moving?" is about the drills, and the place rules answer where places are.
_OPEN_QUESTIONS = frozenset({"about", "who_is", "who_runs", "history", "ask", "trouble", "news", "leader",
                             "what_here"})
NAMED_KINDS = frozenset({"faction", "lore", "rumor"})
_WHOM_TO_SEE = re.compile(r"\W*who(?:m)? (?:do|should|can|could|would|must) (?:i|we) (?:see|talk|speak|ask|go)\b")
# "who are the Rustwake?", "who keeps the causeway lamps?": a faction, or the lore that tells who; not a place
_WHO_KINDS = frozenset({"faction", "lore"})


def _recalled(found: recall.Found, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    """The answer from what the pack tells of a record: a faction, a lore document, a rumor or a place."""
    told, who = _teller(speaker, locals_)
    rec, sentence = found.record, end(found.sentence)
    if rec.kind == "faction":
        faction = pack.factions[rec.ref]
        first = end(_first_sentence(faction.description))
        more = "" if first == sentence else f" {sentence}"
        return (f"{told} what everyone knows of {the_group(faction.name)}: {first}{more}", [])
    if rec.kind == "rumor":
        heard = [] if rec.ref in state.world.known_rumors or who is None else [
            ev.RumorHeard(rumor=rec.ref, source=who.id)]
        return (f"{told} what people are saying: {sentence}", heard)
    if rec.kind == "place":
        loc = pack.locations[rec.ref]
        if loc.id == state.location:
            return (f"{told} what there is to tell of {the_place(loc)}: {sentence}", [])
        return (f"{told} that {the_place(loc)} is {_away(state, pack, loc.id)}: {sentence}", [])
    title = the_place(rec.names[0]) if rec.names else "it"
    return (f"{told} what is known of {title}: {sentence}", [])


_OWNED = re.compile(r"^(?:happened to |about |with |of )?(?:her|his|their|your|ur) (?P<thing>[a-z' ]{3,40})$")


def _owned(topic: str, who: PresentNpc, state: GameState, pack: EraPack) -> str | None:
    """The sentence of ``who``'s own that tells of a thing of theirs the topic names ('her husband' -> "... her late
    husband's gutting knife on her belt", :func:`_theirs`); None when the topic names nothing of theirs."""
    owned = _OWNED.match(topic.strip())
    found = _theirs(owned.group("thing"), who, state, pack) if owned is not None else None
    return found[0] if found is not None else None


def _theirs(thing: str, who: PresentNpc, state: GameState, pack: EraPack) -> tuple[str, bool] | None:
    """What ``who`` has to tell of ``thing`` of theirs (or a word of its kind: 'burns' for the scarred): a line of
    their own (``lines``, a companion's ``banter``; one told in the recent turns is not told again), as (line, True);
    else the sentence of their description or wants that names it, as (sentence, False); None when nothing does."""
    wanted = frozenset(references.stem_of(w) for w in references.kindred(thing))
    person = pack.person(who.id)
    if person is None or not wanted:
        return None
    heard = " ".join(s for t in state.recent for s in t.sentences)

    def names_it(line: str) -> bool:
        return bool(wanted & {references.stem_of(w) for w in references.words(line)})
    line = next((x for x in [*(getattr(person, "lines", None) or []), *(getattr(person, "banter", None) or [])]
                 if names_it(x) and not prose.described_in(x, heard)), None)
    if line is not None:
        return line, True
    wants = getattr(person, "wants", None)
    told = [*sentences(person.description), *([f"{who.name.split()[0]} wants {wants}"] if wants else [])]
    found = next((s for s in told if names_it(s)), None)  # asked of: told again if need be
    return (found, False) if found is not None else None


_YOURS = re.compile(r"\b(?:your|ur|yer) (?:own |old |poor |bad |busted |new )?(?P<t>[a-z]{3,})\b")
_THEIRS = re.compile(r"\b(?:her|his|their|those|them) (?:own |old |poor |bad |busted |new )?(?P<t>[a-z]{3,})\b")
_NOT_OWN = frozenset({"name", "job", "work", "business", "price", "prices", "help", "advice", "opinion", "take",
                      "thoughts", "problem", "problems", "place", "bar", "tavern", "inn", "shop", "story", "deal",
                      "way"})


def _asked_of_theirs(text: str, speaker: PresentNpc | None, state: GameState, pack: EraPack) -> str | None:
    """The answer to a question about something of the one asked ("what happened to your shoulder?", "why'd they
    take your boat?", "ask the barkeep how she got those burns"): a line of their own naming it, quoted, else the
    sentence of theirs that does (:func:`_theirs`); None when the question names nothing of theirs or nothing of
    theirs names it."""
    said = parser.plain(text)
    found = (_YOURS.search(said) or (_THEIRS.search(said) if said.startswith("ask ") else None)) \
        if speaker is not None else None  # "ask the barkeep how she got those burns": asked of hers
    if found is None or found.group("t") in _NOT_OWN:
        return None
    told = _theirs(found.group("t"), speaker, state, pack)
    if told is None:
        return None
    if told[1]:
        return _quote(recall.Said(speaker, told[0], 0.0), state)
    their = pronouns.of(pack.person(speaker.id)).possessive
    thing = found.group("t")
    if prose.described_lately(told[0], state):  # told a turn ago: only the part of it that answers, not it again
        wanted = {references.stem_of(w) for w in references.kindred(thing)}
        part = next((c for c in re.split(r",\s+|\s+and\s+|\s+with\s+", told[0].rstrip(".")) if wanted & {
            references.stem_of(w) for w in references.words(c)}), None)
        if part is not None:
            return f"Asked about {their} {thing}, {speaker.name} puts it shortly: {end(part)}"
    return f"Asked about {their} {thing}, {speaker.name} tells you what there is to tell: {end(told[0])}"


def _quote(said: recall.Said, state: GameState) -> str:
    """A person's own line as the answer: '"The reeves drink by the window," Odile tells you.'"""
    line, first = said.line, said.who.name.split()[0]
    comma = f"{line[:-1]}," if line.endswith(".") else line
    return phrase(state, f"\"{comma}\" {first} tells you.", f"{said.who.name} has an answer to that: \"{line}\"",
                  f"\"{comma}\" says {said.who.name}.")


_NOT_A_THING = frozenset({"me", "you", "i", "he", "she", "they", "we", "us", "been", "did", "do", "does", "is", "are",
                          "was", "were", "say", "said", "go", "going", "want", "know", "call", "get", "got", "can",
                          "should", "would", "could", "will", "brought", "told", "think", "mean"})


# A topic led by a past-tense verb ("happened", "happened to him", "passed through here"), unlike one led by an
# adjective ("the drowned abbey", "the burned mill").
_VERB_LED = re.compile(r"^\w+ed(?:$| (?:me|you|him|her|them|us|it|to|in|on|at|up|out|off|here|there|through|by|"
                       r"with|from|the|a|an|this|that)\b)")


def _the(topic: str) -> str:
    """The subject as a sentence names it: 'the reeve', 'the drowned abbey'; 'work', 'Odile' and a phrase with its
    own article as they are; 'that' for none."""
    topic = re.sub(r"\s+(?:is|are|was|were|be)$", "", topic)  # "what the trouble with the water is": the trouble
    if not topic or topic in references.PRONOUNS or topic.split()[0] in _NOT_A_THING or _VERB_LED.match(topic):
        return "that"  # "who brought me in", "what happened", "what did he say": a question, not a thing to name
    first = topic.split()[0]
    if topic in ("job", "task", "gig", "jobs", "tasks"):
        return f"the {topic}"  # "asked about the job", as against "asked about work"
    if first in WORK_WORDS or first in ("news", "money", "it", "them", "him", "her", "people", "everyone") or \
            first[:1].isupper() or len(topic.split()) > 4:
        return topic if len(topic.split()) <= 6 else "that"  # a whole sentence is not a subject to name
    return f"the {topic}"


def _away(state: GameState, pack: EraPack, place_id: str) -> str:
    if place_id == state.location:
        return "where you stand"
    minutes = minutes_to(pack, state.location, place_id)
    return "out of reach from here" if minutes is None else f"{minutes} minutes away"


_PRICE_WORDS = frozenset({"cheapest", "cheap", "least", "most", "expensive", "priciest", "dearest", "costliest",
                          "thing", "things", "item", "items", "sell", "sold", "buy", "have", "got", "stuff", "one",
                          "you", "here", "what", "there"})


def _how_much(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    here = pack.locations[state.location]
    item = references.item(topic, state, pack)
    told, who = _teller(speaker, locals_)
    wanted = references.words(topic)
    job = _job_of(who, state, pack) if who is not None and item is None and (
        not wanted or wanted & PAY_WORDS) else None
    if job is not None:  # "how much does it pay?" to whoever has a job going
        reward = job.reward
        paid = [money(reward.credits, pack)] if reward.credits else []
        paid += [_count(n, pack.items[i].name.lower()) for i, n in Counter(reward.items).items() if i in pack.items]
        return (f"{told} that {job.title} pays {or_list(paid, 'and')}." if paid else
                f"{told} that {job.title} pays in goodwill, not coin.", [])
    if who is not None and item is None and wanted and wanted <= PAY_WORDS and wanted - {"it", "that", "this"}:
        other = next((p for p in locals_ if p.id != who.id and _job_of(p, state, pack) is not None), None)
        return ((f"{who.name} has no job going that pays; {other.name} has one.", []) if other else  # "how much
                (f"{who.name} has no job going that pays.", []))  # does it pay?" to someone with none
    stock = or_list([f"{pack.items[i].name.lower()} ({money(pack.items[i].value, pack)})" for i in here.shop], "and")
    if wanted & {"everything", "stock", "whole", "lot", "all"} and here.shop:  # "what would it cost to buy out your
        total = sum(pack.items[i].value for i in here.shop if i in pack.items)  # whole stock"
        return (f"{told} that one of everything sold in {the_place(here)} comes to {money(total, pack)}: {stock}.",
                [])
    dearest = bool({"expensive", "priciest", "dearest", "costliest"} & wanted) and "least" not in wanted
    if {"cheapest", "cheap", "least"} & wanted or dearest:  # "what's the cheapest thing you sell", "the most
        kind = references.kindred(" ".join(wanted - _PRICE_WORDS))  # expensive", "cheapest healing item?"
        sold = sorted((pack.items[i] for i in here.shop if i in pack.items), key=lambda it: it.value, reverse=dearest)
        fit = [it for it in sold if kind & references.words(f"{it.name} {' '.join(it.tags)} {it.description}")]
        sold = fit or sold
        offers = [f"{with_article(it.name.lower())} at {money(it.value, pack)}" for it in sold[:1 if dearest else 2]]
        offers += [f"a drink at {money(DRINK_PRICE, pack)}"] if here.type == "bar" and not fit and not dearest else []
        most = "the dearest" if dearest else "the cheapest"
        return ((f"{told} that {most} to be had in {the_place(here)} is {or_list(offers, 'or')}.", []) if offers
                else (f"Nobody sells anything in {the_place(here)}.", []))
    if item is not None and item.id in here.shop:
        return (f"{told} that the {item.name.lower()} is {money(item.value, pack)} here.", [])
    if here.type == "bar" and references.words(topic) & DRINK_WORDS:
        return (f"{told} that a drink is {money(DRINK_PRICE, pack)} here.", [])
    what = item.name.lower() if item else (topic or "that")
    sold = f" Here you can buy {stock}." if stock else ""
    return (f"Nobody sells {what} in {the_place(here)}.{sold}", [])


def _where_is(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    bought = re.match(r"(?:a |an )?(?:person|body|fellow|one|someone|somebody|people|folk|folks) (?:buy|get|find|"
                      r"purchase|pick up) (?P<t>.+)$", topic)
    if bought is not None:  # "where does a person buy water around here?": who sells it
        return _where_sold(bought.group("t"), speaker, locals_, state, pack)
    origin = re.match(r"(?:all )?(?:the )?(?P<t>.+?) (?:come|comes|came|coming) from$", topic)
    if origin is not None:  # "where does all the salt come from": what is known of it, not a way there
        found = recall.record(origin.group("t"), state, pack, frozenset({"lore", "place"}))
        if found is not None:
            return _recalled(found, speaker, locals_, state, pack)
        return _about(origin.group("t"), speaker, locals_, state, pack)
    told, teller = _teller(speaker, locals_)
    deictic = set(topic.split()) <= {"that", "it", "there", "this", "the", "place", "out", "over", "exactly"}
    named = last_place(state, pack) if deictic or (not references.words(
        topic) and not set(topic.split()) & {"them", "him", "her", "they", "he", "she"}) else None  # not a person
    if named is not None:  # "where is that exactly?": the place just spoken of
        loc = pack.locations[named]
        path = route(pack, state.location, named) or []
        via = f", by way of {or_list([the_place(pack.locations[lk.to]) for lk in path[:-1]], 'and')}" if len(
            path) > 1 else ""
        what = f" {end(_first_sentence(loc.description))}" if topic.endswith("there") else ""  # "what's out there?"
        return (f"{told} that {the_place(loc)} is {_away(state, pack, named)}{via}.{what}", [])
    if (topic in references.PRONOUNS or deictic) and teller is not None:  # "where do i find them?": the job says
        # who, or ask
        job = _their_job(teller, state, pack)
        if job:
            return (f"{teller.name} comes back to the job: {end(job)}", [])
        if topic in references.PRONOUNS:
            return (f"{teller.name} asks who you mean.", [])
        return (f"{teller.name} is not sure which place you mean. {_ways(state, pack)}", [])
    everyone = [*pack.npcs.values(), *pack.companions.values()]
    wanted = references.words(topic)
    person = next((n for n in everyone if wanted & references.words(f"{n.name} {' '.join(n.aliases)}")), None) or \
        next((n for n in everyone if wanted & {n.role.split()[-1]}), None) or \
        next((n for n in everyone if references.kindred(topic) & references.kindred(n.role.split()[-1])), None)
    # by name, by the word of their role itself ("the headwoman"), by a word of its kind
    if person is not None:
        at = state.world.npc_locations.get(person.id, getattr(person, "location", None))
        if at is None or at not in pack.locations:
            return (f"{told} that nobody knows where {person.name} is.", [])
        if at == state.location:  # "is amos around?": here, whoever answers (Amos himself, as like as not)
            return (f"{person.name}, {with_article(person.role)}, is right here in "
                    f"{the_place(pack.locations[at])}.", [])
        return (f"{told} that {person.name}, {with_article(person.role)}, is at {the_place(pack.locations[at])}.", [])
    place_id = references.place(topic, state, pack)
    if place_id is not None and references.names_place(topic, place_id, pack):  # "cockle row" is not Kettle Row
        loc = pack.locations[place_id]
        return (f"{told} that {the_place(loc)} is {_away(state, pack, place_id)}.", [])
    followed = _followed_up(topic, speaker, locals_, state, pack)
    if followed is not None:  # "where do they sit?" after asking about the deputies: where the deputies sit
        return followed
    what = topic if topic and len(topic.split()) <= 3 else "such place"  # not "no weigh stuff and collect the taxes"
    return (f"{told} that there is no {what} near {the_place(pack.locations[state.location])}."
            f" {_ways(state, pack)}", [])


GOODS_WORDS = frozenset({"supplies", "supply", "provisions", "gear", "equipment", "goods", "kit", "tools", "stuff",
                         "things", "wares", "necessities", "essentials"})


def _where_sold(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    told, _ = _teller(speaker, locals_)
    topic = re.sub(r"\s+(?:in|around|round|near|about) (?:this|the|here)(?: \w+)?$|\s+(?:nearby|around here|round "
                   r"here|here)$", "", topic)  # "salt in this town": salt
    item = references.item(topic, state, pack)
    trader = next((n for n in pack.npcs.values() if n.id not in state.world.defeated_npcs and item is None and
                   references.words(topic) and references.words(topic) <= references.words(n.role)), None)
    if trader is not None:  # "who sells salt in this town": the one whose trade it is
        where = pack.locations.get(trader.location) if trader.location else None
        at = f" at {the_place(where)} ({_away(state, pack, where.id)})" if where is not None else ""
        return (f"{told} that {trader.name}, {with_article(trader.role)}, is the one for that{at}.", [])
    asked = references.words(topic)
    named = item is not None and bool(references.kindred(topic) & references.words(
        f"{item.name} {' '.join(item.tags)}"))  # the item the words name, not one they only brush against
    if not named and asked & references.PLACE_KINDS and not asked & GOODS_WORDS:  # "is there a market where i can
        return _where_is(topic, speaker, locals_, state, pack)  # get food": the place
    if (not named or asked <= GOODS_WORDS) and asked & GOODS_WORDS:  # "where could i buy some supplies", "a shop
        # for gear": the nearest place that sells several things
        stocked = sorted((m, -len(loc.shop), loc.id) for loc in pack.locations.values() if len(loc.shop) >= 2 and
                         loc.id != state.location and (m := minutes_to(pack, state.location, loc.id)) is not None)
        if stocked:
            loc = pack.locations[stocked[0][2]]
            wares = or_list([pack.items[i].name.lower() for i in loc.shop[:4] if i in pack.items], "and")
            return (f"{told} that {the_place(loc)} ({_away(state, pack, loc.id)}) is where to get them: {wares}.", [])
    if not named:
        what = "any such thing" if asked & GOODS_WORDS else with_article(topic) if topic else "that"
        return (f"{told} that nobody sells {what} anywhere near.", [])
    shops = [loc for loc in pack.locations.values() if item.id in loc.shop]
    if not shops:
        return (f"{told} that nobody sells {with_article(item.name.lower())} anywhere in these parts.", [])
    where = or_list([f"{the_place(loc)} ({_away(state, pack, loc.id)})" for loc in shops[:3]])
    return (f"{told} that {with_article(item.name.lower())} can be had at {where}, for {money(item.value, pack)}.", [])


def _who_is(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    people = everyone_at(state, pack, state.location)
    if topic in ("", "you"):  # "who are you?", "what's your name?": the one asked (or the one at hand) answers
        speaker = speaker or (locals_[0] if locals_ else None)
        if speaker is not None:
            return (f"\"{speaker.name},\" comes the answer: {with_article(speaker.role)}. "
                    f"{_told_of(speaker, state, pack)}", [])
    who = references.person(topic, state, pack, people, speaker.id if speaker else None) or (
        speaker if topic in references.PRONOUNS or topic in ("", "you") else None)
    if who is None:
        away = _known_by_role(topic, people, pack)
        if away is not None:  # "who's the provost": someone of the pack, not here
            return (_who_away(away, speaker, locals_, state, pack), [])
        return _about(topic, speaker, locals_, state, pack)
    return (f"That is {who.name}, {with_article(who.role)}: {_told_of(who, state, pack)}", [])


CHECKED = frozenset({"PERSUADE", "DECEIVE", "INTIMIDATE"})  # a stage that needs one of these: a secret kept
_ASKING_WORDS = frozenset({"convince", "persuade", "get", "make", "say", "tell", "why", "what", "who", "how", "find",
                           "out", "learn", "ask", "talk", "lean", "trick"})


def _guarded(router: RouterOutput, who: PresentNpc, state: GameState, pack: EraPack) -> str | None:
    """When ``who`` is the one an active job's stage says must be talked round (persuaded, deceived or leaned on) to
    tell something, and the question asks after that (two of the stage's own words, less names and asking words):
    they keep it back, and what would get it out of them is said; None otherwise."""
    asked = references.words(router.text)
    for quest_id, progress in state.quests.items():
        quest = pack.quests.get(quest_id)
        if progress.status != QuestStatus.ACTIVE or quest is None or progress.stage >= len(quest.stages):
            continue
        when = quest.stages[progress.stage].when
        needs = [ac for ac in when.action_classes if ac in CHECKED]
        if when.npc != who.id or not needs:
            continue
        names = references.words(" ".join([who.name, *(p.name for p in pack.locations.values())]))
        kept = references.words(quest.stages[progress.stage].objective) - names - _ASKING_WORDS
        if len(asked & kept) >= 2:
            first = who.name.split()[0]
            ways = or_list([quests.APPROACH[ac] for ac in needs])
            return phrase(state, f"{who.name} does not answer that, not for the asking: {first} will need {ways}.",
                          f"{first} looks anywhere but at you. That will take {ways}, not a plain question.")
    return None


def _who_away(person, speaker: PresentNpc | None, locals_: list[PresentNpc], state: GameState, pack: EraPack) -> str:
    """Who ``person`` of the pack, not here, is, told by the one asked or whoever is here: their role, where they
    are found, and what they are like ('who is juno farrow?', 'who's the provost?' asked in the bar)."""
    told, _ = _teller(speaker, locals_)
    where = pack.locations.get(state.world.npc_locations.get(person.id, getattr(person, "location", None)) or "")
    at = f", found at {the_place(where)}" if where is not None and where.id != state.location else ""
    return f"{told} that {person.name} is {with_article(person.role)}{at}: {_told_of(person, state, pack)}"


def _known_by_role(topic: str, people: list[PresentNpc], pack: EraPack):
    """The one person of the pack, not among ``people``, whose name or role ``topic`` names ('the provost', 'the
    almoner'); None when it names nobody, or several alike."""
    wanted = references.words(topic) - references.GENERIC_PEOPLE
    if not wanted:
        return None
    here = {p.id for p in people}
    found = [n for n in [*pack.npcs.values(), *pack.companions.values()] if n.id not in here and (
        wanted & references.words(f"{n.name} {' '.join(n.aliases)}") or wanted <= references.words(n.role))]
    return found[0] if len(found) == 1 else None


def _who_am_i(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    background = pack.backgrounds.get(state.player.background)
    what = f", {with_article(background.name.lower())}" if background else ""
    if speaker is None:
        return (f"You are {state.player.name}{what}; nobody here needs reminding.", [])
    return (f"{speaker.name} gives you a look: you are {state.player.name}{what}.", [])


def _time(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    now = clock.clock_text(state.world.time_minutes, pack.era.calendar.day_names)
    era = f", in {the_place(pack.era.era)}" if topic in ("year", "age", "era") else ""  # the years of the era
    return (f"It is {clock.time_of_day(state.world.time_minutes)}, {now}{era}.", [])


def _ask(topic: str, speaker, locals_, state: GameState, pack: EraPack) -> tuple[str, list]:
    if speaker is not None and references.words(topic) and references.person(topic, state, pack) is speaker:
        if re.search(r"\b(?:hi|hello|hey|howdy|evening|morning|mind if|sit|join)\b", topic):
            return _reply("hello", speaker, state, pack)  # "hi there old timer, mind if i sit?" to the old timer
        return _about("yourself", speaker, locals_, state, pack)  # "ask ottilie what happened to her boat"
    if references.words(topic):
        return _about(topic, speaker, locals_, state, pack)
    return _reply("more", speaker or (locals_[0] if locals_ else None), state, pack)


def _asked_for_missing(router: RouterOutput, state: GameState, pack: EraPack) -> str | None:
    """A reply or question said to somebody who is not here ('hello amos!', 'ask ottilie about the eels'): where they
    are, when the pack knows them, or that nobody here answers to the name; None when the line is said to no one in
    particular."""
    if router.absent_npc:
        return absent_line(router.absent_npc, state, pack)
    return _no_such_person(router, state, pack)


def _no_such_person(router: RouterOutput, state: GameState, pack: EraPack) -> str | None:
    """'There is no Amos in the Slag & Lantern; you could talk to Hesper Quill or Tobin Marsh.' when the line is said
    to someone nobody here answers to (``references.missing_person``); None otherwise."""
    who = addressee(router.text)
    who = asked_of(router.text) or who if who == router.text else who  # "ask ottilie what happened to her boat"
    thanked = parser.SAID_TO.match(parser.plain(router.text)) if who == router.text else None
    who = thanked.group("who") if thanked is not None else who  # "apologise to the drillers for knocking their dice"
    missing = references.missing_person(who, state, pack) if who != router.text else None
    if missing is None:
        return None
    locals_ = [p.name for p in everyone_at(state, pack, state.location) if not p.companion]
    instead = f"; you could talk to {or_list(locals_[:3])}" if locals_ else ""
    be = "are" if missing.endswith("s") and missing.islower() else "is"  # "there are no drillers"
    return f"There {be} no {missing} in {the_place(pack.locations[state.location])}{instead}."


# Words for the people of a place together, not one of them.
GROUP_WORDS = frozenset({"everyone", "everybody", "all", "room", "crowd", "regulars", "locals", "folk", "folks",
                         "people", "men", "women", "guys", "lads", "drinkers", "players", "patrons", "customers",
                         "gang", "lot", "table"})


# Words said out loud to no one in particular: "tell them i work for the charter", "say i am a friend of the union".
_SAID = re.compile(r"^(?:i )?(?:tell|say|announce|shout|whisper|call out|explain|mention)(?: to)? (?:them|everyone|"
                   r"the room|everybody|all)?,? ?(?:that )?(?P<what>.{3,})$")


def nobody_by_that_name(router: RouterOutput, state: GameState, pack: EraPack) -> str:
    """Talk aimed at somebody who is not here: who was asked for, and who is here to talk to instead."""
    locals_ = [p.name for p in everyone_at(state, pack, state.location) if not p.companion]
    told = references.words(addressee(router.text))
    extras = references.detail(addressee(router.text), state, pack) if told & GROUP_WORDS and told - GROUP_WORDS - {
        "everyone", "everybody", "all", "room", "crowd", "here", "you", "lot"} else None
    if extras is not None and references.PEOPLE_LINE.search(extras):  # "talk to the men playing dice": the place's
        others = f"; the talk here is with {or_list(locals_[:3])}" if locals_ else ""  # extras, who keep to themselves
        return f"{end(extras)} They keep to themselves{others}."
    if told & GROUP_WORDS and locals_:  # "say hello to everyone"
        return f"You speak to the room, and {or_list(locals_[:4], 'and')} hear you out."
    missing = _no_such_person(router, state, pack)
    if missing is not None:
        return missing
    said = _SAID.match(router.text)
    if said:  # "tell them i work for the charter": what was said, told back
        words = said.group("what").strip(" .!?")
        return f"\"{words[:1].upper()}{words[1:]},\" you tell whoever is near, and they hear it."
    return "You speak up; whoever is near can hear you."


_QUESTIONS = {"who_runs": _who_runs, "who_rules": _who_rules, "what_here": _what_here, "where_go": _where_go,
              "where_am_i": _where_am_i, "news": _news, "about": _about, "how_much": _how_much, "where_is": _where_is,
              "who_is": _who_is, "time": _time, "who_am_i": _who_am_i, "any_work": _any_work, "money": _money,
              "lodging": _lodging, "danger": _danger, "weather": _weather, "smell": _smell, "credit": _credit,
              "trouble": _trouble, "factions": _factions, "side": _side,
              "menu": _menu, "history": _history,
              "leader": _leader, "who_here": _who_here, "feel": _feel, "sights": _sights, "worship": _worship,
              "ask": _ask, "aim": _aim,
              "where_sold": _where_sold, "someone": _someone, "controls": _controls, "fee": _fee}
QUESTION_VERBS = frozenset(_QUESTIONS)
