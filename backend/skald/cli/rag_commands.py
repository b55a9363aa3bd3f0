"""``skald ingest`` and ``skald lore ...``: build the lore index and look inside it. The work is done in
:mod:`skald.rag`; this module only parses options and prints.

Mount with ``app.command("ingest")(ingest_command)`` and ``app.add_typer(lore_app, name="lore")``. Options left
unset take ``SKALD_CHROMA_PATH`` / ``SKALD_EMBEDDINGS`` / ``SKALD_DEFAULT_PACK`` (and ``data/chroma`` /
``wordllama`` while those settings do not exist).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from skald.settings import settings_or_exit

LANES = ("lore", "style", "voice", "hook")

PacksArgument = Annotated[list[str] | None, typer.Argument(
    metavar="PACK", help="pack ids or folders (default: every shipped pack)", show_default=False)]
ChromaPathOption = Annotated[Path | None, typer.Option(help="index folder (default: SKALD_CHROMA_PATH)")]
EmbeddingsOption = Annotated[str | None, typer.Option(help="wordllama or ollama:<model> (default: SKALD_EMBEDDINGS)")]

lore_app = typer.Typer(help="The lore index: query it, check it.", no_args_is_help=True)


def _index(chroma_path: Path | None, embeddings: str | None) -> Any:
    from skald.rag.embeddings import embedder
    from skald.rag.store import LoreIndex

    settings = settings_or_exit()
    path = chroma_path or settings.chroma_path
    spec = embeddings or settings.embeddings
    try:
        embed = embedder(spec, settings.ollama_base_url)
    except ValueError as exc:
        typer.echo(f"skald: {exc}", err=True)
        raise typer.Exit(2) from None
    return LoreIndex(path, embed)


def _open(packs: list[str] | None, chroma_path: Path | None, embeddings: str | None) -> tuple[Any, list[Any], int]:
    """The index, the named packs (every shipped pack when none) and how many failed to load."""
    from skald.packs.loader import available_packs

    return (_index(chroma_path, embeddings), *_load(list(packs or available_packs())))


def _load(refs: list[str]) -> tuple[list[Any], int]:
    """Packs by id or folder; errors printed, with their count."""
    from skald.packs.loader import PackError, load_pack

    packs, failed = [], 0
    for ref in refs:
        try:
            packs.append(load_pack(ref))
        except PackError as exc:
            typer.echo(f"skald: {exc}", err=True)
            failed += 1
    return packs, failed


def ingest_command(
    packs: PacksArgument = None,
    rebuild: Annotated[bool, typer.Option(help="drop each pack's index and build it again from scratch")] = False,
    chroma_path: ChromaPathOption = None,
    embeddings: EmbeddingsOption = None,
) -> None:
    """Index the packs' documents, quests and rumors for retrieval (only files changed since the last ingest)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from skald.rag.store import ingest

    index, loaded, failed = _open(packs, chroma_path, embeddings)
    console = Console(highlight=False)
    tasks: dict[str, Any] = {}
    with Progress(TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields["
                  "path]}"), TimeElapsedColumn(), console=console, transient=True) as bar:
        def progress(pack_id: str, done: int, total: int, path: str) -> None:
            if pack_id not in tasks:
                tasks[pack_id] = bar.add_task(pack_id, total=total, path="")
            bar.update(tasks[pack_id], completed=done, path=path)

        try:
            report = ingest(index, loaded, rebuild=rebuild, progress=progress)
        except Exception as exc:  # Ollama down, a locked store: one line, not a traceback
            bar.stop()
            typer.echo(f"skald ingest: {type(exc).__name__}: {exc}", err=True)
            raise typer.Exit(1) from None
    for pack_id, part in report.packs.items():
        why = f"  (rebuilt: {part.rebuilt[pack_id]})" if pack_id in part.rebuilt else ""
        console.print(f"{pack_id}: {part.summary()}{why}")
    console.print(f"index {index.path} ({index.embed.model_name}): {len(report.packs)} pack(s) in "
                  f"{report.seconds:.2f} s" + (f"; {failed} pack(s) failed to load" if failed else ""))
    if failed:
        raise typer.Exit(1)


@lore_app.command("query")
def query_cmd(
    text: Annotated[str, typer.Argument(metavar="TEXT", help="what to look for, in plain words")],
    pack: Annotated[str | None, typer.Option(help="pack id (default: SKALD_DEFAULT_PACK)")] = None,
    lane: Annotated[str, typer.Option(help="lore, style, voice or hook")] = "lore",
    k: Annotated[int, typer.Option("-k", help="how many chunks", min=1)] = 4,
    entity: Annotated[list[str] | None, typer.Option("--entity", "-e", help="NPC, location, faction ... id on "
                                                                            "stage (repeatable); voice: whose")
                      ] = None,
    budget: Annotated[int | None, typer.Option(help="token budget, as a node would use (default: none)")] = None,
    chroma_path: ChromaPathOption = None,
    embeddings: EmbeddingsOption = None,
) -> None:
    """Print the top chunks of one lane for TEXT, with score and source (path and heading)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.padding import Padding

    from skald.rag.retrieve import Retriever

    if lane not in LANES:
        typer.echo(f"skald lore query: unknown lane {lane!r}; lanes: {', '.join(LANES)}", err=True)
        raise typer.Exit(2)
    index = _index(chroma_path, embeddings)
    loaded, failed = _load([pack or settings_or_exit().default_pack])
    if failed:
        raise typer.Exit(2)
    retriever = Retriever(index, loaded)
    found = retriever.lane(lane, loaded[0].id, text, entity or [], k=k, budget=budget)
    hits = found.hits
    console = Console(highlight=False)
    for warning in found.warnings:
        console.print(f"[yellow]{escape(warning)}[/yellow]")
    if not hits:
        console.print("no results")
        raise typer.Exit(1 if found.warnings else 0)
    for rank, hit in enumerate(hits, 1):
        console.print(f"[bold]{rank}. {hit.score:.3f}[/bold]  {escape(hit.source_path)}  [dim]{escape(hit.heading)}"
                      f"  ({hit.tokens} tokens)[/dim]")
        console.print(Padding(escape(hit.text), (0, 0, 1, 3)))


@lore_app.command("status")
def status_cmd(
    packs: PacksArgument = None,
    chroma_path: ChromaPathOption = None,
    embeddings: EmbeddingsOption = None,
) -> None:
    """Whether each pack's index is ok, missing or stale; exit 1 unless all are ok."""

    index, loaded, failed = _open(packs, chroma_path, embeddings)
    bad = failed
    for pack in loaded:
        status = index.check(pack)
        fix = "" if status.state == "ok" else f" - run `skald ingest {pack.id}`"
        reason = f" ({status.reason})" if status.reason and status.state != "missing" else ""
        typer.echo(f"{status.state:<8} {pack.id}{reason}{fix}")
        bad += status.state != "ok"
    if bad:
        raise typer.Exit(1)
