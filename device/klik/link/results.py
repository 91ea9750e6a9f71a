"""The result body: what a finished game tells the hub, checked the same way on both sides.

The table builds it (``klik.table.game.engine``), the hub checks it before storing it, and
recomputes the points from the racks with the rule set, so a table with a wrong rule set or a
bug shows up on the judge's page as a points mismatch instead of in the standings. Pure: no
I/O, no clock. ``docs/protocol.md`` is the contract in prose.

Unknown fields are kept, not refused: a newer table may send more to an older hub, and the
hub stores the body exactly as it was signed. Each seat's ``moves`` (its moves, draws,
timeouts, mean and longest move time: ``klik.core.pace``) is sent by every newer table and
checked when it is there; an older table's body has none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from klik.core.game import SEATS, EndedBy, Exhaustion, Move
from klik.core.pace import pace
from klik.core.scoring import Ending, Result, SeatRack, score
from klik.link.protocol import Json, ProtocolError
from klik.link.protocol.moves import check_moves
from klik.rules import RULE_SETS

MAX_TEXT = 200  # characters of a name or a tournament's label
MAX_COUNT = 10**9  # moves, tiles, milliseconds: far above any game, below any overflow
MAX_ROUND_GAMES = 9  # games of one round at one table (the lineup's ``games``)
# A table writes whole seconds (``klik.table.service.daemon.wall_clock``); ASCII digits only, as
# ``\d`` would take any script's.
ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$", re.ASCII)
SEAT_FIELDS = {"name", "player", "rack", "opened", "small", "big"}
ENDED_BY = tuple(e.value for e in Exhaustion)  # why an exhausted game ended


def check_result(body: Json) -> None:
    """Raise ProtocolError naming the first field of ``body`` that breaks the result schema."""
    _text_or_none(body, "tournament")
    _whole_or_none(body, "round", low=1)
    _whole_or_none(body, "round_game", low=1, high=MAX_ROUND_GAMES)
    _whole(body, "table", low=1, high=999)
    _whole(body, "game", low=1)
    if body.get("rules") not in RULE_SETS:
        raise ProtocolError("body.rules", f"must be one of {', '.join(RULE_SETS)}")
    _whole_or_none(body, "rules_version", low=1)
    if body.get("ending") not in {e.value for e in Ending}:
        raise ProtocolError("body.ending", "must be rummikub or exhausted")
    ended_by = body.get("ended_by")
    if ended_by is not None and (ended_by not in ENDED_BY or body["ending"] != "exhausted"):
        raise ProtocolError(
            "body.ended_by", f"must be null, or for an exhausted game one of {', '.join(ENDED_BY)}"
        )
    seats = body.get("seats")
    if not isinstance(seats, dict) or not 2 <= len(seats) <= 4 or not set(seats) <= set(SEATS):
        raise ProtocolError("body.seats", "must map 2 to 4 of the seats A, B, C, D")
    top = RULE_SETS[body["rules"]].max_rack  # every tile of the set
    for seat, entry in seats.items():
        _check_seat(seat, entry, top)
    winners = body.get("winners")
    if (
        not isinstance(winners, list)
        or not winners
        or len(set(winners)) != len(winners)
        or not all(isinstance(w, str) and w in seats for w in winners)
    ):
        raise ProtocolError("body.winners", "must list one or more of the seated seats, once each")
    if body["ending"] == Ending.RUMMIKUB.value and len(winners) != 1:
        raise ProtocolError("body.winners", "a Rummikub ending has exactly one winner")
    for name in ("moves", "timeouts", "duration_ms"):
        _whole(body, name, low=0)
    _check_seats_moves(body, seats)
    finished = body.get("finished_at")
    if finished is not None and not is_utc_time(finished):
        raise ProtocolError(
            "body.finished_at",
            "must be null or a real time in ISO 8601 UTC like 2026-11-23T14:05:09Z",
        )


def _check_seats_moves(body: Json, seats: Mapping[str, Any]) -> None:
    """Each seat's ``moves``, on every seat (a newer table) or on none (an older one); the
    seats' moves and timeouts add up to the body's."""
    having = [s for s, entry in seats.items() if "moves" in entry]
    if not having:
        return
    if len(having) != len(seats):
        missing = sorted(set(seats) - set(having))[0]
        raise ProtocolError(f"body.seats.{missing}.moves", "is missing (another seat has it)")
    for seat, entry in seats.items():
        check_moves(entry["moves"], f"body.seats.{seat}.moves")
    for total, name in (("moves", "count"), ("timeouts", "timeouts")):
        added = sum(entry["moves"][name] for entry in seats.values())
        if added != body[total]:
            raise ProtocolError(
                f"body.seats.{having[0]}.moves.{name}",
                f"the seats' {name} add up to {added}, not body.{total} ({body[total]})",
            )


def is_utc_time(text: Any) -> bool:
    """Whether ``text`` is a time that was, or can be, on a UTC clock, written as ISO 8601
    (``ISO_UTC``): 2026-99-99T99:99:99Z has the shape and no such time. A leap second (:60)
    is not one: a table's clock (POSIX time) never shows it."""
    if not isinstance(text, str) or not ISO_UTC.fullmatch(text):
        return False
    try:
        datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return True


def _check_seat(seat: str, entry: Any, top: int) -> None:
    where = f"body.seats.{seat}"
    if not isinstance(entry, dict):
        raise ProtocolError(where, "must be an object")
    missing = SEAT_FIELDS - set(entry)
    if missing:
        raise ProtocolError(f"{where}.{sorted(missing)[0]}", "is missing")
    name = entry["name"]
    if not isinstance(name, str) or len(name) > MAX_TEXT:
        raise ProtocolError(f"{where}.name", f"must be text of at most {MAX_TEXT} characters")
    _text_or_none(entry, "player", where)
    _whole(entry, "rack", low=0, high=top, where=where)
    if not isinstance(entry["opened"], bool):
        raise ProtocolError(f"{where}.opened", "must be true or false")
    _whole(entry, "small", low=-MAX_COUNT, where=where)
    _whole(entry, "big", low=0, where=where)


def _whole(
    obj: Mapping[str, Any], name: str, *, low: int, high: int = MAX_COUNT, where: str = "body"
) -> None:
    value = obj.get(name)
    if type(value) is not int or not low <= value <= high:
        raise ProtocolError(f"{where}.{name}", f"must be a whole number from {low} to {high}")


def _whole_or_none(obj: Mapping[str, Any], name: str, *, low: int, high: int = MAX_COUNT) -> None:
    if obj.get(name) is not None:
        _whole(obj, name, low=low, high=high)


def _text_or_none(obj: Mapping[str, Any], name: str, where: str = "body") -> None:
    value = obj.get(name)
    if value is not None and (not isinstance(value, str) or len(value) > MAX_TEXT):
        raise ProtocolError(
            f"{where}.{name}", f"must be null or text of at most {MAX_TEXT} characters"
        )


def make_result(
    *,
    table: int,
    game: int,
    rules: str,
    result: Result,
    rules_version: int = 1,
    names: Mapping[str, str],
    opened: Iterable[str],
    moves: Sequence[Move],
    duration_ms: int,
    finished_at: str | None,
    tournament: str | None = None,
    round_no: int | None = None,
    players: Mapping[str, str] | None = None,
    round_game: int | None = None,
    ended_by: Exhaustion | None = None,
) -> Json:
    """The body a table sends for a scored game (``check_result`` accepts it). ``round_game``
    is the game's number within the round's lineup (1..games), as ``game`` is the table's own
    counter: the hub puts the result in that slot of the round. Each seat's ``moves`` are
    its figures from ``moves`` (``klik.core.pace``)."""
    paced = pace(moves, tuple(result.rack))
    return {
        "tournament": tournament,
        "round": round_no,
        "round_game": round_game,
        "table": table,
        "game": game,
        "rules": rules,
        "rules_version": rules_version,  # a judge's set may change between versions
        "ending": result.ending.value,
        # an exhausted game: the pile ran out, the round's time ran out, or the judge ended it
        "ended_by": None if ended_by is None else ended_by.value,
        "winners": list(result.winners),
        "seats": {
            s: {
                "name": names.get(s, "")[:MAX_TEXT],
                "player": None if players is None else players.get(s),
                "rack": result.rack[s],
                "opened": s in set(opened),
                "small": result.small[s],
                "big": result.big[s],
                "moves": paced[s].json(),
            }
            for s in result.rack
        },
        "moves": len(moves),
        "timeouts": sum(move.ended_by is EndedBy.TIMEOUT for move in moves),
        "duration_ms": duration_ms,
        "finished_at": finished_at,
    }


def points_check(body: Json) -> str:
    """``"ok"`` if the body's small and big points are what the rule set makes of its racks.

    ``body`` has passed ``check_result``. The racks are what the players entered at the table;
    a seat that has not opened is charged the rule set's penalty, as the table charges it.
    """
    seats = body["seats"]
    racks = {s: SeatRack(rack=e["rack"], opened=e["opened"]) for s, e in seats.items()}
    ending = Ending(body["ending"])
    winner = body["winners"][0] if ending is Ending.RUMMIKUB else None
    try:
        expected = score(RULE_SETS[body["rules"]], ending, racks, winner)
    except (ValueError, KeyError):
        return "mismatch"
    same = all(
        expected.small[s] == e["small"] and expected.big[s] == e["big"] for s, e in seats.items()
    )
    return "ok" if same and set(expected.winners) == set(body["winners"]) else "mismatch"


def racks(body: Json) -> dict[str, int]:
    return {s: e["rack"] for s, e in body["seats"].items()}


def column(body: Json, name: str) -> dict[str, int]:
    """One number per seat, e.g. ``column(body, "small")``."""
    return {s: e[name] for s, e in body["seats"].items()}
