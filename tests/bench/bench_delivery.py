"""``make bench``: from the last seat's confirmation to the receipt on all four screens.

A virtual table (the real daemon, mock pins, real screens on a recording bus, its outbox and
courier) is paired with the real ``klik hub`` in its own process over loopback HTTP and
SQLite, and plays GAMES short games: D starts, A goes out at once, every seat confirms its
rack with a double tap. Each game is timed on the table clock from the moment the last
confirming double tap is recognised (its final release edge and the debounce after it: the
core's ``ResultReady`` ends the game then) to the moment the fourth seat's screen, redrawn
with the hub's receipt, is handed to its panel. In between: the result committed to the
outbox, the courier woken, the POST, the hub's commit, the signed ack checked, the outbox
told, and the four screens redrawn.

Not a timed test: it prints the median and p99 (of 30 games: the slowest) next to the goal.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from klik.core import game as g
from klik.table import config as c
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim
from klik_hub import hall
from klik_hub.main import now_ms
from klik_hub.storage.db import open_engine
from klik_hub.storage.store import Store
from tests.bench.bench_hub import running_hub
from tests.bench.quick import size

GAMES = size(30, 2)
TABLE = 3
GOAL_P99_MS = 300.0
PLAYERS = '[players]\nA = "Ania"\nB = "Bożena"\nC = "Łukasz"\nD = "Źdźisław"\n'


def until(table: Daemon, done: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = table.clock() + timeout_s
    while not done():
        assert table.clock() < deadline, "timed out"
        table.wait_idle(0.05)


def press(table: Daemon, seat: str) -> float:
    """A press of ``seat``'s button; returns its release edge on the table clock."""
    pin = table.gpio.button_pin(seat)
    pin.drive_low()
    time.sleep(0.1)  # sleep-ok: a real press lasts longer than the debounce
    released = table.clock()
    pin.drive_high()
    return released


def double(table: Daemon, seat: str) -> float:
    press(table, seat)
    time.sleep(0.1)  # sleep-ok: the second tap inside the double-tap window
    released = press(table, seat)
    time.sleep(0.2)  # sleep-ok: past the debounce: the tap is recognised
    return released


def play(table: Daemon) -> float:
    """One game to the end: the seat before this game's starter starts it (the starter moves
    on each game, 000 f), the starter goes out at once, and the count ends with the winner's
    confirmation (nobody else had opened, so nobody else is asked: 000 n).

    Returns the moment the last confirmation was recognised: its final release edge plus
    the debounce (a release is certain only once the contact has been quiet that long).
    """
    settings = table.engine.game.settings
    seats, starter = settings.seats, settings.starter
    press(table, seats[seats.index(starter) - 1])
    time.sleep(0.2)  # sleep-ok: past the debounce: the tap is recognised
    until(table, lambda: table.engine.game.mover == starter)
    double(table, starter)
    until(table, lambda: table.engine.game.phase is g.Phase.SCORING)
    released = double(table, starter)
    until(table, lambda: table.engine.game.phase is g.Phase.DONE)
    return released + table.config.buttons.debounce_ms / 1000


class Screens:
    """Watches the four seats' images: when was each last handed over with a receipt."""

    def __init__(self) -> None:
        self.table: Daemon | None = None  # the table it watches, once made (it is given this)
        self.shown: dict[str, float] = {}
        self.all_four = threading.Event()

    def __call__(self, seat: str, _image: Image.Image, _now: float) -> None:
        # Called on the engine thread right after the seat's image went to its panel.
        assert self.table is not None
        view = self.table.engine.views[seat]
        if view.receipt is None:
            self.shown.pop(seat, None)
            return
        self.shown.setdefault(seat, self.table.clock())
        if len(self.shown) == 4:
            self.all_four.set()

    def reset(self) -> None:
        self.shown.clear()
        self.all_four.clear()


def latencies(url: str, store: Store, folder: Path) -> list[float]:
    """Seconds from each game's last confirmation to its receipt on the fourth screen."""
    device, key = hall.devices.pair(store, TABLE)
    hub = f'[hub]\nlink = "http"\nurl = "{url}"\ntable = {TABLE}\n'
    hub += f'device_id = "{device}"\nkey = "{key}"\n'
    screens = Screens()
    table = sim.make_daemon(c.from_text(PLAYERS + hub), str(folder), on_frame=screens)
    screens.table = table
    table.start()
    samples = []
    try:
        for _ in range(GAMES):
            screens.reset()
            recognised = play(table)
            assert screens.all_four.wait(10.0), "no receipt on the screens within 10 s"
            samples.append(max(screens.shown.values()) - recognised)
            table.call(lambda engine, now: engine.new_game(now))
            until(table, lambda: table.engine.game.phase is g.Phase.READY)
    finally:
        table.stop()
    return samples


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="klik-bench-") as name:
        folder = Path(name)
        db = str(folder / "hub.sqlite")
        store = Store(open_engine(db, pool_size=1), now_ms)
        with running_hub(db) as url:
            samples = sorted(latencies(url, store, folder / "table"))
        assert len(hall.results.newest(store)) == GAMES
        store.engine.dispose()
    p50 = statistics.median(samples) * 1000
    p99 = samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))] * 1000
    verdict = "✓" if p99 < GOAL_P99_MS else "✗"
    print(
        f"last confirmation → receipt on all four screens, {len(samples)} games over loopback "
        f"HTTP: p50 {p50:.0f} ms, p99 {p99:.0f} ms  goal p99 < {GOAL_P99_MS:.0f} ms {verdict}"
    )


if __name__ == "__main__":
    main()
