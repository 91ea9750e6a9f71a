"""Pairing at the table over the serial link: the joiner's steps as frames on the channel.

A table with ``[hub] link = "serial"`` and nothing from pairing asks to join over its serial
port (``docs/protocol.md``, "Pairing at the table" and "The serial link"). ``SerialJoin`` is
the ``klik.link.joining.Transport`` for it: each step is one frame out and one frame back
(``protocol.join_frames``), unsigned, since the table has no key yet; what they carry is
public or sealed, as over HTTP, and the digits the judge compares catch a man in the middle.

The channel's rules are the serial link's (``klik.link.channel``): the table listens before
talking, with a random wait that doubles after each step that got no answer; a table that
hears another table's request leaves the channel to the hub for ``HUB_TURN_S``. A step with
no answer within ``answer_timeout_s`` is ``LinkDown`` (the joiner starts over, or asks again
in step 3); an answer for another table (its tag) is not ours. A join frame that is not one
(garbled past its CRC, a field of the wrong size) is dropped, counted in ``dropped["join"]``
and logged in one line; the table goes on waiting. The channel takes plain and deflated
frames alike, so a hub on a polled channel may deflate its answers.

On a polled channel (``polled=True``) nobody talks out of turn: a step's frame goes in the
hub's next contention slot (a poll of ``poll.SLOT``), after a mini-slot picked at random, as a
table with a frame waiting answers one (``klik.link.poll``); the hub answers it right after
the slot. Standard library and pyserial only, as everything on the table.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable

from klik.link import deflate, poll
from klik.link import protocol as p
from klik.link.channel import (
    CONTEND_SLOTS,
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
from klik.link.joining import EndedError
from klik.link.protocol import join_frames as jf
from klik.link.protocol import pairing as x
from klik.link.reply import LinkDown

log = logging.getLogger("klik.link.serial")


class SerialJoin:
    """The join exchange over a serial channel on ``port`` at ``baud``; ``close`` it before
    the courier's link opens the same port.

    ``port``: a device's path or an open port. Defaults come from the baud as the serial
    link's do. ``dropped`` counts the frames not taken: ``oversize`` and ``crc`` (the
    deframer's), ``join`` (a join frame that is not one) and ``other`` (the channel's other
    traffic, and other tables' answers).
    """

    def __init__(
        self,
        port: str | Port,
        baud: int,
        *,
        answer_timeout_s: float | None = None,
        quiet_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        polled: bool = False,
        paired_as: tuple[str, str] | None = None,
    ) -> None:
        # A paired table asking again: its device id and key, whose proof (``join-again``)
        # lets the hub carry its results to the new number.
        self.paired_as = paired_as
        self.clock = clock
        self.polled = polled
        self.slot_s = poll.slot_s(baud)
        self.rng = rng or random.Random()
        self.answer_timeout_s = (
            default_answer_timeout_s(baud) if answer_timeout_s is None else answer_timeout_s
        )
        self.quiet_s = table_quiet_s(baud) if quiet_s is None else quiet_s
        self.contend_s = CONTEND_SLOTS * max(airtime_s(PACKET_BYTES, baud), MIN_SLOT_S)
        self.channel = Channel(port, baud, self._frame, clock=clock)
        self.channel.deframer = (poll.deframer if polled else deflate.deframer)(
            self.channel.dropped
        )
        self._slot_at = -math.inf  # when the last contention slot's poll was heard
        self.where = f"the hub on {self.channel.name}"
        self.dropped = self.channel.dropped
        self.dropped.update({"join": 0, "other": 0})
        self._misses = 0  # steps in a row that got no answer
        self._awaiting: tuple[str, tuple[type, ...]] | None = None  # (tag, answers taken)
        self._answer: jf.Answer | None = None
        self._sending = threading.Lock()
        self._closed = False
        self.channel.start()

    def hello(self, table_key: str) -> tuple[str, object, object]:
        asked: jf.Hello | jf.Again = jf.Hello(table_key)
        if self.paired_as is not None:
            device, key = self.paired_as
            asked = jf.Again(table_key, device, x.repair_proof(key, table_key))
        said = self._exchange(asked, (jf.Commit,))
        assert isinstance(said, jf.Commit)
        return said.request_id, said.hub_key, said.commit

    def nonce(self, request_id: str, table_nonce: str) -> object:
        said = self._exchange(jf.TableNonce(request_id, table_nonce), (jf.Reveal,))
        assert isinstance(said, jf.Reveal)
        return said.nonce

    def ask(self, request_id: str) -> object | None:
        said = self._exchange(jf.Ask(request_id), (jf.Asking, jf.Accepted))
        return said.sealed if isinstance(said, jf.Accepted) else None

    def close(self) -> None:
        """Stop the reader and close the port (idempotent); a step under way gets LinkDown."""
        self._closed = True
        self.channel.close()

    def _exchange(self, asked: jf.Request, answers: tuple[type, ...]) -> jf.Answer:
        """Send one step's frame once the channel is free and wait for the hub's answer to
        it (by its tag); EndedError for a ``join-ended``, LinkDown for none."""
        name = self.channel.name
        if self._closed:
            raise LinkDown(f"{name} is closed")
        with self._sending:
            if self.polled:
                self._wait_for_slot()
            else:
                backoff_s = self.rng.uniform(
                    0.0, self.contend_s * 2 ** min(self._misses, MAX_DOUBLINGS)
                )
                deadline = self.clock() + backoff_s + self.answer_timeout_s
                if not self.channel.wait_quiet(self.quiet_s, deadline, backoff_s):
                    why = f"was busy for {self.answer_timeout_s:g} s"
                    raise LinkDown(f"the channel on {name} {why}")
            with self.channel.changed:
                self._awaiting, self._answer = (asked.tag, (*answers, jf.Ended)), None
            try:
                self.channel.send(jf.frame(asked))
                self.channel.wait_for(
                    lambda: self._answer is not None, self.clock() + self.answer_timeout_s
                )
            finally:
                with self.channel.changed:
                    said, self._answer, self._awaiting = self._answer, None, None
        if said is None:
            self._misses += 1
            raise LinkDown(f"no answer from the hub on {name} to {jf.body_of(asked)[:10]!r}")
        self._misses = 0
        if isinstance(said, jf.Ended):
            raise EndedError(f"the hub ended the request ({said.why.value})")
        return said

    def _wait_for_slot(self) -> None:
        """Wait for the hub's next contention slot, then for a mini-slot picked at random;
        LinkDown if none comes within ``answer_timeout_s``."""
        since = self.clock()
        if not self.channel.wait_for(lambda: self._slot_at > since, since + self.answer_timeout_s):
            raise LinkDown(f"no contention slot on {self.channel.name}")
        mine = self._slot_at + self.rng.randrange(poll.SLOTS) * self.slot_s
        self.channel.wait_for(lambda: self._closed, mine)  # the mini-slot picked: a few ms

    def _frame(self, data: bytes) -> None:
        """One frame heard (the reader thread): our answer, or someone else's traffic."""
        if data[:1] == bytes((poll.MARK,)):
            turn = poll.turn_of(data)
            if isinstance(turn, poll.Poll) and turn.table == poll.SLOT:
                with self.channel.changed:
                    self._slot_at = self.clock()
                    self.channel.changed.notify_all()
            self.dropped["other"] += 1
            return
        word = jf.word_of(data)
        if word is None:  # the channel's other traffic: an envelope, a poll
            if data[:1] == b"{" and b'"type":"ack"' not in data:
                self.channel.hold(self.clock() + HUB_TURN_S)  # a request: the hub answers next
            else:
                self.channel.hold(-math.inf)  # the hub has taken its turn
            self.dropped["other"] += 1
            return
        if word in jf.REQUEST_WORDS:  # another table asks to join: the hub answers next
            self.channel.hold(self.clock() + HUB_TURN_S)
            self.dropped["other"] += 1
            return
        self.channel.hold(-math.inf)  # the hub has taken its turn
        try:
            said = jf.parse_answer(data)
        except p.ProtocolError as error:
            self.dropped["join"] += 1
            log.warning("pairing: a join frame on %s dropped: %s", self.channel.name, error)
            return
        with self.channel.changed:
            awaiting = self._awaiting
            if (
                awaiting is not None
                and self._answer is None
                and said.tag == awaiting[0]
                and isinstance(said, awaiting[1])
            ):
                self._answer = said
                self.channel.changed.notify_all()
                return
        self.dropped["other"] += 1  # another table's answer, or a late one
