"""Text for out-of-game commands (/help, /status, ...). Pure functions of the state; no time passes."""

from __future__ import annotations

from skald.packs.models import EraPack
from skald.rules import clock
from skald.state import GameState

HELP = {
    "help": "this list",
    "status": "where and when you are, HP, credits, stress, reputation",
    "inventory": "what you carry",
    "party": "your companions and how they feel about you",
    "quests": "jobs you have taken on",
    "rumors": "what you have heard",
    "news": "what has happened in the world lately",
    "save": "every turn is saved as you play; shows how to resume",
    "load": "the campaigns in this save file and how to resume one",
    "quit": "leave the game (progress is already saved)",
}


def status_line(state: GameState, pack: EraPack) -> str:
    p = state.player
    where = pack.locations[state.location].name
    now = state.world.time_minutes
    when = f"{clock.time_of_day(now)}, {clock.clock_text(now, pack.era.calendar.day_names)}"
    down = "  DOWN" if p.defeated else ""
    return f"{where} | {when} | HP {p.hp}/{p.max_hp} | {p.credits} credits | stress {p.stress}{down}"


def respond(command: str, args: str, state: GameState, pack: EraPack,
            campaigns: list[tuple[str, int]] | None = None) -> tuple[str, bool]:
    """(text to show, whether the player asked to quit) for a meta command."""
    p = state.player
    turn = state.turn  # this command is itself a committed turn
    if command in ("quit", "exit"):
        return (f"Campaign {state.campaign.id} is saved at turn {turn}. "
                f"Resume with: skald play --campaign {state.campaign.id}"), True
    if command == "help":
        return "Commands:\n" + "\n".join(f"  /{name:<10} {what}" for name, what in HELP.items()) + (
            "\nOtherwise type what you do, or a number 1-4 to play a suggestion."), False
    if command == "status":
        rep = ", ".join(f"{pack.factions[f].name} {v:+d}" for f, v in sorted(state.reputation.items())) or "none"
        combat = (f"\nIn a fight with {state.combat.enemy_name} ({state.combat.enemy_hp} HP left)."
                  if state.combat else "")
        bg = pack.backgrounds[p.background]
        return (f"{status_line(state, pack)}\n{p.name}, {bg.name}: {bg.description}\n"
                f"arc: {state.arc_stage.value}; turn {turn}\nReputation: {rep}{combat}"), False
    if command == "inventory":
        items = []
        for item_id, qty in sorted(p.inventory.items()):
            item = pack.items[item_id]
            tags = f" [{', '.join(item.tags)}]" if item.tags else ""
            items.append(f"  {item.name} x{qty}{tags}: {item.description}")
        return "You carry:\n" + ("\n".join(items) or "  nothing") + f"\n  {p.credits} credits", False
    if command == "party":
        rows = [f"  {pack.companions[c.id].name} ({pack.companions[c.id].role}): affinity {c.affinity:+d}, "
                f"loyalty {c.loyalty}" for c in state.companions.values() if c.in_party]
        return "Your party:\n" + ("\n".join(rows) or "  nobody yet; ask a companion to join you"), False
    if command == "quests":
        rows = []
        for qid, q in state.quests.items():
            quest = pack.quests[qid]
            if q.status == "completed":
                rows.append(f"  [done] {quest.title}")
            else:
                rows.append(f"  {quest.title}: {quest.stages[q.stage].objective}")
        return "Quests:\n" + ("\n".join(rows) or "  none yet; talk to people"), False
    if command == "rumors":
        rows = [f"  - {pack.rumors[r].text}" for r in state.world.known_rumors]
        return "Rumors you have heard:\n" + ("\n".join(rows) or "  none yet; talk to people"), False
    if command == "news":
        return "News:\n" + ("\n".join(f"  - {n}" for n in state.world.news) or "  quiet so far"), False
    if command == "save":
        return (f"Saved: every turn is committed as you play. Campaign {state.campaign.id}, turn "
                f"{turn}. Resume with: skald play --campaign {state.campaign.id}"), False
    if command == "load":
        rows = [f"  {cid}  (turn {n})" for cid, n in (campaigns or [])]
        return ("Campaigns in this save file:\n" + ("\n".join(rows) or "  none") +
                "\nResume one with: skald play --campaign ID"), False
    return f"Unknown command /{command}. Type /help for the list.", False
