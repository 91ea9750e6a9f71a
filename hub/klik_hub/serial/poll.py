"""The hub's end of a polled serial channel: the hub gives each table its turn.

``klik hub --serial DEVICE --serial-channel polled`` starts a ``PolledHub`` instead of a
``SerialHub``. On a polled channel (``docs/protocol.md``, "The polled channel") a table
talks only when polled, so no two tables ever talk at once and nobody listens before
talking. What differs from the listen-before-talk end (``klik_hub.serial.hub``, whose
taking, answering and pushing this reuses):

- **Turns.** One worker thread polls the paired tables in the order ``klik.link.poll``
  gives (a pure schedule): it polls the table by its number (``poll.poll_frame``) and
  listens. The table answers at once with its oldest waiting frame or a "nothing". A frame
  is taken as over the other end (``inbox.take``), but not in the channel's time: the next
  poll goes first, and the frame is stored while that poll's answer comes (``_meanwhile``).
  A heartbeat's signed ack goes back when that turn ends, a result's in the polls after
  (below).
- **Contention slots.** With no table due, the hub polls table ``poll.SLOT``: tables with a
  frame waiting, and tables asking to join, answer in mini-slots (``_slot``).
- **An unanswered poll** (no byte heard within the reply window of its end: learnt from the
  answers heard, ``poll.reply_window``, at most ``reply_s``) is sent again: the
  poll was lost, or the answer is on its way but unheard here, and then the second poll
  harms nothing the hub could have heard. After ``window_s`` (``TURN_S``) without
  a byte the table has missed its turn and is polled later, less often each time.
- **Acks ride in the polls.** A result kept is acknowledged in the next ``ACK_REPEATS``
  polls, whoever they poll, as a short ack (``poll.ShortAck``: 32 bits of the full ack's
  MAC, and a duplicate's receipt), and in every poll of its own table until that
  table answers one: then it has heard it. Any other ack (a heartbeat's, with its commands;
  a conflict; a refusal) goes whole, at the turn's end.
- **Frames are deflated** (``klik.link.deflate``): the whole acks and the pushes; the tables'
  frames too. The MAC is the envelope's, over its uncompressed canonical bytes.
- **Commands** (a judge's pause) do not wait for a table's turn: the hub looks for them
  while an answer comes and pushes a table's waiting commands at the turn's end. The table
  gets a turn ``CARRIED_OUT_S`` later, for the heartbeat that acknowledges them; if it
  answers that turn with "nothing", it did not hear the push, and the push goes again at
  once. Else they go again every ``push_s`` for ``URGENT_S``, then less often while
  unacknowledged. So a pause reaches a table within about a turn and a push, and a lost
  push costs a turn, not a blind wait, and few pushes go again to a table that heard them.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import queue
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from klik.link import deflate, poll
from klik.link import protocol as p
from klik.link.channel import Port, airtime_s, table_quiet_s
from klik.link.protocol import join_frames as jf
from klik.link.reply import LinkDown
from klik_hub import hall
from klik_hub.serial.hub import BAUD, SerialHub
from klik_hub.storage.store import Store

log = logging.getLogger(__name__)

#: A table answers a poll at once; its first byte is heard within this of the poll's end:
REPLY_S = 0.04  # an HC-12 in FU3 loops a byte back in 31 ms (its manual); the rest: the table
REFRESH_S = 2.0  # the paired tables are read from the store this often
#: Unacknowledged commands are pushed again after this for URGENT_S, then less often. A lost
#: push is found sooner, at the table's next turn (``CARRIED_OUT_S``): this is for a table
#: whose turns do not come, and it is longer than a heard push takes to be acknowledged.
PUSH_S = 0.8
URGENT_S = 3.0
TURN_S = 0.6  # the longest a turn goes on with no byte heard (a 2 KiB frame takes 2.1 s)
PUSH_CHECK_S = 0.1  # waiting commands are looked for between turns this often
#: A table pushed commands gets a turn this long after the push went, for the heartbeat that
#: acknowledges them: time for its courier to carry them out and record them on its card.
CARRIED_OUT_S = 0.2
#: A result's short ack goes in this many polls of other tables (each heard by its table
#: with the channel's loss): with a fifth of frames unheard, one table in 25 misses both and
#: has its ack in the poll of its own next turn.
ACK_REPEATS = 2


@dataclass
class _Owed:
    """A short ack the hub owes a table: how many polls of others carried it, and whether
    the last poll of the table itself did (its answer then shows it was heard)."""

    ack: poll.ShortAck
    told: int = 0
    carried: bool = False
    slots: int = 0  # contention slots since it was told ACK_REPEATS times, none answered


#: A short ack told ACK_REPEATS times is taken as heard after this many contention slots
#: that nobody answered: a table that missed it has its result still waiting, and says so.
SLOT_REPEATS = 2
GARBLED = 2  # contention slots garbled in a row before every table is polled
#: A frame unheard by one table at worst on a channel that works (the bench's worst case):
#: a table told its ack ``n`` times has missed them all with ``MISSED ** n``.
MISSED = 0.3
#: A garbled slot is taken as tables that missed their acks only if at least this many are
#: expected to ask (a Poisson mean of 0.5 gives two or more askers one time in eleven).
ASKERS = 0.5


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
        self.channel.deframer = poll.deframer(self.channel.dropped)
        self.reply_s = REPLY_S if reply_s is None else reply_s
        self._delays: deque[float] = deque(maxlen=poll.REPLY_SAMPLES)  # answers' first bytes
        self.slot_s = poll.slot_s(baud)
        # A turn with no byte heard ends after this: a result's unheard answer and its
        # resend fit, and a judge's pause waits behind no longer turn than that.
        self.window_s = min(airtime_s(p.MAX_FRAME, baud), TURN_S) + self.reply_s
        self.idle_s = idle_s
        self.gap_s = table_quiet_s(baud) + REPLY_S  # an answer has ended after this silence
        self.polls: Counter[str] = Counter()
        self._turns: dict[str, poll.Turn] = {}
        self._numbers: dict[str, int] = {}  # device → its table's number, as polls name it
        self._owed: dict[str, _Owed] = {}  # device → the short ack it has not shown it heard
        self._first_told: dict[str, tuple[tuple[str, ...], float]] = {}  # ids, first told at
        self._slot_at = -math.inf  # the next contention slot, when no table is due
        self._push_at = -math.inf  # when to look for commands to push next
        self._clear = False  # the last turn ended with a whole answer: nobody talks now
        self._taken: list[bytes] = []  # frames heard in the last turn, not yet stored
        self._held: list[bytes] | None = None  # whole acks made while a turn goes on
        self._garbled = 0  # contention slots garbled in a row
        self._unheard_push = False  # the turn's table showed it missed its commands' push
        self._pushed_at: dict[str, float] = {}  # device → when its commands last went
        self._pushing: list[str] = []  # devices whose pushes are held until the turn's end

    def _work(self) -> None:
        refresh_at = -math.inf
        while not self._stop.is_set():
            now = self.clock()
            try:
                if now >= refresh_at:
                    rows = hall.devices.tables(self.store)
                    self._numbers = {row["device"]: row["table"] for row in rows if row["device"]}
                    self._turns = poll.joined(self._turns, list(self._numbers))
                    refresh_at = now + REFRESH_S
                device = poll.next_table(self._turns, now)
                # A table due only to be heard from waits while acks still ride the slots:
                # a table that missed its ack asks there, and its turn carries it.
                if device is not None and not (self._turns[device].idle and self._owing()):
                    self._turn(device)
                elif now >= self._slot_at or self._owing():  # tables may ask to join
                    self._slot()
                    self._send_held()
                elif self._taken:
                    self._store_taken()
                elif now >= self._push_at:  # between turns, the polls look (``_meanwhile``)
                    self._push_at = now + PUSH_CHECK_S
                    self._push()
                else:
                    due = min(poll.next_due(self._turns.values()), self._slot_at)
                    self._stop.wait(min(0.05, max(0.0, due - now)))
            except Exception:  # the database away, most likely: the turn is lost, not the hub
                log.exception("serial %s: a turn failed", self.channel.name)
                self._stop.wait(0.1)
        self._store_taken()  # stopping: what was heard is kept all the same

    def _turn(self, device: str) -> None:
        """Poll ``device`` until it answers or ``window_s`` passes; take what it sent."""
        try:
            self._poll_until_answered(device)
        finally:
            if self._unheard_push:  # it did not hear its commands: again at the turn's end
                self._unheard_push = False
                self._push()
            self._send_held()

    def _poll_until_answered(self, device: str) -> None:
        began = self.clock()
        until = began + self.window_s  # the turn is missed with no byte heard by then
        # Right after a whole answer nobody is talking: the poll goes at once. Else (a poll
        # again, a slot, a garbled turn before) the channel must be quiet first.
        quiet_s, self._clear = (0.0 if self._clear else self.quiet_s), False
        while not self._stop.is_set():
            if self._held:  # a poll unanswered: a push found meanwhile goes before it again,
                until += self._send_held()  # and its air is not the table's turn
            try:
                if not self.channel.wait_quiet(quiet_s, until):
                    self._turns[device] = poll.unanswered(self._turns[device], began)
                    return  # someone else's (not ours: noise, a stray table) all its turn
                # A poll sent again may go over the table's answer that the hub does not
                # hear (garbled for everyone): it carries no other table's ack.
                # On a cable (full duplex, no radio's delay) the answer may come before the
                # poll's last byte has left, as far as the hub's reckoning of its airtime goes.
                sent_at = self.clock()
                out_at = self.channel.send(self._poll_frame(device, others=quiet_s == 0.0))
                self.polls["polls"] += 1
                quiet_s = self.quiet_s
                self._meanwhile()  # while the answer comes
                heard = self.channel.wait_for(
                    functools.partial(self._heard_since, sent_at),
                    out_at + poll.reply_window(self._delays, self.reply_s),
                )
                if heard:
                    self._delays.append(max(0.0, self.channel.last_heard - out_at))
            except LinkDown:  # the port is away: the channel has said why, once
                self._stop.wait(0.1)
                return
            if heard:
                owed = self._owed.get(device)
                if owed is not None and owed.carried:
                    del self._owed[device]  # it heard the poll that carried its ack
                self._take_answer(device, began)
                return
            if self.clock() >= until:
                self.polls["missed"] += 1
                self._turns[device] = poll.unanswered(self._turns[device], began)
                return

    def _poll_frame(self, device: str, *, others: bool = True) -> bytes:
        """The poll of ``device`` with the short acks owed: its own, then (``others``) the
        newest of others' that fewer than ``ACK_REPEATS`` polls have carried."""
        acks = []
        own = self._owed.get(device)
        if own is not None:
            own.carried = True
            acks.append(own.ack)
        for other, owed in reversed(self._owed.items() if others else {}.items()):
            if len(acks) == poll.MAX_ACKS:
                break
            if other != device and owed.told < ACK_REPEATS:
                owed.told += 1
                acks.append(owed.ack)
        return poll.poll_frame(self._numbers[device], acks)

    def _unheard(self) -> list[_Owed]:
        """The short acks their tables may not have heard: not yet told ``ACK_REPEATS``
        times and followed by ``SLOT_REPEATS`` slots nobody answered."""
        return [o for o in self._owed.values() if o.told < ACK_REPEATS or o.slots < SLOT_REPEATS]

    def _askers(self) -> float:
        """How many tables are expected to ask in a slot only because they missed every
        telling of their short ack (each missed with ``MISSED``)."""
        return sum(MISSED**o.told for o in self._unheard() if o.told)

    def _owing(self) -> bool:
        """Whether a short ack still has polls to ride in: not yet told ``ACK_REPEATS``
        times, or not yet followed by ``SLOT_REPEATS`` slots nobody answered."""
        return bool(self._unheard())

    def _slot(self) -> None:
        """A contention slot: a poll of ``poll.SLOT`` (with the owed acks least told); the
        tables that answer are due at once, and if answers garble each other every table is.
        A slot nobody answers settles the acks told all their times."""
        owed = sorted(self._owed.values(), key=lambda o: o.told)[: poll.MAX_ACKS]
        for entry in owed:
            entry.told += 1
        try:
            if not self.channel.wait_quiet(self.quiet_s, self.clock() + self.window_s):
                return
            damaged = self._damaged()  # from the slot's poll on: no frame of a turn before
            sent_at = self.clock()
            out_at = self.channel.send(poll.poll_frame(poll.SLOT, [o.ack for o in owed]))
        except LinkDown:
            self._stop.wait(0.1)
            return
        self.polls["slots"] += 1
        self._meanwhile()
        asked: set[int] = set()
        joins: list[bytes] = []  # tables asking to join: answered after the slot
        until = out_at + poll.reply_window(self._delays, self.reply_s) + poll.SLOTS * self.slot_s
        while True:
            left = until - self.clock()
            quiet_s = self.clock() - self.channel.last_heard
            if left <= 0 and (not self.channel.deframer.partial or quiet_s >= self.gap_s):
                break  # the mini-slots are over, and no frame is still coming
            try:
                data = self._frames.get(timeout=max(left, self.gap_s / 2))
            except queue.Empty:
                continue
            if data is None:
                return  # stopping
            said = poll.turn_of(data)
            if isinstance(said, poll.Nothing):
                asked.add(said.table)
            elif jf.word_of(data) is not None:
                joins.append(data)
        self._send_held()
        for data in joins:
            self._join(data)
        now = self.clock()
        # Bytes heard that made no good frame: answers garbled together, even beside one
        # that was heard (then the one heard is due, and the rest are as below).
        garbled = self._damaged() > damaged or (
            self.channel.last_heard > sent_at and not asked and not joins
        )
        # Garbled answers: two tables or more asked, which is unknown. When so few tables
        # can be expected to ask for missed acks (``_askers``) that two of them are unlikely,
        # a table has a new frame (a round's end, when every table has a result): every
        # table is due at once. Else most likely two tables that missed their acks: they
        # pick their mini-slots again in the next slot (whose poll tells their acks once
        # more), and after GARBLED slots in a row so garbled, with nobody heard, every table
        # is due (a slot where one was heard has found one of them: the others try again).
        self._garbled = self._garbled + 1 if garbled and not asked and not joins else 0
        sweep: set[str] = set()
        if garbled and (self._askers() < ASKERS or self._garbled >= GARBLED):
            sweep, self._garbled = set(self._turns), 0
        for device, turn in self._turns.items():
            if self._numbers.get(device) in asked or device in sweep:
                self._turns[device] = poll.wanted(turn, now)
        self.polls["asked"] += len(asked)
        self.polls["garbled slots"] += garbled
        if not asked and not garbled:
            for entry in self._owed.values():
                if entry.told >= ACK_REPEATS:
                    entry.slots += 1
        self._slot_at = now + (0.0 if asked or garbled else poll.SLOT_EVERY_S)

    def _damaged(self) -> int:
        """The frames heard so far that failed their check or ran too long."""
        return self.channel.dropped["crc"] + self.channel.dropped["oversize"]

    def _meanwhile(self) -> None:
        """Right after a poll has gone, the work that needs the disk and not the channel:
        the frames heard in the last turn are stored, waiting commands looked up. What
        they send waits until the turn ends (``_send_held``)."""
        self._store_taken(hold=True)
        if self.clock() >= self._push_at:
            self._push_at = self.clock() + PUSH_CHECK_S
            self._push()

    def _store_taken(self, *, hold: bool = False) -> None:
        """Store (``_answer``) the frames heard in the last turn. Called right after the next
        poll has gone (``hold``), the disk's time is the time its answer takes to come, not
        the channel's: the result's short ack rides the polls after, and a whole ack
        (``_send``) waits until the turn ends (``_send_held``)."""
        taken, self._taken = self._taken, []
        if hold and self._held is None:
            self._held = []
        for data in taken:
            try:
                self._answer(data)
            except Exception:  # the database away, most likely: the table sends again
                log.exception("serial %s: a frame could not be kept", self.channel.name)

    def _send_held(self) -> float:
        """Send the whole acks and pushes made while the turn went on; their airtime."""
        held, self._held = self._held or [], None
        for line in held:
            super()._send(line)
        pushing, self._pushing = self._pushing, []
        for device in pushing:  # their acknowledging turns count from now
            self._pushed(device)
        return sum(airtime_s(len(line), self.channel.baud) for line in held)

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
                self._taken.append(data)  # stored while the next poll's answer comes
                sent = True
                break
            if turn == poll.Nothing(self._numbers[device]):
                nothing = True
                break
        if sent or nothing:
            self.polls["frames" if sent else "nothing"] += 1
        else:
            self.polls["garbled"] += 1  # it talked: poll it again soon
        self._clear = sent or nothing
        if sent or nothing:
            self._turns[device] = poll.answered(
                self._turns[device],
                began,
                idle_s=poll.idle_for(len(self._turns)) if self.idle_s is None else self.idle_s,
            )  # a garbled answer leaves the table due: it is polled again at once
        if nothing:
            self._nothing_told(device, began)

    def _nothing_told(self, device: str, began: float) -> None:
        """``device`` answered its turn begun at ``began`` with "nothing": if it was told of
        commands by then, it did not hear them, and they go again at the turn's end
        (``_turn``); if the turn came sooner, the acknowledging turn is still to come."""
        told = self._told.get(device)
        if told is None or not told.ids:
            return
        carried_out_at = self._pushed_at.get(device, -math.inf) + CARRIED_OUT_S
        if began >= carried_out_at:
            self._told[device] = replace(told, next_at=self.clock())
            self._unheard_push = True
        else:
            turn = self._turns[device]
            self._turns[device] = replace(turn, due_at=carried_out_at, idle=False, urgent=True)

    def _note_told(self, device: str, commands: list[dict[str, Any]]) -> None:
        """The device was told ``commands``: tell it again every ``push_s`` for ``URGENT_S``
        (a pause must arrive within 2 s though pushes are lost), later less often; and give
        it a turn soon, for the heartbeat that acknowledges them."""
        super()._note_told(device, commands)
        if not commands:
            return  # a heartbeat's answer that lists none: nothing to acknowledge
        now = self.clock()
        ids = tuple(str(command.get("id")) for command in commands)
        first = self._first_told.get(device)
        if first is None or first[0] != ids:
            self._first_told[device] = first = (ids, now)
        if now - first[1] < URGENT_S:
            self._told[device] = replace(self._told[device], every_s=self.push_s,
                                         next_at=now + self.push_s)  # fmt: skip
        if self._held is None:
            self._pushed(device)
        else:
            self._pushing.append(device)  # it goes at the turn's end (``_send_held``)

    def _pushed(self, device: str) -> None:
        """``device``'s commands went now: its next turn, before anyone's, is the one that
        brings the heartbeat acknowledging them, once they can have been carried out."""
        now = self._pushed_at[device] = self.clock()
        turn = self._turns.get(device)
        if turn is not None:
            due_at = min(turn.due_at, now + CARRIED_OUT_S)
            self._turns[device] = replace(turn, due_at=due_at, idle=False, urgent=True)

    def _send(self, line: bytes) -> bool:
        """An ack of a result kept goes in the next polls, short (``_poll_frame``); any
        other ack or push is written now, deflated."""
        owed = self._short(line)
        if owed is not None:
            device, ack = owed
            self._owed.pop(device, None)  # last in the order: the newest
            self._owed[device] = _Owed(ack)
            return True
        with contextlib.suppress(ValueError, p.ProtocolError):  # else it goes plain
            line = deflate.squeeze_line(line)
        if self._held is not None:  # a turn goes on: sent at its end
            self._held.append(line)
            return True
        return super()._send(line)

    def _short(self, line: bytes) -> tuple[str, poll.ShortAck] | None:
        """(device, short ack) for the frame of an ack that has a short form, else None."""
        body = p.check_frame(line.rstrip(b"\n"))
        if body is None:
            return None
        try:
            envelope, mac = p.open_envelope(body)
        except p.ProtocolError:
            return None
        table = self._numbers.get(envelope.device)
        if envelope.type != "ack" or table is None:
            return None
        short = poll.ShortAck.of({**envelope.unsigned(), "mac": mac})
        return None if short is None else (envelope.device, short)
