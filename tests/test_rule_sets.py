"""Rummikub's rule sets as data: the shipped files, their checks, the engine and the table
following them, and ``klik rules``."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik import rules as r
from klik.cli import main
from klik.core import game as g
from klik.core.scoring import Ending, RuleSet, SeatRack, score
from klik.link.protocol.lineup import RoundLineup
from klik.table import config
from klik.table.config import ConfigError
from klik.table.game.lineup import LineupError, parse
from tests.helpers.play import Play

SHIPPED = ("classic", "de-klub", "pl-liga", "pl-turniej", "wrc")
FOLDER = Path(r.__file__).parent


def test_klik_ships_the_five_sets_each_naming_its_source() -> None:
    assert tuple(r.shipped()) == SHIPPED
    for name, found in r.shipped().items():
        assert found.source, name
        assert found.title_pl, name
        assert found.title_en, name
        assert (FOLDER / f"{name}.toml").is_file()


def test_the_open_points_are_said_in_every_set_that_chose_one() -> None:
    # de-klub's source gives only the clock and 4/3/1/0: the rest is chosen as pl-liga does.
    notes = " ".join(r.named("de-klub").notes)
    for point in ("tied places", "table of 3", "timeout", "starts", "small points", "Joker"):
        assert point in notes
    assert any("big points" in n for n in r.named("classic").notes)


def test_pl_turniej_is_the_engines_default_and_the_aliases_name_the_polish_sets() -> None:
    assert r.named("pl-turniej") == RuleSet()  # the core's defaults are the file's
    assert r.named("tournament") is r.named("pl-turniej")
    assert r.named("league") is r.named("pl-liga")
    assert "league" in r.RULE_SETS
    assert list(r.RULE_SETS) == list(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_show_prints_every_key_and_reads_back_as_the_file(name: str) -> None:
    text = r.to_toml(r.named(name))
    back = r.parse(text, "shown")
    assert back == r.named(name)
    assert (back.title_pl, back.source, back.notes, back.aliases) == (
        r.named(name).title_pl, r.named(name).source, r.named(name).notes, r.named(name).aliases,
    )  # fmt: skip
    keys = {line.split(" = ")[0] for line in text.splitlines() if " = " in line}
    assert {"move_time_s", "penalty_tiles", "joker", "unopened", "sign", "ties", "first"} <= keys


# --- each set's own figures, worked by hand from its source -------------------------------


def test_de_klub_gives_4_3_1_0_and_tied_seats_share_the_better_place() -> None:
    de = r.named("de-klub")
    racks = {"A": SeatRack(0), "B": SeatRack(10), "C": SeatRack(10), "D": SeatRack(30)}
    result = score(de, Ending.RUMMIKUB, racks, "A")
    # losers plus (as pl-liga): A wins -50; B and C tie on 2nd and get 3 each
    assert result.small == {"A": -50, "B": 10, "C": 10, "D": 30}
    assert result.places == {"A": 1, "B": 2, "C": 2, "D": 4}
    assert result.big == {"A": 4, "B": 3, "C": 3, "D": 0}
    # an exhausted pile with two lowest racks: both win and share 1st place
    racks = {"A": SeatRack(5), "B": SeatRack(5), "C": SeatRack(20), "D": SeatRack(40)}
    result = score(de, Ending.EXHAUSTED, racks)
    assert result.small == {"A": -50, "B": -50, "C": 15, "D": 35}
    assert result.big == {"A": 4, "B": 4, "C": 1, "D": 0}
    # three seats: 4/3/0
    result = score(de, Ending.RUMMIKUB, {"A": SeatRack(7), "B": SeatRack(0), "C": SeatRack(9)}, "B")
    assert result.big == {"A": 3, "B": 4, "C": 0}


def test_classic_scores_seed_003s_example_counts_an_unopened_rack_and_a_joker_at_30() -> None:
    classic = r.named("classic")
    # 003: A wins; B holds 25, C 17, D 18 -> A +60, C -17, D -18, B -25
    racks = {"A": SeatRack(0), "B": SeatRack(25), "C": SeatRack(17), "D": SeatRack(18)}
    result = score(classic, Ending.RUMMIKUB, racks, "A")
    assert result.small == {"A": 60, "B": -25, "C": -17, "D": -18}
    assert result.big == {"A": 4, "B": 0, "C": 2, "D": 1}
    # an unopened seat loses its rack, not 100 or 200
    racks = {"A": SeatRack(0), "B": SeatRack(12, opened=False, could_open=True)}
    assert score(classic, Ending.RUMMIKUB, racks, "A").small == {"A": 12, "B": -12}
    assert score(r.named("pl-turniej"), Ending.RUMMIKUB, racks, "A").small == {"A": 200, "B": -200}
    assert classic.max_rack == 728 + 60  # both jokers at 30


def test_classic_asks_an_unopened_seat_its_rack_where_pl_turniej_charges_100() -> None:
    def played(rules: str) -> Mapping[str, int]:
        play = Play(seats=2, rules=rules).start(0.0).hold("A", 1.0).double("B", 5.0)
        play.tap("A", 10.0).tap("A", 11.0).double("A", 12.0).double("B", 13.0)
        assert play.game.result is not None
        return play.game.result.small

    assert played("classic") == {"A": -2, "B": 2}  # A's two taps: its rack
    assert played("pl-turniej") == {"A": -100, "B": 100}  # A was never asked


def test_a_table_under_classic_draws_3_on_a_timeout_and_wrc_gives_40_s() -> None:
    classic = config.from_text('[game]\nrules = "classic"\n').settings()
    assert (classic.penalty_tiles, classic.move_time_s, classic.rules.joker_value) == (3, 60.0, 30)
    play = Play(move_time_s=30, penalty_tiles=classic.penalty_tiles).start(0.0).to(40)
    play.hold("A", 41.0)
    assert play.game.moves[-1].drew == 3
    wrc = config.from_text('[game]\nrules = "wrc"\n').settings()
    assert wrc.move_time_s == 40.0
    own = config.from_text('[game]\nrules = "wrc"\nmove_time_s = 45\n').settings()
    assert (own.move_time_s, own.penalty_tiles) == (45.0, 1)  # the move time only


def test_a_table_may_play_a_rule_set_file_of_its_own(tmp_path: Path) -> None:
    mine = r.to_toml(r.named("de-klub")).replace('name = "de-klub"', 'name = "klub-2"')
    mine = mine.replace("penalty_tiles = 1", "penalty_tiles = 2")
    path = tmp_path / "klub.toml"
    path.write_text(mine)
    settings = config.from_text(f'[game]\nrules = "{path}"\n').settings()
    assert (settings.rules.name, settings.penalty_tiles) == ("klub-2", 2)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a set Klik does not know, and no file either
        ('[game]\nrules = "poker"', '[game] rules = "poker": allowed are classic, de-klub, pl-liga, pl-turniej, wrc, or a rule set file\'s full path ending .toml'),
        # a file that is not there
        ('[game]\nrules = "/no/such.toml"', '[game] rules = "/no/such.toml": cannot read (No such file or directory)'),
        # the penalty is the rule set's now
        ("[game]\npenalty_tiles = 2", "[game] penalty_tiles: the rule set gives the penalty tiles now (classic draws 3); remove the key, and choose a set or write one (klik rules list)"),
    ],
)  # fmt: skip
def test_a_bad_rule_set_in_the_config_is_one_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        config.from_text(text).settings()
    assert str(raised.value).endswith(message)


def test_a_bad_rule_set_file_in_the_config_names_the_file_and_the_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(r.to_toml(r.named("wrc")).replace("joker = 50", "joker = 0"))
    with pytest.raises(ConfigError) as raised:
        config.from_text(f'[game]\nrules = "{path}"\n').settings()
    assert str(raised.value).endswith(
        f"[game] rules: {path}: small_points.joker = 0: allowed is a whole number from 1 to 100"
    )


# --- invariants of every set ----------------------------------------------------------------


@given(st.sampled_from(SHIPPED), st.integers(2, 4), st.data())
def test_one_winners_small_points_sum_to_zero_and_big_points_fall_with_the_place(
    name: str, seats: int, data: st.DataObject
) -> None:
    rules = r.named(name)
    letters = "ABCD"[:seats]
    ending = data.draw(st.sampled_from(list(Ending)))
    racks = {
        s: SeatRack(
            data.draw(st.integers(1, rules.max_rack)),
            opened=data.draw(st.booleans()),
            could_open=data.draw(st.booleans()),
        )
        for s in letters
    }
    winner = None
    if ending is Ending.RUMMIKUB:
        winner = data.draw(st.sampled_from(letters))
        racks[winner] = SeatRack(0)
    result = score(rules, ending, racks, winner)
    if len(result.winners) == 1:  # tied winners each gain the sum (000 o): not zero then
        assert sum(result.small.values()) == 0
    for a in letters:
        for b in letters:
            if result.places[a] < result.places[b]:
                assert result.big[a] >= result.big[b]
                assert rules.winner_sign * result.small[a] > rules.winner_sign * result.small[b]


# --- a bad file: one line naming the key ----------------------------------------------------


def spoiled(old: str, new: str) -> str:
    text = r.to_toml(r.named("pl-liga"))
    assert old in text, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # not TOML
        ("name = ", "my.toml: not TOML: Invalid value (at end of document)"),
        # a key of no rule set
        (spoiled("version = 1", "version = 1\ncolour = 1"), "my.toml: colour is unknown: allowed are name, version, title_pl, title_en, source, aliases, open, clock, start, seats, small_points, big_points"),
        # a typo in a section
        (spoiled("joker = 50", "jokr = 50"), "my.toml: small_points.jokr is unknown: did you mean joker? allowed are sign, joker, unopened, could_have_opened, exhausted, penalties_when_exhausted"),
        # a key left out
        (spoiled("penalty_tiles = 1\n", ""), "my.toml: clock.penalty_tiles is missing: allowed is a whole number from 0 to 3"),
        # a name the hub could not keep
        (spoiled('name = "pl-liga"', 'name = "Liga 2"'), 'my.toml: name = "Liga 2": allowed is a-z, 0-9 and -, from a letter'),
        # a move time off the clock's range
        (spoiled("move_time_s = 60", "move_time_s = 4"), "my.toml: clock.move_time_s = 4: allowed is a whole number from 5 to 600"),
        # more penalty tiles than the table allows
        (spoiled("penalty_tiles = 1", "penalty_tiles = 5"), "my.toml: clock.penalty_tiles = 5: allowed is a whole number from 0 to 3"),
        # a sign of no convention
        (spoiled('sign = "losers-plus"', 'sign = "plus"'), "my.toml: small_points.sign = \"plus\": allowed is 'winner-plus', 'losers-plus'"),
        # an unopened penalty that is neither points nor the rack
        (spoiled("unopened = 100", 'unopened = "racks"'), 'my.toml: small_points.unopened = "racks": allowed is a whole number from 0 to 1000, or "rack" (the rack counts)'),
        # big points that rise with the place
        (spoiled("4 = [4, 2, 1, 0]", "4 = [4, 1, 2, 0]"), "my.toml: big_points.4 = [4, 1, 2, 0]: allowed is a list of 4 whole numbers from 0 to 100, place 1 first, none above the one before"),
        # big points for a place the table does not have
        (spoiled("3 = [4, 2, 0]", "3 = [4, 2, 0, 0]"), "my.toml: big_points.3 = [4, 2, 0, 0]: allowed is a list of 3 whole numbers from 0 to 100, place 1 first, none above the one before"),
        # a table size outside the seats
        (spoiled("fewest = 2", "fewest = 3"), "my.toml: big_points.2 is unknown: allowed are ties, 3, 4"),
        # more seats than a table has
        (spoiled("most = 4", "most = 5"), "my.toml: seats.most = 5: allowed is a whole number from 2 to 4"),
        # a way to share ties Klik does not know
        (spoiled('ties = "share-better"', 'ties = "average"'), "my.toml: big_points.ties = \"average\": allowed is 'share-better'"),
        # who starts
        (spoiled('first = "draw"', 'first = "B"'), "my.toml: start.first = \"B\": allowed is 'A', 'draw'"),
        # an alias that is not an older wire name
        (spoiled('aliases = ["league"]', 'aliases = ["liga"]'), 'my.toml: aliases = ["liga"]: allowed is a list of the older names tournament, league'),
        # a section given as a value
        (spoiled("[clock]\nmove_time_s = 60\npenalty_tiles = 1\n", "clock = 60\n"), "my.toml: clock = 60: allowed is a table of move_time_s, penalty_tiles"),
    ],
)  # fmt: skip
def test_a_bad_rule_set_file_is_one_line_naming_the_key(text: str, message: str) -> None:
    with pytest.raises(r.RulesError) as raised:
        r.parse(text, "my.toml")
    assert str(raised.value) == message
    assert "\n" not in str(raised.value)


# --- klik rules ------------------------------------------------------------------------------


def test_klik_rules_list_names_every_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == list(SHIPPED)
    assert "Polish league (also league)" in lines[2]


def test_klik_rules_show_prints_toml_a_program_reads(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["rules", "show", "league"]) == 0  # an alias names its set
    shown = capsys.readouterr().out
    assert r.parse(shown, "out") == r.named("pl-liga")
    path = tmp_path / "mine.toml"
    path.write_text(shown.replace('"pl-liga"', '"moja"').replace('["league"]', "[]"))
    assert main(["rules", "show", str(path)]) == 0
    assert re.search(r'^name = "moja"$', capsys.readouterr().out, re.M)


def test_klik_rules_check_says_good_or_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(r.to_toml(r.named("wrc")))
    assert main(["rules", "check", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: wrc v1: good\n"
    path.write_text(r.to_toml(r.named("wrc")).replace("version = 1", "version = 0"))
    assert main(["rules", "check", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"klik rules: {path}: version = 0: allowed is a whole number from 1 to 1000000\n"
    )


# --- a lineup brings a set the table does not know ------------------------------------------


def lineup(**over: object) -> dict[str, object]:
    seats = {"A": {"player": "1", "name": "Ala"}, "B": {"player": "2", "name": "Bo"}}
    return {"tournament": "7", "round": 1, "games": 1, "rules": "klub-3", "move_time_s": 50,
            "seats": seats, **over}  # fmt: skip


def test_a_lineup_carries_a_set_the_table_does_not_know_and_plays_it() -> None:
    own = r.parse(
        r.to_toml(r.named("de-klub"))
        .replace('name = "de-klub"', 'name = "klub-3"')
        .replace("penalty_tiles = 1", "penalty_tiles = 2"),
        "klub.toml",
    )
    wire = RoundLineup("7", 1, 1, "klub-3", 50, ("A", "B"), (("A", "1"), ("B", "2")),
                       (("A", "Ala"), ("B", "Bo")), rule_set=own)  # fmt: skip
    sent = json.loads(json.dumps(wire.json()))
    assert "source" not in sent["rule_set"]  # the rules, not the words: a serial frame is short
    assert len(json.dumps(sent)) < 1000
    kept = parse(sent, ("A", "B", "C", "D"))
    settings = kept.settings(g.Settings())
    assert settings.rules == own
    assert settings.penalty_tiles == 2
    assert settings.move_time_s == 50
    assert parse(kept.json(), ("A", "B", "C", "D")) == kept  # the state file reads back


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # a name Klik does not know, and no set with it
        (lineup(), "args.rules: allowed are classic, de-klub, pl-liga, pl-turniej, wrc"),
        # a set whose name is not the lineup's
        (lineup(rule_set=r.to_wire(r.named("wrc"))), "args.rules: must be 'wrc', args.rule_set's name"),
        # a set that breaks the file's rules
        (lineup(rules="wrc", rule_set={**r.to_wire(r.named("wrc")), "version": 0}), "args.rule_set: args.rule_set: version = 0: allowed is a whole number from 1 to 1000000"),
        # a set with its words: not sent
        (lineup(rules="wrc", rule_set=r.to_data(r.named("wrc"))), "args.rule_set: args.rule_set: title_pl is not sent; a lineup carries the rules"),
    ],
)  # fmt: skip
def test_a_bad_lineup_set_is_one_line(args: dict[str, object], message: str) -> None:
    with pytest.raises(LineupError) as raised:
        parse(args, ("A", "B", "C", "D"))
    assert str(raised.value) == message
