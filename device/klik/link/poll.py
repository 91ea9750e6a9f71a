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
  ``klik_hub.serial.poll``);
- **no answer** (the poll or the answer lost, or the table away): due again after a back-off
  that doubles with each miss in a row, from ``retry_s`` up to ``max_retry_s``, so a table
  that is switched off costs the channel little.

Among the tables due, a table told of commands (``urgent``: its turn brings the heartbeat
that acknowledges a judge's pause) goes first; then those with something to send (new,
asking, or not heard last time) before those due only to be heard from; then the one whose
turn has been due longest, and of those the one polled least recently: every table due is
polled before any is polled twice.
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
    whether it is due only to be heard from (``idle``: it answered last time and has not
    asked since), which waits while any table is due with something to send, and whether
    it is due to acknowledge commands (``urgent``), which waits for no other table."""

    due_at: float = -math.inf
    polled_at: float = -math.inf
    misses: int = 0
    idle: bool = False
    urgent: bool = False


def next_table(turns: Mapping[str, Turn], now: float) -> str | None:
    """The device to poll now, or None if no table is due."""
    due = [(not turn.urgent, turn.idle, turn.due_at, turn.polled_at, device)
           for device, turn in turns.items() if turn.due_at <= now]  # fmt: skip
    return min(due)[-1] if due else None


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


#: The reply window is learnt from the delays of the answers heard: this many of the last.
REPLY_SAMPLES = 64
MIN_REPLY_S = 0.012  # never shorter: a byte-time, the OS's scheduling, the table's reaction


def reply_window(delays: Iterable[float], ceiling: float) -> float:
    """How long the hub waits for an answer's first byte before it polls again, from the
    ``delays`` (seconds, poll's end to first byte) of the last answers heard: their 95th
    percentile, half again and 4 ms, between ``MIN_REPLY_S`` and ``ceiling`` (the radio's
    own turnaround: an HC-12's 31 ms and the table's). A window too short costs little
    unless an answer begins while the poll sent again is on the air (the hub, talking,
    misses its start); so it keeps well clear of the slow answers seen, as TCP's
    retransmission timer does of its round trips. Until ``REPLY_SAMPLES // 4`` answers are
    in, the ceiling."""
    seen = sorted(delays)
    if len(seen) < REPLY_SAMPLES // 4:
        return ceiling
    slow = seen[min(len(seen) - 1, math.ceil(0.95 * len(seen)) - 1)]
    return min(ceiling, max(MIN_REPLY_S, 1.5 * slow + 0.004))


SLOT = 0  # the table number a contention slot's poll names: any table with a frame waiting
SLOTS = 4  # a contention slot's mini-slots: a table answers in one picked at random
SLOT_EVERY_S = 0.15  # with no table due, a contention slot this often
SLOT_GUARD_S = 0.005  # a mini-slot's margin for the nodes' reaction times
#: A "nothing" frame's bytes (``nothing_frame``) of a table under 128; an escape or a
#: larger number adds a byte, which the mini-slot's guard covers.
NOTHING_BYTES = 6


def slot_s(baud: int) -> float:
    """A mini-slot at ``baud``: a "nothing" on the wire (10 bits a byte) and the guard."""
    return NOTHING_BYTES * 10 / baud + SLOT_GUARD_S


# --- the turn's frames ------------------------------------------------------------------
# A poll and a "nothing" are short binary frames (``docs/protocol.md``, "Turn frames"):
# ``MARK``, then, escaped as a deflated frame is (``deflate.escape``), the payload and its
# CRC-16/CCITT-FALSE (2 bytes, big-endian), then ``\n``. The payload:
#
# - a poll (hub → every table): ``POLL`` plus the count of "stored" short acks it carries
#   (one byte: ``P`` for none), the polled table's number (``number_bytes``), then those
#   acks, each ``TAG_BYTES`` bytes: the start of the MAC of the full ack the hub would
#   have sent (the table knows that ack's receipt, it is the hash of what it sent); then
#   each "duplicate" ack: the five signs of its receipt (the first copy's) and its tag;
# - a "nothing" (table → hub): ``.`` and the table's number.
#
# Every byte of a turn is the channel's overhead on a result's turn, so none is spare: the
# count rides in the kind's byte and a number under 128 takes one byte.
# A short ack names neither table nor seq: the tag is of the ack of one table's one result,
# under that table's key, and the table with that result out knows which tag to look for.
# Polls are not signed, but every short ack is: a forged poll makes a table answer, a
# forged "nothing" delays one table's next poll by its idle time, and a believed short ack
# must carry 32 bits of the table's own HMAC, so nobody without the key can make a table
# believe a result kept. Tables are named by number here, not device id: a byte or two, not
# a dozen.

MARK = 0x1D  # never the first byte of a plain (``{``) or deflated (0x1e) frame
CRC_START = 0xFFFF  # CRC-16/CCITT-FALSE: a turn frame is a few dozen bytes
POLL = ord("P")  # a poll carrying no stored ack; ``POLL + k``: carrying k of them
NOTHING = ord(".")
TAG_BYTES = 4
MAX_ACKS = 4  # short acks a poll carries at most
MAX_TABLE = 0x7FFF  # the most a number's two bytes hold (``number_bytes``)


def number_bytes(table: int) -> bytes:
    """A table's number as turn frames carry it: one byte under 128, else two, big-endian,
    the first with its top bit set. Each number has this one form."""
    if not 0 <= table <= MAX_TABLE:
        raise ValueError(f"table {table}: turn frames name 0 to {MAX_TABLE}")
    return bytes((table,)) if table < 0x80 else (0x8000 | table).to_bytes(2, "big")


def _number_at(data: bytes, at: int) -> tuple[int, int] | None:
    """The table's number (``number_bytes``) at ``data[at:]`` and the index after it; None
    if cut short or not in its one form."""
    if at >= len(data):
        return None
    first = data[at]
    if first < 0x80:
        return first, at + 1
    if at + 1 >= len(data):
        return None
    table = (first & 0x7F) << 8 | data[at + 1]
    return (table, at + 2) if table >= 0x80 else None


@dataclass(frozen=True, slots=True)
class ShortAck:
    """The hub's ack of a result in a poll: its status, ``receipt`` ("" when stored: the
    table works it out), and ``tag``, the start of the full ack's MAC."""

    status: p.Status  # STORED or DUPLICATE
    receipt: str
    tag: bytes

    @classmethod
    def of(cls, signed_ack: p.Json) -> ShortAck | None:
        """The short form of the hub's signed ack of a result; None for an ack that has
        none (a conflict, a refusal, a heartbeat's answer)."""
        body = signed_ack.get("body")
        mac = signed_ack.get("mac")
        if not isinstance(body, dict) or not isinstance(mac, str) or body.get("of") != "result":
            return None
        status, receipt = body.get("status"), body.get("receipt")
        if status not in (p.Status.STORED, p.Status.DUPLICATE) or not isinstance(receipt, str):
            return None
        if set(body) != {"of", "status", "receipt"} or len(receipt) != p.RECEIPT_LENGTH:
            return None
        said = "" if status == p.Status.STORED else receipt
        return cls(p.Status(status), said, bytes.fromhex(mac[: 2 * TAG_BYTES]))

    def opened(self, request: p.Envelope, key: bytes) -> p.Json | None:
        """The hub's full signed ack this stands for, if it acknowledges ``request`` (a
        result of this table's) and its tag is the key's; else None. The link hands the
        courier this envelope, signed here with the same key the hub signs with: it is
        the very ack the hub would have sent, and the tag proves the hub made it."""
        if request.type != "result":
            return None
        signed = ack_of(request, key, self.status, self.receipt)
        return signed if hmac.compare_digest(tag_of(signed), self.tag) else None


def ack_of(
    request: p.Envelope, key: bytes, status: p.Status = p.Status.STORED, receipt: str = ""
) -> p.Json:
    """The hub's signed ack of ``request`` (a result) with ``status``: made with the table's
    ``key`` as the hub makes it, the receipt (stored) the hash of what the table sent."""
    receipt = receipt or p.receipt(
        {"device": request.device, "seq": request.seq, "body": request.body}
    )
    body = {"of": "result", "receipt": receipt, "status": status.value}
    return p.Envelope("ack", request.device, request.seq, body).signed(key)


def tag_of(signed_ack: p.Json) -> bytes:
    """The tag a short ack of ``signed_ack`` (a signed envelope) carries."""
    return bytes.fromhex(str(signed_ack["mac"])[: 2 * TAG_BYTES])


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
    acks = list(acks)
    if len(acks) > MAX_ACKS:
        raise ValueError(f"a poll carries at most {MAX_ACKS} acks")
    stored = [ack for ack in acks if not ack.receipt]
    payload = bytearray((POLL + len(stored),)) + number_bytes(table)
    for ack in stored:
        payload += ack.tag
    for ack in acks:
        if ack.receipt:
            payload += ack.receipt.encode("ascii") + ack.tag
    return _frame(bytes(payload))


def nothing_frame(table: int) -> bytes:
    """The frame of table ``table``'s "nothing waiting"."""
    return _frame(bytes((NOTHING,)) + number_bytes(table))


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
    if len(body) < 3 or body[0] != MARK:
        return None
    kind, number = body[1], _number_at(body, 2)
    if number is None:
        return None
    table, rest = number[0], body[number[1] :]
    if kind == NOTHING:
        return Nothing(table) if not rest else None
    stored = kind - POLL
    if not 0 <= stored <= MAX_ACKS:
        return None
    duplicate = p.RECEIPT_LENGTH + TAG_BYTES
    if len(rest) < stored * TAG_BYTES or (len(rest) - stored * TAG_BYTES) % duplicate:
        return None
    if stored + (len(rest) - stored * TAG_BYTES) // duplicate > MAX_ACKS:
        return None
    acks = [ShortAck(p.Status.STORED, "", rest[i : i + TAG_BYTES])
            for i in range(0, stored * TAG_BYTES, TAG_BYTES)]  # fmt: skip
    rest = rest[stored * TAG_BYTES :]
    for i in range(0, len(rest), duplicate):
        receipt = rest[i : i + p.RECEIPT_LENGTH].decode("ascii", "replace")
        if not receipt.isascii():
            return None
        tag = rest[i + p.RECEIPT_LENGTH : i + duplicate]
        acks.append(ShortAck(p.Status.DUPLICATE, receipt, tag))
    return Poll(table, tuple(acks))
