"""Ratings for 3- and 4-player tables (OpenSkill's Plackett–Luce), from the games alone."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from klik_hub.tournament.ratings import PROVISIONAL_GAMES, Game, ranked, rate

DAY, TODAY = "2026-11-27", "2026-11-28"
GAMES = [
    Game(DAY, {1: 1, 2: 2, 3: 3, 4: 4}),  # a table of four
    Game(DAY, {1: 2, 5: 1, 6: 3}),  # a table of three
    Game(DAY, {2: 1, 3: 2, 5: 2, 6: 4}),  # 3 and 5 tie on 2nd place
    Game(TODAY, {1: 1, 4: 2, 6: 3}),
    Game(TODAY, {2: 1, 3: 1, 4: 3, 5: 4}),  # an exhausted game: two winners
]


def test_the_figures_are_the_librarys_own_for_a_fixed_game_list() -> None:
    model = PlackettLuce()
    by_hand = {p: model.rating() for p in range(1, 7)}
    for game in GAMES:
        people = sorted(game.places)
        moved = model.rate([[by_hand[p]] for p in people], ranks=[game.places[p] for p in people])
        for p, (now,) in zip(people, moved, strict=True):
            by_hand[p] = now
    rated = rate(GAMES, TODAY)
    for p, expected in by_hand.items():
        assert rated[p].mu == pytest.approx(expected.mu, abs=1e-12)
        assert rated[p].sigma == pytest.approx(expected.sigma, abs=1e-12)
        assert rated[p].value == pytest.approx(expected.ordinal(), abs=1e-12)  # mu - 3 sigma
    assert [r.games for r in sorted(rated.values(), key=lambda r: r.person)] == [3] * 6


def test_a_newcomer_shows_0_and_is_provisional_until_30_games() -> None:
    one = rate([Game(TODAY, {1: 1, 2: 2, 3: 2})], TODAY)
    assert one[2].mu == pytest.approx(one[3].mu)  # tied, from the same start: the same move
    assert one[1].value > one[2].value
    assert one[1].change_today == pytest.approx(one[1].value)  # from 0 before today
    many = rate([Game(DAY, {1: 1 + k % 3, 2: 1 + (k + 1) % 3, 3: 1 + (k + 2) % 3})
                 for k in range(PROVISIONAL_GAMES)], TODAY)  # fmt: skip
    assert not many[1].provisional
    assert rate([Game(DAY, {1: 1, 2: 2})] * (PROVISIONAL_GAMES - 1), TODAY)[1].provisional


def test_change_today_counts_only_todays_games() -> None:
    rated = rate(GAMES, TODAY)
    before = rate(GAMES[:3], TODAY)
    for p in (1, 2, 3, 4, 5, 6):
        assert rated[p].change_today == pytest.approx(rated[p].value - before[p].value)
    yesterday = rate(GAMES, "2026-11-29")  # no game today: no change
    assert all(r.change_today == 0 for r in yesterday.values())


def test_a_game_of_one_known_person_moves_nobody() -> None:
    assert rate([Game(TODAY, {7: 1})], TODAY) == {}


def test_a_correction_changes_the_order() -> None:
    # 1 beats 2 twice; corrected, the second game was 2's: they are level, and 2's later
    # win puts 2 first.
    games = [
        Game(DAY, {1: 1, 2: 2, 3: 3}),
        Game(DAY, {1: 1, 2: 2, 3: 3}),
        Game(DAY, {2: 1, 1: 2, 3: 3}),
    ]
    assert [r.person for r in ranked(rate(games, TODAY))] == [1, 2, 3]
    corrected = [games[0], Game(DAY, {2: 1, 1: 2, 3: 3}), games[2]]
    assert [r.person for r in ranked(rate(corrected, TODAY))] == [2, 1, 3]


@given(st.integers(0, 2**32), st.integers(2, 40))
def test_the_same_games_give_the_same_figures_and_winning_never_lowers_a_rating(
    seed: int, count: int
) -> None:
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        people = rng.sample(range(1, 9), rng.choice((3, 4)))
        games.append(Game(DAY, {p: i + 1 for i, p in enumerate(people)}))
    assert rate(games, TODAY) == rate(list(games), TODAY)
    winner = next(iter(games[-1].places))
    without = rate(games[:-1], TODAY)
    if winner in without:  # the last game's sole winner gains
        assert rate(games, TODAY)[winner].mu > without[winner].mu
