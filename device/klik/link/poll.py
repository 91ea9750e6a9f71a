"""Who the hub polls next on a polled serial channel: a pure schedule, time passed as data.

On a polled channel (``docs/protocol.md``, "The polled channel") a table talks only when the
hub polls it, so no two tables ever talk at once. The hub keeps a ``Turn`` per table and
asks ``next_table`` whom to poll; after the turn it records what came of it:

- **answered** (a frame or "nothing"): due again after ``idle_for(tables)``; the hub's
  commands do not wait for a turn (they are pushed between turns), so an idle table costs
  the channel a poll and its short answer every ``idle_s``;
- **asked for a turn**: when no table is due the hub opens a contention slot every
  ``SLOT_EVERY_S`` (a poll of table ``SLOT``); a table with a frame waiting answers it
  with its "nothing" in one of ``SLOTS`` mini-slots picked at random, and is due at once.
  Two that pick the same mini-slot garble each other (the hub decides whom that makes due:
  ``klik_hub.serial_poll``);
- **no answer** (the poll or the answer lost, or the table away): due again after a back-off
  that doubles with each miss in a row, from ``retry_s`` up to ``max_retry_s``, so a table
  that is switched off costs the channel little.

Among the tables due, those with something to send (new, asking, or not heard last time) go
before those due only to be heard from; then the one whose turn has been due longest, and of
those the one polled least recently: every table due is polled before any is polled twice.
No I/O, no clock: the caller passes ``now`` (seconds, monotonic).
"""

from __future__ import annotations

import binascii
import hmac
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from klik.link import deflate
from klik.link import protocol as p

IDLE_S = 2.0  # an idle table is polled this often at least ...
IDLE_TURN_S = 0.25  # ... and no more often than this times the tables on the channel
RETRY_S = 0.5  # a table that did not answer is polled again after this, doubled each miss
MAX_RETRY_S = 30.0


@dataclass(frozen=True, slots=True)
class Turn:
    """One table's place in the schedule: when it is due, when last polled, misses in a row,
    and whether it is due only to be heard from (``idle``: it answered last time and has
    not asked since), which waits while any table is due with something to send."""

    due_at: float = -math.inf
    polled_at: float = -math.inf
    misses: int = 0
    idle: bool = False


def next_table(turns: Mapping[str, Turn], now: float) -> str | None:
    """The device to poll now, or None if no table is due."""
    due = [(turn.idle, turn.due_at, turn.polled_at, device) for device, turn in turns.items()
           if turn.due_at <= now]  # fmt: skip
    return min(due)[3] if due else None


def next_due(turns: Iterable[Turn]) -> float:
    """When the next table is due (``inf``: no tables)."""
    return min((turn.due_at for turn in turns), default=math.inf)


def idle_for(tables: int) -> float:
    """How long an idle table waits for its next poll on a channel of ``tables`` tables: an
    idle turn (a poll and a "nothing", some 60 bytes) is some 0.07 s at 9600 baud, so idle
    turns take at most about a third of the channel and the rest is left to frames."""
    return max(IDLE_S, tables * IDLE_TURN_S)


def answered(turn: Turn, now: float, *, idle_s: float = IDLE_S) -> Turn:
    """The table answered the poll made at ``now`` (with a frame or "nothing"): due again
    after ``idle_s``. One with more to send says so in a contention slot sooner."""
    return Turn(due_at=now + idle_s, polled_at=now, misses=0, idle=True)


def wanted(turn: Turn, now: float) -> Turn:
    """The table asked for a turn (in a contention slot): due now."""
    return replace(turn, due_at=min(turn.due_at, now), idle=False)


def unanswered(
    turn: Turn, now: float, *, retry_s: float = RETRY_S, max_retry_s: float = MAX_RETRY_S
) -> Turn:
    """No answer came to the poll made at ``now``: back off, more with each miss in a row."""
    wait_s = min(retry_s * 2 ** min(turn.misses, 32), max_retry_s)
    return Turn(due_at=now + wait_s, polled_at=now, misses=turn.misses + 1)


def joined(turns: Mapping[str, Turn], devices: Iterable[str]) -> dict[str, Turn]:
    """The schedule for ``devices`` (the tables paired now): new ones due at once, ones no
    longer paired left out, the rest as they were."""
    return {device: turns.get(device, Turn()) for device in devices}


SLOT = 0  # the table number a contention slot's poll names: any table with a frame waiting
SLOTS = 4  # a contention slot's mini-slots: a table answers in one picked at random
SLOT_EVERY_S = 0.15  # with no table due, a contention slot this often
SLOT_GUARD_S = 0.005  # a mini-slot's margin for the nodes' reaction times
NOTHING_BYTES = 7  # a "nothing" frame's bytes (``nothing_frame``), escapes aside


def slot_s(baud: int) -> float:
    """A mini-slot at ``baud``: a "nothing" on the wire (10 bits a byte) and the guard."""
    return NOTHING_BYTES * 10 / baud + SLOT_GUARD_S


# --- the turn's frames ------------------------------------------------------------------
# A poll and a "nothing" are short binary frames (``docs/protocol.md``, "Turn frames"):
# ``MARK``, then, escaped as a deflated frame is (``deflate.escape``), the payload and its
# CRC-16/CCITT-FALSE (2 bytes, big-endian), then ``\n``. The payload:
#
# - a poll (hub → every table): ``?``, the polled table's number (2 bytes), then up to
#   ``MAX_ACKS`` short acks, each: a table's number (2 bytes), the low 16 bits of the seq
#   of the result acknowledged, ``s`` (stored: the table knows the receipt, it is the hash
#   of what it sent) or ``d`` and the five signs of the receipt (a duplicate: the receipt is
#   the first copy's), and the first ``TAG_BYTES`` bytes of the MAC of the full ack the hub
#   would have sent;
# - a "nothing" (table → hub): ``.`` and the table's number.
#
# Polls are not signed, but every short ack is: a forged poll makes a table answer, a
# forged "nothing" delays one table's next poll by its idle time, and a short ack must carry
# 48 bits of the table's own HMAC, so nobody without the key can make a table believe a
# result kept. Tables are named by number here, not device id: two bytes, not a dozen.

MARK = 0x1D  # never the first byte of a plain (``{``) or deflated (0x1e) frame
CRC_START = 0xFFFF  # CRC-16/CCITT-FALSE: a turn frame is a few dozen bytes
POLL = ord("?")
NOTHING = ord(".")
STORED = ord("s")
DUPLICATE = ord("d")
TAG_BYTES = 4
SEQ_MASK = 0xFF  # a short ack names a result by the low 8 bits of its seq
MAX_ACKS = 4  # short acks a poll carries at most
MAX_TABLE = 0xFFFF


@dataclass(frozen=True, slots=True)
class ShortAck:
    """The hub's ack of a result in a poll: ``receipt`` is "" when the table works it out
    (stored); ``seq`` is the full seq on the hub's side, its low 16 bits as heard."""

    table: int
    seq: int
    status: p.Status  # STORED or DUPLICATE
    receipt: str
    tag: bytes

    @classmethod
    def of(cls, table: int, signed_ack: p.Json) -> ShortAck | None:
        """The short form of the hub's signed ack of a result, for table ``table``; None
        for an ack that has none (a conflict, a refusal, a heartbeat's answer)."""
        body = signed_ack.get("body")
        mac = signed_ack.get("mac")
        if not isinstance(body, dict) or not isinstance(mac, str) or body.get("of") != "result":
            return None
        status, receipt = body.get("status"), body.get("receipt")
        if status not in (p.Status.STORED, p.Status.DUPLICATE) or not isinstance(receipt, str):
            return None
        if set(body) != {"of", "status", "receipt"} or len(receipt) != p.RECEIPT_LENGTH:
            return None
        seq = signed_ack.get("seq")
        if not isinstance(seq, int) or not 1 <= table <= MAX_TABLE:
            return None
        said = "" if status == p.Status.STORED else receipt
        return cls(table, seq, p.Status(status), said, bytes.fromhex(mac[: 2 * TAG_BYTES]))

    def names(self, request: p.Envelope) -> bool:
        """Whether this acknowledges ``request`` (a result): its seq's low bits match."""
        return request.type == "result" and (request.seq & SEQ_MASK) == (self.seq & SEQ_MASK)

    def opened(self, request: p.Envelope, key: bytes) -> p.Json | None:
        """The hub's full signed ack this stands for, if it acknowledges ``request`` (a
        result of this table's) and its tag is the key's; else None. The link hands the
        courier this envelope, signed here with the same key the hub signs with: it is
        the very ack the hub would have sent, and the tag proves the hub made it."""
        if not self.names(request):
            return None
        receipt = self.receipt or p.receipt(
            {"device": request.device, "seq": request.seq, "body": request.body}
        )
        body = {"of": "result", "receipt": receipt, "status": self.status.value}
        signed = p.Envelope("ack", request.device, request.seq, body).signed(key)
        tag = bytes.fromhex(str(signed["mac"])[: 2 * TAG_BYTES])
        return signed if hmac.compare_digest(tag, self.tag) else None


@dataclass(frozen=True, slots=True)
class Poll:
    """A poll heard: ``table``'s turn, and the short acks it carries."""

    table: int
    acks: tuple[ShortAck, ...] = ()


@dataclass(frozen=True, slots=True)
class Nothing:
    """A table's answer to its poll: nothing waiting."""

    table: int


def poll_frame(table: int, acks: Iterable[ShortAck] = ()) -> bytes:
    """The frame of a poll of table ``table`` carrying ``acks`` (at most ``MAX_ACKS``)."""
    payload = bytearray((POLL, *table.to_bytes(2, "big")))
    for count, ack in enumerate(acks):
        if count == MAX_ACKS:
            raise ValueError(f"a poll carries at most {MAX_ACKS} acks")
        payload += ack.table.to_bytes(2, "big") + bytes((ack.seq & SEQ_MASK,))
        if ack.receipt:
            payload += bytes((DUPLICATE,)) + ack.receipt.encode("ascii")
        else:
            payload += bytes((STORED,))
        payload += ack.tag
    return _frame(bytes(payload))


def nothing_frame(table: int) -> bytes:
    """The frame of table ``table``'s "nothing waiting"."""
    return _frame(bytes((NOTHING, *table.to_bytes(2, "big"))))


def _frame(payload: bytes) -> bytes:
    crc = binascii.crc_hqx(payload, CRC_START).to_bytes(2, "big")
    return bytes((MARK,)) + deflate.escape(payload + crc) + b"\n"


def check_line(line: bytes) -> bytes | None:
    """A ``Deframer``'s check for a polled channel: a turn frame's payload (``MARK`` first,
    for ``turn_of``), a plain or deflated frame's envelope bytes, or None if damaged."""
    if not line or line[0] != MARK:
        return deflate.check_line(line)
    data = deflate.unescape(line[1:])
    if data is None or len(data) < 3:
        return None
    payload, crc = data[:-2], data[-2:]
    if binascii.crc_hqx(payload, CRC_START).to_bytes(2, "big") != crc:
        return None
    return bytes((MARK,)) + payload


def deframer(dropped: dict[str, int]) -> p.Deframer:
    """The deframer of a polled channel's ends: turn, deflated and plain frames."""
    return p.Deframer(dropped=dropped, check=check_line)


def turn_of(body: bytes) -> Poll | Nothing | None:
    """The poll or "nothing" ``check_line`` gave; None for an envelope or a bad payload."""
    if len(body) < 4 or body[0] != MARK:
        return None
    kind, table, rest = body[1], int.from_bytes(body[2:4], "big"), body[4:]
    if kind == NOTHING:
        return Nothing(table) if not rest else None
    if kind != POLL:
        return None
    acks: list[ShortAck] = []
    while rest and len(acks) < MAX_ACKS:
        if len(rest) < 4:
            return None
        to, seq, status = _number(rest[:2]), rest[2], rest[3]
        receipt, rest = "", rest[4:]
        if status == DUPLICATE:
            receipt = rest[: p.RECEIPT_LENGTH].decode("ascii", "replace")
            rest = rest[p.RECEIPT_LENGTH :]
            if len(receipt) != p.RECEIPT_LENGTH or not receipt.isascii():
                return None
        elif status != STORED:
            return None
        if len(rest) < TAG_BYTES:
            return None
        tag, rest = rest[:TAG_BYTES], rest[TAG_BYTES:]
        acks.append(ShortAck(to, seq, p.Status.DUPLICATE if receipt else p.Status.STORED,
                             receipt, tag))  # fmt: skip
    return None if rest else Poll(table, tuple(acks))


def _number(two: bytes) -> int:
    return int.from_bytes(two, "big")
