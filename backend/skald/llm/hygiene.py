"""Output hygiene: what a model's reply may show a player, for every role, in one place.

Small local models wrap what they were asked for in habits of their own. Seen in real local-model use (reports in
the Ollama, Open WebUI and SillyTavern trackers; the habits of qwen3, deepseek-r1, llama3.x, mistral and gemma):

* a reasoning block (``<think>…</think>``, or reasoning ended by a lone ``</think>`` when the chat template opened
  it), sent when thinking is not turned off;
* a chat preamble ("Sure! Here is the narration for this turn:") and a sign-off ("Let me know if you'd like…");
* markdown: headings, ``**bold**``, rules, fences; speaker labels ("Narrator:", "**GM:**"); meta stage directions
  ("*The narrator pauses*"); out-of-character notes ("(OOC: …)", "Note: …");
* a closing question to the player ("What do you do next?");
* a refusal or meta-talk ("I'm sorry, but as an AI language model I can't…");
* a reply in another language (qwen drifting into Chinese), or one that repeats the last turn's prose;
* a reply cut at ``num_predict`` (Ollama's ``done_reason: "length"``), ending mid-sentence.

:func:`clean` strips the habits and judges what is left (:class:`Cleaned`); :class:`StreamCleaner` does the same to
a reply as it streams, so a player never reads a habit even for a moment; :func:`json_text` finds the JSON object in a
structured role's reply. The language check uses the ``lingua`` detector, loaded on first use (a model must answer
for it to be needed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any, Literal

from skald.text import strings_in

Verdict = Literal["usable", "refusal", "meta", "wrong_language", "repeat", "empty"]
PROSE_ROLES = ("narrator", "evaluator", "setup")  # roles whose reply is prose a player reads as it stands
TEXT_ROLES = (*PROSE_ROLES, "character")  # roles that answer in text (a character in its tag line, rules.tag_line)

# Where a model runs on past its own turn (a wrong chat template, a base model): an end-of-turn token, the next
# speaker's header, or a line written as the player ("User: I go to the bar"). Everything from there on goes.
_TURN_END = re.compile(r"<\|(?:im_end|eot_id|end|endoftext|end_of_text|eom_id)\|>|</s>|<end_of_turn>|"
                       r"<\|im_start\|>\s*user|<\|start_header_id\|>\s*user|<start_of_turn>\s*user|\[INST\]|"
                       r"^\s*#{2,}\s*(?:instruction|input|user)\b|(?:^|\n)\s*(?:user|human|player|you|\{\{user\}\}|"
                       r"<\|user\|>)\s*:", re.IGNORECASE | re.MULTILINE)
# A token or header that opens the model's own turn, and any other special token: taken out.
_SPECIAL = re.compile(r"<\|(?:im_start|start_header_id)\|>\s*(?:assistant|model)?\s*(?:<\|end_header_id\|>)?|"
                      r"<start_of_turn>\s*model|\[/INST\]|<s>|<\|[a-z_]{1,20}\|>|^\s*#{2,}\s*(?:response|assistant|"
                      r"output|answer)\s*:?\s*$", re.IGNORECASE | re.MULTILINE)
_EMOJI = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_OPEN_THINK = re.compile(r"<(think|thinking|reasoning|thought)>", re.IGNORECASE)
_CLOSE_THINK = re.compile(r"</(think|thinking|reasoning|thought)>", re.IGNORECASE)
_FENCE = re.compile(r"^\s*```[\w-]*\s*$")
_RULE = re.compile(r"^\s*(?:[-*_=]\s*){3,}$")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_BOLD_LINE = re.compile(r"^\s*(?:\*\*|__)[^*_]{1,60}(?:\*\*|__)\s*:?\s*$")  # "**The Brass Eel**" alone on a line
_LABEL = re.compile(r"^\s*(?:\*\*|__)?\[?(?:narrator|narration|narrative|story|game master|gm|dm|dungeon master|"
                    r"storyteller|response|output|assistant|answer|scene|turn \d+|continuation|summary|character "
                    r"summary|your character|result|ai|model|bot|outcome|episode result|episode summary|verdict|"
                    r"conclusion|recap|ending)\]?(?:\*\*|__)?\s*(?:\([^)]{0,30}\))?\s*(?::|\s-|\u2014)\s*"
                    r"(?:\*\*|__)?\s*", re.IGNORECASE)
# A speaker's name as a label before their words: 'Odile: "Two greys."', '**Hesper:** "..."', 'Ottilie (to you): *'
_NAME_LABEL = re.compile(r"^\s*(?:\*\*|__)?[A-Z][\w'\u2019-]*(?: [A-Z][\w'\u2019-]*){0,2}(?:\*\*|__)?\s*"
                         r"(?:\([^)]{0,24}\))?\s*(?:\*\*|__)?:(?:\*\*|__)?\s*(?=[\"\u201c\[]|\*(?![*\s]))")
# A field of the prompt echoed back: "Outcome: SUCCESS", "Location: Kettle Row", "HP: 10/12".
_FIELD = re.compile(r"^\s*(?:\*\*|__)?(?:outcome|result|roll|check|dc|action|location|place|time|player input|input|"
                    r"hp|stress|credits|money|turn|mood|tone|word count|words|tense|perspective|pov|characters?|"
                    r"setting|beat|scene goal)(?:\*\*|__)?\s*:\s*[^.!?\n]{0,48}$", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+")
_QUOTE_MARK = re.compile(r"^\s*(?:>\s*)+")  # a markdown blockquote
# A menu for the player: everything from this line on goes ("Options:", "**What do you do?**", "Your choices:").
_MENU = re.compile(r"^\s*(?:\*\*|__|#+\s*)?(?:options|choices|your (?:options|choices|move)|possible actions|"
                   r"suggested actions|actions|what (?:do|will|would|should|can) you do(?: next| now)?)\b[^\n]{0,40}$",
                   re.IGNORECASE)
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
_META_BITS = (r"narrator|storyteller|game master|the gm|the dm|fade to|fades? (?:out|to black)|end (?:of )?(?:the )?"
              r"(?:scene|turn|narration|response)|to be continued|scene (?:fades|ends|cuts|shifts|changes|moves|"
              r"transitions)|cut to|music|camera|pauses for effect|'s reply|reply\)|continued|beat \d|this turn|"
              r"word count|words?: \d|tokens?")
_META_STARS = re.compile(r"\*\(?[^*\n]*\b(?:" + _META_BITS + r")\b[^*\n]*\)?\*|^\s*\([^()\n]*\b(?:" + _META_BITS +
                         r")\b[^()\n]*\)\s*$", re.IGNORECASE | re.MULTILINE)
_OOC = re.compile(r"\(\(?\s*(?:ooc|out of character|author'?s note|note|n\.b\.|disclaimer)\b[^)]*\)?\)|"
                  r"\[\s*(?:ooc|out of character|author'?s note|note|n\.b\.|disclaimer)\b[^\]]*\]", re.IGNORECASE)
_NOTE_LINE = re.compile(r"^\s*(?:\*\*|__|\()?(?:ooc|out of character|note|author'?s note|disclaimer|p\.s\.)\b\s*"
                        r"(?:\*\*|__)?\s*[:\-]", re.IGNORECASE)
_EMPTY_BRACKETS = re.compile(r"\(\s*\)|\[\s*\]|\*\s*\*")
_BRACKETED = re.compile(r"\[[^\[\]\n\"\u201c]{1,120}\]")  # "[Narrator]", "[Pause]": never a prose role's story
# A field of a form, "Label: value" on a line of its own ("Player action: wait", "Episode result: Mixed").
_FORM_LINE = re.compile(r"^\s*(?:\*\*|__)?[A-Z][A-Za-z'\u2019]*(?: [A-Za-z'\u2019]+){0,3}(?:\*\*|__)?\s*:"
                        r"(?:\*\*|__)?\s*[^\"\u201c\n]{1,120}$")
# A chat opener ("Sure!", "Okay, here is…"), not prose that starts the same way ("Sure enough, the hall is locked.",
# "Of course, the door is barred."): it ends in "!", "." or ":", or a comma before the preamble itself.
_INTERJECTION = re.compile(r"^\s*(?:sure(?: thing)?|certainly|of course|absolutely|okay|ok|alright|all right|"
                           r"great(?: choice| question| idea)?|got it|understood|no problem|happy to help|gladly|"
                           r"very well|perfect|excellent(?: choice)?|wonderful|awesome)\b\s*(?:[!.:]+\s*|[,\u2014-]\s*"
                           r"(?=(?:here|i'?ll|i will|i can|i'?d|let me|let's|this is|below|as (?:\w+|requested)|"
                           r"so)\b))",
                           re.IGNORECASE)
_META_NOUNS = (r"narration|narrative|story|scene|response|continuation|next part|next scene|turn|what happens|reply|"
               r"description|summary|brief|line|lines|version|json|output|result|passage|paragraph|prose|character|"
               r"dialogue|words|voice")
_PREAMBLE = re.compile(
    r"^\s*(?:(?:(?:based on|following|given|with|using) [^,\n]{1,60},\s*)?(?:here(?:'s| is| are| goes)|below is|"
    r"what follows is|this is)\b[^\n]{0,80}?\b(?:" + _META_NOUNS +
    r")\b[^\n]{0,80}?(?::|\.|!)(?=\s|$)|"
    r"(?:as \w+(?: \w+)?,\s*)?(?:i'll|i will|let me|allow me to|i'd be happy to|i would be happy to|i can|i'd|i would)"
    r"\s+(?:continue|narrate|describe|write|tell|set|pick up|craft|keep|take|play|summari[sz]e|help|say|respond|"
    r"answer|voice|go on)\b[^\n]{0,140}?(?::|\.|!)(?=\s|$)|"
    r"(?:continuing|narrating|the story continues|story continues|next turn|turn \d+|in (?:\w+'s|his|her|their) "
    r"voice)\b[^\n.!?]{0,60}:(?=\s|$)|(?:(?:alright|all right|ok|okay|right|so),? )?here (?:goes|we go)\b[.!:]*|"
    r"(?:and so|so|now|meanwhile,? )?(?:the (?:story|tale|adventure|scene) "
    r"(?:continues|goes on|unfolds|resumes)|continuing (?:the|our|from)[^\n.!?]{0,40}|we continue|picking up where "
    r"we left off)[^\n.!?]{0,40}?(?:\.\.\.|\u2026|:|\.|!)(?=\s|$)|(?![^\n]*\byou)[^\n\"\u201c]{0,80}:$)",
    re.IGNORECASE)
_SIGNOFF = re.compile(
    r"^\s*(?:(?:just |please )?let me know|i hope|hope (?:this|that|you)|feel free|"
    r"would you like(?! to (?:sit|come|see|know|try))|"
    r"do you want me|shall i|should i continue|want me to|if you(?:'d| would)? like|please let me know|enjoy|"
    r"happy (?:gaming|adventuring|to)|i (?:can|could) (?:continue|adjust|rewrite|expand|change|write)|"
    r"(?:is there )?anything else|this (?:response|narration|passage|reply|continuation) |if you have any|"
    r"i(?:'ve| have) (?:kept|written|tried|included|made|aimed)|i aimed|in this (?:turn|response|narration)|"
    r"great job|well done|nice work|good luck|ready for (?:the|your) next|stay tuned|well played|bravo|"
    r"congratulations|congrats|nicely done|good game|gg\b|way to go|you did it|what an adventure|"
    r"(?:the )?end of (?:the )?(?:turn|narration|response|scene)|\[end\]|end\.?$|the end\.?$)", re.IGNORECASE)
_APOLOGY = re.compile(r"^\s*(?:i(?:'m| am) (?:really |so )?sorry|i apologi[sz]e|sorry|unfortunately)\b", re.IGNORECASE)
_REFUSAL = re.compile(
    r"\b(?:i(?:'m| am)? (?:can(?:no|')t|won't|will not|unable to|not able to|must decline to|refuse to|(?:do not|"
    r"don't) feel comfortable|not comfortable|not going to) (?:\w+ )?(?:continue|help|assist|comply|write|create|"
    r"generate|produce|provide|fulfil|fulfill|"
    r"engage|do that|narrate|describe|depict|go on|take part|participate|roleplay|role-play|encourage|condone|"
    r"promote|support|portray|glorify|continuing|writing|describing)|i must (?:respectfully )?decline|"
    r"against my (?:guidelines|programming|policies)|(?:violates?|against) (?:the |my )?(?:content |usage )?"
    r"polic(?:y|ies)|not able to (?:continue|help) with|cannot (?:fulfil|fulfill) (?:this|that|your) request|"
    r"my purpose is to be (?:helpful|harmless))", re.IGNORECASE)
_META = re.compile(
    r"\b(?:as an ai|as a language model|as an ai language model|i(?:'m| am) (?:just )?an? (?:ai|language model|"
    r"assistant|chatbot)|my (?:training|knowledge cutoff|programming)|the (?:system|user)(?:'s)? (?:prompt|message|"
    r"instructions?)|the player'?s (?:input|action|move|character)|(?:this|my) (?:response|reply|output)\b|"
    r"word count|second[- ]person|present tense|past tense|per your instructions|as (?:you |per )?(?:requested|"
    r"instructed)|(?:the|this) scene brief|key facts|i (?:need|have) to (?:convey|include|mention|show|make sure)|"
    r"i(?:'ll| will) (?:make sure|now write|write the|narrate the|keep it)|(?:don't|do not) have enough "
    r"information|please provide|i need (?:a few )?more (?:details|information|context)|could you (?:clarify|tell me|"
    r"provide|specify)|(?:i'm|i am) not sure (?:which|what|who)|supposed to (?:voice|play|write|narrate)|"
    r"the character could|perhaps (?:the|your) character|if you have any (?:other |more )?questions|"
    r"please (?:choose|pick|provide|tell me|enter|try|rephrase|specify|clarify|give|describe|select)|"
    r"(?:this|it|that|which) (?:keeps|maintains|captures|sets|establishes|conveys|reflects|highlights|preserves|"
    r"adds|builds|creates|heightens|emphasi[sz]es) (?:the |a |some )?(?:\w+ )?(?:scene|tone|mood|atmosphere|"
    r"tension|pacing|narrative|story|suspense|stakes|immersion)|i (?:kept|tried to keep|wanted to keep|chose|"
    r"focused|aimed|went with|decided)|the (?:tone|mood|pacing) (?:here |of the scene )?(?:is|was|stays)|"
    r"(?:in|for) (?:the|this) (?:narration|response|passage|scene),? i\b|the (?:user|player)\b|"
    r"\bi (?:should|need to|must|have to|want to|will need to)\b|\bi can help you\b|"
    r"brainstorm(?:ing)? (?:some |a few )?ideas|your (?:role-?playing|text[- ]based|tabletop) "
    r"(?:game|adventure|campaign|story)|\byour rpg\b|\blet me (?:think|see|describe|write|start|consider|"
    r"figure|check|make|plan|recall|re-?read)\b|\bthe outcome (?:is|was)\b|please (?:remember|note|keep in mind)|"
    r"(?:this|it) is (?:a |purely |just )?(?:fictional|fiction|a game|role-?play)|i gave (?:\w+ )?(?:a|an|the|him|"
    r"her|them)\b|i made (?:him|her|them|it|the)\b|i wrote\b|style guide|the director\b|in real life|real[- ]world|"
    r"i'?d (?:encourage|recommend|suggest|advise)\b|"
    r"serious (?:crimes?|consequences)|seek (?:help|support)|consult a|it (?:seems|sounds|looks) like you(?:'re| are|"
    r"'d| would)? (?:want|trying|asking|looking|wish|like)|you want me to|waiting for the player|"
    r"the player'?s response)",
    re.IGNORECASE)
_PLAYER_QUESTION = re.compile(
    r"^(?:so,? |now,? |and |well,? )?(?:what|where|how|which|who|will|would|do|does|are|shall|should|can|could|"
    r"is it|is there|ready|anything)\b[^\"\u201c\u201d]*\b(?:you|your|yourself|next|we)\b[^\"\u201c\u201d]*\?$|"
    r"^(?:what now|what next|and then|your move|the choice is yours|it'?s your (?:move|call|turn)|"
    r"it'?s up to you|what will it be|the decision is yours)\b[^\"\u201c\u201d]*[?.!]$|"
    r"^(?:perhaps|maybe|alternatively,?|or)?\s*(?:you could|you might|you may want to|you might want to|why not)\b"
    r"[^\"\u201c\u201d]*(?:\?|,? or [^\"\u201c\u201d]*[.!])$", re.IGNORECASE)
_QUOTE_CHARS = "\"\u201c\u201d"
_BREAK = re.compile(r"(?:(?<=[.!?\u2026])|(?<=[.!?\u2026][\"'\u201d\u2019)\]*_])|"
                    r"(?<=[.!?\u2026][\"'\u201d\u2019)\]*_]{2}))[ \t]+|\s*\n\s*|(?<=[\u3002\uff01\uff1f])\s*")
_WS = re.compile(r"[ \t]+")
_CLOSED = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]*_]*$")
_YOU = re.compile(r"\byou(?:r|rs|rself)?\b", re.IGNORECASE)


@dataclass(frozen=True)
class Cleaned:
    """A reply after hygiene.

    :param text: what a player may be shown ("" unless ``verdict`` is ``usable``).
    :param verdict: ``usable``, or why nothing of it may be shown: ``refusal``, ``meta``, ``wrong_language``,
        ``repeat``, ``empty``.
    :param habits: the habits found and stripped, in the order met (names as in the module docstring:
        ``reasoning``, ``preamble``, ``signoff``, ``markdown``, ``speaker_label``, ``stage_direction``, ``ooc_note``,
        ``closing_question``, ``truncated``, ``refusal``, ``meta``, ``wrong_language``, ``code_fence``).
    :param reasoning: the reasoning block's text, kept for the call record (never shown).
    """

    text: str
    verdict: Verdict = "usable"
    habits: tuple[str, ...] = ()
    reasoning: str = ""

    @property
    def usable(self) -> bool:
        return self.verdict == "usable"


def split_reasoning(raw: str) -> tuple[str, str, bool]:
    """(answer, reasoning, closed): a ``<think>`` block (or ``<thinking>``, ``<reasoning>``, ``<thought>``) taken out
    of ``raw``; reasoning that a lone closing tag ends (the template opened the block) counts too. ``closed`` is
    False when a block was opened and never closed: everything after it is reasoning."""
    spans = reasoning_spans(raw)
    answer, kept = [], 0
    for start, _, _, end in spans:
        answer.append(raw[kept:start])
        kept = end
    answer.append(raw[kept:])
    reasoning = "\n".join(raw[inner:inner_end] for _, inner, inner_end, _ in spans).strip()
    return "".join(answer), reasoning, not spans or spans[-1][2] != spans[-1][3]  # an open block has no closing tag


def reasoning_spans(raw: str) -> list[tuple[int, int, int, int]]:
    """The reasoning blocks of ``raw`` (:func:`split_reasoning`'s), in order, each as (start, text start, text end,
    end) offsets: the tags around the text included in start..end. Reasoning that a lone closing tag ends starts at 0;
    a block opened and never closed runs to the end of ``raw``."""
    spans, at = [], 0
    close = _CLOSE_THINK.search(raw)
    opened = _OPEN_THINK.search(raw)
    if close and (opened is None or opened.start() > close.start()):  # "…reasoning</think>answer"
        spans.append((0, 0, close.start(), close.end()))
        at = close.end()
    while (opened := _OPEN_THINK.search(raw, at)) is not None:
        close = _CLOSE_THINK.search(raw, opened.end())
        if close is None:
            spans.append((opened.start(), opened.end(), len(raw), len(raw)))
            break
        spans.append((opened.start(), opened.end(), close.start(), close.end()))
        at = close.end()
    return spans


def sentences(text: str) -> list[str]:
    """``text`` split after ``.``, ``!``, ``?`` or an ellipsis (with any closing quote, bracket or emphasis mark kept on
    the sentence) and at line breaks. Unlike ``skald.text.sentences`` it needs no capital after the break, since a
    model's sign-off may start in lower case."""
    return [s.strip() for s in _BREAK.split(text) if s and s.strip()]


def _lines(text: str, role: str, habits: list[str]) -> list[str]:
    """Line-level habits: fences, rules, headings, labels, echoed fields, notes, a closing menu and bullets (prose
    roles: a list that ends the narration is a menu of options; one inside it is the story's)."""
    out: list[str] = []
    listed: list[bool] = []
    for line in text.replace("\r", "").split("\n"):
        if role in PROSE_ROLES and out and _MENU.match(line):
            habits.append("option_list")
            break
        if _QUOTE_MARK.match(line):
            habits.append("markdown")
            line = _QUOTE_MARK.sub("", line)
        if not line.strip():
            continue
        if _FENCE.match(line):
            habits.append("code_fence")
            continue
        if _TABLE_ROW.match(line):
            habits.append("markdown")
            continue
        if _RULE.match(line) or _HEADING.match(line) or (role in PROSE_ROLES and _BOLD_LINE.match(line)):
            habits.append("markdown")
            continue
        if _NOTE_LINE.match(line):
            habits.append("ooc_note")
            continue
        if role in PROSE_ROLES and _BRACKETED.fullmatch(line.strip()):  # "[Scene: the bar, night]"
            habits.append("stage_direction")
            continue
        if _FIELD.match(line) or (role in ("narrator", "evaluator") and _FORM_LINE.match(line)
                                  and not _YOU.search(line)):
            habits.append("field_echo")
            continue
        labelled = _LABEL.match(line) or _NAME_LABEL.match(line)
        if labelled:
            habits.append("speaker_label")
            line = line[labelled.end():]
            if not line.strip():  # "Narrator:" alone on its line
                continue
        bullet = role in PROSE_ROLES and _BULLET.match(line) is not None
        if bullet:
            line = _BULLET.sub("", line)
        out.append(line.strip())
        listed.append(bullet)
    if role == "narrator" and len(out) > 1 and listed[-1]:
        while listed and listed[-1]:  # the options it ends with
            out.pop()
            listed.pop()
        habits.append("option_list")
        if out and out[-1].endswith(":") and not _YOU.search(out[-1]):  # "Choose one:"
            out.pop()
            listed.pop()
    if any(listed):
        habits.append("markdown")
    if role == "setup" and any(re.match(r"[*_ ]*you\b", line, re.IGNORECASE) for line in out):
        kept = [line for line in out if not _FORM_LINE.match(line) or _YOU.search(line)]
        if len(kept) < len(out):  # "Name: Joss" over the summary that says it all again
            habits.append("field_echo")
            out = kept
    return out


def _inline(text: str, role: str, habits: list[str]) -> str:
    """Inline habits: OOC notes, meta stage directions, emphasis markers (prose roles; a character's ``*gesture*``
    is its reply format)."""
    text = _take(_OOC, text, "ooc_note", habits)
    text = _take(_META_STARS, text, "stage_direction", habits)
    if role in PROSE_ROLES:
        text = _take(_BRACKETED, text, "stage_direction", habits)
    if role in PROSE_ROLES and _EMPHASIS.search(text):
        habits.append("markdown")
        text = _EMPHASIS.sub(lambda m: m.group(2) or m.group(3), text)
        text = text.replace("**", "").replace("__", "")
    return _WS.sub(" ", _EMPTY_BRACKETS.sub(" ", text)).strip()


def _opening(parts: list[str], habits: list[str]) -> list[str]:
    """Strip a chat preamble ("Sure!", "Here is the narration:", "Let me continue the story.") from the start."""
    for _ in range(4):  # "Okay! Sure, here is…:" can stack
        if not parts:
            break
        first = parts[0]
        match = _INTERJECTION.match(first)
        if match is None or not match.group(0).strip():
            match = _PREAMBLE.match(first)
        if match is None or not match.group(0).strip():
            break
        habits.append("preamble")
        rest = first[match.end():].strip()
        parts = ([rest] if rest else []) + parts[1:]
    return parts


def _unquoted(sentence: str) -> str:
    """``sentence`` without its quoted speech (a character may say anything)."""
    return re.sub(r"[\"\u201c][^\"\u201c\u201d]*[\"\u201d]?", " ", sentence)


_TAG_LINE_TAG = re.compile(r"\[\s*(?:TO|TONE|INTERRUPT|SILENT|REACT|EVENT|SYSTEM|MODERATOR|NARRATOR|SCENE)\b[^\]]*\]?",
                           re.IGNORECASE)


def _narrated_part(sentence: str, inside: bool) -> tuple[str, bool]:
    """(the words of ``sentence`` outside quotation marks, whether a quotation is still open at its end), given
    whether one was open at its start."""
    out, quoted = [], inside
    for ch in sentence:
        if ch in _QUOTE_CHARS:
            quoted = not quoted if ch == '"' else ch == "\u201c"
            out.append(" ")
        elif not quoted:
            out.append(ch)
    return "".join(out), quoted


def _judge(parts: list[str], role: str, habits: list[str]) -> tuple[list[str], str | None]:
    """Drop refusals, meta-talk and sign-offs (and all after a sign-off); (kept, the verdict when what is left is not
    the story: nothing, or no "you" in a second-person role's prose, or no speech in a character's line)."""
    kept: list[str] = []
    found: str | None = None
    inside = False  # whether the sentence starts inside a quotation (a quote may run over several sentences)
    for sentence in parts:
        plain, inside = _narrated_part(sentence, inside)
        if role == "character":  # a tag is the reply format's, and rules.tag_line judges it (and drops a SYSTEM one)
            plain = _TAG_LINE_TAG.sub(" ", plain)
        if _SIGNOFF.match(plain) and sentence[:1] not in _QUOTE_CHARS:
            if not kept:  # "This passage picks up…", "I've kept it short…" before the story: talk about it
                habits.append("meta")
                found = found or "meta"
                continue
            habits.append("signoff")
            break
        if _REFUSAL.search(plain) or (_APOLOGY.match(plain) and not _META.search(plain)):
            habits.append("refusal")
            found = found or "refusal"
            continue
        if _META.search(plain):
            habits.append("meta")
            found = found or "meta"
            continue
        kept.append(sentence)
    if found and kept:
        told = " ".join(kept)
        if (role in PROSE_ROLES and not _YOU.search(_unquoted(told))) or (
                role == "character" and found == "refusal" and not any(q in told for q in _QUOTE_CHARS)):
            kept = []  # what is left of a refusal is advice to the player, not the story
    return kept, (found if not kept else None)


def _closing(parts: list[str], habits: list[str]) -> list[str]:
    """Drop trailing questions to the player ("What do you do next?")."""
    while parts and _PLAYER_QUESTION.match(parts[-1].strip(" *_")):
        habits.append("closing_question")
        parts = parts[:-1]
    return parts


@lru_cache(maxsize=1)
def _detector() -> Any:
    from lingua import Language, LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_languages(
        Language.ENGLISH, Language.CHINESE, Language.JAPANESE, Language.KOREAN, Language.RUSSIAN, Language.SPANISH,
        Language.FRENCH, Language.GERMAN, Language.PORTUGUESE, Language.ITALIAN, Language.DUTCH, Language.POLISH,
        Language.TURKISH, Language.VIETNAMESE, Language.INDONESIAN).with_low_accuracy_mode().build()


_NON_LATIN = re.compile(r"[\u0400-\u04ff\u0590-\u06ff\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
                        r"\uff00-\uffef]")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")
# English function words, less those other languages write too ("a", "no", "me", "he" are Spanish, Italian or
# Portuguese words as well: "Le preguntas a Hesper si tiene algún trabajo." is not English for its "a")
_ENGLISH_WORDS = re.compile(r"\b(?:the|an|and|you|your|of|to|in|is|it|on|at|with|for|as|from|her|his|their|"
                            r"she|they|into|but|by|this|that|was|are|over|up|down|out|not|one|will|be|has|have|"
                            r"had|were|what|who|all|its|it's|i|my|we|our|him|them|than|then|there|here|just|"
                            r"only|off|back)\b", re.IGNORECASE)


def foreign(sentence: str) -> bool:
    """True when ``sentence`` is not English: mostly non-Latin script, or (five words or more, names aside) with no
    English function word (one in a long sentence) and what the lingua detector, in its small low-accuracy mode, is
    at least 80% sure is another language. Short English sentences fool the detector ("rescue team is short one
    rig." reads as Spanish), hence the function words first."""
    letters = _LETTER.findall(sentence)
    if not letters:
        return False
    if len(_NON_LATIN.findall(sentence)) / len(letters) > 0.3:
        return True
    words = [w for w in _WORD.findall(re.sub(r"\[[^\]]*\]?", " ", sentence)) if not w[0].isupper()]  # names aside
    if len(words) < 5 or len(_ENGLISH_WORDS.findall(" ".join(words))) > (1 if len(words) >= 12 else 0):
        return False
    best = _detector().compute_language_confidence_values(" ".join(words))[0]
    return best.language.name != "ENGLISH" and best.value >= 0.8


def _language(parts: list[str], habits: list[str]) -> tuple[list[str], bool]:
    """Drop sentences in another language; (kept, True when most of the reply was foreign)."""
    keep = [s for s in parts if not foreign(s)]
    if len(keep) < len(parts):
        habits.append("wrong_language")
    weight = {s: len(s) + 2 * len(_NON_LATIN.findall(s)) for s in parts}  # a CJK character says about a word
    return keep, sum(weight[s] for s in parts if s not in keep) > sum(weight.values()) / 2


def _key(sentence: str) -> str:
    bare = re.sub(r"\[[^\]]*\]|\*[^*]*\*", " ", sentence.lower())  # a character's tag and gesture aside
    return " ".join(re.sub(r"[^\w ]", " ", bare).split())


def repeats(text: str, previous: str) -> bool:
    """True when ``text`` says again what ``previous`` said: most of its sentences appear there, or the two read
    alike (difflib ratio at least 0.85)."""
    if not previous.strip() or not text.strip():
        return False
    mine, theirs = [_key(s) for s in sentences(text)], {_key(s) for s in sentences(previous)}
    if mine and sum(1 for s in mine if s in theirs) / len(mine) >= 0.6:
        return True
    return SequenceMatcher(None, _key(text), _key(previous), autojunk=False).ratio() >= 0.85


def _own_turn(raw: str, habits: list[str]) -> str:
    """``raw`` up to where the model's turn ends (an end-of-turn token, the player's next line written for them),
    without special tokens, role headers and emoji."""
    end = _TURN_END.search(raw)
    if end is not None and raw[:end.start()].strip():
        habits.append("runaway_turn")
        raw = raw[:end.start()]
    return _take(_EMOJI, _take(_SPECIAL, raw, "special_token", habits), "emoji", habits, by="")


def _take(pattern: re.Pattern[str], text: str, habit: str, habits: list[str], by: str = " ") -> str:
    """``text`` with every match of ``pattern`` replaced ``by``, and ``habit`` noted when there was one."""
    if not pattern.search(text):
        return text
    habits.append(habit)
    return pattern.sub(by, text)


def _once(parts: list[str], habits: list[str]) -> list[str]:
    """``parts`` with every sentence of four words or more told once (a model caught in a loop)."""
    seen: set[str] = set()
    kept = []
    for part in parts:
        key = _key(part)
        if len(key.split()) >= 4 and key in seen:
            habits.append("loop")
            continue
        seen.add(key)
        kept.append(part)
    return kept


def _reasoned(answer: str, habits: list[str]) -> str:
    """``answer`` without the paragraphs of reasoning that open it when the template sent no tags ("Okay, let me
    think about this. The player is lost… Alright, here goes." then the story): a paragraph that starts the way
    reasoning starts, or has a sentence of talk about the task, and is followed by another."""
    paragraphs = [p for p in re.split(r"\n\s*\n", answer) if p.strip()]
    dropped = 0
    while len(paragraphs) - dropped > 1:
        first = paragraphs[dropped]
        if not (_REASONING_START.match(first) or any(_META.search(_unquoted(x)) for x in sentences(first))):
            break
        dropped += 1
    if dropped:
        habits.append("reasoning")
    return "\n\n".join(paragraphs[dropped:]) if dropped else answer


def _full_sentences(parts: list[str], habits: list[str]) -> list[str]:
    """``parts`` up to the last full sentence (a reply cut at ``num_predict``)."""
    if parts and _CLOSED.search(parts[-1]):
        return parts
    habits.append("truncated")
    parts = list(parts)
    while parts and not _CLOSED.search(parts[-1]):
        parts.pop()
    return parts


def clean(raw: str, *, role: str = "narrator", truncated: bool = False, previous: str = "") -> Cleaned:
    """The reply ``raw`` of ``role`` with every habit stripped, and whether what is left may be shown.

    :param role: an LLM role (``settings.ROLES``); prose roles (:data:`PROSE_ROLES`) also lose markdown emphasis and
        bullets, while a ``character`` keeps its ``*gesture*`` and tag (``rules.tag_line`` reads them).
    :param truncated: the model stopped at its output limit (Ollama's ``done_reason == "length"``): the reply is
        ended at its last full sentence.
    :param previous: what the player read from this role last (the narrator's prose, the character's last line): a
        reply repeating it is ``repeat``.
    :returns: :class:`Cleaned`. Never raises.
    """
    habits: list[str] = []
    answer, reasoning, closed = split_reasoning(_own_turn(raw or "", habits))
    if reasoning or not closed:
        habits.append("reasoning")
    if not closed and not answer.strip():
        return Cleaned("", "empty", tuple(habits), reasoning)
    if role not in TEXT_ROLES:  # a structured role's text (json_text reads it): only the reasoning goes
        return Cleaned(answer.strip(), "usable" if answer.strip() else "empty", tuple(habits), reasoning)
    answer = _reasoned(answer, habits)
    if role in PROSE_ROLES:
        answer = _prose_of_json(answer, habits)
    lines = [_inline(line, role, habits) for line in _lines(answer, role, habits)]
    parts = _once(_opening([p for line in lines if line for p in sentences(line)], habits), habits)
    parts, verdict = _judge(parts, role, habits)
    found = tuple(dict.fromkeys(habits))
    if verdict is not None:
        return Cleaned("", verdict, found, reasoning)  # type: ignore[arg-type]
    if truncated:
        parts = _full_sentences(parts, habits)
    told = bool(parts)
    parts = _closing(parts, habits)
    if told and not parts:  # only a question back to the player, or a menu: talk about the game, not the story
        return Cleaned("", "meta", tuple(dict.fromkeys(habits)), reasoning)
    parts, mostly_foreign = _language(parts, habits)
    found = tuple(dict.fromkeys(habits))
    if mostly_foreign:
        return Cleaned("", "wrong_language", found, reasoning)
    text = " ".join(parts).strip()
    if not text or not _LETTER.search(text):
        return Cleaned("", "empty", found, reasoning)
    if repeats(text, previous):
        return Cleaned("", "repeat", tuple(dict.fromkeys([*found, "repeat"])), reasoning)
    return Cleaned(text, "usable", found, reasoning)


def _without_comments(text: str) -> str:
    """``text`` without ``//`` and ``/* */`` comments outside JSON strings, and without commas before a closing
    bracket (small models annotate their JSON, and leave a comma after the last item)."""
    out, i, quoted = [], 0, False
    while i < len(text):
        ch = text[i]
        if quoted:
            out.append(ch)
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
            out.append(ch)
        elif text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            continue
        else:
            out.append(ch)
        i += 1
    return _TRAILING_COMMA.sub(r"\1", "".join(out))


_TRAILING_COMMA = re.compile(r",(\s*[}\]])")  # outside strings once comments are gone: what JSON forbids


PROSE_FIELDS = ("narration", "narrative", "prose", "story", "text", "summary", "content", "response", "output",
                "description")  # where a model that answers prose in a JSON object puts it, most likely first


def _prose_of_json(answer: str, habits: list[str]) -> str:
    """A prose reply written as a JSON object (``{"narration": "...", "actions": [...]}``, fenced or not): the text
    of its prose field (:data:`PROSE_FIELDS`, else its longest string), habit ``json``; nothing while the object is
    cut short or holds no text. Any other reply as it stands."""
    import json

    if not answer.strip().strip("`").removeprefix("json").lstrip().startswith("{"):
        return answer
    habits.append("json")
    found, _ = json_text(answer)
    try:
        value = json.loads(found)
    except ValueError:
        return ""
    fields = {k.lower(): v for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}
    named = next((fields[k] for k in PROSE_FIELDS if fields.get(k, "").strip()), None)
    return named or max(fields.values(), key=len, default="")


def json_text(raw: str) -> tuple[str, tuple[str, ...]]:
    """The JSON value in a structured role's reply: reasoning, fences, comments and commentary around it taken away.
    Only the first ``{`` or ``[`` may open it: an object cut short is no reply, whatever it holds.

    :returns: (the JSON text, or the reply as it stood when it holds no complete JSON value; the habits found).
    """
    import json

    habits: list[str] = []
    answer, reasoning, closed = split_reasoning(_own_turn(raw or "", habits))
    if reasoning or not closed:
        habits.append("reasoning")
    if "```" in answer:
        habits.append("code_fence")
    openings = sorted({m.start() for m in (re.search(r"\{", answer), re.search(r"\[", answer)) if m})[:1]
    for start in openings:  # only the first: an object cut short is no reply, whatever it holds
        body = answer[start:]
        for candidate, habit in ((body, None), (_without_comments(body), "json_comment")):
            try:
                _, end = json.JSONDecoder().raw_decode(candidate)
            except ValueError:
                continue
            if habit:
                habits.append(habit)
            if answer[:start].strip(" \n`json") or candidate[end:].strip(" \n`"):
                habits.append("json_commentary")
            return candidate[:end], tuple(dict.fromkeys(habits))
    return answer.strip(), tuple(habits)


def foreign_values(value: Any) -> bool:
    """True when most of the words in a structured reply's strings are not English (:func:`foreign`): a brief or a
    suggestion a player would read in another language."""
    long = [t for t in strings_in(value) if len(t.split()) >= 3 or _NON_LATIN.search(t)]
    odd = sum(len(t) for t in long if foreign(t))
    return bool(long) and odd > sum(len(t) for t in long) / 2


# How reasoning sent without its opening tag begins (the template opened it): nothing is shown until it ends.
_REASONING_START = re.compile(r"^\s*(?:okay|ok|alright|hmm+|so,|so the|so i|well,|let me|let's|the user|the player|"
                              r"i need|i should|i must|i'll|i will|we need|first,|thinking|reasoning|analysis|my task|"
                              r"the task|the outcome|the brief|got it|right,)\b", re.IGNORECASE)


_MARKUP_START = re.compile(r"^\s*(?:[-+\u2022>#(\[]|\*(?!\*)|\d+[.)])")  # a list item, heading, quote or bracket


_LINE_DONE = re.compile(r"[.!?:\u2026\"'\u201d\u2019)\]*_\u3002\uff01\uff1f]\s*$")


def _settled_end(text: str) -> int:
    """Where the part of a streaming reply that can be judged ends: at its last sentence break, but never inside a
    line that may turn out to be markup (a list item, a heading, a label, a bracket) nor inside an open ``*``."""
    breaks = [m.start() for m in _BREAK.finditer(text)  # a line wrapped inside a sentence is not its end
              if "\n" not in m.group(0) or _LINE_DONE.search(text[:m.start()])]
    cut = breaks[-1] if breaks else 0
    line_start = text.rfind("\n", 0, cut) + 1
    if line_start and _MARKUP_START.match(text[line_start:cut + 1]) or not line_start and _MARKUP_START.match(text):
        cut = line_start - 1 if line_start else 0  # up to the line before it
    while cut > 0 and text[:cut].replace("**", "").count("*") % 2:  # an emphasis still open: before it
        opened = text.replace("**", "\0\0").rfind("*", 0, cut)
        cut = max((m.start() for m in _BREAK.finditer(text[:opened])), default=0)
    return cut


def _echo(sentence: str, previous: list[str]) -> bool:
    """Whether ``sentence`` reads like one of ``previous`` (difflib ratio at least 0.75)."""
    key = _key(sentence)
    return any(SequenceMatcher(None, key, p, autojunk=False).ratio() >= 0.75 for p in previous)


class StreamCleaner:
    """Hygiene for a streamed reply: :meth:`feed` each chunk as it arrives, and ``emit`` is called with the text a
    player may read so far, in whole sentences, only once it is sure: nothing is shown while the reply may still be
    reasoning, a preamble, a refusal, another language or a repeat of ``previous``, and a question is held back until
    prose follows it (a closing question is dropped). What is emitted is always a prefix of :meth:`close`'s text
    when the reply turns out usable.

    :param emit: receives each new piece of text (with the space that joins it to what came before).
    """

    def __init__(self, emit: Callable[[str], None], *, role: str = "narrator", previous: str = ""):
        self.emit = emit
        self.role = role
        self.previous = previous
        self.raw: list[str] = []
        self.shown = ""
        self._previous = [_key(p) for p in sentences(previous)]
        self._judged = 0  # where the text judged last ended: nothing new is judged until a sentence ends after it

    def feed(self, chunk: str) -> None:
        self.raw.append(chunk)
        if self.role != "narrator":  # only the narrator's prose is read as it comes; the rest is shown whole
            return
        text = "".join(self.raw)
        cut = _settled_end(text)
        if cut <= self._judged:  # no new whole sentence since the last look: a chunk costs a scan, not a cleaning
            return
        self._judged = cut
        answer, _, closed = split_reasoning(text)
        opener = text.split("\n", 1)[0]
        if not closed or (_REASONING_START.match(text) and not _CLOSE_THINK.search(text) and (
                "\n" not in text or _opening(sentences(opener), []))):
            return  # reasoning, or what may be reasoning, until it ends (an opener that is all preamble is not)
        done = clean(text[:cut], role=self.role, previous=self.previous)
        if not done.usable:
            return
        safe = self._settled(done.text)
        if safe.startswith(self.shown) and len(safe) > len(self.shown):
            self.emit(safe[len(self.shown):])
            self.shown = safe

    def _settled(self, text: str) -> str:
        """What of ``text`` (the cleaned complete sentences so far) cannot change any more: all but a trailing
        question, and nothing while every sentence so far echoes the last turn's prose or the first sentence may be
        foreign, a refusal in the making, or a preamble."""
        parts = sentences(text)
        while parts and parts[-1].rstrip(" *_\"'\u201d").endswith("?"):
            parts.pop()
        if self._previous and all(_echo(s, self._previous) for s in parts):
            return self.shown
        settled = " ".join(parts)
        return settled if settled.startswith(self.shown) else self.shown

    def close(self, truncated: bool = False) -> Cleaned:
        """The whole reply, cleaned (:func:`clean`); the caller shows what is left beyond :attr:`shown`, or replaces
        it when the reply is not usable."""
        return clean("".join(self.raw), role=self.role, truncated=truncated, previous=self.previous)
