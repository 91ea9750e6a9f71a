"""The seats' OLED panels: luma's drivers sending only what changed; a set that survives unplugging.

Theory of operation. luma's monochrome drivers send the whole 1024-byte frame on every
``display()``: at 400 kHz, about 25 ms of I2C per panel and picture, on a bus the four
seats may share. Our subclasses of the real ``luma.oled.device.ssd1306`` and ``sh1106`` keep
the bytes the panel's memory holds, turn the new image into the same bytes (after luma's own
``preprocess``, which rotates), and send only the difference:

- SSD1306 (horizontal addressing, which luma's init selects with 0x20 0x00): windows of
  pages × columns, each set with 0x21 (columns) and 0x22 (pages) and then filled in one go;
  the controller wraps from page to page inside a window.
- SH1106 (page addressing only; 132 columns with the glass from column 2, as luma writes):
  windows one page high, each set with 0xB0|page and the column's low and high nibble.

The windows are chosen to send the fewest bytes, counting what each window costs in
addressing (``_windows``): one window around everything that changed is simplest, but when
a hand-over rewrites the clock and a status line far apart, separate windows send a quarter
fewer bytes (the bench, tests/bench/bench_panels.py, measures it).

The memory is trusted only after a complete write: luma's init clears the panel through
``display()``, which sends the whole frame; a failed write forgets what the panel holds, so
the next one is whole again; a panel that comes back is initialised again (init sequence and
that whole clear frame) before it gets the latest image. Nothing changed: nothing sent.

``Panels`` is the daemon's set of seat panels. It never raises on an I/O error: the seat is
marked out (one warning in the log), the latest image is kept, and ``retry(now)`` opens it
again every ``retry_s``. Time comes in as ``now`` (monotonic seconds); nothing here sleeps
or reads a clock. ``make_serial`` is the seam: on the Pi it is ``hardware_serial`` (luma's
``i2c(port=N, address=A)`` or ``spi(...)``); the virtual table and the tests pass
``recording_serials`` with a ``klik.table.hardware.i2cbus.RecordingBus`` per seat.
"""

from __future__ import annotations

import errno
import logging
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import luma.core.error
from luma.core.interface.serial import i2c, spi
from luma.oled.device import sh1106, ssd1306
from PIL import Image

from klik.errors import InputError, KlikError
from klik.table.hardware.i2cbus import RecordingBus

if TYPE_CHECKING:
    from klik.table.config import Config

log = logging.getLogger("klik.table.hardware.panels")

Driver = Literal["ssd1306", "sh1106"]
Interface = Literal["i2c", "spi"]

WIDTH, HEIGHT = 128, 64
PAGES = HEIGHT // 8
NOP = 0xE3  # a no-operation command on both the SSD1306 and the SH1106
IO_ERRORS: tuple[type[BaseException], ...] = (OSError, luma.core.error.Error)


class PanelError(KlikError, OSError):
    """A panel's bus cannot be found or opened."""


@dataclass(frozen=True, slots=True)
class PanelConfig:
    """One seat's panel, as the table's config gives it."""

    seat: str
    driver: Driver
    interface: Interface
    i2c_bus: int = 1  # the panel's bus when there is no mux; the mux's parent bus when there is
    i2c_address: int = 0x3C
    mux_address: int | None = None  # a TCA9548A behind the kernel's i2c-mux overlay
    mux_channel: int | None = None  # set exactly when mux_address is
    spi_port: int = 0
    spi_device: int = 0
    gpio_dc: int = 24  # BCM numbers, SPI only
    gpio_reset: int = 25
    rotate: int = 0  # quarter turns, as luma's rotate: 2 is upside down

    def __post_init__(self) -> None:
        if (self.mux_address is None) != (self.mux_channel is None):
            raise InputError(
                f"panel {self.seat}: mux_address and mux_channel go together: give both or neither"
            )

    @property
    def where(self) -> str:
        """Where the panel is wired, for log lines: ``i2c-1 mux 0x70 channel 2 address 0x3C``."""
        if self.interface == "spi":
            return f"spi{self.spi_port}.{self.spi_device} DC GPIO{self.gpio_dc}"
        mux = "" if self.mux_address is None else f" mux 0x{self.mux_address:02X}"
        channel = "" if self.mux_channel is None else f" channel {self.mux_channel}"
        return f"i2c-{self.i2c_bus}{mux}{channel} address 0x{self.i2c_address:02X}"


def find_mux_bus(
    parent_bus: int, mux_address: int, channel: int, sysfs: Path = Path("/sys")
) -> int:
    """The bus number Linux gave ``channel`` of the I2C mux at ``mux_address`` on ``parent_bus``.

    Numbers are handed out as muxes probe, so they are looked up, never guessed. The mux
    directory ``/sys/bus/i2c/devices/1-0070`` holds ``channel-0 -> ../i2c-22``; should that
    link be missing, the channel bus is found by its name ``i2c-1-mux (chan_id 0)`` together
    with its ``mux_device`` link (two muxes on one parent share names). Layout as in the
    kernel's Documentation/i2c/i2c-sysfs.rst. Reads sysfs only; raises ``PanelError``.
    """
    devices = sysfs / "bus" / "i2c" / "devices"
    mux = f"{parent_bus}-{mux_address:04x}"  # the kernel's "%d-%04x" device name
    number = _bus_number(devices / mux / f"channel-{channel}")
    if number is not None:
        return number
    name = f"i2c-{parent_bus}-mux (chan_id {channel})"
    for bus in sorted(devices.glob("i2c-*")):
        try:
            found = (bus / "name").read_text().strip()
            mux_device = Path(os.readlink(bus / "mux_device")).name
        except OSError:
            continue
        if found == name and mux_device == mux:
            return int(bus.name.removeprefix("i2c-"))
    raise PanelError(
        f"no channel {channel} of an I2C mux at 0x{mux_address:02X} on i2c-{parent_bus} "
        f"in {devices} (is dtoverlay=i2c-mux with addr=0x{mux_address:02x} in config.txt?)"
    )


def _bus_number(link: Path) -> int | None:
    try:
        target = Path(os.readlink(link)).name
    except OSError:
        return None
    match = re.fullmatch(r"i2c-(\d+)", target)
    return int(match.group(1)) if match else None


class Serial(Protocol):
    """What luma's devices talk to: ``luma.core.interface.serial.i2c`` and ``spi`` are ones."""

    def command(self, *cmd: int) -> None: ...

    def data(self, data: Sequence[int]) -> None: ...

    def cleanup(self) -> None: ...


def hardware_serial(
    config: PanelConfig,
    *,
    sysfs: Path = Path("/sys"),
    spidev: Any = None,
    gpio: Any = None,
) -> Serial:
    """Open the panel's bus on the Pi: luma's ``i2c(port=N, address=A)`` or ``spi(...)``.

    A mux channel's bus number is looked up in ``sysfs`` on every call, so a mux that probes
    late is found by a later retry. ``spidev`` and ``gpio`` default to luma's own (the spidev
    module and RPi.GPIO; on a Pi 5 the rpi-lgpio package provides RPi.GPIO); tests pass
    fakes. Opens a file under /dev; raises ``PanelError``, ``OSError`` or luma's errors.
    """
    if config.interface == "spi":
        return spi(  # type: ignore[no-any-return]
            spi=spidev,
            gpio=gpio,
            port=config.spi_port,
            device=config.spi_device,
            gpio_DC=config.gpio_dc,
            gpio_RST=config.gpio_reset,
        )
    bus = config.i2c_bus
    if config.mux_address is not None and config.mux_channel is not None:
        bus = find_mux_bus(config.i2c_bus, config.mux_address, config.mux_channel, sysfs)
    return i2c(port=bus, address=config.i2c_address)  # type: ignore[no-any-return]


def recording_serials(buses: Mapping[str, RecordingBus]) -> Callable[[PanelConfig], Serial]:
    """A ``make_serial`` for the virtual table and tests: luma's i2c over each seat's bus."""

    def make(config: PanelConfig) -> Serial:
        return i2c(bus=buses[config.seat], address=config.i2c_address)  # type: ignore[no-any-return]

    return make


def _page_bytes(image: Image.Image) -> bytes:
    """The controller's layout of a one-bit image: page by page, one byte per column, bit i
    of a byte is pixel row 8·page + i. luma builds the same bytes pixel by pixel; here PIL
    does it: rotated a quarter turn, each image column becomes a row of packed bytes, whose
    first byte (most significant bit first) holds the bottom page.
    """
    pages = image.height // 8
    packed = image.transpose(Image.Transpose.ROTATE_270).tobytes()
    return b"".join(packed[pages - 1 - page :: pages] for page in range(pages))


Window = tuple[int, int, int, int]  # first page, last page, first column, last column


def _windows(previous: bytes, frame: bytes, width: int, cost: int, tallest: int) -> list[Window]:
    """The windows that take the panel from ``previous`` to ``frame`` in the fewest bytes:
    each window costs ``cost`` bytes of addressing and framing plus its own bytes, and is at
    most ``tallest`` pages high. Both frames are the controller's bytes, ``width`` a page.

    Pages are grouped by dynamic programming (8 pages: 36 groups at most); in a group, the
    columns that differ on any of its pages form runs, and two runs share a window when the
    gap between them costs less to resend than a window of its own.
    """
    pages = len(frame) // width
    masks = [  # per page, bit x set: column x differs
        _differing(previous[p * width : (p + 1) * width], frame[p * width : (p + 1) * width])
        for p in range(pages)
    ]
    best: list[tuple[int, list[Window]]] = [(0, [])]  # cheapest plan for the first j pages
    for j in range(1, pages + 1):
        plans = []
        union = 0
        for i in range(j - 1, max(j - tallest, 0) - 1, -1):  # the group is pages i .. j-1
            union |= masks[i]
            height = j - i
            runs = _runs(union, height, cost)
            spent = best[i][0] + sum(cost + height * (last - first + 1) for first, last in runs)
            plans.append((spent, best[i][1] + [(i, j - 1, a, b) for a, b in runs]))
        best.append(min(plans, key=lambda plan: plan[0]))
    return best[pages][1]


_BIT_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


def _differing(old: bytes, new: bytes) -> int:
    if old == new:  # most pages, most of the time: a clock tick touches two or three
        return 0
    # Bit x set where byte x differs, without a Python loop over the bytes (this ran every
    # second for every screen): XOR, fold each byte onto its lowest bit, read as binary.
    width = len(new)
    x = int.from_bytes(old, "little") ^ int.from_bytes(new, "little")
    x |= x >> 4
    x |= x >> 2
    x |= x >> 1
    lows = (x & int.from_bytes(b"\x01" * width, "little")).to_bytes(width, "little")
    return int(lows.translate(_BIT_DIGITS)[::-1], 2)


def _runs(columns: int, height: int, cost: int) -> list[tuple[int, int]]:
    """Runs of set bits in ``columns`` (bit x: column x differs), joined across gaps that
    cost less than a window: a gap of g columns resends g × ``height`` bytes."""
    runs: list[tuple[int, int]] = []
    while columns:
        first = (columns & -columns).bit_length() - 1
        ones = columns >> first
        last = first + (~ones & (ones + 1)).bit_length() - 2  # trailing ones, counted
        if runs and (first - runs[-1][1] - 1) * height <= cost:
            runs[-1] = (runs[-1][0], last)
        else:
            runs.append((first, last))
        columns &= ~((1 << (last + 1)) - 1)
    return runs


class PartialDisplay:
    """What the partial drivers add to luma's: ``display`` sends the difference.

    Mixed in before the luma class, so luma's ``clear()`` during init comes here too. The
    annotations name what the luma base provides.

    luma's init is its constructor, and ``luma.core.device.device`` registers an exit hook
    holding each device it builds, so a device is never freed (about 330 kB for an SSD1306,
    whose lookup tables are two lists of 8192 ints). A panel that comes back is therefore
    initialised again on the same object (``reinit``), which leaves a closure (about 200 B).
    """

    _w: int
    _pages: int
    _serial_interface: Serial
    persist: bool  # luma's: True leaves the panel on, showing its last image, at exit
    rotate: int
    mode: str
    size: tuple[int, int]
    preprocess: Callable[[Image.Image], Image.Image]
    command: Callable[..., None]
    data: Callable[[Sequence[int]], None]

    _sent: bytes | None  # the bytes the panel's memory holds; None: not known
    window_bytes: int  # what a window costs besides its data, in bytes on the I2C bus
    tallest: int  # the most pages one window may span

    def invalidate(self) -> None:
        """Forget what the panel holds: the next ``display`` sends the whole frame."""
        self._sent = None

    def reinit(self) -> None:
        """Send luma's init sequence and a clear frame again (the panel was away)."""
        raise NotImplementedError

    def display(self, image: Image.Image) -> None:
        """Show a 128 × 64 one-bit image, sending only what changed since the last one.

        Sends over the panel's bus; luma's or the bus's errors pass through, and after one
        the panel's memory counts as unknown.
        """
        assert image.mode == self.mode  # luma's own contract: mode "1"
        assert image.size == self.size
        frame = _page_bytes(self.preprocess(image))
        previous, self._sent = self._sent, None  # unknown until the write has gone through
        if previous is None:  # nothing known: every byte counts as changed
            previous = bytes(~byte & 0xFF for byte in frame)
        for window in _windows(previous, frame, self._w, self.window_bytes, self.tallest):
            self._write(frame, window)
        self._sent = frame

    def _write(self, frame: bytes, window: Window) -> None:
        """Send ``window`` of ``frame`` (the controller's bytes of the whole image)."""
        raise NotImplementedError


class PartialSSD1306(PartialDisplay, ssd1306):  # type: ignore[misc]  # luma is untyped
    """luma's SSD1306 driver, sending windows of pages × columns around what changed."""

    _colstart: int  # luma's first column for this panel size (0 for 128 × 64)
    window_bytes = 10  # a transfer of 0x21 c c 0x22 p p, and the data transfer's framing
    tallest = PAGES

    def __init__(self, serial_interface: Serial, rotate: int = 0) -> None:
        self._sent = None  # set before luma's init, whose clear() calls display()
        super().__init__(serial_interface, width=WIDTH, height=HEIGHT, rotate=rotate)

    def reinit(self) -> None:
        PartialSSD1306.__init__(self, self._serial_interface, rotate=self.rotate)

    def _write(self, frame: bytes, window: Window) -> None:
        first_page, last_page, first, last = window
        # Setting a window also moves the pointers to its start; data then fills it row by row.
        self.command(
            0x21, self._colstart + first, self._colstart + last, 0x22, first_page, last_page
        )
        w = self._w
        data = b"".join(
            frame[page * w + first : page * w + last + 1]
            for page in range(first_page, last_page + 1)
        )
        self.data(list(data))  # a list, as luma sends: spidev wants one


class PartialSH1106(PartialDisplay, sh1106):  # type: ignore[misc]  # luma is untyped
    """luma's SH1106 driver, sending the changed spans of each changed page."""

    _page_address_offset: int  # luma's first column of the glass (2)
    window_bytes = 7  # a transfer of 0xBp, low and high column, and the data's framing
    tallest = 1  # page addressing: the page never moves on by itself

    def __init__(self, serial_interface: Serial, rotate: int = 0) -> None:
        self._sent = None  # set before luma's init, whose clear() calls display()
        super().__init__(serial_interface, width=WIDTH, height=HEIGHT, rotate=rotate)

    def reinit(self) -> None:
        PartialSH1106.__init__(self, self._serial_interface, rotate=self.rotate)

    def _write(self, frame: bytes, window: Window) -> None:
        page, _, first, last = window
        column = self._page_address_offset + first
        self.command(0xB0 | page, column & 0x0F, 0x10 | column >> 4)
        self.data(list(frame[page * self._w + first : page * self._w + last + 1]))


def make_device(serial: Serial, config: PanelConfig) -> PartialDisplay:
    """The partial driver for ``config.driver`` on ``serial``: luma's init and a clear frame."""
    if config.driver == "sh1106":
        return PartialSH1106(serial, rotate=config.rotate)
    return PartialSSD1306(serial, rotate=config.rotate)


class _Link:
    """The serial interface a seat's device keeps for the life of the process.

    The bus behind it is plugged in when the panel answers and taken out when it fails, so
    the device object never changes; it also counts the bytes that pass for the bench.
    """

    def __init__(self) -> None:
        self.serial: Serial | None = None
        self.sent_bytes = 0  # commands and data handed to the bus, init sequences included

    def command(self, *cmd: int) -> None:
        self._live().command(*cmd)
        self.sent_bytes += len(cmd)

    def data(self, data: Sequence[int]) -> None:
        self._live().data(data)
        self.sent_bytes += len(data)

    def cleanup(self) -> None:
        """Release the bus (closes /dev/i2c-N for luma's i2c); luma's exit hook calls this."""
        serial, self.serial = self.serial, None
        if serial is None:
            return
        try:
            serial.cleanup()
        except IO_ERRORS:
            log.debug("closing a panel's bus failed", exc_info=True)  # it is gone anyway

    def _live(self) -> Serial:
        if self.serial is None:
            raise OSError(errno.ENODEV, "the panel is out")
        return self.serial


@dataclass(slots=True)
class _Seat:
    config: PanelConfig
    link: _Link
    device: PartialDisplay | None = None  # built the first time the panel answers, then kept
    up: bool = False  # the panel answered and nothing has failed since
    shown: bytes | None = None  # the image last handed to the device, as bytes
    wanted: Image.Image | None = None  # the latest image asked for
    wanted_bytes: bytes | None = None
    tried_at: float = -math.inf  # when the panel was last opened or lost, monotonic seconds


class Panels:
    """The table's seat panels: show images, mark failing ones out, bring them back."""

    def __init__(
        self,
        configs: Iterable[PanelConfig],
        make_serial: Callable[[PanelConfig], Serial],
        retry_s: float,
    ) -> None:
        """Use ``Panels.open``; this opens nothing."""
        self._seats = {config.seat: _Seat(config, _Link()) for config in configs}
        self._make_serial = make_serial
        self.retry_s = retry_s

    @classmethod
    def open(
        cls,
        configs: Iterable[PanelConfig],
        *,
        now: float | None = None,
        make_serial: Callable[[PanelConfig], Serial] = hardware_serial,
        retry_s: float = 5.0,
    ) -> Panels:
        """Open every seat's panel at ``now`` (monotonic seconds); each init clears its panel.

        A panel that does not answer is marked out with one warning, not raised: ``retry``
        tries it again ``retry_s`` seconds after ``now``, or at its first call if ``now`` is
        None.
        """
        panels = cls(configs, make_serial, retry_s)
        for record in panels._seats.values():
            error = panels._connect(record, -math.inf if now is None else now)
            if error is not None:
                log.warning(
                    "panel %s (%s) is out: %s", record.config.seat, record.config.where, error
                )
        return panels

    @property
    def out(self) -> frozenset[str]:
        """Seats whose panel is not answering."""
        return frozenset(seat for seat, record in self._seats.items() if not record.up)

    def keep_shown(self) -> None:
        """What the panels show now stays after the process ends (the supply failing: the
        seats keep saying so); luma's exit hook would switch them off."""
        for record in self._seats.values():
            if record.device is not None:
                record.device.persist = True

    @property
    def kept_at_exit(self) -> frozenset[str]:
        """The seats whose panel keeps its image when the process ends (``keep_shown``)."""
        return frozenset(
            seat for seat, r in self._seats.items() if r.device is not None and r.device.persist
        )

    @property
    def sent_bytes(self) -> dict[str, int]:
        """Per seat, the bytes handed to its bus so far: commands and data, init sequences
        included; bus framing (I2C address and control bytes) not counted."""
        return {seat: record.link.sent_bytes for seat, record in self._seats.items()}

    def show(self, seat: str, image: Image.Image, now: float) -> None:
        """Show ``image`` (128 × 64, mode "1") on ``seat``'s panel if it differs from the
        last one shown there. On an I/O error: one warning, the seat is out, the image is
        kept for when the panel is back. ``now`` is monotonic seconds. Never raises on I/O.
        A seat without a panel (``driver = "none"``) is passed over.
        """
        record = self._seats.get(seat)
        if record is None:
            return
        data = image.tobytes()
        if data != record.wanted_bytes:
            record.wanted, record.wanted_bytes = image.copy(), data  # the caller may reuse it
        if record.up and data != record.shown:
            self._draw(record, now)

    def retry(self, now: float) -> None:
        """Open again each panel that is out and was last tried ``retry_s`` or more ago; one
        that answers is initialised (a whole clear frame) and gets the latest image. Never
        raises on I/O.
        """
        for record in self._seats.values():
            if record.up or now - record.tried_at < self.retry_s:
                continue
            error = self._connect(record, now)
            where = f"{record.config.seat} ({record.config.where})"
            if error is not None:
                log.debug("panel %s is still out: %s", where, error)
                continue
            log.info("panel %s is back", where)
            if record.wanted is not None:
                self._draw(record, now)

    def _draw(self, record: _Seat, now: float) -> None:
        assert record.device is not None and record.wanted is not None
        try:
            record.device.display(record.wanted)
        except IO_ERRORS as error:
            self._lose(record, error, now)
            return
        record.shown = record.wanted_bytes

    def _connect(self, record: _Seat, now: float) -> BaseException | None:
        """Open the seat's bus and initialise its panel; the error if it did not answer."""
        record.tried_at = now
        try:
            record.link.serial = self._make_serial(record.config)
            # Knock before luma's init: each init registers an exit hook (see PartialDisplay),
            # so one must not run every retry_s for a panel that is not there.
            record.link.command(NOP)
            if record.device is None:
                record.device = make_device(record.link, record.config)
            else:
                record.device.reinit()
        except IO_ERRORS as error:
            record.link.cleanup()
            return error
        record.up = True
        return None

    def _lose(self, record: _Seat, error: BaseException, now: float) -> None:
        log.warning("panel %s (%s) is out: %s", record.config.seat, record.config.where, error)
        record.link.cleanup()
        record.up, record.shown, record.tried_at = False, None, now


def open_panels(config: Config, *, now: float | None = None) -> Panels:
    """The table's panels as its config sets them up, opened (see ``Panels.open``).

    A seat with ``driver = "none"`` has no panel; ``interface = "sim"`` puts a
    ``RecordingBus`` behind the seat (the virtual table); ``mux_address = 0`` means no mux.
    """
    configs: list[PanelConfig] = []
    buses: dict[str, RecordingBus] = {}
    for seat in config.seat_letters:
        section = config.panels.seat(seat)
        if section.driver == "none":
            continue
        mux = section.mux_address or None
        configs.append(
            PanelConfig(
                seat=seat,
                driver=section.driver,
                interface="spi" if section.interface == "spi" else "i2c",
                i2c_bus=section.i2c_bus,
                i2c_address=section.i2c_address,
                mux_address=mux,
                mux_channel=None if mux is None else section.mux_channel,
                spi_port=section.spi_port,
                spi_device=section.spi_device,
                gpio_dc=section.gpio_dc,
                gpio_reset=section.gpio_reset,
                rotate=section.rotate,
            )
        )
        if section.interface == "sim":
            buses[seat] = RecordingBus(section.driver, section.i2c_address)
    recorded = recording_serials(buses)

    def make_serial(panel: PanelConfig) -> Serial:
        return recorded(panel) if panel.seat in buses else hardware_serial(panel)

    return Panels.open(configs, now=now, make_serial=make_serial, retry_s=config.panels.retry_s)
