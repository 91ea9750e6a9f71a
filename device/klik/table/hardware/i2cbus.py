"""A stand-in I2C bus with an OLED controller on it: the virtual table's panels, the tests' proof.

``RecordingBus`` is to luma's ``luma.core.interface.serial.i2c`` what ``smbus2.SMBus`` is on
the Pi: it takes ``write_i2c_block_data`` (luma's commands, and its data when handed a bus
object: 32-byte blocks) and ``i2c_rdwr`` (luma's data when it opens the bus itself: one
message per ``data()`` call). Every transfer is recorded and counted, then fed to ``Gddram``,
a small model of the controller: it interprets the command stream the way an SSD1306 or an
SH1106 does (addressing mode, column and page windows, page and column pointers, which
commands take parameters) and stores the data bytes where the chip would. A test can then
read the panel's memory back as an image: that is the proof that windowed updates leave the
panel showing the picture.

Failure is injected the way an unplugged panel fails: ``bus.fail = True`` (until set back
to ``False``) or ``bus.fail = 3`` (the next three transfers) makes transfers raise
``OSError(121, "Remote I/O error")``, the error the Pi's I2C driver gives when nobody
acknowledges the address. A transfer to any address but the panel's fails the same way.
``power_cycle()`` puts the controller back to its power-on state with a memory full of
garbage, like a panel that was unplugged and plugged in again.

Byte counts: a transfer is one address byte, one control byte (0x00: commands follow,
0x40: data follows) and its payload; START, STOP and the ACK bits are not counted.
"""

from __future__ import annotations

import errno
import os
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from PIL import Image

Driver = Literal["ssd1306", "sh1106"]

CONTROL_COMMAND = 0x00  # the control byte before a stream of command bytes
CONTROL_DATA = 0x40  # D/C# set: the bytes that follow go to the display memory
CONTROL_ONE = 0x80  # Co set: one byte follows, then another control byte

WIDTH, HEIGHT = 128, 64  # the glass, in pixels
PAGES = HEIGHT // 8  # a page is a band of 8 pixel rows; one memory byte is one column of it

# Commands that take parameter bytes, and how many. Parameters must be swallowed, not read as
# commands: luma's SH1106 init sends 0xDA 0x12, and a 0x12 read as a command would move the
# column pointer. Any byte not listed and not a pointer command is a one-byte no-op here.
_SSD1306_PARAMS = {
    0x20: 1,  # memory addressing mode: 0 horizontal, 1 vertical, 2 page
    0x21: 2,  # column window: start, end
    0x22: 2,  # page window: start, end
    0x26: 6,  # horizontal scroll set-up (right)
    0x27: 6,  # (left)
    0x29: 5,  # vertical and horizontal scroll set-up
    0x2A: 5,
    0x81: 1,  # contrast
    0x8D: 1,  # charge pump
    0xA3: 2,  # vertical scroll area
    0xA8: 1,  # multiplex ratio
    0xD3: 1,  # display offset
    0xD5: 1,  # clock divide
    0xD9: 1,  # pre-charge period
    0xDA: 1,  # COM pins
    0xDB: 1,  # VCOMH level
}
_SH1106_PARAMS = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}

_HORIZONTAL, _VERTICAL, _PAGE = 0, 1, 2
_GARBAGE = 0xA5  # what a freshly powered panel holds here; real ones hold noise


class Gddram:
    """The controller's display memory (GDDRAM) and the pointers that say where data goes.

    SSD1306: 128 columns × 8 pages, page addressing after power-on; luma's init switches to
    horizontal addressing (0x20 0x00), where data fills the column window (0x21) left to right
    and wraps to the next page of the page window (0x22). SH1106: 132 columns × 8 pages, page
    addressing only: 0xB0|p picks the page, 0x0L and 0x1H the column; the column pointer
    moves on after each byte and the page never does. Modules wire the 128-pixel glass to
    columns 2..129 of the SH1106, which is why luma writes each page from column 2.
    """

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.columns = WIDTH if driver == "ssd1306" else 132
        self.glass_offset = 0 if driver == "ssd1306" else 2  # first column wired to the glass
        self.memory = bytearray(self.columns * PAGES)
        self.power_on()

    def power_on(self) -> None:
        """Back to the chip's reset state; the memory holds garbage until it is written."""
        self.memory[:] = bytes([_GARBAGE]) * len(self.memory)
        self.mode = _PAGE
        self.column_window = (0, self.columns - 1)
        self.page_window = (0, PAGES - 1)
        self.column = 0
        self.page = 0
        self._pending: list[int] = []  # a command waiting for its parameters, then those
        self._wanted = 0  # how many bytes _pending must hold to run

    def command(self, byte: int) -> None:
        """One byte of the command stream."""
        if self._pending:
            self._pending.append(byte)
            if len(self._pending) == self._wanted:
                command, *params = self._pending
                self._pending = []
                self._run(command, params)
            return
        takes = (_SSD1306_PARAMS if self.driver == "ssd1306" else _SH1106_PARAMS).get(byte, 0)
        if takes:
            self._pending, self._wanted = [byte], takes + 1
        else:
            self._run(byte, [])

    def data(self, byte: int) -> None:
        """One byte for the memory at the pointers, which then move on as the chip's do."""
        if self.column < self.columns:
            self.memory[self.page * self.columns + self.column] = byte
        if self.driver == "sh1106":
            self.column += 1  # no wrap: bytes past column 131 are lost
            return
        first_column, last_column = self.column_window
        first_page, last_page = self.page_window
        if self.mode == _VERTICAL:
            self.page += 1
            if self.page > last_page:
                self.page = first_page
                self.column = first_column if self.column >= last_column else self.column + 1
            return
        self.column += 1
        if self.column > last_column:
            self.column = first_column
            if self.mode == _HORIZONTAL:
                self.page = first_page if self.page >= last_page else self.page + 1

    def glass(self) -> bytes:
        """The memory behind the 128 × 64 pixels, page by page (128 bytes a page)."""
        start = self.glass_offset
        return b"".join(
            bytes(self.memory[p * self.columns + start : p * self.columns + start + WIDTH])
            for p in range(PAGES)
        )

    def image(self) -> Image.Image:
        """What the panel shows, as a 128 × 64 one-bit image (the controller's orientation).

        Decoded bit by bit, independently of how the driver packs images into bytes.
        """
        picture = Image.new("1", (WIDTH, HEIGHT))
        pixels = picture.load()
        assert pixels is not None
        glass = self.glass()
        for page in range(PAGES):
            for x in range(WIDTH):
                byte = glass[page * WIDTH + x]
                for bit in range(8):
                    if byte >> bit & 1:
                        pixels[x, page * 8 + bit] = 255
        return picture

    def _run(self, command: int, params: list[int]) -> None:
        page_pointers = self.driver == "sh1106" or self.mode == _PAGE
        if self.driver == "ssd1306" and command == 0x20:
            self.mode = params[0] & 0x03
        elif self.driver == "ssd1306" and command == 0x21:
            self.column_window = (params[0] & 0x7F, params[1] & 0x7F)
            self.column = self.column_window[0]
        elif self.driver == "ssd1306" and command == 0x22:
            self.page_window = (params[0] & 0x07, params[1] & 0x07)
            self.page = self.page_window[0]
        elif page_pointers and command <= 0x0F:
            self.column = (self.column & 0xF0) | command
        elif page_pointers and 0x10 <= command <= 0x1F:
            self.column = (self.column & 0x0F) | (command & 0x0F) << 4
        elif page_pointers and 0xB0 <= command <= 0xB7:
            self.page = command & 0x07


@dataclass(frozen=True, slots=True)
class Transfer:
    """One I2C write as it crossed the bus."""

    address: int
    control: int  # the first byte: CONTROL_COMMAND or CONTROL_DATA
    payload: bytes  # the bytes after it

    @property
    def is_data(self) -> bool:
        return bool(self.control & CONTROL_DATA)

    @property
    def wire_bytes(self) -> int:
        """Bytes on the wire: address, control byte and payload (no START/STOP/ACK bits)."""
        return 2 + len(self.payload)


class RecordingBus:
    """An smbus2-compatible bus with one OLED controller on it, recording what crosses it.

    Hand it to luma as ``i2c(bus=RecordingBus(...), address=0x3C)``. ``transfers`` keeps the
    last ``history`` transfers; ``bytes_sent`` and ``transfer_count`` count all of them.
    Nothing here sleeps or touches the operating system.
    """

    def __init__(self, driver: Driver = "ssd1306", address: int = 0x3C, *, history: int = 4096):
        self.address = address  # the only address that acknowledges
        self.ram = Gddram(driver)
        self.transfers: deque[Transfer] = deque(maxlen=history)
        self.bytes_sent = 0
        self.transfer_count = 0
        self.fail: bool | int = False  # True: every transfer fails; n: the next n fail

    def write_i2c_block_data(
        self, i2c_addr: int, register: int, data: Sequence[int], force: bool | None = None
    ) -> None:
        """An SMBus block write: ``register`` is the control byte, at most 32 bytes follow."""
        if len(data) > 32:
            raise ValueError("Data length cannot exceed 32 bytes")  # as smbus2 says it
        self._transfer(i2c_addr, bytes([register, *data]))

    def i2c_rdwr(self, *messages: Any) -> None:
        """Combined transfers of ``smbus2.i2c_msg`` writes (reads are not modelled)."""
        for message in messages:
            if message.flags & 0x0001:  # I2C_M_RD
                raise OSError(errno.EOPNOTSUPP, "the recording bus does not model reads")
            self._transfer(message.addr, bytes(message.buf[: message.len]))

    def close(self) -> None:
        """Nothing to release; here so luma's ``cleanup()`` finds it."""

    def power_cycle(self) -> None:
        """The panel lost power and came back: reset state, garbage in memory."""
        self.ram.power_on()

    def _transfer(self, address: int, raw: bytes) -> None:
        if self.fail:
            if self.fail is not True:
                self.fail -= 1
            raise OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))
        if address != self.address:
            raise OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))
        self.transfers.append(Transfer(address, raw[0], raw[1:]))
        self.bytes_sent += 1 + len(raw)
        self.transfer_count += 1
        at = 0
        while at < len(raw):
            control = raw[at]
            # Co set: one byte under this control byte, then a new control byte.
            end = at + 2 if control & CONTROL_ONE else len(raw)
            feed = self.ram.data if control & CONTROL_DATA else self.ram.command
            for byte in raw[at + 1 : end]:
                feed(byte)
            at = end
