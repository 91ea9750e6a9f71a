"""``make bench``: every crash state of twenty whole games (``tests.helpers.crashstates``).

The table's file calls are recorded while twenty games are played at a real state folder
(the count, the result, the judge's next-game tap, a round's lineup, a renumber, the outbox's commits); every state a cut at
any of those calls can leave is built, and the real recovery started on each. It prints how
many states it checked and how many broke an invariant (goal: none), and the first of those.
"""

from __future__ import annotations

import logging
import tempfile
import time
from pathlib import Path

import pytest

from tests.bench.quick import size
from tests.helpers.crashstates import play, violations

GAMES = size(20, 1)


def main() -> None:
    logging.disable(logging.CRITICAL)  # each damaged state logs what it dropped
    patch = pytest.MonkeyPatch()
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="klik-bench-") as name:
        folder = Path(name) / "state"
        folder.mkdir()
        try:
            recorder = play(folder, GAMES, patch)
        finally:
            patch.undo()
        found = list(violations(recorder))
        checked = found[-1][0] if found else 0
        broken = [violation for _, violation in found if violation is not None]
    took = time.perf_counter() - began
    verdict = "✓" if not broken else "✗"
    print(
        f"crash states of {GAMES} whole games ({len(recorder.snapshots)} file calls, "
        f"{len(recorder.kept)} results kept): {checked} states checked, {len(broken)} "
        f"violations in {took:.1f} s  goal 0 violations {verdict}"
    )
    for violation in broken[:5]:
        print(f"  {violation}")


if __name__ == "__main__":
    main()
