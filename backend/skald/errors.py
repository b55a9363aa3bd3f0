"""Errors a player or a caller of ``run_turn`` can see. Each message says what to do next."""


class SkaldError(Exception):
    """Base class for errors meant to be shown to a person, never as a traceback."""


class PlayerInputError(SkaldError):
    """The player's input cannot be played (empty, too long, control characters). Nothing was written."""


class TurnConflictError(SkaldError):
    """Another turn committed first on this campaign. Nothing from this turn was written.

    ``current_turn`` is the campaign's turn number after the other turn.
    """

    def __init__(self, campaign_id: str, expected: int, current: int):
        self.campaign_id = campaign_id
        self.expected_turn = expected
        self.current_turn = current
        super().__init__(
            f"campaign {campaign_id} moved on to turn {current} while this turn was based on turn {expected}; "
            "nothing was saved from this turn: reload the campaign and play it again"
        )


class VariantTaken(SkaldError):
    """Another turn played from the same turn (on another branch, at the same time) took this turn's dice variant
    first. Nothing from this turn was written; the engine plays it again with the next variant (``Engine.play``)."""

    def __init__(self, campaign_id: str, parent: int, variant: int):
        self.campaign_id, self.parent, self.variant = campaign_id, parent, variant
        super().__init__(f"campaign {campaign_id}: variant {variant} of the turn after turn id {parent} was taken by "
                         "a turn played at the same time on another branch; nothing was saved from this one")


class BranchError(SkaldError):
    """A timeline command that cannot be done as asked: no such branch, a name taken or not allowed, nothing to undo
    or redo, no such variant, deleting the current branch. Nothing was changed. ``reason`` is a short tag
    (``no_branch``, ``name_taken``, ``bad_name``, ``nothing_to_undo``, ``nothing_to_redo``, ``nothing_to_retry``,
    ``no_variant``, ``current_branch``, ``bad_turn``) for callers that map it (the API's status codes)."""

    def __init__(self, campaign_id: str, branch: str, reason: str, message: str):
        self.campaign_id = campaign_id
        self.branch = branch
        self.reason = reason
        self.problem = message
        super().__init__(f"campaign {campaign_id}: {message}")


class CampaignNotFoundError(SkaldError):
    def __init__(self, campaign_id: str):
        self.campaign_id = campaign_id
        super().__init__(f"no campaign {campaign_id!r} in this save file; list them with /load or start a new one")


class TurnBusy(SkaldError):
    """Another turn of this campaign is being played (or the campaign is being deleted) in this process."""

    def __init__(self, turn_number: int):
        self.turn_number = turn_number
        super().__init__(f"another turn of this campaign is being played; the campaign is at turn {turn_number}: "
                         "wait for it, reload the campaign and try again")


class TurnCancelled(SkaldError):
    """The turn was asked to stop (``turn_cancel.TurnCancel``) before Commit: nothing of it was saved."""

    def __init__(self) -> None:
        super().__init__("the turn was stopped before it was saved: nothing was played, and the campaign is where it "
                         "was")


class TurnStale(SkaldError):
    """The caller's ``expected_turn`` is not the campaign's turn number."""

    def __init__(self, expected: int, turn_number: int):
        self.turn_number = turn_number
        super().__init__(f"the campaign is at turn {turn_number}, not {expected}: reload it and play your turn again")


class KeyReused(SkaldError):
    """An idempotency key sent again with a different input."""

    def __init__(self) -> None:
        super().__init__("this Idempotency-Key was already used for a different input on this campaign; "
                         "use a new key for a new turn")


class SaveFileError(SkaldError):
    """The save file cannot be used as asked: not a database, damaged, from a newer Skald, locked by another
    process past the busy timeout, read-only, or the disk is full. Nothing already committed is lost: a failed
    write rolls back whole. ``reason`` is a short tag (``not_a_database``, ``corrupt``, ``newer_schema``, ``locked``,
    ``read_only``, ``disk_full``, ``cannot_open``, ``io``, ``not_skald``: another application's SQLite file, left
    unchanged; ``damaged``: a Skald table is gone; for a PostgreSQL store also ``old_schema`` and ``no_schema``) for
    callers that map it (the API's status codes)."""

    def __init__(self, path: object, reason: str, message: str):
        self.path = str(path)
        self.reason = reason
        self.problem = message  # the message without the file's path (the API does not show server paths)
        super().__init__(f"save file {self.path}: {message}")


class CampaignDamagedError(SkaldError):
    """A campaign the store holds cannot be read or played as it is: its state rows, branch heads, lines or events
    are damaged (``problems``, each named by ``store.fsck``). Nothing was changed; the store's other campaigns are
    unaffected."""

    def __init__(self, campaign_id: str, problems: list[str]):
        self.campaign_id = campaign_id
        self.problems = problems
        super().__init__(f"campaign {campaign_id} is damaged in this save file: {'; '.join(problems)}. Nothing was "
                         "changed: play another campaign, or restore the file from a copy (skald doctor lists every "
                         "problem)")
