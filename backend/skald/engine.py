"""The facade every frontend plays through: the terminal, the HTTP API, the recorder and (soon) the browser page.

None of them opens the store or runs the graph on its own. An :class:`Engine` owns one save file's connections,
the era packs, the LLM client and the lore index, and offers:

- campaigns: :meth:`Engine.create_campaign` (with an API token in the same transaction), :meth:`Engine.load`,
  :meth:`Engine.campaigns`, :meth:`Engine.delete_campaign`, :meth:`Engine.check_token`;
- turns: :meth:`Engine.play_turn`, or :meth:`Engine.claim` then :meth:`Engine.play` / :meth:`Engine.stream`;
  every played turn comes back as a typed :class:`~skald.TurnView`;
- reads: :meth:`Engine.turns` (the transcript, paged by turn number) and the views of a campaign (status, party,
  quests, rumors, news, inventory), the same ones ``/status`` and friends render.

Turns of one campaign are serialised in this process by a busy set checked without waiting: a second turn while one
is playing is refused at once (:class:`~skald.errors.TurnBusy`), never queued; turns on two branches of one campaign
may play at once. Across processes, Commit's compare-and-swap on the branch's head refuses the loser
(:class:`~skald.errors.TurnConflictError`). A turn played under
an idempotency key stores the key and its response in the turn's own transaction, so a retry (in this process or
another) gets the stored response and never a second turn.
"""

from __future__ import annotations

import dataclasses
import secrets
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from skald import views, wallclock
from skald.core.events import limits_of
from skald.core.pack import EraPack
from skald.core.records import TimelineCommand
from skald.core.state import GameState
from skald.core.transcripts import SceneTranscript
from skald.core.views import (
    BranchView,
    CampaignSummary,
    CampaignView,
    CompanionView,
    EpisodesView,
    InventoryView,
    MapView,
    NewsView,
    QuestView,
    RumorsView,
    SceneView,
    SharedEpisode,
    TurnPage,
    TurnView,
)
from skald.errors import BranchError, KeyReused, TurnBusy, TurnConflictError, TurnStale, VariantTaken
from skald.graph import default_llm, resolve_retriever, run_turn, stream_turn
from skald.llm import briefs, offline
from skald.llm.client import LLMClient
from skald.packs.cache import PackCache
from skald.packs.loader import PackError, available_packs
from skald.rules import pack_fit, setup
from skald.rules import timeline as timeline_rules
from skald.rules.start import new_state
from skald.store import db, idempotency, reads, setup_sessions, timeline, tokens, writer
from skald.store import episodes as stored_episodes
from skald.store import transcripts as stored_transcripts
from skald.store.db import open_pool
from skald.store.idempotency import KeyedTurn, KeyTaken
from skald.store.timeline import Position
from skald.turn_cancel import TurnCancel
from skald.wallclock import WallClock
from skald.words import TERMINAL, Words

SEED_MAX = 2**31 - 1
VARIANT_TRIES = 5  # a turn that loses its dice variant to a turn on another branch is played again this often
# Where a turn can be held between its steps, in order: after the idempotency key was looked up, after the
# campaign was loaded, after the turn's transaction committed or was refused (before the reply is built). The
# interleaving tests (tests/test_interleavings.py) run two processes through every ordering of the steps.
PAUSE_POINTS = ("key_checked", "loaded", "committed")


def _no_pause(point: str) -> None:
    return None


def start_campaign(conn: sqlite3.Connection, pack: EraPack, *, seed: int, background: str | None = None,
                   name: str = "Wren", campaign_id: str | None = None, token_hash: str | None = None,
                   sheet: setup.CharacterSheet | None = None, summary: str = "",
                   clock: WallClock = wallclock.system) -> GameState:
    """Create and store a new campaign at turn 0 (with its API token's hash, in the same transaction) on an open
    connection; return its state. With ``sheet`` (guided creation's artifact) the character is the sheet's
    (``rules.setup.apply``; ``background`` and ``name`` are ignored) and ``summary`` becomes the character's first
    episodic memory, in the same transaction; ``clock`` stamps it. :raises ValueError: unknown background or
    location. :raises sqlite3.IntegrityError: the id is taken."""
    if sheet is not None:
        state = setup.apply(pack, sheet, seed=seed, campaign_id=campaign_id)
        writer.create_campaign(conn, state, pack.content_hash, token_hash, memory=setup.memory(summary, sheet),
                               clock=clock)
        return state
    state = new_state(pack, seed=seed, background=background, name=name, campaign_id=campaign_id)
    writer.create_campaign(conn, state, pack.content_hash, token_hash, clock=clock)
    return state


@dataclass
class Created:
    state: GameState
    view: CampaignView
    scene: SceneView  # the opening scene, with the four suggestions for the first turn
    token: str | None = None  # the campaign's API token, shown once (only its hash is stored)


@dataclass
class Played:
    """A played turn. ``body`` is what the player gets (the view as JSON); for an idempotent retry it is the stored
    response and ``state`` is None (``view`` too, for a response stored by an engine before typed views)."""

    body: dict[str, Any]
    view: TurnView | None = None
    state: GameState | None = None
    replayed: bool = False

    @classmethod
    def stored(cls, response: str) -> Played:
        try:
            view = TurnView.model_validate_json(response)
        except ValueError:  # a response stored before typed views: returned as it was stored
            import json

            return cls(body=json.loads(response), replayed=True)
        return cls(body=view.model_dump(mode="json"), view=view, replayed=True)


@dataclass(eq=False)
class Slot:
    """The right to play one turn of a campaign: holds the campaign in the engine's busy set until released."""

    campaign_id: str
    state: GameState
    pack: EraPack
    text: str
    keyed: KeyedTurn | None
    _release: Callable[[str], None]
    position: Position | None = None  # where in the turn tree (None: after the current branch's head)
    words: Words = TERMINAL  # how the frontend that asked names the moves that are not story (skald.words)
    cancel: TurnCancel = field(default_factory=TurnCancel)  # another request may stop the turn before Commit
    busy: str = ""  # what the slot holds in the engine's busy set (the campaign's branch)
    command: TimelineCommand | None = None  # a timeline command sent typed (Engine.timeline), else None
    handed_off: bool = False  # a worker owns the slot now and releases it when the turn is over
    _released: bool = field(default=False, repr=False)
    _guard: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def start(self) -> GameState:
        """The state the turn is played from: the head's, with the input (and a typed command) set."""
        return self.state.model_copy(update={"player_input": self.text, "command": self.command})

    def release(self) -> None:
        """Give the campaign back (once; later calls do nothing)."""
        with self._guard:
            if self._released:
                return
            self._released = True
        self._release(self.busy or self.campaign_id)


@dataclass
class Claim:
    """Either a stored response to replay (an idempotent retry) or a slot to play the turn with."""

    replay: Played | None = None
    slot: Slot | None = None


class Engine:
    """One store (a save file or a PostgreSQL database) and what it takes to play it.

    :param db: the save file (``":memory:"`` for a private in-memory one), ``sqlite:///PATH``, or a
        ``postgresql://`` URL (``store.db.target``).
    :param llm: the LLM client for every campaign (default: the settings').
    :param packs: the pack cache (default: shipped packs, no reloading).
    :param retriever: the lore index (True: the settings'; None: no retrieval).
    :param graph: a compiled turn graph (tests inject faults this way).
    :param resume: how this frontend resumes a campaign, given its id (what /quit and /save tell the player).
    :param words: how this frontend names the moves that are not story (``skald.words``; a turn may name others).
    :param readonly: open the save file read-only (listing and reading campaigns; playing raises ``SaveFileError``).
    :param synchronous: SQLite's ``synchronous`` mode, ``NORMAL`` or ``FULL`` (default: ``SKALD_DB_SYNCHRONOUS``).
    :param clock: the wall clock that stamps what is stored (``created_at``, ``updated_at``) and ages idempotency keys
        and guided creation's sessions (``wallclock``; default: the machine's; tests fix it).
    :raises SaveFileError: the save file cannot be opened, is damaged or is from a newer Skald.
    """

    def __init__(self, db: str | Path, *, llm: LLMClient | None = None, packs: PackCache | None = None,
                 retriever: Any = True, graph: CompiledStateGraph | None = None,
                 resume: Callable[[str], str] | None = None, readonly: bool = False, synchronous: str | None = None,
                 clock: WallClock = wallclock.system, words: Words = TERMINAL):
        if synchronous is None:
            from skald.settings import get_settings

            synchronous = get_settings().db_synchronous
        self.pool = open_pool(db, readonly=readonly, synchronous=synchronous)
        self.packs = packs or PackCache()
        self._llm = llm
        self.retriever = retriever
        self.graph = graph
        self.resume = resume
        self.words = words
        self.clock = clock
        self._busy: dict[str, Slot | None] = {}  # held key -> the slot playing there (None: not a turn, a delete)
        self._busy_guard = threading.Lock()
        self.pause: Callable[[str], None] = _no_pause  # tests stop a turn between its steps (see PAUSE_POINTS)

    @property
    def llm(self) -> LLMClient:
        """The LLM client (the settings' one is built, and Ollama probed, only when a turn first needs it)."""
        if self._llm is None:
            self._llm = default_llm()
        return self._llm

    def close(self) -> None:
        self.pool.close()

    # ------------------------------------------------------------------------------------------ campaigns

    def create_campaign(self, pack_ref: str | Path, *, seed: int | None = None, background: str | None = None,
                        name: str = "Wren", campaign_id: str | None = None, with_token: bool = False,
                        sheet: setup.CharacterSheet | None = None, summary: str = "") -> Created:
        """Start a campaign (and, ``with_token``, its API token, in the same transaction); with ``sheet`` and
        ``summary``, the character guided creation settled (:func:`start_campaign`).

        :raises UnknownPackError: not a pack this engine plays. :raises PackError: the pack does not load.
        :raises ValueError: unknown background.
        """
        pack = self.packs.get(pack_ref)
        seed = secrets.randbelow(SEED_MAX + 1) if seed is None else seed
        token = secrets.token_urlsafe(32) if with_token else None
        with self.pool.connection() as conn:
            state = start_campaign(conn, pack, seed=seed, background=background, name=name,
                                   campaign_id=campaign_id or uuid.uuid4().hex[:12],
                                   token_hash=tokens.token_hash(token) if token else None, sheet=sheet,
                                   summary=summary, clock=self.clock)
            self._brief(conn, state, pack)
        return Created(state, views.campaign(state, pack), self._scene(state, pack, resumed=False), token)

    def free_campaign_id(self, pack_id: str, seed: int) -> str:
        """``<pack>-<seed>-<n>`` for the first free n: deterministic for a given save file, so replaying a session
        into a new file gives the same ids."""
        with self.pool.connection() as conn:
            taken = {cid for cid, _ in reads.list_campaigns(conn)}
        n = 1
        while f"{pack_id}-{seed}-{n}" in taken:
            n += 1
        return f"{pack_id}-{seed}-{n}"

    def load(self, campaign_id: str) -> GameState:
        """The campaign's committed state. :raises CampaignNotFoundError: no such campaign."""
        with self.pool.connection() as conn:
            return reads.load_state(conn, campaign_id)

    def check(self, campaign_id: str) -> list[str]:
        """What is damaged in the campaign, each named (``store.fsck.campaign_problems``: its state rows, branch
        heads and lines, and its current branch folded from the newest snapshot with its pack's numbers when the
        pack loads); empty when nothing is. Bounded by the snapshot interval, not the campaign's length.

        :raises CampaignNotFoundError: no such campaign.
        """
        from skald.store import fsck

        with self.pool.connection() as conn, reads.snapshot(conn):
            pack_id = reads.pack_id(conn, campaign_id)
            try:  # only a pack of the pack folders: never a path a save file names
                limits = limits_of(self.packs.get(pack_id)) if pack_id in available_packs() else None
            except PackError:
                limits = None  # it does not load: the opener says so; the rest is still checked
            return fsck.campaign_problems(conn, campaign_id, limits, events=False)

    def store_version(self) -> int:
        """The store's schema version, read through a connection that also touched the campaigns table: a cheap proof
        the database answers (``GET /health``). :raises sqlite3.Error | SaveFileError: it does not."""
        with self.pool.connection() as conn:
            return db.check(conn)

    # ------------------------------------------------------------------------------------------ guided creation

    def keep_setup(self, session: setup_sessions.Stored, now: datetime, *, idle_s: float, limit: int) -> None:
        """Store a new guided-creation session (``api.setup``), dropping those idle past ``idle_s`` seconds and the
        oldest past ``limit``."""
        with self.pool.connection() as conn:
            setup_sessions.put(conn, session, now, idle_s=idle_s, limit=limit)

    def take_setup(self, setup_id: str, now: datetime, *, idle_s: float) -> setup_sessions.Stored | None:
        """Check a guided-creation session out for one message (None: no such session, or it expired).
        :raises setup_sessions.Busy: it is answering another message."""
        with self.pool.connection() as conn:
            return setup_sessions.take(conn, setup_id, now, idle_s=idle_s)

    def give_setup(self, session: setup_sessions.Stored, now: datetime) -> None:
        """Store a session taken with :meth:`take_setup` back, as it now stands."""
        with self.pool.connection() as conn:
            setup_sessions.give(conn, session, now)

    def drop_setup(self, setup_id: str) -> None:
        """Close a guided-creation session (its campaign was made)."""
        with self.pool.connection() as conn:
            setup_sessions.drop(conn, setup_id)

    def campaigns(self) -> list[CampaignSummary]:
        """Every campaign in the save file, most recently played first."""
        with self.pool.connection() as conn:
            return reads.campaign_rows(conn)

    def delete_campaign(self, campaign_id: str) -> bool:
        """Delete the campaign and every row about it. :raises TurnBusy: a turn of it is being played."""
        self._take(campaign_id, campaign_id)
        try:
            with self.pool.connection() as conn:
                existed = writer.delete_campaign(conn, campaign_id)
            self.packs.forget(campaign_id)
            return existed
        finally:
            self._give_back(campaign_id)

    def check_token(self, campaign_id: str, token: str | None) -> bool:
        """Whether ``token`` is the campaign's API token (constant-time compare of hashes)."""
        with self.pool.connection() as conn:
            return tokens.matches(conn, campaign_id, token)

    # ------------------------------------------------------------------------------------------ turns

    def claim(self, campaign_id: str, text: str, *, key: str | None = None, expected: int | None = None,
              branch: str | None = None, words: Words | None = None, command: TimelineCommand | None = None) -> Claim:
        """Take a branch of the campaign (default: its current one) for one turn: a stored response when ``key`` was
        already played, else a :class:`Slot` at the branch's head. ``/retry`` is claimed here: the slot then plays
        the head's input again from the head's parent, with the next dice variant (``rules.timeline``). ``words``:
        how the frontend asking names the moves that are not story (default: the engine's, :attr:`words`).
        ``command``: a timeline command sent typed (:meth:`timeline`); ``text`` is then how it is spelled
        (``rules.timeline.spelled``), which keys it.

        :raises KeyReused: ``key`` was played with another input. :raises TurnBusy: a turn is in progress here.
        :raises TurnStale: ``expected`` is not the branch's head turn number. :raises CampaignNotFoundError.
        :raises BranchError: no such branch, or /retry at the campaign's start.
        """
        keyed = KeyedTurn(key, idempotency.input_hash(text)) if key is not None else None
        if keyed is not None:
            replay = self._replay(campaign_id, keyed)
            if replay is not None:
                return Claim(replay=replay)
        self.pause("key_checked")
        with self.pool.connection() as conn:
            branch = branch or timeline.current_branch(conn, campaign_id)
        busy = f"{campaign_id}/{branch}"
        self._take(busy, campaign_id)
        try:
            with self.pool.connection() as conn:
                retry = command.kind == "retry" if command is not None else timeline_rules.is_retry(text)
                state, position, text = self._at_head(conn, campaign_id, branch, text, retry)
            self.pause("loaded")
            if expected is not None and expected != state.campaign.turn_number + int(position.retried):
                raise TurnStale(expected, state.campaign.turn_number + int(position.retried))
            pack = self.packs.for_turn(campaign_id, state.campaign.pack_id, lambda p: pack_fit.problems(p, state))
        except BaseException:
            self._give_back(busy)
            raise
        slot = Slot(campaign_id, state, pack, text, keyed, self._give_back, position=position,
                    words=words or self.words, busy=busy, command=None if retry else command)
        with self._busy_guard:
            self._busy[busy] = slot
        return Claim(slot=slot)

    def _at_head(self, conn: Any, campaign_id: str, branch: str, text: str,
                 retry: bool) -> tuple[GameState, Position, str]:
        """(the state a turn starts from, its position, the input it plays), read in one read transaction so the
        head and the state agree. A retry starts from the head's parent with the head's input."""
        def on_line(number: int) -> GameState:  # a branch the projections do not show, or a turn before its head
            limits = limits_of(self.packs.for_view(campaign_id, reads.pack_id(conn, campaign_id)))
            return GameState.model_validate(dict(reads.state_at(conn, campaign_id, number, limits, branch)))

        with reads.snapshot(conn):
            at = timeline.head(conn, campaign_id, branch)
            if retry:
                played = timeline.turn(conn, campaign_id, at.turn_id)
                if played is None:
                    raise BranchError(campaign_id, branch, "nothing_to_retry", f"nothing to retry: branch {branch} "
                                      "stands at the campaign's start")
                return on_line(at.turn_number - 1), Position(branch, played.parent, at.turn_id, timeline.next_variant(
                    conn, campaign_id, played.parent)), played.input
            current = branch == timeline.current_branch(conn, campaign_id)
            state = reads.load_state(conn, campaign_id) if current else on_line(at.turn_number)
            return state, timeline.position_at(conn, campaign_id, at), text

    def play(self, slot: Slot, on_token: Callable[[str], None] | None = None) -> Played:
        """Play a claimed turn and release the slot.

        :raises TurnConflictError: another process played this campaign first (nothing was written; a retry of the
            same key that another process played returns its response instead).
        :raises PlayerInputError: the input cannot be played (nothing was written).
        """
        try:
            with self.pool.connection() as conn:
                try:
                    for attempt in range(VARIANT_TRIES):
                        try:
                            final = run_turn(conn, slot.start(),
                                             pack=slot.pack, llm=self.llm, graph=self.graph,
                                             retriever=self.retriever, on_token=on_token, keyed=slot.keyed,
                                             resume=self._resume(slot.campaign_id), position=slot.position,
                                             clock=self.clock, words=slot.words, cancel=slot.cancel)
                            break
                        except VariantTaken:
                            if attempt == VARIANT_TRIES - 1:
                                raise
                            self._next_variant(conn, slot)
                except (TurnConflictError, KeyTaken) as exc:
                    self.pause("committed")
                    return self._lost_race(slot, exc)
            self.pause("committed")
            return Played(body=final.view.model_dump(mode="json"), view=final.view, state=final)
        finally:
            slot.release()

    def stream(self, slot: Slot) -> Iterator[tuple[str, Any]]:
        """Play a claimed turn like :meth:`play`, yielding ``("progress", node)`` as each graph node finishes,
        ``("token", text)`` for each narrator token, and last ``("turn", Played)``. Releases the slot as the turn is
        committed, before the ``turn`` event (so a client told the turn is over may play the next at once), or when
        the generator is closed. Raises as :meth:`play` does."""
        try:
            with self.pool.connection() as conn:
                try:
                    for attempt in range(VARIANT_TRIES):
                        try:
                            for kind, payload in stream_turn(
                                    conn, slot.start(), pack=slot.pack,
                                    llm=self.llm, graph=self.graph, retriever=self.retriever, keyed=slot.keyed,
                                    resume=self._resume(slot.campaign_id), position=slot.position, clock=self.clock,
                                    words=slot.words, cancel=slot.cancel):
                                if kind == "turn":  # committed: the campaign is free before anyone hears so
                                    played = Played(body=payload.view.model_dump(mode="json"), view=payload.view,
                                                    state=payload)
                                    slot.release()
                                    yield "turn", played
                                else:
                                    yield kind, payload
                            break
                        except VariantTaken:
                            if attempt == VARIANT_TRIES - 1:
                                raise
                            self._next_variant(conn, slot)  # played again with other dice: what was shown goes
                            yield "replace", {"text": "", "reason": "another branch played from this turn at the "
                                                                    "same time and took its dice; played again"}
                except (TurnConflictError, KeyTaken) as exc:
                    lost = self._lost_race(slot, exc)
                    slot.release()
                    yield "turn", lost
        finally:
            slot.release()

    def play_turn(self, campaign_id: str, text: str, *, key: str | None = None, expected: int | None = None,
                  on_token: Callable[[str], None] | None = None, branch: str | None = None,
                  words: Words | None = None) -> Played:
        """Claim and play one turn on ``branch`` (default: the current one; see :meth:`claim` and :meth:`play` for
        what it raises)."""
        claim = self.claim(campaign_id, text, key=key, expected=expected, branch=branch, words=words)
        if claim.replay is not None:
            return claim.replay
        return self.play(claim.slot, on_token=on_token)

    def timeline(self, campaign_id: str, command: TimelineCommand, *, branch: str | None = None,
                 key: str | None = None, expected: int | None = None, words: Words | None = None) -> Played:
        """Play a timeline command, typed (``rules.timeline``), on ``branch`` (default: the current one), as a turn is
        played (same slot, key and expected-turn checks; Commit moves the head). A retry plays the head's input again
        with the next dice variant.

        :raises BranchError: the command could do nothing (its ``reason`` says why; nothing was changed).
        :raises TurnConflictError: the head moved meanwhile. Raises as :meth:`play_turn` does.
        """
        claim = self.claim(campaign_id, timeline_rules.spelled(command), key=key, expected=expected, branch=branch,
                           words=words, command=command)
        played = claim.replay if claim.replay is not None else self.play(claim.slot)
        said = played.view.timeline if played.view is not None else None
        if said is not None and not said.done:
            raise BranchError(campaign_id, branch or "", said.reason or "refused", played.view.text)
        return played

    def undo(self, campaign_id: str, turns: int = 1, **how: Any) -> Played:
        """Move the branch's head back ``turns`` turns (at most to the start; nothing is deleted). ``how``: ``branch``,
        ``key``, ``expected``, ``words``, as :meth:`timeline` takes them, and it raises as :meth:`timeline` does
        (:class:`BranchError` reason ``nothing_to_undo`` at the start, ``bad_args`` for fewer than 1 turn)."""
        return self.timeline(campaign_id, TimelineCommand(kind="undo", turns=turns), **how)

    def redo(self, campaign_id: str, turns: int = 1, **how: Any) -> Played:
        """Move the branch's head forward along the turns an undo took back (:meth:`undo` for ``how``)."""
        return self.timeline(campaign_id, TimelineCommand(kind="redo", turns=turns), **how)

    def retry(self, campaign_id: str, **how: Any) -> Played:
        """Play the head turn's input again from its parent with the next dice variant (:meth:`undo` for ``how``)."""
        return self.timeline(campaign_id, TimelineCommand(kind="retry"), **how)

    def pick(self, campaign_id: str, variant: int, **how: Any) -> Played:
        """Go to variant ``variant`` of the head turn (:meth:`undo` for ``how``; reason ``no_variant``)."""
        return self.timeline(campaign_id, TimelineCommand(kind="pick", variant=variant), **how)

    def fork(self, campaign_id: str, name: str, at_turn: int | None = None, **how: Any) -> Played:
        """Start branch ``name`` at the head (or at turn ``at_turn`` of its line) and make it current (:meth:`undo`
        for ``how``; reasons ``bad_name``, ``name_taken``, ``bad_turn``)."""
        return self.timeline(campaign_id, TimelineCommand(kind="fork", name=name, at=at_turn), **how)

    def switch(self, campaign_id: str, name: str, **how: Any) -> Played:
        """Make branch ``name`` the current one (:meth:`undo` for ``how``; reason ``no_branch``)."""
        return self.timeline(campaign_id, TimelineCommand(kind="switch", name=name), **how)

    def delete_branch(self, campaign_id: str, name: str, **how: Any) -> Played:
        """Delete branch ``name`` (not the current one) with every turn no other branch reaches (:meth:`undo` for
        ``how``; reasons ``no_branch``, ``current_branch``)."""
        return self.timeline(campaign_id, TimelineCommand(kind="delete-branch", name=name), **how)

    def branches(self, campaign_id: str) -> list[BranchView]:
        """Every branch of the campaign (``main`` first) with its head, what /redo could replay, and where it stands.
        :raises CampaignNotFoundError."""
        with self.pool.connection() as conn, reads.snapshot(conn):
            found = reads.branch_heads(conn, campaign_id)
        return [BranchView(name=b.name, head_turn=b.head.turn_number, tip_turn=b.tip, current=b.current,
                                 location=location, last_text=text or "", forked_from=b.forked_from,
                                 forked_at=b.forked_at)
                for b, location, text in found]

    # ------------------------------------------------------------------------------------------ reads

    def turns(self, campaign_id: str, *, after_turn: int = 0, limit: int = 20,
              branch: str | None = None) -> TurnPage:
        """Up to ``limit`` turns after turn ``after_turn`` on the line of ``branch`` (default: the current one) up to
        its head, oldest first (paged by turn number: the cost of a page does not grow with the campaign).
        :raises CampaignNotFoundError. :raises BranchError: no such branch."""
        with self.pool.connection() as conn, reads.snapshot(conn):
            at = timeline.head(conn, campaign_id, branch)
            total = at.turn_number
            rows = [views.turn_record(row) for row in reads.turn_records(conn, campaign_id, after_turn, limit,
                                                                         at.branch)]
        last = rows[-1].turn_number if rows else None
        return TurnPage(campaign_id=campaign_id, total=total, turns=rows, branch=at.branch,
                              next_after_turn=last if last is not None and last < total else None)

    def episodes(self, campaign_id: str) -> EpisodesView:
        """The running episode, every evaluation, and what can be played next. :raises CampaignNotFoundError."""
        state, pack = self._viewed(campaign_id)
        with self.pool.connection() as conn:
            evaluations = stored_episodes.evaluations(conn, campaign_id)
        return views.episodes(state, pack, evaluations)

    def shared(self, share_id: str) -> SharedEpisode | None:
        """The episode result shared as ``share_id`` (``SharedEpisode``: nothing of its campaign), or None."""
        with self.pool.connection() as conn:
            found = stored_episodes.by_share_id(conn, share_id)
            pack_id = reads.pack_id(conn, found[0]) if found else None
        if found is None:
            return None
        try:
            name = self.packs.get(pack_id).era.name
        except Exception:  # a pack not installed here: the result is still the result
            name = pack_id or ""
        return views.shared(found[1], name)

    def transcripts(self, campaign_id: str, scene: str | None = None) -> list[SceneTranscript]:
        """Every multi-character scene of the campaign (or those with id ``scene``), oldest first, with their lines
        (``skald.core.transcripts``); places and people by their ids when the campaign's pack cannot be loaded here.
        :raises CampaignNotFoundError."""
        state = self.load(campaign_id)
        try:
            pack: EraPack | None = self.packs.for_view(campaign_id, state.campaign.pack_id)
        except (LookupError, PackError):  # a pack played from a folder, or one gone: the lines keep their names
            pack = None
        with self.pool.connection() as conn:
            return stored_transcripts.scenes(conn, campaign_id, pack, scene)

    def scene(self, campaign_id: str, words: Words | None = None) -> SceneView:
        """The scene the campaign stands at, with the four suggestions for its next turn (for a resumed game);
        ``words``: how the frontend asking names the moves that are not story (default: the engine's)."""
        state, pack = self._viewed(campaign_id)
        with self.pool.connection() as conn:
            self._brief(conn, state, pack)
        return self._scene(state, pack, resumed=state.campaign.turn_number > 0, words=words)

    def settle(self, timeout: float | None = None) -> None:
        """Wait for the scene briefs being written in the background (recording and replay call it between turns,
        so a background LLM call belongs to the turn that started it)."""
        if self._llm is not None:
            self._llm.briefs.settle(timeout)

    def _scene(self, state: GameState, pack: EraPack, *, resumed: bool, words: Words | None = None) -> SceneView:
        offline_mode = self._llm is not None and not self._llm.online
        told = offline.scene_text(state, pack, resumed=resumed, words=words or self.words)
        return views.scene(state, pack, told, offline=offline_mode)

    def view(self, campaign_id: str) -> CampaignView:
        state, pack = self._viewed(campaign_id)
        return views.campaign(state, pack)

    def map(self, campaign_id: str) -> MapView:
        """The pack's map with where the player is and has been on the current branch. :raises
        CampaignNotFoundError."""
        state, pack = self._viewed(campaign_id)
        with self.pool.connection() as conn:
            been = reads.visited(conn, campaign_id)
        return views.map_of(pack, state.location, been)

    def party(self, campaign_id: str) -> list[CompanionView]:
        return views.party(*self._viewed(campaign_id))

    def quests(self, campaign_id: str) -> list[QuestView]:
        return views.quests(*self._viewed(campaign_id))

    def rumors(self, campaign_id: str) -> RumorsView:
        return views.rumors(*self._viewed(campaign_id))

    def news(self, campaign_id: str) -> NewsView:
        return views.news(self.load(campaign_id))

    def inventory(self, campaign_id: str) -> InventoryView:
        return views.inventory(*self._viewed(campaign_id))

    # ------------------------------------------------------------------------------------------ internals

    def _brief(self, conn: Any, state: GameState, pack: EraPack) -> None:
        """The "on connect" brief: a campaign just started or opened gets its scene briefed in the background (only
        when the director role can be called and no brief of the scene is held or stored)."""
        briefs.prefetch(conn, self.llm, state.persistent(), pack, resolve_retriever(self.retriever))

    def _next_variant(self, conn: Any, slot: Slot) -> None:
        """After :class:`VariantTaken`: the slot plays from the same parent with the next free dice variant."""
        position = slot.position
        assert position is not None, "a claimed slot has its position"
        with reads.snapshot(conn):
            variant = timeline.next_variant(conn, slot.campaign_id, position.parent)
        slot.position = dataclasses.replace(position, variant=variant)

    def _resume(self, campaign_id: str) -> str | None:
        return self.resume(campaign_id) if self.resume is not None else None

    def _viewed(self, campaign_id: str) -> tuple[GameState, EraPack]:
        state = self.load(campaign_id)
        return state, self.packs.for_view(campaign_id, state.campaign.pack_id)

    def _take(self, busy: str, campaign_id: str) -> None:
        """Hold ``busy`` (a whole campaign, or one branch of it: ``<campaign>/<branch>``) in the busy set, or raise
        :class:`TurnBusy` when it, or the whole campaign, or (for the whole campaign) any branch of it is held."""
        with self._busy_guard:
            whole = busy == campaign_id
            if busy not in self._busy and campaign_id not in self._busy and not (
                    whole and any(k.startswith(f"{campaign_id}/") for k in self._busy)):
                self._busy[busy] = None
                return
        with self.pool.connection() as conn:  # the turn number of the branch asked for (of the current one, whole)
            _, _, branch = busy.partition("/")
            raise TurnBusy(timeline.head(conn, campaign_id, branch or None).turn_number)

    def _give_back(self, campaign_id: str) -> None:
        with self._busy_guard:
            self._busy.pop(campaign_id, None)

    def cancel(self, campaign_id: str, branch: str | None = None) -> str:
        """Ask the turn being played on the campaign (on ``branch``; default: any of its branches) in this process to
        stop before it is saved (``turn_cancel``). Returns ``stopping`` (it will end with ``TurnCancelled``, nothing
        saved), ``too_late`` (its Commit has begun: it is saved whole) or ``none`` (no turn is being played here)."""
        with self._busy_guard:
            slots = [slot for key, slot in self._busy.items() if slot is not None
                     and key.partition("/")[0] == campaign_id and (branch is None or key.partition("/")[2] == branch)]
        if not slots:
            return "none"
        return "stopping" if all(slot.cancel.request() for slot in slots) else "too_late"

    def _replay(self, campaign_id: str, keyed: KeyedTurn) -> Played | None:
        """The stored response for ``keyed``, if its turn was played. :raises KeyReused: another input."""
        with self.pool.connection() as conn:
            stored = idempotency.lookup(conn, campaign_id, keyed.key, self.clock())
        if stored is None or stored.response is None:
            return None
        if stored.input_hash != keyed.input_hash:
            raise KeyReused()
        return Played.stored(stored.response)

    def _lost_race(self, slot: Slot, exc: TurnConflictError | KeyTaken) -> Played:
        """Another process committed first. If it played this very key, its response is this request's answer."""
        if slot.keyed is not None:
            replay = self._replay(slot.campaign_id, slot.keyed)
            if replay is not None:
                return replay
        if isinstance(exc, KeyTaken):
            raise KeyReused() from None
        raise exc
