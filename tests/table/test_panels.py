"""The panel adapter: partial updates proven against a model of the controller's memory,
panels that fail and come back, and the mux bus looked up in a fake sysfs.

Nothing here sleeps: time is passed in as numbers, and the "hardware" is a RecordingBus.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import pytest
import smbus2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from luma.core.interface.serial import i2c
from PIL import Image, ImageDraw, ImageFont

from klik.errors import InputError, KlikError
from klik.table.config import Config
from klik.table.hardware.i2cbus import Driver, Gddram, RecordingBus
from klik.table.hardware.panels import (
    IO_ERRORS,
    PanelConfig,
    PanelError,
    Panels,
    PartialDisplay,
    PartialSH1106,
    PartialSSD1306,
    find_mux_bus,
    hardware_serial,
    make_device,
    open_panels,
    recording_serials,
)

DRIVERS: list[Driver] = ["ssd1306", "sh1106"]
BIG = ImageFont.load_default(size=40)
SMALL = ImageFont.load_default(size=12)


def blank() -> Image.Image:
    return Image.new("1", (128, 64))


def clock(text: str) -> Image.Image:
    """The mover's screen: big digits under a small header."""
    image = blank()
    draw = ImageDraw.Draw(image)
    draw.text((0, 0), "Stół 1  Ala", font=SMALL, fill=1)
    draw.text((20, 18), text, font=BIG, fill=1)
    return image


def line(text: str) -> Image.Image:
    """Another seat's screen: one small line."""
    image = blank()
    ImageDraw.Draw(image).text((0, 24), text, font=SMALL, fill=1)
    return image


def on_glass(image: Image.Image, rotate: int) -> bytes:
    """What the controller's memory must hold for ``image`` on a panel turned ``rotate``."""
    return image.rotate(-90 * rotate, expand=True).tobytes()


def device_on(
    driver: Driver, rotate: int = 0
) -> tuple[PartialSSD1306 | PartialSH1106, RecordingBus]:
    bus = RecordingBus(driver)
    config = PanelConfig("A", driver, "i2c", rotate=rotate)
    device = make_device(i2c(bus=bus, address=0x3C), config)
    assert isinstance(device, PartialSSD1306 | PartialSH1106)
    return device, bus


# --- partial updates, proven on the controller's memory ------------------------------------

rectangles = st.lists(
    st.one_of(
        st.none(),  # the same image again
        st.tuples(
            st.integers(0, 127),
            st.integers(0, 63),
            st.integers(0, 40),
            st.integers(0, 30),
            st.booleans(),
        ),
    ),
    min_size=1,
    max_size=8,
)


@pytest.mark.slow  # 60 examples for each driver and rotation
@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("rotate", [0, 2])  # as mounted, and upside down
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=st.binary(min_size=1024, max_size=1024), steps=rectangles)
def test_memory_equals_the_image_after_random_changes(
    driver: Driver, rotate: int, start: bytes, steps: list[tuple[int, int, int, int, bool] | None]
) -> None:
    device, bus = device_on(driver, rotate)
    image = Image.frombytes("1", (128, 64), start)
    device.display(image)
    assert bus.ram.image().tobytes() == on_glass(image, rotate)
    for step in steps:
        before, last = bus.transfer_count, image.tobytes()
        if step is not None:
            x, y, w, h, fill = step
            image = image.copy()
            ImageDraw.Draw(image).rectangle((x, y, x + w, y + h), fill=int(fill))
        unchanged = image.tobytes() == last
        device.display(image)
        assert bus.ram.image().tobytes() == on_glass(image, rotate)
        if unchanged:
            assert bus.transfer_count == before  # nothing changed, nothing sent


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_same_image_again_sends_nothing(driver: Driver) -> None:
    device, bus = device_on(driver)
    device.display(clock("0:37"))
    before = (bus.transfer_count, bus.bytes_sent)
    device.display(clock("0:37"))
    assert (bus.transfer_count, bus.bytes_sent) == before


@pytest.mark.parametrize("driver", DRIVERS)
def test_one_digit_on_the_big_clock_sends_a_fraction_of_a_frame(driver: Driver) -> None:
    device, bus = device_on(driver)
    device.display(clock("0:37"))
    before = bus.bytes_sent
    device.display(clock("0:36"))
    sent = bus.bytes_sent - before
    assert sent < 1024 // 4, sent  # luma sends 1096 (SSD1306) or 1128 (SH1106) bytes
    assert bus.ram.image().tobytes() == clock("0:36").tobytes()


@pytest.mark.parametrize(
    ("pixels", "windows"),  # windows as (first column, last column, first page, last page)
    [
        ([(10, 20), (40, 35)], [(10, 10, 2, 2), (40, 40, 4, 4)]),  # far apart: two windows
        ([(10, 20), (14, 20)], [(10, 14, 2, 2)]),  # a 3-column gap costs less than a window
        ([(10, 20), (30, 20)], [(10, 10, 2, 2), (30, 30, 2, 2)]),  # a 19-column gap costs more
        ([(x, y) for x in range(10, 21) for y in range(20, 36)], [(10, 20, 2, 4)]),  # one block
        ([(x, 63) for x in range(128)] + [(0, 0)], [(0, 0, 0, 0), (0, 127, 7, 7)]),
    ],
)
def test_ssd1306_sends_windows_around_the_changes(
    pixels: list[tuple[int, int]], windows: list[tuple[int, int, int, int]]
) -> None:
    device, bus = device_on("ssd1306")
    image = blank()
    device.display(image)
    image = image.copy()
    for pixel in pixels:
        image.putpixel(pixel, 1)
    bus.transfers.clear()
    device.display(image)
    commands = [t.payload for t in bus.transfers if not t.is_data]
    assert commands == [bytes([0x21, c0, c1, 0x22, p0, p1]) for c0, c1, p0, p1 in windows]
    data = sum(len(t.payload) for t in bus.transfers if t.is_data)
    assert data == sum((c1 - c0 + 1) * (p1 - p0 + 1) for c0, c1, p0, p1 in windows)
    assert bus.ram.image().tobytes() == image.tobytes()


def test_sh1106_sends_each_changed_page_from_column_2() -> None:
    device, bus = device_on("sh1106")
    image = blank()
    device.display(image)
    image = image.copy()
    image.putpixel((10, 20), 1)  # page 2, glass column 10 = controller column 12
    image.putpixel((40, 35), 1)  # page 4, column 42
    bus.transfers.clear()
    device.display(image)
    sent = [(t.is_data, t.payload) for t in bus.transfers]
    assert sent == [
        (False, bytes([0xB2, 0x0C, 0x10])),  # page 2, column 12: low nibble C, high 0
        (True, bytes([1 << 4])),  # row 20 is bit 4 of page 2
        (False, bytes([0xB4, 0x0A, 0x12])),  # page 4, column 42 = 0x2A
        (True, bytes([1 << 3])),  # row 35 is bit 3 of page 4
    ]


@pytest.mark.parametrize("driver", DRIVERS)
def test_after_a_failed_write_the_next_frame_is_whole(driver: Driver) -> None:
    device, bus = device_on(driver)
    device.display(clock("0:37"))
    bus.fail = True
    with pytest.raises(IO_ERRORS):
        device.display(clock("0:36"))
    bus.fail = False
    bus.power_cycle()  # whatever the panel holds now is unknown
    device.reinit()
    device.display(clock("0:36"))
    assert bus.ram.image().tobytes() == clock("0:36").tobytes()
    device.invalidate()
    before = bus.bytes_sent
    device.display(clock("0:36"))
    assert bus.bytes_sent - before > 1024  # forgotten: the whole frame again


# --- the recording bus ------------------------------------------------------------------------


def test_recording_bus_fails_a_count_of_transfers_then_recovers() -> None:
    bus = RecordingBus()
    bus.fail = 2
    for _ in range(2):
        with pytest.raises(OSError, match="Remote I/O error") as caught:
            bus.write_i2c_block_data(0x3C, 0x00, [0xAF])
        assert caught.value.errno == 121
    bus.write_i2c_block_data(0x3C, 0x00, [0xAF])
    assert bus.transfer_count == 1
    assert bus.bytes_sent == 3  # address, control byte, one command


def test_recording_bus_nacks_other_addresses() -> None:
    with pytest.raises(OSError, match="Remote I/O error"):
        RecordingBus(address=0x3C).write_i2c_block_data(0x3D, 0x00, [0xAF])


def test_recording_bus_takes_smbus2_messages() -> None:
    bus = RecordingBus("sh1106")
    bus.i2c_rdwr(smbus2.i2c_msg.write(0x3C, [0x00, 0xB1, 0x02, 0x10]))
    bus.i2c_rdwr(smbus2.i2c_msg.write(0x3C, [0x40, 0xFF, 0x81]))
    assert bus.ram.glass()[128:130] == bytes([0xFF, 0x81])  # page 1, glass columns 0 and 1


# --- the set of panels ------------------------------------------------------------------------


def seats(driver: Driver = "ssd1306", rotate: int = 0) -> list[PanelConfig]:
    return [PanelConfig(s, driver, "i2c", rotate=rotate) for s in "ABCD"]


def table(driver: Driver = "ssd1306") -> dict[str, RecordingBus]:
    return {s: RecordingBus(driver) for s in "ABCD"}


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("driver", DRIVERS)
def test_panels_show_only_what_differs(driver: Driver, monkeypatch: pytest.MonkeyPatch) -> None:
    buses = table(driver)
    panels = Panels.open(seats(driver), now=0.0, make_serial=recording_serials(buses))
    assert panels.out == frozenset()
    panels.show("B", clock("0:37"), 1.0)
    panels.show("A", line("Ruch: B 0:37"), 1.0)
    drawn: list[Image.Image] = []
    monkeypatch.setattr(PartialDisplay, "display", lambda self, image: drawn.append(image))
    panels.show("B", clock("0:37"), 1.1)  # the same picture: not even handed to the driver
    assert drawn == []
    monkeypatch.undo()
    assert buses["B"].ram.image().tobytes() == clock("0:37").tobytes()
    assert buses["A"].ram.image().tobytes() == line("Ruch: B 0:37").tobytes()
    assert buses["C"].ram.image().tobytes() == blank().tobytes()  # cleared by the init
    # Panels count payload bytes; the bus adds an address and a control byte per transfer.
    for seat, bus in buses.items():
        assert bus.bytes_sent == panels.sent_bytes[seat] + 2 * bus.transfer_count


def test_a_failing_panel_goes_out_with_one_warning_and_comes_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="klik.table.hardware.panels")
    buses = table()
    panels = Panels.open(seats(), now=0.0, make_serial=recording_serials(buses), retry_s=5.0)
    panels.show("C", line("Ruch: B 0:02"), 1.0)
    buses["C"].fail = True  # unplugged

    panels.show("C", line("Ruch: B 0:01"), 2.0)  # does not raise
    panels.show("C", line("Ruch: C 1:00"), 3.0)  # kept for later
    panels.show("A", line("Ruch: C 1:00"), 3.0)  # the others go on
    assert panels.out == frozenset("C")
    [warning] = warnings(caplog)
    assert warning.startswith("panel C (i2c-1 address 0x3C) is out: ")
    assert "0x3C" in warning

    panels.retry(4.0)  # still unplugged, and too early anyway
    buses["C"].fail = False
    buses["C"].power_cycle()  # plugged in again: reset state, garbage in its memory
    panels.retry(6.9)  # less than retry_s after the failure at 2.0
    assert panels.out == frozenset("C")
    panels.retry(7.0)
    assert panels.out == frozenset()
    assert buses["C"].ram.image().tobytes() == line("Ruch: C 1:00").tobytes()
    assert buses["A"].ram.image().tobytes() == line("Ruch: C 1:00").tobytes()
    assert len(warnings(caplog)) == 1
    panels.show("C", line("Ruch: C 0:59"), 8.0)  # and it is drawn as before
    assert buses["C"].ram.image().tobytes() == line("Ruch: C 0:59").tobytes()


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        ("unplugged", "I2C device not found on address: 0x3C"),  # luma's words for errno 121
        ("wrong address", "I2C device not found on address: 0x3D"),  # nobody answers at 0x3D
    ],
)
def test_a_panel_missing_at_start_is_out_then_retried(
    caplog: pytest.LogCaptureFixture, fault: str, expected: str
) -> None:
    buses = table()
    configs = seats()
    if fault == "unplugged":
        buses["D"].fail = True
    else:
        configs[3] = dataclasses.replace(configs[3], i2c_address=0x3D)
    panels = Panels.open(configs, now=100.0, make_serial=recording_serials(buses))
    assert panels.out == frozenset("D")
    assert warnings(caplog) == [
        f"panel D (i2c-1 address 0x{configs[3].i2c_address:02X}) is out: {expected}"
    ]
    panels.show("D", clock("0:45"), 101.0)
    panels.retry(104.9)
    assert panels.out == frozenset("D")
    buses["D"].fail = False
    buses["D"].address = configs[3].i2c_address
    panels.retry(105.0)
    assert panels.out == frozenset()
    assert buses["D"].ram.image().tobytes() == clock("0:45").tobytes()


def test_retry_without_an_opening_time_tries_at_once() -> None:
    buses = table()
    buses["B"].fail = 1  # only the knock at start fails
    panels = Panels.open(seats(), make_serial=recording_serials(buses))
    assert panels.out == frozenset("B")
    panels.retry(0.0)
    assert panels.out == frozenset()


def test_open_panels_from_the_table_config() -> None:
    config = Config()
    common = dataclasses.replace(config.panels.common, interface="sim", driver="sh1106")
    no_screen = dataclasses.replace(common, driver="none")
    config = dataclasses.replace(
        config, panels=dataclasses.replace(config.panels, common=common, seats=(("D", no_screen),))
    )
    panels = open_panels(config, now=0.0)
    assert set(panels.sent_bytes) == {"A", "B", "C"}  # D has no screen
    assert panels.out == frozenset()
    panels.show("A", clock("1:00"), 1.0)  # no hardware touched: a recording bus each
    panels.show("D", clock("1:00"), 1.0)  # no panel, nothing to do
    assert panels.out == frozenset()


def test_panel_config_wants_mux_address_and_channel_together() -> None:
    with pytest.raises(InputError, match="panel A: mux_address and mux_channel go together"):
        PanelConfig("A", "ssd1306", "i2c", mux_address=0x70)


# --- the hardware seam: luma's own i2c and spi over fakes ------------------------------------


def fake_sysfs(
    root: Path, parent: int = 1, muxes: dict[int, int] | None = None, *, links: bool = True
) -> Path:
    """The kernel's I2C sysfs for muxes on bus ``parent``: {mux address: first channel's bus}.

    As in Documentation/i2c/i2c-sysfs.rst: the buses live under the parent's directory;
    /sys/bus/i2c/devices holds links to them; the mux holds channel-N -> ../i2c-M; each
    channel bus has a name and a mux_device link back to the mux.
    """
    adapter = root / "devices" / "platform" / "soc" / "fe804000.i2c" / f"i2c-{parent}"
    devices = root / "bus" / "i2c" / "devices"
    devices.mkdir(parents=True)
    adapter.mkdir(parents=True)
    (adapter / "name").write_text("bcm2835 (i2c@7e804000)\n")
    up = "../../../devices/platform/soc/fe804000.i2c"
    (devices / f"i2c-{parent}").symlink_to(f"{up}/i2c-{parent}")
    for address, first in (muxes or {0x70: 22}).items():
        mux = f"{parent}-{address:04x}"
        (adapter / mux).mkdir()
        (adapter / mux / "name").write_text("pca9548\n")
        (devices / mux).symlink_to(f"{up}/i2c-{parent}/{mux}")
        for channel in range(8):
            bus = adapter / f"i2c-{first + channel}"
            bus.mkdir()
            (bus / "name").write_text(f"i2c-{parent}-mux (chan_id {channel})\n")
            (bus / "device").symlink_to(f"../../i2c-{parent}")
            (bus / "mux_device").symlink_to(f"../{mux}")
            (devices / bus.name).symlink_to(f"{up}/i2c-{parent}/{bus.name}")
            if links:
                (adapter / mux / f"channel-{channel}").symlink_to(f"../{bus.name}")
    return root


@pytest.mark.parametrize("links", [True, False])  # channel-N links, or names and mux_device only
def test_mux_bus_is_looked_up_in_sysfs(tmp_path: Path, links: bool) -> None:
    sysfs = fake_sysfs(tmp_path, muxes={0x70: 22, 0x71: 30}, links=links)
    assert find_mux_bus(1, 0x70, 0, sysfs) == 22
    assert find_mux_bus(1, 0x70, 7, sysfs) == 29
    assert find_mux_bus(1, 0x71, 2, sysfs) == 32  # same names as 0x70's channel 2: told apart


@pytest.mark.parametrize(
    ("parent", "address", "channel"),
    [
        (1, 0x72, 3),  # no mux at that address
        (0, 0x70, 3),  # the mux is on another bus
    ],
)
def test_mux_bus_not_found_is_one_clear_line(
    tmp_path: Path, parent: int, address: int, channel: int
) -> None:
    sysfs = fake_sysfs(tmp_path)
    with pytest.raises(PanelError) as caught:
        find_mux_bus(parent, address, channel, sysfs)
    message = str(caught.value)
    assert "\n" not in message
    assert f"no channel {channel} of an I2C mux at 0x{address:02X} on i2c-{parent} " in message
    assert isinstance(caught.value, KlikError)
    assert isinstance(caught.value, OSError)


def test_mux_bus_without_the_overlay(tmp_path: Path) -> None:
    with pytest.raises(PanelError, match="is dtoverlay=i2c-mux"):
        find_mux_bus(1, 0x70, 0, tmp_path)  # no i2c sysfs at all


def test_i2c_panel_behind_a_mux_through_luma_and_smbus2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Pi's path: the bus number from sysfs, luma's i2c(port=N) opening smbus2.SMBus(N)
    and sending data with i2c_rdwr (one message per window)."""
    sysfs = fake_sysfs(tmp_path)
    buses = {24: RecordingBus("sh1106")}  # channel 2 of the mux at 0x70
    monkeypatch.setattr(smbus2, "SMBus", lambda port: buses[port])
    config = PanelConfig("B", "sh1106", "i2c", mux_address=0x70, mux_channel=2, rotate=2)
    panels = Panels.open([config], now=0.0, make_serial=lambda c: hardware_serial(c, sysfs=sysfs))
    panels.show("B", clock("0:37"), 1.0)
    assert panels.out == frozenset()
    assert buses[24].ram.image().tobytes() == on_glass(clock("0:37"), 2)


def test_i2c_bus_number_reaches_smbus2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[int] = []

    def refuse(port: int) -> None:
        opened.append(port)
        raise FileNotFoundError(2, "No such file or directory", f"/dev/i2c-{port}")

    monkeypatch.setattr(smbus2, "SMBus", refuse)
    sysfs = fake_sysfs(tmp_path)
    configs = [
        PanelConfig("A", "ssd1306", "i2c", mux_address=0x70, mux_channel=5),
        PanelConfig("B", "ssd1306", "i2c", i2c_bus=3),
        PanelConfig("C", "ssd1306", "i2c", mux_address=0x77, mux_channel=0),  # no such mux
    ]
    panels = Panels.open(configs, now=0.0, make_serial=lambda c: hardware_serial(c, sysfs=sysfs))
    assert opened == [27, 3]
    assert panels.out == frozenset("ABC")


class FakeGpio:
    """Enough of RPi.GPIO for luma's spi: pin levels by BCM number."""

    BCM, OUT, LOW, HIGH = 11, 0, 0, 1

    def __init__(self) -> None:
        self.level: dict[int, int] = {}
        self.outputs: list[int] = []

    def setup(self, pin: int, direction: int) -> None:
        self.outputs.append(pin)

    def output(self, pin: int, level: int) -> None:
        self.level[pin] = level

    def cleanup(self, pins: list[int] | None = None) -> None:
        pass


class FakeSpiDev:
    """Enough of spidev for luma's spi: bytes go to a controller model, as the DC pin says."""

    def __init__(self, gpio: FakeGpio, dc: int, driver: Driver) -> None:
        self.gpio, self.dc = gpio, dc
        self.ram = Gddram(driver)
        self.opened: tuple[int, int] | None = None
        self.max_speed_hz = 0
        self.written = 0

    def open(self, port: int, device: int) -> None:
        self.opened = (port, device)

    def writebytes(self, data: list[int]) -> None:
        feed = self.ram.data if self.gpio.level[self.dc] else self.ram.command
        for byte in data:
            feed(byte)
        self.written += len(data)

    def close(self) -> None:
        self.opened = None


@pytest.mark.parametrize("driver", DRIVERS)
def test_spi_panel_through_luma_spi(driver: Driver) -> None:
    gpio = FakeGpio()
    spidev = FakeSpiDev(gpio, dc=23, driver=driver)
    config = PanelConfig("C", driver, "spi", spi_port=0, spi_device=1, gpio_dc=23, gpio_reset=27)
    panels = Panels.open(
        [config], now=0.0, make_serial=lambda c: hardware_serial(c, spidev=spidev, gpio=gpio)
    )
    assert spidev.opened == (0, 1)
    assert gpio.outputs == [23, 27]  # DC and reset, as configured
    assert gpio.level[27] == FakeGpio.HIGH  # out of reset
    panels.show("C", clock("0:37"), 1.0)
    panels.show("C", clock("0:36"), 2.0)
    assert spidev.ram.image().tobytes() == clock("0:36").tobytes()
    assert panels.sent_bytes["C"] == spidev.written  # SPI has no framing bytes
