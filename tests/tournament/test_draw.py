"""Draws: every player seated once a round at balanced tables of 3–4, the same draw from the
same seed, and no repeat opponents where a design allows none."""

from __future__ import annotations

import collections
import itertools
import json
import subprocess
import sys
from pathlib import Path
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from klik_hub.tournament.draw import (
    Apart,
    DrawError,
    _Keep,
    _Search,
    draw_round,
    draw_rounds,
    repeated_pairs,
    repeats,
    same_label,
    table_sizes,
)

KLIK = str(Path(sys.executable).parent / "klik")


@pytest.mark.parametrize(
    ("players", "sizes"),
    [
        (3, (3,)),  # the smallest table
        (4, (4,)),
        (6, (3, 3)),
        (7, (4, 3)),
        (16, (4, 4, 4, 4)),
        (17, (4, 4, 3, 3, 3)),  # 5 tables: 4 tables would need a fifth seat
        (37, (4,) * 7 + (3,) * 3),  # the example: 7 × 4 + 3 × 3
        (400, (4,) * 100),
    ],
)
def test_tables_hold_three_or_four_and_differ_by_at_most_one(
    players: int, sizes: tuple[int, ...]
) -> None:
    assert table_sizes(players) == sizes


@pytest.mark.parametrize(
    ("players", "message"),
    [
        (0, "0 players: a table needs at least 3"),
        (1, "1 player: a table needs at least 3"),  # one player, not "1 players"
        (2, "2 players: a table needs at least 3"),
        (5, "5 players cannot sit at tables of 3–4: allowed are 3, 4 or 6 and more"),
    ],
)
def test_a_field_that_fits_no_tables_is_refused_in_one_line(players: int, message: str) -> None:
    with pytest.raises(DrawError) as raised:
        table_sizes(players)
    assert str(raised.value) == message


def test_a_player_listed_twice_or_no_round_is_refused() -> None:
    with pytest.raises(DrawError, match="a player is listed twice"):
        draw_round(["Ala", "Ola", "Ala", "Ela"], [], seed=1)
    with pytest.raises(DrawError, match="0 rounds: allowed are 1 or more"):
        draw_rounds(8, 0, seed=1)


fields = st.integers(3, 60).filter(lambda n: n != 5)


@settings(max_examples=60, deadline=None)
@given(players=fields, rounds=st.integers(1, 4), seed=st.integers(0, 2**63 - 1))
def test_every_player_sits_once_a_round_at_balanced_tables(
    players: int, rounds: int, seed: int
) -> None:
    drawn = draw_rounds(players, rounds, seed)
    assert len(drawn) == rounds
    for one in drawn:
        seated = [p for table in one for p in table]
        assert sorted(seated) == list(range(1, players + 1))  # everyone, exactly once
        sizes = [len(table) for table in one]
        assert sizes == list(table_sizes(players))  # 3–4, balanced, fours first
    assert draw_rounds(players, rounds, seed) == drawn  # the seed gives the draw again


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_sixteen_players_meet_everyone_once_in_five_rounds(seed: int) -> None:
    # 16 players at 4 tables meet 3 new opponents a round: 15 opponents in 5 rounds exactly, so
    # the draw must be a complete design (the affine plane of order 4).
    drawn = draw_rounds(16, 5, seed)
    assert repeats(drawn) == 0
    met = {
        frozenset(pair)
        for one in drawn
        for table in one
        for pair in itertools.combinations(table, 2)
    }
    assert len(met) == 16 * 15 // 2


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_round_by_round_with_look_ahead_also_reaches_five_clean_rounds(seed: int) -> None:
    # The hub draws a round when the last one is over; planning the stage's later rounds with
    # it keeps room for them. Without look-ahead most seeds end with repeats in round 4 or 5.
    players = [f"p{k}" for k in range(16)]
    earlier: list[tuple[tuple[str, ...], ...]] = []
    for k in range(5):
        earlier.append(draw_round(players, earlier, seed + k, ahead=4 - k))
    assert repeats(earlier) == 0


@pytest.mark.slow  # draws searched to the least repeats
@pytest.mark.parametrize(
    ("players", "rounds", "least"),
    [
        (9, 4, 0),  # the affine plane of order 3: everyone meets everyone once
        (20, 4, 0),
        (37, 3, 0),
        # After round 1, any table of 4 among 3 tables of 4 holds two players who met (3 earlier
        # tables, 4 seats): one repeat per table per later round at the least. 6 repeats make
        # three pairs meet three times ((3 − 1)² each: 12); 9 pairs meeting twice weigh 9.
        (12, 3, 9),
        (10, 2, 1),  # the table of 4 in round 2 takes two from one of round 1's three tables
    ],
)
def test_repeats_are_kept_at_the_least_there_can_be(players: int, rounds: int, least: int) -> None:
    for seed in range(5):
        assert repeats(draw_rounds(players, rounds, seed)) == least


def test_a_round_avoids_the_opponents_of_earlier_rounds() -> None:
    players = list(range(100))
    earlier = [draw_round(players, [], seed=s) for s in range(8)]
    assert repeats(earlier) > 0  # drawn independently, the earlier rounds do repeat...
    before = repeats(earlier)
    after = repeats([*earlier, draw_round(players, earlier, seed=99)])
    assert after == before  # ...but the new round adds no repeat of its own


def test_seat_letters_are_drawn_too() -> None:
    firsts = {draw_rounds(8, 1, seed)[0][0][0] for seed in range(30)}
    assert len(firsts) > 3  # seat A of table 1 is not always the same kind of player


def test_repeats_count_each_meeting_too_many() -> None:
    one = ((1, 2, 3),)
    assert repeats([one]) == 0
    assert repeats([one, one]) == 3  # three pairs met twice
    assert repeats([one, one, one]) == 6  # and each a third time


def test_klik_draw_prints_the_draw_as_json() -> None:
    done = subprocess.run(
        [KLIK, "draw", "--players", "37", "--rounds", "3", "--seed", "2026"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    printed = json.loads(done.stdout)
    assert printed == {
        "seed": 2026,
        "rounds": [[list(t) for t in one] for one in draw_rounds(37, 3, 2026)],
        "repeated_pairs": [[], [], []],  # each round's: none
        "same_club": [[], [], []],
        "same_family": [[], [], []],
    }
    assert done.stderr == (
        "klik draw: 37 players, 10 tables (7 × 4 + 3 × 3), 3 rounds, seed 2026: 0 repeated pairs\n"
    )


def test_klik_draw_counts_one_table_and_one_round_in_the_singular() -> None:
    # The summary's counts are plurals from the catalogue (nwords): never "1 rounds".
    done = subprocess.run(
        [KLIK, "draw", "--players", "3", "--rounds", "1", "--seed", "1"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stderr == (
        "klik draw: 3 players, 1 table (0 × 4 + 1 × 3), 1 round, seed 1: 0 repeated pairs\n"
    )


def test_klik_draw_with_clubs_keeps_them_apart_and_says_where_it_could_not(
    tmp_path: Path,
) -> None:
    # 10 players at 3 tables: 4 of KS Orzeł cannot all sit apart (one pair a round at the
    # least); the Nowaks, a family, never sit together; player 6 has no club.
    clubs = tmp_path / "clubs.csv"
    clubs.write_text(
        "# number;club;family\n1;KS Orzeł\n2;KS Orzeł\n3,KS Orzeł\n7\tKS Orzeł\n\n"
        "4;SP 12;Nowakowie\n5;SP 12;Nowakowie\n6;\n",
        encoding="utf-8",
    )
    args = ["--players", "10", "--rounds", "3", "--seed", "7", "--clubs", str(clubs)]
    done = subprocess.run([KLIK, "draw", *args], capture_output=True, text=True, check=True)
    printed = json.loads(done.stdout)
    orzel = {1, 2, 3, 7}
    for one, same, family in zip(
        printed["rounds"], printed["same_club"], printed["same_family"], strict=True
    ):
        together = [t for t in one if len(orzel & set(t)) > 1]
        assert [(x["table"], x["club"], set(x["players"])) for x in same] == [
            (one.index(t) + 1, "KS Orzeł", orzel & set(t)) for t in together
        ]
        assert sum(len(orzel & set(t)) - 1 for t in together) == 1  # the least there can be
        assert family == []
        assert all({4, 5} - set(t) for t in one)
    lines = done.stderr.splitlines()
    assert lines[0].startswith("klik draw: 10 players, 3 tables (1 × 4 + 2 × 3), 3 rounds")
    for k, same in enumerate(printed["same_club"], 1):
        x = same[0]
        shown = ", ".join(map(str, x["players"]))
        assert f"klik draw: round {k}, table {x['table']}: {shown} of one club (KS Orzeł)" in lines
    for k, pairs in enumerate(printed["repeated_pairs"], 1):
        if pairs:
            shown = ", ".join("{}–{}".format(*x["players"]) for x in pairs)
            assert f"klik draw: round {k}: repeated pairs {shown}" in lines


def test_klik_draw_refuses_a_clubs_file_it_cannot_read_in_one_line(tmp_path: Path) -> None:
    clubs = tmp_path / "clubs.csv"
    clubs.write_text("1;Orzeł\n11;Znicz\n", encoding="utf-8")
    args = ["--players", "10", "--rounds", "1", "--clubs", str(clubs)]
    done = subprocess.run([KLIK, "draw", *args], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"klik draw: {clubs}:2: '11;Znicz': allowed is NUMBER;CLUB or NUMBER;CLUB;FAMILY, "
        "NUMBER from 1 to 10\n"
    )


def test_klik_draw_without_a_seed_prints_the_one_it_drew() -> None:
    done = subprocess.run(
        [KLIK, "draw", "--players", "8", "--rounds", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    seed = json.loads(done.stdout)["seed"]
    assert 0 <= seed < 1_000_000
    assert f"seed {seed}:" in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--players", "5", "--rounds", "1"],
            "klik draw: 5 players cannot sit at tables of 3–4: allowed are 3, 4 or 6 and more\n",
        ),
        (
            ["--players", "2", "--rounds", "1"],
            "klik draw: argument --players: 2: allowed are 3 to 10000 (see klik draw --help)\n",
        ),
        (
            ["--players", "8", "--rounds", "0"],
            "klik draw: argument --rounds: 0: allowed are 1 to 100 (see klik draw --help)\n",
        ),
        (
            ["--players", "8", "--rounds", "1", "--seed", "-1"],
            "klik draw: argument --seed: -1: allowed are 0 to 9223372036854775807 (see klik draw --help)\n",
        ),
        (
            ["--players", "8"],
            "klik draw: the following arguments are required: --rounds (see klik draw --help)\n",
        ),
        (
            ["--players", "8", "--rounds", "1", "--clubs-weight", "11"],
            "klik draw: argument --clubs-weight: 11: allowed are 0 to 10 (see klik draw --help)\n",
        ),
    ],
)
def test_a_bad_klik_draw_says_what_is_allowed_in_one_line(args: list[str], message: str) -> None:
    done = subprocess.run([KLIK, "draw", *args], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)


# --- keeping players apart, and what a repeat weighs (issue 20.4) ----------------------------


@st.composite
def fields_with_clubs(draw: st.DrawFn) -> tuple[int, dict[int, str]]:
    """A field and each player's club (some have none), clubs of any size."""
    players = draw(fields)
    clubs = draw(
        st.lists(
            st.sampled_from(["", "Orzeł", "SP 12", "Znicz", "UKS"]),
            min_size=players,
            max_size=players,
        )
    )
    return players, dict(enumerate(clubs, 1))


def least_pairs(counts: list[int], tables: int) -> int:
    """Pairs of one label at one table when each label's players spread as evenly as they go."""
    total = 0
    for count in counts:
        per, extra = divmod(count, tables)
        total += extra * (per + 1) * per // 2 + (tables - extra) * per * (per - 1) // 2
    return total


def pairs_of_one(one: tuple[tuple[int, ...], ...], labels: dict[int, str]) -> int:
    return sum(
        1
        for table in one
        for a, b in itertools.combinations(table, 2)
        if labels.get(a) and labels.get(a) == labels.get(b)
    )


@settings(max_examples=60, deadline=None)
@given(
    field=fields_with_clubs(), seed=st.integers(0, 2**63 - 1), weight=st.sampled_from([0.5, 1, 10])
)
def test_a_round_keeps_clubs_as_far_apart_as_the_tables_allow(
    field: tuple[int, dict[int, str]], seed: int, weight: float
) -> None:
    players, clubs = field
    drawn = draw_rounds(players, 1, seed, apart=Apart(clubs, clubs_weight=weight))[0]
    tables = len(table_sizes(players))
    counts = [list(clubs.values()).count(c) for c in set(clubs.values()) if c]
    assert pairs_of_one(drawn, clubs) == least_pairs(counts, tables)


@settings(max_examples=25, deadline=None)
@given(
    players=fields,
    rounds=st.integers(1, 4),
    seed=st.integers(0, 2**63 - 1),
    data=st.data(),
)
def test_families_never_share_a_table_while_the_tables_allow_it(
    players: int, rounds: int, seed: int, data: st.DataObject
) -> None:
    tables = len(table_sizes(players))
    # Families of 2 to as many as there are tables, and clubs that pull the other way.
    people = data.draw(st.permutations(range(1, players + 1)))
    sizes = data.draw(st.lists(st.integers(2, max(2, min(tables, 4))), max_size=4))
    families: dict[int, str] = {}
    for k, size in enumerate(sizes):
        for p in people[len(families) : len(families) + size]:
            families[p] = f"rodzina {k}"
    clubs = dict.fromkeys(people[: players // 2], "Orzeł")
    apart = Apart(clubs, families, clubs_weight=data.draw(st.sampled_from([0, 0.5, 10])))
    drawn = draw_rounds(players, rounds, seed, apart=apart)
    if tables >= 2:
        assert all(same_label(one, families) == [] for one in drawn)


@settings(max_examples=100, deadline=None)
@given(
    players=st.integers(6, 20).filter(lambda n: n != 5),
    rounds=st.integers(1, 4),
    seed=st.integers(0, 2**32),
    weight=st.sampled_from([0, 0.5, 1, 3]),
    data=st.data(),
)
def test_the_search_weighs_each_swap_as_the_whole_cost_does(
    players: int, rounds: int, seed: int, weight: float, data: st.DataObject
) -> None:
    # The search adds up each swap's change of cost (the hot loop, _deltas); it must be what
    # the whole cost says before and after: (m − 1)² a pair that met m times, in hundredths,
    # plus the clubs' and families' pairs at one table.
    labels = st.sampled_from(["", "a", "b", "c"])
    clubs = {p: data.draw(labels) for p in range(players)}
    families = {p: data.draw(labels) for p in range(players)}
    keep = _Keep.of(list(range(players)), Apart(clubs, families, clubs_weight=weight))
    rng = Random(seed)
    search = _Search(players, table_sizes(players), rounds, rng, keep=keep)
    for one in search.tables:
        for table in one:
            search.met(table)
    for _ in range(20):
        r, a = rng.randrange(rounds), rng.randrange(players)
        others = [p for p in range(players) if search.where[r][p] != search.where[r][a]]
        if not others:
            return
        b = rng.choice(others)
        before, delta = search._cost(), search._delta(r, a, b)
        search._swap(r, a, b, set())
        assert search._cost() - before == delta


def test_repeat_weights_square_the_meetings() -> None:
    search = _Search(6, (3, 3), 1, Random(1), keep=_Keep.of(list(range(6)), None))
    for table in ([0, 1, 2], [0, 1], [0, 1, 2], [3, 4, 5], [3, 4, 5]):
        search.met(table)
    # 0–1 met three times: (3 − 1)² = 4; 0–2, 1–2, 3–4, 3–5 and 4–5 twice: 1 each.
    assert search._cost() == (4 + 5 * 1) * 100


def test_a_third_meeting_weighs_more_than_two_second_ones() -> None:
    # 12 players at 3 tables over 3 rounds: the fewest repeats (6) make three pairs meet three
    # times; the draw seats nine pairs together twice instead, and none three times.
    for seed in range(3):
        drawn = draw_rounds(12, 3, seed)
        met = collections.Counter(
            frozenset(pair) for one in drawn for t in one for pair in itertools.combinations(t, 2)
        )
        assert max(met.values()) == 2
        assert repeats(drawn) == 9


def test_clubs_weigh_against_repeats_as_the_judge_sets() -> None:
    # 16 players of 4 clubs of 4 over 5 rounds: without clubs the affine plane seats everyone
    # with everyone once; a heavy weight keeps every club apart at the price of repeats (a
    # player who never meets their 3 club-mates has 12 opponents for 15 seats).
    clubs = {p: "ABCD"[(p - 1) // 4] for p in range(1, 17)}
    free = draw_rounds(16, 5, 1, apart=Apart(clubs, clubs_weight=0))
    assert repeats(free) == 0
    assert sum(pairs_of_one(one, clubs) for one in free) == 4 * 6  # each club's 6 pairs once
    apart = draw_rounds(16, 5, 1, apart=Apart(clubs, clubs_weight=10))
    assert sum(pairs_of_one(one, clubs) for one in apart) == 0
    assert repeats(apart) > 0


@settings(max_examples=40, deadline=None)
@given(players=fields, rounds=st.integers(1, 5), seed=st.integers(0, 2**63 - 1))
def test_seat_a_goes_to_a_player_who_has_started_the_fewest_first_games(
    players: int, rounds: int, seed: int
) -> None:
    drawn = draw_rounds(players, rounds, seed)
    starts = collections.Counter[int]()
    for one in drawn:
        for table in one:
            assert starts[table[0]] == min(starts[p] for p in table)
        starts.update(table[0] for table in one)


def test_a_round_drawn_after_others_balances_seat_a_with_them() -> None:
    players = list(range(1, 17))
    earlier = [draw_round(players, [], seed=1)]
    started = {table[0] for table in earlier[0]}
    second = draw_round(players, earlier, seed=2)
    assert not started & {table[0] for table in second}  # every table has one who has not


def test_repeated_pairs_and_same_club_tables_say_who_and_where() -> None:
    earlier = [((1, 2, 3), (4, 5, 6)), ((1, 2, 4), (3, 5, 6))]
    drawn = ((1, 2, 6), (4, 5, 3))
    assert repeated_pairs(earlier, drawn) == [
        (1, 1, 2, 3),  # table 1: 1 and 2 meet a third time
        (2, 4, 5, 2),  # table 2: 4 and 5 met in round 1, 5 and 3 in round 2
        (2, 5, 3, 2),
    ]
    clubs = {1: "Orzeł", 2: "Znicz", 6: "Orzeł", 4: "Orzeł", 5: "", 3: "Orzeł"}
    assert same_label(drawn, clubs) == [(1, "Orzeł", (1, 6)), (2, "Orzeł", (4, 3))]


def test_a_clubs_weight_outside_0_to_10_is_refused_in_one_line() -> None:
    with pytest.raises(DrawError, match=r"^clubs weight 11: allowed are 0 to 10$"):
        Apart(clubs_weight=11)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_thirty_two_players_at_tables_of_four(seed: int) -> None:
    # The social golfers (CSPLib 10): 32 players at 8 tables of 4 meet no one twice in 9
    # rounds, from a partial spread of GF(2)^5, and in 10, from the schedule kept in
    # golfers.py: each player meets all 31 others but one.
    assert repeats(draw_rounds(32, 9, seed)) == 0
    drawn = draw_rounds(32, 10, seed)
    assert repeats(drawn) == 0
    met = {frozenset(p) for one in drawn for t in one for p in itertools.combinations(t, 2)}
    assert len(met) == 10 * 8 * 6
    starts = collections.Counter[int]()
    for one in drawn:  # seat A as ever: to whom has started the fewest first games
        for table in one:
            assert starts[table[0]] == min(starts[p] for p in table)
        starts.update(table[0] for table in one)


@pytest.mark.slow  # about a second each: the search's whole budget
@pytest.mark.parametrize(
    ("rounds", "least"),
    [
        (11, 32),  # 11 × 48 meetings for 496 pairs: 32 too many, the schedule's 10 begin it
        (12, 80),
    ],
)
def test_thirty_two_players_over_more_rounds_repeat_no_more_than_they_must(
    rounds: int, least: int
) -> None:
    for seed in range(2):
        assert repeats(draw_rounds(32, rounds, seed)) == least
