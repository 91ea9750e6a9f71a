"""``make bench``: a round's draw for 400 players after 10 earlier rounds, next to its goal,
without clubs and with them; and the fields where a schedule without a repeat is known.

The earlier rounds are drawn first (not timed), each avoiding the ones before it, as the hub
draws them: so the new round has 10 × 3 opponents per player to keep away from. With clubs,
the earlier rounds kept them apart too, and the new round keeps apart the clubs (a school of
40 and 45 clubs of 8, at the hub's weight) and 36 families of two; or a school of 150 that
50 tables must seat two of. Not a timed test: the
figure is the median of several seeds, and the repeated pairs (and pairs of one club at a
table) are printed with it.

The known schedules (the social golfers, CSPLib 10): 16 players at tables of 4 meet everyone
once in 5 rounds (the affine plane of order 4), 32 players meet no one twice in 9 rounds (a
partial spread of GF(2)^5) and in 10 (the social golfers' schedule, kept as data): the repeats
each draw reaches, next to the 0 that exists.
"""

from __future__ import annotations

import statistics
import time

from klik_hub.tournament.draw import Apart, Round, draw_round, draw_rounds, repeats
from tests.bench.quick import size

PLAYERS = size(400, 24)
EARLIER = size(10, 3)
RUNS = size(7, 1)
GOAL_MS = 500.0
SEEDS = size(5, 1)


def clubs_of(players: list[int]) -> Apart[int]:
    """A school of 40 (a tenth of the field), 45 clubs of 8, and 36 families of two."""
    clubs = {p: "SP 1" if p <= len(players) // 10 else f"klub {p % 45}" for p in players}
    families = {p: f"rodzina {(p - 41) // 10}" for p in players[40::10] + players[41::10]}
    return Apart(clubs, families)


def school_of(players: list[int]) -> Apart[int]:
    """A school of 150 (more than the 100 tables: 50 tables seat two of it at the least) and
    30 clubs of the rest."""
    return Apart({p: "SP 1" if p <= len(players) * 3 // 8 else f"klub {p % 30}" for p in players})


def same_club(drawn: Round[int], apart: Apart[int]) -> int:
    return sum(
        1
        for table in drawn
        for i, a in enumerate(table)
        for b in table[i + 1 :]
        if apart.clubs.get(a) == apart.clubs.get(b)
    )


def round_after_ten() -> None:
    players = list(range(1, PLAYERS + 1))
    for apart, said in ((None, ""), (clubs_of(players), "clubs"), (school_of(players), "a school")):
        earlier: list[Round[int]] = []
        for k in range(EARLIER):
            earlier.append(draw_round(players, earlier, seed=k, apart=apart))
        for ahead in (0, 2):
            times, added, clubs = [], [], []
            for seed in range(100, 100 + RUNS):
                start = time.perf_counter()
                drawn = draw_round(players, earlier, seed=seed, ahead=ahead, apart=apart)
                times.append((time.perf_counter() - start) * 1000)
                added.append(repeats([*earlier, drawn]) - repeats(earlier))
                clubs.append(same_club(drawn, apart) if apart else 0)
            label = f"draw, {PLAYERS} players after {EARLIER} rounds" + (
                f", {ahead} planned ahead" if ahead else ""
            )
            label += f", with {said}" if said else ""
            club = f", pairs of one club: {max(clubs)}" if apart else ""
            print(
                f"{label:<72} {statistics.median(times):>8.1f} ms   goal < {GOAL_MS:.0f} ms"
                f"   repeated pairs: {max(added)} (earlier rounds: {repeats(earlier)}){club}"
            )


def known_schedules() -> None:
    for players, rounds in ((16, 5), (32, 9), (32, 10)):
        times, found = [], []
        for seed in range(SEEDS):
            start = time.perf_counter()
            found.append(repeats(draw_rounds(players, rounds, seed)))
            times.append((time.perf_counter() - start) * 1000)
        label = f"klik draw, {players} players × {rounds} rounds at tables of 4"
        print(
            f"{label:<72} {statistics.median(times):>8.1f} ms   goal: 0 repeated pairs"
            f"   reached: {', '.join(map(str, found))}"
        )
    # As the hub draws a stage of 5 rounds: one at a time, each planning the rest.
    one_by_one = []
    for seed in range(SEEDS):
        earlier: list[Round[int]] = []
        for k in range(5):
            earlier.append(draw_round(list(range(16)), earlier, seed + k, ahead=4 - k))
        one_by_one.append(repeats(earlier))
    label = "hub, 16 players × 5 rounds drawn one by one"
    print(f"{label:<72} {'':>11}   goal: 0 repeated pairs   reached: {max(one_by_one)}")


def main() -> None:
    round_after_ten()
    known_schedules()


if __name__ == "__main__":
    main()
