"""The terminal's commands of ``skald`` (play, new, record, replay, campaigns, transcript, models, doctor, pack,
ingest, lore, playtest); the
API adds ``serve`` in ``skald.commands``."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from skald.cli.db_commands import db_app
from skald.cli.pack_commands import pack_app
from skald.cli.playtest_command import playtest_command
from skald.cli.rag_commands import ingest_command, lore_app
from skald.cli.store_option import DbOption, absent, chosen
from skald.errors import SkaldError
from skald.packs.loader import PackError
from skald.settings import ROLES, settings_or_exit

app = typer.Typer(help="Skald: text role-playing games with deterministic rules and LLM-written prose.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
app.add_typer(pack_app, name="pack")
app.add_typer(db_app, name="db")
app.command("ingest")(ingest_command)
app.add_typer(lore_app, name="lore")
app.command("playtest")(playtest_command)


@app.callback()
def _every_command(ctx: typer.Context) -> None:
    # Before any command: logs go to the log file (skald.logs), before a library can send them to the terminal.
    # After it, however it ends: background work and the lore stores are closed before the interpreter exits.
    from skald import logs, shutdown

    logs.configure(logs.log_file())
    ctx.call_on_close(shutdown.close_all)


@app.command()
def play(
    pack: Annotated[str | None, typer.Option(help="era pack id (default: SKALD_DEFAULT_PACK)")] = None,
    db: DbOption = None,
    campaign: Annotated[str | None, typer.Option(help="resume this campaign id")] = None,
    branch: Annotated[str | None, typer.Option(help="with --campaign: switch to this branch of its turn tree first "
                                                    "(/branches lists them)")] = None,
    seed: Annotated[int | None, typer.Option(help="seed for a new campaign (default: random)")] = None,
    script: Annotated[Path | None, typer.Option(help="play these inputs, one per line, without prompts",
                                                exists=True, dir_okay=False)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object per turn")] = False,
    background: Annotated[str | None, typer.Option(help="background id for a new campaign")] = None,
    name: Annotated[str, typer.Option(help="your character's name")] = "Wren",
    debug: Annotated[bool, typer.Option(help="after each turn, show LLM call metrics and context stats; show the "
                                             "log (httpx, chromadb...) on stderr too")] = False,
    record: Annotated[Path | None, typer.Option(help="record this session (inputs, LLM exchanges, outcomes) "
                                                      "into this folder")] = None,
    watch: Annotated[bool, typer.Option(help="reload the era pack before each turn when its files change")] = False,
    dice: Annotated[bool, typer.Option(help="under each turn that rolled, show the check: the d20, the modifiers, "
                                            "the DC and the outcome (/dice toggles it in play)")] = True,
) -> None:
    """Play a campaign: interactive on a terminal, or turns from --script / piped stdin."""
    from skald.cli.play import run
    from skald.llm.client import LLMClient

    settings = settings_or_exit()
    if debug:
        from skald import logs

        logs.show()
    if record:
        from skald.replay.session import Recorder, recording_transport, source_of

        transport = recording_transport()
        llm = LLMClient(settings, transport=transport)
    else:
        llm = LLMClient(settings)
    if branch and not campaign:
        typer.echo("skald play: --branch needs --campaign (a new campaign starts on main)", err=True)
        raise typer.Exit(2)
    session = _open_session(chosen(db), llm, pack, campaign, seed, background, name, watch, branch=branch)
    session.dice = dice
    if record:
        session.recorder = Recorder(record, session.pack, session.state, llm, transport, source=source_of(llm, False),
                                    retrieval=settings.retrieval)
    try:
        run(session, str(script) if script else None, json_out, debug, watch)
    finally:
        session.close()


def _open_session(db: Path | str, llm: Any, pack: str | None, campaign: str | None, seed: int | None,
                  background: str | None, name: str, watch: bool = False, retriever: Any = True,
                  branch: str | None = None):
    from skald.cli.session import Session

    try:
        return Session.open(db, llm, pack_id=pack, campaign=campaign,
                            seed=random.randrange(1 << 31) if seed is None else seed, background=background, name=name,
                            watch=watch, retriever=retriever, branch=branch)
    except (SkaldError, PackError, ValueError) as exc:
        typer.echo(f"skald: {exc}", err=True)
        raise typer.Exit(2) from None


@app.command("record")
def record_cmd(
    script: Annotated[Path, typer.Option(help="player inputs, one per line", exists=True, dir_okay=False)],
    out: Annotated[Path, typer.Option(help="recording folder to write (session.jsonl)")],
    pack: Annotated[str | None, typer.Option(help="era pack id")] = None,
    seed: Annotated[int, typer.Option(help="campaign seed")] = 1,
    llm_mode: Annotated[str, typer.Option("--llm", help="auto (Ollama if it answers), off, or scripted "
                                                        "(Skald's scripted model, for shipped recordings)")] = "auto",
    faults: Annotated[Path | None, typer.Option(help="with --llm scripted: YAML of faults per turn and role",
                                                exists=True, dir_okay=False)] = None,
    background: Annotated[str | None, typer.Option(help="background id")] = None,
    name: Annotated[str, typer.Option(help="character name")] = "Wren",
    new: Annotated[Path | None, typer.Option("--new", help="create the character with `skald new -I` first, from "
                                             "these lines (a concept for the model, or the answers offline); "
                                             "--background and --name are then ignored", exists=True,
                                             dir_okay=False)] = None,
) -> None:
    """Play a scripted session and write a recording that `skald replay` checks later."""
    from skald.cli.play import play_lines
    from skald.llm.client import LLMClient
    from skald.replay.session import REPLAY_URL, Recorder, created_by, recording_transport, source_of

    settings = settings_or_exit()
    if llm_mode not in ("auto", "off", "scripted"):
        typer.echo("skald record: --llm must be auto, off or scripted", err=True)
        raise typer.Exit(2)
    if faults is not None and llm_mode != "scripted":
        typer.echo("skald record: --faults needs --llm scripted", err=True)
        raise typer.Exit(2)
    if llm_mode == "scripted":
        from skald.replay.scripted import ScriptedOllama, load_faults

        try:
            planned = load_faults(faults)
        except ValueError as exc:
            typer.echo(f"skald record: {exc}", err=True)
            raise typer.Exit(2) from None
        transport = recording_transport(None)
        transport.inner = ScriptedOllama(turn_of=lambda: transport.turn, faults=planned)
        settings = settings.model_copy(update={"llm": "on", "ollama_base_url": REPLAY_URL})
        llm = LLMClient(settings, online=True, transport=transport, sleep=lambda seconds: None)
    else:
        transport = recording_transport() if llm_mode == "auto" else None
        llm = LLMClient(settings, online=False if llm_mode == "off" else None, transport=transport)
    retriever = None
    if settings.retrieval:  # a fresh index of the pack: the same lore a replay will build
        from skald.packs.loader import get_pack
        from skald.rag.handle import private_index

        retriever = private_index([get_pack(pack or settings.default_pack)], settings.embeddings)
    with tempfile.TemporaryDirectory(prefix="skald-record-") as folder:
        made = None
        if new is not None:  # guided creation first: its LLM calls are the campaign start's (turn 0)
            from skald import creation as guided

            answers = new.read_text(encoding="utf-8").splitlines()
            engine, campaign = guided.run(Path(folder) / "record.db", llm, pack or settings.default_pack, seed,
                                          False, guided.lines_of(iter(answers)), lambda _line: None,
                                          retriever=retriever)
            made = {"inputs": answers, **created_by(engine, campaign)}
            engine.close()
        session = _open_session(Path(folder) / "record.db", llm, pack, made["campaign"] if made else None, seed,
                                background, name, retriever=retriever)
        session.recorder = Recorder(out, session.pack, session.state, llm, transport, retrieval=settings.retrieval,
                                    source=source_of(llm, scripted=llm_mode == "scripted"), setup=made)
        typer.echo(llm.mode, err=True)
        try:
            lines = iter(script.read_text(encoding="utf-8").splitlines())
        except UnicodeDecodeError as exc:
            typer.echo(f"skald: {script} is not UTF-8 text (byte offset {exc.start}); save it as UTF-8 and record "
                       "again. Nothing was recorded.", err=True)
            raise typer.Exit(2) from None
        played = play_lines(session, lines, as_json=False)
        # a script that goes on after /quit: the player comes back to the same save, and the resume is recorded
        while session.last is not None and session.last.view.quit and (rest := [x for x in lines if x.strip()]):
            session = session.reopened()
            lines = iter(rest)
            played += play_lines(session, lines, as_json=False)
        session.close()
    typer.echo(f"recorded {played} turns into {out}", err=True)


@app.command("replay")
def replay_cmd(
    paths: Annotated[list[Path], typer.Argument(help="recording folders, or folders holding them")],
    update: Annotated[bool, typer.Option(help="rewrite the expected outcomes from this replay (golden files)")] = False,
) -> None:
    """Replay recordings against this engine; exit 1 if any committed outcome or prompt differs."""
    from skald.replay.recording import RecordingError
    from skald.replay.session import find_recordings, replay

    settings_or_exit()
    found = find_recordings(paths)
    if not found:
        typer.echo(f"skald replay: no recordings under {', '.join(map(str, paths))}", err=True)
        raise typer.Exit(2)
    failed = 0
    for folder in found:
        try:
            report = replay(folder, update=update)
        except (RecordingError, PackError) as exc:
            typer.echo(f"{folder}: cannot replay: {exc}")
            failed += 1
            continue
        typer.echo(report.render())
        failed += not report.ok
    typer.echo(f"{len(found) - failed} of {len(found)} recording(s) replayed cleanly")
    raise typer.Exit(1 if failed else 0)


@app.command()
def campaigns(db: DbOption = None) -> None:
    """List the campaigns in a save file."""
    from skald.engine import Engine

    path = chosen(db)
    if absent(path):
        typer.echo(f"no save file at {path} yet; start a campaign with: skald play")
        return
    try:
        engine = Engine(path, readonly=True)
        try:
            rows = engine.campaigns()
        finally:
            engine.close()
    except SkaldError as exc:
        typer.echo(f"skald: {exc}", err=True)
        raise typer.Exit(2) from None
    for row in rows:
        typer.echo(f"{row.campaign_id}\tturn {row.turn_number}")
    if not rows:
        typer.echo("no campaigns yet; start one with: skald play")


@app.command("new")
def new_cmd(
    pack: Annotated[str | None, typer.Option(help="era pack id (default: SKALD_DEFAULT_PACK)")] = None,
    db: DbOption = None,
    seed: Annotated[int | None, typer.Option(help="seed for the campaign (default: random)")] = None,
    interactive: Annotated[bool | None, typer.Option("--interactive/--direct", "-i/-I", help="a conversation (-i) "
                                                     "or one answer per line of stdin (-I); default: -i on a "
                                                     "terminal")] = None,
    play_now: Annotated[bool | None, typer.Option("--play/--no-play", help="start playing once the campaign "
                                                  "exists (default: ask, on a terminal)")] = None,
) -> None:
    """Create a character and a campaign, guided: a model talks it through when one answers, else the pack's
    questions (docs/setup.md)."""
    import sys

    from skald import creation as new
    from skald.cli.play import run as play
    from skald.cli.prompt import prompt_tty
    from skald.llm.client import LLMClient

    settings = settings_or_exit()
    tty = sys.stdin.isatty() if interactive is None else interactive
    llm = LLMClient(settings)
    ask = prompt_tty if tty else new.lines_of(sys.stdin)
    seed = random.randrange(1 << 31) if seed is None else seed
    path = chosen(db)
    try:
        engine, campaign = new.run(path, llm, pack or settings.default_pack, seed, tty, ask, typer.echo,
                                   retriever=True)
    except (SkaldError, PackError, ValueError, LookupError) as exc:
        typer.echo(f"skald: {exc}", err=True)
        raise typer.Exit(2) from None
    engine.close()
    resume = f"skald play --campaign {campaign}" + (f" --db {path}" if db else "")
    if play_now is None and tty:
        answer = prompt_tty("Start playing now? [Y/n] ")
        play_now = answer is not None and answer.strip().lower() in ("", "y", "yes")
    if not play_now:
        typer.echo(f"Play it with: {resume}")
        return
    session = _open_session(path, llm, None, campaign, 0, None, "Wren")
    try:
        play(session, None, False, False, False)
    finally:
        session.close()


@app.command()
def transcript(
    campaign: Annotated[str, typer.Argument(help="campaign id (see `skald campaigns`)")],
    db: DbOption = None,
    scene: Annotated[str | None, typer.Option(help="only this scene id")] = None,
    fmt: Annotated[str, typer.Option("--format", help="md (the transcript as text) or json (a list of scenes, each "
                                                      "with its lines)")] = "md",
) -> None:
    """Print the transcripts of a campaign's multi-character scenes: who said what to whom, beat by beat."""
    import json

    from skald.engine import Engine
    from skald.views import transcripts_markdown

    if fmt not in ("md", "json"):
        typer.echo("skald transcript: --format must be md or json", err=True)
        raise typer.Exit(2)
    path = chosen(db)
    if absent(path):
        typer.echo(f"skald transcript: no save file at {path}", err=True)
        raise typer.Exit(2)
    try:
        engine = Engine(path, readonly=True)
        try:
            found = engine.transcripts(campaign, scene)
        finally:
            engine.close()
    except (SkaldError, PackError) as exc:
        typer.echo(f"skald: {exc}", err=True)
        raise typer.Exit(2) from None
    if scene is not None and not found:
        typer.echo(f"skald transcript: campaign {campaign} has no scene {scene!r}", err=True)
        raise typer.Exit(2)
    if fmt == "json":
        typer.echo(json.dumps([t.model_dump(mode="json") for t in found], indent=2))
    else:
        typer.echo(transcripts_markdown(found), nl=False)


@app.command()
def models() -> None:
    """Print the resolved LLM configuration of every role (settings from SKALD_* variables)."""
    from rich.console import Console
    from rich.table import Table

    settings = settings_or_exit()
    table = Table(title=f"LLM roles (SKALD_LLM={settings.llm})")
    keys = ("provider", "model", "base_url", "temperature", "num_ctx", "num_predict", "timeout_s", "attempts",
            "enabled", "think", "keep_alive")
    table.add_column("role")
    for key in keys:
        table.add_column(key)
    configs = settings.roles()  # one num_ctx per model: the widest its roles ask for
    for role in ROLES:
        cfg = configs[role]
        table.add_row(role, *(str(getattr(cfg, key)) for key in keys))
    console = Console(width=200)  # every column whole, URLs and keep_alive included
    console.print(table)
    console.print(f"retries {settings.retries} (backoff from {settings.retry_backoff_s} s); circuit breaker opens "
                  f"after {settings.breaker_failures} failures for {settings.breaker_seconds} s")
    console.print("Override per role with SKALD_<ROLE>_<KEY>, e.g. SKALD_NARRATOR_MODEL=qwen2.5:7b")


@app.command()
def doctor(
    db: DbOption = None,
    play: Annotated[bool, typer.Option("--play", help="a model acceptance run: play a fixed 20-turn script against "
                                                      "the configured Ollama on a throwaway save file, and print per "
                                                      "role the calls, fallbacks and why, habits stripped, latency, "
                                                      "tokens and the prompt cache's share, and a verdict")] = False,
) -> None:
    """Check Ollama, each role's model, the database and the packs; print the command that fixes each problem.
    With --play, play a fixed script against the models and say whether each role works (exit 0 when every role
    works, 1 when one falls back often or is unusable, 2 when Ollama does not answer)."""
    from skald.cli.doctor import check_lines, run_checks

    if play:
        _doctor_play()
        return
    checks = run_checks(chosen(db) if db else None)
    for line in check_lines(checks):
        typer.echo(line)
    problems = sum(not c.ok for c in checks)
    typer.echo(f"\n{problems} problem(s)" if problems else "\nall good")
    raise typer.Exit(1 if problems else 0)


def _doctor_play() -> None:
    from skald.cli import doctor_play
    from skald.cli.doctor import check_lines

    settings = settings_or_exit()
    if settings.llm == "off":
        typer.echo("skald doctor --play: SKALD_LLM=off, so no model is called; unset it (or set it to auto) to try "
                   "the models", err=True)
        raise typer.Exit(2)
    try:
        report = doctor_play.play(settings, progress=lambda line: typer.echo(line, err=True))
    except doctor_play.Unreachable as exc:
        for line in check_lines(exc.checks):
            typer.echo(line)
        typer.echo("\nnothing was played: start Ollama (or point SKALD_OLLAMA_BASE_URL at it), then run skald doctor "
                   "--play again")
        raise typer.Exit(2) from None
    except (SkaldError, PackError, ValueError) as exc:  # the default pack does not load, the temporary save fails
        typer.echo(f"skald doctor --play: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(report.render(), nl=False)
    raise typer.Exit(report.exit_code)
