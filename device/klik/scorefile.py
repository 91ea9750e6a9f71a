"""The judge's score sheet for ``klik score``: JSON in, small and big points out.

Input::

    {"rules": "tournament", "ending": "rummikub", "winner": "B",
     "seats": {"A": {"rack": 25, "opened": true, "could_open": false, "announced": false},
               "B": {}, "C": {"rack": 17}}}

``winner`` is for a Rummikub ending only, and its rack may be left out, as may the rack of a
seat that has not opened (``"opened": false``) when the ending charges it the penalty. ``opened``
defaults to true, ``could_open`` and ``announced`` to false. Every mistake is reported as
one line naming the field, e.g. ``seats.A.rack: expected a whole number ≥ 0, got -3``.
"""

from __future__ import annotations

import json
from typing import Any

from klik.core.game import SEATS
from klik.core.scoring import RULE_SETS, Ending, Result, SeatRack, score
from klik.errors import InputError
from klik.suggest import did_you_mean

TOP_KEYS = ("rules", "ending", "winner", "seats")
SEAT_KEYS = ("rack", "opened", "could_open", "announced")


def parse(text: str) -> tuple[str, Ending, dict[str, SeatRack], str | None]:
    """Check a score sheet; returns (rule set name, ending, seats, winner)."""
    try:
        sheet = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"input is not JSON: {error}") from None
    if not isinstance(sheet, dict):
        raise InputError(f"input: expected a JSON object, got {_kind(sheet)}")
    _known(sheet, TOP_KEYS, "")
    rules = _required(sheet, "rules", "")
    if rules not in RULE_SETS:
        raise InputError(f"rules: unknown rule set {rules!r}; allowed: {', '.join(RULE_SETS)}")
    ending_name = _required(sheet, "ending", "")
    endings = [e.value for e in Ending]
    if ending_name not in endings:
        raise InputError(f"ending: unknown ending {ending_name!r}; allowed: {', '.join(endings)}")
    ending = Ending(ending_name)
    table = _required(sheet, "seats", "")
    if not isinstance(table, dict):
        raise InputError(f"seats: expected an object keyed by seat letter, got {_kind(table)}")
    for letter in table:
        if letter not in SEATS:
            raise InputError(f"seats.{letter}: not a seat; seats are lettered A, B, C, D")
    if not 2 <= len(table) <= 4:
        raise InputError(f"seats: a table has 2 to 4 seats, got {len(table)}")
    winner = sheet.get("winner")
    if ending is Ending.RUMMIKUB:
        if winner is None:
            raise InputError("winner: a Rummikub ending needs the seat that went out")
        if winner not in table:
            seated = ", ".join(sorted(table))
            raise InputError(f"winner: {winner!r} is not seated; seated: {seated}")
    elif winner is not None:
        raise InputError("winner: only a Rummikub ending has one; the lowest rack wins")
    # A seat that never opened is charged its penalty instead of its rack where the rule set
    # says so (a Rummikub ending): its rack is then not needed.
    penalised = ending is Ending.RUMMIKUB or RULE_SETS[rules].penalties_when_exhausted
    seats = {
        letter: _seat(
            table[letter],
            f"seats.{letter}",
            went_out=letter == winner,
            penalised=penalised,
            top=RULE_SETS[rules].max_rack,
        )
        for letter in sorted(table)
    }
    return rules, ending, seats, winner


def _seat(entry: Any, where: str, *, went_out: bool, penalised: bool, top: int) -> SeatRack:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object, got {_kind(entry)}")
    _known(entry, SEAT_KEYS, f"{where}.")
    flags = {}
    for key, default in (("opened", True), ("could_open", False), ("announced", False)):
        value = entry.get(key, default)
        if not isinstance(value, bool):
            raise InputError(f"{where}.{key}: expected true or false, got {json.dumps(value)}")
        flags[key] = value
    if "rack" not in entry and not went_out and (flags["opened"] or not penalised):
        why = "" if flags["opened"] else " (a seat that has not opened is scored by its rack here)"
        raise InputError(f"{where}.rack: missing; the sum of the tiles left on the rack{why}")
    rack = entry.get("rack", 0)
    if isinstance(rack, bool) or not isinstance(rack, int) or not 0 <= rack <= top:
        raise InputError(
            f"{where}.rack: expected a whole number from 0 to {top} (every tile of the set), "
            f"got {json.dumps(rack)}"
        )
    if went_out and rack != 0:
        raise InputError(f"{where}.rack: the winner of a Rummikub has no tiles left, got {rack}")
    return SeatRack(rack=rack, **flags)


def _required(obj: dict[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise InputError(f"{where}{key}: missing")
    return obj[key]


def _known(obj: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in obj:
        if key not in allowed:
            close = did_you_mean(key, allowed, repr)
            hint = f" ({close})" if close else ""
            raise InputError(f"{where}{key}: unknown field{hint}; allowed: {', '.join(allowed)}")


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false"}.get(
        type(value), "null" if value is None else "a number"
    )


def score_sheet(text: str) -> Result:
    rules, ending, seats, winner = parse(text)
    return score(RULE_SETS[rules], ending, seats, winner)


def output(result: Result) -> dict[str, Any]:
    """What ``klik score`` prints: small and big points and the winners, keyed by seat."""
    return {"small": dict(result.small), "big": dict(result.big), "winners": list(result.winners)}
