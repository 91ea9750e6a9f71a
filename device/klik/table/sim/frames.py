"""``klik replay SCRIPT --frames DIR``: every seat's screen as a PNG at every change.

The script runs through the same engine as the daemon (no pins, no panels, no journal), on
the virtual clock: the clock jumps from one moment to the next moment anything can change, so
every picture a player would have seen is written, named by seat, order and time.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from klik.errors import InputError
from klik.script import Script
from klik.table import config as c
from klik.table.game.engine import Engine
from klik.table.record.driver import Driver


def run_with_frames(script: Script, directory: Path) -> Driver:
    """Replay ``script`` writing ``DIR/<seat>-<nnnn>-<ms>.png``; returns the finished driver."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"{directory}: cannot make the frames folder ({error.strerror})") from None
    count = 0

    def write(seat: str, image: Image.Image, now: float) -> None:
        nonlocal count
        count += 1
        image.save(directory / f"{seat}-{count:04d}-{round(now * 1000):08d}ms.png")

    config = c.load(None)
    engine = Engine(config, None, None, on_frame=write, settings=script.settings)
    engine.start(0.0)
    for event in script.events:
        _run_until(engine, event.at)
        engine.handle(event, event.at)
    _run_until(engine, script.end)
    return engine.driver


def _run_until(engine: Engine, until: float) -> None:
    now = engine.driver.now
    while (wake := engine.next_wake(now)) is not None and wake <= until:
        now = wake if wake > now else now + 1e-6  # never stand still on a moment already done
        engine.tick(now)
    engine.tick(until)
