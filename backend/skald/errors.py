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


class CampaignNotFoundError(SkaldError):
    def __init__(self, campaign_id: str):
        self.campaign_id = campaign_id
        super().__init__(f"no campaign {campaign_id!r} in this save file; list them with /load or start a new one")
