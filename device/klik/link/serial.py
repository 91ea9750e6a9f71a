"""The serial link: the table's requests and the hub's acks over the shared channel.

The channel's own rules (frames, listen before talking, a frame that stops coming, a port
that vanishes) are ``klik.link.channel``'s, which the hub's end (``klik_hub.serial.hub``) uses
too. The link's (``docs/protocol.md``, "The shared serial channel"):

- **One exchange at a time.** A table sends one request (a result or a heartbeat) and waits
  for the hub's ``ack`` with its device, the request's seq and ``of`` the request's type,
  signed with its key. No such ack within ``answer_timeout_s``, or ``HUB_SILENT_S`` of
  silence with no ack, is ``LinkDown``: the courier backs off at random (exponential, full
  jitter: ``klik.link.backoff``) and sends again, and the hub answers a resent result as a
  duplicate, with the first receipt. A frame that is not an envelope or whose MAC is not
  the right one is dropped and counted in ``dropped``.
- **Pushes.** The hub pushes a table's waiting commands as an ``ack`` with ``of:
  "commands"`` (seq 0). The link verifies its MAC and hands it to ``on_push``; the courier
  carries each command out once and acknowledges it in its next heartbeat. A replayed push
  does no harm: the outbox remembers the ids it carried out.

``SerialLink`` is the table's link, in the courier's hands as ``HttpLink`` is: ``send`` an
envelope, get the hub's ``protocol.Ack`` back, whose status is the signed ack's own (no HTTP
codes, no paths). Standard library and pyserial only, as everything on the table.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable

from klik.link import protocol as p
from klik.link.channel import (
    CONTEND_SLOTS,
    HUB_SILENT_S,
    HUB_TURN_S,
    MAX_DOUBLINGS,
    MIN_SLOT_S,
    PACKET_BYTES,
    Channel,
    Port,
    airtime_s,
    default_answer_timeout_s,
    table_quiet_s,
)
from klik.link.reply import LinkDown

log = logging.getLogger("klik.link.serial")


def _ignore(envelope: p.Envelope) -> None:
    """The default ``on_push``: a link whose owner takes no commands."""


#: The statuses an ack over serial answers a request with: the hub answers nothing that is
#: ``invalid`` (``docs/protocol.md``); a signed ``refused`` is a result refused for good.
ANSWERS = frozenset(p.Status) - {p.Status.INVALID}


class SerialLink:
    """The table's link to the hub over a serial channel; the courier's ``send`` and ``close``.

    ``port`` is a device's path (``/dev/ttyUSB0``, ``/dev/serial0``) or an open port;
    ``device`` and ``key`` are the table's pairing. ``on_push`` gets the commands the hub
    pushes, verified, on the reader thread (the courier's ``push``). Defaults come from the
    baud: ``answer_timeout_s`` is the longest frame out and back and a second;
    ``quiet_s`` is the time of ``TABLE_QUIET_BYTES`` bytes, at least ``MIN_TABLE_QUIET_S``.
    The reader starts at once; ``close`` stops it.
    """

    def __init__(
        self,
        port: str | Port,
        baud: int,
        device: str,
        key: bytes,
        *,
        on_push: Callable[[p.Envelope], None] = _ignore,
        answer_timeout_s: float | None = None,
        quiet_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.device = device
        self.key = key
        self.on_push = on_push
        self.clock = clock
        self.rng = rng or random.Random()
        self.answer_timeout_s = (
            default_answer_timeout_s(baud) if answer_timeout_s is None else answer_timeout_s
        )
        self.quiet_s = table_quiet_s(baud) if quiet_s is None else quiet_s
        self.contend_s = CONTEND_SLOTS * max(airtime_s(PACKET_BYTES, baud), MIN_SLOT_S)
        self.silent_s = min(HUB_SILENT_S, self.answer_timeout_s)
        self.channel = Channel(port, baud, self._frame, clock=clock)
        # oversize, crc (the deframer's); json: not an envelope; mac: ours, badly signed;
        # other: not for us or not awaited (other tables' traffic, a late duplicate ack)
        self.dropped = self.channel.dropped
        self.dropped.update({"json": 0, "mac": 0, "other": 0})
        self._misses = 0  # requests in a row that got no answer
        self._awaiting: tuple[int, str] | None = None  # (seq, type) of the request out
        self._answer: tuple[p.Envelope, p.Json] | None = None  # its ack, and signed
        self._sending = threading.Lock()
        self.channel.start()

    def send(self, envelope: p.Envelope, key: bytes) -> p.Ack:
        """Sign one request (a result or a heartbeat of this table) and send it as one frame;
        the hub's signed ack, as the courier's ``Ack``.

        The courier's one call per envelope: the MAC is computed once, here, into the frame.
        Blocks until the channel is quiet and the ack is in: at most ``answer_timeout_s``
        twice and the random wait before talking. The ack's status is the hub's signed
        ``status``, its body the ack's body, ``signed`` the ack envelope (verified here with
        ``key`` already; the courier verifies it again, as it does any carrier's). Raises
        LinkDown when the frame would be too long, the channel stays busy, no valid ack
        comes or the port fails; ValueError for an envelope that is not this table's request
        or a key that is not its key; ProtocolError for one that cannot be signed.
        """
        kind = envelope.type
        if kind not in p.REQUESTS or envelope.device != self.device or key != self.key:
            raise ValueError(f"a {kind} of {envelope.device} does not go by this link")
        signed = envelope.signed(key)
        try:
            line = p.frame_signed(signed)
        except p.ProtocolError:
            raise LinkDown(
                f"{kind} {envelope.seq} is over the {p.MAX_FRAME} bytes of a serial frame"
            ) from None
        name = self.channel.name
        with self._sending:
            backoff_s = self.rng.uniform(
                0.0, self.contend_s * 2 ** min(self._misses, MAX_DOUBLINGS)
            )
            deadline = self.clock() + backoff_s + self.answer_timeout_s
            if not self.channel.wait_quiet(self.quiet_s, deadline, backoff_s):
                raise LinkDown(f"the channel on {name} was busy for {self.answer_timeout_s:g} s")
            with self.channel.changed:
                self._awaiting, self._answer = (envelope.seq, kind), None
            try:
                out_at = self.channel.send(line)
                self._await_answer(out_at, self.clock() + self.answer_timeout_s)
            finally:
                with self.channel.changed:
                    answer, self._answer, self._awaiting = self._answer, None, None
        if answer is None:
            self._misses += 1
            raise LinkDown(f"no answer from the hub on {name}")
        self._misses = 0
        ack, signed_ack = answer
        status = p.Status(ack.body["status"])  # one of ANSWERS: ``_frame`` took no other
        return p.Ack(status, ack.body, signed_ack, seen=f"ack {status}")

    def close(self) -> None:
        """Stop the reader and close the port; a ``send`` under way gets LinkDown."""
        self.channel.close()

    def _await_answer(self, out_at: float, deadline: float) -> None:
        """Wait for the ack until ``deadline``, or until the channel has been silent for
        ``silent_s`` since our frame or since the last byte after it: the hub answers as
        soon as the channel lets it, so silence means that it did not hear us, or that its
        answer was lost on the way."""

        def answered() -> bool:
            return self._answer is not None

        while True:
            busy_until = max(out_at, self.channel.last_heard)
            if self.channel.wait_for(answered, min(busy_until + self.silent_s, deadline)):
                return
            if self.clock() >= deadline or self.channel.last_heard <= busy_until:
                return

    def _frame(self, data: bytes) -> None:
        """One frame heard (the reader thread): an answer, a push, or someone else's."""
        try:
            envelope, mac = p.open_envelope(data)
        except p.ProtocolError:
            self.dropped["json"] += 1
            return
        if envelope.type != "ack":
            # Another table's request: the hub's answer to it comes next.
            self.channel.hold(self.clock() + HUB_TURN_S)
            self.dropped["other"] += 1
            return
        self.channel.hold(-math.inf)  # the hub has taken its turn
        if envelope.device != self.device:
            self.dropped["other"] += 1
            return
        if not p.verify(envelope, mac, self.key):
            self.dropped["mac"] += 1
            return
        of = envelope.body.get("of")
        if of == "commands":
            self.on_push(envelope)
            return
        status = envelope.body.get("status")
        with self.channel.changed:
            if (
                self._awaiting == (envelope.seq, of)
                and self._answer is None
                and p.status_of(status) in ANSWERS
            ):
                self._answer = (envelope, {**envelope.unsigned(), "mac": mac})
                self.channel.changed.notify_all()
                return
        self.dropped["other"] += 1  # a late ack, or one for a request not out any more
