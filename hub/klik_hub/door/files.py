"""The hub's open files: every connection is one, and anyone on a hall's Wi-Fi can open
a thousand.

A shell lets a process open 1,024 files (its soft limit), though it may take far more (the
hard limit, commonly 524,288 or 1,048,576): a hub started by hand would run out after a
thousand silent connections, and every table's result and the console with it, while one
started by ``systemd/klik-hub.service`` (``LimitNOFILE``) would not. ``raise_limit`` takes
the hard limit at start, as systemd advises a program that waits with epoll, not select()
(which takes no file numbered past 1,023: pyserial's reads use it, so a serial device opened
while a thousand connections are open would fail; the unit's 65,536 allowed that already).
A connection holds its file for 10 s at most before its request has arrived
(``klik.serving.Deadline``; a TLS handshake as long, ``klik_hub.door.loop``), so taking
them all needs a client to keep that many connections coming.

If the files run out anyway, the hub's loop (uvloop, that is libuv) accepts every new
connection and closes it at once, saying nothing, and it tells no one how many it closed.
So ``Watch`` looks for a free file once a ``LOOK_S``, and ``Shortage`` says what it sees:
the first time at once, then at most one line a ``TELL_S`` with how long the files were out.
"""

from __future__ import annotations

import errno
import logging
import os
import resource
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass

log = logging.getLogger("klik_hub")

ENOUGH = 65_536  # as systemd/klik-hub.service: a hard limit below this is worth a warning
LOOK_S = 1.0  # how often ``Watch`` looks for a free file
TELL_S = 60.0  # a shortage is told at most once in this long


@dataclass(frozen=True)
class Limit:
    """The soft limit on open files found at start (``was``), the one now, and the hard one
    (``resource.RLIM_INFINITY`` for none)."""

    was: int
    now: int
    hard: int


def raise_limit() -> Limit:
    """Raise the process's soft limit on open files (RLIMIT_NOFILE) to its hard limit.
    Called once by ``klik hub`` at start; a limit that cannot be raised stays as it was."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with suppress(ValueError, OSError):  # macOS: an unlimited hard limit is no soft one
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return Limit(soft, resource.getrlimit(resource.RLIMIT_NOFILE)[0], hard)


def said(limit: Limit) -> tuple[int, str]:
    """The start's line about ``limit``, with its logging level: a warning where so few
    connections would use the files up that a hall's Wi-Fi could lock the tables out."""
    shown = _count(limit.now) + (f" (was {_count(limit.was)})" if limit.was != limit.now else "")
    if limit.now != limit.hard:
        return logging.WARNING, (
            f"hub: open files: up to {shown}; the system refused the {_count(limit.hard)} "
            "of its hard limit"
        )
    if limit.hard != resource.RLIM_INFINITY and limit.hard < ENOUGH:
        return logging.WARNING, (
            f"hub: open files: up to {shown}, the most this system allows: as many silent "
            f"connections would lock the tables out; allow {ENOUGH} (LimitNOFILE= in the "
            "systemd unit, nofile in /etc/security/limits.conf)"
        )
    return logging.INFO, f"hub: open files: up to {shown}"


def _count(n: int) -> str:
    return "unlimited" if n == resource.RLIM_INFINITY else str(n)


@dataclass
class Shortage:
    """What the looks for a free file come to (``note``, one a ``LOOK_S``): a line for the
    log the first time none is free, then one a ``TELL_S`` while any look finds none. A
    ``TELL_S`` with a free file at every look ends the shortage; the next one is told at once.
    ``limit``: the soft limit, for the lines."""

    limit: int
    told_at: float | None = None  # monotonic s of the last line; None: no shortage
    short: int = 0  # the looks since then that found no free file

    def note(self, at: float, free: bool) -> str | None:
        """A look at ``at`` (monotonic s); the line to log now, if any."""
        if self.told_at is None:
            if free:
                return None
            self.told_at, self.short = at, 0
            return (
                f"hub: out of open files ({_count(self.limit)} at most): new connections are "
                "closed unanswered until some end; told again in a minute while it lasts"
            )
        if not free:
            self.short += 1
        if at - self.told_at < TELL_S:
            return None
        short_s, self.short, self.told_at = round(self.short * LOOK_S), 0, at
        if short_s == 0:
            self.told_at = None
            return None
        return (
            f"hub: out of open files ({_count(self.limit)} at most) for {short_s} s of the "
            "last minute: new connections were closed unanswered meanwhile"
        )


def free_file() -> bool:
    """Whether the process may open one more file now: opens /dev/null and closes it."""
    try:
        fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as error:
        if error.errno in (errno.EMFILE, errno.ENFILE):  # the process's files, the system's
            return False
        raise
    os.close(fd)
    return True


class Watch:
    """Looks for a free file every ``LOOK_S`` in a thread of its own (as ``Checkpoints``:
    it needs nothing of the event loop) and logs what ``Shortage`` says, as a warning."""

    def __init__(self, limit: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.shortage = Shortage(limit)
        self.clock = clock
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="open-files", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(LOOK_S):
            line = self.shortage.note(self.clock(), free_file())
            if line is not None:
                log.warning("%s", line)
