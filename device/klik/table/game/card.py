"""The table's card, as its writes find it: writable, full, read-only or refused.

Every write to the state folder (the journal's lines, the game counter, the result files,
the round's lineup) tells the card how it went. The first write that fails for want of space,
on a card gone read-only (the kernel remounts a failing card so), or for a permission sets
its state, logged once with what could not be kept; the next write that goes through sets it
back to ``ok``. The seats show a card that is not ``ok`` as an alert (the judge must come: no
game is being kept), ``GET /api/state`` says it (``card``) and the heartbeat's health carries
it with the count of failed writes (``card``, ``card_errors``) for the judge's console.
"""

from __future__ import annotations

import errno
import logging
from enum import StrEnum

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


class Card:
    """The card's state and its failed writes so far. Written on the engine thread, read by
    the courier's (a state and a count: each read is whole)."""

    def __init__(self) -> None:
        self.state = CardState.OK
        self.errors = 0  # writes that failed since the table started

    def wrote(self) -> None:
        """A write went through: the card takes writes again."""
        if self.state is not CardState.OK:
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
