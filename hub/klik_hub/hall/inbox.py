"""What the hub does with one envelope from a table, whichever link brought it.

HTTP (``app``) and the serial channel (``klik_hub.serial.hub``) both hand the envelope's
bytes to ``take``; the answer is a status code (HTTP's) and a JSON body that carries an ``ack``
envelope signed with the table's key. The order of the checks is the contract's
(``docs/protocol.md``): the envelope's shape (422), who signed it (401), the result's schema
or the heartbeat's ``acks`` (422), then whether the device may speak for that table (401).
A heartbeat whose seq is not above the device's last is believed but not taken: a signed 409
that says the last seq, so a table whose count was lost goes on above it. A believed result
that breaks the schema is refused for good: a signed 422 ``refused`` (see ``_refusal``).

The HTTP server's event loop hands envelopes to a ``Clerk``: a thread that takes them one
after another, as many as are waiting, and hands their answers back to the loop together.
The loop never waits for the disk, and the two threads seldom hand the interpreter's lock to
each other. A thread from a pool for each request did that at every SQLite call (sqlite3
lets go of the lock there, and the busy loop takes it): it cost more than half the hub's
throughput (``tests/bench/bench_hub.py``).
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from klik.errors import KlikError
from klik.link import protocol as p
from klik.link import results as r
from klik_hub import hall
from klik_hub.hall.devices import Device, RefusedError, Unbelieved
from klik_hub.storage.store import Store


class TooLargeError(KlikError, ValueError):
    """An envelope over ``protocol.MAX_BODY`` bytes: refused before it is read."""


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: dict[str, Any]
    device: Device | None = None  # the paired device that signed it, when it was believed
    unbelieved: Unbelieved | None = None  # why it was not, when that was the fault


def take(store: Store, data: bytes, expected: str | None = None) -> Answer:
    """Check and keep one envelope; ``expected`` is the type the HTTP path takes."""
    try:
        if len(data) > p.MAX_BODY:
            raise TooLargeError(f"(envelope): over {p.MAX_BODY} bytes")
        envelope, mac = p.open_envelope(data)
        if expected is not None and envelope.type != expected:
            raise p.ProtocolError("type", f"must be {expected} here")
        if envelope.type == "ack":
            raise p.ProtocolError("type", "the hub sends acks; it does not take them")
        with hall.devices.believed(store, envelope, mac) as (db, device):
            if envelope.type == "result":
                refusal = _refusal(envelope.body)
                if refusal is not None:
                    answer: dict[str, Any] = {"status": p.Status.REFUSED, "error": refusal}
                    status = p.Status.REFUSED.http
                else:
                    stored = hall.results.keep(store, db, envelope, device)
                    answer = {"status": stored.outcome.value, "receipt": stored.receipt}
                    status = stored.outcome.http
            else:
                beat = hall.heartbeats.take(store, db, envelope, device)
                if beat.taken:
                    answer = {"status": p.Status.OK, "commands": beat.commands}
                    if beat.round is not None:
                        answer["round"] = beat.round
                    if beat.settled:
                        answer["settled"] = beat.settled
                    status = p.Status.OK.http
                else:
                    answer = {"status": p.Status.STALE, "last_seq": beat.last_seq}
                    status = p.Status.STALE.http
                if beat.last_result_seq is not None:
                    answer["last_result_seq"] = beat.last_result_seq
                if beat.resend_after is not None:
                    answer["resend_after"] = beat.resend_after
    except RefusedError as error:
        said = {"status": p.Status.REFUSED, "error": str(error)}
        return Answer(p.UNPAIRED_HTTP, said, unbelieved=error.why)
    except TooLargeError as error:
        said = {"status": p.Status.INVALID, "error": str(error)}
        return Answer(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, said)
    except p.ProtocolError as error:
        return Answer(p.Status.INVALID.http, {"status": p.Status.INVALID, "error": str(error)})
    ack = p.Envelope("ack", device.device, envelope.seq, {"of": envelope.type, **answer})
    return Answer(status, {**answer, "ack": ack.signed(device.key)}, device)


def _refusal(body: dict[str, Any]) -> str | None:
    """Why a believed result breaks the schema (a refusal for good), or None.

    The table signed this body itself, so sending it again can never change it: the hub says
    so in a signed ack (``"status": "refused"``), and only such a refusal lets the table set
    the result aside and send its later ones. Every other 4xx stays unsigned, and a table
    takes it for a passing trouble, so nobody else on the Wi-Fi can make it drop a result.
    """
    try:
        r.check_result(body)
    except p.ProtocolError as error:
        return str(error)
    return None


Job = tuple[bytes, str | None, "asyncio.Future[Answer]"]
Done = tuple["asyncio.Future[Answer]", Answer | Exception]
HAND_BACK_S = 0.005  # answers are handed back once nothing waits, or after this long
# Which waiting envelope a clerk takes first: a result before a heartbeat, so a round's last
# results are never queued behind the hall's beats (64 tables beat every 2 s; at a busy
# moment a dozen waited ahead of a result: issue 36, ``tests/bench/bench_hall.py``). A beat
# that waits a little longer only learns its commands a little later. In arrival order
# within each kind; the end of the threads after everything.
FIRST, LATER, LAST = 0, 1, 2


class Clerk:
    """The threads that ``take`` envelopes for an event loop: one for SQLite (it has one
    writer at a time), more for PostgreSQL. Started by the first envelope, stopped by the
    app's lifespan."""

    def __init__(self, store: Store, threads: int = 1) -> None:
        self.store = store
        # (FIRST/LATER/LAST, arrival, job); None: a thread ends
        self._jobs: queue.PriorityQueue[tuple[int, int, Job | None]] = queue.PriorityQueue()
        self._arrivals = itertools.count()
        self._threads = [
            threading.Thread(target=self._run, name=f"klik-clerk-{i}", daemon=True)
            for i in range(threads)
        ]
        self._started = False

    def stop(self) -> None:
        """End the threads once they have taken what is queued (from the app's lifespan)."""
        if not self._started:
            return
        for _ in self._threads:
            self._jobs.put((LAST, next(self._arrivals), None))
        for thread in self._threads:
            thread.join(timeout=10)

    async def take(self, data: bytes, expected: str | None = None) -> Answer:
        """``take`` on a clerk's thread; from the event loop. Raises what ``take`` raised."""
        if not self._started:  # the first envelope starts the threads
            self._started = True
            for thread in self._threads:
                thread.start()
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        order = LATER if expected == p.EnvelopeType.HEARTBEAT else FIRST
        self._jobs.put((order, next(self._arrivals), (data, expected, future)))
        return await future

    def _run(self) -> None:
        done: list[Done] = []
        began = 0.0
        while True:
            if done and (self._jobs.empty() or time.monotonic() - began > HAND_BACK_S):
                _hand_back(done)
                done = []
            _, _, job = self._jobs.get()
            if job is None:
                _hand_back(done)
                return
            if not done:
                began = time.monotonic()
            data, expected, future = job
            try:
                done.append((future, take(self.store, data, expected)))
            except Exception as error:  # the request's 500, logged by the server
                done.append((future, error))


def _hand_back(done: list[Done]) -> None:
    """Wake each event loop once for all its answers (from a clerk's thread)."""
    loops: dict[asyncio.AbstractEventLoop, list[Done]] = {}
    for future, answer in done:
        loops.setdefault(future.get_loop(), []).append((future, answer))
    for loop, answers in loops.items():
        loop.call_soon_threadsafe(_settle, answers)


def _settle(done: list[Done]) -> None:
    """Give each waiting request its answer (on its event loop)."""
    for future, answer in done:
        if future.done():  # the request was cancelled meanwhile
            continue
        if isinstance(answer, Exception):
            future.set_exception(answer)
        else:
            future.set_result(answer)
