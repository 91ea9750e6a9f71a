"""``make bench``: the core's speed and the judge CLI's start-up, each next to its goal.

Not a timed test: machines are noisy, so this prints medians over several runs and the
figures go into the issue notes.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from klik.core import game as g
from klik.core.tabletop import Edge, Event, new_tabletop, next_due, step
from tests.bench.quick import size

RUNS = size(7, 1)
MOVES = size(300, 20)
TICK_S = 0.05  # the daemon's loop ticks 20 times a second


def a_long_game(seed: int = 1) -> list[Event]:
    """300 moves at four seats: taps and draws, bouncy contacts, a few judge calls."""
    rng = random.Random(seed)
    events: list[Event] = [Edge("D", True, 0.0), Edge("D", False, 0.1)]
    t, seats = 1.0, "ABCD"
    for move in range(MOVES):
        seat = seats[move % 4]
        t += rng.uniform(3.0, 40.0)
        length = 1.3 if rng.random() < 0.15 else 0.12
        events += [Edge(seat, True, t), Edge(seat, False, t + 0.004), Edge(seat, True, t + 0.008)]
        events.append(Edge(seat, False, t + length))
        if rng.random() < 0.02:  # another seat calls the judge and withdraws
            other = seats[(move + 2) % 4]
            t += length + 1.0
            events += [Edge(other, True, t), Edge(other, False, t + 2.3)]
            events += [Edge(other, True, t + 20.0), Edge(other, False, t + 20.1)]
            t += 20.1
        t += length
    return events


def with_ticks(events: list[Event]) -> list[Event]:
    merged: list[Event] = []
    t = 0.0
    for event in events:
        while t + TICK_S < event.at:
            t += TICK_S
            merged.append(g.Tick(t))
        merged.append(event)
    return merged


def settings() -> g.Settings:
    return g.Settings(move_time_s=60.0)


def events_per_second(events: list[Event]) -> tuple[float, int]:
    tabletop = new_tabletop(settings())
    start = time.perf_counter()
    for event in events:
        tabletop, _ = step(tabletop, event)
    elapsed = time.perf_counter() - start
    return len(events) / elapsed, len(tabletop.game.moves)


def replay_ms(events: list[Event]) -> float:
    """A whole game on the virtual clock: events plus exactly the moments the tabletop names."""
    tabletop = new_tabletop(settings())
    start = time.perf_counter()
    for event in events:
        while (due := next_due(tabletop)) is not None and due < event.at:
            tabletop, _ = step(tabletop, g.Tick(due))
        tabletop, _ = step(tabletop, event)
    return (time.perf_counter() - start) * 1000


def score_startup_ms() -> float:
    sheet = {"rules": "tournament", "ending": "rummikub", "winner": "A",
             "seats": {"A": {}, "B": {"rack": 25}, "C": {"rack": 17}, "D": {"rack": 18}}}  # fmt: skip
    klik = Path(sys.executable).with_name("klik")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(sheet, f)
    times = []
    for _ in range(RUNS + 2):
        start = time.perf_counter()
        subprocess.run([klik, "score", f.name], check=True, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
    Path(f.name).unlink()
    return statistics.median(times[2:])  # the first runs warm the disk cache


def main() -> None:
    edges = a_long_game()
    ticked = with_ticks(edges)
    rates = [events_per_second(ticked) for _ in range(RUNS)]
    edge_rates = [events_per_second(edges) for _ in range(RUNS)]
    replays = [replay_ms(edges) for _ in range(RUNS)]
    moves = rates[0][1]
    rate = statistics.median(r for r, _ in rates)
    edge_rate = statistics.median(r for r, _ in edge_rates)
    print(f"game: {moves} moves, {len(edges)} button edges, {len(ticked)} events with 20 Hz ticks")
    print(f"core events per second (edges + ticks)  {rate:>10,.0f}/s   goal >= 100,000/s")
    print(f"core events per second (edges only)     {edge_rate:>10,.0f}/s   goal >= 100,000/s")
    print(f"whole {moves}-move game replayed         {statistics.median(replays):>10.1f} ms  "
          "goal: a few ms")  # fmt: skip
    print(
        f"klik score start-up (median of {RUNS})      {score_startup_ms():>10.1f} ms  goal < 150 ms"
    )


if __name__ == "__main__":
    main()
