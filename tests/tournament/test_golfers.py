"""The social golfers' schedule: 32 players at 8 tables of 4 over 10 rounds, no pair twice."""

from __future__ import annotations

import itertools
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik_hub.tournament.golfers import golfer_rounds, schedule


def pairs(rounds: list[list[list[int]]]) -> list[frozenset[int]]:
    return [frozenset(p) for one in rounds for t in one for p in itertools.combinations(t, 2)]


def test_the_schedule_seats_no_pair_together_twice() -> None:
    kept = schedule()
    assert len(kept) == 10
    for one in kept:
        assert len(one) == 8
        assert all(len(table) == 4 for table in one)
        assert sorted(p for table in one for p in table) == list(range(32))  # everyone, once
    met = pairs(kept)
    assert len(met) == len(set(met)) == 10 * 8 * 6  # 480 pairs, none twice
    # Each player meets all 31 others but its partner: 2p and 2p + 1.
    unmet = set(map(frozenset, itertools.combinations(range(32), 2))) - set(met)
    assert unmet == {frozenset((2 * p, 2 * p + 1)) for p in range(16)}


def test_the_schedule_is_built_as_its_docstring_says() -> None:
    # Player 2p + s is vector p of GF(2)^4: each round's tables pair up, a table and its
    # players' partners, into the cosets of a line; the 10 lines hold each vector but 0 twice.
    lines = []
    for one in schedule():
        quads = {frozenset(p // 2 for p in table) for table in one}
        line = next(q for q in quads if 0 in q)
        assert {x ^ y for x in line for y in line} == line  # a subspace
        assert quads == {frozenset(x ^ y for y in line) for x in range(16)}
        for table in one:
            assert {p ^ 1 for p in table} in map(set, one)
        lines.append(line)
    assert sorted(x for line in lines for x in line if x) == sorted(list(range(1, 16)) * 2)


@given(seed=st.integers(0, 2**63 - 1))
def test_a_drawn_schedule_is_relabelled_and_still_repeats_no_pair(seed: int) -> None:
    drawn = golfer_rounds(32, [4] * 8, [], 10, Random(seed))
    assert drawn is not None
    assert len(drawn) == 10
    for one in drawn:
        assert sorted(p for table in one for p in table) == list(range(32))
    met = pairs(drawn)
    assert len(met) == len(set(met)) == 480


def test_the_seed_chooses_the_labelling() -> None:
    first = golfer_rounds(32, [4] * 8, [], 10, Random(1))
    assert first == golfer_rounds(32, [4] * 8, [], 10, Random(1))
    assert first != golfer_rounds(32, [4] * 8, [], 10, Random(2))
    assert first is not None
    assert set(pairs(first)) != set(pairs(schedule()))  # the players relabelled


def test_more_rounds_than_ten_give_the_ten_for_a_search_to_go_on_from() -> None:
    drawn = golfer_rounds(32, [4] * 8, [], 12, Random(1))
    assert drawn is not None
    assert len(drawn) == 10


@pytest.mark.parametrize(
    ("n", "sizes", "earlier", "rounds"),
    [
        (32, [4] * 8, [], 9),  # up to 9 rounds: the partial spread's, as before
        (28, [4] * 7, [], 10),  # not 32 players
        (33, [4] * 6 + [3] * 3, [], 10),
        (32, [4] * 8, [[list(range(k, k + 4)) for k in range(0, 32, 4)]], 10),  # drawn before
    ],
)
def test_no_schedule_where_it_is_not_asked_for(
    n: int, sizes: list[int], earlier: list[list[list[int]]], rounds: int
) -> None:
    assert golfer_rounds(n, sizes, earlier, rounds, Random(1)) is None
