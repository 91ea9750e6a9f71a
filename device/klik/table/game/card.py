"""The table's card, as its writes find it: writable, full, read-only or refused.

Every write to the state folder (the journal's lines, the game counter, the result files,
the round's lineup) tells the card how it went. The first write that fails for want of space,
on a card gone read-only (the kernel remounts a failing card so), or for a permission sets
its state, logged once with what could not be kept; the next write that goes through sets it
back to ``ok``. The seats show a card that is not ``ok`` as an alert (the judge must come: no
game is being kept), ``GET /api/state`` says it (``card``) and the heartbeat's health carries
it with the count of failed writes (``card``, ``card_errors``) for the judge's console.

A card that fills up must not stop the game in progress, nor the next ones the judge starts.
So at start the table holds a reserve on the card (``card.reserve`` in the state folder: at
most 16 MiB, at most a quarter of the free space), and lets it go the moment a write fails
for want of space (``spare``): that write is made again, and the games go on being kept
(journal, game number, result) on the room it gave back, which at a few KiB a game lasts
a day. The card stays ``full`` on the seats meanwhile (the judge should change it); once
twice the room the reserve held is free again, the reserve is held anew and the card is
``ok``. A reserve let go keeps its file, with only the size it held in it, so a restart
knows the card filled up (it stays ``full``, not a quarter of the rest held anew as if all
were well). A reserve from an earlier start is kept as it is, unless the card is full now:
then it is let go at once, so that a card that filled up while the table was off still keeps
its games. A folder that takes no writes at all (read-only, a permission) is said at start.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from klik.link.outbox import refusal, sync_folder

T = TypeVar("T")

log = logging.getLogger("klik.table.game.engine")  # the engine's parts log under its name


class CardState(StrEnum):
    OK = "ok"
    FULL = "full"  # no space left (ENOSPC, or a quota)
    READ_ONLY = "read-only"  # the file system is read-only (EROFS)
    NO_PERMISSION = "no-permission"  # the daemon may not write there (EACCES, EPERM)


#: What a failed write's errno says of the card; others (EIO...) are counted, not named.
STATE_OF_ERRNO = {
    errno.ENOSPC: CardState.FULL,
    errno.EDQUOT: CardState.FULL,
    errno.EROFS: CardState.READ_ONLY,
    errno.EACCES: CardState.NO_PERMISSION,
    errno.EPERM: CardState.NO_PERMISSION,
}

#: The log's words for a state: why the game is not being kept.
WHY = {
    CardState.FULL: "the card is full",
    CardState.READ_ONLY: "the card is read-only",
    CardState.NO_PERMISSION: "no permission to write to the card",
}


RESERVE = "card.reserve"  # the reserve's file, in the state folder
RESERVE_MOST = 16 * 2**20  # the most the reserve holds: months of games, at a few KiB each
RESERVE_SHARE = 4  # and at most this part of the free space, so a small card keeps room
LEAST_FREE = 2**20  # at start, a card with less free space than this is full
BLOCK = 4096


def free_bytes(folder: Path) -> int:
    """The space a process may still use on the file system of ``folder``."""
    found = os.statvfs(folder)
    return found.f_bavail * found.f_frsize


def _found(reserve: Path) -> tuple[int, int | None]:
    """The reserve a start finds: the bytes it holds (0: none), and if it was let go, the
    size it held (``Card._let_go`` leaves only that in it; the most, if it says nothing)."""
    try:
        held = reserve.stat().st_size
        if held >= BLOCK:
            return held, None
        said = reserve.read_bytes()
    except FileNotFoundError:
        return 0, None
    try:
        return 0, max(BLOCK, min(RESERVE_MOST, int(said)))
    except ValueError:
        return 0, RESERVE_MOST


class Card:
    """The card's state and its failed writes so far. Written on the engine thread, read by
    the courier's (a state and a count: each read is whole)."""

    def __init__(self) -> None:
        self.state = CardState.OK
        self.errors = 0  # writes that failed since the table started
        self.reserve: Path | None = None  # the reserve's file, once ``hold`` was called
        self.held = 0  # the bytes it holds now (0: none, or let go)
        self._wanted = 0  # what it held before it was let go: the room to see again

    def hold(self, folder: Path, most: int = RESERVE_MOST) -> None:
        """At start: hold the card's reserve in ``folder`` (see the module's words), or keep
        the one held before; a card full or refusing writes now says so in ``state``."""
        if most <= 0:  # none wanted ([table] reserve_mib = 0): one held before goes
            with contextlib.suppress(OSError):
                (folder / RESERVE).unlink()
            return
        if not os.access(folder, os.W_OK | os.X_OK):
            self.failed(OSError(refusal(folder), "the folder takes no writes"), "the games")
            return
        self.reserve = folder / RESERVE
        try:
            held, spent = _found(self.reserve)
            free = free_bytes(folder)
        except OSError as error:
            self.failed(error, "the card's reserve")
            return
        if spent is not None:  # the card filled up: full until the room is back
            self._wanted, self.state = spent, CardState.FULL
            self.wrote()  # held anew if the room is back
            if self.state is CardState.FULL:
                log.error("karta pełna: zapas zwolniony wcześniej; wymień kartę albo zwolnij "
                          "miejsce")  # fmt: skip
            return
        if held:
            self.held = held
            if free < LEAST_FREE:
                self._let_go(f"only {free // 1024} KiB free at start")
            return
        wanted = min(most, free // RESERVE_SHARE) // BLOCK * BLOCK
        if free < LEAST_FREE or not wanted:
            self.failed(OSError(errno.ENOSPC, "no room for the card's reserve"), "the games")
            return
        self._make(wanted)

    def _make(self, size: int) -> bool:
        """Write the reserve's ``size`` bytes (allocated, fsynced, renamed into place)."""
        assert self.reserve is not None
        temporary = self.reserve.with_name(f".{RESERVE}.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
            try:
                os.posix_fallocate(fd, 0, size)  # blocks of its own, not a sparse file
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temporary, self.reserve)
            sync_folder(self.reserve.parent)
        except OSError as error:
            with contextlib.suppress(OSError):
                temporary.unlink()
            if self.held == 0 and self._wanted == 0:  # at start: the card says why
                self.failed(error, "the card's reserve")
            return False
        self.held, self._wanted = size, 0
        return True

    def attempt(self, write: Callable[[], T]) -> T:
        """``write()``, made once more if it failed for want of space and the reserve was
        let go for it (``spare``); raises the OSError it raises otherwise."""
        try:
            return write()
        except OSError as error:
            if not self.spare(error):
                raise
        return write()

    def spare(self, error: OSError) -> bool:
        """A write failed with ``error``: if for want of space and the reserve is held, it
        is let go, and the writer makes the write again (True)."""
        if STATE_OF_ERRNO.get(error.errno or 0) is not CardState.FULL or not self.held:
            return False
        self.errors += 1
        self._let_go(error.strerror or str(error))
        return True

    def _let_go(self, why: str) -> None:
        assert self.reserve is not None
        with contextlib.suppress(OSError):
            # The space is free at once (no fsync needed to use it); the file keeps the size
            # it held, so that a restart knows the card filled up and what room to wait for.
            os.truncate(self.reserve, 0)
            self.reserve.write_bytes(f"{self.held}\n".encode())
        self._wanted, self.held = self.held, 0
        self.state = CardState.FULL
        log.error(
            "karta pełna (%s): zapas %d KiB zwolniony, gra i następne są zapisywane; "
            "wymień kartę albo zwolnij miejsce",
            why,
            self._wanted // 1024,
        )

    def wrote(self) -> None:
        """A write went through: the card takes writes again. On the room the reserve gave
        back it is still ``full``, until as much is free again and the reserve is held."""
        if self.state is CardState.OK:
            return
        if self._wanted:
            assert self.reserve is not None
            try:
                roomy = free_bytes(self.reserve.parent) >= 2 * self._wanted
            except OSError:
                roomy = False
            if not roomy or not self._make(self._wanted):
                return
        log.warning("karta: zapis znów działa (było: %s)", WHY[self.state])
        self.state = CardState.OK

    def failed(self, error: OSError, what: str) -> bool:
        """A write of ``what`` failed with ``error``; a state it names is logged once (True:
        it was, and the writer need not say it again)."""
        self.errors += 1
        state = STATE_OF_ERRNO.get(error.errno or 0)
        if state is None or state is self.state:
            return False
        self.state = state
        log.error(
            "karta: %s (%s): %s cannot be kept; the game goes on, but is not being kept",
            WHY[state],
            error.strerror or error,
            what,
        )
        return True
