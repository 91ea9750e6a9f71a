"""A tournament round's lineup from the hub: the table plays the round's games with its seats,
rules and move time, and every result names the tournament, the round and the players."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytest_mock import MockerFixture

from klik.core import game as g
from klik.core.tabletop import Edge
from klik.link import courier as c
from klik.link.outbox import Outbox
from klik.link.results import check_result
from klik.table.game import journal as j
from klik.table.game.lineup import LineupError, parse
from klik.table.screens.view import Screen
from tests.table.test_engine import Table
from tests.table.test_engine_outbox import linked
from tests.table.test_recovery import BOOT, cut_at, finish, now
from tests.table.test_recovery import Cut as CutPower

SEATS = ("A", "B", "C", "D")


def lineup(**over: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "tournament": "7",
        "round": 2,
        "games": 2,
        "rules": "league",
        "move_time_s": 45,
        "seats": {
            "A": {"player": "17", "name": "Łucja Żak"},
            "B": {"player": "3", "name": "Źdźisław Ćwik"},
            "C": {"player": "12", "name": "Ola Kęs"},
        },
    }
    return {**args, **over}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "args: must be an object"),
        (
            lineup(colour="red"),
            "args.colour: unknown; allowed: begun, drawn, first_starter, games, move_time_s, round, rule_set, rules, seats, tournament",
        ),
        (lineup(tournament=7), "args.tournament: must be text of 1 to 200 characters"),
        (lineup(round=0), "args.round: must be a whole number from 1 to 10000"),
        (lineup(games=10), "args.games: must be a whole number from 1 to 9"),
        (
            lineup(rules="house"),
            "args.rules: allowed are classic, de-klub, pl-liga, pl-turniej, wrc",
        ),
        (lineup(move_time_s=4), "args.move_time_s: must be a whole number from 5 to 600"),
        (lineup(move_time_s=45.0), "args.move_time_s: must be a whole number from 5 to 600"),
        (
            lineup(seats={"A": {"player": "1", "name": "X"}}),
            "args.seats: must map 2 to 4 seats to players",
        ),
        (
            lineup(seats={s: {"player": s, "name": s} for s in "ABD"}),
            "args.seats: must be A, B, C for 3 players",
        ),
        (
            lineup(seats={"A": {"player": "1"}, "B": {"player": "2", "name": ""}}),
            'args.seats.A: must be {"player": id, "name": name[, "needs": [...]]}',
        ),
        (
            lineup(seats={"A": {"player": 1, "name": ""}, "B": {"player": "2", "name": ""}}),
            "args.seats.A.player: must be text of 1 to 200 characters",
        ),
        (
            lineup(seats={s: {"player": "1", "name": s} for s in "AB"}),
            "args.seats: a player sits twice",
        ),
        (lineup(first_starter="B"), "args.first_starter: allowed are A, draw"),
        (lineup(drawn="C"), "args.drawn: a seat of A, B, C, for a drawn starter only"),
        (
            lineup(first_starter="draw", drawn="D"),
            "args.drawn: a seat of A, B, C, for a drawn starter only",
        ),
    ],
)
def test_a_bad_lineup_is_refused_in_one_line(args: Any, message: str) -> None:
    with pytest.raises(LineupError) as raised:
        parse(args, SEATS)
    assert str(raised.value) == message


def test_a_lineup_keeps_its_seats_in_order_with_their_players() -> None:
    round_ = parse(lineup(), SEATS)
    assert round_.seats == ("A", "B", "C")
    assert dict(round_.players) == {"A": "17", "B": "3", "C": "12"}
    assert round_.json()["seats"]["B"] == {"player": "3", "name": "Źdźisław Ćwik"}


def received(table: Table, args: dict[str, Any], at: float, kind: str = "game") -> Table:
    table.engine.command(c.Command(id=f"cmd-{at}", kind=kind, args=args), at)
    return table


def test_a_ready_table_plays_the_rounds_games_then_its_own_again(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite")
    table = linked(tmp_path, outbox)
    table.engine.start(100.0)
    received(table, lineup(), 101.0)
    game = table.game
    assert (game.settings.seats, game.settings.starter) == (("A", "B", "C"), "A")
    assert (game.settings.move_time_s, game.settings.rules.name) == (45.0, "pl-liga")
    assert table.engine.info.game_no == 1  # nothing had been played: the same number
    assert table.screen("A").name == "Łucja Żak"
    assert table.screen("D").screen is Screen.FREE
    header = j.read(tmp_path / "journal.jsonl")
    assert header is not None
    assert header.header["lineup"]["tournament"] == "7"

    table.press("C", 102.0)  # C sits before the starter A: its tap starts the round's game
    assert table.game.mover == "A"
    finish_three(table, 110.0)
    body = outbox.oldest_waiting()
    assert body is not None
    check_result(body.body)
    assert (body.body["tournament"], body.body["round"], body.body["rules"]) == ("7", 2, "pl-liga")
    assert {s: e["player"] for s, e in body.body["seats"].items()} == {
        "A": "17",
        "B": "3",
        "C": "12",
    }
    assert {s: e["name"] for s, e in body.body["seats"].items()}["C"] == "Ola Kęs"

    assert table.engine.new_game(130.0)
    assert table.game.settings.starter == "B"  # the round's second game: the next seat starts
    table.press("A", 131.0)  # A sits before B: its tap starts the clock
    assert table.game.mover == "B"
    finish_three(table, 140.0)
    assert table.engine.new_game(160.0)  # the round is over: the table's own game again
    assert table.game.settings.seats == SEATS
    assert table.engine.info.name("A") == "Ania"  # the config's names
    assert table.screen("D").screen is Screen.READY


def finish_three(table: Table, at: float) -> None:
    table.engine.handle(g.Order(g.Action.END, at), at)
    for i, seat in enumerate(table.game.settings.seats):
        t0 = at + 1.0 + i
        for edge_at, pressed in ((0.0, True), (0.05, False), (0.15, True), (0.2, False)):
            table.engine.handle(Edge(seat, pressed, t0 + edge_at), t0 + edge_at)
        table.to(t0 + 0.8)
    assert table.game.phase is g.Phase.DONE


def test_a_lineup_during_a_game_waits_for_the_next_game(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(100.0)
    table.press("D", 101.0)
    received(table, lineup(), 105.0)
    assert table.game.settings.seats == SEATS  # the game under way goes on as it was
    assert table.game.mover == "A"
    finish(table, 120.0)
    assert table.engine.new_game(130.0)
    assert table.game.settings.seats == ("A", "B", "C")


def test_a_lineup_after_a_finished_game_starts_the_rounds_game_at_once(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(100.0)
    finish(table.press("D", 101.0), 110.0)
    received(table, lineup(), 130.0)
    assert (table.engine.info.game_no, table.game.phase) == (2, g.Phase.READY)
    assert table.game.settings.seats == ("A", "B", "C")


def test_a_bad_lineup_leaves_the_table_as_it_was(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table = Table(tmp_path)
    table.engine.start(100.0)
    received(table, lineup(rules="house"), 101.0)
    assert table.game.settings.seats == SEATS
    assert table.engine.lineup is None
    assert (
        "skład od huba odrzucony: args.rules: allowed are classic, de-klub, pl-liga, pl-turniej, wrc"
        in caplog.text
    )


def test_a_restart_keeps_the_rounds_game_and_the_lineup(tmp_path: Path) -> None:
    first = Table(tmp_path)
    first.engine.start(100.0)
    received(first, lineup(), 101.0)
    first.press("C", 102.0).press("A", 110.0)
    first.journal.close()
    second = Table(tmp_path)  # the power came back
    second.engine.start(BOOT)
    game = second.game
    assert (game.settings.seats, game.settings.move_time_s, game.mover) == (
        ("A", "B", "C"),
        45.0,
        "B",
    )
    assert second.engine.info.name("B") == "Źdźisław Ćwik"
    assert second.engine.lineup is not None
    assert second.engine.lineup.begun == 1  # the round's second game is still to come
    kept = json.loads((tmp_path / "lineup.json").read_text(encoding="utf-8"))
    assert kept["begun"] == 1


def test_a_damaged_lineup_file_is_one_line_and_no_lineup(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "lineup.json").write_text('{"tournament": 7}', encoding="utf-8")
    table = Table(tmp_path)
    table.engine.start(100.0)
    assert table.engine.lineup is None
    assert table.game.settings.seats == SEATS
    assert (
        "lineup.json: args.tournament: must be text of 1 to 200 characters; no round lineup"
        in caplog.text
    )


def first_game_played(tmp_path: Path) -> tuple[Table, Outbox]:
    """A table linked to its outbox that has played the round's first game (C starts A's
    clock, the judge ends it, every seat confirms 0)."""
    outbox = Outbox(tmp_path / "outbox.sqlite")
    table = linked(tmp_path, outbox)
    table.engine.start(100.0)
    received(table, lineup(), 101.0)
    table.press("C", 102.0)
    finish_three(table, 110.0)
    return table, outbox


def test_each_result_names_its_game_within_the_round(tmp_path: Path) -> None:
    table, outbox = first_game_played(tmp_path)
    assert table.engine.new_game(130.0)
    table.press("A", 131.0)
    finish_three(table, 140.0)
    assert table.engine.new_game(160.0)  # the round is over: the table's own game
    table.press("B", 161.0)  # game 3 of the table: C starts, B's tap starts the clock
    finish(table, 170.0)
    assert [(b["game"], b["round_game"], b["ended_by"]) for b in delivered(outbox)] == [
        (1, 1, "judge"),  # each game was ended by the judge's order: an exhausted game says so
        (2, 2, "judge"),
        (3, None, "judge"),  # no lineup, no round
    ]


def test_the_same_lineup_again_keeps_the_rounds_games_played(tmp_path: Path) -> None:
    # The judge sent the round's lineups twice (or started the round after sending them):
    # the table does not play the round again from its first game.
    table, outbox = first_game_played(tmp_path)
    renamed = lineup()
    renamed["seats"]["B"]["name"] = "Zdzisław Ćwik"  # the judge fixed a name meanwhile
    received(table, renamed, 120.0)
    assert table.engine.lineup is not None
    assert table.engine.lineup.begun == 1
    assert table.engine.info.game_no == 1  # the finished game stays; nothing new began
    assert table.engine.new_game(130.0)
    assert table.game.settings.starter == "B"  # the round's second game
    assert table.engine.info.name("B") == "Zdzisław Ćwik"
    table.press("A", 131.0)
    finish_three(table, 140.0)
    received(table, lineup(), 150.0)  # once more after the round's last game
    assert table.engine.new_game(160.0)
    assert table.game.settings.seats == SEATS  # the round is not played a third time
    assert [b["round_game"] for b in delivered(outbox)] == [1, 2]


def delivered(outbox: Outbox) -> list[dict[str, Any]]:
    """Every result waiting in ``outbox``, oldest first, acknowledged as the hub would."""
    bodies = []
    while (pending := outbox.oldest_waiting()) is not None:
        check_result(pending.body)
        bodies.append(pending.body)
        outbox.acknowledged(pending.seq, "ABCDE")
    return bodies


def test_a_drawn_first_starter_holds_its_button_and_the_next_games_go_on_from_it(
    tmp_path: Path,
) -> None:
    # 001 PRZYGOTOWANIE GRY: the player who draws the highest tile starts the first game.
    table = Table(tmp_path)
    table.engine.start(100.0)
    received(table, lineup(first_starter="draw"), 101.0)
    assert table.game.settings.draw_starter
    assert all(table.screen(s).screen is Screen.READY for s in "ABC")
    assert table.screen("A").draw_starter
    table.press("B", 102.0, length=1.3)  # B drew the highest tile
    assert (table.game.settings.starter, table.game.settings.draw_starter) == ("B", False)
    kept = json.loads((tmp_path / "lineup.json").read_text(encoding="utf-8"))
    assert (kept["first_starter"], kept["drawn"]) == ("draw", "B")
    table.press("A", 105.0)  # A sits before B: its tap starts B's clock
    assert table.game.mover == "B"
    finish_three(table, 110.0)
    assert table.engine.new_game(130.0)
    assert (table.game.settings.starter, table.game.settings.draw_starter) == ("C", False)
    received(table, lineup(first_starter="draw"), 131.0)  # sent again: the draw stays
    assert table.engine.lineup is not None
    assert (table.engine.lineup.drawn, table.engine.lineup.begun) == ("B", 2)


class Cut(Exception):  # noqa: N818 (the power, cut)
    """The power went."""


# The two writes of the step to the round's next game, in the order the session makes them;
# the power goes right after the one named.
@pytest.mark.parametrize("cut_after", ["journal", "lineup"])
def test_a_cut_during_the_next_game_tap_never_plays_a_rounds_game_as_an_ordinary_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cut_after: str
) -> None:
    """The step to the round's next game writes two things: the new game's journal and the
    round's count (lineup.json). The power goes right after one of them: after the restart
    the table is either still on the finished game or on the round's next game, and either
    way plays the round's games in turn (a cut here once made game 2 the round's third, and
    the round's last game an ordinary one)."""
    first, _ = first_game_played(tmp_path)
    rounds = first.engine.session.rounds
    writes = {"journal": (first.journal, "start"), "lineup": (rounds, "keep")}
    owner, name = writes[cut_after]
    real = getattr(owner, name)

    def write_then_cut(*args: Any) -> None:
        real(*args)
        raise Cut

    monkeypatch.setattr(owner, name, write_then_cut)
    with pytest.raises(Cut):
        first.engine.new_game(130.0)
    first.journal.close()

    second = linked(tmp_path, Outbox(tmp_path / "outbox.sqlite"))
    second.engine.start(BOOT)
    if second.engine.info.game_no == 1:  # still on the finished game: the judge taps again
        assert second.engine.new_game(BOOT + 10.0)
    engine = second.engine
    assert engine.info.game_no == 2
    assert engine.game_lineup is not None
    assert engine.game_lineup.begun == 1  # the round's second game
    assert engine.game.settings.starter == "B"
    assert json.loads((tmp_path / "lineup.json").read_text(encoding="utf-8"))["begun"] == 2


def test_a_cut_at_any_step_of_taking_a_rounds_lineup_leaves_its_game_ready(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    """A table waiting for its first game gets the round's lineup; the power goes at any one
    of the file operations that follow (lineup.json, the new journal, the round's count).
    After the restart the round's first game stands ready with the round's players, or the
    table is as before and the hub's command (not yet counted done) brings it again."""
    steps, fall = None, 0
    while steps is None or fall <= steps:
        folder = tmp_path / f"cut-{fall}"
        folder.mkdir()
        first = Table(folder)
        first.engine.start(100.0)
        made = cut_at(mocker, fall)
        try:
            received(first, lineup(), 101.0)
            steps = len(made)
        except CutPower:
            pass
        mocker.stopall()
        first.journal.close()
        second = Table(folder)
        second.engine.start(BOOT)
        engine = second.engine
        if engine.lineup is None:  # cut before lineup.json: the hub sends the command again
            received(second, lineup(), now(second) + 1)
        where = f"cut at step {fall} of taking the lineup"
        assert (engine.info.game_no, second.game.phase) == (1, g.Phase.READY), where
        assert engine.game_lineup is not None, where
        assert second.screen("A").name == "Łucja Żak", where
        assert second.game.settings.seats == ("A", "B", "C"), where
        assert json.loads((folder / "lineup.json").read_text(encoding="utf-8"))["begun"] == 1
        fall += 1
    assert steps > 5
