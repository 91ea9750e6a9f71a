"""Small points, big points and winners under the tournament's rule sets.

The rules (RULES.md §5–6, seeds 000 m–q, 001 PUNKTACJA, 004 13–15):

* **Rummikub ending** — one seat laid out every tile. Every other seat loses its rack sum
  (a joker on the rack counts 50 when the players add up their racks). A seat that never
  opened loses 100 instead, or 200 if it could have opened and did not, unless it announced
  "Wyłożę się w następnej rundzie". The winner gains what the others lost.
* **Exhausted ending** — the draw pile or the round's time ran out. The lowest rack sum wins;
  every other seat loses the difference to it; every winner (several may tie) gains the sum
  of those differences. Penalties for not opening apply here only if the rule set says so.
* **Big points** go by place. Places use competition ranking (1, 2, 2, 4) on the
  penalty-adjusted small points, so seats that tie share the better place and its points.

A rule set is data: its sign convention (the tournament writes losers minus, the league
writes them plus), its penalties, and its big points per place for each table size. Nothing
in the code below knows a rule set by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum


class Ending(Enum):
    RUMMIKUB = "rummikub"
    EXHAUSTED = "exhausted"


@dataclass(frozen=True, slots=True)
class RuleSet:
    """How one tournament plays its clock and turns racks into small and big points.

    The shipped sets are TOML files (``klik/rules/*.toml``, read by ``klik.rules``); the
    defaults here are ``pl-turniej``'s, so the engine has a set before any file is read, and
    a test holds the file and these defaults together.
    """

    name: str = "pl-turniej"
    #: +1: the winner's small points are plus, the losers' minus (tournament);
    #: -1: the other way round, lower is better (league).
    winner_sign: int = +1
    #: Big points by place (1st, 2nd, ...), for each number of seats at the table. Seats tied
    #: on a place each get that place's points (competition places 1, 2, 2, 4).
    big_points: Mapping[int, tuple[int, ...]] = field(
        default_factory=lambda: {2: (1, 0), 3: (1, 0, 0), 4: (1, 0, 0, 0)}
    )
    joker_value: int = 50
    #: What a seat that never opened loses instead of its rack; None: its rack, as any seat.
    not_opened_penalty: int | None = 100
    could_open_penalty: int | None = 200
    #: Whether a seat that has not opened is scored by its penalty in an exhausted ending too.
    penalties_when_exhausted: bool = False
    version: int = 1
    move_time_s: int = 60  # a tournament's or a table's own move time overrides it
    penalty_tiles: int = 1  # what a timed-out seat draws
    first_starter: str = "A"  # game 1 of a round: seat A, or "draw" (the highest tile starts)
    seats: tuple[int, int] = (2, 4)  # the fewest and most players at a table
    # What a reader is told, not what scores: a set compares by its rules alone.
    title_pl: str = field(default="Turniej (regulamin PL)", compare=False)
    title_en: str = field(default="Polish tournament", compare=False)
    source: str = field(default="", compare=False)
    notes: tuple[str, ...] = field(default=(), compare=False)  # what the source leaves open
    aliases: tuple[str, ...] = field(default=(), compare=False)  # the wire's older names

    @property
    def max_rack(self) -> int:
        """The largest rack sum there can be: every tile of the set, 1-13 in four colours
        twice (728) and both jokers (828 at 50 a joker)."""
        return 2 * 4 * sum(range(1, 14)) + 2 * self.joker_value


@dataclass(frozen=True, slots=True)
class SeatRack:
    """What one seat brings to the count at the end of a game."""

    rack: int
    opened: bool = True
    could_open: bool = False
    announced: bool = False


@dataclass(frozen=True, slots=True)
class Result:
    """A scored game; every mapping is keyed by seat letter, in seat order."""

    ending: Ending
    winners: tuple[str, ...]
    rack: Mapping[str, int]
    small: Mapping[str, int]
    big: Mapping[str, int]
    places: Mapping[str, int]


def penalty(rules: RuleSet, seat: SeatRack) -> int | None:
    """The points a seat that never opened loses instead of its rack; None if it opened, or
    if the rule set counts an unopened seat's rack as any other (``classic``)."""
    if seat.opened:
        return None
    if seat.could_open and not seat.announced:
        return rules.could_open_penalty
    return rules.not_opened_penalty


def score(
    rules: RuleSet,
    ending: Ending,
    seats: Mapping[str, SeatRack],
    winner: str | None = None,
) -> Result:
    """Score one game. ``winner`` names the seat that went out, for a Rummikub ending only.

    The caller has checked the input (2 to 4 seats, racks ≥ 0, the winner seated with an
    empty rack); see ``klik.scorefile`` for the checks a person's score sheet gets.
    """
    if ending is Ending.RUMMIKUB:
        if winner is None or winner not in seats:
            raise ValueError("a Rummikub ending needs the seated winner")
        winners: tuple[str, ...] = (winner,)
        lost = {s: _charged(rules, r, with_penalty=True) for s, r in seats.items() if s != winner}
    else:
        charged = {
            s: _charged(rules, r, with_penalty=rules.penalties_when_exhausted)
            for s, r in seats.items()
        }
        best = min(charged.values())
        winners = tuple(s for s, v in charged.items() if v == best)
        lost = {s: v - best for s, v in charged.items() if s not in winners}
    gained = sum(lost.values())
    sign = rules.winner_sign
    small = {s: sign * gained if s in winners else -sign * lost[s] for s in seats}
    places = _competition_places({s: sign * p for s, p in small.items()})
    table = rules.big_points[len(seats)]
    big = {s: table[place - 1] for s, place in places.items()}
    rack = {
        s: 0 if s in winners and ending is Ending.RUMMIKUB else r.rack for s, r in seats.items()
    }
    return Result(ending, winners, rack, small, big, places)


def _charged(rules: RuleSet, seat: SeatRack, *, with_penalty: bool) -> int:
    fine = penalty(rules, seat) if with_penalty else None
    return seat.rack if fine is None else fine


def _competition_places(merit: Mapping[str, int]) -> dict[str, int]:
    """Places 1, 2, 2, 4: a seat's place is one more than the seats strictly better."""
    return {s: 1 + sum(other > m for other in merit.values()) for s, m in merit.items()}
