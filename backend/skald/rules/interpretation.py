"""The interpreter role's closed action: what a model may say a line means, and the plain line the rules then read.

The model proposes, the rules dispose. A line the parser could not place (``interact.unanswered``) goes to the
``interpreter`` role (``nodes.interpreter``), whose reply must validate against :func:`schema_for`: one of
:data:`ACTIONS`, and only ids of this pack and this scene (the people here, the pack's places, the items carried or
sold here, the small deeds the rules answer). :func:`line_for` turns a valid reply into a plain line in the words the
parser answers ("talk to Hesper Quill", "go to Cockle Row", "sing"), and the router classifies that line exactly as
typed input (``nodes.router.reread``): every outcome is the rules'. Nothing here can reach META, a timeline command or
a wish: the line is rebuilt from the pack's own names, and a topic is plain words, checked by ``rules.wishes``.

Shapes: :class:`Interpretation` is the reply (``action``, ``target``, ``destination``, ``item``, ``topic``, ``deed``,
``manner``); :func:`line_for` returns a ``str`` or None for ``action == "impossible"``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from skald.core.pack import EraPack
from skald.core.persistent import PersistentState
from skald.core.vocab import Tone
from skald.rules.scene import everyone_at
from skald.rules.wishes import wish

# action -> (the plain line the parser answers, the fields it needs). {target}: a person's name; {destination}: a
# place's name; {item}: an item's name; {topic}: plain words; {deed}: a small deed's verb.
ACTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "talk": ("talk to {target}", ("target",)),
    "ask_about": ("ask {target} about {topic}", ("target", "topic")),
    "ask_around": ("what do people say about {topic}?", ("topic",)),
    "look_around": ("look around", ()),
    "examine_person": ("look at {target}", ("target",)),
    "examine_item": ("look at the {item}", ("item",)),
    "examine_thing": ("look at the {topic}", ("topic",)),
    "search": ("search the place", ()),
    "go": ("go to {destination}", ("destination",)),
    "leave": ("leave", ()),
    "buy": ("buy the {item}", ("item",)),
    "sell": ("sell my {item}", ("item",)),
    "give": ("give the {item} to {target}", ("item", "target")),
    "use": ("use my {item}", ("item",)),
    "eat": ("eat something", ()),
    "drink": ("drink something", ()),
    "attack": ("attack {target}", ("target",)),
    "persuade": ("persuade {target}", ("target",)),
    "intimidate": ("threaten {target}", ("target",)),
    "deceive": ("lie to {target}", ("target",)),
    "recruit": ("ask {target} to join me", ("target",)),
    "help": ("help {target}", ("target",)),
    "work": ("do some work", ()),
    "sneak": ("sneak around", ()),
    "rest": ("rest", ()),
    "wait": ("wait", ()),
    "deed": ("{deed}", ("deed",)),
    "impossible": ("", ()),
}
# The small deeds the rules answer by their verb (rules.deeds), as a model may name them.
DEEDS = ("sing", "dance", "pray", "sit down", "stand up", "nod", "wave", "laugh", "think", "listen", "smell the air",
         "warm my hands", "jump", "clean up", "play a tune", "write a note", "watch the door")
MANNERS: dict[str, Tone] = {"plain": Tone.NEUTRAL, "kind": Tone.PARAGON, "curious": Tone.INVESTIGATE,
                            "harsh": Tone.RENEGADE}
TOPIC = re.compile(r"^[\w' ,.-]{1,60}$")


class Interpretation(BaseModel):
    """The ``interpreter`` role's reply, before the scene's ids narrow it (:func:`schema_for`)."""

    model_config = ConfigDict(extra="forbid")

    action: str = Field(description="one action: " + ", ".join(ACTIONS) + "; 'impossible' when the line asks for "
                        "what cannot happen in this world")
    target: str | None = Field(None, description="a person's id, from the People list")
    destination: str | None = Field(None, description="a place's id, from the Places list")
    item: str | None = Field(None, description="an item's id, from the Items list")
    topic: str | None = Field(None, description="what it is about, in at most six plain words")
    deed: str | None = Field(None, description="for action 'deed': one of " + ", ".join(DEEDS))
    manner: Literal["plain", "kind", "curious", "harsh"] = "plain"

    @model_validator(mode="after")
    def _needs(self) -> Interpretation:
        needs = ACTIONS[self.action][1] if self.action in ACTIONS else ()
        missing = [name for name in needs if not getattr(self, name)]
        if missing:
            raise ValueError(f"action {self.action!r} needs {' and '.join(missing)}")
        if self.topic is not None and (not TOPIC.match(self.topic) or wish(self.topic.lower()) is not None):
            raise ValueError("topic must be at most 60 characters of plain words")
        return self


def _plain(topic: str) -> str:
    """A topic as the line says it: lower case, without a leading article (the template has its own)."""
    return re.sub(r"^(?:the|a|an)\s+", "", topic.strip().lower())


def ids_for(state: PersistentState, pack: EraPack) -> dict[str, tuple[str, ...]]:
    """The ids a reply may use here: ``target`` (people here), ``destination`` (the pack's other places), ``item``
    (carried or sold here)."""
    here = pack.locations[state.location]
    items = tuple(dict.fromkeys([i for i, n in state.player.inventory.items() if n > 0 and i in pack.items]
                                + [i for i in here.shop if i in pack.items]))
    return {"target": tuple(p.id for p in everyone_at(state, pack, state.location)),
            "destination": tuple(loc for loc in pack.locations if loc != state.location),
            "item": items}


def schema_for(state: PersistentState, pack: EraPack) -> type[Interpretation]:
    """The reply's schema in this scene: :class:`Interpretation` with every id field a ``Literal`` of
    :func:`ids_for` (an empty list: the field must stay null), so a reply can never name what is not here. One class
    per pack version and set of ids (the LLM client keeps a structured runnable per schema class)."""
    ids = ids_for(state, pack)
    key = (pack.id, pack.content_hash, *ids.values())
    schema = _SCHEMAS.get(key)
    if schema is None:
        fields: dict = {"action": (Literal[tuple(ACTIONS)], Field(description=Interpretation.model_fields["action"]
                                                                  .description)),
                        "deed": (Literal[DEEDS] | None, None)}
        for name, known in ids.items():
            kind = Literal[known] | None if known else None
            fields[name] = (kind, Field(None, description=Interpretation.model_fields[name].description))
        schema = create_model("interpret", __base__=Interpretation, __doc__="What the player's line means, as one "
                              "action of this scene.", **fields)
        if len(_SCHEMAS) >= SCHEMAS_KEPT:
            _SCHEMAS.clear()
        _SCHEMAS[key] = schema
    return schema


SCHEMAS_KEPT = 256
_SCHEMAS: dict[tuple, type[Interpretation]] = {}


def line_for(reply: Interpretation, state: PersistentState, pack: EraPack) -> str | None:
    """The plain line the rules read for ``reply`` (None: 'impossible', or an id that is not of this scene)."""
    template, needs = ACTIONS[reply.action]
    if not template:
        return None
    ids = ids_for(state, pack)
    people = {p.id: p.name for p in everyone_at(state, pack, state.location)}
    values: dict[str, str] = {}
    for name in needs:
        value = getattr(reply, name)
        if name in ids and value not in ids[name]:
            return None
        values[name] = {"target": lambda v: people[v], "destination": lambda v: pack.locations[v].name,
                        "item": lambda v: pack.items[v].name.lower(), "topic": _plain,
                        "deed": str}[name](value)
    return template.format(**values)
