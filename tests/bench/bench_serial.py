"""``make bench``: nine tables on one 9600-baud radio channel get their results to the hub.

A round ends and nine tables each keep their game's result at once. Each table is the real
thing but for its panels: an outbox on disk, the courier on its thread with its real
back-off, a ``SerialLink`` on a pty; the hub is a ``SerialHub`` on a SQLite store. The
channel is ``tests/helpers/radio.py`` at 9600 baud, half duplex, shared by all ten: two tables that
talk at once garble each other, and every receiver loses a fifth of the frames sent to it.
The clock starts when the couriers start and stops when the last table has its receipt;
every result must then be stored exactly once. Not a timed test: it prints the median of a
few runs next to the goal, for two kinds of loss:

- a lost radio packet (the first 32 bytes of a frame do not arrive, the rest does): the
  frame fails its CRC, but the receiver hears that the channel is busy, as with HC-12
  modules, which send a frame of several hundred bytes in packets;
- a frame that does not arrive at all: the worst case for listening before talking, since a
  table that missed a frame may talk over it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from klik.link import deflate
from klik.link import protocol as p
from klik.link.channel import BITS_PER_BYTE
from klik.link.courier import Courier, State, Tracking
from klik.link.outbox import Outbox
from klik.link.serial import SerialLink
from klik_hub import hall
from klik_hub.main import now_ms
from klik_hub.serial.hub import SerialHub
from klik_hub.serial.poll import PolledHub
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.bench.polled_tables import TableSpec
from tests.bench.quick import size
from tests.helpers.hubkit import result_body
from tests.helpers.radio import Faults, Radio

TABLES = size(9, 2)
BAUD = 9600
LOSS = 0.2
RUNS = size(3, 1)
GOAL_S = 30.0
WAIT_S = 180.0  # a run that has not finished by then has failed
#: On a shared 9600-baud channel a heartbeat every 2 s from nine tables would fill it; the
#: hub pushes commands, so a table there can beat slowly. The courier sends one at start.
HEARTBEAT_S = 30.0


def one_round(faults: Faults, seed: int) -> tuple[float, int]:
    """One round's results over the channel: seconds until all are in, frames collided."""
    with tempfile.TemporaryDirectory(prefix="klik-bench-serial-") as name:
        folder = Path(name)
        store = Store(open_engine(str(folder / "hub.sqlite")), now_ms)
        with Radio(TABLES + 1, BAUD, faults=faults, seed=seed) as radio:
            hub = SerialHub(store, radio.path(0), BAUD)
            hub.start()
            couriers: list[Courier] = []
            outboxes: list[Outbox] = []
            done: list[threading.Event] = []
            for n in range(1, TABLES + 1):
                device, key_hex = hall.devices.pair(store, n)
                key = p.key_bytes(key_hex)
                outbox = Outbox(folder / f"outbox-{n}.sqlite")
                outbox.keep(result_body(table=n, game=1))
                event = threading.Event()
                link = SerialLink(
                    radio.path(n), BAUD, device, key, rng=random.Random(f"link {seed} {n}")
                )
                courier = Courier(
                    outbox,
                    link,
                    device,
                    key,
                    heartbeat_s=HEARTBEAT_S,
                    status=lambda: p.Heartbeat(state="done"),
                    on_tracking=lambda news, event=event: _sent(news, event),
                    on_command=lambda command: None,
                    rng=random.Random(f"courier {seed} {n}"),
                )
                link.on_push = courier.push
                couriers.append(courier)
                outboxes.append(outbox)
                done.append(event)
            began = time.perf_counter()
            for courier in couriers:
                courier.start()
            for event in done:
                if not event.wait(WAIT_S):
                    raise SystemExit(f"a table still waits after {WAIT_S:.0f} s")
            took = time.perf_counter() - began
            for courier in couriers:
                courier.stop()
            hub.stop()
        stored = hall.results.newest(store)
        assert sorted(row["table"] for row in stored) == list(range(1, TABLES + 1)), stored
        for n, outbox in enumerate(outboxes, start=1):
            (row,) = (row for row in stored if row["table"] == n)
            assert outbox.receipt(1) == row["receipt"]
            outbox.close()
        store.engine.dispose()
    return took, radio.stats["collisions"]


def _sent(news: Tracking, event: threading.Event) -> None:
    if news.state is State.SENT and news.waiting == 0:
        event.set()


def report(label: str, faults: Faults) -> None:
    runs = [one_round(faults, seed) for seed in range(1, RUNS + 1)]
    times = [took for took, _ in runs]
    median_s = statistics.median(times)
    verdict = "✓" if median_s < GOAL_S else "✗"
    collisions = ", ".join(str(count) for _, count in runs)
    print(
        f"{TABLES} tables, {BAUD} baud, {LOSS:.0%} of frames lost ({label}): every result in "
        f"after median {median_s:.1f} s (min {min(times):.1f}, max {max(times):.1f}; "
        f"{RUNS} runs; frames collided {collisions})  goal < {GOAL_S:.0f} s {verdict}"
    )


# --- the polled channel (klik_hub.serial.poll, klik.link.polled) ------------------------------

POLLED_TABLES = size(30, 2)
POLLED_RUNS = size(5, 1)
RATIO_GOAL = 1.30
PAUSE_GOAL_S = 2.0
#: On a polled channel each turn tells the hub that the table is there; a heartbeat only
#: reports its state. Thirty tables' heartbeats every 30 s would take a third of the channel.
POLLED_HEARTBEAT_S = 300.0
PAUSES = size(10, 2)  # a judge's pauses, one at a time, to tables picked at random after the round


@dataclass(frozen=True, slots=True)
class PolledRun:
    stored_s: float  # from the results kept at the tables until the hub has stored them all
    took_s: float  # from the results kept until every table holds its receipt
    bound_s: float  # the airtime bound: the results' deflated frames at the baud / (1 - loss)
    pauses_s: tuple[float, ...]  # from a pause queued on the hub until its table has it
    polls: dict[str, int]  # the hub's counts (``PolledHub.polls``) until every receipt

    @property
    def ratio(self) -> float:
        """The issue's figure: the round's results all stored, over the airtime bound."""
        return self.stored_s / self.bound_s

    @property
    def receipts_ratio(self) -> float:
        """The same until every table also holds its receipt (the last acks' polls)."""
        return self.took_s / self.bound_s


class _TimedHub(PolledHub):
    """The bench's hub: notes when it first stored each table's result (``kept``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kept: dict[str, float] = {}

    def _answer(self, data: bytes) -> None:
        super()._answer(data)
        with contextlib.suppress(p.ProtocolError):
            envelope, _ = p.open_envelope(data)
            if envelope.type == "result":
                self.kept.setdefault(envelope.device, time.perf_counter())


def polled_round(tables: int, loss: float, seed: int, *, pauses: int = 0) -> PolledRun:
    """One round's results from ``tables`` tables over a polled channel at ``BAUD`` where
    every receiver misses ``loss`` of the frames whole; then ``pauses`` judge's pauses.

    The tables are on the channel already (each has had its first heartbeat acked) when the
    round ends and each keeps its result: the clock runs from there until every table has
    its receipt. Asserts that every result is stored exactly once, with the table's receipt.
    Each table runs in a process of its own (``tests.bench.polled_tables``), as a machine
    of its own in the hall; the hub and the radio share this one.
    """
    faults = Faults(drop_frame=loss)
    # The hub's reader, its worker and the radio's broker share this interpreter: a thread
    # switch every 1 ms (not 5) keeps the hub's next poll from waiting behind the broker.
    switch_s = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        return _polled_round(tables, loss, seed, faults, pauses)
    finally:
        sys.setswitchinterval(switch_s)


def _polled_round(tables: int, loss: float, seed: int, faults: Faults, pauses: int) -> PolledRun:
    with tempfile.TemporaryDirectory(prefix="klik-bench-polled-") as name:
        folder = Path(name)
        store = Store(open_engine(str(folder / "hub.sqlite")), now_ms)
        with Radio(tables + 1, BAUD, faults=faults, seed=seed) as radio:
            hub = _TimedHub(store, radio.path(0), BAUD)
            specs: list[TableSpec] = []
            bound_bytes = 0
            for n in range(1, tables + 1):
                device, key_hex = hall.devices.pair(store, n)
                body = result_body(table=n, game=1)
                signed = p.Envelope("result", device, 1, body).signed(p.key_bytes(key_hex))
                bound_bytes += len(deflate.squeeze(p.canonical(signed)))
                specs.append(TableSpec(n, device, key_hex, radio.path(n), BAUD, name, seed,
                                       body, POLLED_HEARTBEAT_S))  # fmt: skip
            hub.start()
            with _Tables(specs) as hall_tables:
                _wait(lambda: all(hub.heard(spec.device) for spec in specs), "a first heartbeat")
                hall_tables.tell_all("settle")
                hall_tables.wait_all(hall_tables.settled, "a first heartbeat's ack")
                began = time.perf_counter()
                before = Counter(hub.polls)
                hall_tables.tell_all("keep")
                hall_tables.wait_all(hall_tables.receipts, "receipt")
                took = max(hall_tables.receipts.values()) - began
                stored_s = max(hub.kept.values()) - began
                polls = hub.polls - before
                pauses_s = []
                pick = random.Random(f"pauses {seed}")
                for _ in range(pauses):
                    n = pick.randrange(1, tables + 1)
                    hall_tables.paused.pop(n, None)
                    queued = time.perf_counter()
                    hall.commands.send(store, n, "pause")
                    hall_tables.wait_one(hall_tables.paused, n, "pause")
                    pauses_s.append(hall_tables.paused[n] - queued)
                    # A judge pauses one table now and then, not a queue of them: the next
                    # goes once the table's heartbeat has acknowledged this one.
                    _wait(lambda: not _commands_waiting(store), "a pause's acknowledgement")
                kept = hall_tables.stop()
            hub.stop()
        stored = hall.results.newest(store)
        assert sorted(row["table"] for row in stored) == list(range(1, tables + 1)), stored
        for n in range(1, tables + 1):
            (row,) = (row for row in stored if row["table"] == n)
            assert kept[n] == row["receipt"], (n, kept[n], row["receipt"])
        store.engine.dispose()
    bound_s = bound_bytes * BITS_PER_BYTE / BAUD / (1 - loss)
    return PolledRun(stored_s, took, bound_s, tuple(pauses_s), dict(polls))


class _Tables:
    """The bench's tables in their processes (``tests.bench.polled_tables``), and what they
    said: ``settled``, ``receipts`` and ``paused`` (the table's time of it), ``kept``."""

    def __init__(self, specs: list[TableSpec]) -> None:
        self.settled: dict[int, float] = {}
        self.receipts: dict[int, float] = {}
        self.paused: dict[int, float] = {}
        self.kept: dict[int, str | None] = {}
        self.changed = threading.Condition()
        self._gone: set[int] = set()
        self._processes: dict[int, subprocess.Popen[str]] = {}
        root = Path(__file__).resolve().parents[2]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
        }
        for spec in specs:
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.bench.polled_tables", json.dumps(asdict(spec))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=root,
                env=env,
            )
            self._processes[spec.table] = process
            threading.Thread(target=self._listen, args=(spec.table, process), daemon=True).start()

    def __enter__(self) -> _Tables:
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self._processes.values():
            with contextlib.suppress(OSError):
                process.stdin.close()  # type: ignore[union-attr]
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def _listen(self, table: int, process: subprocess.Popen[str]) -> None:
        said = {"settled": self.settled, "receipt": self.receipts, "paused": self.paused}
        assert process.stdout is not None
        for line in process.stdout:
            what, *rest = json.loads(line)
            with self.changed:
                if what == "kept":
                    self.kept[table] = rest[0]
                else:
                    said[what][table] = rest[0] if rest else time.perf_counter()
                self.changed.notify_all()
        with self.changed:
            self._gone.add(table)
            self.changed.notify_all()

    def tell_all(self, what: str) -> None:
        for process in self._processes.values():
            assert process.stdin is not None
            process.stdin.write(what + "\n")
            process.stdin.flush()

    def wait_all(self, said: dict[int, float], what: str) -> None:
        for table in self._processes:
            self.wait_one(said, table, what)

    def wait_one(self, said: dict[int, float], table: int, what: str) -> None:
        with self.changed:
            if not self.changed.wait_for(lambda: table in said or table in self._gone, WAIT_S):
                raise SystemExit(f"table {table}: no {what} after {WAIT_S:.0f} s")
            if table not in said:
                raise SystemExit(f"table {table}'s process ended before its {what}")

    def stop(self) -> dict[int, str | None]:
        """Stop every table; the receipt each one's outbox holds."""
        self.tell_all("stop")
        with self.changed:
            if not self.changed.wait_for(lambda: len(self.kept) == len(self._processes), WAIT_S):
                raise SystemExit(f"tables still stopping after {WAIT_S:.0f} s")
        return dict(self.kept)


def _commands_waiting(store: Store) -> bool:
    return any(row["commands"] for row in hall.devices.tables(store))


def _wait(ready: Callable[[], bool], what: str) -> None:
    deadline = time.perf_counter() + WAIT_S
    while not ready():
        if time.perf_counter() > deadline:
            raise SystemExit(f"no {what} after {WAIT_S:.0f} s")
        time.sleep(0.05)  # sleep-ok: real tables on a simulated radio, on the real clock


def report_polled() -> None:
    runs = [
        polled_round(POLLED_TABLES, LOSS, seed, pauses=PAUSES) for seed in range(1, POLLED_RUNS + 1)
    ]
    ratios = [run.ratio for run in runs]
    ratio = statistics.median(ratios)
    receipts = statistics.median(run.receipts_ratio for run in runs)
    pauses = sorted(s for run in runs for s in run.pauses_s)
    p99 = pauses[min(len(pauses) - 1, math.ceil(0.99 * len(pauses)) - 1)]
    verdict = "✓" if ratio <= RATIO_GOAL else "✗"
    pause_verdict = "✓" if pauses[-1] <= PAUSE_GOAL_S else "✗"
    print(
        f"{POLLED_TABLES} tables, {BAUD} baud, polled, {LOSS:.0%} of frames unheard: every "
        f"result stored after median {statistics.median(r.stored_s for r in runs):.1f} s, ratio "
        f"to the airtime bound {ratio:.2f}× (bound {runs[0].bound_s:.1f} s; min "
        f"{min(ratios):.2f}, max {max(ratios):.2f}; {POLLED_RUNS} runs; every receipt at its "
        f"table {receipts:.2f}×)  goal ≤ {RATIO_GOAL:.2f}× {verdict}"
    )
    print(
        f"{POLLED_TABLES} tables, polled, {LOSS:.0%} unheard: a judge's pause reaches its table "
        f"in p99 {p99:.2f} s, max {pauses[-1]:.2f} s ({len(pauses)} pauses)  "
        f"goal ≤ {PAUSE_GOAL_S:.0f} s {pause_verdict}"
    )


def main() -> None:
    logging.disable(logging.WARNING)  # the couriers log each answer that did not come
    report_polled()
    report("a radio packet lost", Faults(cut_frame=LOSS))
    report("unheard", Faults(drop_frame=LOSS))


if __name__ == "__main__":
    main()
