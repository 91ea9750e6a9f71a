"""A season's table from its meetings' classifications (``tournament.seasons``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from klik_hub.tournament.seasons import BIG, Rule, Seat, table

NAMES = {1: "Ala", 2: "Bo", 3: "Cezary", 4: "Dorota"}


def lines(rule: Rule, meetings: list[list[Seat]]) -> list[tuple[int, int, int, int]]:
    return [(x.place, x.person, x.points, x.meetings) for x in table(rule, meetings, NAMES)]


def test_big_points_add_up_and_a_tie_shares_the_place() -> None:
    meetings = [
        [Seat(1, 1, 8), Seat(2, 2, 6), Seat(3, 3, 2)],
        [Seat(2, 1, 7), Seat(1, 2, 5), Seat(4, 3, 1)],  # 4 joins late
    ]
    # 1: 13, 2: 13 (tied first, by name after), 3: 2, 4: 1
    assert lines(Rule(BIG), meetings) == [(1, 1, 13, 2), (1, 2, 13, 2), (3, 3, 2, 1), (4, 4, 1, 1)]


def test_points_per_place_a_place_beyond_the_list_gives_0_and_the_best_n_count() -> None:
    meetings = [
        [Seat(1, 1, 0), Seat(2, 2, 0), Seat(3, 3, 0), Seat(4, 4, 0)],
        [Seat(1, 4, 0), Seat(2, 1, 0), Seat(3, 2, 0)],
        [Seat(1, 1, 0), Seat(2, 3, 0), Seat(3, None, 0)],  # 3 was there, unplaced (withdrawn)
    ]
    rule = Rule((10, 6, 3), best=2)
    # 1: 10, 0, 10 -> best two 20; 2: 6, 10, 3 -> 16; 3: 3, 6 -> 9 (2 meetings); 4: 0
    assert lines(rule, meetings) == [(1, 1, 20, 3), (2, 2, 16, 3), (3, 3, 9, 2), (4, 4, 0, 1)]
    assert table(rule, meetings, NAMES)[0].counted == (10, 10)
    assert lines(Rule((10, 6, 3)), meetings)[:2] == [(1, 1, 20, 3), (2, 2, 19, 3)]  # all count


@given(
    st.lists(
        st.lists(st.tuples(st.integers(1, 6), st.integers(1, 8), st.integers(0, 12)), max_size=6),
        max_size=5,
    ),
    st.one_of(st.none(), st.integers(1, 4)),
)
def test_places_follow_the_points_and_best_n_never_adds(
    raw: list[list[tuple[int, int, int]]], best: int | None
) -> None:
    meetings = [[Seat(p, place, big) for p, place, big in {p: (p, pl, b) for p, pl, b in m}.values()]
                for m in raw]  # fmt: skip
    for rule in (Rule(BIG, best), Rule((5, 3, 1), best)):
        got = table(rule, meetings, NAMES)
        for a in got:
            for b in got:
                assert (a.place < b.place) == (a.points > b.points)
        every = {x.person: x.points for x in table(Rule(rule.points), meetings, NAMES)}
        assert all(x.points <= every[x.person] for x in got)
