"""A seat's moves as the wire carries them: each seat's ``moves`` in a result, and the
heartbeat's ``moves`` while the game runs, the same object (``klik.core.pace.Pace.json``)::

    {"count": 12, "draws": 3, "timeouts": 1, "mean_ms": 21400, "longest_ms": 58000}

Checked here for both, each fault one line naming the field. Keys it does not know are kept,
not refused, as a body's are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from klik.core.game import SEATS
from klik.link.protocol.envelope import ProtocolError

#: The figures' keys, in the order ``docs/protocol.md`` names them.
MOVES_FIELDS = ("count", "draws", "timeouts", "mean_ms", "longest_ms")
MAX_FIGURE = 10**9  # moves or milliseconds: far above any game, below any overflow


def check_moves(value: Any, where: str) -> None:
    """Raise ProtocolError naming the first field of the figures ``value`` (at ``where``,
    e.g. ``body.seats.A.moves``) that is wrong: each a whole number from 0, ``draws`` and
    ``timeouts`` among ``count``, the mean no longer than the longest, both 0 with no move."""
    if not isinstance(value, dict):
        raise ProtocolError(where, f"must be an object of {', '.join(MOVES_FIELDS)}")
    for name in MOVES_FIELDS:
        figure = value.get(name)
        if type(figure) is not int or not 0 <= figure <= MAX_FIGURE:
            raise ProtocolError(f"{where}.{name}", f"must be a whole number from 0 to {MAX_FIGURE}")
    count = value["count"]
    for name in ("draws", "timeouts"):
        if value[name] > count:
            raise ProtocolError(f"{where}.{name}", f"must be at most count ({count})")
    if value["mean_ms"] > value["longest_ms"]:
        raise ProtocolError(f"{where}.mean_ms", "must be at most longest_ms")
    if count == 0 and value["longest_ms"] != 0:
        raise ProtocolError(f"{where}.longest_ms", "must be 0 when count is 0")


def check_seats_moves(value: Any, where: str) -> Mapping[str, Mapping[str, int]]:
    """The heartbeat's ``moves``: seats (``A``–``D``) to their figures (``check_moves``)."""
    if not isinstance(value, dict) or not set(value) <= set(SEATS):
        raise ProtocolError(where, f"must map seats ({', '.join(SEATS)}) to their moves")
    for seat, figures in value.items():
        check_moves(figures, f"{where}.{seat}")
    return value
