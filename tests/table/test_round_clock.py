"""The round's clock at the table (000 o: "skończy się czas rundy"): the hub's word on the
round's time left becomes the round's zero on the table's own clock; the seats' status line
counts it down, and at the zero the table takes the round-over itself, as the hub's command
would, once, and only for a game of that round. Time is numbers: no threads, no sleeping."""

from __future__ import annotations

import logging
import random
from dataclasses import replace
from pathlib import Path

import pytest

from klik.core import game as g
from klik.link import courier as c
from klik.link import protocol as p
from klik.link.outbox import Outbox
from klik.table import config as cfg
from klik.table.hardware.panels import open_panels
from klik.table.screens.render import layout
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim
from klik.words import Language
from tests.helpers.courier import Clock
from tests.link.test_courier_round import DEVICE, KEY, Hub
from tests.table.test_daemon import Monotonic
from tests.table.test_engine import Table
from tests.table.test_lineup import lineup, received
from tests.table.test_recovery import BOOT

ENGINE = "klik.table.game.engine"
OWN = "stół 1: czas rundy minął (własny zegar)"


def round_game(folder: Path) -> Table:
    """Round 2 of tournament 7 at three seats (45 s a move): C's tap at 102 starts A's move."""
    table = Table(folder)
    table.engine.start(100.0)
    received(table, lineup(), 101.0)
    return table.press("C", 102.0)


def heard(
    table: Table, left_s: float, at: float, *, tournament: str = "7", round_no: int = 2
) -> Table:
    """The hub's answer to a heartbeat, heard at ``at``: ``left_s`` of the round left."""
    said = p.RoundClock(tournament, round_no, round(left_s * 1000))
    table.to(at)
    table.engine.round_clock(said, at, at)
    return table


def status_line(table: Table, seat: str) -> str:
    """The seat's status line (the pile's), as the English screen words it."""
    texts = [d.text for d in layout(replace(table.screen(seat), language=Language.EN)).texts]
    return next(t for t in texts if t.startswith("Pile"))


def round_overs(table: Table) -> list[g.Note]:
    """The round-overs the game took (an ignored one is a note of its own)."""
    return [
        e
        for e in table.engine.driver.effects
        if isinstance(e, g.Note) and e.kind is g.NoteKind.ORDER
        and e.order is not None and e.order.action is g.Action.ROUND_OVER
    ]  # fmt: skip


def own_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage() == OWN]


def test_the_status_line_counts_the_rounds_time_down_once_a_second(tmp_path: Path) -> None:
    table = heard(round_game(tmp_path), 754.3, 103.0)  # the zero at 857.3
    assert {s: table.screen(s).round_left for s in "ABC"} == {"A": 755, "B": 755, "C": 755}
    assert status_line(table, "B") == "Pile: 64 · round 12:35"
    assert table.screen("D").round_left is None  # the free seat shows no game
    table.shown.clear()
    for k in range(1, 41):  # the daemon's loop comes round at any moment, not on the second
        table.to(103.0 + 0.25 * k)
    # The round's seconds change with the mover's, in the same redraw: three screens once a
    # second, as without a round clock (the free seat's never changes), never twice.
    assert len(table.shown) == 3 * 10
    assert status_line(table, "B") == "Pile: 64 · round 12:25"


def test_in_a_timed_out_move_the_rounds_seconds_still_go_down_once_a_second(tmp_path: Path) -> None:
    table = heard(round_game(tmp_path), 754.0, 103.0)
    table.to(150.0)  # A's 45 s ran out at 147: the clock waits for A's hand-over
    assert table.game.phase is g.Phase.TIMED_OUT
    table.shown.clear()
    table.to(160.0)
    assert len(table.shown) == 3 * 10
    assert table.screen("C").round_left == 857 - 160


def test_at_its_zero_the_table_takes_the_round_over_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table = heard(round_game(tmp_path), 100.0, 103.0)  # the zero at 203
    table.press("A", 140.0).press("B", 180.0)  # C's move runs from 180 to 225
    with caplog.at_level(logging.INFO, ENGINE):
        table.to(210.0)
    assert (table.game.mover, table.game.round_over, table.game.final_round) == ("C", True, False)
    assert [n.at for n in round_overs(table)] == [203.0]  # at the zero, not at the next tick
    assert own_lines(caplog) == [OWN]
    journal = (tmp_path / "journal.jsonl").read_text()
    assert '{"at": 203.0, "order": "round-over", "by": "hub"}' in journal  # replayed after a cut
    assert {table.screen(s).final_round for s in "ABC"} == {True}
    assert {table.screen(s).round_left for s in "ABC"} == {None}  # the final round says it

    table.press("C", 212.0)  # the move in progress ends: every seat one more move
    assert (table.game.mover, table.game.final_left) == ("A", 3)
    before = len(table.engine.driver.effects)
    table.engine.command(c.Command("cmd-9", "round-over", {}), 215.0)  # the hub's, late
    assert (table.game.mover, table.game.final_left, table.game.round_over) == ("A", 3, False)
    whys = [e.why for e in table.engine.driver.effects[before:] if isinstance(e, g.Note)]
    assert whys == [g.Why.FINAL_ROUND_ALREADY]  # changes nothing
    with caplog.at_level(logging.INFO, ENGINE):
        table.to(230.0)
    assert len(round_overs(table)) == 1
    assert own_lines(caplog) == [OWN]


def test_a_restart_replays_the_tables_own_round_over(tmp_path: Path) -> None:
    first = heard(round_game(tmp_path), 30.0, 103.0)  # the zero at 133, in A's move
    first.to(140.0)
    assert first.game.round_over
    first.journal.close()
    second = Table(tmp_path)  # the power came back; the hub has not answered yet
    second.engine.start(BOOT)
    assert (second.game.mover, second.game.round_over) == ("A", True)


def test_an_extension_moves_the_zero(tmp_path: Path) -> None:
    table = heard(round_game(tmp_path), 60.0, 103.0)  # the zero at 163
    heard(table, 90.0, 133.0)  # the judge gave the table a minute more: the zero at 223
    table.press("A", 140.0)
    table.to(200.0)
    assert round_overs(table) == []
    assert table.screen("A").round_left == 23
    table.to(225.0)
    assert [n.at for n in round_overs(table)] == [223.0]


def test_an_answer_without_a_round_clock_forgets_it(tmp_path: Path) -> None:
    table = heard(round_game(tmp_path), 20.0, 103.0)
    table.engine.round_clock(None, 110.0, 110.0)
    table.to(140.0)
    assert round_overs(table) == []
    assert table.screen("B").round_left is None
    assert status_line(table, "B") == "Pile: 64"


def test_another_rounds_clock_is_ignored_and_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table = round_game(tmp_path)
    with caplog.at_level(logging.INFO, ENGINE):
        for at in (103.0, 105.0, 107.0):  # every heartbeat's answer says it again
            heard(table, 0.0, at, round_no=3)
        table.to(140.0)
    assert round_overs(table) == []
    assert table.screen("A").round_left is None
    ignored = [r.getMessage() for r in caplog.records if "pominięty" in r.getMessage()]
    assert ignored == ["stół 1: czas rundy 3 turnieju 7 pominięty: stół gra rundę 2 turnieju 7"]


def test_a_game_of_the_tables_own_takes_no_round_over(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(100.0)
    table.press("D", 101.0)  # the table's own game: no round's lineup
    heard(table, 0.0, 103.0)
    table.to(110.0)
    assert (round_overs(table), table.game.round_over) == ([], False)


def test_a_game_begun_after_the_zero_is_one_final_round(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table = Table(tmp_path)
    table.engine.start(100.0)
    received(table, lineup(), 101.0)
    with caplog.at_level(logging.INFO, ENGINE):
        heard(table, 0.0, 102.0)  # the round's time is up before its game began
    assert (table.game.phase, table.game.round_over) == (g.Phase.READY, True)
    assert own_lines(caplog) == [OWN]
    table.press("C", 105.0)  # the start: A's move is the final round's first
    assert (table.game.mover, table.game.final_left) == ("A", 3)
    table.press("A", 110.0).press("B", 115.0).press("C", 120.0)
    assert (table.game.phase, table.game.exhausted_by) == (
        g.Phase.SCORING,
        g.Exhaustion.ROUND_TIME,
    )
    assert [m.seat for m in table.game.moves] == ["A", "B", "C"]  # one move each (000 o)


def test_a_table_that_hears_nothing_more_ends_the_round_at_its_own_zero(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The courier and the engine on one clock the test moves: two answers, then the hub is
    gone; the heartbeats go unanswered, and the table still ends the round at its zero."""
    table = round_game(tmp_path)
    hub, clock = Hub(), Clock()
    hub.round = {"tournament": "7", "round": 2, "left_ms": 60_000}
    outbox = Outbox(tmp_path / "outbox.sqlite")
    courier = c.Courier(
        outbox, hub, DEVICE, KEY, heartbeat_s=2.0, status=p.Heartbeat,
        on_tracking=lambda _: None, on_command=lambda _: None,
        on_round=lambda said: table.engine.round_clock(said, clock.now, clock.now),
        clock=clock, rng=random.Random(5),
    )  # fmt: skip

    def run(until: float) -> None:
        while clock.now < until:
            clock.now = min(until, courier.next_heartbeat)
            table.to(clock.now)
            courier.step(clock.now)

    clock.now = 103.0
    run(104.0)  # the hub's two answers: 60 s left at 103 and 104, the zero at 164
    hub.down = True  # the Wi-Fi is gone
    with caplog.at_level(logging.INFO, ENGINE):
        run(170.0)
    assert [n.at for n in round_overs(table)] == [164.0]
    assert own_lines(caplog) == [OWN]
    outbox.close()


def test_the_daemon_dates_an_answer_when_it_is_heard(tmp_path: Path) -> None:
    """The courier's thread hands the answer over at once; the engine thread may take it off
    its queue later: the zero counts from the moment it was heard. (The daemon's threads are
    not started: the test takes the queue's items off as the engine thread would.)"""
    clock = Monotonic(1000.0)
    config = sim.sim_config(cfg.load(None), str(tmp_path))
    table = Daemon(config, screens=open_panels(config), clock=clock)
    try:
        table.engine.start(clock.now)
        table.engine.command(c.Command("cmd-1", "game", lineup()), clock.now)
        table._round(p.RoundClock("7", 2, 30_000))  # from the courier, at 1000
        clock.now += 2.5  # the engine thread is busy with a redraw
        while not table.events.empty():  # what the engine thread does with it
            table.events.get_nowait()(table.engine, table.clock())
        assert table.engine.info.round_ends == 1030.0
        assert sim.state(table)["round_left_s"] == 27.5  # the virtual table's page shows it
    finally:
        table.stop()


def test_answers_that_the_time_is_up_keep_the_zero_where_it_was(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table = round_game(tmp_path)
    with caplog.at_level(logging.INFO, ENGINE):
        heard(table, 10.0, 103.0)  # the zero at 113
        for at in (120.0, 150.0, 180.0):  # 0 left, and it stays 0 (every 30 s over serial)
            heard(table, 0.0, at)
    assert table.engine.info.round_ends == 113.0
    assert [n.at for n in round_overs(table)] == [113.0]
    from_hub = [r.getMessage() for r in caplog.records if "(od huba)" in r.getMessage()]
    assert from_hub == ["stół 1: turniej 7, runda 2: czas rundy 0:10 (od huba)"]
