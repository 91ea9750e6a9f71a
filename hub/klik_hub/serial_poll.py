"""The hub's end of a polled serial channel: the hub gives each table its turn.

``klik hub --serial DEVICE --serial-channel polled`` starts a ``PolledHub`` instead of a
``SerialHub``. On a polled channel (``docs/protocol.md``, "The polled channel") a table
talks only when polled, so no two tables ever talk at once and nobody listens before
talking. What differs from the listen-before-talk end (``klik_hub.serial_hub``, whose
taking, answering and pushing this reuses):

- **Turns.** One worker thread polls the paired tables in the order ``klik.link.poll``
  gives (a pure schedule): it sends ``?device`` and listens. The table answers at once with
  its oldest waiting frame or ``.device`` ("nothing"). A frame is taken as over the other
  end (``inbox.take``) and its signed ack goes back at once, in the hub's turn.
- **An unanswered poll** (no byte heard within ``reply_s`` of its end) is sent again: the
  poll was lost, or the answer is on its way but unheard here, and then the second poll
  harms nothing the hub could have heard. After ``window_s`` (the longest answer) without
  a byte the table has missed its turn and is polled later, less often each time.
- **Frames are deflated** (``klik.link.deflate``): the acks and the pushes; the tables'
  frames too. The MAC is the envelope's, over its uncompressed canonical bytes.
- **Commands** (a judge's pause) do not wait for a table's turn: between two turns the hub
  pushes a table's waiting commands, again every ``push_s`` for ``URGENT_S`` and then less
  often while unacknowledged, so a pause reaches a table within about a turn and a push;
  the table gets a turn ``CARRIED_OUT_S`` later, for the heartbeat that acknowledges them.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import queue
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from klik.link import deflate, poll
from klik.link import protocol as p
from klik.link.channel import PACKET_BYTES, Port, airtime_s, table_quiet_s
from klik.link.reply import LinkDown
from klik_hub import hall
from klik_hub.serial_hub import BAUD, SerialHub
from klik_hub.store import Store

log = logging.getLogger(__name__)

#: A table answers a poll at once; its first byte is heard within a radio packet's time and
#: this (the table's reader thread, the OS, the radio module's turnaround).
REPLY_S = 0.05
REFRESH_S = 2.0  # the paired tables are read from the store this often
PUSH_S = 0.4  # a waiting command is pushed again after this for URGENT_S, then doubling
URGENT_S = 3.0
CARRIED_OUT_S = 0.3  # a table told of commands gets a turn this soon, for its acknowledgement


class PolledHub(SerialHub):
    """The hub on one polled serial port: ``start`` it, ``stop`` it.

    ``polls`` counts the turns: ``polls`` sent, ``frames`` and ``nothing`` answers, ``missed``
    turns (no byte within ``window_s``) and ``garbled`` ones (bytes, no good frame).
    """

    def __init__(
        self,
        store: Store,
        port: str | Port,
        baud: int = BAUD,
        *,
        reply_s: float | None = None,
        idle_s: float | None = None,
        push_s: float = PUSH_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(store, port, baud, push_s=push_s, clock=clock)
        self.channel.deframer = deflate.deframer(self.channel.dropped)
        self.reply_s = airtime_s(PACKET_BYTES, baud) + REPLY_S if reply_s is None else reply_s
        self.window_s = airtime_s(p.MAX_FRAME, baud) + self.reply_s
        self.idle_s = idle_s
        self.gap_s = table_quiet_s(baud) + REPLY_S  # an answer has ended after this silence
        self.polls: Counter[str] = Counter()
        self._turns: dict[str, poll.Turn] = {}
        self._first_told: dict[str, tuple[tuple[str, ...], float]] = {}  # ids, first told at

    def _work(self) -> None:
        refresh_at = -math.inf
        while not self._stop.is_set():
            now = self.clock()
            try:
                if now >= refresh_at:
                    paired = [row["device"] for row in hall.devices.tables(self.store)]
                    self._turns = poll.joined(self._turns, [d for d in paired if d])
                    refresh_at = now + REFRESH_S
                self._push()
                device = poll.next_table(self._turns, now)
                if device is None:
                    self._stop.wait(min(0.05, max(0.0, poll.next_due(self._turns.values()) - now)))
                    continue
                self._turn(device)
            except Exception:  # the database away, most likely: the turn is lost, not the hub
                log.exception("serial %s: a turn failed", self.channel.name)
                self._stop.wait(0.1)

    def _turn(self, device: str) -> None:
        """Poll ``device`` until it answers or ``window_s`` passes; take what it sent."""
        began = self.clock()
        line = poll.turn_frame(poll.POLL, device)
        while not self._stop.is_set():
            try:
                if not self.channel.wait_quiet(self.quiet_s, began + self.window_s):
                    self._turns[device] = poll.unanswered(self._turns[device], began)
                    return  # someone else's (not ours: noise, a stray table) all its turn
                out_at = self.channel.send(line)
                self.polls["polls"] += 1
                heard = self.channel.wait_for(
                    functools.partial(self._heard_since, out_at), out_at + self.reply_s
                )
            except LinkDown:  # the port is away: the channel has said why, once
                self._stop.wait(0.1)
                return
            if heard:
                self._take_answer(device, began)
                return
            if self.clock() - began >= self.window_s:
                self.polls["missed"] += 1
                self._turns[device] = poll.unanswered(self._turns[device], began)
                return

    def _heard_since(self, at: float) -> bool:
        return self.channel.last_heard > at

    def _take_answer(self, device: str, began: float) -> None:
        """Bytes are coming: a table answers with one frame, so the turn ends with the first
        frame, or when the channel has been quiet ``gap_s`` with none (garbled)."""
        sent = nothing = False
        while True:
            try:
                data = self._frames.get(timeout=self.gap_s)
            except queue.Empty:
                if self.clock() - self.channel.last_heard >= self.gap_s:
                    break
                continue
            if data is None:
                return  # stopping
            turn = poll.turn_of(data)
            if turn is None:
                self._answer(data)
                sent = True
                break
            if turn == (poll.NOTHING, device):
                nothing = True
                break
        if sent or nothing:
            self.polls["frames" if sent else "nothing"] += 1
        else:
            self.polls["garbled"] += 1  # it talked: poll it again soon
        self._turns[device] = poll.answered(
            self._turns[device],
            began,
            sent=sent or not nothing,
            idle_s=poll.idle_for(len(self._turns)) if self.idle_s is None else self.idle_s,
        )

    def _note_told(self, device: str, commands: list[dict[str, Any]]) -> None:
        """The device was told ``commands``: tell it again every ``push_s`` for ``URGENT_S``
        (a pause must arrive within 2 s though pushes are lost), later less often; and give
        it a turn soon, for the heartbeat that acknowledges them."""
        now = self.clock()
        ids = tuple(str(command.get("id")) for command in commands)
        first = self._first_told.get(device)
        if first is None or first[0] != ids:
            self._first_told[device] = first = (ids, now)
        super()._note_told(device, commands)
        if now - first[1] < URGENT_S:
            self._told[device] = replace(self._told[device], every_s=self.push_s,
                                         next_at=now + self.push_s)  # fmt: skip
        turn = self._turns.get(device)
        if turn is not None and turn.due_at > now + CARRIED_OUT_S:
            self._turns[device] = replace(turn, due_at=now + CARRIED_OUT_S)

    def _send(self, line: bytes) -> bool:
        """Write an ack or a push, deflated."""
        with contextlib.suppress(ValueError, p.ProtocolError):  # else it goes plain
            line = deflate.squeeze_line(line)
        return super()._send(line)
