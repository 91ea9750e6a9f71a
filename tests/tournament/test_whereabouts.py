"""Where a player sits now and next (the player's page), and who starts a table's first game."""

from __future__ import annotations

import pytest

from klik_hub.tournament.whereabouts import Spot, first_starter, now_and_next, spots

# Two rounds of 7 players: a table of 4 and a table of 3 each.
ROUNDS = [
    (1, [(1, 2, 3, 4), (5, 6, 7)]),
    (2, [(5, 1, 7), (2, 6, 3, 4)]),
]


def test_a_players_spots_are_their_seats_round_by_round() -> None:
    assert spots(1, ROUNDS) == [Spot(1, 1, "A"), Spot(2, 1, "B")]
    assert spots(7, ROUNDS) == [Spot(1, 2, "C"), Spot(2, 1, "C")]
    assert spots(9, ROUNDS) == []


@pytest.mark.parametrize(
    ("player", "rounds", "owing", "now", "then"),
    [
        # not drawn yet: nowhere
        (1, [], set(), None, None),
        # round 1 drawn, its table owes: there, nothing next
        (1, ROUNDS[:1], {(1, 1)}, Spot(1, 1, "A"), None),
        # round 2 drawn while table 1 of round 1 still plays: there now, round 2 next
        (1, ROUNDS, {(1, 1), (2, 1)}, Spot(1, 1, "A"), Spot(2, 1, "B")),
        # another table of round 1 still plays: this player's moved on
        (1, ROUNDS, {(1, 2), (2, 1)}, Spot(2, 1, "B"), None),
        # every table has reported: the last round the player sits in
        (1, ROUNDS, set(), Spot(2, 1, "B"), None),
        # a player the later round does not seat: their last seat
        (9, [*ROUNDS, (3, [(9, 1, 2)])], set(), Spot(3, 1, "A"), None),
        (5, [*ROUNDS, (3, [(9, 1, 2)])], set(), Spot(2, 1, "A"), None),
    ],
)
def test_now_is_the_first_table_that_owes_games_and_next_the_round_after(
    player: int,
    rounds: list[tuple[int, list[tuple[int, ...]]]],
    owing: set[tuple[int, int]],
    now: Spot | None,
    then: Spot | None,
) -> None:
    assert now_and_next(player, rounds, owing) == (now, then)


@pytest.mark.parametrize(
    ("rule", "seats", "starts"),
    [
        ("A", ("A", "B", "C", "D"), "A"),  # 000 f, 004 6: seat A starts a round's first game
        ("A", ("A", "B", "C"), "A"),  # a table of 3 too
        ("draw", ("A", "B", "C", "D"), None),  # 001: the highest tile, drawn at the table
    ],
)
def test_the_first_game_is_started_as_the_lineup_says(
    rule: str, seats: tuple[str, ...], starts: str | None
) -> None:
    assert first_starter(rule, seats) == starts
