"""The stages guided creation runs through ``llm.conversation``: the player's character (``skald new``, the API's
setup sessions). Each stage is its phases' instructions, the pack as context, the research tools and a
finalization tool whose validator is the pack's own ids."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from skald.core.pack import EraPack
from skald.llm import feedback as fb
from skald.llm import research
from skald.llm.conversation import Invalid, Phase, Stage, Tool
from skald.rules import setup

CHARACTER = {
    Phase.DISCUSS: (
        "You help a player create their character for a text role-playing game, talking with them briefly. Settle, "
        "asking only for what is missing: a concept, a name, pronouns, a background (an id from list_backgrounds), "
        "where the story starts (a location id), a personal hook, the tone they want and anything the story must "
        "leave out. Suggest, never insist; keep each reply under 80 words. Use the tools to look things up. When "
        "everything is settled (or the player says so), call ready_to_summarize."),
    Phase.SUMMARIZE: (
        "Summarize the character the player and you settled, in three or four plain sentences, second person: who "
        "they are, where they start, what pulls them in, and any content limits. Do not call tools."),
    Phase.SERIALIZE: (
        "Call submit_character with the character settled: name, pronouns, concept, background id, start_location "
        "id, hook, tone, limits. Use only ids the tools listed. Call the tool; do not write anything else."),
}


def character(pack: EraPack, retriever: Any = None) -> Stage:
    """The player stage for ``pack``: ``submit_character`` validates against the pack's backgrounds and places
    (the feedback lists the allowed ids) and returns a :class:`~skald.rules.setup.CharacterSheet`."""
    schema = setup.submit_schema(pack)

    def submit(args: BaseModel) -> setup.CharacterSheet:
        sheet = setup.CharacterSheet.model_validate(args.model_dump())
        problems = setup.check(sheet, pack)
        if problems:
            raise Invalid(fb.problems(problems, [], [], "submit_character"))
        return sheet

    final = Tool("submit_character", "Submit the character once everything is settled.", schema, submit)
    era = pack.era
    context = (f"Setting: {era.name}, {era.era}. Tone: {era.tone} Themes: {', '.join(era.themes)}.\n"
               f"Backgrounds: " + "; ".join(f"{b.id} ({b.name})" for b in pack.backgrounds.values()) + ".\n"
               "Usual starting places: " + ", ".join(era.start_locations) + ".")
    return Stage("character", CHARACTER, context, research.tools(pack, retriever), final)


def validate_character(pack: EraPack, args: dict[str, Any]) -> dict[str, Any] | None:
    """The feedback ``submit_character`` would send for ``args`` (None when they validate): for tests and docs."""
    try:
        character(pack).finalize.call(args)
    except Invalid as bad:
        return bad.result
    return None


# ------------------------------------------------------------------------------------------ the designer stage

DRAFT = {
    Phase.DISCUSS: (
        "You help a designer draft one {kind} for an era pack of a text role-playing game. Ask briefly about what is "
        "unclear, suggest what would fit the setting, and look things up with the tools: every id you use must be "
        "one the pack has (or the new entry's own). Keep each reply under 80 words. When the {kind} is settled, "
        "call ready_to_summarize."),
    Phase.SUMMARIZE: "Summarize the {kind} settled, in a few plain sentences. Do not call tools.",
    Phase.SERIALIZE: (
        "Call submit_{kind} with the whole {kind}: every required field, ids the pack has, a new id of lowercase "
        "letters, digits and underscores. Call the tool; do not write anything else."),
}


def draft(pack: EraPack, kind: str, validate: Any, retriever: Any = None) -> Stage:
    """The designer stage for one ``kind`` (``packs.drafts.KINDS``): ``submit_<kind>`` takes the pack model's own
    fields and is validated by ``validate(entry) -> list of feedback issues`` (the pack loader on the pack with the
    draft merged in); it returns the entry as a dict."""
    from skald.packs import drafts

    model = drafts.KINDS[kind].model

    def submit(args: BaseModel) -> dict[str, Any]:
        entry = args.model_dump(mode="json", exclude_defaults=True)
        entry = {"id": entry.pop("id"), **entry}
        issues = validate(entry)
        if issues:
            raise Invalid(fb.problems(issues, [], [], f"submit_{kind}"))
        return entry

    final = Tool(f"submit_{kind}", f"Submit the {kind} once it is settled.", model, submit)
    context = drafts.context(pack, kind)
    instructions = {phase: text.format(kind=kind) for phase, text in DRAFT.items()}
    return Stage(f"{kind} draft", instructions, context, research.tools(pack, retriever), final)
