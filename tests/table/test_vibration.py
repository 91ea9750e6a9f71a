"""The seats' vibration motors on gpiozero's mock pins, through whole games (issue 40): a
fitted seat feels every moment it must know; in a round's game only a player who needs it;
a player who needs quiet silences the buzzer; the screens of a player who needs large type
are large."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from klik.core import game as g
from klik.table import config as c
from klik.table.hardware.gpio import TableGPIO
from klik.table.hardware.signals import Outputs
from tests.table.test_engine import Table
from tests.table.test_lineup import finish_three, lineup, received

FITTED = c.from_text(
    '[panels]\ninterface = "sim"\n[hardware]\npin_factory = "mock"\nvibration = ["A", "B", "C", "D"]\n'
)


class Wired(Table):
    """The engine's outputs on the real GPIO class over mock pins; every change of each
    seat's motor pin and of the buzzer's, with the table clock's moment."""

    def __init__(self, folder: Path, config: c.Config = FITTED) -> None:
        self.gpio = TableGPIO(config, MockFactory(), queue.Queue(), lambda: 0.0)
        super().__init__(folder, config=config)
        self.engine.presenter.set_outputs = self.wired
        self.config = config
        self.changes: list[tuple[float, str, bool]] = []
        self._last: dict[str, bool] = {}

    def wired(self, out: Outputs) -> None:
        self.gpio.set(out)
        pins = {s: self.gpio.factory.pin(self.config.pins.vibration(s)).state for s in "ABCD"}
        pins["buzzer"] = self.gpio.factory.pin(self.config.pins.buzzer).state
        for part, state in pins.items():
            if self._last.get(part, False) != bool(state):
                self.changes.append((round(self.engine.driver.now, 2), part, bool(state)))
                self._last[part] = bool(state)

    def motor(self, seat: str) -> list[tuple[float, bool]]:
        return [(at, on) for at, part, on in self.changes if part == seat]


def test_a_fitted_seat_feels_its_move_its_warning_its_timeout_the_judge_and_the_count(
    tmp_path: Path,
) -> None:
    table = Wired(tmp_path)
    table.engine.start(0.0)
    table.press("D", 1.0)  # A's move from the tap's release
    table.press("A", 5.0)  # B's move: 60 s, warned at 10 s left
    table.to(66.0)  # B's time ran out at 65.0
    table.press("B", 70.0)  # B hands over: C's move
    table.engine.handle(g.Order(g.Action.PAUSE, 80.0, by="judge"), 80.0)
    table.engine.handle(g.Order(g.Action.END, 90.0, by="judge"), 90.0)
    table.to(92.0)
    assert table.motor("A") == [(1.13, True), (1.28, False), (90.0, True), (90.15, False),
                                (90.3, True), (90.45, False)]  # fmt: skip
    warned = [(55.0, True), (55.15, False), (55.3, True), (55.45, False), (55.6, True),
              (55.75, False)]  # fmt: skip
    assert table.motor("B") == [
        (5.13, True), (5.28, False), *warned, (65.0, True), (65.8, False),
        (90.0, True), (90.15, False), (90.3, True), (90.45, False),
    ]  # fmt: skip
    assert table.motor("C")[:2] == [(70.13, True), (70.28, False)]
    assert table.motor("D") == table.motor("A")[2:]  # only the count: D never moved
    table.gpio.close()


def test_in_a_rounds_game_only_the_players_who_need_it_feel_and_quiet_silences_the_buzzer(
    tmp_path: Path,
) -> None:
    table = Wired(tmp_path)
    table.engine.start(100.0)
    args: Any = lineup(games=1)
    args["seats"]["B"]["needs"] = ["large", "vibration"]
    args["seats"]["C"]["needs"] = ["quiet"]
    received(table, args, 101.0)
    info = table.engine.info
    assert (info.large, info.felt, info.quiet) == ({"B"}, {"B"}, True)
    assert [table.screen(s).large for s in "ABCD"] == [False, True, False, False]
    table.press("C", 102.0)  # A's move: A has a motor but did not ask for it
    table.press("A", 110.0)  # B's move: B feels it
    table.to(171.0)  # B's time ran out (45 s): no buzzer, a long pulse for B
    assert table.motor("A") == []
    assert table.motor("B") == [(110.13, True), (110.28, False), (145.0, True), (145.15, False),
                                (145.3, True), (145.45, False), (145.6, True), (145.75, False),
                                (155.0, True), (155.8, False)]  # fmt: skip
    assert [c for c in table.changes if c[1] == "buzzer"] == []
    table.press("B", 172.0)
    finish_three(table, 180.0)
    assert table.engine.new_game(200.0)  # the round is over: the table's own game again
    info = table.engine.info
    assert (info.large, info.felt, info.quiet) == (frozenset(), set("ABCD"), False)
    table.gpio.close()


def test_the_buzzer_sounds_where_nobody_needs_quiet(tmp_path: Path) -> None:
    table = Wired(tmp_path)
    table.engine.start(0.0)
    table.press("D", 1.0)
    table.to(62.0)  # A's warning beep and timeout
    assert [(at, on) for at, part, on in table.changes if part == "buzzer"][:2] == [
        (51.0, True), (51.12, False),  # 10 s left of the move that began at the press
    ]  # fmt: skip


def test_large_type_by_the_config_holds_in_every_game(tmp_path: Path) -> None:
    config = c.from_text('[panels]\ninterface = "sim"\n[table]\nlarge = ["D"]\n')
    table = Table(tmp_path, config=config)
    table.engine.start(0.0)
    assert [table.screen(s).large for s in "ABCD"] == [False, False, False, True]
    received(table, lineup(games=1), 1.0)  # seat D is free in the round: still large
    assert table.engine.info.large == {"D"}


def test_a_player_who_needs_vibration_at_a_seat_without_a_motor_is_one_line(
    tmp_path: Path, caplog: Any
) -> None:
    config = c.from_text('[panels]\ninterface = "sim"\n[hardware]\nvibration = ["A"]\n')
    table = Table(tmp_path, config=config)
    table.engine.start(0.0)
    args: Any = lineup(games=1)
    args["seats"]["C"]["needs"] = ["vibration"]
    with caplog.at_level("WARNING"):
        received(table, args, 1.0)
    said = [r.getMessage() for r in caplog.records if "wibracji" in r.getMessage()]
    assert said == [
        "stół 1: gracz miejsca C potrzebuje wibracji, a to miejsce nie ma silnika"
        " (silniki: A, [hardware] vibration)"
    ]
    assert table.engine.info.felt == frozenset()  # the game goes on, nothing to drive
