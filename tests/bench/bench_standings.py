"""``make bench``: the standings of a big tournament, next to their goal.

1,000 players play 15 games at tables of four, then 200 of them 5 more in a second stage:
4,000 games, 16,000 scores, scored by the real rule sets; the standings, the final
classification by the last stage reached (the second stage's 200 first); and 20 rounds'
slots filled by their results. Not a timed test: machines are noisy,
so this prints medians over several runs.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from klik.core.scoring import Ending, RuleSet, SeatRack, score
from klik.rules import RULE_SETS
from klik_hub.tournament import slots as sl
from klik_hub.tournament.ratings import Game, rate
from klik_hub.tournament.standings import Score, TieBreak, classification, standings
from tests.bench.quick import size

RUNS = size(7, 1)
PLAYERS = size(1000, 40)
ROUNDS = 20  # one game a round, at tables of four
STAGES = ("eliminacje", "półfinał")  # the first 15 rounds, then 5 more: a per-stage filter
SECOND = size(200, 8)  # players who reach the second stage (the classification's first group)
GOAL_MS = 100.0
RATED_GAMES = size(10_000, 200)  # a national ranking's season (issue 39: under 2 s)
PEOPLE = size(600, 40)
RATINGS_GOAL_S = 2.0


def a_big_tournament(rules: str, seed: int = 1) -> tuple[dict[int, str], list[Score]]:
    rng = random.Random(seed)
    rule_set = RULE_SETS[rules]
    players = {i: f"Gracz {rng.randrange(10_000)}" for i in range(1, PLAYERS + 1)}
    ids = list(players)
    second = ids[:SECOND]  # who reaches the second stage
    scores: list[Score] = []
    for round_ in range(ROUNDS):
        rng.shuffle(ids)
        stage = STAGES[round_ >= 15]
        if round_ >= 15:  # the second stage: its own players only
            rng.shuffle(second)
            for t in range(0, SECOND, 4):
                seats = dict(zip("ABCD", second[t : t + 4], strict=True))
                scores += _game(rule_set, rng, seats, stage)
            continue
        for t in range(0, PLAYERS, 4):
            seats = dict(zip("ABCD", ids[t : t + 4], strict=True))
            scores += _game(rule_set, rng, seats, stage)
    return players, scores


def _game(rule_set: RuleSet, rng: random.Random, seats: dict[str, int], stage: str) -> list[Score]:
    racks = {s: SeatRack(rng.randrange(0, 80)) for s in seats}
    racks["A"] = SeatRack(0)
    result = score(rule_set, Ending.RUMMIKUB, racks, winner="A")
    return [
        Score(p, stage, result.big[s], result.small[s], s in result.winners)
        for s, p in seats.items()
    ]


def median_of(work: Any) -> float:
    """The median time of ``work()`` over RUNS runs, in milliseconds."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def slots_ms() -> tuple[int, float]:
    """The slots of 20 rounds of 250 tables, each game's result filling its slot, plus one
    slip a round (a game past the round's games)."""
    lineups, claims = [], []
    for n in range(1, ROUNDS + 1):
        tables = tuple(tuple(4 * t + s for s in range(1, 5)) for t in range(250))
        lineups.append(sl.Lineup(n, 1, tables))
        for k, table in enumerate(tables, 1):
            players = dict(zip("ABCD", table, strict=True))
            claims.append(sl.Claim(len(claims) + 1, n, k, 1, players))
        claims.append(sl.Claim(len(claims) + 1, n, 1, 2, dict(zip("ABCD", tables[0], strict=True))))
    return len(claims), median_of(lambda: sl.fill(lineups, claims))


def median_ms(players: dict[int, str], scores: list[Score], rules: RuleSet, **how: Any) -> float:
    """The median time of ``standings`` over RUNS runs, in milliseconds."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        standings(players, scores, rules=rules, **how)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    print(f"standings: {PLAYERS:,} players x 15 games, then {SECOND} x 5, tables of four")
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
        seated = {
            STAGES[0]: set(players),
            STAGES[1]: {s.player for s in scores if s.stage == STAGES[1]},
        }
        ms = median_of(
            lambda p=players, x=scores, r=RULE_SETS[rules], q=seated: classification(
                p, x, rules=r, stages=STAGES, seated=q
            )
        )
        label = f"{len(scores):,} scores, {rules}, by stage reached (median of {RUNS})"
        print(f"{label:<58}{ms:>6.1f} ms  goal < {GOAL_MS:.0f} ms")
    claims, ms = slots_ms()
    label = f"slots: {claims:,} results of {ROUNDS} rounds placed (median of {RUNS})"
    print(f"{label:<58}{ms:>6.1f} ms  goal < {GOAL_MS:.0f} ms")
    games = a_rated_season()
    seconds = median_of(lambda: rate(games, "2026-11-28")) / 1000
    print(f"ratings: {len(games)} games in {seconds:.2f} s (goal < {RATINGS_GOAL_S:.0f} s)"
          f"  [{PEOPLE} people, tables of 3 and 4, median of {RUNS}]")  # fmt: skip


def a_rated_season(seed: int = 2) -> list[Game]:
    """``RATED_GAMES`` games of ``PEOPLE`` people at tables of 3 and 4, places with ties."""
    rng = random.Random(seed)
    games = []
    for k in range(RATED_GAMES):
        people = rng.sample(range(1, PEOPLE + 1), rng.choice((3, 4)))
        places = sorted(rng.choice((1, 2, 2, 3, 4)) for _ in people)
        games.append(
            Game(f"2026-{1 + k * 11 // RATED_GAMES:02d}-01", dict(zip(people, places, strict=True)))
        )
    return games


if __name__ == "__main__":
    main()
