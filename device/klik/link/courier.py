"""The courier: the table's thread that carries kept results to the hub and heartbeats to it.

It takes the oldest result the outbox holds, sends it, and marks it acknowledged only when
the hub's answer carries an ``ack`` envelope signed with this table's key (a receipt from
anyone else is not believed). A result the hub does not take is tried again after an
exponential back-off with jitter, capped at 15 s; results go one at a time, oldest first, so
the hub sees them in the order they were played. Between results it sends a heartbeat every
``heartbeat_s``: best effort, never queued. The hub's answer to a heartbeat carries the
commands waiting for this table; each is carried out once (the outbox remembers the ids it
did) and acknowledged in the next heartbeat. A heartbeat's seq grows across restarts (the
outbox reserves them in blocks); the hub refuses one that is not above the last it holds
(a replay) with a signed ``stale`` that says its last seq, and then this table's count was
lost: the courier numbers on after the hub's last and sends the heartbeat again at once.

The courier speaks the protocol, whatever carries it: a link sends an envelope and returns
the hub's ``protocol.Ack`` (its ``Status``, its signed ack) or the trouble its carrier met
instead (``Trouble``), or raises LinkDown when no answer came.

A result the hub refuses for good (a signed ack saying ``refused``: the table's own body
breaks the contract, and sending it again cannot help) is set aside in the outbox with the
hub's reason, shown on the screens and listed in every heartbeat for the judge's console,
and the later results go on. Any other refusal is tried again: an unsigned one may come from
anyone on the Wi-Fi, and ``unpaired`` means the judge paired this table again (the screens
say to pair it); the result stays kept.

What the courier learns is handed to the table's engine thread through callbacks, never by
touching the engine itself: ``on_tracking`` (where the results are), ``on_command`` and
``on_round``: the round's clock that the hub's signed answer to each heartbeat carries while
it runs one for this table (``protocol.RoundClock``), or None when an answer carries none. A
malformed one is logged (once, until it changes) and ignored: the table's clock goes on as it
was. No answer at all says nothing: the table counts down on its own from the last one.
"""

from __future__ import annotations

import logging
import math
import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Protocol

from klik.faults import kill_point
from klik.link import backoff
from klik.link import protocol as p
from klik.link.outbox import Outbox, OutboxError, Pending
from klik.link.reply import LinkDown

log = logging.getLogger("klik.link.courier")

UNREACHABLE_AFTER = 2  # failed tries before the screens say the hub is away


class Link(Protocol):
    """How the courier reaches the hub: ``klik.link.http.HttpLink`` or ``serial.SerialLink``.

    ``send`` signs one envelope with ``key`` (once, into the bytes it carries), sends it
    and returns the hub's ack, or raises LinkDown when no answer came.
    """

    def send(self, envelope: p.Envelope, key: bytes) -> p.Ack: ...
    def close(self) -> None: ...


class State(Enum):
    KEPT = "kept"
    SENDING = "sending"
    SENT = "sent"
    CONFLICT = "conflict"  # the hub holds another result for this send or game: the judge decides
    UNREACHABLE = "unreachable"
    REFUSED = "refused"  # the hub refused it for good (signed): set aside, the judge sees it
    UNPAIRED = "unpaired"  # the hub does not know this table's key: pair it again
    # A result kept under the table's old number, which the hub does not take from its new
    # pairing (re-paired without the proof of the old one): the judge enters it.
    STRANDED = "stranded"
    SERVER_ERROR = "server_error"  # the hub answers, but with an error or nonsense
    BAD_CERTIFICATE = "bad_certificate"  # the hub's certificate is not the pinned one


# What keeps results from the hub, as the screens say it; the first two are certain at the
# first try, a server error after as many tries as "unreachable" (one may be a passing fault).
CERTAIN = (State.UNPAIRED, State.STRANDED, State.BAD_CERTIFICATE)


@dataclass(frozen=True, slots=True)
class Tracking:
    """Where the results are, as a parcel's tracking says: the screens show it (a
    ``klik.table.screens.view.Delivery``), ``GET /api/state`` reports it (its ``delivery``)."""

    state: State
    seq: int | None  # the result this is about (the newest kept), or None
    receipt: str | None  # the hub's receipt for ``seq``
    waiting: int  # results kept and not yet acknowledged


@dataclass(frozen=True, slots=True)
class Command:
    """A hub → table command: pause, resume, round-over, start or players."""

    id: str
    kind: str
    args: dict[str, Any]


class Courier:
    def __init__(
        self,
        outbox: Outbox,
        link: Link,
        device: str,
        key: bytes,
        *,
        heartbeat_s: float,
        status: Callable[[], p.Heartbeat],
        on_tracking: Callable[[Tracking], None],
        on_command: Callable[[Command], object],
        on_round: Callable[[p.RoundClock | None], object] = lambda _: None,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        table: int | None = None,
    ) -> None:
        self.outbox = outbox
        self.table = table  # the table's number in its pairing (None: not known)
        self.link = link
        self.device = device
        self.key = key
        self.heartbeat_s = heartbeat_s
        self.status = status
        self.on_tracking = on_tracking
        self.on_command = on_command
        self.on_round = on_round
        self.clock = clock
        self.rng = rng or random.Random()
        self.failures = 0  # tries of the oldest result that the hub did not take
        self.trouble: State | None = None  # why the last try of a result failed
        self._said: tuple[State, str] | None = None  # the trouble last logged, and its kind
        self.next_try = 0.0
        self.next_heartbeat = 0.0
        self.acks: list[str] = []  # commands done, to acknowledge in the next heartbeat
        self._down: LinkDown | None = None  # why the last send had no answer
        self._beat_answer: p.Ack | None = None  # the hub's ack to the last heartbeat
        self._round_fault: str | None = None  # the malformed round clock last logged
        self.last: Tracking | None = None
        #: When the hub last answered with an ack signed with this table's key, and when
        #: the courier started (``clock``): how long a hub has been silent, for the daemon.
        self.answered_at = -math.inf
        self.started_at = -math.inf
        #: The link is to a hub on trial (found again at another address, not yet known to
        #: hold this table's key): its "unknown table" or certificate is no cause to re-pair.
        self.on_trial = False
        self._pushed: queue.SimpleQueue[p.Envelope] = queue.SimpleQueue()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- the thread ------------------------------------------------------------------------

    def start(self) -> None:
        self.started_at = self.clock()
        self._thread = threading.Thread(target=self._run, name="klik-courier", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.link.close()

    def relink(self, link: Link, *, trial: bool = False) -> None:
        """Send by ``link`` from the next try on (the hub found at another address, on
        ``trial``), at once; the old link is closed, which ends a try under way on it."""
        old, self.link, self.on_trial = self.link, link, trial
        old.close()
        self.wake()

    def wake(self) -> None:
        """A result was kept: send it now, whatever the back-off said."""
        self.next_try = 0.0
        self.failures = 0
        self._wake.set()

    def push(self, envelope: p.Envelope) -> None:
        """Commands the hub pushed (over serial), verified by the link; from its reader thread."""
        self._pushed.put(envelope)
        self._wake.set()

    def _run(self) -> None:
        self._report()
        while not self._stop.is_set():
            self._wake.clear()
            wait = self.step(self.clock())
            self._wake.wait(wait)

    # --- one round (the tests call it with their own clock) --------------------------------

    def step(self, now: float) -> float:
        """Send what is due at ``now``; returns the seconds until something is due again."""
        try:
            while not self._pushed.empty():
                pushed = self._pushed.get()
                if pushed.device == self.device and pushed.body.get("of") == "commands":
                    self._carry_out(pushed.body.get("commands"))
                    self.next_heartbeat = now  # the acks go at once
            if now >= self.next_try:
                self._send_oldest(now)
        except OutboxError as error:
            log.error("outbox: %s", error)
            self.next_try = now + backoff.delay(self.failures + 1, self.rng)
        # Heartbeats go on whatever the outbox's results do: the judge must see the table.
        if now >= self.next_heartbeat:
            self.next_heartbeat = now + self.heartbeat_s
            try:
                self._heartbeat()
            except OutboxError as error:
                log.error("outbox: %s", error)
        return max(0.0, min(self.next_try, self.next_heartbeat) - self.clock())

    def _send_oldest(self, now: float) -> None:
        pending = self.outbox.oldest_waiting()
        if pending is None:
            self.next_try = now + 3600.0  # nothing waits; ``wake`` brings it forward
            return
        if self.outbox.seqs_in_doubt:
            # Which seqs does the hub hold from this table already? Its signed answer to a
            # heartbeat says (``_beat``); no result leaves before, lest it reuse one.
            self._heartbeat()
            if self.outbox.seqs_in_doubt:
                self._troubled(pending, self._beat_answer)
                self.failures += 1
                self.next_try = now + backoff.delay(self.failures - 1, self.rng)
                self._report()
                return
            pending = self.outbox.oldest_waiting() or pending  # numbered anew, perhaps
        self.outbox.tried(pending.seq)
        if self.failures == 0 and pending.seq == self.outbox.last_seq():
            self._report(State.SENDING)
        envelope = p.Envelope("result", self.device, pending.seq, pending.body)
        answer = self._send(envelope)
        refusal = self._refusal(answer, pending.seq)
        if refusal is not None:
            log.error("hub: result %d refused for good (%s); set aside", pending.seq, refusal)
            self.outbox.refused(pending.seq, refusal)
            self.failures = 0
            self.next_try = now  # the next waiting result goes at once
            self._report()
            return
        receipt = self._receipt(answer, pending.seq)
        if receipt is None:
            self._troubled(pending, answer)
            self.failures += 1
            self.next_try = now + backoff.delay(self.failures - 1, self.rng)
            self._report()
            return
        if self._said is not None:
            log.info("hub: results go through again")
        self.trouble, self._said, self._down = None, None, None
        conflict = answer is not None and answer.status is p.Status.CONFLICT
        self.outbox.acknowledged(pending.seq, receipt, by=self.device, conflict=conflict)
        self.failures = 0
        self.next_try = now  # the next waiting result goes at once
        self._report()

    def _send(self, envelope: p.Envelope) -> p.Ack | None:
        """The hub's ack, or None (``_down`` says why) if none came."""
        try:
            answer = self.link.send(envelope, self.key)
        except LinkDown as error:
            self._down = error
            return None
        return answer

    def _troubled(self, pending: Pending, answer: p.Ack | None) -> None:
        """Name what kept result ``pending`` from the hub (``trouble``), and log it once per
        change, with what the carrier saw (over HTTP the status and the answer's first
        line)."""
        seq, kept_as = pending.seq, pending.body.get("table")
        if answer is None:
            down = self._down
            certificate = down is not None and down.certificate
            trouble = State.BAD_CERTIFICATE if certificate else State.UNREACHABLE
            kind, detail = trouble.value, str(down) if down is not None else "no answer"
            if self.on_trial:  # not the table's hub, most likely: it is still away
                trouble = State.UNREACHABLE
        elif answer.trouble is p.Trouble.UNPAIRED and self.on_trial:
            trouble, kind = State.UNREACHABLE, answer.trouble.value
            detail = f"{answer.seen}: the hub on trial does not know this table"
        elif answer.trouble is p.Trouble.UNPAIRED and self.table not in (None, kept_as):
            trouble, kind = State.STRANDED, answer.trouble.value
            detail = (
                f"{answer.seen}: kept as table {kept_as}'s, and the hub holds this table as "
                f"{self.table} with no proof of its old pairing (a new card, or a hub from "
                f"before the proof): it waits; the judge enters it by hand"
            )
        elif answer.trouble is p.Trouble.UNPAIRED:
            trouble, kind = State.UNPAIRED, answer.trouble.value
            detail = f"{answer.seen}: this table's key is not the hub's; pair it again"
        else:
            trouble, kind = State.SERVER_ERROR, str(answer.trouble or answer.status)
            # The hub failed, or refused the envelope; any other answer may have said it
            # was taken (or said nothing a table reads), with no signed ack to believe.
            said_no = answer.trouble is p.Trouble.HUB_ERROR or answer.status in (
                p.Status.REFUSED,
                p.Status.INVALID,
            )
            why = "not taken" if said_no else "an answer without this table's signed receipt"
            detail = f"{answer.seen}: {why}"
        self.trouble = trouble
        if self._said != (trouble, kind):
            self._said = (trouble, kind)
            log.warning("hub: result %d: %s", seq, detail)

    def _receipt(self, answer: p.Ack | None, seq: int) -> str | None:
        """The receipt in the hub's signed ack for result ``seq``, or None."""
        if answer is None:
            return None
        ack = self._ack(answer, seq)
        if answer.status not in p.TAKEN or ack is None or ack.body.get("of") != "result":
            return None
        receipt = ack.body.get("receipt")
        if not isinstance(receipt, str) or not 1 <= len(receipt) <= 8:
            return None
        if answer.status is p.Status.CONFLICT:
            log.warning("hub: result %d conflicts with one the hub has; the judge decides", seq)
        return receipt

    def _refusal(self, answer: p.Ack | None, seq: int) -> str | None:
        """The hub's reason, if it refused result ``seq`` for good in an ack it signed; an
        unsigned refusal is only a reason to try again (anyone on the Wi-Fi can send one)."""
        if answer is None or answer.status is not p.Status.REFUSED:
            return None
        ack = self._ack(answer, seq)
        if (
            ack is None
            or ack.body.get("of") != "result"
            or ack.body.get("status") != p.Status.REFUSED
        ):
            return None
        reason = ack.body.get("error")
        return reason if isinstance(reason, str) and reason else "refused"

    def _ack(self, answer: p.Ack, seq: int) -> p.Envelope | None:
        """The hub's signed ack in an answer, if it is for this table and this envelope."""
        if answer.signed is None:
            return None
        try:
            ack, mac = p.open_envelope(answer.signed)
        except p.ProtocolError:
            return None
        if ack.type != "ack" or ack.device != self.device or ack.seq != seq:
            return None
        if not p.verify(ack, mac, self.key):
            log.warning("hub: an answer whose ack is not signed with this table's key")
            return None
        self.answered_at = self.clock()
        return ack

    def _heartbeat(self) -> None:
        # Once more at once after a jump past the hub's last seq, and no more: a hub that
        # says stale again costs one heartbeat a round, not a busy loop.
        if self._beat():
            self._beat()

    def _beat(self) -> bool:
        """Send one heartbeat; True if the hub said it was ``stale`` and the count jumped."""
        seq = self.outbox.next_heartbeat_seq()
        acks, self.acks = self.acks, []
        refused = tuple(p.Refusal(x.seq, x.game, x.reason)
                        for x in self.outbox.set_aside()[-p.MAX_REFUSED:])  # fmt: skip
        in_doubt = self.outbox.seqs_in_doubt  # if so, the hub answers with its last result seq
        conflicts = tuple(p.Conflict(x.seq, x.game)
                          for x in self.outbox.conflicts()[: p.MAX_CONFLICTS])  # fmt: skip
        beat = replace(self.status(), outbox=self.outbox.waiting(),
                       last_seq=self.outbox.last_seq(), acks=tuple(acks), refused=refused,
                       seq_in_doubt=in_doubt, conflicts=conflicts,
                       acked_seq=self.outbox.acked_seq(self.device))  # fmt: skip
        answer = self._beat_answer = self._send(
            p.Envelope("heartbeat", self.device, seq, beat.json())
        )
        ack = (
            None
            if answer is None or answer.status not in (p.Status.OK, p.Status.STALE)
            else self._ack(answer, seq)
        )
        said = None if ack is None or ack.body.get("of") != "heartbeat" else ack.body
        if said is not None and in_doubt:
            hub_last = said.get("last_result_seq", 0)  # none from a hub that keeps none
            if type(hub_last) is int and 0 <= hub_last < 2**53 - 1:
                self.outbox.confirm_seqs(hub_last)
        if said is not None and said.get("status") == p.Status.OK:
            self._settled(said.get("settled"))
            self._resend(said.get("resend_after"))
            self._carry_out(said.get("commands"))  # a round's lineup first, then its clock
            self._round(said, seq)
            return False
        self.acks = acks + self.acks  # acknowledged next time (a stale heartbeat took none)
        return said is not None and said.get("status") == p.Status.STALE and self._after(seq, said)

    def _settled(self, seqs: Any) -> None:
        """The hub's signed answer says the judge settled the conflicts of these results."""
        if not isinstance(seqs, list) or not seqs:
            return
        taken = [s for s in seqs[: p.MAX_CONFLICTS] if type(s) is int and 1 <= s < 2**53]
        if self.outbox.settled(taken):
            log.info("hub: the judge settled the conflict of result %s", ", ".join(map(str, taken)))
            self._report()

    def _resend(self, after: Any) -> None:
        """The hub's signed answer says it holds this pairing's results up to seq ``after``
        only (absent: all it acknowledged): the rest wait again, sent as they were."""
        if type(after) is not int or not 0 <= after < 2**53 - 1:
            return
        again = self.outbox.resend_after(self.device, after)
        if again:
            log.warning("hub: it holds our results up to %d only; sending %d again", after, again)
            self.next_try = self.clock()
            self._report()

    def _round(self, said: dict[str, Any], seq: int) -> None:
        """Hand the engine the round's clock in the hub's signed answer to heartbeat ``seq``
        (None: the answer carries none); a malformed one is logged once and ignored."""
        if "round" not in said:
            self._round_fault = None
            self.on_round(None)
            return
        try:
            clock = p.RoundClock.decode(said["round"])
        except p.ProtocolError as error:
            if str(error) != self._round_fault:
                self._round_fault = str(error)
                log.warning("hub: the answer to heartbeat %d: %s; the round's clock ignored",
                            seq, error)  # fmt: skip
            return
        self._round_fault = None
        self.on_round(clock)

    def _after(self, seq: int, said: dict[str, Any]) -> bool:
        """Number heartbeats on after the last the hub holds (its signed ``last_seq``)."""
        last = said.get("last_seq")
        if type(last) is not int or not seq <= last < 2**53 - 1:
            return False  # not a seq this heartbeat was stale against: nothing to jump to
        jumped = self.outbox.heartbeats_after(last)
        if jumped:
            log.warning(
                "hub: heartbeat %d is behind the hub's %d; numbering on from there", seq, last
            )
        return jumped

    def _carry_out(self, commands: Any) -> None:
        """Each command carried out, then recorded (the outbox remembers), then acknowledged
        in the next heartbeat: never acknowledged before it is done. ``on_command`` returns
        False if the engine could not carry it out now: it is asked for again."""
        for raw in commands if isinstance(commands, list) else []:
            command = _command(raw)
            if command is None:
                continue
            if not self.outbox.command_seen(command.id):
                if self.on_command(command) is False:
                    continue
                kill_point("command-carried-out")
                self.outbox.command_done(command.id)
                kill_point("command-recorded")
            if command.id not in self.acks:
                self.acks.append(command.id)

    def _report(self, state: State | None = None) -> None:
        """Tell the engine where the newest result is, if that changed."""
        last = self.outbox.last_seq()
        waiting = self.outbox.waiting()
        receipt = self.outbox.receipt(last) if last else None
        if state is None:
            if receipt is not None and any(x.seq == last for x in self.outbox.conflicts()):
                state = State.CONFLICT
            elif receipt is not None:
                state = State.SENT
            elif last and any(x.seq == last for x in self.outbox.set_aside()):
                state = State.REFUSED
            elif self.trouble in CERTAIN:
                state = self.trouble
            elif self.failures >= UNREACHABLE_AFTER and self.trouble is State.SERVER_ERROR:
                state = State.SERVER_ERROR
            elif self.failures >= UNREACHABLE_AFTER:
                state = State.UNREACHABLE
            elif self.failures:
                state = State.SENDING
            else:
                state = State.KEPT
        news = Tracking(state, last or None, receipt, waiting)
        if news != self.last:
            self.last = news
            self.on_tracking(news)


def _command(raw: Any) -> Command | None:
    if not isinstance(raw, dict):
        return None
    command_id, kind, args = raw.get("id"), raw.get("kind"), raw.get("args", {})
    if not isinstance(command_id, str) or not isinstance(kind, str) or not isinstance(args, dict):
        log.warning("hub: a command that is not one: %.80r", raw)
        return None
    return Command(command_id, kind, args)
