"""Corrections: the judge changes a result only by adding an event, never by editing it.

A table's result is kept exactly as the table signed it. What counts in the standings is
worked out again each time from that result and the corrections made to it, in the order they
were made:

* ``rack`` — a seat's rack sum was entered wrongly: the game is scored again from the racks.
* ``could_open`` — a seat that never opened could have (000 n): it loses 200, not 100, if
  someone went out (unless it announced "Wyłożę się w następnej rundzie"; then ``false``).
* ``exclude`` — the game does not count (``true``), or counts again (``false``).
* ``player`` — a seat's player was not known to the table (it played without the round's
  lineup): the judge names the player's id.
* ``accept`` — the judge settled a result that was held out: a conflict (two results for one
  game: the accepted one takes the game's slot), a points mismatch (the table's points are not
  what its racks make) or another rule set than the tournament's. It counts, scored by the hub
  from its racks under the tournament's rule set.
* ``assign`` — a result that belongs to no slot of a round (a table that played without the
  round's lineup, say) is put in its slot: round, table, the game within the round, and who
  sat at each seat.

Every ``body`` here is a stored result as the office reads it: its seats' players are ids
(int) or None (``amend``).

Points are always the tournament's rule set's, from the racks (``klik.core.scoring``): neither
a table that added wrongly nor one set to other rules decides the standings. A result with any
correction carries a mark.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from klik.core.scoring import Ending, Result, RuleSet, SeatRack, score
from klik.errors import KlikError
from klik.rules import RULE_SETS, canonical
from klik.words import pwords, words

MAX_REASON = 500


class Kind(Enum):
    RACK = "rack"
    COULD_OPEN = "could_open"
    PLAYER = "player"
    EXCLUDE = "exclude"
    ACCEPT = "accept"
    ASSIGN = "assign"


SEATED = (Kind.RACK, Kind.COULD_OPEN, Kind.PLAYER)  # the kinds that name a seat
MAX_ROUND, MAX_TABLE, MAX_GAME = 10_000, 999, 9


class CorrectionError(KlikError, ValueError):
    """A correction that cannot be made; the message names the field and what is allowed."""


@dataclass(frozen=True, slots=True)
class Assign:
    """Where the judge puts a result: round, table, the game within the round, who sat where."""

    round_no: int
    table: int
    game: int
    players: tuple[tuple[str, int], ...]  # (seat, player id) in seat order

    def json(self) -> dict[str, Any]:
        return {
            "round": self.round_no,
            "table": self.table,
            "game": self.game,
            "players": dict(self.players),
        }


@dataclass(frozen=True, slots=True)
class Correction:
    kind: Kind
    seat: str | None  # RACK, COULD_OPEN, PLAYER: the seat; else None
    value: int | bool  # RACK: the rack sum; PLAYER: the player's id; else true or false
    reason: str
    by: str = "judge"
    at: str = ""  # the hub's clock, ISO 8601 UTC
    assign: Assign | None = None  # ASSIGN only


@dataclass(frozen=True, slots=True)
class Amended:
    """A stored result after the judge's corrections, before anything is scored."""

    players: dict[str, int | None]  # seat -> player id; None: the table named none
    racks: dict[str, SeatRack]
    judged: bool  # the judge named a seat's player (``player`` or ``assign``)
    assign: Assign | None  # the latest ``assign``
    excluded: bool
    accepted: bool


@dataclass(frozen=True, slots=True)
class Counted:
    """What one result is worth now."""

    counts: bool
    # why it does not count: "excluded", "players", "not_in_round", "conflict",
    # "impossible", "rules" or "mismatch"; None: it counts
    held: str | None
    corrected: bool
    players: Mapping[str, int | None]  # seat -> player id; None: the table named none
    rack: Mapping[str, int]
    small: Mapping[str, int]
    big: Mapping[str, int]
    winners: tuple[str, ...]


def check(
    request: Mapping[str, Any],
    body: Mapping[str, Any],
    rules: RuleSet,
    earlier: Sequence[Correction] = (),
) -> Correction:
    """A correction from the judge's ``request`` (kind, seat, value, reason; for ``assign``
    round, table, game and players), checked against the stored result ``body`` after the
    ``earlier`` corrections, for a tournament played under ``rules``."""
    kind, seat, value, reason = (request.get(k) for k in ("kind", "seat", "value", "reason"))
    seats = list(body["seats"])
    kinds = ", ".join(k.value for k in Kind)
    try:
        what = Kind(kind)
    except ValueError:
        raise CorrectionError(words("kind: allowed are {kinds}", kinds=kinds)) from None
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise CorrectionError(words("reason: say why, in 1 to {most} characters", most=MAX_REASON))
    if what in SEATED:
        if seat not in seats:
            raise CorrectionError(words("seat: allowed are {seats}", seats=", ".join(seats)))
    elif seat is not None:
        raise CorrectionError(words("seat: {kind} is for the whole game: null", kind=what.value))
    assign = None
    if what is Kind.RACK:
        if type(value) is not int or not 0 <= value <= rules.max_rack:
            raise CorrectionError(words("value: a rack sum from 0 to {most}", most=rules.max_rack))
        if body["ending"] == Ending.RUMMIKUB.value and seat in body["winners"]:
            raise CorrectionError(
                words("seat: {seat} went out (Rummikub): its rack is 0", seat=seat)
            )
    elif what is Kind.PLAYER:
        if type(value) is not int or value < 1:
            raise CorrectionError(words("value: the player's id (start number), 1 or more"))
        now = amend(body, earlier).players
        if twice := [s for s, p in now.items() if s != seat and p == value]:
            raise CorrectionError(
                words(
                    "value: player {player} already sits at seat {seat} of this game",
                    player=value,
                    seat=twice[0],
                )
            )
    elif what is Kind.ASSIGN:
        assign = _assign(request, seats)
        value = True
    elif type(value) is not bool:
        raise CorrectionError(words("value: true or false"))
    assert isinstance(value, int)  # bool is an int: RACK and PLAYER checked it is a number
    return Correction(what, seat, value, reason.strip(), assign=assign)


def _assign(request: Mapping[str, Any], seats: Sequence[str]) -> Assign:
    numbers = {}
    for key, high in (("round", MAX_ROUND), ("table", MAX_TABLE), ("game", MAX_GAME)):
        number = request.get(key)
        if type(number) is not int or not 1 <= number <= high:
            label = pwords("field", key)  # the glossary's word for it: Runda, Stół, Gra
            raise CorrectionError(
                words("{key}: a whole number from 1 to {most}", key=label, most=high)
            )
        numbers[key] = number
    players = request.get("players")
    allowed = words(
        "players: each of the seats {seats} with a player's id, 1 or more", seats=", ".join(seats)
    )
    if not isinstance(players, Mapping) or set(players) != set(seats):
        raise CorrectionError(allowed)
    if not all(type(p) is int and p >= 1 for p in players.values()):
        raise CorrectionError(allowed)
    ids = [players[s] for s in seats]
    if len(set(ids)) != len(ids):
        raise CorrectionError(words("players: a player sits at two seats"))
    return Assign(
        numbers["round"],
        numbers["table"],
        numbers["game"],
        tuple((s, players[s]) for s in seats),
    )


def amend(body: Mapping[str, Any], corrections: Sequence[Correction]) -> Amended:
    """``body`` (a stored result) after ``corrections``, oldest first.

    ``body`` is as the hub reads a table's result: each seat's ``player`` an id (int), or None
    where the table named none or named it as no id is written. The wire carries ids as text;
    the office reads them (``office.counting.readable``), so the core never parses one.
    """
    seats = body["seats"]
    racks = {s: SeatRack(e["rack"], opened=e["opened"]) for s, e in seats.items()}
    players: dict[str, int | None] = {s: e.get("player") for s, e in seats.items()}
    excluded = accepted = judged = False
    assign = None
    for c in corrections:
        if c.kind is Kind.RACK and c.seat in racks:
            old = racks[c.seat]
            racks[c.seat] = SeatRack(int(c.value), old.opened, old.could_open, old.announced)
        elif c.kind is Kind.COULD_OPEN and c.seat in racks:
            old = racks[c.seat]
            racks[c.seat] = SeatRack(old.rack, old.opened, bool(c.value), old.announced)
        elif c.kind is Kind.PLAYER and c.seat in players:
            players[c.seat] = int(c.value)
            judged = True
        elif c.kind is Kind.ASSIGN and c.assign is not None:
            assign = c.assign
            players.update((s, p) for s, p in c.assign.players if s in players)
            judged = True
        elif c.kind is Kind.EXCLUDE:
            excluded = bool(c.value)
        elif c.kind is Kind.ACCEPT:
            accepted = bool(c.value)
    return Amended(players, racks, judged, assign, excluded, accepted)


def counted(
    body: Mapping[str, Any],
    held: str | None,
    corrections: Sequence[Correction],
    enrolled: Collection[int],
    *,
    rules: RuleSet | None = None,
    slot_held: str | None = None,
) -> Counted:
    """``body`` (a stored result) as it counts after ``corrections``, oldest first.

    ``rules`` is the tournament's rule set (by default the body's own): it scores the racks,
    and a result whose table played under another is held (``"rules"``) until the judge
    accepts it. ``held`` is why the hub holds it out as received ("conflict", "mismatch") or
    None; ``slot_held`` why the round's slots do ("not_in_round", "conflict"; ``slots``). A
    seat whose player is not ``enrolled`` holds it out too ("players") until corrected, and
    so do racks no game can end with ("impossible", ``impossible``) until the judge corrects
    a rack: the judge's ``accept`` does not count it, since its points would be made up.
    """
    rules = RULE_SETS[body["rules"]] if rules is None else rules
    now = amend(body, corrections)
    ending = Ending(body["ending"])
    winner = body["winners"][0] if ending is Ending.RUMMIKUB else None
    result = score(rules, ending, now.racks, winner)
    unknown = any(p not in enrolled for p in now.players.values())
    # Another set, or another version of it (a judge's file changed since): held, as the
    # racks may score otherwise under the table's own.
    played = (canonical(body["rules"]), body.get("rules_version", 1))
    own = "rules" if played != (rules.name, rules.version) else held
    reason = (
        "excluded" if now.excluded
        else "players" if unknown
        else slot_held if slot_held is not None
        else "impossible" if impossible(ending, now.racks, result)
        else None if now.accepted
        else own
    )  # fmt: skip
    return Counted(
        counts=reason is None,
        held=reason,
        corrected=bool(corrections),
        players=now.players,
        rack=dict(result.rack),
        small=dict(result.small),
        big=dict(result.big),
        winners=tuple(result.winners),
    )


def impossible(ending: Ending, racks: Mapping[str, SeatRack], result: Result) -> bool:
    """Whether ``racks`` (after the judge's corrections) are ones no game ends with, scored as
    ``result``: after a Rummikub a seat that opened and did not go out with 0 on its rack
    (every tile counts at least 1 and only the winner's rack is empty; a seat that never
    opened is charged its penalty, its rack not asked, so its 0 says nothing), or winners
    that are not the seats in first place. Issue 37: a table took three such 0s and sent one
    winner with every seat in place 1 and a big point each.

    An exhausted game's 0 is possible as a table counts it (``klik.core.game._scoring``):
    that seat has the lowest sum, so it is a winner and its place agrees.
    """
    if ending is Ending.RUMMIKUB:
        (winner,) = result.winners
        if any(s != winner and r.opened and r.rack == 0 for s, r in racks.items()):
            return True
    first = {s for s, place in result.places.items() if place == 1}
    return first != set(result.winners)
