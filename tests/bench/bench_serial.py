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

import logging
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from klik.link import protocol as p
from klik.link.courier import Courier, State, Tracking
from klik.link.outbox import Outbox
from klik.link.serial import SerialLink
from klik_hub import hall
from klik_hub.db import open_engine
from klik_hub.main import now_ms
from klik_hub.serial_hub import SerialHub
from klik_hub.store import Store
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


def main() -> None:
    logging.disable(logging.WARNING)  # the couriers log each answer that did not come
    report("a radio packet lost", Faults(cut_frame=LOSS))
    report("unheard", Faults(drop_frame=LOSS))


if __name__ == "__main__":
    main()
