"""Who the hub polls next on a polled serial channel: a pure schedule, time passed as data.

On a polled channel (``docs/protocol.md``, "The polled channel") a table talks only when the
hub polls it, so no two tables ever talk at once. The hub keeps a ``Turn`` per table and
asks ``next_table`` whom to poll; after the turn it records what came of it:

- **answered with a frame** (a result, a heartbeat): the table is due again at once, as it
  may have more waiting;
- **answered "nothing"**: due again after ``idle_for(tables)``; the hub's commands do not wait for a
  turn (they are pushed between turns), so an idle table costs the channel a poll and its
  short answer every ``idle_s``;
- **no answer** (the poll or the answer lost, or the table away): due again after a back-off
  that doubles with each miss in a row, from ``retry_s`` up to ``max_retry_s``, so a table
  that is switched off costs the channel little.

Among the tables due, the one whose turn has been due longest goes first, and of those the
one polled least recently: every table due is polled before any is polled twice. No I/O, no
clock: the caller passes ``now`` (seconds, monotonic).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from klik.link.protocol import DEVICE

IDLE_S = 2.0  # an idle table is polled this often at least ...
IDLE_TURN_S = 0.25  # ... and no more often than this times the tables on the channel
RETRY_S = 0.5  # a table that did not answer is polled again after this, doubled each miss
MAX_RETRY_S = 30.0


@dataclass(frozen=True, slots=True)
class Turn:
    """One table's place in the schedule: when it is due, when last polled, misses in a row."""

    due_at: float = -math.inf
    polled_at: float = -math.inf
    misses: int = 0


def next_table(turns: Mapping[str, Turn], now: float) -> str | None:
    """The device to poll now, or None if no table is due."""
    due = [(turn.due_at, turn.polled_at, device) for device, turn in turns.items()
           if turn.due_at <= now]  # fmt: skip
    return min(due)[2] if due else None


def next_due(turns: Iterable[Turn]) -> float:
    """When the next table is due (``inf``: no tables)."""
    return min((turn.due_at for turn in turns), default=math.inf)


def idle_for(tables: int) -> float:
    """How long an idle table waits for its next poll on a channel of ``tables`` tables: an
    idle turn (a poll and a "nothing", some 60 bytes) is some 0.07 s at 9600 baud, so idle
    turns take at most about a third of the channel and the rest is left to frames."""
    return max(IDLE_S, tables * IDLE_TURN_S)


def answered(turn: Turn, now: float, *, sent: bool, idle_s: float = IDLE_S) -> Turn:
    """The table answered the poll made at ``now``: with a frame (``sent``) or "nothing"."""
    return Turn(due_at=now if sent else now + idle_s, polled_at=now, misses=0)


def unanswered(
    turn: Turn, now: float, *, retry_s: float = RETRY_S, max_retry_s: float = MAX_RETRY_S
) -> Turn:
    """No answer came to the poll made at ``now``: back off, more with each miss in a row."""
    wait_s = min(retry_s * 2 ** min(turn.misses, 32), max_retry_s)
    return replace(turn, due_at=now + wait_s, polled_at=now, misses=turn.misses + 1)


def joined(turns: Mapping[str, Turn], devices: Iterable[str]) -> dict[str, Turn]:
    """The schedule for ``devices`` (the tables paired now): new ones due at once, ones no
    longer paired left out, the rest as they were."""
    return {device: turns.get(device, Turn()) for device in devices}


# --- the turn's frames ------------------------------------------------------------------
# A poll and a "nothing" are plain frames whose body is a sign and the table's device:
# ``?device`` (hub → table: your turn) and ``.device`` (table → hub: nothing waiting). They
# are not signed: a forged poll makes a table answer, a forged "nothing" delays one table's
# next poll by ``IDLE_S``; neither can make the hub keep or a table believe anything.

POLL = "?"
NOTHING = "."


def turn_frame(sign: str, device: str) -> bytes:
    """The frame of a poll (``POLL``) or a "nothing" (``NOTHING``) for ``device``."""
    body = (sign + device).encode("ascii")
    return body + b" " + f"{zlib.crc32(body):08x}".encode("ascii") + b"\n"


def turn_of(body: bytes) -> tuple[str, str] | None:
    """(sign, device) of a poll's or a "nothing"'s envelope bytes; None for any other frame."""
    if not body or body[:1] not in (b"?", b"."):
        return None
    device = body[1:].decode("ascii", "replace")
    return (body[:1].decode("ascii"), device) if DEVICE.fullmatch(device) else None
