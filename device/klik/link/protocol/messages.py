"""The heartbeat's body as a typed message: built by the table's courier, checked by the hub,
each in one place (``Heartbeat.json`` and ``Heartbeat.decode``).

``decode`` takes what older tables send too: every field may be missing (``names``,
``acks``, ``refused``, ``seq_in_doubt``, ``move_time_ms``, ``moves``, ``health`` and
``conflicts`` came later), but a field that is there has its type. Fields it does not know
are left in the body the hub keeps, as a result's are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from klik.core.game import SEATS
from klik.link.protocol.envelope import ProtocolError
from klik.link.protocol.health import Health
from klik.link.protocol.moves import check_seats_moves

Json = dict[str, Any]
#: The game's phases a heartbeat's ``state`` names (``klik.core.game.Phase``).
STATES = ("ready", "move", "timed_out", "paused", "scoring", "done")
MAX_COMMAND_ID = 32  # characters of a command id (the hub makes them of 16)
MAX_REFUSED = 10  # set-aside results a heartbeat reports, the newest
MAX_REASON = 200  # characters of a refusal's reason in a heartbeat
MAX_CONFLICTS = 20  # results in conflict a heartbeat reports, the oldest
MAX_NAME = 40  # characters of a name on a seat's screen
#: Who else stops a clock (``klik.core.game``): the judge's key, the hub, a restart's recovery.
PAUSERS = ("judge", "hub", "recovery")
BIG = 2**53 - 1  # the largest whole number every JSON reader keeps exactly


@dataclass(frozen=True, slots=True)
class Refusal:
    """A result the hub refused for good and the table set aside, as a heartbeat reports it."""

    seq: int
    game: int | None
    error: str

    def json(self) -> Json:
        return {"seq": self.seq, "game": self.game, "error": self.error[:MAX_REASON]}


@dataclass(frozen=True, slots=True)
class Conflict:
    """A result the hub acknowledged as a ``conflict`` (it holds another for the same send or
    game) and the judge has not settled yet, as a heartbeat reports it."""

    seq: int
    game: int | None

    def json(self) -> Json:
        return {"seq": self.seq, "game": self.game}


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """What a table tells the hub every ``heartbeat_s``: its game's state, how each seat has
    moved so far (``moves``, ``klik.core.pace``; the judge's console shows slow movers and
    repeated timeouts by ``move_time_ms``), its outbox, the commands it has carried out
    (``acks``) and the results set aside (``refused``)."""

    game: int | None = None
    state: str | None = None
    mover: str | None = None
    left_ms: int | None = None
    draw_tiles: int | None = None
    judge: bool = False
    paused_by: str | None = None
    called_by: str | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    move_time_ms: int | None = None  # the game's move time
    moves: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # seat → its figures
    outbox: int = 0
    last_seq: int = 0
    # The newest seq the hub acknowledged to this pairing: a hub holding less lost results it
    # acknowledged (a lost WAL, a restored backup) and asks for them again (``resend_after``).
    acked_seq: int = 0
    acks: tuple[str, ...] = ()
    refused: tuple[Refusal, ...] = ()
    seq_in_doubt: bool = False  # asks the hub for the last result seq it holds from us
    health: Health | None = None  # the table's own health (``klik.table.service.health``)
    # Results acknowledged as a conflict, until the hub's answer says the judge settled them.
    conflicts: tuple[Conflict, ...] = ()

    def json(self) -> Json:
        body: Json = {
            "game": self.game,
            "state": self.state,
            "mover": self.mover,
            "left_ms": self.left_ms,
            "draw_tiles": self.draw_tiles,
            "judge": self.judge,
            "paused_by": self.paused_by,
            "called_by": self.called_by,
            "names": dict(self.names),
            "move_time_ms": self.move_time_ms,
            "moves": {s: dict(figures) for s, figures in self.moves.items()},
            "outbox": self.outbox,
            "last_seq": self.last_seq,
            "acks": list(self.acks),
            "refused": [r.json() for r in self.refused[-MAX_REFUSED:]],
        }
        if self.seq_in_doubt:
            body["seq_in_doubt"] = True
        if self.acked_seq:
            body["acked_seq"] = self.acked_seq
        if self.health is not None:
            body["health"] = self.health.json()
        if self.conflicts:
            body["conflicts"] = [c.json() for c in self.conflicts[:MAX_CONFLICTS]]
        return body

    @classmethod
    def decode(cls, body: Json) -> Heartbeat:
        """The heartbeat in ``body``; ProtocolError naming the first field that is wrong."""
        acks = body.get("acks", [])
        if not isinstance(acks, list) or not all(
            isinstance(a, str) and 1 <= len(a) <= MAX_COMMAND_ID for a in acks
        ):
            raise ProtocolError(
                "body.acks",
                f"must be a list of command ids (text of 1 to {MAX_COMMAND_ID} characters)",
            )
        state = body.get("state")
        if state is not None and state not in STATES:
            raise ProtocolError("body.state", f"must be one of {', '.join(STATES)}")
        seats = {name: _seat_or_none(body, name) for name in ("mover", "called_by")}
        paused_by = body.get("paused_by")
        if paused_by is not None and paused_by not in (*SEATS, *PAUSERS):
            allowed = ", ".join((*SEATS, *PAUSERS))
            raise ProtocolError("body.paused_by", f"must be one of {allowed}, or null")
        names = body.get("names", {})
        if not isinstance(names, dict) or not all(
            s in SEATS and isinstance(n, str) and len(n) <= MAX_NAME for s, n in names.items()
        ):
            raise ProtocolError("body.names", f"must map seats to names of at most {MAX_NAME}")
        judge = body.get("judge", False)
        if not isinstance(judge, bool):
            raise ProtocolError("body.judge", "must be true or false")
        doubt = body.get("seq_in_doubt", False)
        if doubt is not True and doubt is not False:
            raise ProtocolError("body.seq_in_doubt", "must be true or false")
        return cls(
            game=_whole_or_none(body, "game", 0),
            state=state,
            mover=seats["mover"],
            left_ms=_whole_or_none(body, "left_ms", 0),
            draw_tiles=_whole_or_none(body, "draw_tiles", 0),
            judge=judge,
            paused_by=paused_by,
            called_by=seats["called_by"],
            names=names,
            move_time_ms=_whole_or_none(body, "move_time_ms", 1),
            moves=check_seats_moves(body.get("moves", {}), "body.moves"),
            outbox=_whole_or_none(body, "outbox", 0) or 0,
            last_seq=_whole_or_none(body, "last_seq", 0) or 0,
            acked_seq=_whole_or_none(body, "acked_seq", 0) or 0,
            acks=tuple(acks),
            refused=_refused(body.get("refused", [])),
            seq_in_doubt=doubt,
            health=None if body.get("health") is None else Health.decode(body["health"]),
            conflicts=_conflicts(body.get("conflicts", [])),
        )


def _whole_or_none(body: Json, name: str, low: int) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if type(value) is not int or not low <= value <= BIG:
        raise ProtocolError(f"body.{name}", f"must be a whole number from {low}, or null")
    return value


def _seat_or_none(body: Json, name: str) -> str | None:
    value = body.get(name)
    if value is not None and value not in SEATS:
        raise ProtocolError(f"body.{name}", f"must be a seat ({', '.join(SEATS)}) or null")
    return value


def _refused(raw: Any) -> tuple[Refusal, ...]:
    refusals = []
    for at, item in _results(raw, "body.refused", MAX_REFUSED, "set-aside results"):
        seq, game = _seq_game(item, at)
        error = item.get("error")
        if not isinstance(error, str) or len(error) > MAX_REASON:
            raise ProtocolError(f"{at}.error", f"must be text of at most {MAX_REASON}")
        refusals.append(Refusal(seq, game, error))
    return tuple(refusals)


def _conflicts(raw: Any) -> tuple[Conflict, ...]:
    found = _results(raw, "body.conflicts", MAX_CONFLICTS, "results")
    return tuple(Conflict(*_seq_game(item, at)) for at, item in found)


def _results(raw: Any, where: str, most: int, noun: str) -> list[tuple[str, dict[str, Any]]]:
    """A heartbeat's list of results (each an object), with where each one is."""
    if not isinstance(raw, list) or len(raw) > most:
        raise ProtocolError(where, f"must be a list of at most {most} {noun}")
    for n, item in enumerate(raw):
        if not isinstance(item, dict):
            raise ProtocolError(f"{where}[{n}]", "must be an object")
    return [(f"{where}[{n}]", item) for n, item in enumerate(raw)]


def _seq_game(item: dict[str, Any], at: str) -> tuple[int, int | None]:
    """A listed result's ``seq`` and ``game`` (the table's game number, or null)."""
    seq, game = item.get("seq"), item.get("game")
    if type(seq) is not int or not 1 <= seq <= BIG:
        raise ProtocolError(f"{at}.seq", "must be a whole number from 1")
    if game is not None and (type(game) is not int or not 1 <= game <= BIG):
        raise ProtocolError(f"{at}.game", "must be a whole number from 1, or null")
    return seq, game
