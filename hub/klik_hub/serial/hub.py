"""The hub's end of a serial channel: frames in, signed acks out, commands pushed.

``klik hub --serial DEVICE`` starts one ``SerialHub`` per device, beside the HTTP API and on
the same store. The channel and its rules are ``klik.link.channel``'s; what is the hub's:

- **Every good frame goes to ``inbox.take``**, as an HTTP body does, so both links keep and
  refuse exactly the same envelopes. The answer's ``ack`` goes back as one frame after a
  short quiet (``HUB_QUIET_BYTES``, shorter than a table's gap: answers go first).
- **Only paired devices are answered.** An envelope the hub does not believe or does not
  take (unknown device, bad MAC, not an envelope, another table's result, a result that
  breaks the schema) gets no answer at all: on a shared channel an answer would only cost
  airtime, and a stranger learns nothing from silence. It is counted in ``dropped``.
- **Commands are pushed.** The hub remembers (in memory) which devices it has heard on this
  port lately; every ``push_s`` it pushes each of those tables' waiting commands as an
  ``ack`` with ``of: "commands"`` (seq 0), signed with the table's key. The table carries
  each out once and acknowledges it in its next heartbeat, which marks it done in the store
  (``hall.heartbeats.take``); until then it is pushed again, less often each time (up to
  ``MAX_PUSH_S``), so a table that went quiet does not cost the channel much. A stale
  heartbeat (a replay: its seq not above the last the hub holds) is answered, as over HTTP,
  but is no sign that the table is there.
- **Tables ask to join** (pairing at the table) with unsigned join frames
  (``klik.link.protocol.join_frames``): ``answer_join`` drives the same ``hall.pairing`` as
  the HTTP routes (the request is listed for the judge with ``"link": "serial"``, at most
  ``MAX_REQUESTS`` undecided at once, each forgotten after ``EXPIRES_MS``) and the answer
  goes back as one frame. A join frame that is not one is dropped with one log line,
  counted in ``joins``.

One worker thread answers and pushes, so the hub never talks over itself; the channel's
reader thread only hands frames over. Neither ever ends on an error: a database that is away
loses an answer, and the table sends again.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from klik.link import protocol as p
from klik.link.channel import (
    HUB_QUIET_BYTES,
    MIN_HUB_QUIET_S,
    Channel,
    Port,
    airtime_s,
    default_answer_timeout_s,
)
from klik.link.protocol import join_frames as jf
from klik.link.reply import LinkDown
from klik_hub import hall
from klik_hub.door.escape import escaped
from klik_hub.hall import inbox
from klik_hub.hall.devices import Device, Unbelieved
from klik_hub.hall.pairing import PairingError, Problem
from klik_hub.storage.store import Store

log = logging.getLogger(__name__)

BAUD = 9600  # the HC-12's factory setting, and the table's default serial_baud
HEARD_FOR_S = 180.0  # commands are pushed to a device heard on this port this recently
MAX_PUSH_S = 60.0  # the longest wait between pushes of the same commands
#: What a join frame's ``join-ended`` says for each reason the hub refuses a pairing call.
ENDED = {
    Problem.FULL: jf.Why.FULL,
    Problem.UNKNOWN: jf.Why.UNKNOWN,
    Problem.STATE: jf.Why.STATE,
    Problem.DIGITS: jf.Why.STATE,  # the judge's call only: never a table's
    Problem.REFUSED: jf.Why.REFUSED,
}


@dataclass(frozen=True, slots=True)
class _Told:
    """The commands a device was last told about, and when to push them again."""

    ids: tuple[str, ...]
    every_s: float
    next_at: float


class SerialHub:
    """The hub on one serial port: ``start`` it, ``stop`` it.

    ``port`` is a device's path (reopened after it vanishes) or an open port. ``quiet_s``
    defaults to the time of ``HUB_QUIET_BYTES`` bytes at ``baud``, at least
    ``MIN_HUB_QUIET_S``. ``dropped`` counts the frames not answered: ``oversize`` and ``crc``
    (damaged on the way), ``json`` (not JSON or not an envelope), ``unknown`` (a device not
    paired), ``mac`` (not signed by the device it names) and ``other`` (believed but not
    taken: another table's result, a result that breaks the schema, an ack). ``sent``
    counts the acks and pushes written. ``joins`` counts the join frames: ``answered``,
    ``bad`` (dropped: not a join frame of a table's), ``other`` (a hub's answer, not for
    a hub) and ``unsent`` (the channel was busy).
    """

    def __init__(
        self,
        store: Store,
        port: str | Port,
        baud: int = BAUD,
        *,
        quiet_s: float | None = None,
        push_s: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.push_s = push_s
        self.clock = clock
        self.quiet_s = (
            max(airtime_s(HUB_QUIET_BYTES, baud), MIN_HUB_QUIET_S) if quiet_s is None else quiet_s
        )
        # A table waits this long for its answer; one that has not gone by then is wasted.
        self.answer_within_s = default_answer_timeout_s(baud)
        self._frames: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.channel = Channel(port, baud, self._frames.put, clock=clock)
        self.dropped = self.channel.dropped
        self.dropped.update({"json": 0, "unknown": 0, "mac": 0, "other": 0})
        self.sent = {"acks": 0, "pushes": 0, "unsent": 0}
        self.joins: Counter[str] = Counter()
        self._heard: dict[str, float] = {}  # device → when it was last believed here
        self._told: dict[str, _Told] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the reader and the worker; returns at once."""
        self.channel.start()
        self._thread = threading.Thread(
            target=self._work, name=f"klik-hub-serial {self.channel.name}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop both threads and close the port (idempotent)."""
        self._stop.set()
        self._frames.put(None)  # wakes the worker
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self.channel.close()

    # --- the worker thread ------------------------------------------------------------------

    def _work(self) -> None:
        next_push = self.clock() + self.push_s
        while not self._stop.is_set():
            try:
                data = self._frames.get(timeout=max(0.0, next_push - self.clock()))
            except queue.Empty:
                data = None
            if self._stop.is_set():
                return
            try:
                if data is not None:
                    self._answer(data)
                if self.clock() >= next_push:
                    next_push = self.clock() + self.push_s
                    self._push()
            except Exception:  # the database away, most likely: the table will send again
                log.exception("serial %s: a frame could not be handled", self.channel.name)

    def _answer(self, data: bytes) -> None:
        """Take one frame's envelope; answer it only if it came from a paired device. A
        table's join frame goes to ``_join``."""
        if jf.word_of(data) is not None:
            self._join(data)
            return
        try:
            envelope, _ = p.open_envelope(data)
        except p.ProtocolError:
            self.dropped["json"] += 1
            return
        answer = inbox.take(self.store, data)
        if answer.device is None:
            why = answer.unbelieved
            counted = why.value if why in (Unbelieved.UNKNOWN, Unbelieved.MAC) else "other"
            self.dropped[counted] += 1
            log.info(
                "serial %s: %s %d of %s not answered: %s",
                self.channel.name,
                envelope.type,
                envelope.seq,
                escaped(envelope.device),  # a frame off the air: anyone's text
                escaped(str(answer.body.get("error"))),
            )
            return
        device = answer.device
        if answer.body["status"] != "stale":  # a replay must not make a gone table heard
            self._heard[device.device] = self.clock()
        ack = answer.body["ack"]
        commands = ack["body"].get("commands")
        if isinstance(commands, list):  # a heartbeat's answer lists the waiting commands
            self._note_told(device.device, commands)
            line = _fit(device, envelope.seq, ack["body"], commands, least=0)
        else:
            line = p.frame_signed(ack)
        if line is not None and self._send(line):
            self.sent["acks"] += 1

    # --- pairing at the table ------------------------------------------------------------

    def _join(self, data: bytes) -> None:
        """A table's join frame (the worker thread): taken, and its answer sent."""
        line = self.answer_join(data)
        if line is None:
            return
        if self._send(line):
            self.joins["answered"] += 1
        else:
            self.joins["unsent"] += 1

    def answer_join(self, data: bytes) -> bytes | None:
        """The answer frame to a table's join frame (its body, as the deframer gives it),
        or None for one that is not a table's join frame (logged in one line).

        Each step drives ``hall.pairing`` as its HTTP route does: ``join`` asks (listed for
        the judge with ``"link": "serial"``), ``join-nonce`` reveals the hub's nonce,
        ``join-ask`` answers whether the judge accepted. A call the hub refuses is answered
        ``join-ended`` with the reason. The frame's size is checked before it is parsed
        (``join_frames.MAX_REQUEST``). Writes to the store; sends nothing.
        """
        if jf.word_of(data) in jf.ANSWER_WORDS:
            self.joins["other"] += 1  # a hub's answer (another hub on the band): not ours
            return None
        try:
            asked = jf.parse_request(data)
        except p.ProtocolError as error:
            self.joins["bad"] += 1
            dropped = escaped(str(error))  # off the air: anyone's bytes
            log.warning("serial %s: a join frame dropped: %s", self.channel.name, dropped)
            return None
        said: jf.Answer
        try:
            if isinstance(asked, jf.Hello | jf.Again):
                proof = (asked.device_id, asked.mac) if isinstance(asked, jf.Again) else None
                given = hall.pairing.ask(self.store, asked.table_key, "serial", proof=proof)
                said = jf.Commit(asked.tag, given["id"], given["hub_key"], given["commit"])
                log.info("serial %s: a table asks to join (%s)", self.channel.name, given["id"])
            elif isinstance(asked, jf.TableNonce):
                nonce = hall.pairing.reveal(self.store, asked.request_id, asked.nonce)
                said = jf.Reveal(asked.request_id, nonce)
            else:
                state = hall.pairing.answer(self.store, asked.request_id)
                if state["state"] == "accepted":
                    said = jf.Accepted(asked.request_id, state["table"], state["sealed"])
                else:
                    said = jf.Asking(asked.request_id)
        except PairingError as error:
            said = jf.Ended(asked.tag, ENDED[error.problem])
        return jf.frame(said)

    def heard(self, device: str) -> bool:
        """Whether ``device`` was heard on this port in the last ``HEARD_FOR_S`` (its
        waiting commands are pushed to it)."""
        at = self._heard.get(device)
        return at is not None and self.clock() - at <= HEARD_FOR_S

    def _push(self) -> None:
        """Push each recently heard table's waiting commands, if it is time for them."""
        now = self.clock()
        live = {device for device, at in self._heard.items() if now - at <= HEARD_FOR_S}
        if not live:
            return
        for table in hall.devices.tables(self.store):
            device, commands = table["device"], table["commands"]
            if device not in live or not commands:
                self._told.pop(device, None)
                continue
            told = self._told.get(device)
            if told is not None and told.ids == _ids(commands) and now < told.next_at:
                continue
            known = hall.devices.of(self.store, device)
            if known is None:
                continue  # paired anew since: the new device has not been heard yet
            self._note_told(device, commands)
            line = _fit(known, 0, {"of": "commands"}, commands, least=1)
            if line is None:
                log.warning(
                    "serial %s: command %s for table %d is too long for a frame",
                    self.channel.name,
                    commands[0].get("id"),
                    known.table_no,
                )
            elif self._send(line):
                self.sent["pushes"] += 1

    def _note_told(self, device: str, commands: list[dict[str, Any]]) -> None:
        """The device was told ``commands``: tell it again later, later still each time."""
        ids = _ids(commands)
        told = self._told.get(device)
        every_s = (
            min(told.every_s * 2, MAX_PUSH_S)
            if told is not None and told.ids == ids
            else self.push_s
        )
        self._told[device] = _Told(ids, every_s, self.clock() + every_s)

    def _send(self, line: bytes) -> bool:
        """Write a frame once the channel is quiet; False if it could not be."""
        try:
            if self.channel.wait_quiet(self.quiet_s, self.clock() + self.answer_within_s):
                self.channel.send(line)
                return True
        except LinkDown:
            pass  # the channel has said why, once; the table sends again
        self.sent["unsent"] += 1
        return False


def _ids(commands: list[dict[str, Any]]) -> tuple[str, ...]:
    return tuple(str(command.get("id")) for command in commands)


def _fit(
    device: Device, seq: int, body: dict[str, Any], commands: list[Any], *, least: int
) -> bytes | None:
    """The frame of an ack with as many of ``commands`` (oldest first) as fit, at least
    ``least``; None if not even those fit. The rest follow once these are acknowledged.

    With every command it is the very frame of the ack ``inbox.take`` signed: same
    envelope, same key, same MAC.
    """
    for count in range(len(commands), least - 1, -1):
        envelope = p.Envelope("ack", device.device, seq, {**body, "commands": commands[:count]})
        try:
            return p.frame(envelope, device.key)
        except p.ProtocolError:
            continue
    return None
