"""The polled bench's tables (``bench_serial.polled_round``), each in a process of its own.

Thirty tables in a hall are thirty machines. In one interpreter their thirty reader threads
would wake for every two bytes on the simulated air and queue for one lock, and the polled
table's answer, like the hub's next poll, would wait behind them: the bench would measure
the interpreter, not the channel. So each table (its outbox on disk, its courier, its
``PolledLink`` on its node of the radio) runs in a process of its own,
``python -m tests.bench.polled_tables SPEC`` (``TableSpec`` as JSON), which imports the
table's side only. It talks to the bench in lines, its stdin and its stdout:

- bench → table: ``settle``: answer ``["settled"]`` once nothing waits for an ack (the first
  heartbeat's); ``keep``: keep the round's result and send it; ``stop``: stop, and answer
  ``["kept", receipt]``, the receipt the outbox holds for the result; then it ends;
- table → bench (JSON): ``["receipt", at]`` when the result's receipt is in, ``["paused",
  at]`` at each pause pushed to it. ``at`` is ``time.perf_counter()``: CLOCK_MONOTONIC on
  Linux, one clock for every process.
"""

from __future__ import annotations

import json
import logging
import os
import random
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from klik.link import protocol as p
from klik.link.courier import Command, Courier, Tracking
from klik.link.outbox import Outbox
from klik.link.polled import PolledLink

NICE = 5  # the tables' niceness: below the hub's and the radio's process


@dataclass(frozen=True, slots=True)
class TableSpec:
    """One bench table: paired as ``device`` with ``key_hex``, on the radio's node ``path``."""

    table: int
    device: str
    key_hex: str
    path: str
    baud: int
    folder: str
    seed: int
    body: dict[str, Any]  # the round's result
    heartbeat_s: float


def main() -> None:
    run(TableSpec(**json.loads(sys.argv[1])))


def run(spec: TableSpec) -> None:
    """The table's process: serve the bench's lines on stdin until ``stop``."""
    logging.disable(logging.WARNING)  # the courier logs each answer that did not come
    sys.setswitchinterval(0.001)  # the reader answers a poll while the courier signs
    # In a hall the hub is a machine of its own; here thirty tables share the CPUs with it
    # and wake together at every frame on the air (each reads every other's). They yield to
    # the hub and the radio, or the bench would time the hub's reaction behind the tables'
    # reading and not the channel.
    os.nice(NICE)
    lock = threading.Lock()

    def tell(*message: Any) -> None:
        with lock:
            print(json.dumps(message), flush=True)

    key = p.key_bytes(spec.key_hex)
    outbox = Outbox(Path(spec.folder) / f"outbox-{spec.table}.sqlite")
    link = PolledLink(spec.path, spec.baud, spec.device, key, table=spec.table)
    told = threading.Event()

    def tracked(news: Tracking) -> None:
        if news.seq == 1 and news.receipt is not None and not told.is_set():
            told.set()
            tell("receipt", time.perf_counter())

    def commanded(command: Command) -> None:
        if command.kind == "pause":
            tell("paused", time.perf_counter())

    courier = Courier(
        outbox,
        link,
        spec.device,
        key,
        heartbeat_s=spec.heartbeat_s,
        status=lambda: p.Heartbeat(state="done"),
        on_tracking=tracked,
        on_command=commanded,
        rng=random.Random(f"courier {spec.seed} {spec.table}"),
    )
    link.on_push = courier.push
    courier.start()
    for line in sys.stdin:
        what = line.strip()
        if what == "settle":
            while link.busy:
                time.sleep(0.01)  # sleep-ok: the first heartbeat's ack, on the real clock
            tell("settled")
        elif what == "keep":
            outbox.keep(spec.body)
            courier.wake()
        elif what == "stop":
            courier.stop()
            receipt = outbox.receipt(1)
            outbox.close()
            tell("kept", receipt)
            return


if __name__ == "__main__":
    main()
