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
  game) or a points mismatch (the table's points are not what its racks make). It counts,
  scored by the hub from its racks.

Points are always the rule set's, from the racks (``klik.core.scoring``): a table that added
wrongly never decides the standings. A result with any correction carries a mark.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from klik.core.scoring import RULE_SETS, Ending, RuleSet, SeatRack, score

MAX_REASON = 500


class Kind(Enum):
    RACK = "rack"
    COULD_OPEN = "could_open"
    PLAYER = "player"
    EXCLUDE = "exclude"
    ACCEPT = "accept"


class CorrectionError(ValueError):
    """A correction that cannot be made; the message names the field and what is allowed."""


@dataclass(frozen=True, slots=True)
class Correction:
    kind: Kind
    seat: str | None  # RACK, COULD_OPEN, PLAYER: the seat; else None
    value: int | bool  # RACK: the rack sum; PLAYER: the player's id; else true or false
    reason: str
    by: str = "judge"
    at: str = ""  # the hub's clock, ISO 8601 UTC


@dataclass(frozen=True, slots=True)
class Counted:
    """What one result is worth now."""

    counts: bool
    held: str | None  # why it does not count: "conflict", "mismatch", "players", "excluded"
    corrected: bool
    players: Mapping[str, str | None]  # seat -> player id
    rack: Mapping[str, int]
    small: Mapping[str, int]
    big: Mapping[str, int]
    winners: tuple[str, ...]


def check(kind: Any, seat: Any, value: Any, reason: Any, body: Mapping[str, Any]) -> Correction:
    """A correction from the judge's request, checked against the stored result ``body``."""
    seats = list(body["seats"])
    rules: RuleSet = RULE_SETS[body["rules"]]
    kinds = ", ".join(k.value for k in Kind)
    try:
        what = Kind(kind)
    except ValueError:
        raise CorrectionError(f"kind: allowed are {kinds}") from None
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise CorrectionError(f"reason: say why, in 1 to {MAX_REASON} characters")
    if what in (Kind.RACK, Kind.COULD_OPEN, Kind.PLAYER):
        if seat not in seats:
            raise CorrectionError(f"seat: allowed are {', '.join(seats)}")
    elif seat is not None:
        raise CorrectionError(f"seat: {what.value} is for the whole game: null")
    if what is Kind.RACK:
        if type(value) is not int or not 0 <= value <= rules.max_rack:
            raise CorrectionError(f"value: a rack sum from 0 to {rules.max_rack}")
        if body["ending"] == Ending.RUMMIKUB.value and seat in body["winners"]:
            raise CorrectionError(f"seat: {seat} went out (Rummikub): its rack is 0")
    elif what is Kind.PLAYER:
        if type(value) is not int or value < 1:
            raise CorrectionError("value: the player's id (start number), 1 or more")
    elif type(value) is not bool:
        raise CorrectionError("value: true or false")
    return Correction(what, seat, value, reason.strip())


def counted(
    body: Mapping[str, Any],
    held: str | None,
    corrections: Sequence[Correction],
    enrolled: Collection[str],
) -> Counted:
    """``body`` (a stored result) as it counts after ``corrections``, oldest first.

    ``held`` is why the hub holds it out as received ("conflict", "mismatch") or None; a
    seat whose player is not ``enrolled`` holds it out too ("players") until corrected.
    """
    rules = RULE_SETS[body["rules"]]
    seats = body["seats"]
    racks = {s: SeatRack(e["rack"], opened=e["opened"]) for s, e in seats.items()}
    players: dict[str, str | None] = {s: e.get("player") for s, e in seats.items()}
    excluded = accepted = False
    for c in corrections:
        if c.kind is Kind.RACK and c.seat in racks:
            old = racks[c.seat]
            racks[c.seat] = SeatRack(int(c.value), old.opened, old.could_open, old.announced)
        elif c.kind is Kind.COULD_OPEN and c.seat in racks:
            old = racks[c.seat]
            racks[c.seat] = SeatRack(old.rack, old.opened, bool(c.value), old.announced)
        elif c.kind is Kind.PLAYER and c.seat in players:
            players[c.seat] = str(c.value)
        elif c.kind is Kind.EXCLUDE:
            excluded = bool(c.value)
        elif c.kind is Kind.ACCEPT:
            accepted = bool(c.value)
    ending = Ending(body["ending"])
    winner = body["winners"][0] if ending is Ending.RUMMIKUB else None
    result = score(rules, ending, racks, winner)
    unknown = any(p not in enrolled for p in players.values())
    reason = "excluded" if excluded else "players" if unknown else None if accepted else held
    return Counted(
        counts=reason is None,
        held=reason,
        corrected=bool(corrections),
        players=players,
        rack=dict(result.rack),
        small=dict(result.small),
        big=dict(result.big),
        winners=tuple(result.winners),
    )
