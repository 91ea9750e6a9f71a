"""The ``game`` command's args: a tournament round's lineup at one table, as the hub builds it
(``RoundLineup.json``) and the table checks it (``RoundLineup.decode``), in one place.

Who sits where (each seat's player id in the tournament and name), the rule set, the move
time, how many games the round has at the table, and who starts its first game: seat A, or
(``"first_starter": "draw"``, 001: the highest tile starts) the seat whose player holds their
button first. A table of 3 sits at A, B and C. A seat whose player has needs (issue 40) carries
them as words: ``"needs": ["large", "quiet", "vibration"]`` (the large screen, no buzzer at the
table, the seat's vibration motor), only where there is one.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from klik.core.limits import GAME
from klik.core.scoring import RuleSet
from klik.link.protocol.envelope import ProtocolError
from klik.rules import RULE_SETS, RulesError, from_wire, to_wire
from klik.validate import OBJECT, Choice, Number, Text, Voice, check, known

Json = dict[str, Any]
MAX_TEXT = 200  # the protocol's text fields
MAX_GAMES = 9  # games of a round at one table
MAX_ROUND = 10_000
NEEDS = ("large", "quiet", "vibration")  # a seat's needs the table sets up (issue 40)
FIRST_STARTERS = ("A", "draw")  # who starts the round's first game: seat A, or drawn (001)
FIELDS = ("tournament", "round", "games", "rules", "move_time_s", "seats", "first_starter",
          "rule_set")  # fmt: skip
SEAT_KEYS = {"player", "name", "needs"}
#: How a lineup is refused: the protocol's error, which names the field itself.
VOICE = Voice(
    ProtocolError,
    wrong="must be {allowed}",
    unknown="unknown; allowed: {allowed}",
    choice="allowed are {allowed}",
)


@dataclass(frozen=True, slots=True)
class RoundLineup:
    """One table's lineup for a round."""

    tournament: str
    round_no: int
    games: int
    rules: str
    move_time_s: int
    seats: tuple[str, ...]  # in seat order: A, B[, C[, D]]
    players: tuple[tuple[str, str], ...]  # (seat, player id)
    names: tuple[tuple[str, str], ...]  # (seat, name)
    first_starter: str = "A"
    #: The set itself, for one the table may not know (a judge's own on the hub): sent with
    #: its rules only (``klik.rules.to_wire``), so a lineup still fits a serial frame.
    rule_set: RuleSet | None = None
    #: Each seat's needs, as words of ``NEEDS`` in that order; a seat without any is left out.
    needs: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def needs_of(self, seat: str) -> tuple[str, ...]:
        """``seat``'s needs (none for a seat not listed)."""
        return dict(self.needs).get(seat, ())

    def json(self) -> Json:
        """The args as the hub sends them; ``first_starter`` only when drawn, as an older
        table knows no such key."""
        names, players = dict(self.names), dict(self.players)
        args: Json = {
            "tournament": self.tournament,
            "round": self.round_no,
            "games": self.games,
            "rules": self.rules,
            "move_time_s": self.move_time_s,
            "seats": {s: self._seat(s, players[s], names[s]) for s in self.seats},
        }
        if self.first_starter != "A":
            args["first_starter"] = self.first_starter
        if self.rule_set is not None:
            args["rule_set"] = to_wire(self.rule_set)
        return args

    def _seat(self, seat: str, player: str, name: str) -> Json:
        entry: Json = {"player": player, "name": name}
        if needs := self.needs_of(seat):
            entry["needs"] = list(needs)
        return entry

    @property
    def played(self) -> RuleSet:
        """The rule set the round is played under: the one sent, or the known one named."""
        return self.rule_set if self.rule_set is not None else RULE_SETS[self.rules]

    @classmethod
    def decode(
        cls, args: Any, table_seats: Sequence[str], *, also: Collection[str] = ()
    ) -> RoundLineup:
        """The lineup in ``args`` for a table with ``table_seats``; ProtocolError naming the
        first field that is wrong. ``also``: more keys the caller reads itself (the table's
        own ``begun`` and ``drawn`` in its lineup file)."""
        check(args, OBJECT, VOICE, "args")
        known(sorted(args), sorted({*FIELDS, *also}), VOICE, "args")
        tournament = check(args.get("tournament"), Text(1, MAX_TEXT), VOICE, "args.tournament")
        round_no = whole(args, "round", 1, MAX_ROUND)
        games = whole(args, "games", 1, MAX_GAMES)
        rule_set = _rule_set(args)
        if rule_set is None:
            rules = check(args.get("rules"), Choice(RULE_SETS), VOICE, "args.rules")
        elif args.get("rules") != rule_set.name:
            raise ProtocolError("args.rules", f"must be {rule_set.name!r}, args.rule_set's name")
        else:
            rules = rule_set.name
        move_time = GAME["move_time_s"]
        move_time_s = whole(args, "move_time_s", int(move_time.lo), int(move_time.hi))
        order, players, names, needs = _seats(args.get("seats"), table_seats)
        first_starter = args.get("first_starter", "A")
        check(first_starter, Choice(FIRST_STARTERS), VOICE, "args.first_starter")
        return cls(tournament, round_no, games, rules, move_time_s, order, players, names,
                   first_starter, rule_set, needs)  # fmt: skip


def _rule_set(args: Mapping[str, Any]) -> RuleSet | None:
    """``args.rule_set``, checked as a rule set file is (``klik.rules``), or None."""
    if "rule_set" not in args:
        return None
    try:
        return from_wire(args["rule_set"])
    except RulesError as error:
        raise ProtocolError("args.rule_set", str(error)) from None


Seated = tuple[tuple[str, str], ...]  # (seat, player id) or (seat, name)


def _seats(
    seats: Any, table_seats: Sequence[str]
) -> tuple[tuple[str, ...], Seated, Seated, tuple[tuple[str, tuple[str, ...]], ...]]:
    if not isinstance(seats, Mapping) or not 2 <= len(seats) <= len(table_seats):
        raise ProtocolError("args.seats", f"must map 2 to {len(table_seats)} seats to players")
    order = tuple(table_seats[: len(seats)])
    if set(seats) != set(order):
        # A round's table of 3 sits at A, B and C: the seats the table's journal knows.
        raise ProtocolError("args.seats", f"must be {', '.join(order)} for {len(seats)} players")
    players, names, needs = [], [], []
    for seat in order:
        entry = seats[seat]
        where = f"args.seats.{seat}"
        if not isinstance(entry, Mapping) or not {"player", "name"} <= set(entry) <= SEAT_KEYS:
            raise ProtocolError(where, 'must be {"player": id, "name": name[, "needs": [...]]}')
        player = check(entry["player"], Text(1, MAX_TEXT), VOICE, f"{where}.player")
        name = check(entry["name"], Text(0, MAX_TEXT), VOICE, f"{where}.name")
        players.append((seat, player))
        names.append((seat, name))
        if "needs" in entry:
            needs.append((seat, _needs(entry["needs"], f"{where}.needs")))
    ids = [p for _, p in players]
    if len(set(ids)) != len(ids):
        raise ProtocolError("args.seats", "a player sits twice")
    return order, tuple(players), tuple(names), tuple((s, n) for s, n in needs if n)


def _needs(words: Any, where: str) -> tuple[str, ...]:
    """A seat's needs: a list of distinct words of ``NEEDS``, put in that order."""
    if not isinstance(words, list) or len(words) > len(NEEDS):
        raise ProtocolError(where, f"must be a list of {', '.join(NEEDS)}")
    for i, word in enumerate(words):
        check(word, Choice(NEEDS), VOICE, f"{where}[{i}]")
    if len(set(words)) != len(words):
        raise ProtocolError(where, "names a need twice")
    return tuple(n for n in NEEDS if n in words)


def whole(args: Mapping[str, Any], key: str, low: int, high: int) -> int:
    """``args[key]``, a whole number from ``low`` to ``high``; ProtocolError naming it."""
    value: int = check(args.get(key), Number(low, high), VOICE, f"args.{key}")
    return value
