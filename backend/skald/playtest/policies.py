"""The machine players: one small class per way of playing, all with one interface.

``policy.choose(seen, rng) -> str``: given what the player knows (:class:`Observation`: the committed state, the
four suggestions standing, the last answer, where they have been and whom they have spoken to) and the campaign's
seeded ``random.Random``, the next line to type. Every policy takes up the episode the game suggests when one has
just ended (``/next``, as the end-of-episode box invites), then plays its own way:

- ``suggestions``: one of the four suggestions, by number (what clicking one does);
- ``quester``: the active quest stage's place and person ("go to X", "talk to Y", the objective's own words), taking
  up offered work and fetching the item a stage needs;
- ``explorer``: people on stage not yet spoken to, then places not yet visited, then people not yet met elsewhere;
- ``chatter``: ordinary sentences, and replies when someone has just spoken ("yes", "why?");
- ``chaos``: impossible requests, prompt injections, nonsense, empty or broken lines, very long lines;
- ``idle``: looks around and waits.

``mixed`` is not a policy of its own: campaign ``i`` plays ``ORDER[i % len(ORDER)]``.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from skald.core.pack import EraPack, QuestStage
from skald.core.persistent import PersistentState
from skald.core.vocab import QuestStatus
from skald.packs import tools
from skald.playtest import phrases
from skald.playtest.names import CHOICES, MIXED, ORDER


@dataclass(frozen=True)
class Observation:
    """What a machine player knows before it types line number ``step`` (1-based)."""

    pack: EraPack
    step: int
    state: PersistentState  # the committed state after the last turn (the campaign's start before the first)
    suggestions: tuple[str, ...]  # labels of the suggestions standing: what "1".."4" play
    text: str  # the last answer (the opening scene before the first turn)
    last_input: str  # the last line typed ('' before the first)
    last_intent: str | None  # TALK, ACTION or META for the last turn played; None before the first
    present: tuple[tuple[str, str], ...]  # (id, name) of the pack's people on stage after the last turn
    visited: frozenset[str]  # location ids the player has been at
    addressed: frozenset[str]  # NPC and companion ids the player has spoken to or acted on
    next_episode: str | None  # the episode the game suggests after one just ended (what /next starts)
    max_chars: int  # the longest line the engine plays (SKALD_MAX_INPUT_CHARS)


class Policy:
    """A way of playing. Subclasses set ``name`` and implement :meth:`line`."""

    name = ""

    def choose(self, seen: Observation, rng: random.Random) -> str:
        """The next line to type: ``/next`` when the game suggests an episode, else the policy's own line."""
        if seen.next_episode is not None:
            return "/next"
        return self.line(seen, rng)

    def line(self, seen: Observation, rng: random.Random) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


def where(person: str, state: PersistentState, pack: EraPack) -> str | None:
    """The location id a pack NPC or companion is at now (moves by events and roaming included)."""
    if person in state.world.npc_locations:
        return state.world.npc_locations[person]
    found = pack.person(person)
    return found.location if found is not None else None


def go(pack: EraPack, location: str) -> str:
    return f"go to {pack.locations[location].name}"


def first_name(name: str) -> str:
    return name.split()[0]


class Suggestions(Policy):
    name = "suggestions"

    def line(self, seen: Observation, rng: random.Random) -> str:
        if not seen.suggestions:
            return "look around"
        return str(rng.randint(1, len(seen.suggestions)))


# How the quester words a stage's action class when it does not type the objective itself ({who}: the person,
# {here}: the place).
ACTS = {
    "PERSUADE": "convince {who} to help me", "INTIMIDATE": "threaten {who} until they talk",
    "DECEIVE": "lie to {who} about who sent me", "INVESTIGATE": "search {here} carefully",
    "DIALOGUE_ONLY": "talk to {who}", "ATTACK": "attack {who}", "SNEAK": "sneak around {here}",
    "RECRUIT": "ask {who} to join me", "REST": "rest for an hour", "INTERACT": "lend {who} a hand",
    "GIVE": "give {who} 5 credits", "TRAVEL": "look around {here}", "BUY": "buy something from {who}",
}


GIVE_UP = 10  # lines the quester spends on one quest stage (or on taking up one quest) before it turns elsewhere


class Quester(Policy):
    """Works the quests in the pack's order: the active ones first, then those on offer, then those not yet offered
    whose giver is within reach; gives up on a stage after :data:`GIVE_UP` lines spent on it."""

    name = "quester"

    def __init__(self) -> None:
        self.tries: Counter[str] = Counter()  # "quest/stage" (or "quest/offer") -> lines spent on it

    def line(self, seen: Observation, rng: random.Random) -> str:
        state, pack = seen.state, seen.pack
        reach = tools.reachable(pack, {state.location})
        for status in (QuestStatus.ACTIVE, QuestStatus.OFFERED, None):
            for quest in pack.quests.values():
                held = state.quests.get(quest.id)
                if (held.status if held else None) != status or held and held.stage >= len(quest.stages):
                    continue
                key = f"{quest.id}/{held.stage if status == QuestStatus.ACTIVE else 'offer'}"
                if self.tries[key] >= GIVE_UP or status is None and where(quest.giver, state, pack) not in reach:
                    continue
                found = self._stage(seen, quest.stages[held.stage], rng) if status == QuestStatus.ACTIVE else \
                    self._take_up(seen, quest.giver)
                if found is not None:
                    self.tries[key] += 1
                    return found
        return Suggestions().line(seen, rng)

    def _take_up(self, seen: Observation, giver: str) -> str:
        pack, state = seen.pack, seen.state
        name = pack.npcs[giver].name
        at = where(giver, state, pack)
        if at is not None and at != state.location:
            return go(pack, at)
        return "yes" if seen.last_input == f"talk to {name}" else f"talk to {name}"

    def _stage(self, seen: Observation, stage: QuestStage, rng: random.Random) -> str | None:
        state, pack, when = seen.state, seen.pack, stage.when
        if when.item is not None and state.player.inventory.get(when.item, 0) <= 0:
            return fetch(seen, when.item)
        if when.location is not None and state.location != when.location:
            return go(pack, when.location)
        who = None
        if when.npc is not None:
            who = pack.npcs[when.npc].name
            at = where(when.npc, state, pack)
            if when.location is None and at is not None and at != state.location:
                return go(pack, at)
        if rng.random() < 0.5:
            return stage.objective
        here = pack.locations[state.location].name
        acts = [ACTS[a] for a in when.action_classes if a in ACTS] or ["talk to {who}"]
        act = rng.choice(acts)
        if who is None and "{who}" in act:
            return f"search {here} carefully" if "INVESTIGATE" in when.action_classes else "look around"
        return act.format(who=who, here=here)


def fetch(seen: Observation, item: str) -> str | None:
    """A line that gets ``item``: buy it where it is sold (going there first), or search where it lies; None when
    neither is within reach and means."""
    state, pack = seen.state, seen.pack
    reach = tools.reachable(pack, {state.location})
    price = pack.items[item].value
    for place in [state.location, *sorted(reach - {state.location})]:  # here first
        spot = pack.locations[place]
        if item in spot.shop and state.player.credits >= price:
            return f"buy {pack.items[item].name.lower()}" if place == state.location else go(pack, place)
        if any(d.item == item and d.id not in state.world.discoveries for d in spot.discoveries):
            return f"search {spot.name} carefully" if place == state.location else go(pack, place)
    return None


class Explorer(Policy):
    name = "explorer"

    def line(self, seen: Observation, rng: random.Random) -> str:
        state, pack = seen.state, seen.pack
        new_people = [name for pid, name in seen.present if pid not in seen.addressed]
        if new_people:
            return f"talk to {rng.choice(new_people)}"
        gathered = _gathered(seen)
        if gathered is not None:  # a pack scene whose people are all here: address them together, and it opens
            return gathered
        here = pack.locations[state.location]
        near = sorted({link.to for link in here.links if link.to in pack.locations} - seen.visited)
        if near:
            return go(pack, rng.choice(near))
        reach = tools.reachable(pack, {state.location})
        far = sorted(reach - seen.visited)
        if far:
            return go(pack, rng.choice(far))
        unmet = sorted({where(p, state, pack) for p in [*pack.npcs, *pack.companions]
                        if p not in state.known_npcs and p not in state.companions} & reach - {state.location})
        if unmet:
            return go(pack, rng.choice(unmet))
        if any(d.id not in state.world.discoveries for d in here.discoveries):
            return f"search {here.name} carefully"
        trade = _trade(seen, rng)
        if trade is not None:
            return trade
        links = sorted(link.to for link in here.links if link.to in pack.locations)
        options = ["look around", *(go(pack, to) for to in links)]
        return rng.choice(options) if rng.random() < 0.5 or not seen.suggestions else Suggestions().line(seen, rng)


def _gathered(seen: Observation) -> str | None:
    """"Hesper, Rhea, what is going on here?" when a pack scene not yet played plays here and its people are all on
    stage (``rules.moderator``: naming two of them opens it), and none is running; else None."""
    state, pack = seen.state, seen.pack
    if state.scenes.scene is not None:
        return None
    names = dict(seen.present)
    for scene in pack.scenes.values():
        if scene.location == state.location and scene.id not in state.scenes.done and all(
                c in names for c in scene.characters):
            line = f"{', '.join(first_name(names[c]) for c in scene.characters)}, what is going on here?"
            return None if line == seen.last_input else line  # asked, and it did not open: explore on
    return None


def _trade(seen: Observation, rng: random.Random) -> str | None:
    """Once the map is explored, the explorer tries the wares: buys something here it does not hold and can afford,
    or sells something it carries (one time in two each)."""
    state, pack = seen.state, seen.pack
    here = pack.locations[state.location]
    if not here.shop or rng.random() < 0.5:
        return None
    wares = sorted(i for i in set(here.shop) if i in pack.items and i not in state.player.inventory
                   and pack.items[i].value <= state.player.credits)
    carried = sorted(i for i, qty in state.player.inventory.items() if qty > 0 and i in pack.items)
    if wares and (not carried or rng.random() < 0.5):
        return f"buy {pack.items[rng.choice(wares)].name.lower()}"
    return f"sell my {pack.items[rng.choice(carried)].name.lower()}" if carried else None


class Chatter(Policy):
    name = "chatter"

    def line(self, seen: Observation, rng: random.Random) -> str:
        if seen.last_intent == "TALK" and rng.random() < 0.5:
            return rng.choice(phrases.REPLIES)
        said = rng.choice(phrases.SMALL_TALK)
        if seen.present and rng.random() < 0.4:
            _, name = rng.choice(seen.present)
            return f"{first_name(name)}, {said[0].lower()}{said[1:]}"
        return said


class Chaos(Policy):
    name = "chaos"

    def line(self, seen: Observation, rng: random.Random) -> str:
        kind = rng.choice(("impossible", "injection", "nonsense", "broken", "long"))
        if kind == "impossible":
            return rng.choice(phrases.IMPOSSIBLE)
        if kind == "injection":
            return rng.choice(phrases.INJECTIONS)
        if kind == "nonsense":
            return rng.choice(phrases.NONSENSE)
        if kind == "broken":
            return rng.choice(phrases.BROKEN)
        phrase = rng.choice(phrases.IMPOSSIBLE + phrases.INJECTIONS + phrases.SMALL_TALK)
        return phrases.long_line(phrase, rng.choice((seen.max_chars - 10, seen.max_chars + 500)))


IDLE_LINES = ("look around", "wait", "wait a while", "take a look around", "wait an hour", "sit and watch for a while",
              "look around again")


class Idle(Policy):
    name = "idle"

    def line(self, seen: Observation, rng: random.Random) -> str:
        return rng.choice(IDLE_LINES)


POLICIES: dict[str, type[Policy]] = {p.name: p for p in (Suggestions, Quester, Explorer, Chatter, Chaos, Idle)}


def policy_name(choice: str, index: int) -> str:
    """The policy campaign ``index`` plays under ``choice`` (``mixed``: round-robin over :data:`ORDER`).

    :raises ValueError: not one of :data:`CHOICES`."""
    if choice == MIXED:
        return ORDER[index % len(ORDER)]
    if choice not in POLICIES:
        raise ValueError(f"unknown policy {choice!r}; choose one of {', '.join(CHOICES)}")
    return choice


def make(name: str) -> Policy:
    """A fresh player of policy ``name`` (one per campaign). :raises KeyError: unknown name."""
    return POLICIES[name]()
