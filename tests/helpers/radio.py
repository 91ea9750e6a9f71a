"""A simulated serial channel for the tests: pty pairs joined by a broker thread.

Each node is a pty pair (``os.openpty``). The code under test opens the node's ``path`` (the
pty's slave) with pyserial, as it would open ``/dev/ttyUSB0``; the broker thread owns every
master and carries the bytes one node writes to the others at the baud's pace (10 bits a
byte: 960 bytes a second at 9600 baud). A byte counts as on the air from when the previous
byte of its sender left until one byte-time later, and reaches the others when it ends.

- ``Radio(n, baud)``: a shared half-duplex radio channel, as HC-12 modules make one. Bytes of
  two senders that are on the air at the same time reach everyone garbled (a collision),
  and a node hears nothing while it talks itself.
- ``Radio(2, baud, shared=False)``: a lossy proxy, a cable between two nodes: full duplex,
  each direction paced on its own, no collisions; only the faults.

``Faults`` (drawn from a ``random.Random`` seeded by the test, per frame and receiver):
frames lost (unheard, or only their first radio packet), doubled or held up, single bytes
lost or with a bit flipped, and noise from another device on the band that listens to no
one. ``stats`` counts what happened, so a test can check that the faults it meant did
occur; ``log`` keeps every burst sent, for an account of the channel's time.

``tap(i)`` makes node ``i`` the test's own: it writes raw bytes as that node and collects
what the node hears. ``unplug(i)`` closes node ``i``'s master: its port vanishes, as a USB
adapter does when pulled.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import select
import threading
import time
import tty
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType

from klik.link import protocol as p

BITS_PER_BYTE = 10
TICK_S = 0.002  # the broker's step while bytes are on the air, at most
#: A byte is handed on once this much past its end: a float's rounding must not hold it back
#: a step (``_deliver``).
EPSILON_S = 1e-7
KEEP_S = 1.0  # a burst is kept this long after it ends, for the collision checks
PACKET = 32  # bytes a radio module sends in one packet (an HC-12 sends up to 60)
NOISE = -1  # the sender of noise: no node of ours


@dataclass(frozen=True, slots=True)
class Faults:
    drop_frame: float = 0.0  # a frame never reaches one receiver: it hears nothing of it
    #: a frame's first radio packet (PACKET bytes) never reaches one receiver; the rest does,
    #: so the frame fails its CRC but the receiver hears that the channel is busy
    cut_frame: float = 0.0
    duplicate_frame: float = 0.0  # a receiver gets a frame twice in a row
    delay_frame: float = 0.0  # a receiver gets a frame (and what follows) up to delay_s late
    delay_s: float = 0.2
    drop_byte: float = 0.0  # one byte lost
    #: another 433 MHz device (a car key, a weather station) that talks without listening:
    #: a burst of ``noise_bytes`` random bytes every ``noise_s`` on average, 0: none
    noise_s: float = 0.0
    noise_bytes: int = 64
    corrupt_byte: float = 0.0  # one byte with a bit flipped


@dataclass
class _Burst:
    """One node's bytes on the air back to back, from ``start``."""

    node: int
    start: float
    byte_s: float
    data: bytearray
    done: int = 0  # bytes delivered so far
    collided: bool = False

    @property
    def end(self) -> float:
        return self.start + len(self.data) * self.byte_s


@dataclass
class _Fate:
    """What happens to the frame in flight from one sender to one receiver."""

    drop: bool
    cut: bool
    duplicate: bool
    delay_s: float
    at: int = 0  # bytes of the frame so far
    copy: bytearray = field(default_factory=bytearray)


class Radio:
    """``nodes`` ptys on one channel at ``baud``; a context manager that starts the broker."""

    def __init__(
        self,
        nodes: int,
        baud: int,
        *,
        shared: bool = True,
        faults: Faults = Faults(),
        seed: int = 0,
    ) -> None:
        if not shared and nodes != 2:
            raise ValueError("a proxy joins two nodes")
        self.baud = baud
        self.byte_s = BITS_PER_BYTE / baud
        self.shared = shared
        self.faults = faults
        self.rng = random.Random(seed)
        self.stats: Counter[str] = Counter()
        self._masters: list[int | None] = []
        self._slaves: list[int] = []
        self.paths: list[str] = []
        for _ in range(nodes):
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line editing, before pyserial opens it
            os.set_blocking(master, False)
            self._masters.append(master)
            self._slaves.append(slave)  # held open: the master never reads EIO meanwhile
            self.paths.append(os.ttyname(slave))
        self._bursts: list[_Burst] = []
        self.log: list[_Burst] = []  # every burst ever sent, for a test's or bench's account
        self._last: list[_Burst | None] = [None] * nodes
        self._fates: dict[tuple[int, int], _Fate] = {}
        self._out: list[deque[tuple[float, bytes]]] = [deque() for _ in range(nodes)]
        self._released = [0.0] * nodes  # each receiver's bytes go out in order, never earlier
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="radio", daemon=True)

    def __enter__(self) -> Radio:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        os.write(self._wake_w, b"x")
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        for fd in [*self._masters, *self._slaves, self._wake_r, self._wake_w]:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def path(self, node: int) -> str:
        return self.paths[node]

    def unplug(self, node: int) -> None:
        """Close node ``node``'s master: to the port's owner the device has vanished."""
        with self._lock:
            master, self._masters[node] = self._masters[node], None
        if master is not None:
            os.close(master)
        os.write(self._wake_w, b"x")

    def tap(self, node: int) -> Tap:
        return Tap(self._slaves[node])

    # --- the broker -----------------------------------------------------------------------

    def _run(self) -> None:
        noise_at = self._next_noise(time.monotonic())
        while not self._stop.is_set():
            with self._lock:
                masters = [fd for fd in self._masters if fd is not None]
            wait_s = self._next_s(time.monotonic(), noise_at)
            ready, _, _ = select.select([self._wake_r, *masters], [], [], wait_s)
            now = time.monotonic()
            if self._wake_r in ready:
                os.read(self._wake_r, 64)
            with self._lock:
                if now >= noise_at:
                    noise = bytes(self.rng.randrange(256) for _ in range(self.faults.noise_bytes))
                    self._bursts.append(_Burst(NOISE, now, self.byte_s, bytearray(noise)))
                    self.log.append(self._bursts[-1])
                    self.stats["noise bursts"] += 1
                    noise_at = self._next_noise(now)
                for node, fd in enumerate(self._masters):
                    if fd is not None and fd in ready:
                        try:
                            chunk = os.read(fd, 4096)
                        except OSError:
                            continue  # nobody has the slave open: nothing was sent
                        if chunk:
                            self._transmit(node, chunk, now)
                self._deliver(now)
                self._release(now)

    def _next_s(self, now: float, noise_at: float) -> float:
        """How long the broker may wait for a write: until the next frame's end leaves the
        air (a receiver reacts to a frame's end, so it is handed on then, not up to a step
        later), a held-up frame's release, or a step while other bytes are on the air."""
        with self._lock:
            at = min(noise_at, now + 0.1)
            for burst in self._bursts:
                if burst.done < len(burst.data):
                    at = min(at, now + TICK_S)
                    end = burst.data.find(b"\n", burst.done)
                    if end >= 0:
                        at = min(at, burst.start + (end + 1) * self.byte_s)
            for queue in self._out:
                if queue:
                    at = min(at, queue[0][0])
        return max(0.0, at - now)

    def _next_noise(self, now: float) -> float:
        if not self.faults.noise_s:
            return math.inf
        return now + self.rng.expovariate(1 / self.faults.noise_s)

    def _transmit(self, node: int, chunk: bytes, now: float) -> None:
        last = self._last[node]
        if last is not None and last.end > now:
            last.data += chunk  # the UART goes on with these right after the ones before
        else:
            burst = _Burst(node, now, self.byte_s, bytearray(chunk))
            self._bursts.append(burst)
            self.log.append(burst)
            self._last[node] = burst
        self.stats["bytes sent"] += len(chunk)

    def _deliver(self, now: float) -> None:
        """Hand every byte that has finished its time on the air to its receivers."""
        for burst in self._bursts:
            upto = min(len(burst.data), int((now + EPSILON_S - burst.start) / self.byte_s))
            if upto > burst.done:
                self._deliver_slice(burst, burst.done, upto, now)
                burst.done = upto
        self._bursts = [b for b in self._bursts if b.done < len(b.data) or b.end > now - KEEP_S]

    def _deliver_slice(self, burst: _Burst, first: int, end: int, now: float) -> None:
        garbled: set[int] = set()
        deaf: dict[int, set[int]] = {}
        if self.shared:
            t0, t1 = burst.start + first * self.byte_s, burst.start + end * self.byte_s
            for other in self._bursts:
                if other.node == burst.node or other.end <= t0 or other.start >= t1:
                    continue
                lo = max(first, math.floor((other.start - burst.start) / self.byte_s))
                hi = min(end, math.ceil((other.end - burst.start) / self.byte_s))
                if lo >= hi:
                    continue
                overlap = set(range(lo, hi))
                garbled |= overlap  # both senders' bytes reach everyone as noise
                deaf.setdefault(other.node, set()).update(overlap)  # it was talking
                if not burst.collided and burst.node != NOISE:
                    burst.collided = True
                    self.stats["collisions"] += 1  # frames of ours garbled
        sender = burst.node
        for receiver in range(len(self._masters)):
            if receiver == sender or self._masters[receiver] is None:
                continue
            out = bytearray()
            delay = 0.0
            cannot_hear = deaf.get(receiver, set())
            for k in range(first, end):
                original = burst.data[k]
                fate = self._fates.get((sender, receiver))
                if fate is None:
                    fate = self._fates[(sender, receiver)] = self._draw()
                delay = max(delay, fate.delay_s)
                fate.at += 1
                if fate.cut and fate.at <= PACKET:
                    pass
                elif k not in cannot_hear and not fate.drop:
                    byte = self.rng.randrange(256) if k in garbled else original
                    if self.faults.drop_byte and self.rng.random() < self.faults.drop_byte:
                        self.stats["bytes dropped"] += 1
                    else:
                        if (
                            self.faults.corrupt_byte
                            and self.rng.random() < self.faults.corrupt_byte
                        ):
                            byte ^= 1 << self.rng.randrange(8)
                            self.stats["bytes corrupted"] += 1
                        out.append(byte)
                        if fate.duplicate:
                            fate.copy.append(byte)
                if original == 0x0A:  # the sender's frame ends here
                    if fate.duplicate and not fate.drop:
                        out += fate.copy
                    del self._fates[(sender, receiver)]
            if out:
                release = max(self._released[receiver], now + delay)
                self._released[receiver] = release
                self._out[receiver].append((release, bytes(out)))

    def _draw(self) -> _Fate:
        f = self.faults
        drop = bool(f.drop_frame) and self.rng.random() < f.drop_frame
        cut = bool(f.cut_frame) and self.rng.random() < f.cut_frame
        duplicate = bool(f.duplicate_frame) and self.rng.random() < f.duplicate_frame
        late = bool(f.delay_frame) and self.rng.random() < f.delay_frame
        self.stats["frames dropped"] += drop
        self.stats["frames cut"] += cut and not drop
        self.stats["frames doubled"] += duplicate and not drop
        self.stats["frames delayed"] += late
        return _Fate(drop, cut, duplicate, self.rng.uniform(0, f.delay_s) if late else 0.0)

    def _release(self, now: float) -> None:
        for receiver, queue in enumerate(self._out):
            fd = self._masters[receiver]
            while queue and queue[0][0] <= now:
                _, data = queue.popleft()
                if fd is None:
                    continue
                try:
                    os.write(fd, data)
                except BlockingIOError:
                    self.stats["bytes overrun"] += len(data)  # the receiver does not read
                except OSError:
                    pass


class Tap:
    """A test's own node: it writes raw bytes as the node and keeps what the node hears."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.heard = bytearray()
        self.frames: list[bytes] = []  # the envelope bytes of every good frame heard
        self.deframer = p.Deframer()
        self.changed = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="radio-tap", daemon=True)
        self._thread.start()

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def wait(self, ready: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until ``ready()`` (read under ``changed``); False after ``timeout_s``."""
        with self.changed:
            return self.changed.wait_for(ready, timeout_s)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.05)
                data = os.read(self.fd, 4096) if ready else b""
            except (OSError, ValueError):
                return  # the radio was closed under the tap
            if not data:
                continue
            with self.changed:
                self.heard += data
                self.frames += self.deframer.feed(data)
                self.changed.notify_all()
