"""Out-of-game commands (/help, /status, ...): one handler class each, rendering the same views the API returns. No
game time passes. Each command's words and /help entry are its row in ``rules.commands``; a handler is found by the
command's ``name`` (:data:`HANDLERS`).
"""

from __future__ import annotations

from dataclasses import dataclass

from skald import views
from skald.core.pack import EraPack
from skald.core.persistent import EpisodeEvaluation, PersistentState
from skald.core.views import InventoryView, StatusView
from skald.core.vocab import Risk
from skald.rules import commands, dc, dice, episode_commands
from skald.rules.episode_commands import Act
from skald.text import or_list, the_place
from skald.words import TERMINAL, Words


@dataclass(frozen=True)
class MetaContext:
    """What a command may show: the committed state (a command is not a turn), the pack, the command's arguments,
    for /load the campaigns in the save file as (id, turn number), the frontend's way to resume, and its words for
    the moves that are not story (``skald.words``)."""

    state: PersistentState
    pack: EraPack
    args: str = ""
    campaigns: list[tuple[str, int]] | None = None
    resume_command: str | None = None  # how this frontend resumes the campaign, e.g. with --db
    evaluations: list[EpisodeEvaluation] | None = None  # for /journal: the campaign's evaluated episodes
    words: Words = TERMINAL

    @property
    def resume(self) -> str:
        """The sentence that tells how to come back to this campaign, in the frontend's words."""
        command = self.resume_command or f"skald play --campaign {self.state.campaign.id}"
        return self.words.say("resume", command=command, campaign=self.state.campaign.id)


class MetaCommand:
    """Base class: ``name`` is the command's row in ``rules.commands`` (its words and /help entry are there)."""

    name = ""
    quits = False
    reads_journal = False  # the meta node reads the campaign's evaluations for it

    def run(self, ctx: MetaContext) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def act(self, ctx: MetaContext) -> Act | str:
        """What the command does: text to show, or an :class:`Act` whose events Commit stores (the episode commands
        /end and /next; they are not story turns)."""
        return self.run(ctx)


def status_line(view: StatusView) -> str:
    """``The Slag & Lantern | morning, Ashday (day 1), 08:10 | HP 12/12 | 25 credits | stress 0``, the money in the
    pack's currency words."""
    down = "  DOWN" if view.defeated else ""
    return (f"{view.location_name} | {view.time_of_day}, {view.clock} | HP {view.hp}/{view.max_hp} | "
            f"{view.money} | stress {view.stress}{down}")


class Help(MetaCommand):
    """/help: see its row in ``rules.commands``."""

    name = "help"

    def run(self, ctx: MetaContext) -> str:
        return commands.help_text(ctx.words)


class Rules(MetaCommand):
    """/rules (and a rules question typed in play: "how do I level up?", "what happens if I die?"): how the game
    decides things, from this era's own numbers (``rules.dc``, ``rules.resolution``, the pack's defeat rule)."""

    name = "rules"

    def run(self, ctx: MetaContext) -> str:
        state, pack = ctx.state, ctx.pack
        era = pack.era.rules
        defeat = era.defeat
        where = the_place(pack.locations[defeat.recover_location]) if defeat.recover_location in pack.locations \
            else defeat.recover_location
        stats = ", ".join(f"{name} {score} ({dice.ability_modifier(score):+d})"
                          for name, score in state.player.stats.items())
        safe, risky, dangerous = (dc.TIER_DC[r] for r in (Risk.SAFE, Risk.RISKY, Risk.DANGEROUS))
        lost = round(defeat.credits_lost_fraction * 100)
        return "\n".join([
            "How the game decides things:",
            "  You type what you do. What cannot fail just happens; what is risky is a check: a d20 plus your stat's "
            f"modifier against a DC (about {safe} safe, {risky} risky, {dangerous} dangerous, higher at a story's "
            "climax), shown in the dice line under the turn.",
            f"  Your stats: {stats}.",
            f"  HP falls when you are hurt and comes back with rest, food and care. Stress (0 to {era.max_stress}) "
            f"rises with failures and danger; from {era.max_stress * 7 // 10} on, every check is 1 harder.",
            "  There are no levels or experience points: you grow by what you carry, what you learn, who trusts "
            "you, and your standing with the factions (/status).",
            f"  If your HP reaches 0 you are not killed: {defeat.text.strip()} You come to at {where} with "
            f"{round(defeat.hp_fraction * 100)}% of your HP{f', {lost}% of your money gone' if lost else ''}, and "
            f"{defeat.minutes // 60} hours have passed.",
            "  /undo takes turns back: nothing you played is lost unless you delete its branch."])


class Status(MetaCommand):
    """/status: see its row in ``rules.commands``."""

    name = "status"

    def run(self, ctx: MetaContext) -> str:
        state, pack = ctx.state, ctx.pack
        view = views.status(state, pack)
        rep = ", ".join(f"{pack.factions[f].name} {v:+d}" for f, v in sorted(view.reputation.items())
                        if f in pack.factions) or "none"
        fight = f"\nIn a fight with {view.combat.enemy_name} ({view.combat.enemy_hp} HP left)." if view.combat else ""
        bg = pack.backgrounds[state.player.background]
        profile = state.player.profile
        who = f"{state.player.name} ({profile.pronouns})" if profile.pronouns != "they/them" or profile.concept else (
            state.player.name)
        hook = f"{profile.hook}\n" if profile.hook else ""
        return (f"{status_line(view)}\n{who}, {bg.name}: {bg.description}\n{hook}"
                f"arc: {view.arc_stage.value}; turn {state.campaign.turn_number}\nReputation: {rep}{fight}")


class Inventory(MetaCommand):
    """/inventory: see its row in ``rules.commands``."""

    name = "inventory"

    def run(self, ctx: MetaContext) -> str:
        view = views.inventory(ctx.state, ctx.pack)
        rows = [f"  {i.name} x{i.qty}{_tags(i.tags)}: {i.description}" for i in view.items]
        listing = "You carry:\n" + ("\n".join(rows) or "  nothing") + f"\n  {view.money}"
        return f"{_asked(ctx.args, view)}\n{listing}" if ctx.args.strip() else listing


_MONEY_WORDS = frozenset({"money", "coin", "coins", "cash", "credit", "credits", "grey", "greys", "scrip", "purse"})


def _asked(asked: str, view: InventoryView) -> str:
    """The answer to "do I have X?" before the list: which carried things are X (by name or tag), or that none is."""
    from skald.rules.references import words

    wanted = words(asked)
    if wanted & _MONEY_WORDS:
        return f"You have {view.money}."
    held = [i.name for i in view.items if wanted & words(f"{i.name} {' '.join(i.tags)}")]
    return f"Yes, you carry {or_list(held, 'and')}." if held else f"You carry no {asked.strip()}."


def _tags(tags: list[str]) -> str:
    return f" [{', '.join(tags)}]" if tags else ""


class Party(MetaCommand):
    """/party: see its row in ``rules.commands``."""

    name = "party"

    def run(self, ctx: MetaContext) -> str:
        rows = [f"  {c.name} ({c.role}): affinity {c.affinity:+d}, loyalty {c.loyalty}"
                for c in views.party(ctx.state, ctx.pack) if c.in_party]
        return "Your party:\n" + ("\n".join(rows) or "  nobody yet; ask a companion to join you")


class Quests(MetaCommand):
    """/quests: see its row in ``rules.commands``."""

    name = "quests"

    def run(self, ctx: MetaContext) -> str:
        rows = [f"  [done] {q.title}" if q.objective is None else
                f"  {q.title}: {q.objective}" + (f"\n    hint: {q.hint}" if q.hint else "")
                for q in views.quests(ctx.state, ctx.pack)]
        return "Quests:\n" + ("\n".join(rows) or "  none yet; talk to people")


class Rumors(MetaCommand):
    """/rumors: see its row in ``rules.commands``."""

    name = "rumors"

    def run(self, ctx: MetaContext) -> str:
        rows = [f"  - {r.text}" for r in views.rumors(ctx.state, ctx.pack).known]
        return "Rumors you have heard:\n" + ("\n".join(rows) or "  none yet; talk to people")


class News(MetaCommand):
    """/news: see its row in ``rules.commands``."""

    name = "news"

    def run(self, ctx: MetaContext) -> str:
        return "News:\n" + ("\n".join(f"  - {n}" for n in views.news(ctx.state).news) or "  quiet so far")


class EpisodeNow(MetaCommand):
    """/episode: see its row in ``rules.commands``."""

    name = "episode"

    def run(self, ctx: MetaContext) -> str:
        return episode_commands.episode_status(ctx.state, ctx.pack, ctx.words)


class Journal(MetaCommand):
    """/journal: see its row in ``rules.commands``."""

    name = "journal"
    reads_journal = True

    def run(self, ctx: MetaContext) -> str:
        return episode_commands.journal(ctx.evaluations or [])


class Acting(MetaCommand):
    """A command that may change the campaign: ``act`` says what it does, ``run`` only what it says."""

    def run(self, ctx: MetaContext) -> str:
        done = self.act(ctx)
        return done.text if isinstance(done, Act) else done


class End(Acting):
    """/end: see its row in ``rules.commands``."""

    name = "end"

    def act(self, ctx: MetaContext) -> Act | str:
        return episode_commands.end(ctx.state, ctx.pack, ctx.args)


class Next(Acting):
    """/next: see its row in ``rules.commands``."""

    name = "next"

    def act(self, ctx: MetaContext) -> Act | str:
        return episode_commands.start(ctx.state, ctx.pack, ctx.args)


class Save(MetaCommand):
    """/save: see its row in ``rules.commands``."""

    name = "save"

    def run(self, ctx: MetaContext) -> str:
        return (f"Saved: every turn is committed as you play. Campaign {ctx.state.campaign.id}, turn "
                f"{ctx.state.campaign.turn_number}. {ctx.resume}")


class Load(MetaCommand):
    """/load: see its row in ``rules.commands``."""

    name = "load"

    def run(self, ctx: MetaContext) -> str:
        rows = [f"  {cid}  (turn {n})" for cid, n in (ctx.campaigns or [])]
        how = ctx.words.say("resume", command="skald play --campaign ID", campaign="ID")
        return "Campaigns in this save file:\n" + ("\n".join(rows) or "  none") + f"\n{how}"


class Quit(MetaCommand):
    """/quit: see its row in ``rules.commands``."""

    name = "quit"
    quits = True

    def run(self, ctx: MetaContext) -> str:
        return f"Campaign {ctx.state.campaign.id} is saved at turn {ctx.state.campaign.turn_number}. {ctx.resume}"


class Map(MetaCommand):
    """/map: see its row in ``rules.commands``."""

    name = "map"

    def run(self, ctx: MetaContext) -> str:
        """The place's links (minutes, risk), then every other place by the quickest way there (``rules.scene.route``:
        its minutes, its worst risk, the first place on the way), then the places no way reaches from here."""
        from skald.rules.scene import RISK_ORDER, route
        from skald.text import place_at_start, the_place

        pack, here = ctx.pack, ctx.state.location
        names = {p.id: place_at_start(p) for p in pack.locations.values()}
        ways = [f"  {names[link.to]}: {link.minutes} min{_risk(link.risk)}" for link in pack.locations[here].links]
        further, cut_off = [], []
        for place in pack.locations:
            path = route(pack, here, place) if place != here else []
            if path is None:
                cut_off.append(names[place])
            elif len(path) > 1:
                minutes = sum(link.minutes for link in path)
                risk = max((link.risk for link in path), key=RISK_ORDER.__getitem__)
                further.append((minutes, f"  {names[place]}: {minutes} min{_risk(risk)}, by way of "
                                f"{the_place(pack.locations[path[0].to])}"))
        text = f"You are at {the_place(pack.locations[here])}. Ways from here:\n" + ("\n".join(ways) or "  none")
        if further:
            text += "\nFurther on, the quickest way:\n" + "\n".join(line for _, line in sorted(further))
        if cut_off:
            text += f"\nNo way from here to: {', '.join(cut_off)}"
        return text


def _risk(risk: Risk) -> str:
    """`` (risky)`` / `` (dangerous)`` after a way's minutes; nothing for a safe one."""
    return "" if risk == Risk.SAFE else f" ({risk.value.lower()})"


HANDLERS: dict[str, MetaCommand] = {cmd.name: cmd for cmd in (
    Help(), Rules(), Status(), Inventory(), Party(), Quests(), Rumors(), News(), Map(), EpisodeNow(), Journal(), End(),
    Next(), Save(), Load(), Quit())}


def handler(word: str) -> MetaCommand | None:
    """The handler of the game command ``word`` names (a name or an alias: ``rules.commands``), or None."""
    found = commands.find(word)
    return HANDLERS.get(found.name) if found is not None else None


def respond(command: str, ctx: MetaContext) -> tuple[str | Act, bool]:
    """(text to show, or the :class:`Act` of a command that changes the campaign; whether the player asked to quit)
    for ``/command`` (a name or an alias)."""
    found = handler(command)
    if found is None:
        if (other := commands.find(command)) is not None and other.group == "terminal":
            return f"/{other.name} belongs to the terminal (skald play); it does nothing here.", False
        guesses = commands.meant(command)
        maybe = f" Did you mean {or_list(guesses)}?" if guesses else ""
        return f"Unknown command /{command}.{maybe} Type /help for the list.", False
    return found.act(ctx), found.quits
