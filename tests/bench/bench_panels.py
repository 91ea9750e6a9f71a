"""``python -m tests.bench.bench_panels``: I2C bytes per screen update, ours next to luma's.

Both drivers are the real luma ones (ours subclass them) on the path the Pi takes: luma's
``i2c(port=1, address=0x3C)`` opening ``smbus2.SMBus`` (here a ``RecordingBus``), which
sends commands as SMBus block writes and each ``data()`` call as one ``i2c_rdwr`` message.

How bytes are counted: every I2C transaction is one address byte, one control byte (0x00
commands / 0x40 data) and its payload; START, STOP and ACK bits are not counted (each byte
takes 9 clock cycles, so at 400 kHz 1000 bytes are about 22.5 ms of bus). When luma is handed
a bus object instead (the virtual table does), it splits data into 32-byte blocks, two more
bytes per block for both drivers alike.

The screens are ``klik.table.screens.render.render`` of ``klik.table.screens.view`` views when that module imports, or
drawn here with PIL otherwise. Each figure is the bytes of one update at all four seats,
from a screen already on the panel to the next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest import mock

import smbus2
from luma.core.interface.serial import i2c
from luma.oled.device import sh1106, ssd1306
from PIL import Image, ImageDraw, ImageFont

from klik.table.hardware.i2cbus import Driver, RecordingBus
from klik.table.hardware.panels import PanelConfig, make_device

SEATS = "ABCD"
NAMES = {"A": "Ala", "B": "Bartek", "C": "Celina", "D": "Darek"}
GOAL = 0.25  # of luma's full frames
KHZ = 400

Screens = dict[str, Image.Image]


def drawn_screens(mover: str, seconds: int) -> Screens:
    """Every seat's screen while ``mover`` has ``seconds`` left, from klik.table.screens.render if it is
    there, else drawn here: big digits for the mover, one line for the others."""
    try:
        from klik.table.screens.render import render  # noqa: PLC0415  # written in parallel; may be absent
        from klik.table.screens.view import Screen, SeatView  # noqa: PLC0415
    except ImportError:
        return {seat: _own_screen(seat, mover, seconds) for seat in SEATS}
    return {
        seat: render(
            SeatView(
                seat=seat,
                name=NAMES[seat],
                table="1",
                game_no=1,
                screen=Screen.MOVE,
                mover=mover,
                mover_name=NAMES[mover],
                seconds_left=seconds,
                tiles_left=42,
            )
        )
        for seat in SEATS
    }


def _own_screen(seat: str, mover: str, seconds: int) -> Image.Image:
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    small = ImageFont.load_default(size=11)
    clock = f"{seconds // 60}:{seconds % 60:02d}"
    draw.text((0, 0), f"Stół 1 · gra 1   {seat} {NAMES[seat]}", font=small, fill=1)
    if seat == mover:
        draw.text((64, 34), clock, font=ImageFont.load_default(size=36), fill=1, anchor="mm")
    else:
        draw.text((0, 22), f"Ruch: {mover} {clock}", font=ImageFont.load_default(size=16), fill=1)
        draw.text((0, 40), NAMES[mover], font=small, fill=1)
    draw.text((0, 52), "Pula: 42", font=small, fill=1)
    return image


def _stock(driver: Driver) -> Callable[[Any], Any]:
    return ssd1306 if driver == "ssd1306" else sh1106  # type: ignore[no-any-return]


def _update_bytes(driver: Driver, before: Screens, after: Screens, *, ours: bool) -> int:
    """Bytes on the bus for every seat going from ``before`` to ``after`` (init not counted)."""
    total = 0
    for seat in SEATS:
        bus = RecordingBus(driver)
        with mock.patch.object(smbus2, "SMBus", lambda port, bus=bus: bus):
            serial = i2c(port=1, address=0x3C)  # exactly what the table opens
        if ours:
            device = make_device(serial, PanelConfig(seat, driver, "i2c"))
        else:
            device = _stock(driver)(serial)
        device.display(before[seat])
        start = bus.bytes_sent
        device.display(after[seat])
        assert bus.ram.image().tobytes() == after[seat].tobytes()  # both end on the picture
        total += bus.bytes_sent - start
    return total


def i2c_bytes() -> dict[str, int]:
    """Per driver and case, the I2C bytes of one update at all four seats, ours and luma's.

    Keys are ``"<driver> <case> <ours|luma>"``; cases: ``hand-over`` (B with 0:01 left taps,
    C's clock starts at 1:00) and ``second`` (B's clock 0:37 -> 0:36).
    """
    cases = {
        "hand-over": (drawn_screens("B", 1), drawn_screens("C", 60)),
        "second": (drawn_screens("B", 37), drawn_screens("B", 36)),
    }
    figures: dict[str, int] = {}
    drivers: tuple[Driver, ...] = ("ssd1306", "sh1106")
    for driver in drivers:
        for case, (before, after) in cases.items():
            figures[f"{driver} {case} ours"] = _update_bytes(driver, before, after, ours=True)
            figures[f"{driver} {case} luma"] = _update_bytes(driver, before, after, ours=False)
    return figures


def main() -> None:
    figures = i2c_bytes()
    print("I2C bytes for one update at four seats (address + control + payload per transfer)")
    for key in figures:
        if not key.endswith(" ours"):
            continue
        name = key.removesuffix(" ours")
        ours, luma = figures[key], figures[f"{name} luma"]
        share = ours / luma
        verdict = "ok" if share <= GOAL else "MISSED"
        bus_ms = ours * 9 / KHZ
        print(
            f"{name:<20} ours {ours:>5} B ({bus_ms:5.1f} ms at {KHZ} kHz)  luma {luma:>5} B  "
            f"= {share:6.1%}   goal <= {GOAL:.0%} of luma's full frames: {verdict}"
        )


if __name__ == "__main__":
    main()
