"""A terminal play session: one campaign played through the engine facade (``skald.engine``), as the API plays its
campaigns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skald import views
from skald.core.pack import EraPack
from skald.core.state import GameState
from skald.core.views import SceneView, StatusView
from skald.engine import Engine, Played
from skald.errors import CampaignDamagedError
from skald.llm.client import LLMClient
from skald.packs.cache import PackCache
from skald.packs.loader import PackError, PackIssue, available_packs

if TYPE_CHECKING:  # recording is imported only by `skald play --record` and `skald record`
    from skald.replay.session import Recorder

DICE_COMMAND = "/dice"  # the terminal's own command (its row and /help entry: rules.commands)


@dataclass
class Session:
    engine: Engine
    campaign_id: str
    recorder: Recorder | None = None
    last: Played | None = None  # the last turn played in this session
    notices: list[str] = field(default_factory=list)  # pack reload messages, shown before the next turn
    opening: SceneView | None = None  # where the campaign stands as the session starts
    dice: bool = True  # show the check line (d20, modifiers, DC, outcome) under each turn; --no-dice, /dice
    db: Path | str = ":memory:"  # the save file

    @classmethod
    def open(cls, db: Path | str, llm: LLMClient, *, pack_id: str | None = None, campaign: str | None = None,
             seed: int = 0, background: str | None = None, name: str = "Wren", watch: bool = False,
             retriever: Any = True, branch: str | None = None) -> Session:
        """Resume ``campaign`` (on ``branch``, switched to first, when given) or start a new one on ``pack_id`` (an
        id or a pack folder). ``watch``: reload the pack before each turn when its files change (``skald play
        --watch``).

        :raises CampaignNotFoundError: unknown campaign id. :raises BranchError: no such branch.
        :raises PackError: unknown or invalid pack.
        :raises ValueError: unknown background, or a pack that does not match the resumed campaign.
        """
        notices: list[str] = []
        packs = PackCache(reload=watch, poll_s=0.0, allow_paths=True,
                          on_notice=lambda _pack, lines: notices.extend(lines))
        engine = Engine(db, llm=llm, packs=packs, retriever=retriever, resume=lambda cid: resume_command(cid, db))
        try:
            if campaign:
                damaged = engine.check(campaign)
                if damaged:
                    raise CampaignDamagedError(campaign, damaged)
                if branch and not any(b.name == branch and b.current for b in engine.branches(campaign)):
                    engine.switch(campaign, branch)  # a missing branch: BranchError lists them
                state = engine.load(campaign)
                stored = state.campaign.pack_id
                if pack_id:  # the command line names the pack (an id, or a folder): it must be the campaign's
                    named = packs.get(pack_id)
                    if named.id != stored:
                        raise ValueError(f"campaign {campaign} was played on pack {stored!r}, not {named.id!r} "
                                         f"({pack_id})")
                elif stored not in available_packs():  # never a folder the save file names: only one you name
                    raise PackError(stored, [PackIssue(stored, 1, 1, "-", (
                        f"campaign {campaign} was played on {stored!r}, not one of the pack folders; to load a pack "
                        "from a folder of your own, name the folder: --pack PATH"))])
                packs.get(stored)
                opening = engine.scene(campaign)
            else:
                pack = packs.get(pack_id or _default_pack())
                made = engine.create_campaign(pack_id or pack.id, seed=seed, background=background, name=name,
                                              campaign_id=engine.free_campaign_id(pack.id, seed))
                campaign, opening = made.state.campaign.id, made.scene
        except BaseException:
            engine.close()
            raise
        return cls(engine, campaign, notices=notices, opening=opening, db=db)

    @property
    def state(self) -> GameState:
        """The campaign's committed state (as this session's last turn left it, or read from the save file)."""
        if self.last is not None and self.last.state is not None:
            return self.last.state
        return self.engine.load(self.campaign_id)

    @property
    def pack(self) -> EraPack:
        state = self.state
        return self.engine.packs.for_view(self.campaign_id, state.campaign.pack_id)

    @property
    def resume(self) -> str:
        """The command that resumes this campaign (with ``--db`` when the save file is not the default one)."""
        return self.engine.resume(self.campaign_id)

    def status(self) -> StatusView:
        return views.status(self.state, self.pack)

    def take_notices(self) -> list[str]:
        out, self.notices[:] = list(self.notices), []
        return out

    def local_command(self, line: str) -> str | None:
        """Answer a command of this terminal, which is never sent to the engine nor played as a turn: ``/dice``
        toggles the check line under each turn, ``/dice on`` and ``/dice off`` set it. Returns what to show, or
        None when ``line`` is for the engine."""
        words = line.split()
        if not words or words[0].lower() != DICE_COMMAND:
            return None
        choice = " ".join(words[1:]).lower()
        if choice not in ("", "on", "off"):
            return f"{DICE_COMMAND} turns the dice lines on or off; {DICE_COMMAND} on and {DICE_COMMAND} off set them."
        self.dice = (not self.dice) if not choice else choice == "on"
        return f"Dice lines {'on' if self.dice else 'off'}."

    def play(self, text: str, on_token: Callable[[str], None] | None = None) -> Played:
        """Play one turn; ``on_token`` gets narrator tokens as they stream; recorded when a recorder is set.
        Errors (PlayerInputError, TurnConflictError) leave the session as it was."""

        def step(line: str) -> Played:
            return self.engine.play_turn(self.campaign_id, line, on_token=on_token)

        played = self.recorder.play(step, text) if self.recorder else step(text)
        self.last = played
        return played

    def close(self) -> None:
        self.engine.close()

    def reopened(self) -> Session:
        """This campaign opened again from its save file by a new engine, as when a player quits and comes back
        (``opening`` is the resumed scene). Recorded as a resume step when a recorder is set.

        :raises ValueError: the save is in memory, so there is nothing to come back to."""
        if str(self.db) == ":memory:":
            raise ValueError("an in-memory save cannot be resumed")
        llm, retriever = self.engine.llm, self.engine.retriever
        if self.recorder is not None:
            self.recorder.begin_resume()
        self.close()
        again = Session.open(self.db, llm, campaign=self.campaign_id, retriever=retriever)
        again.recorder, again.dice = self.recorder, self.dice
        if self.recorder is not None and again.opening is not None:
            self.recorder.resume(again.opening)
        return again


def resume_command(campaign_id: str, db: Path | str) -> str:
    """``skald play --campaign ID``, plus ``--db PATH`` unless ``db`` is the save file the settings name."""
    from skald.settings import get_settings
    from skald.store.postgres import shown

    default = get_settings().database
    same = str(db) == str(default) if isinstance(default, str) or isinstance(db, str) else \
        Path(db).resolve() == Path(default).resolve()
    return f"skald play --campaign {campaign_id}" + ("" if same else f" --db {shown(str(db))}")


def _default_pack() -> str:
    from skald.settings import get_settings

    return get_settings().default_pack
