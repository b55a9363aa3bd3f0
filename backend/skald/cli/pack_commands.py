"""``skald pack ...``: the designer's tools (validate, new, draft, schema, show). The work is done in
:mod:`skald.packs.tools`; this module only parses options and prints."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

pack_app = typer.Typer(help="Era pack tools for designers: validate, lint, map, new, draft, schema, show.",
                       no_args_is_help=True)


@pack_app.command("validate")
def validate_cmd(
    packs: Annotated[list[str] | None, typer.Argument(
        metavar="ID|PATH", help="pack ids or pack folders (default: every shipped pack)", show_default=False)
    ] = None,
) -> None:
    """Load each pack and print every error with file:line:column; exit 1 if any pack has errors."""
    from skald.packs.loader import available_packs
    from skald.packs.tools import summary, validate

    refs = list(packs or available_packs())
    errors = 0
    for result in validate(refs):
        if result.ok:
            typer.echo(f"ok  {result.pack} ({summary(result.loaded)})")
            for line in result.warnings:
                typer.echo(f"  warning: {line}")
            continue
        typer.echo(f"FAIL  {result.pack}: {len(result.errors)} error(s)")
        for line in result.errors:
            typer.echo(f"  {line}")
        errors += len(result.errors)
    typer.echo(f"{len(refs)} pack(s) checked, {errors} error(s)")
    raise typer.Exit(1 if errors else 0)


@pack_app.command("new")
def new_cmd(
    pack_id: Annotated[str, typer.Argument(metavar="ID", help="the new pack's id, lowercase snake_case")],
    extends: Annotated[str | None, typer.Option(help="write a minimal overlay of this pack instead of a full "
                                                     "copy of the template")] = None,
    directory: Annotated[Path | None, typer.Option("--dir", help="create the pack folder in this folder "
                                                                 "(default: data/era_packs)")] = None,
) -> None:
    """Create a new pack from the commented template (data/era_packs/_template), or an overlay with --extends."""
    from skald.packs.tools import NewPackError, new_overlay, new_pack, summary, validate_one

    try:
        target = new_overlay(pack_id, extends, directory) if extends else new_pack(pack_id, directory)
    except NewPackError as exc:
        typer.echo(f"skald pack new: {exc}", err=True)
        raise typer.Exit(2) from None
    check = validate_one(target)
    kind = f"overlay of {extends}" if extends else "pack from the template"
    typer.echo(f"created {kind}: {target}")
    if not check.ok:  # the template itself is broken: say so rather than hand over a pack that does not load
        typer.echo("but it does not validate:", err=True)
        for line in check.errors:
            typer.echo(f"  {line}", err=True)
        raise typer.Exit(1)
    typer.echo(f"  {check.loaded.id}: {summary(check.loaded)}")
    typer.echo(f"next: edit the YAML files (every field is commented), then: skald pack validate {target}")
    typer.echo(f"      skald pack show {target}   and   skald play --pack {target} --watch")


@pack_app.command("draft")
def draft_cmd(
    kind: Annotated[str, typer.Argument(help="npc, location, quest, rumor or episode")],
    prompt: Annotated[str, typer.Argument(help="what to draft, in a sentence")],
    pack: Annotated[str, typer.Option(help="the pack (id or folder) the draft is for")],
    interactive: Annotated[bool | None, typer.Option("--interactive/--direct", "-i/-I", help="talk it through (-i) "
                                                     "or draft from the prompt alone (-I); default: -i on a "
                                                     "terminal")] = None,
    out: Annotated[Path | None, typer.Option(help="the overlay folder to write (default: "
                                                  "data/era_packs/<pack>_drafts)")] = None,
) -> None:
    """Draft pack content with the `setup` model: discuss, summarize, then submit an entry the pack loader accepts,
    written to an overlay (never to the pack's own files) and validated."""
    import sys

    from skald.cli.prompt import prompt_tty
    from skald.creation import discuss
    from skald.llm.client import LLMClient
    from skald.llm.conversation import ConversationError, ConversationRunner
    from skald.llm.setup_stages import draft
    from skald.packs import drafts
    from skald.packs.loader import PackError, load_pack
    from skald.packs.tools import validate_one
    from skald.settings import settings_or_exit

    if kind not in drafts.KINDS:
        typer.echo(f"skald pack draft: KIND must be one of {', '.join(drafts.KINDS)}", err=True)
        raise typer.Exit(2)
    try:
        loaded = load_pack(pack)
    except (PackError, LookupError, OSError) as exc:
        typer.echo(f"skald pack draft: {exc}", err=True)
        raise typer.Exit(2) from None
    llm = LLMClient(settings_or_exit())
    if not llm.asks("setup"):
        typer.echo(f"skald pack draft: needs the setup model ({llm.mode}); start Ollama or set SKALD_LLM=on",
                   err=True)
        raise typer.Exit(2)
    tty = sys.stdin.isatty() if interactive is None else interactive
    stage = draft(loaded, kind, lambda entry: drafts.check(pack, loaded, kind, entry))
    runner = ConversationRunner(llm, stage, interactive=tty)
    try:
        if tty:
            typer.echo(discuss(runner, prompt_tty, typer.echo, first=prompt))
        else:
            typer.echo(runner.direct(prompt))
        entry = runner.serialize()
    except ConversationError as exc:
        typer.echo(f"skald pack draft: {exc}", err=True)
        if exc.feedback:
            import json

            typer.echo(f"  last feedback sent: {json.dumps(exc.feedback)[:600]}", err=True)
        raise typer.Exit(1) from None
    root = drafts.write(loaded, kind, entry, out)
    check = validate_one(root)
    typer.echo(f"wrote {kind} {entry['id']!r} to {root / drafts.KINDS[kind].file}")
    if not check.ok:
        for line in check.errors:
            typer.echo(f"  {line}", err=True)
        raise typer.Exit(1)
    typer.echo(f"ok  {root} validates: skald pack validate {root}")


@pack_app.command("schema")
def schema_cmd(
    out: Annotated[Path | None, typer.Option(help="folder to write the *.schema.json files into "
                                                  "(default: the repository's docs/schema)")] = None,
) -> None:
    """Write JSON Schema files for the pack's YAML files, for completion and checks in your editor."""
    from skald.packs.loader import PACKS_DIR
    from skald.packs.tools import SCHEMA_DIR, write_schemas

    out = out or SCHEMA_DIR
    for path in write_schemas(out):
        typer.echo(f"wrote {_shown(path)}")
    example = Path(os.path.relpath(out.resolve() / "locations.schema.json", (PACKS_DIR / "my_pack").resolve()))
    typer.echo(
        "\nTo use them in an editor with the YAML language server (VS Code's YAML extension, Neovim, Helix, ...),\n"
        "put a modeline as the first line of each YAML file, naming the schema of its kind, e.g. in\n"
        f"data/era_packs/my_pack/locations.yaml:\n\n  # yaml-language-server: $schema={example.as_posix()}\n\n"
        "(the path is relative to the YAML file). doc.schema.json describes the front matter of lore/, style/\n"
        "and voices/ documents. Overlay packs (extends) may hold partial entries and `disabled: true`, which\n"
        "these schemas flag; they are for complete packs. Check a pack for real with: skald pack validate ID")


@pack_app.command("show")
def show_cmd(
    pack: Annotated[str, typer.Argument(metavar="ID", help="pack id or pack folder")],
) -> None:
    """Counts, the travel graph, and content that loads but cannot be played.

    Unreachable locations, NPCs nobody can meet, factions without members, quests that can never be completed.
    """
    from rich.console import Console
    from rich.table import Table

    from skald.packs.tools import analyse, validate_one

    check = validate_one(pack)
    if not check.ok:
        typer.echo(f"FAIL  {pack}: {len(check.errors)} error(s)")
        for line in check.errors:
            typer.echo(f"  {line}")
        raise typer.Exit(1)
    loaded = check.loaded
    report = analyse(loaded)
    console = Console(width=max(100, Console().width), highlight=False)
    title = f"{loaded.era.name}: {loaded.era.era} ({loaded.id}" + (
        f", layers {' > '.join(loaded.layers)})" if loaded.layers else ")")

    console.print(title, style="bold", markup=False)
    table = Table()
    table.add_column("kind")
    table.add_column("count", justify="right")
    for kind, n in report.counts.items():
        table.add_row(_esc(kind), str(n))
    console.print(table)

    graph = report.graph
    table = Table(title="Travel graph", title_justify="left", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value", overflow="fold")
    table.add_row("entry points", _esc(", ".join(graph.entry_points)))
    table.add_row("components", _esc(f"{len(graph.components)}: " + " | ".join(", ".join(g) for g in graph.components)))
    table.add_row("reachable", f"{len(graph.reachable)} of {report.counts['locations']}")
    table.add_row("unreachable", _red(", ".join(graph.unreachable)) if graph.unreachable else "none")
    table.add_row("one-way links", _esc(", ".join(f"{a} -> {b}" for a, b in graph.one_way)) or "none")
    table.add_row("dead ends", _esc(", ".join(graph.dead_ends)) or "none")
    console.print(table)

    table = Table(title="Problems", title_justify="left")
    table.add_column("kind")
    table.add_column("id")
    table.add_column("problem", overflow="fold")
    for loc in graph.unreachable:
        table.add_row("location", _esc(loc), "cannot be reached from an entry point")
    for item in report.people:
        table.add_row(item.what, _esc(item.id), _esc(item.problem))
    for faction in report.empty_factions:
        table.add_row("faction", _esc(faction), "no NPC or companion belongs to it")
    for item in report.quests:
        table.add_row("quest", _esc(item.id), _esc(item.problem))
    for item in report.scenes:
        table.add_row("scene", _esc(item.id), _esc(item.problem))
    if table.row_count:
        console.print(table)
    else:
        console.print("Problems: none found", style="green")


@pack_app.command("lint")
def lint_cmd(
    packs: Annotated[list[str] | None, typer.Argument(
        metavar="ID|PATH", help="pack ids or pack folders (default: every shipped pack)", show_default=False)
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="exit 1 when there is any warning")] = False,
) -> None:
    """Warn about content that validates but can never happen in play: places no link reaches, people and items
    nothing places or grants, quest stages that cannot complete, rumors and events that never fire. Each warning
    names file:line:column and the field. Exits 0 (1 with --strict when there are warnings; 2 when a pack does not
    load: fix its errors first, see skald pack validate)."""
    from skald.designer.lint import lint
    from skald.packs.loader import PackError, available_packs

    refs = list(packs or available_packs())
    warned = broken = 0
    for ref in refs:
        try:
            found = lint(ref)
        except PackError as exc:
            typer.echo(f"FAIL  {exc.pack}: does not load ({len(exc.issues)} error(s)); skald pack validate {ref} "
                       "lists them")
            broken += 1
            continue
        typer.echo(f"{'ok  ' if not found.warnings else 'warn'}  {found.pack}: {len(found.warnings)} warning(s)")
        for warning in found.warnings:
            typer.echo(f"  {warning}")
        warned += len(found.warnings)
    typer.echo(f"{len(refs)} pack(s) linted, {warned} warning(s)")
    raise typer.Exit(2 if broken else 1 if strict and warned else 0)


@pack_app.command("map")
def map_cmd(
    pack: Annotated[str, typer.Argument(metavar="ID", help="pack id or pack folder")],
    out: Annotated[str | None, typer.Option("--out", "-o", help="the file to write (default: <id>-map.<format> in "
                                                                "the current folder); - writes to standard output",
                                            show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="svg or png")] = "svg",
    player: Annotated[bool, typer.Option("--player", help="the player's map, as the play page shows it: places, "
                                                          "ways and travel times; no hazards, people or quests"
                                         )] = False,
) -> None:
    """Draw the pack's map with Graphviz: places and ways with travel times and risk, hazards, who is placed where
    (NPCs, companions) and where quest stages happen. Needs Graphviz's `dot` program (apt-get install graphviz)."""
    import sys

    from skald.packs.loader import PackError, load_pack
    from skald.packs.map import FORMATS, MapError, designer_map, player_map
    from skald.views import map_of

    if fmt not in FORMATS:
        typer.echo(f"skald pack map: --format must be one of {', '.join(FORMATS)}", err=True)
        raise typer.Exit(2)
    if out == "-" and fmt == "png" and sys.stdout.isatty():
        typer.echo("skald pack map: a PNG is not for a terminal: write it to a file with --out", err=True)
        raise typer.Exit(2)
    try:
        loaded = load_pack(pack)
        drawn = player_map(map_of(loaded, "", set()), fmt) if player else designer_map(loaded, fmt)
    except (PackError, LookupError, OSError, MapError) as exc:
        typer.echo(f"skald pack map: {exc}", err=True)
        raise typer.Exit(2) from None
    if out == "-":
        sys.stdout.buffer.write(drawn)
        sys.stdout.buffer.flush()
        return
    target = Path(out) if out else Path.cwd() / f"{loaded.id}-map.{fmt}"
    try:
        target.write_bytes(drawn)
    except OSError as exc:
        typer.echo(f"skald pack map: cannot write {target}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    kind = "player's" if player else "designer's"
    typer.echo(f"wrote the {kind} map of {loaded.id} ({len(loaded.locations)} places) to {_shown(target)}")


def _shown(path: Path) -> str:
    """``path`` relative to the current folder when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _red(text: str) -> str:
    return f"[red]{_esc(text)}[/]"


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)
