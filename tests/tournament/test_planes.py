"""Affine planes: where everyone can meet everyone exactly once, the design is built."""

from __future__ import annotations

import itertools
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik_hub.tournament.planes import plane_rounds


def pairs(rounds: list[list[list[int]]]) -> list[frozenset[int]]:
    return [frozenset(p) for one in rounds for t in one for p in itertools.combinations(t, 2)]


@pytest.mark.parametrize(("q", "rounds"), [(3, 4), (4, 5)])
@given(seed=st.integers(0, 2**63 - 1))
def test_a_plane_seats_every_pair_together_exactly_once(q: int, rounds: int, seed: int) -> None:
    drawn = plane_rounds(q * q, [q] * q, [], rounds, Random(seed))
    assert drawn is not None
    met = pairs(drawn)
    assert len(met) == len(set(met)) == q * q * (q * q - 1) // 2
    for one in drawn:
        assert sorted(p for t in one for p in t) == list(range(q * q))


@pytest.mark.slow  # about a second of examples
@given(seed=st.integers(0, 2**63 - 1))
def test_a_plane_goes_on_from_its_own_earlier_rounds(seed: int) -> None:
    # Drawn a round at a time, each planned with the rest: the earlier rounds are classes
    # of the plane the next draw labels, so the fifth round still repeats nobody.
    rng = Random(seed)
    earlier: list[list[list[int]]] = []
    while len(earlier) < 5:
        more = plane_rounds(16, [4] * 4, earlier, 5 - len(earlier), rng)
        assert more is not None
        earlier.append(more[0])
    met = pairs(earlier)
    assert len(met) == len(set(met)) == 120


@pytest.mark.parametrize(
    ("n", "sizes", "earlier", "rounds"),
    [
        (16, [4] * 4, [], 6),  # a sixth round would repeat: the plane has five classes
        (12, [4] * 3, [], 2),  # 12 is no square
        (17, [4, 4, 3, 3, 3], [], 1),
        (16, [4] * 4, [[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]] * 2, 1),
    ],
)
def test_no_plane_where_there_is_none(
    n: int, sizes: list[int], earlier: list[list[list[int]]], rounds: int
) -> None:
    assert plane_rounds(n, sizes, earlier, rounds, Random(1)) is None
