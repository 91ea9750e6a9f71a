"""A tournament round's lineup at this table, as the hub's ``game`` command sends it.

The hub pushes every table its players for the round: who sits where (with their ids in the
tournament), the rule set, the move time and how many games the round has. The table plays
that many games with it; the first starts with seat A, the next with B, and so on (000 f), or,
where the format draws the first starter (``first_starter: "draw"``, 001: the highest tile
starts), with the seat that holds its button before the first game, and the next seat after it
each game; and
every result names the tournament, the round and each seat's player, so nobody copies names
or numbers by hand. A lineup is kept in the state folder (``lineup.json``) and in each game's
journal header, so a restart loses neither.

The lineup as the hub sends it is the protocol's (``klik.link.protocol.lineup``, checked
there); ``parse`` adds what the table keeps with it. A bad lineup is refused in one line and
the table goes on as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from klik.core import game as g
from klik.core.scoring import RuleSet
from klik.link.protocol import ProtocolError
from klik.link.protocol.lineup import MAX_GAMES, RoundLineup, whole
from klik.rules import RULE_SETS

MAX_NAME = 40  # characters of a name kept for the screens (as the ``players`` command)
#: A lineup the table cannot play: the protocol's one error, naming the field.
LineupError = ProtocolError


@dataclass(frozen=True, slots=True)
class Lineup:
    tournament: str
    round_no: int
    games: int  # games of the round at this table
    rules: str
    move_time_s: int
    seats: tuple[str, ...]  # in seat order, a subset of the table's
    players: tuple[tuple[str, str], ...]  # (seat, player id)
    names: tuple[tuple[str, str], ...]  # (seat, name)
    begun: int = 0  # games of this lineup begun so far
    first_starter: str = "A"  # "A": seat A starts game 1; "draw": the highest tile's seat
    drawn: str | None = None  # "draw": the seat that drew it, once it held its button
    rule_set: RuleSet | None = None  # sent with the lineup: a set the table need not know
    needs: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (seat, its player's needs), issue 40

    def needs_of(self, seat: str) -> tuple[str, ...]:
        """``seat``'s player's needs: words of ``large``, ``quiet``, ``vibration``."""
        return dict(self.needs).get(seat, ())

    @property
    def spent(self) -> bool:
        return self.begun >= self.games

    def settings(self, base: g.Settings) -> g.Settings:
        """The next game's settings: the table's own, with this round's seats, rules, move
        time and starter (seat A, or the drawn seat, for the round's first game, then the next
        seat each game; a starter still to draw is asked for before the first game)."""
        seats = self.seats
        to_draw = self.first_starter == "draw" and self.drawn is None and self.begun == 0
        first = self.drawn if self.drawn in seats else seats[0]
        return replace(
            base,
            seats=seats,
            starter=g.nth_starter(seats, first, self.begun + 1),
            draw_starter=to_draw,
            rules=self.rule_set or RULE_SETS[self.rules],
            penalty_tiles=(self.rule_set or RULE_SETS[self.rules]).penalty_tiles,
            move_time_s=float(self.move_time_s),
            warn_s=min(base.warn_s, self.move_time_s - 1),
        )

    def json(self) -> dict[str, Any]:
        """As the hub sends it, plus ``begun`` (for the state file and the journal header)."""
        wire = RoundLineup(self.tournament, self.round_no, self.games, self.rules,
                           self.move_time_s, self.seats, self.players, self.names,
                           self.first_starter, self.rule_set, self.needs)  # fmt: skip
        kept = {**wire.json(), "begun": self.begun}
        if self.drawn is not None:
            kept["drawn"] = self.drawn
        return kept


def parse(args: Any, table_seats: Sequence[str]) -> Lineup:
    """The lineup in ``args`` (the hub's, or the state file's with ``begun`` and ``drawn``)
    for a table with ``table_seats``; LineupError names what is bad."""
    wire = RoundLineup.decode(args, table_seats, also=("begun", "drawn"))
    begun = whole(args, "begun", 0, MAX_GAMES) if "begun" in args else 0
    drawn = args.get("drawn")
    if drawn is not None and (wire.first_starter != "draw" or drawn not in wire.seats):
        why = f"a seat of {', '.join(wire.seats)}, for a drawn starter only"
        raise LineupError("args.drawn", why)
    names = tuple((seat, name[:MAX_NAME]) for seat, name in wire.names)
    return Lineup(wire.tournament, wire.round_no, wire.games, wire.rules, wire.move_time_s,
                  wire.seats, wire.players, names, begun, wire.first_starter, drawn,
                  wire.rule_set, wire.needs)  # fmt: skip
