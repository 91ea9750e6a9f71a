"""Small points, big points and winners (RULES.md §5–6)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.core.scoring import Ending, RuleSet, SeatRack, score
from klik.rules import RULE_SETS

TOURNAMENT = RULE_SETS["tournament"]
LEAGUE = RULE_SETS["league"]


def racks(**values: int) -> dict[str, SeatRack]:
    return {seat: SeatRack(rack) for seat, rack in values.items()}


def test_seed_003_worked_example() -> None:
    # A wins; B holds 25, C 17, D 18 -> A +60, C -17, D -18, B -25.
    result = score(TOURNAMENT, Ending.RUMMIKUB, racks(A=0, B=25, C=17, D=18), winner="A")
    assert result.small == {"A": 60, "B": -25, "C": -17, "D": -18}
    assert result.big == {"A": 1, "B": 0, "C": 0, "D": 0}
    assert result.winners == ("A",)
    assert result.places == {"A": 1, "B": 4, "C": 2, "D": 3}


@pytest.mark.parametrize(
    ("seat", "small_b"),
    [
        (SeatRack(25, opened=False), -100),  # could not open: -100 instead of the rack
        (SeatRack(25, opened=False, could_open=True), -200),  # could have opened and did not
        (SeatRack(25, opened=False, could_open=True, announced=True), -100),  # announced
        (SeatRack(25, opened=True, could_open=True), -25),  # opened: the flags mean nothing
    ],
)
def test_not_opened_penalties_in_a_rummikub(seat: SeatRack, small_b: int) -> None:
    seats = {"A": SeatRack(0), "B": seat, "C": SeatRack(10)}
    result = score(TOURNAMENT, Ending.RUMMIKUB, seats, winner="A")
    assert result.small == {"A": -small_b + 10, "B": small_b, "C": -10}


def test_league_keeps_its_own_signs_in_a_rummikub() -> None:
    seats = {"A": SeatRack(0), "B": SeatRack(25, opened=False), "C": SeatRack(9), "D": SeatRack(9)}
    result = score(LEAGUE, Ending.RUMMIKUB, seats, winner="A")
    assert result.small == {"A": -118, "B": 100, "C": 9, "D": 9}
    # C and D tie on second place: both get 2nd place's points (001 PUNKTACJA).
    assert result.places == {"A": 1, "B": 4, "C": 2, "D": 2}
    assert result.big == {"A": 4, "B": 0, "C": 2, "D": 2}


def test_league_three_seats() -> None:
    result = score(LEAGUE, Ending.RUMMIKUB, racks(A=5, B=0, C=30), winner="B")
    assert result.small == {"A": 5, "B": -35, "C": 30}
    assert result.big == {"A": 2, "B": 4, "C": 0}


def test_exhausted_lowest_rack_wins_and_others_lose_the_difference() -> None:
    result = score(TOURNAMENT, Ending.EXHAUSTED, racks(A=20, B=12, C=31, D=40))
    assert result.winners == ("B",)
    assert result.small == {"A": -8, "B": 55, "C": -19, "D": -28}
    assert result.big == {"A": 0, "B": 1, "C": 0, "D": 0}


def test_exhausted_tie_each_winner_takes_the_sum_and_a_big_point() -> None:
    # 000 o read literally: every tied winner gets the sum of the others' differences.
    result = score(TOURNAMENT, Ending.EXHAUSTED, racks(A=12, B=12, C=20, D=15))
    assert result.winners == ("A", "B")
    assert result.small == {"A": 11, "B": 11, "C": -8, "D": -3}
    assert result.big == {"A": 1, "B": 1, "C": 0, "D": 0}
    assert sum(result.small.values()) == 11  # not zero: the tie pays twice


def test_exhausted_league_tie_for_first_shares_first_place() -> None:
    result = score(LEAGUE, Ending.EXHAUSTED, racks(A=12, B=12, C=20, D=15))
    assert result.small == {"A": -11, "B": -11, "C": 8, "D": 3}
    assert result.places == {"A": 1, "B": 1, "C": 4, "D": 3}
    assert result.big == {"A": 4, "B": 4, "C": 0, "D": 1}


def test_exhausted_ignores_not_opened_unless_the_rule_set_says_so() -> None:
    seats = {"A": SeatRack(20, opened=False), "B": SeatRack(30)}
    plain = score(TOURNAMENT, Ending.EXHAUSTED, seats)
    assert plain.small == {"A": 10, "B": -10}
    strict = RuleSet("strict", +1, {2: (1, 0)}, penalties_when_exhausted=True)
    fined = score(strict, Ending.EXHAUSTED, seats)
    assert fined.winners == ("B",)
    assert fined.small == {"A": -70, "B": 70}


def test_everyone_holding_the_same_is_a_draw_for_all() -> None:
    result = score(TOURNAMENT, Ending.EXHAUSTED, racks(A=7, B=7, C=7))
    assert result.winners == ("A", "B", "C")
    assert result.small == {"A": 0, "B": 0, "C": 0}
    assert result.big == {"A": 1, "B": 1, "C": 1}


def test_a_rule_set_is_data() -> None:
    # A made-up rule set with other penalties and big points needs no code.
    house = RuleSet("house", +1, {3: (3, 1, 0)}, not_opened_penalty=50)
    result = score(house, Ending.RUMMIKUB, {"A": SeatRack(0), "B": SeatRack(9, opened=False),
                                            "C": SeatRack(60)}, winner="A")  # fmt: skip
    assert result.small == {"A": 110, "B": -50, "C": -60}
    assert result.big == {"A": 3, "B": 1, "C": 0}


seat_racks = st.builds(
    SeatRack,
    rack=st.integers(0, 300),
    opened=st.booleans(),
    could_open=st.booleans(),
    announced=st.booleans(),
)
tables = st.integers(2, 4).flatmap(
    lambda n: st.fixed_dictionaries(dict.fromkeys("ABCD"[:n], seat_racks))
)


@given(tables, st.sampled_from(sorted(RULE_SETS)), st.sampled_from(list(Ending)), st.data())
def test_small_points_sum_to_zero_unless_winners_tie(
    seats: dict[str, SeatRack], name: str, ending: Ending, data: st.DataObject
) -> None:
    winner = data.draw(st.sampled_from(sorted(seats))) if ending is Ending.RUMMIKUB else None
    rules = RULE_SETS[name]
    result = score(rules, ending, seats, winner)
    total = sum(result.small.values())
    if len(result.winners) == 1:
        assert total == 0
    else:
        each = result.small[result.winners[0]]
        assert total == each * (len(result.winners) - 1)
    # Every winner holds the best place and the first place's big points.
    for seat in result.winners:
        assert result.places[seat] == 1
        assert result.big[seat] == rules.big_points[len(seats)][0]
    # Small points order the places, and the winner's sign is the rule set's.
    for a in seats:
        for b in seats:
            if rules.winner_sign * result.small[a] > rules.winner_sign * result.small[b]:
                assert result.places[a] < result.places[b]
    assert all(rules.winner_sign * result.small[w] >= 0 for w in result.winners)
