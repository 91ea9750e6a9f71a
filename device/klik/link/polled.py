"""The table's end of a polled serial channel: it talks only when the hub polls it.

``[hub] link = "serial"`` with ``serial_channel = "polled"`` (``docs/protocol.md``, "The
polled channel"). The hub (``klik_hub.serial.poll``) polls each table in turn, by its
number (``poll.poll_frame``); the table answers at once, in its turn, with its waiting frame
(a result or a heartbeat, deflated: ``klik.link.deflate``) or a "nothing". No listening
before talking and no back-off: nobody else talks in its turn.

``PolledLink`` is the courier's link as ``SerialLink`` is: ``send`` an envelope, get the
hub's signed ack back as a ``protocol.Ack``. The hub acknowledges a kept result in its next
polls, to whichever table they go, with a short ack (``poll.ShortAck``: 32 bits of the MAC
of the ack it stands for, which this table alone can make); the poll of this table carries
its ack until it answers, so a table whose ack was lost
answers "nothing" rather than sending its result again. Any other ack comes whole.

``send`` leaves the frame waiting for the next turn and blocks until its ack comes (a turn
or a few later, if the poll or the frame was lost: the frame goes again at each turn until
its ack is in). Pushed commands are handed to ``on_push`` as over the other serial link.
Standard library and pyserial only.
"""

from __future__ import annotations

import hmac
import logging
import random
import threading
import time
from collections.abc import Callable

from klik.link import deflate, poll
from klik.link import protocol as p
from klik.link.channel import Channel, Port
from klik.link.reply import LinkDown
from klik.link.serial import ANSWERS

log = logging.getLogger("klik.link.serial")

#: How long ``send`` waits for its ack: many turns of a channel of thirty tables.
ANSWER_TIMEOUT_S = 60.0


def _ignore(envelope: p.Envelope) -> None:
    """The default ``on_push``: a link whose owner takes no commands."""


class PolledLink:
    """The table's link to the hub over a polled serial channel; ``send`` and ``close``.

    ``port``, ``baud``, ``device``, ``key`` and ``on_push`` as ``SerialLink``'s; ``table``
    is the table's number, which polls name (``renumbered`` changes it). ``turns``
    counts the polls answered: ``frames`` (a waiting frame sent) and ``nothing``. The reader
    starts at once, and answers polls on its own thread; ``close`` stops it.
    """

    def __init__(
        self,
        port: str | Port,
        baud: int,
        device: str,
        key: bytes,
        *,
        table: int,
        on_push: Callable[[p.Envelope], None] = _ignore,
        answer_timeout_s: float = ANSWER_TIMEOUT_S,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.device = device
        self.key = key
        self.table = table
        self.rng = rng or random.Random()
        self.slot_s = poll.slot_s(baud)
        self.on_push = on_push
        self.clock = clock
        self.answer_timeout_s = answer_timeout_s
        self.channel = Channel(port, baud, self._frame, clock=clock)
        self.channel.deframer = poll.deframer(self.channel.dropped)
        self.dropped = self.channel.dropped
        self.dropped.update({"json": 0, "mac": 0, "other": 0})
        self.turns = {"frames": 0, "nothing": 0, "short acks": 0, "asked": 0}
        self._waiting: bytes | None = None  # the frame to send in our turn
        self._request: p.Envelope | None = None  # the request out, until its ack comes
        self._answer: tuple[p.Envelope, p.Json] | None = None  # its ack, and signed
        self._expected: p.Json | None = None  # a result's ack if stored, signed here
        self._pushed = False  # commands came while a request waited for its ack
        self.channel.start()

    def send(self, envelope: p.Envelope, key: bytes) -> p.Ack:
        """Sign one request of this table, send it in its turns until the hub's signed ack
        comes, and return that ack as the courier's ``Ack``.

        Blocks up to ``answer_timeout_s``; then, or when the port fails, LinkDown. ValueError
        for an envelope that is not this table's request or a key that is not its key;
        LinkDown for one whose frame would be too long even deflated.
        """
        kind = envelope.type
        if kind not in p.REQUESTS or envelope.device != self.device or key != self.key:
            raise ValueError(f"a {kind} of {envelope.device} does not go by this link")
        signed = envelope.signed(key)
        try:
            line = deflate.squeeze(p.canonical(signed, max_depth=p.ENVELOPE_DEPTH))
        except p.ProtocolError:
            raise LinkDown(
                f"{kind} {envelope.seq} is over the {p.MAX_FRAME} bytes of a serial frame"
            ) from None
        expected = None
        if kind == "result":  # the hub's ack if it stores it: its tag is what polls carry
            expected = poll.ack_of(envelope, key)
        with self.channel.changed:
            self._waiting, self._request, self._answer = line, envelope, None
            self._expected = expected
            self._pushed = False
        try:
            self.channel.wait_for(lambda: self._answer is not None or self._pushed,
                                  self.clock() + self.answer_timeout_s)  # fmt: skip
        finally:
            with self.channel.changed:
                answer, self._answer = self._answer, None
                self._waiting = self._request = None
        if answer is None and self._pushed:
            # A judge's pause must not wait for this ack: the courier carries the command
            # out now and sends this again (the hub answers a resent result as a duplicate).
            raise LinkDown("the hub pushed a command: it goes first")
        if answer is None:
            raise LinkDown(f"no answer from the hub on {self.channel.name}")
        ack, signed_ack = answer
        status = p.Status(ack.body["status"])
        return p.Ack(status, ack.body, signed_ack, seen=f"ack {status}")

    @property
    def busy(self) -> bool:
        """Whether a request is out, its ack not yet in."""
        with self.channel.changed:
            return self._request is not None

    def renumbered(self, table: int) -> None:
        """The hub gave this table another number: polls of it name that one from now."""
        self.table = table

    def close(self) -> None:
        """Stop the reader and close the port; a ``send`` under way gets LinkDown."""
        self.channel.close()

    def _frame(self, data: bytes) -> None:
        """One frame heard (the reader thread): a poll (ours or not, with acks maybe), an
        answer, a push, or not ours."""
        if data[:1] == bytes((poll.MARK,)):
            turn = poll.turn_of(data)
            if isinstance(turn, poll.Poll):
                for short in turn.acks:
                    self._short_ack(short)
                if turn.table == self.table:
                    self._take_turn()
                elif turn.table == poll.SLOT:
                    self._ask_for_turn()
            elif turn is None:
                self.dropped["other"] += 1
            return  # a "nothing": another table's turn
        try:
            envelope, mac = p.open_envelope(data)
        except p.ProtocolError:
            self.dropped["json"] += 1
            return
        if envelope.type != "ack" or envelope.device != self.device:
            self.dropped["other"] += 1
            return
        if not p.verify(envelope, mac, self.key):
            self.dropped["mac"] += 1
            return
        of = envelope.body.get("of")
        if of == "commands":
            self.on_push(envelope)
            with self.channel.changed:
                self._pushed = True
                self.channel.changed.notify_all()
            return
        with self.channel.changed:
            request = self._request
            if (
                request is not None
                and (request.seq, request.type) == (envelope.seq, of)
                and self._answer is None
                and p.status_of(envelope.body.get("status")) in ANSWERS
            ):
                self._answer = (envelope, {**envelope.unsigned(), "mac": mac})
                self._waiting = None  # taken: not sent again
                self.channel.changed.notify_all()
                return
        self.dropped["other"] += 1  # a late ack, or one for a request not out any more

    def _short_ack(self, short: poll.ShortAck) -> None:
        """A short ack in a poll: the answer to the result out, if its tag is of this
        table's ack of that result (made with this table's key); else another table's, a
        repeat of an earlier one, or forged, all let go alike."""
        with self.channel.changed:
            request = self._request
            if request is None or self._answer is not None:
                return
            if short.receipt:  # a duplicate's: the receipt is the first copy's
                signed = short.opened(request, self.key)
            else:
                signed = self._expected
                if signed is None or not hmac.compare_digest(poll.tag_of(signed), short.tag):
                    return
            if signed is None:
                return
            envelope, _ = p.open_envelope(signed)
            self._answer = (envelope, signed)
            self._waiting = None  # taken: not sent again
            self.turns["short acks"] += 1
            self.channel.changed.notify_all()

    def _ask_for_turn(self) -> None:
        """A contention slot: with a frame waiting, say so in a mini-slot picked at random."""
        with self.channel.changed:
            if self._waiting is None:
                return
        delay_s = self.rng.randrange(poll.SLOTS) * self.slot_s
        timer = threading.Timer(delay_s, self._say_waiting)
        timer.daemon = True
        timer.start()

    def _say_waiting(self) -> None:
        try:
            self.channel.send(poll.nothing_frame(self.table))
        except LinkDown:
            return  # the channel has said why; the hub polls again
        self.turns["asked"] += 1

    def _take_turn(self) -> None:
        """Our turn: the waiting frame, or "nothing", at once; not while our answer to a
        poll before is still on the wire (this one was sent again over it, unheard)."""
        if self.channel.talking:
            return
        with self.channel.changed:
            line = self._waiting
        try:
            self.channel.send(line or poll.nothing_frame(self.table))
        except LinkDown:
            return  # the channel has said why; the hub polls again
        self.turns["frames" if line else "nothing"] += 1
