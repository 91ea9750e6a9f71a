"""How each seat moved in a game: its moves, draws and timeouts, and the mean and longest time
its moves took on the clock. The judge reads them for slow movers and repeated timeouts: the
table sends them in every heartbeat while the game runs and in the result when it is over
(``docs/protocol.md``: a seat's ``moves``).

Worked out from the game's move records (``klik.core.game.Move``), finished moves only (the
move under way is the heartbeat's ``left_ms``). A move's time is the time on its clock:
from its start to the press (or the timeout) that ended it, less the time the clock stood
for the judge, a call or a power cut (``Move.paused_s``); a restarted move counts from its
restart, and a timed-out move its whole move time, not the wait for its hand-over.

Times are whole milliseconds, each move's rounded once and the mean rounded half up from
their sum, so two tables (and the hub) make the same figures of the same moves: the result
is signed as canonical JSON, which holds no floats. Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from klik.core.game import EndedBy, Move


@dataclass(frozen=True, slots=True)
class Pace:
    """One seat's figures. ``draws`` counts the moves in which it took tiles from the pile
    (a drawn tile or a timeout's penalty draw; a pass in the final round takes none),
    ``timeouts`` the moves its clock ran out; both are among ``count``."""

    count: int = 0
    draws: int = 0
    timeouts: int = 0
    total_ms: int = 0
    longest_ms: int = 0

    @property
    def mean_ms(self) -> int:
        """The mean time of its moves, whole milliseconds rounded half up; 0 with no move."""
        return 0 if self.count == 0 else (2 * self.total_ms + self.count) // (2 * self.count)

    def json(self) -> dict[str, int]:
        """As the wire carries it (a seat's ``moves``)."""
        return {
            "count": self.count,
            "draws": self.draws,
            "timeouts": self.timeouts,
            "mean_ms": self.mean_ms,
            "longest_ms": self.longest_ms,
        }


def move_ms(move: Move) -> int:
    """The time ``move`` took on its clock, whole milliseconds (never below 0)."""
    return max(0, round((move.end - move.start - move.paused_s) * 1000))


def pace(moves: Iterable[Move], seats: Sequence[str]) -> dict[str, Pace]:
    """Each of ``seats``' figures from the game's ``moves`` (a seat with none: all 0)."""
    count = dict.fromkeys(seats, 0)
    draws = dict.fromkeys(seats, 0)
    timeouts = dict.fromkeys(seats, 0)
    total = dict.fromkeys(seats, 0)
    longest = dict.fromkeys(seats, 0)
    for move in moves:
        seat = move.seat
        if seat not in count:
            continue  # not one of the seats asked for
        ms = move_ms(move)
        count[seat] += 1
        draws[seat] += move.drew > 0
        timeouts[seat] += move.ended_by is EndedBy.TIMEOUT
        total[seat] += ms
        longest[seat] = max(longest[seat], ms)
    return {s: Pace(count[s], draws[s], timeouts[s], total[s], longest[s]) for s in seats}
