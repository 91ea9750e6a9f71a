"""How long the link waits before it tries the hub again: exponential back-off, full jitter.

The ceiling doubles from ``BASE_S`` with every failed attempt and stops at ``CAP_S``; the
delay is drawn evenly from 0 to the ceiling ("full jitter"). The cap is the issue's: at most
15 s, so a hub that comes back has every waiting result within seconds. The jitter spreads
the tables out: after a hub restart forty tables do not all knock in the same instant, and
on the shared serial channel two tables that talked over each other do not collide again.

Full jitter rather than decorrelated jitter because it depends on the attempt alone, not on
the delay before it: the caller keeps one number (the outbox counts its tries), and a test
pins every draw with a seeded ``random.Random``. Pure: no clock, no global random state.
"""

from __future__ import annotations

import random

BASE_S = 0.5  # the first retry's ceiling
FACTOR = 2.0
CAP_S = 15.0  # reached at attempt 5 (0.5, 1, 2, 4, 8, 15)

#: From here on the ceiling is the cap; stopping the power here keeps a table that has been
#: cut off for days (attempt in the tens of thousands) from overflowing a float.
_CAPPED_FROM = 64


def ceiling(attempt: int) -> float:
    """The longest wait, in seconds, after ``attempt`` failed tries (0: the first retry)."""
    if attempt < 0:
        raise ValueError(f"attempt must be 0 or more, got {attempt}")
    if attempt >= _CAPPED_FROM:
        return CAP_S
    return min(CAP_S, BASE_S * FACTOR**attempt)


def delay(attempt: int, rng: random.Random) -> float:
    """Seconds to wait before the next try, drawn from 0 to ``ceiling(attempt)``.

    ``attempt`` is how many tries have failed in a row, less one (0 after the first failure).
    The caller owns ``rng`` (one per link, seeded from the OS in the daemon, fixed in tests).
    """
    return rng.uniform(0.0, ceiling(attempt))
