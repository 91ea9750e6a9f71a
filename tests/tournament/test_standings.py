"""Standings: sums per player, ranked by the format's tie-breaks (RULES.md §6, seed 001)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.core.scoring import RuleSet
from klik.rules import RULE_SETS
from klik_hub.tournament.standings import (
    Deduction,
    Row,
    Score,
    Status,
    TieBreak,
    break_ties,
    classification,
    collation_key,
    standings,
)

TOURNAMENT = RULE_SETS["tournament"]
LEAGUE = RULE_SETS["league"]
BIG, SMALL, WINS = TieBreak.BIG, TieBreak.SMALL, TieBreak.WINS
# Players are ids (start numbers); the tests call them by their initials: game(a=...).
ID = {"a": 1, "b": 2, "c": 3, "d": 4, "w": 5, "z": 6}
PLAYERS = {1: "Anna", 2: "Bartek", 3: "Celina", 4: "Darek"}


def game(stage: str = "eliminacje", **seats: tuple[int, int]) -> list[Score]:
    """One game's scores: player's initial=(big, small); the most big points won."""
    best = max(big for big, _ in seats.values())
    return [Score(ID[p], stage, big, small, big == best) for p, (big, small) in seats.items()]


def test_the_classification_places_who_played_by_their_last_stage_and_no_one_else() -> None:
    """Issue 37: a semifinalist stands above the eliminations' players before their first
    semifinal game; who played no game at all has no place, after every group; a deduction
    keeps the stage it was given in, though it counts in the row of the last stage."""
    players = {1: "Anna", 2: "Bartek", 3: "Celina", 4: "Darek", 5: "Ewa"}
    scores = [
        *game(a=(1, 30), b=(0, -10), c=(0, -20)),
        *game("półfinał", a=(0, -5), b=(1, 5)),
        Score(2, "eliminacje", -1, 0, game=False),  # Bartek's deduction in the eliminations
        Score(5, "eliminacje", -1, 0, game=False),  # Ewa never played
    ]
    seated = {"eliminacje": {1, 2, 3, 4, 5}, "półfinał": {1, 2, 3}}
    rows = classification(
        players, scores, rules=TOURNAMENT, stages=["eliminacje", "półfinał"], seated=seated
    )
    assert [(r.place, r.name, r.stage, r.big, r.status, r.deductions) for r in rows] == [
        # the semifinal's winner, its deduction taken off there: 1 - 1 big, +5 small
        (1, "Bartek", "półfinał", 0, Status.CLASSIFIED, (Deduction("eliminacje", 1),)),
        (2, "Anna", "półfinał", 0, Status.CLASSIFIED, ()),  # the eliminations' leader, -5
        (3, "Celina", "półfinał", 0, Status.CLASSIFIED, ()),  # no semifinal game yet: 3rd
        (4, "Darek", "eliminacje", 0, Status.UNPLACED, ()),  # seated, never played: no place
        (4, "Ewa", "eliminacje", -1, Status.UNPLACED, (Deduction("eliminacje", 1),)),
    ]


def test_a_tournament_game_ranks_the_winner_first_and_losers_by_small_points() -> None:
    scores = game(a=(0, -25), b=(1, 60), c=(0, -17), d=(0, -18))
    assert standings(PLAYERS, scores, rules=TOURNAMENT) == [
        Row(1, 2, "Bartek", 1, 60, 1),
        Row(2, 3, "Celina", 0, -17, 1),
        Row(3, 4, "Darek", 0, -18, 1),
        Row(4, 1, "Anna", 0, -25, 1),
    ]


def test_under_league_rules_fewer_small_points_are_better() -> None:
    # Seed 001 writes the losers plus and the winner minus: the lower balance ranks higher.
    scores = game(a=(1, 25), b=(4, -60), c=(1, 17), d=(1, 18))
    assert standings(PLAYERS, scores, rules=LEAGUE) == [
        Row(1, 2, "Bartek", 4, -60, 1),
        Row(2, 3, "Celina", 1, 17, 1),
        Row(3, 4, "Darek", 1, 18, 1),
        Row(4, 1, "Anna", 1, 25, 1),
    ]


LEAGUE_TIE = game(a=(4, -5), b=(2, 0), c=(0, 5)) + game(c=(4, -5), b=(2, 0), a=(0, 5))


@pytest.mark.parametrize(
    ("scores", "rules", "tie_breaks", "places"),
    [
        # big points decide before small points
        (game(a=(1, 5), b=(0, 90), c=(0, -40), d=(0, -55)), TOURNAMENT, (BIG, SMALL), {"a": 1, "b": 2, "c": 3, "d": 4}),
        # equal on big and small points: they share 2nd place, the next is 4th (1, 2, 2, 4)
        (game(a=(1, 40), b=(0, -10), c=(0, -10), d=(0, -20)), TOURNAMENT, (BIG, SMALL), {"a": 1, "b": 2, "c": 2, "d": 4}),
        # big points alone: everyone without a win shares 2nd place
        (game(a=(1, 40), b=(0, -10), c=(0, -10), d=(0, -20)), TOURNAMENT, (BIG,), {"a": 1, "b": 2, "c": 2, "d": 2}),
        # small points first: a format may order them so
        (game(a=(1, 10), b=(0, 30), c=(0, -20), d=(0, -20)), TOURNAMENT, (SMALL, BIG), {"b": 1, "a": 2, "c": 3, "d": 3}),
        # league: a win and a last place (4 + 0) tie two second places (2 + 2) on big and small
        (LEAGUE_TIE, LEAGUE, (BIG, SMALL), {"a": 1, "b": 1, "c": 1, "d": 4}),
        # ... and games won break that tie; d, with no games, is last on zeros
        (LEAGUE_TIE, LEAGUE, (BIG, SMALL, WINS), {"a": 1, "c": 1, "b": 3, "d": 4}),
    ],
)  # fmt: skip
def test_places_follow_the_tie_breaks_in_order(
    scores: list[Score], rules: RuleSet, tie_breaks: tuple[TieBreak, ...], places: dict[str, int]
) -> None:
    rows = standings(PLAYERS, scores, rules=rules, tie_breaks=tie_breaks)
    assert {row.player: row.place for row in rows} == {ID[p]: n for p, n in places.items()}


def test_stage_filter_counts_only_the_games_of_those_stages() -> None:
    two = {1: "Anna", 2: "Bartek"}
    scores = game("eliminacje", a=(1, 30), b=(0, -30)) + game("półfinał", a=(0, -12), b=(1, 12))
    semifinal = standings(two, scores, rules=TOURNAMENT, stages={"półfinał"})
    assert semifinal == [Row(1, 2, "Bartek", 1, 12, 1), Row(2, 1, "Anna", 0, -12, 1)]
    overall = standings(two, scores, rules=TOURNAMENT)
    assert overall == [Row(1, 1, "Anna", 1, 18, 2), Row(2, 2, "Bartek", 1, -18, 2)]
    assert standings(two, scores, rules=TOURNAMENT, stages=["eliminacje", "półfinał"]) == overall
    # a stage nobody has played yet: everyone on zeros, sharing 1st place, none placed yet
    assert standings(two, scores, rules=TOURNAMENT, stages={"finał"}) == [
        Row(1, 1, "Anna", 0, 0, 0, status=Status.UNPLACED),
        Row(1, 2, "Bartek", 0, 0, 0, status=Status.UNPLACED),
    ]


def test_players_without_games_have_zeros_and_come_after_everyone_who_played() -> None:
    players = {6: "Zenon", 1: "Anna", 5: "Wiktor", 2: "Bartek"}
    scores = game(w=(1, 10), b=(0, 0), z=(0, -10))
    assert standings(players, scores, rules=TOURNAMENT) == [
        Row(1, 5, "Wiktor", 1, 10, 1),
        Row(2, 2, "Bartek", 0, 0, 1),  # played to a zero balance
        Row(3, 6, "Zenon", 0, -10, 1),  # lost every game, and still ahead of who never played
        Row(4, 1, "Anna", 0, 0, 0, status=Status.UNPLACED),  # no games: zeros, no place (issue 37)
    ]


def test_a_deduction_neither_places_a_player_without_games_nor_hides_its_stage() -> None:
    players = {1: "Anna", 2: "Bartek", 3: "Celina"}
    deductions = [
        Score(2, "eliminacje", -1, 0, game=False),
        Score(3, "eliminacje", -2, 0, game=False),
    ]
    scores = [*game(a=(1, 10), b=(0, -10)), *deductions]
    rows = standings(players, scores, rules=TOURNAMENT)
    assert [(r.place, r.player, r.big, r.status, r.deductions) for r in rows] == [
        (1, 1, 1, Status.CLASSIFIED, ()),
        (2, 2, -1, Status.CLASSIFIED, (Deduction("eliminacje", 1),)),
        (3, 3, -2, Status.UNPLACED, (Deduction("eliminacje", 2),)),
    ]


def test_no_scores_at_all_puts_everyone_on_first_place_in_name_order() -> None:
    rows = standings({2: "Łucja", 1: "Lucyna", 3: "Zofia", 4: "Ewa"}, [], rules=LEAGUE)
    assert [(r.place, r.name, r.games) for r in rows] == [
        (1, "Ewa", 0),
        (1, "Lucyna", 0),
        (1, "Łucja", 0),  # Ł after all of L, not beside it
        (1, "Zofia", 0),
    ]


@pytest.mark.parametrize(
    ("names", "ordered"),
    [
        (["Łukasz", "Lucyna", "Marek"], ["Lucyna", "Łukasz", "Marek"]),  # Ł is a letter after L
        (["Żaneta", "Zuzanna", "Źdźisław"], ["Zuzanna", "Źdźisław", "Żaneta"]),  # z, ź, ż
        (["Ścibor", "Szymon", "Sabina"], ["Sabina", "Szymon", "Ścibor"]),  # ś after every s
        (["ćma", "Cezary", "Dorota"], ["Cezary", "ćma", "Dorota"]),  # case does not matter
        (
            ["Anna Nowak", "Anna-Maria", "Annabel"],
            ["Anna Nowak", "Anna-Maria", "Annabel"],
        ),  # marks first
        (
            ["Émile", "Ewa", "Dawid"],
            ["Dawid", "Émile", "Ewa"],
        ),  # a foreign accent is its base letter
    ],
)
def test_names_sort_in_polish_alphabetical_order(names: list[str], ordered: list[str]) -> None:
    assert sorted(names, key=collation_key) == ordered


def test_a_score_of_a_player_who_is_not_enrolled_is_an_error() -> None:
    with pytest.raises(ValueError, match="player 99, who is not enrolled"):
        standings(PLAYERS, [Score(99, "eliminacje", 1, 10)], rules=TOURNAMENT)


@pytest.mark.parametrize(
    "tie_breaks",
    [
        (),  # no criterion at all
        (BIG, SMALL, BIG),  # one twice
    ],
)
def test_tie_breaks_must_be_given_each_once(tie_breaks: tuple[TieBreak, ...]) -> None:
    with pytest.raises(ValueError, match="each one once"):
        standings(PLAYERS, [], rules=TOURNAMENT, tie_breaks=tie_breaks)


# Properties over random tournaments: players, games at 2-4 seats, two stages.
ids = st.lists(st.integers(1, 40), min_size=1, max_size=12, unique=True)
tie_break_orders = st.permutations(list(TieBreak)).flatmap(
    lambda order: st.integers(1, len(order)).map(lambda n: tuple(order[:n]))
)


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[dict[int, str], list[Score]]:
    players = {p: draw(st.sampled_from(["Anna", "Łucja", "Lucyna", "Ewa"])) for p in draw(ids)}
    scores = []
    for _ in range(draw(st.integers(0, 12))):
        seats = draw(
            st.lists(st.sampled_from(sorted(players)), min_size=1, max_size=4, unique=True)
        )
        stage = draw(st.sampled_from(["eliminacje", "finał"]))
        for p in seats:
            scores.append(
                Score(
                    p,
                    stage,
                    draw(st.integers(0, 4)),
                    draw(st.integers(-200, 200)),
                    draw(st.booleans()),
                )
            )
    return players, scores


@pytest.mark.slow  # many whole tournaments
@given(tournaments(), tie_break_orders, st.sampled_from(["tournament", "league"]))
def test_places_are_competition_ranks(
    tournament: tuple[dict[int, str], list[Score]], tie_breaks: tuple[TieBreak, ...], rules: str
) -> None:
    players, scores = tournament
    rule_set = RULE_SETS[rules]
    rows = standings(players, scores, rules=rule_set, tie_breaks=tie_breaks)
    wins = Counter(s.player for s in scores if s.won)

    def merit(row: Row) -> tuple[int, ...]:
        value = {BIG: row.big, SMALL: rule_set.winner_sign * row.small, WINS: wins[row.player]}
        return tuple(value[t] for t in tie_breaks)

    assert sorted(r.player for r in rows) == sorted(players)
    assert rows[0].place == 1
    placed = [r for r in rows if r.games]
    assert rows[: len(placed)] == placed  # who has no game comes after everyone who has one
    for row in rows:
        assert 1 <= row.place <= len(rows)
        assert row.status is (Status.CLASSIFIED if row.games else Status.UNPLACED)
    for row in placed:
        assert row.place - 1 == sum(merit(other) > merit(row) for other in placed)
    assert [r.place for r in rows] == sorted(r.place for r in rows)


@given(tournaments(), st.sets(st.sampled_from(["eliminacje", "finał"])) | st.none())
def test_totals_are_the_sums_of_the_counted_scores(
    tournament: tuple[dict[int, str], list[Score]], stages: set[str] | None
) -> None:
    players, scores = tournament
    counted = [s for s in scores if stages is None or s.stage in stages]
    rows = standings(players, scores, rules=TOURNAMENT, stages=stages)
    for row in rows:
        mine = [s for s in counted if s.player == row.player]
        assert (row.name, row.big, row.small, row.games) == (
            players[row.player],
            sum(s.big for s in mine),
            sum(s.small for s in mine),
            len(mine),
        )


@pytest.mark.slow  # many whole tournaments
@given(tournaments(), tie_break_orders, st.randoms(use_true_random=False))
def test_order_does_not_depend_on_the_order_of_the_input(
    tournament: tuple[dict[int, str], list[Score]],
    tie_breaks: tuple[TieBreak, ...],
    rng: random.Random,
) -> None:
    players, scores = tournament
    shuffled_scores = scores[:]
    rng.shuffle(shuffled_scores)
    shuffled_players = dict(rng.sample(sorted(players.items()), len(players)))
    assert standings(
        shuffled_players, shuffled_scores, rules=LEAGUE, tie_breaks=tie_breaks
    ) == standings(players, scores, rules=LEAGUE, tie_breaks=tie_breaks)


@pytest.mark.slow  # many whole tournaments
@given(tournaments())
def test_league_and_tournament_rank_small_points_the_opposite_way(
    tournament: tuple[dict[int, str], list[Score]],
) -> None:
    players, scores = tournament
    flipped = [Score(s.player, s.stage, s.big, -s.small, s.won) for s in scores]
    league = standings(players, scores, rules=LEAGUE)
    tournament_rows = standings(players, flipped, rules=TOURNAMENT)
    assert [(r.place, r.player) for r in league] == [(r.place, r.player) for r in tournament_rows]


def test_the_judge_breaks_a_tie_and_the_rest_still_share() -> None:
    rows = [
        Row(1, 7, "Ala", 4, -10, 6),
        Row(2, 3, "Ola", 2, -5, 6),
        Row(2, 9, "Ela", 2, -5, 6),
        Row(2, 5, "Iza", 2, -5, 6),
        Row(5, 1, "Uma", 0, 20, 6),
    ]
    settled = break_ties(rows, [9])  # a play-off: Ela goes on
    assert [(r.place, r.player) for r in settled] == [
        (1, 7),
        (2, 9),
        (3, 3),
        (3, 5),
        (5, 1),
    ]
    assert break_ties(rows, []) == rows  # nothing decided: nothing changes
    full = break_ties(rows, [5, 3, 9])
    assert [(r.place, r.player) for r in full] == [(1, 7), (2, 5), (3, 3), (4, 9), (5, 1)]
