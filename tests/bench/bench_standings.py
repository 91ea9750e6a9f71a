"""``make bench``: the standings of a big tournament, next to their goal.

1,000 players, 20 games each at tables of four: 5,000 games, 20,000 scores, scored by the real
rule sets. Not a timed test: machines are noisy, so this prints medians over several runs.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from klik.core.scoring import RULE_SETS, Ending, RuleSet, SeatRack, score
from klik_hub.tournament.standings import Score, TieBreak, standings

RUNS = 7
PLAYERS = 1000
ROUNDS = 20  # one game a round, at tables of four
STAGES = ("eliminacje", "półfinał")  # the first 15 rounds, then 5 more: a per-stage filter
GOAL_MS = 100.0


def a_big_tournament(rules: str, seed: int = 1) -> tuple[dict[str, str], list[Score]]:
    rng = random.Random(seed)
    rule_set = RULE_SETS[rules]
    players = {f"p{i:04}": f"Gracz {rng.randrange(10_000)}" for i in range(PLAYERS)}
    ids = list(players)
    scores: list[Score] = []
    for round_ in range(ROUNDS):
        rng.shuffle(ids)
        stage = STAGES[round_ >= 15]
        for t in range(0, PLAYERS, 4):
            seats = dict(zip("ABCD", ids[t : t + 4], strict=True))
            racks = {s: SeatRack(rng.randrange(0, 80)) for s in seats}
            racks["A"] = SeatRack(0)
            result = score(rule_set, Ending.RUMMIKUB, racks, winner="A")
            scores += [
                Score(p, stage, result.big[s], result.small[s], s in result.winners)
                for s, p in seats.items()
            ]
    return players, scores


def median_ms(players: dict[str, str], scores: list[Score], rules: RuleSet, **how: Any) -> float:
    """The median time of ``standings`` over RUNS runs, in milliseconds."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        standings(players, scores, rules=rules, **how)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    print(f"standings: {PLAYERS:,} players x {ROUNDS} games, tables of four")
    cases: dict[str, dict[str, Any]] = {
        "overall": {},
        "one stage": {"stages": {STAGES[1]}},
        "big, small, wins": {"tie_breaks": (TieBreak.BIG, TieBreak.SMALL, TieBreak.WINS)},
    }
    for rules in ("tournament", "league"):
        players, scores = a_big_tournament(rules)
        for case, how in cases.items():
            ms = median_ms(players, scores, RULE_SETS[rules], **how)
            label = f"{len(scores):,} scores, {rules}, {case} (median of {RUNS})"
            print(f"{label:<58}{ms:>6.1f} ms  goal < {GOAL_MS:.0f} ms")


if __name__ == "__main__":
    main()
