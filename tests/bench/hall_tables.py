"""The hall bench's tables (``bench_hall``): a group of them in a process of its own.

Each table is what a paired table runs on the hub's side of its screens: an outbox on its
card, a courier over ``HttpLink`` heartbeating every ``heartbeat_s``, and its games' results
kept at the times the bench planned. The bench starts a few such processes, ``python -m
tests.bench.hall_tables SPEC_FILE`` (a JSON list of ``HallTable``: too long for an argument),
so that a table's receipt does not wait for the interpreter behind sixty-three others (see
``bench_hall``). It imports the table's side only, and talks to the bench in lines, its stdin
and its stdout:

- bench → tables: ``settle``: answer ``["settled"]`` once every table's first heartbeat
  has its signed answer (a new outbox sends no result before: its seqs are in doubt);
  ``play T0``: keep each game's result at ``T0 + at_s`` and send it; ``stop``: stop, and
  answer ``["stopped", unacknowledged]``, the results the outboxes still hold without a
  receipt; then it ends;
- tables → bench (JSON): ``["receipt", table, game, kept_at, receipt_at]`` for each result
  once its receipt is in. The times are ``time.perf_counter()``: CLOCK_MONOTONIC on Linux,
  one clock for every process.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from klik.link import protocol as p
from klik.link.courier import Courier, Tracking
from klik.link.http import HttpLink
from klik.link.outbox import Outbox

NICE = 5  # the tables' niceness: below the hub's (in a hall each is a machine of its own)


@dataclass(frozen=True, slots=True)
class HallTable:
    """One bench table, paired as ``device`` with ``key_hex``; its outbox in ``folder``."""

    table: int
    device: str
    key_hex: str
    url: str
    folder: str
    games: list[tuple[float, dict[str, Any]]]  # (seconds after the start, the result)
    heartbeat_s: float
    first_beat_s: float  # when its courier starts: the tables of a hall are not switched
    # on in one instant, nor do their heartbeats come in step


class Played:
    """One table's outbox and courier, and when each of its results was kept."""

    def __init__(self, spec: HallTable, tell: Any) -> None:
        self.spec = spec
        self.tell = tell
        self.outbox = Outbox(Path(spec.folder) / f"outbox-{spec.table}.sqlite")
        self.kept: dict[int, tuple[int, float]] = {}  # seq: (game, kept_at)
        self.lock = threading.Lock()
        self.courier = Courier(
            self.outbox,
            HttpLink(spec.url, timeout_s=10.0),
            spec.device,
            p.key_bytes(spec.key_hex),
            heartbeat_s=spec.heartbeat_s,
            status=lambda: p.Heartbeat(state="move", mover="B", left_ms=41_000),
            on_tracking=self.tracked,
            on_command=lambda _: None,  # the round's lineup and clock: taken, nothing shown
            rng=random.Random(f"hall {spec.table}"),
        )

    def keep(self, game: int, body: dict[str, Any]) -> None:
        """The game is over: its result kept (on the card) and the courier woken."""
        with self.lock:  # the courier may report this seq before ``kept`` knows it
            seq = self.outbox.keep(body)
            self.kept[seq] = (game, time.perf_counter())
        self.courier.wake()

    def tracked(self, news: Tracking) -> None:
        if news.receipt is None or news.seq is None:
            return
        at = time.perf_counter()
        with self.lock:
            kept = self.kept.pop(news.seq, None)
        if kept is not None:
            self.tell("receipt", self.spec.table, kept[0], kept[1], at)

    @property
    def settled(self) -> bool:
        return self.courier.answered_at != -math.inf


def main() -> None:
    specs = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    run([HallTable(**x) for x in specs])


def run(specs: list[HallTable]) -> None:
    """The process: serve the bench's lines on stdin until ``stop``."""
    logging.disable(logging.WARNING)  # the courier logs each answer that did not come
    os.nice(NICE)
    lock = threading.Lock()

    def tell(*message: Any) -> None:
        with lock:
            print(json.dumps(message), flush=True)

    tables = [Played(spec, tell) for spec in specs]
    started = time.perf_counter()
    starting = sorted(tables, key=lambda t: t.spec.first_beat_s)
    for table in starting:
        due = started + table.spec.first_beat_s
        time.sleep(max(0.0, due - time.perf_counter()))  # sleep-ok: the tables switched on
        table.courier.start()
    for line in sys.stdin:
        what, _, arg = line.strip().partition(" ")
        if what == "settle":
            while not all(t.settled for t in tables):
                time.sleep(0.01)  # sleep-ok: the first heartbeats' answers, on the real clock
            tell("settled")
        elif what == "play":
            threading.Thread(target=play, args=(tables, float(arg)), daemon=True).start()
        elif what == "stop":
            for table in tables:
                table.courier.stop()
            waiting = sum(table.outbox.waiting() for table in tables)
            for table in tables:
                table.outbox.close()
            tell("stopped", waiting)
            return


def play(tables: list[Played], start: float) -> None:
    """Every game's result kept at its planned time (``start``: the bench's perf_counter)."""
    plan = sorted(
        ((start + at, game, table) for table in tables
         for game, (at, _) in enumerate(table.spec.games, 1)),
        key=lambda x: (x[0], x[1], x[2].spec.table),
    )  # fmt: skip
    for at, game, table in plan:
        time.sleep(max(0.0, at - time.perf_counter()))  # sleep-ok: the games' ends, planned
        table.keep(game, table.spec.games[game - 1][1])


if __name__ == "__main__":
    main()
