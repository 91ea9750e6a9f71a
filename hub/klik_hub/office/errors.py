"""The tournament's errors: what the judge asked that the tournament cannot take. They know
no HTTP; ``klik_hub.api.tournaments`` answers each kind with its status."""

from __future__ import annotations

from typing import Any

from klik.errors import KlikError
from klik.words import Words


class TournamentError(KlikError):
    """A request the tournament cannot take (the routes answer 422); ``str()`` says why."""


class NotFoundError(TournamentError):
    """No such tournament, round, player or result (404)."""


class ConflictError(TournamentError):
    """A request that the tournament's present state refuses (409): a round not yet over,
    a draw that is not the next, a table not paired."""


class MissingResultsError(ConflictError):
    """The current round has games without a result; ``missing`` lists them."""

    def __init__(self, message: str | Words, missing: list[dict[str, int]]) -> None:
        super().__init__(message)
        self.missing = missing


class HeldTableError(ConflictError):
    """A table's number a paired table holds (409 with ``held_by``): the judge replaces it
    knowingly, or picks another."""

    def __init__(self, message: str | Words, held_by: dict[str, Any]) -> None:
        super().__init__(message)
        self.held_by = held_by
