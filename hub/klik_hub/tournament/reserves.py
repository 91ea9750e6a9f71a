"""Reserves: a player who must leave mid-round is replaced at their seat, for the round's
remaining games, by a reserve (issue 20, point 3).

The rules:

* A replacement names a round, a table, the seat, the player who left it, the reserve who
  took it and ``from_game``: the round's game at that table (1-based, as ``slots.Slot.game``)
  from which on the seat is the reserve's. The games before it stay the player's.
* The table plays on with its lineup: its results still name the drawn player at the seat
  (the hub told the table the reserve's name only). So each result fills the slot it always
  would (``slots``): the opponents' games, what a table owes and when a round is complete do
  not change.
* In a game of the table from ``from_game`` on, the seat held by the player who left is the
  reserve's (``reserved``), and marked so; whom its points count for is the format's
  ``replacements`` (``CountsFor``): the reserve, who played it; the player who left, whose
  seat it was in the draw; or nobody. The opponents' points count in every case.

The seat is found by the player who left, not by its letter: a result whose players the judge
named again (``corrections``' ``player`` or ``assign``) may seat them at other letters.

Pure: the office reads the replacements and the results and asks this module about each game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from klik_hub.tournament.slots import Slot


class CountsFor(Enum):
    """Whom the games a reserve played at a player's seat count for: a format's
    ``replacements`` key (its values are the TOML's words)."""

    RESERVE = "reserve"  # the reserve's standings: who played the games
    REPLACED = "replaced"  # the standings of the player who left: the seat as drawn
    NOBODY = "nobody"  # no one's: the seat's points count for nobody


@dataclass(frozen=True, slots=True)
class Replacement:
    """A reserve at a player's seat for the rest of a round, from the table's game
    ``from_game`` on."""

    round_no: int
    table: int
    seat: str  # the seat's letter in the draw
    player: int  # who left
    reserve: int  # who took the seat
    from_game: int  # the round's game at the table, 1-based

    def covers(self, slot: Slot) -> bool:
        """Whether the game in ``slot`` was played with the reserve at the seat."""
        here = (slot.round_no, slot.table) == (self.round_no, self.table)
        return here and slot.game >= self.from_game

    def counts_for(self, rule: CountsFor) -> int | None:
        """Whose standings the reserve's games at the seat count in, as ``rule`` says."""
        if rule is CountsFor.RESERVE:
            return self.reserve
        return self.player if rule is CountsFor.REPLACED else None


def reserved(
    replacements: Iterable[Replacement], slot: Slot, players: Mapping[str, int | None]
) -> dict[str, Replacement]:
    """The seats of the game in ``slot`` that a reserve played, each with its replacement;
    ``players`` are the game's seats' players as its result names them (after the judge's
    corrections)."""
    out: dict[str, Replacement] = {}
    for r in replacements:
        if r.covers(slot):
            seat = next((s for s, p in players.items() if p == r.player), None)
            if seat is not None:
                out[seat] = r
    return out


def credited(
    players: Mapping[str, int | None], seats: Mapping[str, Replacement], rule: CountsFor
) -> dict[str, int | None]:
    """Whom each seat's points count for: its player, or for a seat a reserve played
    (``seats``, as ``reserved`` finds them) whom ``rule`` says (None: nobody)."""
    return {s: seats[s].counts_for(rule) if s in seats else p for s, p in players.items()}
