"""The protocol's words: envelope types and their paths, answer statuses with their HTTP
codes, and the kinds of command the hub gives a table. Nothing else defines them."""

from __future__ import annotations

from enum import StrEnum


class EnvelopeType(StrEnum):
    """What an envelope carries: a table sends results and heartbeats, the hub acks."""

    RESULT = "result"
    HEARTBEAT = "heartbeat"
    ACK = "ack"


TYPES = tuple(t.value for t in EnvelopeType)
#: What a table sends the hub, whatever carries it; the hub answers each with an ``ack``.
REQUESTS = (EnvelopeType.RESULT, EnvelopeType.HEARTBEAT)
#: Where a table posts each kind of envelope over HTTP; the serial link carries the same two.
PATHS = {EnvelopeType.RESULT: "/api/v1/results", EnvelopeType.HEARTBEAT: "/api/v1/heartbeats"}
#: The envelope type each path takes.
TYPE_OF_PATH = {path: kind for kind, path in PATHS.items()}


class Status(StrEnum):
    """An answer's ``status``, and the HTTP status code it comes with (``http``)."""

    STORED = "stored"  # a new result, committed
    DUPLICATE = "duplicate"  # a result the hub holds already: its receipt again
    CONFLICT = "conflict"  # another result for the same send or game: both kept, flagged
    OK = "ok"  # a heartbeat taken, with the table's waiting commands
    STALE = "stale"  # a heartbeat not above the last the hub holds (a replay)
    REFUSED = "refused"  # signed: a result that breaks the schema, for good; or not believed
    INVALID = "invalid"  # an envelope or request that breaks the contract

    @property
    def http(self) -> int:
        return _HTTP[self]


_HTTP = {Status.STORED: 201, Status.DUPLICATE: 200, Status.CONFLICT: 409, Status.OK: 200,
         Status.STALE: 409, Status.REFUSED: 422, Status.INVALID: 422}  # fmt: skip
#: The answers whose result the hub holds (a conflict too: kept, and flagged for the judge).
TAKEN = frozenset((Status.STORED, Status.DUPLICATE, Status.CONFLICT))


class CommandKind(StrEnum):
    """What the hub can order a table (``docs/protocol.md``, *Hub → table commands*)."""

    PAUSE = "pause"  # stop the clock at once, as the judge's key does
    RESUME = "resume"  # start it again with the time left
    ROUND_OVER = "round-over"  # the round's time is up: the final round of moves begins
    START = "start"  # start the game (the round's, once its lineup is there)
    PLAYERS = "players"  # the names on the seats' screens
    RENUMBER = "renumber"  # the table's new number (the judge's renumbering on the hub)
    GAME = "game"  # a round's lineup: players, rule set, move time, games


COMMAND_KINDS = tuple(k.value for k in CommandKind)
#: The commands the judge sends a whole round's tables at once.
ROUND_KINDS = (CommandKind.GAME, CommandKind.START, CommandKind.ROUND_OVER, CommandKind.PAUSE,
               CommandKind.RESUME)  # fmt: skip
