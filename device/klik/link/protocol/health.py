"""A table's health as its heartbeat carries it (``health``, optional: an older table sends
none), and the protocol's revision the hub compares with its own::

    {"version": "0.1.0", "protocol": 1, "clock_synced": true, "cpu_temp_c": 52,
     "throttled": {"now": [], "since_boot": ["under_voltage"]},
     "free_mb": 5120, "journal_kb": 84, "panels_out": ["C"], "stuck": [],
     "card": "ok", "card_errors": 0}

Every reading may be null: the table could not read it (no such file on this machine; on a
Pi that is a fault the table logs). Whole numbers only (a signed object holds no float).
Keys it does not know are kept, as a body's are. Read on the table by ``klik.table.service.health``;
the hub's console turns it into plain words (``klik_hub.hall.health``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from klik.core.game import SEATS
from klik.link.protocol.envelope import ProtocolError

#: The revision of this contract a table and a hub speak (``docs/protocol.md``): raised with
#: every change a round relies on (a lineup's field, a command's kind). The envelope's ``v``
#: stays 1 while old and new can still talk; a hub starts no round on a table of another
#: revision.
REVISION = 2
#: The firmware's throttling flags (``get_throttled``), by bit: bits 0-3 now, 16-19 since boot.
THROTTLE_FLAGS = ("under_voltage", "freq_capped", "throttling", "soft_temp_limit")
SINCE_BOOT_SHIFT = 16
MAX_VERSION = 40  # characters of a software version
TEMP_C = (-60, 200)  # a CPU's temperature a sensor can say, whole degrees Celsius
BIG = 2**53 - 1
#: How the table's card takes its writes (``klik.table.game.card``).
CARD_STATES = ("ok", "full", "read-only", "no-permission")


@dataclass(frozen=True, slots=True)
class Throttled:
    """The flags the Pi's firmware raises (``get_throttled``): those set now, and those set
    at any time since boot (an under-voltage an hour ago shows only there)."""

    now: tuple[str, ...] = ()
    since_boot: tuple[str, ...] = ()

    @classmethod
    def of_bits(cls, bits: int) -> Throttled:
        """The flags of the firmware's word ``bits`` (``get_throttled``'s hex number)."""
        return cls(
            tuple(f for k, f in enumerate(THROTTLE_FLAGS) if bits >> k & 1),
            tuple(f for k, f in enumerate(THROTTLE_FLAGS) if bits >> (SINCE_BOOT_SHIFT + k) & 1),
        )

    def json(self) -> dict[str, Any]:
        return {"now": list(self.now), "since_boot": list(self.since_boot)}


@dataclass(frozen=True, slots=True)
class Health:
    """What a table says of itself besides its game (``docs/protocol.md``, the heartbeat):
    its software's ``version`` and protocol ``REVISION``, whether its clock is synchronised,
    its CPU's temperature (°C), the firmware's throttling flags, the free space in its state
    folder (MiB), its game journal's size (KiB), the seats whose screen is out, the seats
    whose button is stuck down, whether its card takes writes and how many failed. None: not
    read."""

    version: str | None = None
    protocol: int | None = None
    clock_synced: bool | None = None
    cpu_temp_c: int | None = None
    throttled: Throttled | None = None
    free_mb: int | None = None
    journal_kb: int | None = None
    panels_out: tuple[str, ...] = ()
    stuck: tuple[str, ...] = ()
    card: str | None = None  # one of CARD_STATES: whether the card takes the table's writes
    card_errors: int | None = None  # writes to the card that failed since the table started

    def json(self) -> dict[str, Any]:
        return {
            "version": None if self.version is None else self.version[:MAX_VERSION],
            "protocol": self.protocol,
            "clock_synced": self.clock_synced,
            "cpu_temp_c": self.cpu_temp_c,
            "throttled": None if self.throttled is None else self.throttled.json(),
            "free_mb": self.free_mb,
            "journal_kb": self.journal_kb,
            "panels_out": list(self.panels_out),
            "stuck": list(self.stuck),
            "card": self.card,
            "card_errors": self.card_errors,
        }

    @classmethod
    def decode(cls, raw: Any, where: str = "body.health") -> Health:
        """The health in ``raw``; ProtocolError naming the first field that is wrong. Any
        field may be missing (null)."""
        if not isinstance(raw, dict):
            raise ProtocolError(where, "must be an object")
        version = raw.get("version")
        if version is not None and (not isinstance(version, str) or len(version) > MAX_VERSION):
            raise ProtocolError(
                f"{where}.version", f"must be text of at most {MAX_VERSION}, or null"
            )
        synced = raw.get("clock_synced")
        if synced is not None and not isinstance(synced, bool):
            raise ProtocolError(f"{where}.clock_synced", "must be true, false or null")
        card = raw.get("card")
        if card is not None and card not in CARD_STATES:
            allowed = ", ".join(CARD_STATES)
            raise ProtocolError(f"{where}.card", f"must be one of {allowed}, or null")
        return cls(
            version=version,
            protocol=_whole(raw, "protocol", where, 1, BIG),
            clock_synced=synced,
            cpu_temp_c=_whole(raw, "cpu_temp_c", where, *TEMP_C),
            throttled=_throttled(raw.get("throttled"), f"{where}.throttled"),
            free_mb=_whole(raw, "free_mb", where, 0, BIG),
            journal_kb=_whole(raw, "journal_kb", where, 0, BIG),
            panels_out=_seats(raw.get("panels_out", []), f"{where}.panels_out"),
            stuck=_seats(raw.get("stuck", []), f"{where}.stuck"),
            card=card,
            card_errors=_whole(raw, "card_errors", where, 0, BIG),
        )


def _whole(raw: dict[str, Any], name: str, where: str, low: int, high: int) -> int | None:
    value = raw.get(name)
    if value is not None and (type(value) is not int or not low <= value <= high):
        raise ProtocolError(
            f"{where}.{name}", f"must be a whole number from {low} to {high}, or null"
        )
    return value


def _flags(value: Any, where: str) -> tuple[str, ...]:
    if (
        not isinstance(value, list)
        or not all(f in THROTTLE_FLAGS for f in value)
        or len(set(value)) != len(value)
    ):
        raise ProtocolError(
            where, f"must be a list of flags, each once: {', '.join(THROTTLE_FLAGS)}"
        )
    return tuple(value)


def _throttled(value: Any, where: str) -> Throttled | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ProtocolError(where, "must be an object of now and since_boot, or null")
    return Throttled(
        _flags(value.get("now", []), f"{where}.now"),
        _flags(value.get("since_boot", []), f"{where}.since_boot"),
    )


def _seats(value: Any, where: str) -> tuple[str, ...]:
    if (
        not isinstance(value, list)
        or not all(s in SEATS for s in value)
        or len(set(value)) != len(value)
    ):
        raise ProtocolError(where, f"must be a list of seats ({', '.join(SEATS)}), each once")
    return tuple(value)


def seats_of(seats: Sequence[str] | frozenset[str]) -> tuple[str, ...]:
    """``seats`` in the order the wire lists them (A to D)."""
    return tuple(s for s in SEATS if s in seats)
