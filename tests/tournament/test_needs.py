"""A player's needs (issue 40): the JSON object and the CSV words, and fixed tables honoured
by the draw through whole tournaments of every format, repeats still avoided."""

from __future__ import annotations

from pathlib import Path
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from klik_hub.tournament.draw import FixedTablesError, draw_round, repeats, table_sizes
from klik_hub.tournament.formats import (
    Format,
    Qualify,
    Tables,
    load_format,
    preset_names,
    seat_stage,
)
from klik_hub.tournament.needs import (
    Needs,
    NeedsError,
    fixed_tables,
    from_json,
    from_words,
)
from klik_hub.tournament.roster import RosterError, from_csv
from klik_hub.tournament.roster import from_json as roster_json
from klik_hub.tournament.standings import Row

Drawn = tuple[tuple[int, ...], ...]


def table_of(tables: Drawn, player: int) -> int:
    return next(k for k, table in enumerate(tables, 1) if player in table)


# --- the JSON object and the CSV words ---------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "needs"),
    [
        ("", Needs()),  # none
        ("vibration", Needs(vibration=True)),
        ("quiet, large", Needs(large=True, quiet=True)),  # any order, spaces ignored
        ("vibration,large,quiet,table=3", Needs(True, True, True, 3)),  # the example
        ("TABLE=12", Needs(fixed_table=12)),  # as a spreadsheet may capitalise it
    ],
)
def test_csv_words_read_and_write_back(cell: str, needs: Needs) -> None:
    assert from_words(cell, "line 2") == needs
    assert from_words(needs.words(), "line 2") == needs  # the words written read back


@pytest.mark.parametrize(
    "word",
    [
        "loud",  # no such need
        "table=0",  # tables start at 1
        "table=1000",  # above a hall's 999
        "table=x",
        "table=" + "9" * 5000,  # refused at once, never int() of 5000 digits
        "large,large",  # each once
    ],
)
def test_a_bad_csv_word_is_one_line_naming_the_row_and_the_word(word: str) -> None:
    with pytest.raises(NeedsError) as raised:
        from_words(word, "line 7")
    said = str(raised.value)
    assert said.startswith("line 7: needs ")
    assert said.endswith("allowed are vibration, large, quiet, table=1 to 999, each once")
    assert "\n" not in said


def test_a_players_csv_carries_needs_in_a_quoted_cell() -> None:
    text = 'name,club,needs\nAla,SP 1,"vibration,table=2"\nOla,SP 2,\n'
    ala, ola = from_csv(text)
    assert ala.needs == Needs(vibration=True, fixed_table=2)
    assert ola.needs == Needs()
    with pytest.raises(RosterError, match=r"^line 3: needs 'table=two': allowed are"):
        from_csv('name;potrzeby\nAla;large\nOla;"quiet,table=two"\n')


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        (
            {"loud": True},
            "players[0].needs: unknown field 'loud'; allowed: vibration, large, quiet, fixed_table",
        ),
        ({"large": "yes"}, "players[0].needs.large: allowed are true, false"),
        ({"fixed_table": 0}, "players[0].needs.fixed_table: allowed are a table 1 to 999, or null"),
        (
            {"fixed_table": True},
            "players[0].needs.fixed_table: allowed are a table 1 to 999, or null",
        ),
        ([], "players[0].needs: allowed is an object of vibration, large, quiet, fixed_table"),
    ],
)
def test_a_bad_needs_object_at_enrolment_is_one_line(sent: object, message: str) -> None:
    with pytest.raises(RosterError) as raised:
        roster_json([{"name": "Ala", "needs": sent}])
    assert str(raised.value) == message


def test_a_needs_object_may_give_any_of_its_keys() -> None:
    (ala,) = roster_json([{"name": "Ala", "needs": {"quiet": True, "fixed_table": 4}}])
    assert ala.needs == Needs(quiet=True, fixed_table=4)
    assert from_json({"fixed_table": None}, "needs", ala.needs) == Needs(quiet=True)
    assert ala.needs.json() == {"vibration": False, "large": False, "quiet": True,
                                "fixed_table": 4}  # fmt: skip
    assert Needs(True, True, True).seat() == ("large", "quiet", "vibration")  # the wire's order


# --- the draw: random stages ----------------------------------------------------------------


@st.composite
def fields_with_fixed(draw: st.DrawFn) -> tuple[int, dict[int, int]]:
    """A field of 16 to 40 players and one to three of them fixed to different tables."""
    n = draw(st.integers(16, 40))
    tables = len(table_sizes(n))
    numbers = draw(st.lists(st.integers(1, tables), min_size=1, max_size=3, unique=True))
    players = draw(st.lists(st.integers(1, n), min_size=len(numbers), max_size=len(numbers),
                            unique=True))  # fmt: skip
    return n, dict(zip(players, numbers, strict=True))


@settings(max_examples=25, deadline=None)
@given(field=fields_with_fixed(), seed=st.integers(0, 2**63 - 1))
def test_a_fixed_player_sits_at_their_table_every_round_and_no_pair_repeats(
    field: tuple[int, dict[int, int]], seed: int
) -> None:
    n, fixed = field
    players = list(range(1, n + 1))
    earlier: list[Drawn] = []
    for k in range(3):
        one = draw_round(players, earlier, seed + k, ahead=2 - k, fixed=fixed)
        assert sorted(p for table in one for p in table) == players
        assert [len(table) for table in one] == list(table_sizes(n))  # fours first, as ever
        assert {p: table_of(one, p) for p in fixed} == fixed
        earlier.append(one)
    assert repeats(earlier) == 0  # 16 or more players part every pair over three rounds
    again = [draw_round(players, earlier[:k], seed + k, ahead=2 - k, fixed=fixed) for k in range(3)]
    assert again == earlier  # the seed gives the draw again


def test_fourteen_players_of_an_open_tournament_with_two_fixed_repeat_no_pair_in_three_rounds(
) -> None:  # fmt: skip
    fixed = {3: 2, 11: 4}  # the case: 14 players at 4 + 4 + 3 + 3
    players = list(range(1, 15))
    for seed in range(20):
        earlier: list[Drawn] = []
        for k in range(3):
            # Open play draws one round at a time, knowing nothing of the next.
            earlier.append(draw_round(players, earlier, seed * 7 + k, fixed=fixed))
            assert {p: table_of(earlier[-1], p) for p in fixed} == fixed
        assert repeats(earlier) == 0, (seed, earlier)


def test_a_design_is_numbered_for_a_fixed_player() -> None:
    # 16 players in 5 rounds meet everyone once only as the affine plane: still, with a player
    # fixed, every round's tables are numbered so that they sit at theirs.
    players = list(range(1, 17))
    earlier: list[Drawn] = []
    for k in range(5):
        earlier.append(draw_round(players, earlier, 40 + k, ahead=4 - k, fixed={6: 3}))
    assert [table_of(one, 6) for one in earlier] == [3] * 5
    assert repeats(earlier) == 0


@pytest.mark.parametrize(
    ("fixed", "named"),
    [
        ({1: 5}, [(1, 5)]),  # 14 players sit at 4 tables: there is no table 5
        ({1: 3, 2: 3, 4: 3, 5: 3}, [(1, 3), (2, 3), (4, 3), (5, 3)]),  # table 3 seats 3
    ],
)
def test_fixed_tables_a_random_round_cannot_honour_name_the_players(
    fixed: dict[int, int], named: list[tuple[int, int]]
) -> None:
    with pytest.raises(FixedTablesError) as raised:
        draw_round(list(range(1, 15)), [], seed=1, fixed=fixed)
    assert raised.value.players == tuple(named)
    assert raised.value.tables == 4


# --- the draw: seeded stages ----------------------------------------------------------------


def test_a_seeded_stages_tables_are_numbered_for_a_fixed_player_who_meets_the_same() -> None:
    semifinal = load_format("liga").stages[1]
    ranked = [Row(i, i, f"Gracz {i}", 100 - i, 0, 6) for i in range(1, 9)]
    tables = seat_stage(semifinal, ranked)
    assert tables == ((1, 3, 5, 7), (2, 4, 6, 8))
    assert fixed_tables(tables, {2: 1}) == ((2, 4, 6, 8), (1, 3, 5, 7))  # only renumbered
    assert fixed_tables(tables, {9: 2}) == tables  # a fixed player not in the stage
    three = ((1, 2, 3), (4, 5, 6), (7, 8, 9))
    assert fixed_tables(three, {8: 1}) == ((7, 8, 9), (1, 2, 3), (4, 5, 6))  # the rest in order


@pytest.mark.parametrize(
    ("fixed", "named"),
    [
        ({2: 3}, [(2, 3)]),  # the stage has 2 tables
        ({1: 1, 3: 2}, [(1, 1), (3, 2)]),  # one table, two numbers
        ({1: 2, 2: 2}, [(1, 2), (2, 2)]),  # two tables, one number
    ],
)
def test_fixed_tables_a_seeded_stage_cannot_honour_name_the_players(
    fixed: dict[int, int], named: list[tuple[int, int]]
) -> None:
    with pytest.raises(FixedTablesError) as raised:
        fixed_tables(((1, 3, 5, 7), (2, 4, 6, 8)), fixed)
    assert raised.value.players == tuple(named)


# --- whole tournaments ----------------------------------------------------------------------


def play(
    name: str, players: int, fixed: dict[int, int], order: dict[int, int], seed: int
) -> list[Drawn]:
    """Every round of format ``name`` drawn and seated as the hub does it, with ``fixed``
    tables: random stages by ``draw_round``, seeded ones by ``seat_stage`` and
    ``fixed_tables``; each seeded stage's standings shuffled, but for ``order`` (player ->
    where they stand: 0 first, -1 last)."""
    fmt, rng = load_format(name), Random(seed)
    field = list(range(1, players + 1))
    drawn: list[Drawn] = []
    for stage in fmt.stages:
        if stage.tables is Tables.RANDOM:
            rounds = stage.rounds or 3  # an open-ended stage: three rounds of it
            for k in range(rounds):
                ahead = rounds - k - 1
                drawn.append(draw_round(field, drawn, rng.randrange(10**6), ahead=ahead,
                                        fixed=fixed))  # fmt: skip
            continue
        rest = [p for p in field if p not in order]
        rng.shuffle(rest)
        for p, at in sorted(order.items(), key=lambda x: x[1], reverse=True):
            if p in field:
                rest.insert(at if at >= 0 else len(rest), p)
        ranked = [Row(i, p, f"Gracz {p}", 0, 0, 1) for i, p in enumerate(rest, 1)]
        if stage.qualify is Qualify.TOP:
            seated = seat_stage(stage, ranked)
        else:
            seated = seat_stage(stage, ranked, [list(t) for t in drawn[-1]])
        drawn.append(fixed_tables(seated, fixed))
        field = sorted(p for table in drawn[-1] for p in table)
    return drawn


@pytest.mark.parametrize("name", preset_names())
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_tournaments_of_every_format_seat_a_fixed_player_at_their_table(
    name: str, seed: int
) -> None:
    # Player 5, fixed to table 1, stands second wherever standings seat (so a seeded stage
    # would put them at table 2: the tables are renumbered); player 9, fixed to table 4,
    # stands last, so sits only in the random stages (16 players: 4 tables).
    fixed, order = {5: 1, 9: 4}, {5: 1, 9: -1}
    drawn = play(name, 16, fixed, order, seed)
    fmt = load_format(name)
    assert len(drawn) == sum(s.rounds or 3 for s in fmt.stages)  # to the last round
    for one in drawn:
        for player, table in fixed.items():
            if any(player in t for t in one):
                assert table_of(one, player) == table
    assert all(any(5 in t for t in one) for one in drawn)  # in every round to the final
    random_rounds = [one for one, s in zip(drawn, _stages(fmt), strict=True)
                     if s is Tables.RANDOM]  # fmt: skip
    assert repeats(random_rounds) == 0


def _stages(fmt: Format) -> list[Tables]:
    return [s.tables for s in fmt.stages for _ in range(s.rounds or 3)]


def test_the_readme_s_needs_csv_enrols_as_it_says() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("```text\nname,club,needs\n", 1)[1].split("```", 1)[0]
    ala, ola = from_csv("name,club,needs\n" + block)
    assert ala.needs == Needs(vibration=True, large=True, quiet=True, fixed_table=3)
    assert ala.needs.words() == "vibration,large,quiet,table=3"
    assert ola.needs == Needs()
