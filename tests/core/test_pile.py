from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.core.pile import DrawPile


@pytest.mark.parametrize(
    ("seats", "tiles"),
    [
        (2, 78),  # 106 - 2 * 14: the 8-stack and ten 7-stacks
        (3, 64),  # 8 + 8 * 7
        (4, 50),  # 8 + 6 * 7
    ],
)
def test_tiles_to_draw_after_the_deal(seats: int, tiles: int) -> None:
    pile = DrawPile.for_seats(seats)
    assert pile.tiles_left == tiles
    assert pile.middle == 8  # the 8-stack stands in the middle first (000 e)


def test_the_next_stack_comes_from_the_bank_when_the_middle_is_used_up() -> None:
    pile = DrawPile.for_seats(4)
    pile, taken = pile.take(8)
    assert (pile, taken) == (DrawPile(middle=0, bank_stacks=6), 8)
    pile, taken = pile.take(1)
    assert (pile, taken) == (DrawPile(middle=6, bank_stacks=5), 1)


def test_an_empty_pile_gives_nothing() -> None:
    pile, taken = DrawPile(0, 0).take(2)
    assert (pile, taken, pile.empty) == (DrawPile(0, 0), 0, True)


def test_a_penalty_larger_than_the_pile_takes_what_is_left() -> None:
    assert DrawPile(1, 0).take(3) == (DrawPile(0, 0), 1)


@given(st.integers(0, 78), st.integers(0, 100))
def test_taking_never_goes_below_zero_and_counts_every_tile(tiles: int, wanted: int) -> None:
    pile = DrawPile.with_tiles(tiles)
    assert pile.tiles_left == tiles
    after, taken = pile.take(wanted)
    assert taken == min(wanted, tiles)
    assert after.tiles_left == tiles - taken >= 0
    assert 0 <= after.middle <= 8
