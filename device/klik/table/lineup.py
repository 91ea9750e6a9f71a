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

``parse`` checks everything the hub sent; a bad lineup is refused in one line and the table
goes on as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from klik.core import game as g
from klik.core.limits import GAME
from klik.core.scoring import RULE_SETS

MAX_NAME = 40  # characters of a name kept for the screens (as the ``players`` command)
MAX_TEXT = 200  # the protocol's text fields
MAX_GAMES = 9
FIRST_STARTERS = ("A", "draw")  # who starts the round's first game: seat A, or drawn (001)


class LineupError(ValueError):
    """A lineup the table cannot play; the message names the field."""


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

    @property
    def spent(self) -> bool:
        return self.begun >= self.games

    def settings(self, base: g.Settings) -> g.Settings:
        """The next game's settings: the table's own, with this round's seats, rules, move
        time and starter (seat A, or the drawn seat, for the round's first game, then the next
        seat each game; a starter still to draw is asked for before the first game)."""
        seats = self.seats
        to_draw = self.first_starter == "draw" and self.drawn is None and self.begun == 0
        first = seats.index(self.drawn) if self.drawn in seats else 0
        return replace(
            base,
            seats=seats,
            starter=seats[(first + self.begun) % len(seats)],
            draw_starter=to_draw,
            rules=RULE_SETS[self.rules],
            move_time_s=float(self.move_time_s),
            warn_s=min(base.warn_s, self.move_time_s - 1),
        )

    def json(self) -> dict[str, Any]:
        """As the hub sends it, plus ``begun`` (for the state file and the journal header)."""
        names, players = dict(self.names), dict(self.players)
        kept: dict[str, Any] = {
            "tournament": self.tournament,
            "round": self.round_no,
            "games": self.games,
            "rules": self.rules,
            "move_time_s": self.move_time_s,
            "seats": {s: {"player": players[s], "name": names[s]} for s in self.seats},
            "begun": self.begun,
        }
        if self.first_starter != "A":
            kept["first_starter"] = self.first_starter
        if self.drawn is not None:
            kept["drawn"] = self.drawn
        return kept


def parse(args: Any, table_seats: Sequence[str]) -> Lineup:
    """The lineup in ``args`` for a table with ``table_seats``; LineupError names what is bad."""
    if not isinstance(args, Mapping):
        raise LineupError("args: must be an object")
    known = {
        "tournament", "round", "games", "rules", "move_time_s", "seats", "begun",
        "first_starter", "drawn",
    }  # fmt: skip
    if unknown := sorted(set(args) - known):
        raise LineupError(f"args.{unknown[0]}: unknown; allowed: {', '.join(sorted(known))}")
    tournament = args.get("tournament")
    if not isinstance(tournament, str) or not 1 <= len(tournament) <= MAX_TEXT:
        raise LineupError(f"args.tournament: must be text of 1 to {MAX_TEXT} characters")
    round_no = _whole(args, "round", 1, 10_000)
    games = _whole(args, "games", 1, MAX_GAMES)
    begun = _whole(args, "begun", 0, MAX_GAMES) if "begun" in args else 0
    rules = args.get("rules")
    if not isinstance(rules, str) or rules not in RULE_SETS:
        raise LineupError(f"args.rules: allowed are {', '.join(RULE_SETS)}")
    move_time = GAME["move_time_s"]
    move_time_s = _whole(args, "move_time_s", int(move_time.lo), int(move_time.hi))
    seats = args.get("seats")
    if not isinstance(seats, Mapping) or not 2 <= len(seats) <= len(table_seats):
        raise LineupError(f"args.seats: must map 2 to {len(table_seats)} seats to players")
    order = tuple(table_seats[: len(seats)])
    if set(seats) != set(order):
        # A round's table of 3 sits at A, B and C: the seats the table's journal knows.
        raise LineupError(f"args.seats: must be {', '.join(order)} for {len(seats)} players")
    players, names = [], []
    for seat in order:
        entry = seats[seat]
        where = f"args.seats.{seat}"
        if not isinstance(entry, Mapping) or set(entry) != {"player", "name"}:
            raise LineupError(f'{where}: must be {{"player": id, "name": name}}')
        player, name = entry["player"], entry["name"]
        if not isinstance(player, str) or not 1 <= len(player) <= MAX_TEXT:
            raise LineupError(f"{where}.player: must be text of 1 to {MAX_TEXT} characters")
        if not isinstance(name, str) or len(name) > MAX_TEXT:
            raise LineupError(f"{where}.name: must be text of at most {MAX_TEXT} characters")
        players.append((seat, player))
        names.append((seat, name[:MAX_NAME]))
    ids = [p for _, p in players]
    if len(set(ids)) != len(ids):
        raise LineupError("args.seats: a player sits twice")
    first_starter = args.get("first_starter", "A")
    if first_starter not in FIRST_STARTERS:
        raise LineupError(f"args.first_starter: allowed are {', '.join(FIRST_STARTERS)}")
    drawn = args.get("drawn")
    if drawn is not None and (first_starter != "draw" or drawn not in order):
        raise LineupError(f"args.drawn: a seat of {', '.join(order)}, for a drawn starter only")
    return Lineup(
        tournament, round_no, games, rules, move_time_s, order, tuple(players), tuple(names),
        begun, first_starter, drawn,
    )  # fmt: skip


def _whole(args: Mapping[str, Any], key: str, low: int, high: int) -> int:
    value = args.get(key)
    if type(value) is not int or not low <= value <= high:
        raise LineupError(f"args.{key}: must be a whole number from {low} to {high}")
    return value
