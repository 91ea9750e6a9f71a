"""What a seat's vibration motor tells its player: the clock's moments as pulses (issue 40).

A player who cannot hear the buzzer or see the LED must still know every moment the table
signals to a seat: that their clock runs (a move begins, or the judge lets it run again), that
10 s are left, that their time ran out, that
the judge was called and that the count begins. Each is a ``Pulse`` for the seats it concerns,
read from one step of the game: the state before and after it and the effects it gave. Pure,
like the rest of the core: the table's signals (``klik.table.hardware.signals``) turn pulses
into the motor's on and off by the time, as they turn sounds into the buzzer's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from klik.core import game as g


class PulseKind(Enum):
    YOUR_MOVE = "your_move"  # one short: this seat's clock runs (its move, or a resume)
    WARN = "warn"  # three short: warn_s left on this seat's clock
    TIMEOUT = "timeout"  # one long: this seat's time ran out
    JUDGE = "judge"  # two short, every seat: the judge is called
    COUNT = "count"  # two short, every seat: the game is over and the count begins


@dataclass(frozen=True, slots=True)
class Pulse:
    at: float
    kind: PulseKind
    seats: tuple[str, ...]  # the seats whose motors pulse


#: Which sound of the core is which pulse: the same moments, felt instead of heard.
FELT = {
    g.SoundKind.WARN: PulseKind.WARN,
    g.SoundKind.TIMEOUT: PulseKind.TIMEOUT,
    g.SoundKind.JUDGE: PulseKind.JUDGE,
    g.SoundKind.END: PulseKind.COUNT,
}


def pulses(
    before: g.Game, after: g.Game, effects: Sequence[g.Effect], at: float
) -> tuple[Pulse, ...]:
    """The pulses of the step at ``at`` that took the game from ``before`` to ``after`` with
    ``effects``, in time order."""
    found: list[Pulse] = []
    everyone = after.settings.seats
    for effect in effects:
        if not isinstance(effect, g.Sound):
            continue
        kind = FELT[effect.kind]
        if kind in (PulseKind.JUDGE, PulseKind.COUNT):
            found.append(Pulse(effect.at, kind, everyone))
            continue
        seat = _mover_at(before, after, effect.at, timed_out=kind is PulseKind.TIMEOUT)
        if seat is not None:
            found.append(Pulse(effect.at, kind, (seat,)))
    running = after.phase is g.Phase.MOVE and after.mover is not None
    if running and (before.phase is not g.Phase.MOVE or _new_move(before, after)):
        # The mover's clock began to run in this step: a new move (the start, a hand-over, a
        # restart, a move taken back), or one the judge's pause held (a resume, or a move
        # that stood for the judge before it began). Told now, when the step knows it: a
        # tap is known at its release, while the new move's clock has run from the press.
        assert after.mover is not None
        found.append(Pulse(at, PulseKind.YOUR_MOVE, (after.mover,)))
    return tuple(sorted(found, key=lambda p: p.at))


def _new_move(before: g.Game, after: g.Game) -> bool:
    return (after.move_start, after.mover) != (before.move_start, before.mover)


def _mover_at(before: g.Game, after: g.Game, at: float, *, timed_out: bool) -> str | None:
    """The seat whose clock ran at ``at``: for a timeout, the seat whose move ended then by
    it; else the move that held ``at``, finished in this step or still running."""
    for move in reversed(after.moves):
        if timed_out and move.end == at and move.ended_by is g.EndedBy.TIMEOUT:
            return move.seat
        if not timed_out and move.start <= at < move.end:
            return move.seat
    if after.mover is not None and after.move_start is not None and after.move_start <= at:
        return after.mover
    return before.mover
