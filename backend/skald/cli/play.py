"""The terminal client: an interactive Rich loop on a TTY, or plain turns from a script or a pipe. It renders the
engine's views and nothing else."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from skald import logs, views
from skald.cli import episode_box
from skald.cli.session import Session
from skald.core.brief import SceneBrief, whisper
from skald.core.views import CheckView, EpisodeView, SceneView, SuggestionView, TurnView
from skald.core.vocab import Intent, Outcome
from skald.engine import Played
from skald.errors import SkaldError
from skald.meta_commands import status_line
from skald.rules import commands

logger = logging.getLogger(__name__)

if TYPE_CHECKING:  # Rich is imported for the interactive client only; scripts and pipes print plain text
    from rich.console import Console

FALLBACK_MARK = "fallback"  # fallback warnings are summarised by the start-up mode line instead
OUTCOME_WORDS = {Outcome.CRITICAL_SUCCESS: "critical success", Outcome.SUCCESS: "success",
                 Outcome.FAILURE: "failure", Outcome.CRITICAL_FAILURE: "critical failure"}


def _suggestion_lines(suggestions: list[SuggestionView]) -> list[str]:
    return [f"  {i}. {s.label}  ({s.tone.value.lower()}, {s.risk.value.lower()})" for i, s in enumerate(suggestions, 1)]


def scene_text(scene: SceneView) -> str:
    """The opening or resumed scene as plain text: the scene, the four suggestions, the status line."""
    return "\n".join([scene.text, "", *_suggestion_lines(scene.suggestions), f"  [{status_line(scene.state)}]"]) + "\n"


def check_parts(check: CheckView | None) -> tuple[str, str] | None:
    """The turn's dice as (the sum against the DC, the outcome): ``("check: d20 rolled 14 +1 wits -1 situation = 14
    vs DC 12 (risky): ", "success")``. Modifiers show only when non-zero (``situation`` is the sum of the
    environment modifiers: light, crowd, stress, allies, the other person's attitude); a natural 20 or 1 says so,
    since it decides the outcome whatever the total. None when no die was rolled."""
    if check is None or check.roll is None:
        return None
    terms = [f"d20 rolled {check.roll}"]
    if check.stat_modifier:
        terms.append(f"{check.stat_modifier:+d} {check.stat or 'ability'}")
    if check.env_modifier:
        terms.append(f"{check.env_modifier:+d} situation")
    if len(terms) > 1:
        total = check.total if check.total is not None else check.roll + check.stat_modifier + check.env_modifier
        terms.append(f"= {total}")
    if check.dc is not None:
        terms.append(f"vs DC {check.dc}")
    outcome = OUTCOME_WORDS.get(check.outcome, check.outcome.value.lower().replace("_", " "))
    if check.outcome in (Outcome.CRITICAL_SUCCESS, Outcome.CRITICAL_FAILURE) and check.roll in (1, 20):
        outcome += f" (natural {check.roll})"
    return f"check: {' '.join(terms)} ({check.risk.value.lower()}): ", outcome


def check_line(check: CheckView | None) -> str | None:
    """``check: d20 rolled 14 +1 wits -1 situation = 14 vs DC 12 (risky): success``, or None with no roll."""
    parts = check_parts(check)
    return None if parts is None else "".join(parts)


def shown_text(view: TurnView) -> str:
    """The turn's text as the terminal shows it: ``/help`` also lists the terminal's own commands (``/dice``: their
    rows in ``rules.commands``), which the engine's /help leaves out, since the engine never answers them."""
    if view.intent != Intent.META or view.input.strip().lstrip("/").split()[:1] != ["help"]:
        return view.text
    own = "\n".join(commands.rows("terminal"))
    head, found, tail = view.text.partition("\nTimeline:")  # after the out-of-game commands
    if not found:
        head, found, tail = view.text.partition("\nOtherwise")
    return f"{head}\n{own}{found}{tail}" if found else f"{view.text}\n{own}"


def _plain_turn(view: TurnView, dice: bool = True) -> str:
    head = f"> {view.input}" if view.intent == Intent.META else f"[turn {view.turn_number}] > {view.input}"
    lines = [head, shown_text(view)]
    line = check_line(view.mechanic) if dice else None
    if line:
        lines.append(f"  {line}")
    lines.append("")
    if view.quit:
        return "\n".join(lines)
    notice = episode_box.plain(view.episode)
    if notice:
        lines += [notice, ""]
    lines += _suggestion_lines(view.suggestions)
    lines.append(f"  [{status_line(view.state)}]")
    lines += [f"  ! {w}" for w in view.warnings if FALLBACK_MARK not in w]
    return "\n".join(lines) + "\n"


def debug_lines(played: Played) -> list[str]:
    info = views.debug(played.state) if played.state is not None else {"llm_calls": [], "context_stats": []}
    out = []
    for call in info["llm_calls"]:
        ttft = f"{call['ttft_ms']:.0f}" if call["ttft_ms"] is not None else "-"
        out.append(f"  llm {call['role']}: {call['model']} {call['outcome']} {call['latency_ms']:.0f} ms "
                   f"(first token {ttft} ms), tokens in/out {call['prompt_tokens']}/{call['completion_tokens']}, "
                   f"attempts {call['attempts']}, retries {call['retries']}")
    for stats in info["context_stats"]:
        out.append(f"  context {stats['role']}: {stats['total_tokens']} of {stats['budget']} tokens "
                   f"(system {stats['system_tokens']}, scene {stats['scene_tokens']}, lore {stats['lore_tokens']}, "
                   f"history {stats['history_tokens']}; dropped {stats['history_dropped']} history, "
                   f"{stats['lore_dropped']} lore; {stats['counter']})")
    shown = info.get("brief")
    if shown:
        out.append(f"  brief {shown['scene_key']}: {shown['source']}, written by {shown['origin']}, "
                   f"{shown['tokens']} tokens")
        out += [f"    {line}" for line in whisper(SceneBrief.model_validate(shown["brief"])).splitlines()[1:-1]]
    scene = info.get("scene")
    if scene:  # the moderator's side of a multi-character scene, which the player never reads
        out.append(f"  scene {scene['scene']}: beat {scene['beat']} of {scene['max_beats']}, stalled "
                   f"{scene['stalled']}, events used {scene['events_used']}")
        out += [f"    note for {who}: {note}" for who, note in scene["notes"].items()]
    return out


def turn_json(played: Played, debug: bool = False) -> dict:
    """The ``--json`` object of a played turn: the turn's view, plus ``debug`` (LLM calls, context) with --debug."""
    extra = {"debug": views.debug(played.state)} if debug and played.state is not None else {}
    return extra | played.body


def _decoded(raw: str | bytes, number: int, as_json: bool) -> str | None:
    """A line of a script or of piped input without its line ending; None (and a message saying which line and
    byte) when the bytes are not UTF-8: that line is skipped, the session goes on."""
    if isinstance(raw, str):
        return raw.rstrip("\r\n") if raw.endswith("\r\n") else raw.rstrip("\n")
    try:
        return _decoded(raw.decode("utf-8"), number, as_json)
    except UnicodeDecodeError as exc:
        message = (f"line {number} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); it was "
                   "not played. Save the script as UTF-8.")
        if as_json:
            print(json.dumps({"line": number, "error": message}), flush=True)
        else:
            print(f"! {message}\n", flush=True)
        return None


def failed_turn(exc: Exception) -> str:
    """What the player reads when a turn failed inside Skald (a bug, not their input): nothing of the turn was saved,
    since only Commit writes, in one transaction; the traceback goes to the log file (``SKALD_LOG_FILE``)."""
    logger.exception("a turn failed inside the engine: %s", exc)
    where = logs.log_file()
    details = f"the details are in {where}" if where else "set SKALD_LOG_FILE to keep the details"
    return (f"That turn failed inside Skald ({type(exc).__name__}): a bug, not something you did. Nothing of it was "
            f"saved; {details}. Type another line, or /quit.")


def play_lines(session: Session, lines: Iterable[str | bytes], as_json: bool, debug: bool = False) -> int:
    """Play each non-blank line (text, or bytes read as UTF-8: a line that is not is reported and skipped) as a
    turn and print it. Returns the number of turns played. Pack reload messages
    (``--watch``) are printed before the turn, and the answers to the terminal's own commands (``/dice``) instead of
    one, to stderr in JSON mode (whose stdout is one turn object a line)."""
    played_count = 0
    for number, raw in enumerate(lines, 1):
        line = _decoded(raw, number, as_json)
        if line is None or not line.strip():
            continue
        answer = session.local_command(line)
        if answer is not None:
            print(answer if as_json else answer + "\n", file=sys.stderr if as_json else sys.stdout, flush=True)
            continue
        try:
            played = session.play(line)
        except Exception as exc:  # a SkaldError is the player's to read; anything else is a bug
            said = str(exc) if isinstance(exc, SkaldError) else failed_turn(exc)
            _notices(session, as_json)
            if as_json:
                print(json.dumps({"input": line, "error": said}), flush=True)
            else:
                print(f"! {said}\n", flush=True)
            continue
        _notices(session, as_json)
        played_count += 1
        if as_json:
            print(json.dumps(turn_json(played, debug)), flush=True)
        else:
            print(_plain_turn(played.view, session.dice) + ("\n".join(debug_lines(played)) + "\n" if debug else ""),
                  flush=True)
        if played.view.quit:
            break
    return played_count


def _notices(session: Session, as_json: bool) -> None:
    for message in session.take_notices():
        print(message, file=sys.stderr if as_json else sys.stdout, flush=True)


def play_streaming(console: Console, session: Session, text: str) -> Played:
    """Play a turn with a spinner until the first narrator token, then the prose as it streams; the live view
    is replaced by the final, cleaned turn when it commits."""
    from rich.console import Group
    from rich.live import Live
    from rich.panel import Panel
    from rich.spinner import Spinner

    streamed: list[str] = []
    spinner = Spinner("dots", text="The narrator is writing...")
    with Live(spinner, console=console, transient=True, refresh_per_second=12) as live:
        def on_token(token: str) -> None:
            streamed.append(token)
            live.update(Group(Panel("".join(streamed), border_style="dim"), spinner))

        return session.play(text, on_token=on_token)


def interactive(session: Session, debug: bool = False) -> None:
    from rich.console import Console
    from rich.panel import Panel
    from rich.text import Text

    console = Console()
    scene = session.opening
    if scene is not None:
        console.print(Panel(Text(scene.text), title="Skald", border_style="cyan"))
        _print_suggestions(console, scene.suggestions)
        console.print(Text(status_line(scene.state), style="dim"))
    console.print(Text(session.engine.llm.mode, style="dim"))
    console.print(Text(f"Type what you do, a number to play a suggestion, or /help. /dice "
                       f"{'hides' if session.dice else 'shows'} the dice rolls.\n", style="dim"))
    while True:
        try:
            line = console.input("[bold cyan]> [/]")
        except (EOFError, KeyboardInterrupt):
            console.print(Text(f"\nCampaign {session.campaign_id} is saved. Resume with: {session.resume}"))
            return
        except UnicodeDecodeError:
            console.print(Text("That line was not UTF-8 text; it was not played. Check the terminal's encoding "
                               "(e.g. LANG=C.UTF-8) and type it again.", style="yellow"))
            continue
        answer = session.local_command(line)
        if answer is not None:  # the terminal's own command: not a turn, never sent to the engine
            console.print(Text(answer, style="dim"))
            continue
        try:
            played = play_streaming(console, session, line)
        except Exception as exc:  # a SkaldError is the player's to read; anything else is a bug
            _show_notices(console, session)
            console.print(Text(str(exc) if isinstance(exc, SkaldError) else failed_turn(exc), style="yellow"))
            continue
        _show_notices(console, session)
        render(console, played.view, dice=session.dice)
        for text in debug_lines(played) if debug else []:
            console.print(text, style="dim", markup=False)
        if played.view.quit:
            return


def _show_notices(console: Console, session: Session) -> None:
    for message in session.take_notices():
        console.print(message, style="dim" if message.startswith("pack reloaded") else "yellow", markup=False)


def render(console: Console, view: TurnView, dice: bool = True) -> None:
    """A played turn: the prose, the check line (``dice``, when a die was rolled), the four suggestions, the status
    line and any warnings. Pack and player text is never read as Rich markup."""
    from rich.panel import Panel
    from rich.text import Text

    if view.intent == Intent.META:
        console.print(Panel(Text(shown_text(view)), border_style="dim"))
        if view.quit:
            return
    else:
        title = Text(f"turn {view.turn_number}: {view.input[:60]}")
        console.print(Panel(Text(view.text), title=title, title_align="left", border_style="white"))
    check = view.mechanic if dice else None
    parts = check_parts(check)
    if check is not None and parts is not None:
        line = Text("  ")
        line.append(parts[0], style="dim")
        line.append(parts[1], style="bold green" if check.outcome.succeeded else "bold red")
        console.print(line)
    _print_episode(console, view.episode)
    _print_suggestions(console, view.suggestions)
    console.print(Text(status_line(view.state), style="dim"))
    for warning in view.warnings:
        if FALLBACK_MARK not in warning:
            console.print(Text(f"! {warning}", style="dim yellow"))


def _print_episode(console: Console, episode: EpisodeView | None) -> None:
    """An episode's beginning (a line and its premise) or its boxed result."""
    from rich.panel import Panel
    from rich.text import Text

    if episode is None:
        return
    if episode.ended and episode.evaluation is not None:
        style = {"won": "green", "lost": "red"}.get(episode.evaluation.outcome, "yellow")
        console.print(Panel(Text(episode_box.result_body(episode)), title=Text(episode_box.result_title(episode)),
                            title_align="left", border_style=style))
    elif episode.started:
        console.print(Text(episode_box.begins(episode), style="bold cyan"))


def _print_suggestions(console: Console, suggestions: list[SuggestionView]) -> None:
    """Pack and player text is never read as Rich markup: '[done]' in a label stays on screen."""
    from rich.text import Text

    for i, s in enumerate(suggestions, 1):
        line = Text("  ")
        line.append(str(i), style="bold")
        line.append(f". {s.label} ")
        line.append(f"({s.tone.value.lower()}, {s.risk.value.lower()})", style="dim")
        console.print(line)


def run(session: Session, script: str | None, as_json: bool, debug: bool = False, watch: bool = False) -> None:
    """Interactive on a TTY without a script; otherwise play the script file or stdin line by line.
    ``watch`` (``skald play --watch``): the session reloads an edited pack before each turn."""
    if watch and session.recorder:
        print("! --watch with --record: turns played after a pack edit will not replay against the recorded pack",
              file=sys.stderr, flush=True)
    if script is None and sys.stdin.isatty() and not as_json:
        interactive(session, debug)
        return
    print(session.engine.llm.mode, file=sys.stderr if as_json else sys.stdout, flush=True)
    if session.opening is not None and not as_json:  # --json prints turns only, one object each
        print(scene_text(session.opening), flush=True)
    if script:
        with open(script, "rb") as handle:  # bytes: a line that is not UTF-8 is reported, not a traceback
            play_lines(session, handle, as_json, debug)
    else:
        play_lines(session, getattr(sys.stdin, "buffer", sys.stdin), as_json, debug)
