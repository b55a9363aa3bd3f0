"""Follow-up questions: a question that leans on what the last turn told ("who do you suspect?", "is it dangerous?",
"how long has this been going on?" after a job; "when's he supposed to show up?" after the auditor) is answered from
that, before any rule that answers the words alone (a lore sentence sharing one word, a detail of the room).

What the last turn told is read from the state, never remembered apart: the job whose summary last turn's narration
holds (``told_job``, answered by ``about_job``), the topic of last turn's question (``rules.parser.read`` of its
input, answered by ``about_topic``), and the words of last turn's narration a question takes up ("lights on the
marsh? who'd be carrying them?", answered by ``about_echo``). ``conversation._follow_up`` decides when a question is
one (``leans``, ``talked``, ``starting``) and tries them in that order. Deterministic: the same state and words give
the same answer. Job sentences are compared by ``references.stem_of`` stems, records by ``recall``'s own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skald.core.pack import EraPack, Quest
from skald.core.records import PresentNpc
from skald.core.state import GameState
from skald.core.vocab import QuestStatus
from skald.rules import prose, recall, references
from skald.rules.parser import read
from skald.text import end, sentences, the_place

# Words a follow-up leans on: what was just said, by a pronoun or a pointing word.
LEANING = frozenset({"it", "its", "that", "this", "they", "them", "their", "he", "him", "his", "she", "her", "there",
                     "those", "these", "thing", "job", "work"})
# Questions short enough to be about what was just said without saying so ("who do you suspect?", "how long ago?").
SHORT = 9
_START = re.compile(r"\b(?:begin|start|first|show me|map|where (?:do|should|would|can) i (?:go|look|start|begin)|"
                    r"how (?:do|would|should|can|could) i (?:start|begin|get|find|go about|figure|track|learn)|"
                    r"find out)\b")
_GENERIC = frozenset({"rumor", "rumors", "news", "gossip", "talk", "word", "work", "job", "jobs", "advice", "help",
                      "trouble", "anything", "something", "stuff", "things", "the", "any", "some", "latest"})
NAMING = re.compile(r"\b(?:name|names|called|call you|who are you|yourself|about you)\b")  # of the one asked
_RISK = re.compile(r"\b(?:danger\w*|safe|risk\w*|killed|die|trap|deadly|hurt)\b")
_PLAIN = frozenset({"what", "who", "when", "where", "why", "how", "which", "is", "are", "was", "were", "do", "does",
                    "did", "you", "your", "i", "me", "my", "it", "that", "this", "they", "them", "the", "a", "an",
                    "of", "to", "and", "or", "so", "then", "be", "have", "has", "had", "can", "could", "would",
                    "should", "will", "about", "if", "guess", "think", "reckon", "exactly", "really", "even", "ok",
                    "okay", "gonna", "going", "get", "got", "u", "ur", "tbh", "lol", "sounds", "like", "just", "tell",
                    "told", "more", "know", "say", "said", "actually", "there", "here"})


@dataclass(frozen=True)
class FollowUp:
    """A follow-up's answer: the sentence that answers, and whose own line it is (quoted as theirs; None: told of the
    job or topic by whoever answers)."""

    sentence: str
    own: PresentNpc | None = None


def leans(text: str, state: GameState) -> bool:
    """Whether ``text`` (a question) leans on last turn: it has a pronoun or pointing word, is short, or asks where
    to start, and there was a last turn."""
    if not state.recent:
        return False
    found = set(references.words(text)) | set(re.findall(r"[a-z]+", text.lower()))
    return bool(found & LEANING) or len(text.split()) <= SHORT or _START.search(text.lower()) is not None


def talked(state: GameState) -> bool:
    """Whether last turn was talk: its line a question or a reply, or said to someone ("talk to the old man")."""
    line = state.recent[-1].input.lower() if state.recent else ""
    found = read(line) if line else None
    return (found is not None and found.kind in ("question", "reply")) or re.match(
        r"(?:talk|speak|chat|ask|tell|greet|say)\b", line) is not None


def starting(text: str) -> bool:
    """Whether ``text`` asks where or how to start ("where do I begin?", "how do I find out who it was?")."""
    return _START.search(text.lower()) is not None


def told_job(state: GameState, pack: EraPack) -> Quest | None:
    """The job (a quest not yet done) whose summary's first sentence, or a stage's objective, last turn's narration
    holds: the one just offered or spoken of."""
    told = " ".join(state.recent[-1].sentences).lower() if state.recent else ""
    for quest in pack.quests.values():
        progress = state.quests.get(quest.id)
        if progress is not None and progress.status not in (QuestStatus.OFFERED, QuestStatus.ACTIVE):
            continue
        first = sentences(quest.summary)
        said = [*first[:1], *(stage.objective for stage in quest.stages)]  # offered, or its next step told
        if any(line.lower() in told for line in said if line):
            return quest
    return None


def _stems(text: str) -> set[str]:
    return {references.stem_of(w) for w in re.findall(r"[a-z]+", text.lower()) if w not in _PLAIN and len(w) > 2}


def about_job(text: str, quest: Quest, giver: PresentNpc | None, state: GameState, pack: EraPack) -> FollowUp | None:
    """The answer to ``text`` about ``quest`` (told last turn): of its summary, its stages' objectives, the giver's
    wants and lines and the description of where its next stage is, the sentence sharing the most word stems with
    the question and not told lately, else (a question not about the one asked) the next stage's objective; a
    question of where to start gets that objective, and one of danger what waits at its place. None when nothing of
    the job answers."""
    progress = state.quests.get(quest.id)
    stages = quest.stages[progress.stage if progress is not None else 0:]
    person = pack.person(quest.giver)
    place = next((pack.locations[s.when.location] for s in stages if s.when.location in pack.locations), None)
    heard = " ".join(s for t in state.recent for s in t.sentences)
    if _START.search(text.lower()) and stages:
        where = f" It starts at {the_place(place)}." if place is not None and place.id != state.location else ""
        return FollowUp(f"{end(stages[0].objective)}{where}")
    if _RISK.search(text.lower()) and place is not None:
        waits = f" and the {place.hazards[0].name.lower()} is the thing to fear there" if place.hazards else ""
        return FollowUp(f"The work takes you to {the_place(place)}{waits}: {end(sentences(place.description)[0])}")
    candidates = [(s, False) for s in sentences(quest.summary)]
    candidates += [(s.objective, False) for s in stages]
    if person is not None:
        wants = getattr(person, "wants", None)
        candidates += [(f"{person.name.split()[0]} wants {wants}", False)] if wants else []
        candidates += [(line, True) for line in getattr(person, "lines", []) or []]
    candidates += [(s, False) for s in sentences(place.description)] if place is not None else []
    wanted = _stems(text) - _stems(person.name if person is not None else "")  # their name asks for them
    scored = [(len(wanted & _stems(s)), i, s, own) for i, (s, own) in enumerate(candidates)
              if not prose.described_in(s, heard)]
    best = max(scored, key=lambda x: (x[0], -x[1]), default=None)
    short = len(text.split()) <= SHORT
    if best is not None and best[0] < (1 if short else 2) and short and not NAMING.search(text.lower()):  # "who
        best = next((x for x in scored if x[2] in [s.objective for s in stages]), None)  # do you suspect?": its
        # next step
    elif best is not None and best[0] < (1 if short else 2):
        return None  # a long line sharing a word with the job is not about it for that
    if best is None:
        return None
    return FollowUp(end(best[2]), giver if best[3] else None)


def about_topic(text: str, speaker: PresentNpc | None, people: list[PresentNpc], state: GameState,
                pack: EraPack) -> FollowUp | None:
    """The answer to ``text`` about the topic of last turn's question ("when's he supposed to show up?" after asking
    about the auditor): a line of the one asked (``recall.said_line``), else the record of both together
    (``recall.record``), else of the pack's sentences that name the topic, the one sharing most with the question,
    one not told last turn first. None when last turn asked nothing or nothing names it."""
    before = read(state.recent[-1].input.lower()) if state.recent else None
    if before is None or before.kind != "question" or not set(before.topic.split()) - _GENERIC:
        return None  # "ask the innkeeper about rumors": no subject to lean on
    asked = f"{text} {before.topic}"
    heard = " ".join(state.recent[-1].sentences)
    said = recall.said_line(asked, speaker, people, state, pack)
    if said is not None and not prose.described_in(said.line, heard):
        return FollowUp(said.line, said.who)
    found = recall.record(asked, state, pack)
    if found is not None and not prose.described_in(found.sentence, heard):  # not what was just told, again
        return FollowUp(end(found.sentence))
    topic = recall.stems_of(before.topic)
    if not topic:
        return None
    wanted = recall.stems_of(text) - topic
    told = [(len(wanted & stems), not prose.described_in(sentence, heard), -i, sentence)
            for i, (_, sentence, stems) in enumerate(recall.sentences_naming(topic, state, pack))]
    best = max(told, default=None)
    return FollowUp(end(best[3])) if best is not None else None  # what the pack tells of it, the likeliest first


def about_echo(text: str, people: list[PresentNpc], state: GameState, pack: EraPack) -> FollowUp | None:
    """The answer to a question that takes up words of what was just said ("lights on the marsh? who'd be carrying
    them?", "the auditor?? when's he supposed to show up?"): of the pack's sentences (its records', and the lines and
    descriptions of the people here) that hold a word of the question last turn's narration also held, one not told
    last turn first, then the one holding most of them, then most of the question's other words. None when the
    question takes up no word of it (people's names aside) or nothing holds one."""
    heard = " ".join(state.recent[-1].sentences) if state.recent else ""
    names = recall.stems_of(" ".join(p.name for p in people))
    asked = recall.stems_of(text)
    echoed = (asked & recall.stems_of(heard)) - names
    if not echoed:
        return None
    told: list[tuple[str, PresentNpc | None]] = [(sentence, None) for _, sentence, _ in
                                                 recall.sentences_naming(frozenset(), state, pack)]
    for person in people:
        pack_person = pack.person(person.id)
        told += [(line, person) for line in getattr(pack_person, "lines", []) or []]
        told += [(sentence, None) for sentence in sentences(person.description)]
    best = None
    for i, (sentence, own) in enumerate(told):
        stems = recall.stems_of(sentence)
        hits = len(echoed & stems)
        if not hits:
            continue
        key = (not prose.described_in(sentence, heard), hits, len((asked - echoed) & stems), -i)
        if best is None or key > best[0]:
            best = (key, sentence, own)
    return FollowUp(end(best[1]), best[2]) if best is not None else None
