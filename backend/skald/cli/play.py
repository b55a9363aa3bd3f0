"""The terminal client: an interactive Rich loop on a TTY, or plain turns from a script or a pipe."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.spinner import Spinner
from rich.text import Text

from skald.cli.session import Session, debug_json, turn_json
from skald.errors import SkaldError
from skald.packs.watch import PackWatcher
from skald.rules.meta_commands import status_line
from skald.state import GameState
from skald.vocab import Intent

FALLBACK_MARK = "fallback"  # fallback warnings are summarised by the start-up mode line instead


def pick(text: str, state: GameState) -> str:
    """A bare number 1-4 plays that suggestion; anything else is played as typed."""
    stripped = text.strip()
    if stripped in {"1", "2", "3", "4"} and len(state.suggested_actions) == 4:
        return state.suggested_actions[int(stripped) - 1].label
    return text


def intro(session: Session) -> str:
    pack, state = session.pack, session.state
    here = pack.locations[state.location]
    return (f"{pack.era.name}: {pack.era.era}\n{state.player.name}, {pack.backgrounds[state.player.background].name}."
            f"\n\n{here.name}. {here.description}")


def _plain_turn(state: GameState, session: Session) -> str:
    lines = [f"[turn {state.campaign.turn_number}] > {state.player_input}", state.final_text, ""]
    if state.quit_requested:
        return "\n".join(lines)
    lines += [f"  {i}. {s.label}  ({s.tone.value.lower()}, {s.risk.value.lower()})"
              for i, s in enumerate(state.suggested_actions, 1)]
    lines.append(f"  [{status_line(state, session.pack)}]")
    lines += [f"  ! {w}" for w in state.warnings if FALLBACK_MARK not in w]
    return "\n".join(lines) + "\n"


def debug_lines(state: GameState) -> list[str]:
    info = debug_json(state)
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
    return out


def play_lines(session: Session, lines: Iterable[str], as_json: bool, debug: bool = False,
               watcher: PackWatcher | None = None) -> int:
    """Play each non-blank line as a turn and print it. Returns the number of turns played.
    With ``watcher`` (``--watch``), an edited pack is reloaded before each turn (messages go to stderr in JSON)."""
    played = 0
    for raw in lines:
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        for message in session.poll_pack(watcher) if watcher else []:
            print(message, file=sys.stderr if as_json else sys.stdout, flush=True)
        try:
            state = session.play(pick(line, session.state))
        except SkaldError as exc:
            if as_json:
                print(json.dumps({"input": line, "error": str(exc)}), flush=True)
            else:
                print(f"! {exc}\n", flush=True)
            session.reload()
            continue
        played += 1
        if as_json:
            print(json.dumps(turn_json(state, session.pack, debug)), flush=True)
        else:
            print(_plain_turn(state, session) + ("\n".join(debug_lines(state)) + "\n" if debug else ""), flush=True)
        if state.quit_requested:
            break
    return played


def play_streaming(console: Console, session: Session, text: str) -> GameState:
    """Play a turn with a spinner until the first narrator token, then the prose as it streams; the live view
    is replaced by the final, cleaned turn when it commits."""
    streamed: list[str] = []
    spinner = Spinner("dots", text="The narrator is writing...")
    with Live(spinner, console=console, transient=True, refresh_per_second=12) as live:
        def on_token(token: str) -> None:
            streamed.append(token)
            live.update(Group(Panel("".join(streamed), border_style="dim"), spinner))

        return session.play(text, on_token=on_token)


def interactive(session: Session, debug: bool = False, watcher: PackWatcher | None = None) -> None:
    console = Console()
    console.print(Panel(intro(session), title="Skald", border_style="cyan"))
    console.print(Text(session.llm.mode, style="dim"))
    console.print("Type what you do, a number to play a suggestion, or /help.\n", style="dim")
    while True:
        try:
            line = console.input("[bold cyan]> [/]")
        except (EOFError, KeyboardInterrupt):
            console.print(f"\nCampaign {session.state.campaign.id} is saved. Resume with: "
                          f"skald play --campaign {session.state.campaign.id}")
            return
        for message in session.poll_pack(watcher) if watcher else []:
            console.print(message, style="dim" if message.startswith("pack reloaded") else "yellow", markup=False)
        try:
            state = play_streaming(console, session, pick(line, session.state))
        except SkaldError as exc:
            console.print(f"[yellow]{exc}[/]")
            session.reload()
            continue
        render(console, state, session)
        for text in debug_lines(state) if debug else []:
            console.print(text, style="dim", markup=False)
        if state.quit_requested:
            return


def render(console: Console, state: GameState, session: Session) -> None:
    if state.intent == Intent.META:
        console.print(Panel(state.final_text, border_style="dim"))
        if state.quit_requested:
            return
    else:
        title = f"turn {state.campaign.turn_number}: {state.player_input[:60]}"
        console.print(Panel(state.final_text, title=title, title_align="left", border_style="white"))
    for i, s in enumerate(state.suggested_actions, 1):
        console.print(f"  [bold]{i}[/]. {s.label} [dim]({s.tone.value.lower()}, {s.risk.value.lower()})[/]")
    console.print(f"[dim]{status_line(state, session.pack)}[/]")
    for warning in state.warnings:
        if FALLBACK_MARK not in warning:
            console.print(f"[dim yellow]! {warning}[/]")


def run(session: Session, script: str | None, as_json: bool, debug: bool = False, watch: bool = False) -> None:
    """Interactive on a TTY without a script; otherwise play the script file or stdin line by line.
    ``watch`` (``skald play --watch``) reloads an edited
    pack before each turn."""
    watcher = session.watcher() if watch else None
    if watcher and session.recorder:
        print("! --watch with --record: turns played after a pack edit will not replay against the recorded pack",
              file=sys.stderr, flush=True)
    if script is None and sys.stdin.isatty() and not as_json:
        interactive(session, debug, watcher)
        return
    print(session.llm.mode, file=sys.stderr if as_json else sys.stdout, flush=True)
    if not as_json:
        print(intro(session) + "\n", flush=True)
    if script:
        with open(script, encoding="utf-8") as handle:
            play_lines(session, handle, as_json, debug, watcher)
    else:
        play_lines(session, sys.stdin, as_json, debug, watcher)
