"""``KLIK_BENCH_QUICK=1``: every bench at a tiny size, its figures not worth judging.

``make test`` runs each bench so (``tests/test_benches.py``): a bench that no longer runs to
its end, because the behaviour it drives has changed, fails the tests at once instead of
aborting ``make bench`` unseen. ``make bench`` runs them at full size.
"""

from __future__ import annotations

import os

QUICK = os.environ.get("KLIK_BENCH_QUICK") == "1"


def size(full: int, quick: int) -> int:
    """``full``, or ``quick`` in a quick run."""
    return quick if QUICK else full


def seconds(full: float, quick: float) -> float:
    return quick if QUICK else full
