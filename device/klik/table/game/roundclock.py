"""The round's clock at this table: the hub's word on the round's time, in the table's own terms.

A tournament round may have a time of its own (000 o). While the hub runs one for this table,
its answer to every heartbeat says how much of it is left (``klik.link.protocol.RoundClock``);
the courier hands that to the engine thread with the moment it was heard, and the session
(``klik.table.game.session``) keeps it here as the moment the round's time is up on the table's
clock: heard + left. So the count does not stop with the connection: a table that hears
nothing more counts down on its own from the last answer, and at its zero takes the
round-over itself, as the hub's command would. A later answer moves the zero (the judge gave
this table more time); an answer without a round clock forgets it.

The clock is the round's of the lineup the table keeps (``klik.table.game.rounds``); one for
another round is not this table's and is ignored, said once in the log. It is not kept across
a restart: the table's clock then goes on from the journal, not from the time the table was
down, so the next answer sets it again.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from klik.link.protocol import RoundClock
from klik.table.game.lineup import Lineup

log = logging.getLogger("klik.table.game.engine")  # the engine's parts log under its name

MOVED_S = 5.0  # a zero moved by more than this is news for the log (the judge's extra time)


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """When a round's time is up, on the table's clock (seconds)."""

    tournament: str
    round_no: int
    at: float

    def key(self) -> tuple[str, int]:
        return self.tournament, self.round_no

    def of(self, lineup: Lineup | None) -> bool:
        """Whether this is the round ``lineup`` is played in."""
        return lineup is not None and (lineup.tournament, lineup.round_no) == self.key()


class RoundTime:
    """The round's clock as the hub last said it (``end``, None without one); on the engine
    thread only."""

    def __init__(self, table: str) -> None:
        self.table = table  # the table's name, for the log
        self.end: RoundEnd | None = None
        self._other: tuple[str, int] | None = None  # another round's clock, logged once

    def heard(self, said: RoundClock | None, at: float, kept: Lineup | None) -> None:
        """The hub's answer at ``at`` (the table's clock) said ``said``: the round's time
        left, or None (it runs no round clock for this table). ``kept``: the round's lineup
        this table keeps; a clock for another round is ignored (logged once)."""
        if said is None:
            if self.end is not None:
                log.info("stół %s: hub nie odmierza już czasu rundy", self.table)
            self.end, self._other = None, None
            return
        end = RoundEnd(said.tournament, said.round_no, at + said.left_ms / 1000)
        if not end.of(kept):
            if self._other != end.key():
                self._other = end.key()
                if kept is None:
                    playing = "nie ma składu rundy"
                else:
                    playing = f"gra rundę {kept.round_no} turnieju {kept.tournament}"
                log.warning("stół %s: czas rundy %d turnieju %s pominięty: stół %s",
                            self.table, end.round_no, end.tournament, playing)  # fmt: skip
            self.end = None
            return
        self._other = None
        before = self.end
        if before is not None and before.key() == end.key() and before.at <= end.at <= at:
            return  # up already, and still: the zero stays where it was
        if before is None or before.key() != end.key() or abs(before.at - end.at) > MOVED_S:
            log.info("stół %s: turniej %s, runda %d: czas rundy %s (od huba)",
                     self.table, end.tournament, end.round_no,
                     clock(max(0.0, end.at - at)))  # fmt: skip
        self.end = end

    def ends(self, lineup: Lineup | None) -> float | None:
        """When the round's time is up, if a game played with ``lineup`` is of its round."""
        end = self.end
        return end.at if end is not None and end.of(lineup) else None


def clock(seconds: float) -> str:
    """m:ss, rounded up to the whole second, as the screens show a clock."""
    whole = max(0, math.ceil(seconds - 1e-9))
    return f"{whole // 60}:{whole % 60:02d}"
