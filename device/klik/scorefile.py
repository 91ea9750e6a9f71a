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
from klik.core.scoring import Ending, Result, SeatRack, score
from klik.errors import InputError
from klik.rules import RULE_SETS
from klik.validate import OBJECT, TRUE_FALSE, Choice, Kind, Number, Voice, check, known, take

TOP_KEYS = ("rules", "ending", "winner", "seats")
SEAT_KEYS = ("rack", "opened", "could_open", "announced")
#: How a score sheet is refused: the field's path, then what it expected and what it got.
VOICE = Voice(
    lambda at, line: InputError(line),
    wrong="{at}: expected {allowed}, got {value}",
    kind="{at}: expected {allowed}, got {got}",
    unknown="{at}: unknown field{hint}; allowed: {allowed}",
    word=repr,
    shown=json.dumps,
    kinds={
        Kind.TABLE: "an object",
        Kind.ARRAY: "a list",
        Kind.STRING: "a string",
        Kind.BOOLEAN: "true/false",
        Kind.NULL: "null",
        Kind.INTEGER: "a number",
        Kind.FLOAT: "a number",
    },
)
UNKNOWN_RULES = "{at}: unknown rule set {value}; allowed: {allowed}"
UNKNOWN_ENDING = "{at}: unknown ending {value}; allowed: {allowed}"
NOT_A_SEAT = "{at}: not a seat; seats are lettered {allowed}"
NOT_SEATED = "{at}: {value} is not seated; seated: {allowed}"


def parse(text: str) -> tuple[str, Ending, dict[str, SeatRack], str | None]:
    """Check a score sheet; returns (rule set name, ending, seats, winner)."""
    try:
        sheet = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"input is not JSON: {error}") from None
    check(sheet, OBJECT, VOICE, "input", words="a JSON object")
    known(sheet, TOP_KEYS, VOICE)
    rules = take(sheet, "rules", Choice(RULE_SETS), VOICE, says=UNKNOWN_RULES, shown=repr)
    endings = Choice([e.value for e in Ending])
    ending = Ending(take(sheet, "ending", endings, VOICE, says=UNKNOWN_ENDING, shown=repr))
    table = take(sheet, "seats", OBJECT, VOICE, words="an object keyed by seat letter")
    for letter in table:
        check(letter, Choice(SEATS), VOICE, f"seats.{letter}", says=NOT_A_SEAT)
    if not 2 <= len(table) <= 4:
        raise InputError(f"seats: a table has 2 to 4 seats, got {len(table)}")
    winner = sheet.get("winner")
    if ending is Ending.RUMMIKUB:
        if winner is None:
            raise InputError("winner: a Rummikub ending needs the seat that went out")
        check(winner, Choice(sorted(table)), VOICE, "winner", says=NOT_SEATED, shown=repr)
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
    check(entry, OBJECT, VOICE, where)
    known(entry, SEAT_KEYS, VOICE, where)
    flags = {}
    for key, default in (("opened", True), ("could_open", False), ("announced", False)):
        value = entry.get(key, default)
        flags[key] = check(value, TRUE_FALSE, VOICE, f"{where}.{key}", says=VOICE.wrong)
    if "rack" not in entry and not went_out and (flags["opened"] or not penalised):
        why = "" if flags["opened"] else " (a seat that has not opened is scored by its rack here)"
        raise InputError(f"{where}.rack: missing; the sum of the tiles left on the rack{why}")
    tiles = Number(0, top, note=" (every tile of the set)")
    rack = check(entry.get("rack", 0), tiles, VOICE, f"{where}.rack")
    if went_out and rack != 0:
        raise InputError(f"{where}.rack: the winner of a Rummikub has no tiles left, got {rack}")
    return SeatRack(rack=rack, **flags)


def score_sheet(text: str) -> Result:
    rules, ending, seats, winner = parse(text)
    return score(RULE_SETS[rules], ending, seats, winner)


def output(result: Result) -> dict[str, Any]:
    """What ``klik score`` prints: small and big points and the winners, keyed by seat."""
    return {"small": dict(result.small), "big": dict(result.big), "winners": list(result.winners)}
