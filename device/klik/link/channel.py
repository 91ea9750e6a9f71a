"""The shared serial channel: envelopes as frames on a half-duplex line, for both ends.

The channel is a USB cable to the hub, or 433 MHz HC-12 radio modules, where the hub and
several tables share one frequency: only one of them may talk at a time, two that talk at
once garble each other for everyone, and a module that is talking hears nothing meanwhile.
The rules (``docs/protocol.md``, "The shared serial channel"):

- **Frames.** One envelope a line: its canonical JSON, a space, its CRC-32 in 8 hex digits
  and ``\\n`` (``protocol.frame_signed``). A frame that is too long or has a bad CRC is
  dropped and counted in ``dropped``.
- **Listen before talking.** Each node's reader thread notes when it last heard a byte. A
  table draws a random wait from 0 to ``contend_s`` (eight radio packets' time, doubled for
  each request in a row that got no answer) and talks once the channel has been quiet for
  ``quiet_s`` and then that wait: tables that waited out the same frame, or that timed out
  together, do not all start in the same instant and garble each other again. A table
  that hears another table's request leaves the channel to the hub for ``HUB_TURN_S`` (or
  until an ack is heard), and the hub answers after a shorter quiet (``HUB_QUIET_BYTES``):
  answers go first, as 802.11 gives an acknowledgement a shorter gap than a new frame.
- **A frame that stops coming** (its end garbled in a collision, a radio packet lost) is
  dropped when the line has been quiet for ``gap_s`` in its middle, so the next frame is
  not glued onto it and lost with it.
- **A port that vanishes** (a USB cable pulled): a write raises ``LinkDown``; the reader
  logs it once and opens the port again every ``REOPEN_S``. Nothing here ends the daemon.

``Channel`` is one node's end of the channel, the table's (``klik.link.serial``) and the
hub's (``klik_hub.serial.hub``): the one piece of I/O both sides share. Standard library and
pyserial only, as everything on the table. Its log is the serial link's
(``klik.link.serial``).
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Protocol, cast

import serial  # type: ignore[import-untyped]  # no type hints; ``Port`` is the typed seam

from klik.link import protocol as p
from klik.link.reply import LinkDown

log = logging.getLogger("klik.link.serial")

BITS_PER_BYTE = 10  # 8N1 on the wire: a start bit, eight data bits, a stop bit
READ_TIMEOUT_S = 0.05  # the reader's longest wait for a byte: how soon it notices ``close``
REOPEN_S = 3.0  # a vanished port is tried again this often
#: After another table's request the hub answers; tables keep off the channel this long for
#: it (a commit on the hub's database and the start of its answer), or until an ack is heard.
HUB_TURN_S = 0.25
#: A channel silent this long after a table's frame, with no ack for it, brings no ack: the
#: table gives up then rather than at ``answer_timeout_s``.
HUB_SILENT_S = 1.0
HUB_QUIET_BYTES = 4  # the hub's gap before it answers: shorter than any table's
MIN_HUB_QUIET_S = 0.005
TABLE_QUIET_BYTES = 20  # a table's gap: longer than a radio module's pause inside a frame
MIN_TABLE_QUIET_S = 0.02  # an OS's scheduling jitter, at fast baud rates
#: A node hears nothing of another's frame until its first radio packet is through (an HC-12
#: sends what it gets in packets of up to 60 bytes): two tables that start within that time
#: of each other collide. A slot is that long, or the OS's scheduling jitter at fast bauds.
PACKET_BYTES = 32
MIN_SLOT_S = 0.005
CONTEND_SLOTS = 8  # a table's random wait before it talks is up to this many slots ...
MAX_DOUBLINGS = 4  # ... doubled for each request in a row that got no answer, up to 16 times


def airtime_s(size: int, baud: int) -> float:
    """Seconds ``size`` bytes take on the wire at ``baud``."""
    return size * BITS_PER_BYTE / baud


def table_quiet_s(baud: int) -> float:
    """A table's quiet before it talks, and the longest pause inside a frame."""
    return max(airtime_s(TABLE_QUIET_BYTES, baud), MIN_TABLE_QUIET_S)


def default_answer_timeout_s(baud: int) -> float:
    """The longest frame out and the longest frame back, and a second for the hub."""
    return 2 * airtime_s(p.MAX_FRAME, baud) + 1.0


class Port(Protocol):
    """What a node needs of a serial port; pyserial's ``Serial`` is one."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


def open_port(name: str, baud: int) -> Port:
    """Open ``name`` (``/dev/ttyUSB0``) 8N1 at ``baud``, raw; OSError if it cannot be opened.

    A write that the port cannot take within the longest frame's time and a second (a
    device that has hung) raises instead of blocking the sender for ever.
    """
    port = serial.Serial(
        name,
        baud,
        timeout=READ_TIMEOUT_S,
        write_timeout=airtime_s(p.MAX_FRAME, baud) + 1.0,
    )
    return cast(Port, port)


class Channel:
    """One node's end of a serial channel: a reader thread and listen-before-talk writes.

    ``port`` is a device's path (opened here, and opened again after it vanishes) or an
    open port (not reopened). ``on_frame`` gets the envelope bytes of every frame whose CRC
    is right, on the reader thread. A frame's bytes come back to back; a silence of
    ``gap_s`` inside one means its end was lost (garbled in a collision), and its start is
    dropped so that the next frame does not go with it. ``clock`` must tick in seconds as
    ``time.monotonic`` does: waits are real waits, for real bytes.
    """

    def __init__(
        self,
        port: str | Port,
        baud: int,
        on_frame: Callable[[bytes], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        reopen_s: float = REOPEN_S,
        gap_s: float | None = None,
    ) -> None:
        self.baud = baud
        self.gap_s = table_quiet_s(baud) if gap_s is None else gap_s
        self.name = port if isinstance(port, str) else str(getattr(port, "port", "") or port)
        self.on_frame = on_frame
        self.clock = clock
        self.reopen_s = reopen_s
        self.deframer = p.Deframer()  # a polled channel's ends take deflated frames too
        self.dropped = self.deframer.dropped  # the owner adds its own counts to these
        #: Notified when a byte is heard, an answer comes, or the port opens or vanishes.
        self.changed = threading.Condition()
        self._path = port if isinstance(port, str) else None
        self._port: Port | None = None if isinstance(port, str) else port
        self._down: str | None = None  # why the port is not open; logged once per outage
        self._heard_at = -math.inf  # when the last byte came in
        self._sending_until = -math.inf  # our own frame is on the wire until then
        self._held_until = -math.inf  # the channel is left to someone else until then
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if self._path is not None:
            self._open(self._path)

    @property
    def up(self) -> bool:
        return self._port is not None

    @property
    def talking(self) -> bool:
        """Whether a frame of ours is still on the wire."""
        return self.clock() < self._sending_until

    @property
    def last_heard(self) -> float:
        """When the last byte came in, on ``clock`` (``-inf``: never)."""
        return self._heard_at

    def start(self) -> None:
        self._thread = threading.Thread(
            target=self._read, name=f"klik-serial {self.name}", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop the reader and close the port (idempotent); a waiting sender gets LinkDown."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        with self.changed:
            port, self._port = self._port, None
            self._down = f"{self.name} is closed"
            self.changed.notify_all()
        if port is not None:
            with contextlib.suppress(OSError, ValueError, TypeError):
                port.close()

    # --- talking --------------------------------------------------------------------------

    def hold(self, until: float) -> None:
        """Leave the channel to another node until ``until`` (``-inf``: no longer)."""
        with self.changed:
            self._held_until = until
            self.changed.notify_all()

    def wait_quiet(self, quiet_s: float, deadline: float, backoff_s: float = 0.0) -> bool:
        """Wait until the channel has been free for ``quiet_s`` and then ``backoff_s`` more.

        Free: nothing heard, no frame of ours on the wire, not left to another node
        (``hold``). The back-off counts from now too, so that nodes that waited out the
        same frame or the same hold do not all talk at its end. False if the channel is not
        free by ``deadline``; LinkDown if the port is not open.
        """
        began = self.clock()
        with self.changed:
            while True:
                if self._port is None:
                    raise LinkDown(self._down or f"{self.name} is not open")
                now = self.clock()
                free_at = backoff_s + max(
                    self._heard_at + quiet_s, self._sending_until, self._held_until, began
                )
                if now >= free_at:
                    return True
                if now >= deadline:
                    return False
                self.changed.wait(min(free_at, deadline) - now)

    def send(self, line: bytes) -> float:
        """Write one frame; returns when its last byte leaves (on ``clock``). LinkDown if the
        port is not open or fails (it is then opened again)."""
        with self._write_lock:
            port = self._port
            if port is None:
                raise LinkDown(self._down or f"{self.name} is not open")
            began = self.clock()
            try:
                port.write(line)
            except (OSError, ValueError, TypeError) as error:  # pyserial's errors are OSErrors
                self._went_down(f"{self.name} failed ({error})")
                raise LinkDown(f"cannot write to {self.name} ({error})") from None
            with self.changed:
                # The write returns once the bytes are in the driver's buffer; the wire
                # carries them for this long, and the sender hears nothing of its own.
                self._sending_until = began + airtime_s(len(line), self.baud)
                return self._sending_until

    def wait_for(self, ready: Callable[[], bool], deadline: float) -> bool:
        """Wait, under ``changed``, until ``ready()``; False at ``deadline``, LinkDown if the
        port goes. The reader sets what ``ready`` reads under ``changed`` and notifies."""
        with self.changed:
            while not ready():
                if self._port is None:
                    raise LinkDown(self._down or f"{self.name} is not open")
                left = deadline - self.clock()
                if left <= 0:
                    return False
                self.changed.wait(left)
            return True

    # --- the reader thread ----------------------------------------------------------------

    def _read(self) -> None:
        while not self._stop.is_set():
            port = self._port
            if port is None:
                if self._path is None or self._stop.wait(self.reopen_s):
                    return  # a port handed to us cannot be opened again
                self._open(self._path)
                continue
            try:
                data = port.read(1)  # returns at the first byte, or after READ_TIMEOUT_S
                waiting = port.in_waiting if data else 0
                if waiting:
                    data += port.read(waiting)
            except (OSError, ValueError, TypeError) as error:
                if self._stop.is_set():
                    return
                self._went_down(f"{self.name} failed ({error})")
                continue
            if data:
                self._heard(data)

    def _heard(self, data: bytes) -> None:
        now = self.clock()
        with self.changed:
            # How long the line was silent before these bytes at least: a reader that was
            # late finds more bytes waiting, which took their time on the wire.
            silent_s = now - self._heard_at - airtime_s(len(data), self.baud)
            self._heard_at = now
            self.changed.notify_all()
        if silent_s > self.gap_s:
            self.deframer.drop_partial()  # a frame that stopped coming: its end was lost
        for body in self.deframer.feed(data):
            try:
                self.on_frame(body)
            except Exception:  # a bug in handling one frame must not deafen the node
                log.exception("%s: a frame could not be handled", self.name)

    def _open(self, path: str) -> None:
        try:
            port = open_port(path, self.baud)
        except (OSError, ValueError) as error:  # SerialException is an OSError
            self._went_down(f"cannot open {path} ({error})")
            return
        with self.changed:
            if self._stop.is_set():
                port.close()
                return
            self._port, was_down = port, self._down
            self._down = None
            self.changed.notify_all()
        if was_down is not None:
            log.warning("%s is open again", path)

    def _went_down(self, why: str) -> None:
        """The port failed: close it, say why once, and let the reader open it again."""
        with self.changed:
            port, self._port = self._port, None
            first = self._down is None
            self._down = why
            self.changed.notify_all()
        if first:
            again = f"; trying again every {self.reopen_s:g} s" if self._path else ""
            log.warning("%s%s", why, again)
        if port is not None:
            with contextlib.suppress(OSError, ValueError, TypeError):
                port.close()
