"""Formats as data (seeds 001 and 004) and the seating of seeded stages."""

from __future__ import annotations

import pytest

from klik.errors import KlikError
from klik.rules import RULE_SETS
from klik_hub.tournament.formats import (
    Classification,
    Format,
    FormatError,
    Qualify,
    SeedingError,
    Stage,
    Tables,
    load_format,
    parse_format,
    preset_names,
    seat_stage,
)
from klik_hub.tournament.reserves import CountsFor
from klik_hub.tournament.standings import Row, Score, TieBreak, standings

RANDOM, SEEDED = Tables.RANDOM, Tables.SEEDED
BIG_SMALL = (TieBreak.BIG, TieBreak.SMALL)


def ranked(n: int) -> list[Row]:
    """Standings of players 1..n on places 1..n, no ties."""
    return [Row(i, i, f"Gracz {i}", 100 - i, 0, 6) for i in range(1, n + 1)]


def test_the_presets_are_liga_open_and_szczecin() -> None:
    assert preset_names() == ("liga", "open", "szczecin")


def test_liga_is_seed_001() -> None:
    assert load_format("liga") == Format(
        name="liga",
        title_pl="Liga Rummikub",
        title_en="Rummikub league",
        rules=("pl-liga",),  # 001: 4/2/1/0, written losers plus
        tie_breaks=BIG_SMALL,
        players=(16, 36),  # ZASADY 1: "od 16 do 36 osób"
        first_starter="draw",  # PRZYGOTOWANIE GRY: the highest tile starts the first game
        late_may_qualify=False,  # ZASADY 2a: the semifinal compares six games each
        replacements=CountsFor.NOBODY,  # a reserve's games count for nobody
        stages=(
            # 3 rounds x 2 games at random balanced tables of 3-4
            Stage("eliminacje", 3, 2, RANDOM, title_en="preliminaries"),
            # the top 8 (or 6): table 1 = places 1, 3, 5, 7 and table 2 = 2, 4, 6, 8; 2 games
            Stage("półfinał", 1, 2, SEEDED, Qualify.TOP, field=(8, 6),
                  seating=(((1, 3, 5, 7), (2, 4, 6, 8)), ((1, 3, 5), (2, 4, 6))), title_en="semifinal"),
            # the top 2 of each semifinal table; 2 games
            Stage("finał", 1, 2, SEEDED, Qualify.TABLE, per_table=2, seating=(((1, 2, 3, 4),),),
                  title_en="final"),
        ),
    )  # fmt: skip
    assert load_format("liga").rule_set == RULE_SETS["league"]


def test_szczecin_is_seed_004() -> None:
    assert load_format("szczecin") == Format(
        name="szczecin",
        title_pl="Międzyszkolny Turniej Rummikub (Szczecin)",
        title_en="Inter-school Rummikub tournament (Szczecin)",
        rules=("pl-turniej",),  # 004 13-14: one big point for the winner
        first_starter="A",  # 004 6, 23: A starts, and a seeded table's best sits as A
        tie_breaks=BIG_SMALL,
        stages=(
            # final round I: 3 games at tables drawn by lot
            Stage("runda I finału", 1, 3, RANDOM, title_en="final, round I"),
            # the top 2 of each table, seated by standing, first place at A; 3 games
            Stage("runda II finału", 1, 3, SEEDED, Qualify.TABLE, per_table=2,
                  seating=(((1, 3, 5, 7), (2, 4, 6, 8)), ((1, 3, 5), (2, 4, 6))),
                  title_en="final, round II"),
            # the top 2 of each table again: the grand final of 3 games
            Stage("wielki finał", 1, 3, SEEDED, Qualify.TABLE, per_table=2, seating=(((1, 2, 3, 4),),),
                  title_en="grand final"),
        ),
    )  # fmt: skip
    assert load_format("szczecin").rule_set == RULE_SETS["tournament"]


def test_open_is_any_number_of_one_game_rounds_at_random_tables() -> None:
    assert load_format("open") == Format(
        name="open",
        title_pl="Turniej otwarty",
        title_en="Open tournament",
        rules=("pl-turniej", "any"),  # any set the hub knows, pl-turniej by default
        tie_breaks=BIG_SMALL,
        stages=(Stage("rozgrywki", 0, 1, RANDOM, title_en="open play"),),
        classification=Classification.ALL_ROUNDS,
        replacements=CountsFor.RESERVE,  # an evening's play: the games are whoever played them
    )


def test_liga_semifinal_seats_places_1_3_5_7_and_2_4_6_8() -> None:
    semifinal = load_format("liga").stages[1]
    assert seat_stage(semifinal, ranked(20)) == ((1, 3, 5, 7), (2, 4, 6, 8))


def test_liga_semifinal_of_six_when_the_judge_says_so_or_only_six_can_play() -> None:
    semifinal = load_format("liga").stages[1]
    six = ((1, 3, 5), (2, 4, 6))
    assert seat_stage(semifinal, ranked(20), field=6) == six
    assert seat_stage(semifinal, ranked(7)) == six


def test_szczecin_round_ii_takes_the_top_2_of_each_table_seated_by_standing() -> None:
    stage = load_format("szczecin").stages[1]
    # Player 10t + s sat at table t (1-4), seat s (1-4) of round I.
    tables = [[10 * t + s for s in range(1, 5)] for t in range(1, 5)]
    # Round I: at each table the first player won every game; small points set the order.
    smalls = {
        1: (90, -20, -30, -40),
        2: (60, -10, -20, -30),
        3: (45, -5, -15, -25),
        4: (99, -2, -47, -50),
    }
    players = {p: f"Gracz {p}" for table in tables for p in table}
    scores = [
        Score(10 * t + seat + 1, "runda I finału", int(seat == 0), small, seat == 0)
        for t, row in smalls.items()
        for seat, small in enumerate(row)
    ]
    rows = standings(players, scores, rules=RULE_SETS["tournament"], stages={"runda I finału"})
    # The eight by standing: 41 (99), 11 (90), 21 (60), 31 (45), 42 (-2), 32 (-5), 22 (-10), 12 (-20).
    assert seat_stage(stage, rows, tables) == ((41, 21, 42, 22), (11, 31, 32, 12))


def test_liga_final_takes_the_top_2_of_each_semifinal_table_by_big_then_small_points() -> None:
    final = load_format("liga").stages[2]
    semifinal_tables = ((1, 3, 5, 7), (2, 4, 6, 8))
    league = RULE_SETS["league"]
    players = {i: f"Gracz {i}" for i in range(1, 9)}
    # Table 1: players 7 and 5 go on (5 ahead of 3 on small points: fewer is better in the league).
    # Table 2: 2 and 8 go on.
    points = {
        1: (2, 10),
        3: (5, 3),
        5: (5, -8),
        7: (8, -30),
        2: (8, -20),
        4: (2, 5),
        6: (4, 4),
        8: (6, 1),
    }
    scores = [Score(p, "półfinał", big, small) for p, (big, small) in points.items()]
    rows = standings(players, scores, rules=league, stages={"półfinał"})
    assert seat_stage(final, rows, semifinal_tables) == ((7, 2, 8, 5),)


def test_a_tie_at_the_cut_is_left_to_the_judge() -> None:
    semifinal = load_format("liga").stages[1]
    rows = ranked(10)
    rows[8] = Row(8, 9, "Gracz 9", 92, 0, 6)  # player 9 shares 8th place with 8
    with pytest.raises(SeedingError) as error:
        seat_stage(semifinal, rows)
    assert (
        str(error.value)
        == "półfinał: Gracz 8 and Gracz 9 share place 8, where the best 8 go on: the judge breaks the tie"
    )
    # The judge draws 9 ahead: the standings come back with the tie broken.
    broken = [*rows[:7], rows[8], Row(9, 8, "Gracz 8", 92, 0, 6), rows[9]]
    assert seat_stage(semifinal, broken) == ((1, 3, 5, 7), (2, 4, 6, 9))


def test_a_tie_inside_the_qualifiers_only_orders_them() -> None:
    rows = ranked(8)
    rows[1] = Row(1, 2, "Gracz 2", 99, 0, 6)  # 1 and 2 share 1st place: both go on anyway
    semifinal = load_format("liga").stages[1]
    assert seat_stage(semifinal, rows) == ((1, 3, 5, 7), (2, 4, 6, 8))


@pytest.mark.parametrize(
    ("stage", "rows", "tables", "field", "message"),
    [
        # a random stage is drawn, not seated
        (0, ranked(8), (), None, "eliminacje: its tables are drawn at random, not seeded"),
        # the judge asks for a field the format does not have
        (1, ranked(8), (), 7, "półfinał: a field of 7: allowed are 8, 6"),
        # fewer players than the smallest field
        (1, ranked(5), (), None, "półfinał: 5 players ranked: it takes 8, 6"),
        # a field of 8 asked for, 7 players
        (1, ranked(7), (), 8, "półfinał: 7 players ranked: it takes 8, 6"),
        # a table of the previous stage with a player the standings lack
        (2, ranked(4), [[1, 2, 9]], None, "finał: player 9 of table 1 is not in the standings"),
        # three tables of the semifinal give 6 finalists: the final seats 4
        (2, ranked(9), [[1, 2, 3], [4, 5, 6], [7, 8, 9]], None, "finał: 6 players go on: the format seats 4"),
    ],
)  # fmt: skip
def test_a_stage_that_cannot_be_seated_says_why(
    stage: int, rows: list[Row], tables: list[list[int]], field: int | None, message: str
) -> None:
    with pytest.raises(SeedingError) as error:
        seat_stage(load_format("liga").stages[stage], rows, tables, field=field)
    assert str(error.value) == message


BASE = """\
name = "liga"
title_pl = "Liga"
title_en = "League"
rules = "pl-liga"
tie_breaks = ["big", "small"]
classification = "by_stage"

[[stages]]
name = "eliminacje"
title_en = "preliminaries"
rounds = 3
games_per_round = 2
tables = "random"

[[stages]]
name = "półfinał"
title_en = "semifinal"
rounds = 1
games_per_round = 2
tables = "seeded"
qualify = "top"
field = [8, 6]
seating.8 = [[1, 3, 5, 7], [2, 4, 6, 8]]
seating.6 = [[1, 3, 5], [2, 4, 6]]

[[stages]]
name = "finał"
title_en = "final"
rounds = 1
games_per_round = 2
tables = "seeded"
qualify = "table"
per_table = 2
seating.4 = [[1, 2, 3, 4]]
"""


def spoil(old: str, new: str, count: int = 1) -> str:
    assert BASE.count(old) >= count, old
    return BASE.replace(old, new, count)


def test_the_base_of_the_bad_cases_is_a_good_format() -> None:
    assert parse_format(BASE, "liga.toml").stages == load_format("liga").stages


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # not TOML at all
        (spoil('rules = "pl-liga"', "rules league"), "liga.toml: not TOML: Expected '=' after a key in a key/value pair (at line 4, column 7)"),
        # a missing key
        (spoil('title_en = "League"\n', ""), "liga.toml: title_en is missing: allowed is a text"),
        (spoil("rounds = 3\n", ""), "liga.toml: stages[0].rounds is missing: allowed are 0 to 20"),
        (spoil("per_table = 2\n", ""), "liga.toml: stages[2].per_table is missing: allowed are 1 to 3"),
        (spoil('qualify = "top"\n', ""), "liga.toml: stages[1].qualify is missing: allowed are top, table"),
        (spoil("field = [8, 6]\n", ""), "liga.toml: stages[1].field is missing: allowed is a list of sizes 2 to 64, each once"),
        (spoil("seating.4 = [[1, 2, 3, 4]]\n", ""), "liga.toml: stages[2].seating is missing: allowed are patterns by field size"),
        (spoil('tie_breaks = ["big", "small"]\n', ""), "liga.toml: tie_breaks is missing: allowed is a list of big, small, wins"),
        # an unknown key, with a near one suggested
        (spoil("games_per_round = 2", "games_per_rund = 2"), "liga.toml: stages[0].games_per_rund is unknown: did you mean games_per_round? allowed are name, title_en, rounds, games_per_round, tables, qualify, field, per_table, seating"),
        (spoil('rules = "pl-liga"', 'rule = "league"'), "liga.toml: rule is unknown: did you mean rules? allowed are name, title_pl, title_en, rules, tie_breaks, classification, players, first_starter, round_time_s, late_may_qualify, replacements, stages"),
        (spoil('name = "liga"', 'name = "liga"\ncolour = "red"'), "liga.toml: colour is unknown: allowed are name, title_pl, title_en, rules, tie_breaks, classification, players, first_starter, round_time_s, late_may_qualify, replacements, stages"),
        # a key of seeded stages in a random one, or of the other kind of qualifying
        (spoil('tables = "random"', 'tables = "random"\nper_table = 2'), "liga.toml: stages[0].per_table is unknown: did you mean tables? allowed are name, title_en, rounds, games_per_round, tables"),
        (spoil("per_table = 2", "per_table = 2\nfield = [4]"), "liga.toml: stages[2].field is unknown: allowed are name, title_en, rounds, games_per_round, tables, qualify, per_table, seating"),
        # a wrong type
        (spoil("rounds = 3", 'rounds = "three"'), 'liga.toml: stages[0].rounds = "three": allowed are 0 to 20'),
        (spoil("rounds = 3", "rounds = true"), "liga.toml: stages[0].rounds = true: allowed are 0 to 20"),
        (spoil("rounds = 3", "rounds = 2.5"), "liga.toml: stages[0].rounds = 2.5: allowed are 0 to 20"),
        (spoil('title_pl = "Liga"', "title_pl = 7"), "liga.toml: title_pl = 7: allowed is a text"),
        (spoil('title_en = "final"', "title_en = 7"), "liga.toml: stages[2].title_en = 7: allowed is a text"),
        (spoil('title_pl = "Liga"', 'title_pl = " "'), 'liga.toml: title_pl = " ": allowed is a text'),
        (spoil('tie_breaks = ["big", "small"]', 'tie_breaks = "big"'), 'liga.toml: tie_breaks = "big": allowed is a list of big, small, wins, each once'),
        (BASE.replace("[[stages]]", "[stages]", 1).split("\n[[stages]]")[0], 'liga.toml: stages = {"name": "eliminacje", "title_en": "preliminaries", "rounds": 3, "games_per_round": 2, "tables": "random"}: allowed is a list of [[stages]], at least one'),
        # a value out of range or not one of the choices
        (spoil("games_per_round = 2", "games_per_round = 0"), "liga.toml: stages[0].games_per_round = 0: allowed are 1 to 9"),
        (spoil("games_per_round = 2", "games_per_round = 10"), "liga.toml: stages[0].games_per_round = 10: allowed are 1 to 9"),
        (spoil("rounds = 3", "rounds = 21"), "liga.toml: stages[0].rounds = 21: allowed are 0 to 20"),
        (spoil("rounds = 1", "rounds = 2"), "liga.toml: stages[1].rounds = 2: allowed is 1"),
        (spoil("per_table = 2", "per_table = 4"), "liga.toml: stages[2].per_table = 4: allowed are 1 to 3"),
        (spoil('rules = "pl-liga"', 'rules = "liga"'), 'liga.toml: rules = "liga": allowed is one of classic, de-klub, pl-liga, pl-turniej, wrc, or a list of them, each once (and \'any\' last: any set the hub knows)'),
        # a list of rule sets: each once
        (spoil('rules = "pl-liga"', 'rules = ["league", "league"]'), 'liga.toml: rules = ["league", "league"]: allowed is one of classic, de-klub, pl-liga, pl-turniej, wrc, or a list of them, each once (and \'any\' last: any set the hub knows)'),
        # the players a format takes: fewest, then most
        (spoil('classification = "by_stage"', 'classification = "by_stage"\nplayers = [36, 16]'), "liga.toml: players = [36, 16]: allowed are [fewest, most], from 2 to 1000"),
        (spoil('classification = "by_stage"', 'classification = "by_stage"\nplayers = 16'), "liga.toml: players = 16: allowed are [fewest, most], from 2 to 1000"),
        # who starts a round's first game: seat A or the highest tile's
        (spoil('classification = "by_stage"', 'classification = "by_stage"\nfirst_starter = "B"'), 'liga.toml: first_starter = "B": allowed are A, draw'),
        # a late arrival may qualify or not; a reserve's games count for one of three
        (spoil('classification = "by_stage"', 'classification = "by_stage"\nlate_may_qualify = "no"'), 'liga.toml: late_may_qualify = "no": allowed are true, false'),
        (spoil('classification = "by_stage"', 'classification = "by_stage"\nreplacements = "judge"'), 'liga.toml: replacements = "judge": allowed are reserve, replaced, nobody'),
        # the classification is one of two kinds
        (spoil('classification = "by_stage"', 'classification = "sum"'), 'liga.toml: classification = "sum": allowed are by_stage, all_rounds'),
        (spoil('tables = "random"', 'tables = "drawn"'), 'liga.toml: stages[0].tables = "drawn": allowed are random, seeded'),
        (spoil('qualify = "top"', 'qualify = "best"'), 'liga.toml: stages[1].qualify = "best": allowed are top, table'),
        (spoil('tie_breaks = ["big", "small"]', 'tie_breaks = ["big", "smal"]'), 'liga.toml: tie_breaks = ["big", "smal"]: "smal" is not one of big, small, wins'),
        (spoil('tie_breaks = ["big", "small"]', 'tie_breaks = ["big", "big"]'), 'liga.toml: tie_breaks = ["big", "big"]: allowed is a list of big, small, wins, each once'),
        (spoil('tie_breaks = ["big", "small"]', "tie_breaks = []"), "liga.toml: tie_breaks = []: allowed is a list of big, small, wins, each once"),
        (spoil("field = [8, 6]", "field = [8, 8, 6]"), "liga.toml: stages[1].field = [8, 8, 6]: allowed is a list of sizes 2 to 64, each once"),
        (spoil("field = [8, 6]", "field = [8]"), "liga.toml: stages[1].field = [8]: allowed are the sizes that have a seating: [6, 8]"),
        # a seating pattern that does not hold places 1..N once each in tables of 2-4 seats
        (spoil("[[1, 3, 5, 7], [2, 4, 6, 8]]", "[[1, 3, 5, 7], [2, 4, 6]]"), "liga.toml: stages[1].seating.8 = [[1, 3, 5, 7], [2, 4, 6]]: allowed are tables of 2 to 4 seats holding places 1 to 8 once each"),
        (spoil("[[1, 3, 5, 7], [2, 4, 6, 8]]", "[[1, 3, 5, 7], [2, 4, 6, 7]]"), "liga.toml: stages[1].seating.8 = [[1, 3, 5, 7], [2, 4, 6, 7]]: allowed are tables of 2 to 4 seats holding places 1 to 8 once each"),
        (spoil("[[1, 3, 5, 7], [2, 4, 6, 8]]", "[[1, 3, 5, 7, 2], [4, 6, 8]]"), "liga.toml: stages[1].seating.8 = [[1, 3, 5, 7, 2], [4, 6, 8]]: allowed are tables of 2 to 4 seats holding places 1 to 8 once each"),
        (spoil("[[1, 3, 5, 7], [2, 4, 6, 8]]", "[[1, 3, 5, 7], [2, 4, 6, 9]]"), "liga.toml: stages[1].seating.8 = [[1, 3, 5, 7], [2, 4, 6, 9]]: allowed are tables of 2 to 4 seats holding places 1 to 8 once each"),
        (spoil("[[1, 2, 3, 4]]", "[1, 2, 3, 4]"), "liga.toml: stages[2].seating.4 = [1, 2, 3, 4]: allowed are tables of 2 to 4 seats holding places 1 to 4 once each"),
        (spoil("[[1, 2, 3, 4]]", '[["1", "2", "3", "4"]]'), 'liga.toml: stages[2].seating.4 = [["1", "2", "3", "4"]]: allowed are tables of 2 to 4 seats holding places 1 to 4 once each'),
        (spoil("seating.4 =", "seating.four ="), "liga.toml: stages[2].seating.four = [[1, 2, 3, 4]]: allowed are keys 2 to 64, the number of players"),
        (spoil("seating.4 = [[1, 2, 3, 4]]", "seating = {}"), "liga.toml: stages[2].seating is empty: allowed are patterns by field size"),
        # stages that do not fit together
        (spoil('tables = "random"', 'tables = "seeded"'), 'liga.toml: stages[0].tables = "seeded": the first stage has no standings to seed from: allowed is random'),
        (spoil('name = "finał"', 'name = "półfinał"'), 'liga.toml: stages[2].name = "półfinał": allowed is a name no earlier stage has'),
        (spoil('stages]]\nname = "eliminacje"', 'stages]]\nname = ""'), 'liga.toml: stages[0].name = "": allowed is a text'),
    ],
)  # fmt: skip
def test_a_bad_format_is_one_line_saying_what_where_and_what_is_allowed(
    text: str, message: str
) -> None:
    with pytest.raises(FormatError) as error:
        parse_format(text, "liga.toml")
    assert str(error.value) == message
    assert "\n" not in message
    assert isinstance(error.value, KlikError)
    assert isinstance(error.value, ValueError)


def test_an_unknown_preset_suggests_the_nearest() -> None:
    with pytest.raises(FormatError) as error:
        load_format("szczecn")
    assert (
        str(error.value)
        == 'format "szczecn" is unknown: did you mean szczecin? allowed are liga, open, szczecin'
    )


def test_a_stage_may_seed_from_a_previous_stage_of_one_round_only() -> None:
    text = BASE.replace(
        'qualify = "top"\nfield = [8, 6]\nseating.8 = [[1, 3, 5, 7], [2, 4, 6, 8]]\nseating.6 = [[1, 3, 5], [2, 4, 6]]',
        'qualify = "table"\nper_table = 2\nseating.8 = [[1, 3, 5, 7], [2, 4, 6, 8]]',
    )
    with pytest.raises(FormatError) as error:
        parse_format(text, "liga.toml")
    assert (
        str(error.value)
        == 'liga.toml: stages[1].qualify = "table": the previous stage has several rounds: allowed is top'
    )


@pytest.mark.parametrize(
    ("name", "from_round", "may"),
    [
        ("liga", 1, True),  # there from the first draw
        ("liga", 2, False),  # ZASADY 2a: the semifinal compares six games each
        ("szczecin", 2, True),  # the seed says nothing (and no late arrival reaches a seat)
        ("open", 3, True),  # no seeded stage at all
    ],
)
def test_a_late_arrival_qualifies_for_a_seeded_stage_as_the_format_says(
    name: str, from_round: int, may: bool
) -> None:
    assert load_format(name).may_qualify(from_round) is may


def test_the_formats_say_whom_a_reserves_games_count_for() -> None:
    assert {n: load_format(n).replacements for n in preset_names()} == {
        "liga": CountsFor.NOBODY,
        "open": CountsFor.RESERVE,
        "szczecin": CountsFor.NOBODY,
    }
    # Without the key: nobody's, and a late arrival may qualify.
    bare = parse_format(BASE.replace('classification = "by_stage"\n', ""), "x.toml")
    assert (bare.replacements, bare.late_may_qualify) == (CountsFor.NOBODY, True)
