"""``make bench``: a round's draw for 400 players after 10 earlier rounds, next to its goal.

The earlier rounds are drawn first (not timed), each avoiding the ones before it, as the hub
draws them: so the new round has 10 × 3 opponents per player to keep away from. Not a timed
test: the figure is the median of several seeds, and the repeated pairs are printed with it.
"""

from __future__ import annotations

import statistics
import time

from klik_hub.tournament.draw import draw_round, repeats
from tests.bench.quick import size

PLAYERS = size(400, 40)
EARLIER = 10
RUNS = size(7, 1)
GOAL_MS = 500.0


def main() -> None:
    players = list(range(1, PLAYERS + 1))
    earlier: list[tuple[tuple[int, ...], ...]] = []
    for k in range(EARLIER):
        earlier.append(draw_round(players, earlier, seed=k))
    for ahead in (0, 2):
        times, added = [], []
        for seed in range(100, 100 + RUNS):
            start = time.perf_counter()
            drawn = draw_round(players, earlier, seed=seed, ahead=ahead)
            times.append((time.perf_counter() - start) * 1000)
            added.append(repeats([*earlier, drawn]) - repeats(earlier))
        label = f"draw, {PLAYERS} players after {EARLIER} rounds" + (
            f", {ahead} rounds planned ahead" if ahead else ""
        )
        print(
            f"{label:<62} {statistics.median(times):>8.1f} ms   goal < {GOAL_MS:.0f} ms"
            f"   repeated pairs: {max(added)} (earlier rounds: {repeats(earlier)})"
        )


if __name__ == "__main__":
    main()
