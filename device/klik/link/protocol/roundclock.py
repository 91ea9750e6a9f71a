"""The round's clock in the hub's answer to a heartbeat: built by the hub (``RoundClock.json``),
checked by the table's courier (``RoundClock.decode``), in one place.

A tournament round may have a time of its own (000 o: "Jeżeli zabraknie kostek lub skończy się
czas rundy..."). While a table's round clock runs, the hub's signed ``ok`` to each heartbeat
carries ``"round": {"tournament": T, "round": N, "left_ms": L}``: the time left of the round
the table plays (that of the ``game`` lineup the hub sent it) at the moment the hub answered;
0 once the time is up. An answer without ``round``: the hub runs no round clock for the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from klik.link.protocol.envelope import ProtocolError
from klik.link.protocol.lineup import MAX_ROUND, MAX_TEXT, VOICE
from klik.link.protocol.messages import BIG
from klik.validate import OBJECT, Number, Text, check, known

Json = dict[str, Any]
FIELDS = ("left_ms", "round", "tournament")


@dataclass(frozen=True, slots=True)
class RoundClock:
    """The time left of a table's round, as the hub's answer to a heartbeat says it."""

    tournament: str  # as in the round's lineup
    round_no: int
    left_ms: int  # at the moment the hub answered; 0: the round's time is up

    def json(self) -> Json:
        """The ``round`` of the hub's answer to a heartbeat."""
        return {"tournament": self.tournament, "round": self.round_no, "left_ms": self.left_ms}

    @classmethod
    def decode(cls, raw: Any, where: str = "round") -> RoundClock:
        """The round clock in ``raw`` (the answer's ``round``); ProtocolError naming the
        first field that is wrong, from ``where``."""
        check(raw, OBJECT, VOICE, where)
        known(sorted(raw), FIELDS, VOICE, where)
        tournament = check(raw.get("tournament"), Text(1, MAX_TEXT), VOICE, f"{where}.tournament")
        round_no = check(raw.get("round"), Number(1, MAX_ROUND), VOICE, f"{where}.round")
        left_ms = raw.get("left_ms")
        if type(left_ms) is not int or not 0 <= left_ms <= BIG:
            raise ProtocolError(f"{where}.left_ms", "must be a whole number of milliseconds from 0")
        return cls(tournament, round_no, left_ms)
