"""Where a player sits: now, and in the next round as soon as it is drawn (the player's page).

The rule (issue 20's player's page):

* **Now**: the player's seat in the earliest drawn round whose games at the player's table
  are not all in (a table owes a game until a result fills its slot, ``slots.owed``); once
  every table the player sat at has reported, the seat of the last drawn round the player is
  seated in. A player not seated in any drawn round sits nowhere yet.
* **Next**: the player's seat in the first round drawn after the one they sit in now, or
  nowhere while no such round is drawn.
* **Who starts** the first game at a table: seat A, as the lineup says (000 f, 004 6), unless
  the format draws it at the table (``first_starter = "draw"``, 001: the highest tile), when
  nobody knows it before the table sits down.

Pure: the rounds' tables and what each table still owes come in; seats come out.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from klik.core.game import SEATS, nth_starter

#: A drawn round as this module reads it: its number and its tables' players in seat order.
Drawn = tuple[int, Sequence[Sequence[int]]]


@dataclass(frozen=True, slots=True)
class Spot:
    """A seat in a round: table ``table`` (from 1), seat ``seat`` ('A'…)."""

    round_no: int
    table: int
    seat: str


def spots(player: int, rounds: Sequence[Drawn]) -> list[Spot]:
    """Every seat ``player`` holds in ``rounds``, in the rounds' order."""
    held = []
    for round_no, tables in rounds:
        for k, table in enumerate(tables, start=1):
            if player in table:
                held.append(Spot(round_no, k, SEATS[list(table).index(player)]))
    return held


def now_and_next(
    player: int, rounds: Sequence[Drawn], owing: Collection[tuple[int, int]]
) -> tuple[Spot | None, Spot | None]:
    """Where ``player`` sits now and next (the module's rule); ``owing`` holds the
    ``(round, table)`` pairs whose games are not all in."""
    held = sorted(spots(player, rounds), key=lambda s: s.round_no)
    if not held:
        return None, None
    now = next((s for s in held if (s.round_no, s.table) in owing), held[-1])
    later = [s for s in held if s.round_no > now.round_no]
    return now, (later[0] if later else None)


def first_starter(rule: str, seats: Sequence[str]) -> str | None:
    """The seat that starts the first game at a table of ``seats`` under the format's
    ``first_starter`` ``rule``: seat A's (``nth_starter``, as the lineup and the printed
    sheets say), or None where the format draws it at the table."""
    if rule == "draw" or not seats:
        return None
    return nth_starter(seats, seats[0], 1)
