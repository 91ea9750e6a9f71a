"""Reserves (issue 20, point 3): which games a reserve played at a player's seat, whom they
count for as a format says, and the invariant that whoever a seat counts for, the opponents'
points and the games' points are the same."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.core.game import SEATS
from klik.core.scoring import Ending, SeatRack, score
from klik.rules import RULE_SETS
from klik_hub.tournament.reserves import CountsFor, Replacement, credited, reserved
from klik_hub.tournament.slots import Slot
from klik_hub.tournament.standings import Score, standings

# Player 3 left seat B of table 2 in round 1 during its second game; reserve 9 took it.
LEFT = Replacement(round_no=1, table=2, seat="B", player=3, reserve=9, from_game=2)
TABLE = {"A": 5, "B": 3, "C": 7, "D": 1}


@pytest.mark.parametrize(
    ("slot", "covered"),
    [
        (Slot(1, 2, 1), False),  # the game before: still the player's
        (Slot(1, 2, 2), True),  # from_game on: the reserve's
        (Slot(1, 2, 3), True),
        (Slot(1, 1, 2), False),  # another table of the round
        (Slot(2, 2, 2), False),  # the same table of another round
    ],
)
def test_a_replacement_covers_its_tables_games_from_from_game_on(slot: Slot, covered: bool) -> None:
    assert LEFT.covers(slot) is covered
    assert reserved([LEFT], slot, TABLE) == ({"B": LEFT} if covered else {})


@pytest.mark.parametrize(
    ("rule", "counts_for"),
    [
        (CountsFor.RESERVE, 9),  # who played it
        (CountsFor.REPLACED, 3),  # the seat as drawn
        (CountsFor.NOBODY, None),  # no one's
    ],
)
def test_whom_a_reserves_games_count_for_is_the_formats_say(
    rule: CountsFor, counts_for: int | None
) -> None:
    seats = reserved([LEFT], Slot(1, 2, 2), TABLE)
    assert credited(TABLE, seats, rule) == {"A": 5, "B": counts_for, "C": 7, "D": 1}


def test_the_seat_is_found_by_the_player_who_left_not_by_its_letter() -> None:
    # The judge named the game's players again, and player 3 sat at D of this result.
    moved = {"A": 5, "B": 1, "C": 7, "D": 3}
    assert reserved([LEFT], Slot(1, 2, 2), moved) == {"D": LEFT}
    # A result that does not seat the player who left has no reserve's seat.
    assert reserved([LEFT], Slot(1, 2, 2), {"A": 5, "B": 6, "C": 7}) == {}


# A table's game: its players (distinct ids), their racks, who went out (or none: exhausted).
games = st.integers(2, 4).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(1, 12), min_size=n, max_size=n, unique=True),
        st.lists(st.integers(0, 80), min_size=n, max_size=n),
        st.one_of(st.none(), st.integers(0, n - 1)),
    )
)


@given(
    played=st.lists(games, min_size=1, max_size=6),
    left_at=st.integers(0, 3),
    from_game=st.integers(1, 6),
    rules=st.sampled_from(sorted(RULE_SETS)),
)
def test_whoever_a_reserves_seat_counts_for_the_games_points_are_the_same(
    played: list[tuple[list[int], list[int], int | None]],
    left_at: int,
    from_game: int,
    rules: str,
) -> None:
    """The games of one table of round 1, a reserve (id 99) at one seat from ``from_game``
    on: under every rule the other seats count alike, and the points counted plus those that
    count for nobody are every game's points."""
    first = played[0][0]
    leaver = first[left_at % len(first)]
    swap = Replacement(1, 1, "A", leaver, 99, from_game)
    counted: dict[CountsFor, list[Score]] = {rule: [] for rule in CountsFor}
    dropped: dict[CountsFor, int] = dict.fromkeys(CountsFor, 0)
    total_big = 0
    for game, (players, racks, out) in enumerate(played, 1):
        seats = dict(zip(SEATS, players, strict=False))
        held = {s: SeatRack(0 if out == k else max(racks[k], 1)) for k, s in enumerate(seats)}
        ending = Ending.RUMMIKUB if out is not None else Ending.EXHAUSTED
        winner = SEATS[out] if out is not None else None
        result = score(RULE_SETS[rules], ending, held, winner)
        total_big += sum(result.big.values())
        on = reserved([swap], Slot(1, 1, game), seats)
        for rule in CountsFor:
            for s, player in credited(seats, on, rule).items():
                if player is None:
                    dropped[rule] += result.big[s]
                    continue
                counted[rule].append(Score(player, "s", result.big[s], result.small[s],
                                           reserve=s in on))  # fmt: skip
    everyone = {p: f"Gracz {p}" for p in range(1, 13)} | {99: "Rezerwowy"}
    rows = {
        rule: {r.player: r for r in standings(everyone, scores, rules=RULE_SETS[rules])}
        for rule, scores in counted.items()
    }
    for rule in CountsFor:
        assert sum(r.big for r in rows[rule].values()) + dropped[rule] == total_big
    assert dropped[CountsFor.RESERVE] == dropped[CountsFor.REPLACED] == 0
    # The opponents' rows are the same whoever the seat counts for.
    others = set(everyone) - {leaver, 99}
    for player in others:
        shown = {(r.big, r.small, r.games) for r in (rows[rule][player] for rule in CountsFor)}
        assert len(shown) == 1
    # The reserve's games are the reserve's, or the player's who left, or nobody's.
    reserve_games = rows[CountsFor.RESERVE][99].games
    assert rows[CountsFor.RESERVE][99].reserve_games == reserve_games
    assert rows[CountsFor.REPLACED][99].games == rows[CountsFor.NOBODY][99].games == 0
    assert (
        rows[CountsFor.REPLACED][leaver].games
        == rows[CountsFor.NOBODY][leaver].games + reserve_games
        == rows[CountsFor.RESERVE][leaver].games + reserve_games
    )
