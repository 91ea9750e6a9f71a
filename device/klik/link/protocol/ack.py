"""What a table's link hands its courier for one envelope sent: an ``Ack``, whatever carried it
(``docs/protocol.md``, *Links: an envelope out, an ack back*).

A link (``klik.link.http.HttpLink``, ``klik.link.serial.SerialLink``) signs one envelope,
sends it and returns an ``Ack``; it raises ``klik.link.reply.LinkDown`` when no answer came
at all. An ack holds either the hub's answer (its ``status``, ``body`` and the ``signed`` ack
envelope, which the courier verifies with the table's key before it believes a word of it)
or, instead of one, the ``trouble`` the carrier met: never both, never neither.

Over serial the hub's answer is its signed ack frame, whose status is the status. Over HTTP
``Ack.of_http`` reads the answer, the one place a table reads HTTP codes; the codes that go
with each status are ``Status.http``, the hub's side of the same map.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from klik.link.protocol.words import Status

Json = dict[str, Any]
#: The HTTP status of an envelope the hub does not believe: an unknown device, a MAC by
#: another key, a device paired with another table (``docs/protocol.md``).
UNPAIRED_HTTP = 401
#: HTTP statuses from here on are the hub (or a proxy before it) failing on the request.
HUB_ERROR_HTTP = 500


class Trouble(StrEnum):
    """What a carrier got instead of the hub's answer; the courier says each on the screens."""

    UNPAIRED = "unpaired"  # the hub does not believe this table's key: pair it again
    HUB_ERROR = "hub_error"  # the hub failed on the envelope (over HTTP a 5xx)
    NO_STATUS = "no_status"  # an answer naming no status: a proxy's or a Wi-Fi login page


@dataclass(frozen=True, slots=True)
class Ack:
    """The hub's answer to one envelope a table sent, or the ``trouble`` met instead.

    ``status``: the status the answer names (over HTTP the unsigned answer's; the courier
    believes only what ``signed`` says), None with a ``trouble``. ``body``: the answer
    without its ack (over serial, the ack's body). ``signed``: the ack envelope as it came,
    with its ``mac``, not yet verified. ``seen``: what the carrier saw, one line for the log
    (over HTTP the code and the answer's first line); not part of what the answer says.
    """

    status: Status | None
    body: Json = field(default_factory=dict)
    signed: Json | None = None
    trouble: Trouble | None = None
    seen: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if (self.status is None) == (self.trouble is None):
            raise ValueError("an ack has a status or a trouble: one of them")

    @classmethod
    def of_http(cls, code: int, body: Json, first_line: str = "") -> Ack:
        """The ack for an HTTP answer: its ``code``, its JSON object ``body`` ({} if it had
        none) and its ``first_line`` (for the log). ``HttpLink.send`` calls it for each answer.

        In this order: 401 is ``UNPAIRED``; a 5xx is ``HUB_ERROR`` (a 503 says ``invalid``
        too: the hub's trouble, not an answer); a body whose ``status`` is not one of
        ``Status`` is ``NO_STATUS``; any other answer is its ``status``, with its ``ack``.
        """
        seen = f"{code} {first_line}"
        rest = {name: value for name, value in body.items() if name != "ack"}
        if code == UNPAIRED_HTTP:
            return cls(None, rest, trouble=Trouble.UNPAIRED, seen=seen)
        if code >= HUB_ERROR_HTTP:
            return cls(None, rest, trouble=Trouble.HUB_ERROR, seen=seen)
        status = status_of(body.get("status"))
        if status is None:
            return cls(None, rest, trouble=Trouble.NO_STATUS, seen=seen)
        signed = body.get("ack")
        return cls(status, rest, signed if isinstance(signed, dict) else None, seen=seen)


def status_of(value: object) -> Status | None:
    """The ``Status`` that ``value`` names, or None (not text, or no status of the contract)."""
    if not isinstance(value, str):
        return None
    try:
        return Status(value)
    except ValueError:
        return None
