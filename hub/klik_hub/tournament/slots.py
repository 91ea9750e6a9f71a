"""Slots: the games a drawn round owes, and which result fills each of them.

Table k of round n owes exactly ``games`` results: the round's games 1..games, each played by
the lineup's players. A result fills the slot it names (``round_game`` in its body, the game
within the round's lineup); a result from an older table, without ``round_game``, fills the
first empty slot of its table in its round, in the order results arrive. A result counts only
in a slot, so nothing the round never had can reach the standings:

* a result for no slot (an undrawn round, a table not in the round, other players than the
  lineup's, a game past the round's ``games``, or an older table's game when its slots are
  full) is held as ``not_in_round`` until the judge assigns it (``assign``) or excludes it;
* a second, different result for a filled slot is held as a ``conflict``: the first stays,
  unless the judge accepts the second, which then takes the slot and holds the first out.

An excluded result fills no slot. Only the slot's holder can count, so every slot holds at most
one counting result. Pure: the caller reads the rounds and the results, in arrival order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from klik.core.game import SEATS


class Held(Enum):
    """Why a result holds no slot, or does not hold the one it names."""

    NOT_IN_ROUND = "not_in_round"
    CONFLICT = "conflict"


@dataclass(frozen=True, slots=True, order=True)
class Slot:
    round_no: int
    table: int
    game: int  # 1..games: the game within the round's lineup


@dataclass(frozen=True, slots=True)
class Lineup:
    """A drawn round: how many games each table plays, and who sits where."""

    round_no: int
    games: int
    tables: tuple[tuple[int, ...], ...]  # player ids in seat order A, B, C, D; table 1 first

    def seats(self, table: int) -> dict[str, int] | None:
        """Table ``table``'s seats (seat -> player), or None if the round has no such table."""
        if not 1 <= table <= len(self.tables):
            return None
        return dict(zip(SEATS, self.tables[table - 1], strict=False))


@dataclass(frozen=True, slots=True)
class Claim:
    """One result as the slots see it, after the judge's corrections."""

    result: int  # its id; claims come in the order the results arrived
    round_no: int | None
    table: int
    round_game: int | None  # None: an older table, which fills the first empty slot
    players: Mapping[str, int | None]  # seat -> player id; None: the table named none
    judged: bool = False  # the judge named its players: who sat where may differ from the draw
    assigned: Slot | None = None  # the judge's ``assign``: this slot, whatever the body says
    excluded: bool = False
    accepted: bool = False  # the judge's ``accept``: it takes its slot from another result


@dataclass(frozen=True, slots=True)
class Placed:
    slot: Slot | None  # the slot it fills or names
    held: Held | None  # None: it holds the slot


def fill(rounds: Sequence[Lineup], claims: Sequence[Claim]) -> dict[int, Placed]:
    """Each claim's place (by result id); see the module's docstring for the rules."""
    by_round = {r.round_no: r for r in rounds}
    holder: dict[Slot, Claim] = {}
    placed: dict[int, Placed] = {}
    for claim in claims:
        if claim.excluded:
            placed[claim.result] = Placed(None, None)
            continue
        slot = _target(by_round, claim, holder)
        if slot is None:
            placed[claim.result] = Placed(None, Held.NOT_IN_ROUND)
            continue
        current = holder.get(slot)
        if current is None:
            holder[slot] = claim
            placed[claim.result] = Placed(slot, None)
        elif claim.accepted and not current.accepted:
            holder[slot] = claim
            placed[current.result] = Placed(slot, Held.CONFLICT)
            placed[claim.result] = Placed(slot, None)
        else:
            placed[claim.result] = Placed(slot, Held.CONFLICT)
    return placed


def owed(rounds: Sequence[Lineup], placed: Mapping[int, Placed]) -> dict[Slot, bool]:
    """Every slot of ``rounds``, and whether a result fills it (counting or held for a
    mismatch: it was reported)."""
    filled = {p.slot for p in placed.values() if p.slot is not None and p.held is None}
    return {
        Slot(r.round_no, k, g): Slot(r.round_no, k, g) in filled
        for r in rounds
        for k in range(1, len(r.tables) + 1)
        for g in range(1, r.games + 1)
    }


def _target(
    by_round: Mapping[int, Lineup], claim: Claim, holder: Mapping[Slot, Claim]
) -> Slot | None:
    """The slot ``claim`` names, or None if the round never had it."""
    if claim.assigned is not None:
        slot = claim.assigned
        lineup = by_round.get(slot.round_no)
        if lineup is None or not 1 <= slot.game <= lineup.games:
            return None
        return slot if _fits(lineup, slot.table, claim, judged=True) else None
    lineup = by_round.get(claim.round_no) if claim.round_no is not None else None
    if lineup is None or not _fits(lineup, claim.table, claim, judged=claim.judged):
        return None
    if claim.round_game is None:
        empty = (Slot(lineup.round_no, claim.table, g) for g in range(1, lineup.games + 1))
        return next((s for s in empty if s not in holder), None)
    if not 1 <= claim.round_game <= lineup.games:
        return None
    return Slot(lineup.round_no, claim.table, claim.round_game)


def _fits(lineup: Lineup, table: int, claim: Claim, *, judged: bool) -> bool:
    """Whether ``claim``'s players are the lineup's at ``table``: in its seats, or, where the
    judge named them, the same players in any seats."""
    seats = lineup.seats(table)
    if seats is None:
        return False
    if not judged:
        return dict(claim.players) == seats
    named = [p for p in claim.players.values() if p is not None]
    return len(named) == len(claim.players) and sorted(named) == sorted(seats.values())
