"""Skald's scripted model: a deterministic stand-in for Ollama, for recordings with replies written for the purpose.

``ScriptedOllama`` is an httpx transport that answers the two endpoints Skald uses the way Ollama does:

* ``GET /api/tags``: one model, ``scripted``.
* ``POST /api/chat``: an ``application/x-ndjson`` stream of a few words per line, then a final ``done`` line
  with ``prompt_eval_count`` (about a token per four characters of the messages) and ``eval_count`` (words).

The role comes from the ``X-Skald-Role`` header. Replies are built from the request itself, never at random:

* ``director``: a scene brief draft (JSON) from the ``Location:`` and ``Present: id`` lines and the brief it is given
  (``Already in the brief:``, or the narrator's brief block and the parts that read otherwise now).
* ``narrator``: five to seven second-person sentences from the ``Location:``, ``Present:``, ``Outcome:``,
  ``Say these plainly:`` and ``Consequences:`` lines (and the companion line the Director asks for), phrasings
  picked by a stable hash; in a multi-character scene, every line of its ``Scene lines:`` woven in, words verbatim;
  then, when the prompt lists ``Actions to reword``, a line ``[ACTIONS]`` and the four, numbered, the second and the
  fourth lightly reworded (``llm.tail``).
* ``suggestion_refiner``: with a ``format`` (JSON schema), the four suggestions from ``Suggestions to rewrite:``
  with the same tones, risks and names, lightly reworded when that is safe.
* ``evaluator``: ``{"summary": ...}``, the plain summary of the facts it is given, retold in the past tense.
* ``beat_classifier``: ``{"beat": ...}``, the ``Current beat:`` it is given (it never moves a beat itself).
* ``character``: one tag line (``rules.tag_line``) from the ``You are``, ``Lines in your voice`` and ``Recent:``
  lines: one of the character's own lines, said to whoever spoke last (the player when nobody else has).
* ``interpreter``: one closed action (``rules.interpretation``) for the ``Line:``: talk to a listed person, go to a
  listed place or look at a listed item its words name, a listed deed it names, else a look around.
* ``moderator``: ``{"goal_met": false, "off_track": false, "notes": {}}`` (the rules judge the goal).
* ``setup`` (guided creation, ``llm.conversation``): in Discuss, a call of ``list_backgrounds`` first, then of
  ``ready_to_summarize``; in Summarize, a summary of the player's first message; in Serialize, a call of the
  finalization tool built from that message ("Ada Quell, she/her: a salt runner who owes the Neap Company, no
  gore"): the name before the comma, the pronouns, the background whose name it mentions (else the first one the
  system prompt lists), the rest as concept and hook, and each "no ..." as a content limit.

Faults (:func:`load_faults`, a YAML mapping ``turn -> {role: fault}``) make every request of that role in that
turn fail: ``http_500``, ``not_json``, ``bad_schema`` (a wrong tone), ``empty`` or ``no_actions`` (a narration without
its ``[ACTIONS]`` part, so the refiner is asked); with the suffix ``_once``
only the first request of the role in the turn fails, so a retry or the validation feedback succeeds.

It sits under :class:`~skald.replay.transports.RecordingTransport` exactly where a real Ollama would, so a
scripted recording goes through the same client code (streaming, structured output, retries, breaker).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import yaml

from skald.core.brief import END_MARKER, MARKER
from skald.llm import tail
from skald.llm.client import ROLE_HEADER
from skald.rules import prose
from skald.settings import ROLES

MODEL = "scripted"
CREATED_AT = "2025-01-01T00:00:00Z"
WORDS_PER_CHUNK = 4
FAULTS = ("http_500", "not_json", "bad_schema", "empty", "no_actions")
ONCE = "_once"

# ----------------------------------------------------------------------------------------------- phrasings

OPENINGS = [
    "You take in {place} with ash still gritty between your teeth.",
    "{Place} closes around you, hot and close, smelling of dust and machine oil.",
    "You stand in {place} while a haze of ash turns the light the colour of rust.",
    "Grit hisses against your goggles as you take stock of {place}.",
    "You shake the grey powder from your sleeves and look over {place}.",
    "The air in {place} is thick enough to chew, and you breathe through your teeth.",
]
PRESENCE = [
    "{name} is close by, watching you with the patience of someone who has seen worse.",
    "{name} keeps half an eye on you, weighing what you are worth to this place.",
    "You catch {name} glancing your way before looking back to the work at hand.",
    "{name} is here too, and the look you get back is neither warm nor cold.",
]
ALONE = [
    "Nobody pays you much mind; out here everyone has their own troubles.",
    "For a moment you have the place to yourself, and the quiet feels borrowed.",
    "No one steps in to help or hinder you, which suits you fine.",
]
SUCCESS_TAIL = [
    "It goes the way you meant it to, and you let yourself breathe out.",
    "For once the rift gives a little ground, and you take it.",
    "The moment settles in your favour, clean and plain.",
]
FAILURE_TAIL = [
    "It goes badly, and there is no pretending otherwise.",
    "The rift takes its due, as it always does, and you feel the cost of it.",
    "Things slide out of your hands, and the setback stings.",
]
QUIET_TAIL = [
    "It is a small moment, but small moments are most of what Kettle is made of.",
    "The words hang in the warm air a while before the noise of the place takes them.",
    "Nothing is settled yet, but you know a little more about where you stand.",
]
CONSEQUENCES = {
    "MOVE": "The road behind you is already filling with drifting ash.",
    "COMBAT_START": "Steel comes out and the air goes tight; this is a fight now.",
    "DAMAGE": "Pain flares hot along your side and your breath comes short.",
    "COMPANION_JOIN": "You have company on the road now, and it feels steadier than walking alone.",
    "COMPANION_LEAVE": "Someone who walked with you is gone, and the space they leave is cold.",
    "QUEST_UPDATE": "Another piece of the job falls into place, and you file it away.",
    "DISCOVERY": "You tuck the find away before anyone else can take an interest in it.",
    "RUMOR_HEARD": "A scrap of talk lodges in your memory, the kind that might matter later.",
    "DEFEATED": "The ground comes up to meet you, and the world narrows to grey.",
    "ITEM_GET": "Your pack sits a little heavier on your shoulders.",
    "HEAL": "The worst of the hurt eases, and your breathing steadies.",
    "ENEMY_DAMAGE": "Your blow lands, and your opponent staggers back a step.",
    "COMPANION_ACTS": "Your companion moves at your shoulder without needing to be asked.",
    "COMBAT_END": "The fight is over, and your hands take a while to stop shaking.",
}
CLOSINGS = [
    "Far overhead, Hollin hangs orange and striped with storms, indifferent as ever.",
    "The ash keeps falling, slow as snow, over everything you have done and not done.",
    "Somewhere deep below, a drill shudders, and the rock remembers it.",
    "You wipe your goggles clean and fix what comes next in your mind.",
]
ADVERBS = ("Calmly", "Carefully", "Quietly")


def _pick(options: list[str], key: str, salt: str, avoid: str = "", **fields: str) -> str:
    """One of ``options`` by a stable hash of ``key`` and ``salt``, formatted with ``fields``; with ``avoid`` (the
    last turn's prose), the next one in turn whose wording it does not hold (the option's longest stretch of its own
    words, outside the fields: "X closes around you" and "Y closes around you" are alike), as a careful model does
    not open two turns alike (the first pick when every one is in it)."""
    digest = hashlib.sha256(f"{salt}|{key}".encode()).digest()
    start = int.from_bytes(digest[:4], "big") % len(options)
    order = [options[(start + i) % len(options)] for i in range(len(options))]
    fresh = (o for o in order if not avoid or max(re.split(r"\{\w+\}", o), key=len).strip() not in avoid)
    return next(fresh, order[0]).format(**fields)


# -------------------------------------------------------------------------------------------------- faults


def _reworded(label: str) -> str:
    """A safe suggestion's label lightly reworded, as a model rewords it: an adverb before it ("Calmly, buy ..."),
    when the label opens with a capitalised word, has no such adverb yet and stays within 80 characters."""
    if not (label[:1].isupper() and label.split()[0].isalpha()):
        return label
    adverb = _pick(list(ADVERBS), label, "adverb")
    candidate = f"{adverb}, {label[0].lower()}{label[1:]}"
    return candidate if adverb.lower() not in label.lower() and len(candidate) <= 80 else label


def _last_turn(text: str) -> str:
    """The prose of the newest ``Turn N (...):`` section of a narrator prompt ("" without one)."""
    found = re.findall(r"(?m)^Turn \d+ \([^\n]*\):\n(.*)$", text)
    return found[-1] if found else ""


def load_faults(path: Path | None) -> dict[int, dict[str, str]]:
    """Read a faults file: a YAML mapping of turn number to ``{role: fault}``. ``None`` means no faults.

    :raises ValueError: the file cannot be read or parsed, or names an unknown turn, role or fault (the message
        names the file).
    """
    if path is None:
        return {}
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot read the faults file ({' '.join(str(exc).split())})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a faults file is a mapping of turn number to {{role: fault}}")
    known = [*FAULTS, *(f + ONCE for f in FAULTS)]
    faults: dict[int, dict[str, str]] = {}
    for turn, roles in data.items():
        if isinstance(turn, bool) or not isinstance(turn, int | str) or not str(turn).isdigit() or int(turn) < 1:
            raise ValueError(f"{path}: turn {turn!r} is not a turn number (1, 2, ...)")
        if not isinstance(roles, dict) or not roles:
            raise ValueError(f"{path}: turn {turn}: expected a mapping of role to fault")
        for role, fault in roles.items():
            if role not in ROLES:
                raise ValueError(f"{path}: turn {turn}: unknown role {role!r}; roles: {', '.join(ROLES)}")
            if fault not in known:
                raise ValueError(f"{path}: turn {turn}: unknown fault {fault!r} for {role}; "
                                 f"faults: {', '.join(FAULTS)} (each may end in {ONCE})")
        faults[int(turn)] = {str(role): str(fault) for role, fault in roles.items()}
    return faults


# ------------------------------------------------------------------------------------------------ the model


def _lines(text: str, prefix: str) -> list[str]:
    return [line[len(prefix):].strip() for line in text.splitlines() if line.startswith(prefix)]


BRIEF_LABELS = ("Keep in mind", "This turn must convey", "People", "The player may raise",
                "Keep secret (never state, confirm or deny)")
CHANGED = "The brief now reads (in place of"


def _brief_items(text: str) -> list[str]:
    """The brief's items ("- ...") a director prompt gives, by part in this order: what to keep in mind, what this
    turn must convey, what people want, what the player may raise, the secrets (whatever order the prompt shows them
    in). The brief is the lines after ``Already in the brief:``, or else its block between the markers with the parts
    that read otherwise now (after a line starting :data:`CHANGED`) in place of the same parts."""
    given = text.partition("\nAlready in the brief:\n")[2]
    if given:
        lines = given.split("\n\n")[0].splitlines()
    else:
        block = text.partition(MARKER)[2].partition(END_MARKER)[0]
        changed = text.partition(f"\n{CHANGED}")[2].partition("\n")[2]
        lines = [*block.splitlines(), *changed.splitlines()]
    parts: dict[str, list[str]] = {}
    label = None
    for line in lines:
        if line.startswith("- ") and label is not None:
            parts[label].append(line[2:])
        elif line.startswith("Time:"):
            break
        elif ":" in line:
            label = line.split(":", 1)[0]
            parts[label] = []
    return [item for label in BRIEF_LABELS for item in parts.get(label, [])]


def _present(text: str) -> list[str]:
    """Names from ``Present: Name (role), Name (role)`` (nobody -> [])."""
    line = next(iter(_lines(text, "Present:")), "")
    return [name.strip() for name in re.findall(r"([^,()]+?)\s*\([^)]*\)", line)]


def _split_outcome(line: str) -> tuple[str, str]:
    """``SUCCESS. You do it.`` -> (``SUCCESS``, ``You do it.``)."""
    head, _, rest = line.partition(".")
    return head.strip(), rest.strip()


class ScriptedOllama(httpx.BaseTransport):
    """A deterministic Ollama for shipped recordings; see the module docstring.

    :param turn_of: the current turn number (for faults), e.g. ``lambda: recording_transport.turn``.
    :param faults: turn -> {role: fault}, from :func:`load_faults`.
    """

    def __init__(self, turn_of: Callable[[], int], faults: dict[int, dict[str, str]] | None = None):
        self.turn_of = turn_of
        self.faults = faults or {}
        self.lock = threading.Lock()
        self.counts: dict[tuple[int, str], int] = {}

    # -- HTTP ---------------------------------------------------------------------------------------------

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "GET" and path.endswith("/api/tags"):
            return httpx.Response(200, json={"models": [{"name": MODEL, "model": MODEL, "size": 1,
                                                         "digest": "0" * 12}]})
        if request.method != "POST" or not path.endswith("/api/chat"):
            return httpx.Response(404, json={"error": "not found"})
        try:
            body = json.loads(request.content or b"{}")
        except ValueError:
            return httpx.Response(400, json={"error": "invalid JSON body"})
        role = request.headers.get(ROLE_HEADER, "")
        turn = self.turn_of()
        with self.lock:
            number = self.counts.get((turn, role), 0) + 1
            self.counts[(turn, role)] = number
        fault = self.faults.get(turn, {}).get(role)
        if fault and fault.endswith(ONCE):
            fault = fault[:-len(ONCE)] if number == 1 else None
        if fault == "http_500":
            return httpx.Response(500, json={"error": f"scripted fault: {role} is down (turn {turn})"})
        if fault == "empty":
            content = ""
        elif fault == "not_json":
            content = "Sure! Here are four better actions for the player, one per line, no JSON today."
        elif fault == "bad_schema":
            content = self._bad_schema(body)
        elif fault == "no_actions":  # the prose alone, as a model that ignores the [ACTIONS] instruction writes it
            content = self.reply(role, body).split(f"\n\n{tail.MARKER}\n")[0]
        elif role == "setup":
            content, calls = self._setup(body)
            return self._stream(body, content, calls)
        else:
            content = self.reply(role, body)
        return self._stream(body, content)

    def _stream(self, body: dict[str, Any], content: str, calls: list[dict[str, Any]] | None = None) -> httpx.Response:
        model = body.get("model") or MODEL
        pieces = re.findall(r"\s*\S+", content)
        if pieces:
            pieces[-1] += content[len("".join(pieces)):]  # trailing whitespace, if any
        chunks = ["".join(pieces[i:i + WORDS_PER_CHUNK]) for i in range(0, len(pieces), WORDS_PER_CHUNK)]
        lines = [{"model": model, "created_at": CREATED_AT, "message": {"role": "assistant", "content": chunk},
                  "done": False} for chunk in chunks]
        if calls:
            lines.append({"model": model, "created_at": CREATED_AT, "done": False,
                          "message": {"role": "assistant", "content": "", "tool_calls": calls}})
        characters = sum(len(str(m.get("content") or "")) for m in body.get("messages") or [])
        lines.append({"model": model, "created_at": CREATED_AT, "message": {"role": "assistant", "content": ""},
                      "done": True, "done_reason": "stop", "prompt_eval_count": max(1, characters // 4),
                      "eval_count": len(content.split())})
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        return httpx.Response(200, headers={"content-type": "application/x-ndjson"}, content=data)

    # -- replies ------------------------------------------------------------------------------------------

    def reply(self, role: str, body: dict[str, Any]) -> str:
        """The reply of ``role`` to a chat request ``body`` (no fault)."""
        users = [str(m.get("content") or "") for m in body.get("messages") or [] if m.get("role") == "user"]
        if role == "evaluator":
            plain = next(iter(_lines(users[-1] if users else "", "Plain summary to improve on:")), "")
            return json.dumps({"summary": f"Looking back on it: {plain}" if plain else
                               "Looking back on it, the episode ran its course and left its mark on you."})
        if role == "beat_classifier":
            beat = next(iter(_lines(users[-1] if users else "", "Current beat:")), "establishment").rstrip(".")
            return json.dumps({"beat": beat, "reason": "the scene holds where it is"})
        last = users[-1] if users else ""
        if role == "character":
            return self._character(last)
        if role == "moderator":
            return json.dumps({"goal_met": False, "off_track": False, "notes": {}})
        if role == "director":
            return self._director(last)
        if role == "interpreter":  # after validation feedback, the request the feedback is about
            return self._interpretation(next((u for u in reversed(users) if "\nLine: " in u), last))
        if role == "suggestion_refiner" or body.get("format"):
            return self._suggestions(users)
        return self._narration(last)

    @staticmethod
    def _director(text: str) -> str:
        """A brief draft (``core.brief.BriefDraft``) from the ``Location:`` and ``Present: id ...`` lines of the
        scene and the brief it is given (:func:`_brief_items`)."""
        place = next(iter(_lines(text, "Location:")), "the scene").split(".")[0].strip() or "the scene"
        people = [re.match(r"id (\S+): ([^,]+),", line) for line in _lines(text, "Present:")]
        people = [m for m in people if m and "not yet met" not in m.group(2)]
        known = _brief_items(text)
        who = " and ".join(m.group(2) for m in people[:2])
        summary = f"{place} holds its breath around the player." + (f" {who} watch what comes next." if who else "")
        return json.dumps({
            "summary": summary,
            "key_facts": [fact[:150] for fact in known[:2]],
            "npc_intentions": [{"npc_id": m.group(1), "wants": "a straight answer before anything else"}
                               for m in people[:2]],
            "suggested_topics": [f"what is going on in {place}"[:80]],
        })

    @staticmethod
    def _interpretation(text: str) -> str:
        """One closed action (``rules.interpretation``) for the ``Line:``, by the words it shares with the listed
        ``People:``, ``Places:``, ``Items:`` and ``Deeds:``, in that order; else a look around."""
        line = next(iter(_lines(text, "Line:")), "").lower()
        said = set(re.findall(r"[a-z]{3,}", line))

        def listed(prefix: str) -> list[tuple[str, set[str]]]:
            entries = re.findall(r"([\w-]+) \(([^)]*)\)", next(iter(_lines(text, prefix)), ""))
            return [(key, set(re.findall(r"[a-z]{3,}", label.lower())) - {"the"}) for key, label in entries]

        for field, action, prefix in (("target", "talk", "People:"), ("destination", "go", "Places:"),
                                      ("item", "examine_item", "Items:")):
            found = next((key for key, words in listed(prefix) if words & said), None)
            if found is not None:
                return json.dumps({"action": action, field: found, "manner": "plain"})
        deeds = [d.strip() for d in next(iter(_lines(text, "Deeds:")), "").split(",") if d.strip()]
        deed = next((d for d in deeds if any(word.startswith(d.split()[0]) for word in said)), None)
        if deed is not None:
            return json.dumps({"action": "deed", "deed": deed, "manner": "plain"})
        return json.dumps({"action": "look_around", "manner": "curious"})

    @staticmethod
    def _setup(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        """(content, tool calls) for a guided-creation request (see the module docstring)."""
        messages = body.get("messages") or []
        tools = [t["function"]["name"] for t in body.get("tools") or []]
        users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
        concept = users[0] if users else "a stranger"
        system = str(messages[0].get("content") or "") if messages else ""
        name = re.match(r"\s*([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)\s*,", concept)
        said = re.search(r"\b([a-z]{1,12}/[a-z]{1,12}(?:/[a-z]{1,12})?)\b", concept)
        about = concept.split(":", 1)[1].strip() if ":" in concept else concept.strip()
        listed = re.findall(r"(\w+) \(([^)]+)\)", next(iter(_lines(system, "Backgrounds:")), ""))
        background = next((bid for bid, label in listed if any(
            w in concept.lower() for w in label.lower().split() if len(w) > 3)), listed[0][0] if listed else "")
        limits = [x.strip() for x in re.findall(r"\bno ([a-z ]{2,30}?)(?:[,.;]|$)", about)]
        who = name.group(1) if name else "Wren"
        final = next((t for t in tools if t.startswith("submit_")), None)
        if final is not None:
            args = {"name": who, "pronouns": said.group(1) if said else "they/them", "concept": about[:200],
                    "background": background, "hook": about[:200], "limits": limits}
            return "", [{"function": {"name": final, "arguments": args}}]
        if "ready_to_summarize" in tools:
            looked = any(m.get("role") == "tool" for m in messages)
            step = "ready_to_summarize" if looked else "list_backgrounds"
            return ("That is enough to go on." if looked else ""), [{"function": {"name": step, "arguments": {}}}]
        return f"You are {who}: {about}".strip(), []

    @staticmethod
    def _character(text: str) -> str:
        """A tag line: one of the character's lines, to the last other speaker in ``Recent:``."""
        me = next(iter(_lines(text, "You are ")), "someone,").split(",")[0].strip()
        said = re.findall(r'"([^"]+)"', next(iter(_lines(text, "Lines in your voice (how you talk; not said yet):")),
                                             ""))
        recent = text.partition("Recent:")[2].strip().split("\n\n")[0].splitlines()
        speakers = [re.match(r"([^(:,\[]+)", line) for line in recent if not line.startswith("[")]
        others = [m.group(1).strip() for m in speakers if m and m.group(1).strip() != me]
        key = "\n".join([me, *recent[-3:]])
        tone = _pick(["dry", "sharp", "warm", "guarded", "weary"], key, "tone")
        words = _pick(said, key, "line") if said else "I have nothing to add to that."
        to = f"TO: {others[-1]}, " if others else ""
        return f'[{to}TONE: {tone}, *{_pick(["leans in", "shrugs", "looks away"], key, "gesture")}*] "{words}"'

    @staticmethod
    def _narration(text: str) -> str:
        place = next(iter(_lines(text, "Location:")), "the rift").rstrip(".") or "the rift"
        present = _present(text)
        outcome = next(iter(_lines(text, "Outcome:")), "")
        kind, summary = _split_outcome(outcome) if outcome else ("NO_ROLL", "")
        events = [e.strip() for e in next(iter(_lines(text, "Consequences:")), "").split(",") if e.strip()]
        banter = next(iter(_lines(text, "Include this companion line:")), "")
        facts = next(iter(_lines(text, "Say these plainly:")), "")  # HP, money, items: a careful model says them
        key = "\n".join([place, *_lines(text, "Player input:"), outcome, ",".join(events)])

        talk = ScriptedOllama._scene_lines(text)
        lower_place = place[0].lower() + place[1:] if place.startswith("The ") else place
        last = _last_turn(text)
        opening = _pick(OPENINGS, key, "open", last, place=lower_place, Place=place)
        said_to = " ".join(_lines(text, "Player input:")).lower()
        named = [n for n in present if any(len(part) > 2 and re.search(rf"\b{re.escape(part.lower())}\b", said_to)
                                           for part in n.split())]
        who = (_pick(PRESENCE, key, "who", last, name=named[0] if named else _pick(present, key, "name"))
               if present else _pick(ALONE, key, "alone", last))
        said = summary if not summary or summary.endswith((".", "!", "?")) else summary + "."
        tails = SUCCESS_TAIL if kind in ("SUCCESS", "CRITICAL_SUCCESS") else (
            FAILURE_TAIL if kind in ("FAILURE", "CRITICAL_FAILURE") else QUIET_TAIL)
        extra = [CONSEQUENCES[e] for e in dict.fromkeys(events) if e in CONSEQUENCES][:2]
        closings = [_pick(CLOSINGS, key, "close")] + [c for c in CLOSINGS if c != _pick(CLOSINGS, key, "close")]
        # opening, who, outcome, tail, consequences, the companion line, closing: 5 to 7 sentences in all (and the
        # scene's lines, after the outcome, which do not count)
        parts = [opening, who, said, facts, _pick(tails, key, "tail"), *extra, banter]
        parts = [p for p in parts if p]
        while len(prose.sentences(" ".join(parts))) > 6 and extra:
            parts.remove(extra.pop())
        if len(prose.sentences(" ".join(parts))) > 7:  # a long outcome and companion line: drop the tail
            parts = [p for p in parts if p not in tails]
        for closing in closings:
            if len(prose.sentences(" ".join(parts))) >= 6:
                break
            parts.append(closing)
        story = " ".join([*parts[:3], *talk, *parts[3:]])
        actions = ScriptedOllama._actions(text)
        return f"{story}\n\n{tail.MARKER}\n{actions}" if actions else story

    @staticmethod
    def _actions(text: str) -> str:
        """The ``Actions to reword`` block's four actions, numbered, the second and the fourth (looking about and
        the neutral one, safe as a rule) lightly reworded as the refiner rewords a safe one."""
        block = text.partition(f"Actions to reword after {tail.MARKER}:")[2].strip().split("\n\n")[0]
        labels = [m.group(1) for m in (re.match(r"\d\. (.+)", line) for line in block.splitlines()) if m]
        out = []
        for number, label in enumerate(labels, 1):
            out.append(f"{number}. {_reworded(label) if number in (2, 4) else label}")
        return "\n".join(out)

    @staticmethod
    def _scene_lines(text: str) -> list[str]:
        """The ``Scene lines:`` block as sentences: ``Hesper Quill says to Rhea Calloway, dry: "words"``."""
        block = text.partition("Scene lines:")[2].split("\n\n")[0].splitlines()[1:]
        out = []
        for line in block:
            if line.startswith("[EVENT:"):
                out.append(line[len("[EVENT:"):].rstrip("]").strip())
                continue
            found = re.match(r'([^(:,]+?)(?: \(to ([^)]+)\))?(?:, ([^:]+))?: "(.*)"', line)
            if found:
                who, to, tone, words = found.groups()
                out.append(f'{who} says{" to " + to if to else ""}{", " + tone if tone else ""}: "{words}"')
        return out

    @staticmethod
    def _listed(users: list[str]) -> list[dict[str, Any]]:
        """The suggestions in the first user message with ``Suggestions to rewrite:``."""
        for text in users:
            _, found, rest = text.partition("Suggestions to rewrite:")
            if not found:
                continue
            start = rest.find("{")
            try:
                value, _ = json.JSONDecoder().raw_decode(rest[start:])
                return [dict(s) for s in value["suggestions"]]
            except (ValueError, KeyError, TypeError):
                return []
        return []

    def _suggestions(self, users: list[str]) -> str:
        out = []
        for item in self._listed(users):
            label = str(item.get("label", "")).strip()
            if item.get("risk") == "SAFE":
                label = _reworded(label)
            out.append({"label": label, "tone": item.get("tone"), "risk": item.get("risk")})
        return json.dumps({"suggestions": out})

    def _bad_schema(self, body: dict[str, Any]) -> str:
        users = [str(m.get("content") or "") for m in body.get("messages") or [] if m.get("role") == "user"]
        value = json.loads(self._suggestions(users))
        for item in value["suggestions"][:1]:
            item["tone"] = "HEROIC"
        if not value["suggestions"]:
            value["suggestions"] = [{"label": "Do something heroic", "tone": "HEROIC", "risk": "SAFE"}]
        return json.dumps(value)
