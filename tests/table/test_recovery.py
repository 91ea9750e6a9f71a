"""Recovery after a power cut: every button up, every gesture the journal holds settled, paused.

A power cut is a journal closed where it stands: the next engine reads it back, as the Pi's
daemon does after a reboot (its monotonic clock starting again from a few seconds).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from klik.core import game as g
from klik.core.tabletop import Edge
from tests.table.test_engine import Table

BOOT = 3.0  # the monotonic clock of the Pi that just booted


def cut(first: Table, folder: Path) -> Table:
    """The power goes: nothing more is written; a new engine comes up on the same folder."""
    first.journal.close()
    second = Table(folder)
    second.engine.start(BOOT)
    return second


def playing(folder: Path) -> Table:
    """A new table on ``folder``, its game ``begun``."""
    return begun(Table(folder))


def begun(table: Table) -> Table:
    """A's move ended at 110 with a tap; B's clock runs from 110 (60 s a move)."""
    table.engine.start(100.0)
    return table.press("D", 101.0).press("A", 110.0)


def down(table: Table, seat: str, at: float) -> Table:
    table.engine.handle(Edge(seat, True, at), at)
    return table


def up(table: Table, seat: str, at: float) -> Table:
    table.engine.handle(Edge(seat, False, at), at)
    return table


def now(table: Table) -> float:
    return table.engine.driver.now


# --- a button held at the cut is up after recovery --------------------------------------


def test_the_movers_press_at_the_cut_gives_back_the_time_at_the_press(tmp_path: Path) -> None:
    first = down(playing(tmp_path), "B", 120.0).to(120.5)
    second = cut(first, tmp_path)
    game = second.game
    assert (game.phase, game.mover, game.paused_by) == (g.Phase.PAUSED, "B", g.RECOVERY)
    assert game.left_s == pytest.approx(50.0)  # the clock had stopped at the press
    second.to(now(second) + 5.0)  # the long hold's 3 s pass: nothing restarts the move
    assert (second.game.phase, second.game.left_s) == (g.Phase.PAUSED, pytest.approx(50.0))
    second.press("B", now(second) + 1.0)  # the mover's next tap resumes, as promised
    assert (second.game.phase, second.game.mover) == (g.Phase.MOVE, "B")
    assert len(second.game.moves) == 1


def test_a_press_held_in_the_count_adds_nothing_after_recovery(tmp_path: Path) -> None:
    first = playing(tmp_path)
    first.engine.handle(g.Order(g.Action.END, 115.0), 115.0)
    down(first, "C", 116.0).to(117.2)  # +10 at 117.0
    assert first.game.rack("C") == 10
    second = cut(first, tmp_path)
    second.to(now(second) + 5.0)
    assert (second.game.phase, second.game.rack("C")) == (g.Phase.SCORING, 10)


def test_another_seats_press_at_the_cut_is_not_stuck_and_its_judge_call_works(
    tmp_path: Path,
) -> None:
    first = down(playing(tmp_path), "C", 120.0).to(120.5)
    second = cut(first, tmp_path)
    second.to(now(second) + 12.0)
    assert all(v.alerts == () for v in second.engine.views.values())
    second.press("B", now(second) + 1.0)  # B resumes
    second.press("C", now(second) + 1.0, length=2.5)  # C calls the judge
    assert (second.game.phase, second.game.called_by) == (g.Phase.MOVE, "C")


# --- what the journal holds is settled before the pause ---------------------------------


def test_a_tap_cut_before_its_debounce_ends_the_move(tmp_path: Path) -> None:
    first = up(down(playing(tmp_path), "B", 120.0), "B", 120.1).to(120.11)
    second = cut(first, tmp_path)
    game = second.game
    assert [(m.seat, m.end, m.ended_by) for m in game.moves][-1] == ("B", 120.0, g.EndedBy.TAP)
    assert (game.phase, game.mover, game.paused_by) == (g.Phase.PAUSED, "C", g.RECOVERY)
    assert game.left_s == pytest.approx(60.0 - 0.1)
    second.press("C", now(second) + 1.0)  # C's tap resumes C's move, it does not end it
    assert (second.game.phase, second.game.mover, len(second.game.moves)) == (
        g.Phase.MOVE,
        "C",
        2,
    )


def test_a_double_tap_cut_before_its_debounce_is_a_rummikub(tmp_path: Path) -> None:
    first = up(down(playing(tmp_path), "B", 120.0), "B", 120.1).to(120.15)
    first = up(down(first, "B", 120.2), "B", 120.3).to(120.31)
    second = cut(first, tmp_path)
    assert (second.game.phase, second.game.winner) == (g.Phase.SCORING, "B")


def test_a_start_tap_cut_before_its_debounce_comes_back_paused(tmp_path: Path) -> None:
    first = Table(tmp_path)
    first.engine.start(100.0)
    up(down(first, "D", 101.0), "D", 101.1).to(101.11)
    second = cut(first, tmp_path)
    game = second.game
    assert (game.phase, game.mover, game.paused_by) == (g.Phase.PAUSED, "A", g.RECOVERY)


def test_a_second_cut_after_a_recovery_recovers_the_same_way(tmp_path: Path) -> None:
    first = down(playing(tmp_path), "B", 120.0).to(120.5)
    second = cut(first, tmp_path)
    second.press("B", now(second) + 1.0)  # resumes B's move with 50 s
    second.press("B", now(second) + 10.0)  # and ends it: C's clock runs
    second.to(now(second) + 5.0)
    third = cut(second, tmp_path)
    game = third.game
    assert (game.phase, game.mover, len(game.moves)) == (g.Phase.PAUSED, "C", 2)
    assert game.moves[-1].ended_by is g.EndedBy.TAP
    assert game.left_s == pytest.approx(55.0, abs=1.0)


# --- the checkpoints keep the time left within one interval -----------------------------


@pytest.mark.parametrize("into_move", [0.5, 1.0, 1.2, 1.5, 1.9, 2.4, 3.7])
def test_a_cut_early_in_a_move_gives_back_at_most_one_checkpoint_interval(
    tmp_path: Path, into_move: float
) -> None:
    first = playing(tmp_path)  # B's move began at 110.0, recognised at 110.13
    first.to(110.0 + into_move)
    second = cut(first, tmp_path)
    true_left = 60.0 - into_move
    assert second.game.left_s is not None
    assert true_left <= second.game.left_s <= true_left + 1.0  # checkpoint_s = 1


# --- game numbers never go back, results are never overwritten --------------------------


def finish(table: Table, at: float) -> Table:
    """The judge ends the game and every seat confirms a rack of 0 with a double tap."""
    table.engine.handle(g.Order(g.Action.END, at), at)
    for i, seat in enumerate("ABCD"):
        t0 = at + 1.0 + i
        for edge_at, pressed in ((0.0, True), (0.05, False), (0.15, True), (0.2, False)):
            table.engine.handle(Edge(seat, pressed, t0 + edge_at), t0 + edge_at)
        table.to(t0 + 0.8)
    assert table.game.phase is g.Phase.DONE
    return table


def test_after_a_damaged_journal_the_game_number_goes_on(tmp_path: Path) -> None:
    first = finish(playing(tmp_path), 120.0)
    assert first.engine.new_game(130.0)
    assert first.engine.info.game_no == 2
    first.journal.close()
    result_1 = (tmp_path / "result-1.json").read_bytes()
    (tmp_path / "journal.jsonl").write_bytes(b"\x00" * 64 + b"\n")  # the card was damaged
    second = Table(tmp_path)
    second.engine.start(BOOT)
    assert second.engine.info.game_no == 3
    assert second.game.settings.starter == "C"  # game 3: two seats on from A
    finish(second.press("B", 10.0), 20.0)
    assert (tmp_path / "result-1.json").read_bytes() == result_1
    assert (tmp_path / "result-3.json").exists()


def test_a_damaged_line_costs_only_the_moves_after_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = playing(tmp_path).press("B", 130.0)  # B's move ended: C's clock runs from 130
    first.journal.close()
    path = tmp_path / "journal.jsonl"
    sound = path.read_bytes().count(b"\n")
    with path.open("ab") as f:
        f.write(b'{"at": 131.0, "seat": "C", "down": tru\x00\x00\n')  # the card's damage
        f.write(b'{"at": 132.0, "checkpoint": true}\n')
    with caplog.at_level(logging.ERROR):
        second = Table(tmp_path)
        second.engine.start(BOOT)
    game = second.game
    assert (game.phase, game.mover, game.paused_by) == (g.Phase.PAUSED, "C", g.RECOVERY)
    assert [m.seat for m in game.moves] == ["A", "B"]  # every move before the damage
    assert second.engine.info.game_no == 1
    said = [r.getMessage().split(": ", 1)[1] for r in caplog.records]
    assert [s[: s.index(" (")] for s in said] == [f"line {sound + 1} is damaged"]
    later = now(second)
    second.press("C", later + 1).press("C", later + 3)  # resumed, then C ends the move
    third = cut(second, tmp_path)  # what followed the recovery is kept: D moves
    assert (third.game.mover, [m.seat for m in third.game.moves]) == ("D", ["A", "B", "C"])


class Cut(BaseException):
    """The power went: raised in place of the file operation it fell on."""


#: The file operations a next-game tap is made of (the counter's and the journal's).
OPERATIONS = ("open", "write", "fsync", "replace", "rename", "link", "unlink", "truncate")


def cut_at(mocker: MockerFixture, fall: int) -> list[str]:
    """From now on the ``fall``-th file operation (0 first) never happens: the power goes
    instead. Returns the names of the operations made so far."""
    made: list[str] = []
    for name in OPERATIONS:
        real = getattr(os, name)

        def operation(*args: object, _real: object = real, _name: str = name) -> object:
            if len(made) == fall:
                raise Cut(_name)
            made.append(_name)
            return _real(*args)  # type: ignore[operator]

        mocker.patch.object(os, name, operation)
    return made


def test_a_cut_at_any_step_of_the_next_game_tap_gives_exactly_the_next_number(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    steps, fall = None, 0
    while steps is None or fall <= steps:
        folder = tmp_path / f"cut-{fall}"
        folder.mkdir()
        first = finish(playing(folder), 120.0)
        result_1 = (folder / "result-1.json").read_bytes()
        made = cut_at(mocker, fall)
        try:
            first.engine.new_game(130.0)
            steps = len(made)  # the whole tap, uncut: every step is a place to cut
        except Cut:
            pass
        mocker.stopall()
        second = cut(first, folder)
        assert (folder / "result-1.json").read_bytes() == result_1
        at = now(second)  # the table's clock goes on from the journal's
        if second.game.phase is g.Phase.DONE:  # cut before the counter: the tap is not taken
            assert second.engine.info.game_no == 1, f"cut at step {fall} of the next-game tap"
            assert second.engine.new_game(at + 1)
        assert second.engine.info.game_no == 2, f"cut at step {fall} of the next-game tap"
        assert second.game.phase is g.Phase.READY
        finish(second.press("A", at + 2), at + 10)  # game 2: A hands B, its starter, the clock
        assert second.engine.new_game(at + 20)
        assert second.engine.info.game_no == 3
        archived = sorted(p.name for p in folder.glob("journal.game-*"))
        assert archived == ["journal.game-1.jsonl", "journal.game-2.jsonl"], archived
        fall += 1
    assert steps > 5


def test_a_missing_journal_is_one_log_line_and_the_counters_game_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = finish(playing(tmp_path), 120.0)
    assert first.engine.new_game(130.0)
    first.journal.close()
    (tmp_path / "journal.jsonl").unlink()  # game 2 was never played: nothing of it is lost
    with caplog.at_level(logging.WARNING):
        second = cut(first, tmp_path)
    assert (second.engine.info.game_no, second.game.phase) == (2, g.Phase.READY)
    said = [r.getMessage() for r in caplog.records if "dziennika" in r.getMessage()]
    assert said == [
        "stół 1: brak dziennika gry 2 (awaria w chwili jej rozpoczęcia?); gra 2 od początku"
    ]


def test_each_game_is_started_by_the_next_seat_and_a_restored_game_keeps_its_starter(
    tmp_path: Path,
) -> None:
    table = finish(playing(tmp_path), 120.0)  # game 1: D's tap started A's clock
    starters = ["A"]
    for game_no in (2, 3, 4, 5):
        assert table.engine.new_game(200.0 * game_no)
        assert table.engine.info.game_no == game_no
        starters.append(table.game.settings.starter)
        assert table.screen("A").starter == starters[-1]  # the ready screens say who starts
        if game_no < 5:
            before = "ABCD"["ABCD".index(starters[-1]) - 1]
            finish(table.press(before, 200.0 * game_no + 1), 200.0 * game_no + 10)
    assert starters == ["A", "B", "C", "D", "A"]  # round the table (000 f)
    table.press("D", 1001.0)  # the seat before A hands A the clock
    assert (table.game.phase, table.game.mover) == (g.Phase.MOVE, "A")
    header = json.loads((tmp_path / "journal.jsonl").read_text().splitlines()[0])
    assert (header["game_no"], header["starter"]) == (5, "A")
    second = cut(table, tmp_path)
    assert (second.engine.info.game_no, second.game.settings.starter) == (5, "A")
    assert (second.game.phase, second.game.mover) == (g.Phase.PAUSED, "A")


def test_a_journal_without_a_starter_gets_the_one_its_game_number_gives(tmp_path: Path) -> None:
    first = Table(tmp_path)
    first.engine.start(100.0)
    first.journal.close()
    path = tmp_path / "journal.jsonl"
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    del header["starter"]  # written before the starter rotated
    header["game_no"] = 2
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    second = Table(tmp_path)
    second.engine.start(BOOT)
    assert (second.engine.info.game_no, second.game.settings.starter) == (2, "B")


def test_even_without_the_counter_the_results_kept_set_the_next_number(tmp_path: Path) -> None:
    first = finish(playing(tmp_path), 120.0)
    first.journal.close()
    (tmp_path / "game-no").unlink()
    (tmp_path / "journal.jsonl").unlink()
    second = Table(tmp_path)
    second.engine.start(BOOT)
    assert second.engine.info.game_no == 2


def test_a_result_never_overwrites_another(tmp_path: Path) -> None:
    (tmp_path / "result-1.json").write_text('{"someone": "else"}\n')
    (tmp_path / "game-no").write_text("0\n")  # a counter that went wrong
    table = Table(tmp_path)
    table.engine.start(100.0)
    assert table.engine.info.game_no == 2  # the kept result is a floor
    (tmp_path / "result-2.json").write_text('{"someone": "else"}\n')
    finish(table.press("A", 101.0), 120.0)  # game 2: A hands B, its starter, the clock
    assert (tmp_path / "result-2.json").read_text() == '{"someone": "else"}\n'
    kept = json.loads((tmp_path / "result-2.1.json").read_text())
    assert kept["game_no"] == 2


def test_a_result_is_fsynced_and_renamed_into_place(tmp_path: Path, mocker: MockerFixture) -> None:
    table = Table(tmp_path)
    table.engine.start(100.0)
    table.press("D", 101.0)
    fsync = mocker.spy(os, "fsync")
    link = mocker.spy(os, "link")
    finish(table, 120.0)
    # The temporary file was fsynced, linked into place and the folder fsynced after it.
    assert link.call_args.args[1] == tmp_path / "result-1.json"
    assert fsync.call_count >= 2
    assert not list(tmp_path.glob(".result-*"))  # no temporary file left behind


def test_after_the_count_a_tap_shows_the_whole_table(tmp_path: Path) -> None:
    table = finish(playing(tmp_path), 120.0)
    assert table.screen("B").whole_table is False
    table.press("B", 130.0)
    assert (table.screen("B").whole_table, table.screen("A").whole_table) == (True, False)
    table.press("B", 132.0)
    assert table.screen("B").whole_table is False
