"""A season's table: a league's meetings (seed 001: "liga" is a series of them) ranked
together by person.

Each meeting gives a person points by the season's rule: ``"big"``, the big points their row
in the meeting's classification holds; or a list, the points for their place in it (place 1
first; a place beyond the list gives 0; an unplaced row, none). ``best``: only a person's best
N meetings count (all of them when None). People are ranked by their points, places shared
on a tie (1, 2, 2, 4), then listed by name. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

BIG = "big"
MAX_MEETINGS = 100  # a season's meetings
MAX_POINTS = 1000  # points for one place


@dataclass(frozen=True, slots=True)
class Rule:
    points: str | tuple[int, ...]  # "big", or the points for place 1, 2, ...
    best: int | None = None  # a person's best N meetings count; None: all

    def of(self, place: int | None, big: int) -> int | None:
        """What one meeting gives: None for an unplaced row (it did not meet)."""
        if place is None:
            return None
        if isinstance(self.points, str):  # BIG
            return big
        return self.points[place - 1] if place <= len(self.points) else 0


@dataclass(frozen=True, slots=True)
class Seat:
    """A person's row in one meeting's classification."""

    person: int
    place: int | None  # None: unplaced (withdrawn or excluded before a game counted)
    big: int


@dataclass(frozen=True, slots=True)
class Line:
    place: int
    person: int
    name: str
    points: int
    meetings: int  # the meetings the person was placed in
    counted: tuple[int, ...]  # each meeting's points that count, best first


def table(rule: Rule, meetings: Sequence[Sequence[Seat]], names: Mapping[int, str]) -> list[Line]:
    """The season's table from its meetings' classifications, oldest meeting first."""
    earned: dict[int, list[int]] = {}
    for meeting in meetings:
        for seat in meeting:
            got = rule.of(seat.place, seat.big)
            if got is not None:
                earned.setdefault(seat.person, []).append(got)
    totals: dict[int, tuple[int, int, tuple[int, ...]]] = {}
    for person, each in earned.items():
        best = sorted(each, reverse=True)[: rule.best or len(each)]
        totals[person] = (sum(best), len(each), tuple(best))
    order = sorted(totals, key=lambda p: (-totals[p][0], names.get(p, ""), p))
    return [
        Line(
            place=1 + sum(t[0] > totals[p][0] for t in totals.values()),
            person=p,
            name=names.get(p, ""),
            points=totals[p][0],
            meetings=totals[p][1],
            counted=totals[p][2],
        )
        for p in order
    ]
