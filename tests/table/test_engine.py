"""The engine between the queue and the outputs: journal, recovery, screens, alerts.

No threads and no sleeping: items and ticks are handed in with their moments, as the engine
thread would. The screens are the real renderer; the panels the real luma drivers on
recording buses (the virtual table's panels).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from klik.core import game as g
from klik.core.tabletop import Edge
from klik.table import config as c
from klik.table.game import journal as j
from klik.table.game.engine import Engine, Outbox
from klik.table.hardware.gpio import JudgeEdge
from klik.table.hardware.i2cbus import RecordingBus
from klik.table.hardware.panels import PanelConfig, Panels, open_panels, recording_serials
from klik.table.hardware.signals import Outputs
from klik.table.screens.render import render
from klik.table.screens.view import Alert, AlertKind, PausedBy, Screen

CONFIG = c.from_text('[panels]\ninterface = "sim"\n[players]\nA = "Ania"\nB = "Bartek"\n')


class Table:
    """An engine with a real journal in ``folder`` and the virtual table's panels; ``config``,
    ``outbox`` and ``on_kept`` as the engine's (no link to the hub by default)."""

    def __init__(
        self,
        folder: Path,
        journal: j.Journal | None = None,
        panels: Panels | None = None,
        *,
        config: c.Config = CONFIG,
        outbox: Outbox | None = None,
        on_kept: Callable[[], None] | None = None,
    ) -> None:
        self.outputs: list[Outputs] = []
        self.shown: list[tuple[str, float]] = []
        self.panels = panels or open_panels(config, now=0.0)
        self.journal = journal or j.Journal(folder / "journal.jsonl")
        self.engine = Engine(
            config,
            self.journal,
            self.panels,
            set_outputs=self.outputs.append,
            on_frame=lambda seat, image, now: self.shown.append((seat, now)),
            outbox=outbox,
            on_kept=on_kept,
        )

    def press(self, seat: str, at: float, length: float = 0.1) -> Table:
        self.engine.handle(Edge(seat, True, at), at)
        self.to(at + length)
        self.engine.handle(Edge(seat, False, at + length), at + length)
        return self.to(at + length + 0.5)

    def to(self, until: float) -> Table:
        engine = self.engine
        now = engine.driver.now
        while (wake := engine.next_wake(now)) is not None and wake <= until:
            now = max(wake, now + 1e-6)
            engine.tick(now)
        engine.tick(until)
        return self

    @property
    def game(self) -> g.Game:
        return self.engine.game

    def screen(self, seat: str) -> Any:
        return self.engine.views[seat]


def test_a_game_journals_every_edge_and_redraws_only_what_changed(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(0.0)
    assert len(table.shown) == 4  # every seat's first screen
    table.press("D", 1.0)
    assert (table.game.phase, table.game.mover) == (g.Phase.MOVE, "A")
    table.shown.clear()
    table.to(11.05)  # ten seconds of the clock running
    # Only the seconds change: each of the four screens once a second, nothing in between.
    assert len(table.shown) == 4 * 10
    lines = (tmp_path / "journal.jsonl").read_text().splitlines()
    assert len(lines) >= 1 + 2 + 10  # header, D's two edges, a checkpoint a second


def test_after_a_power_cut_the_game_comes_back_paused_with_its_time(tmp_path: Path) -> None:
    first = Table(tmp_path)
    first.engine.start(100.0)
    first.press("D", 101.0).press("A", 110.0)  # A's move ended; B's runs from 110
    first.to(125.4)  # the power goes at 125.4: B had 44.6 s left at the last checkpoint
    first.journal.close()

    second = Table(tmp_path)
    offset = second.engine.start(3.0)  # the Pi boots; its monotonic clock starts again
    game = second.game
    assert (game.phase, game.mover, game.paused_by) == (g.Phase.PAUSED, "B", g.RECOVERY)
    assert game.left_s == pytest.approx(60 - (125.0 - 110.0), abs=1.0)
    assert offset == pytest.approx(second.engine.driver.now - 3.0)
    assert {v.screen for v in second.engine.views.values()} == {Screen.PAUSED}
    assert second.screen("B").paused_by == g.RECOVERY
    now = second.engine.driver.now
    second.press("C", now + 1)  # only the mover goes on
    assert second.game.phase is g.Phase.PAUSED
    second.press("B", now + 2)
    assert (second.game.phase, second.game.mover) == (g.Phase.MOVE, "B")


def test_a_journal_cut_short_mid_line_still_recovers(tmp_path: Path) -> None:
    first = Table(tmp_path)
    first.engine.start(0.0)
    first.press("D", 1.0).press("A", 5.0)
    first.journal.close()
    with (tmp_path / "journal.jsonl").open("a") as f:
        f.write('{"at": 9.0, "seat": "B", "do')
    second = Table(tmp_path)
    second.engine.start(0.0)
    assert (second.game.phase, second.game.mover) == (g.Phase.PAUSED, "B")


def test_a_corrupt_journal_is_moved_aside_and_a_new_game_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "journal.jsonl").write_text("this is not a journal\n")
    table = Table(tmp_path)
    with caplog.at_level(logging.ERROR):
        table.engine.start(0.0)
    assert table.game.phase is g.Phase.READY
    assert (tmp_path / "journal.corrupt-1.jsonl").exists()
    assert "damaged" in caplog.text


def test_a_full_disk_does_not_stop_the_game(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A link, so that the game counter and results stay in tmp_path rather than in /dev.
    (tmp_path / "journal.jsonl").symlink_to("/dev/full")
    table = Table(tmp_path, journal=j.Journal(tmp_path / "journal.jsonl"))
    with caplog.at_level(logging.ERROR):
        table.engine.start(0.0)
        table.press("D", 1.0).press("A", 3.0)
    assert (table.game.mover, len(table.game.moves)) == ("B", 1)
    assert caplog.text.count("No space left on device") == 1


def test_a_stuck_button_is_shown_until_released(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(0.0)
    table.press("D", 1.0)
    table.engine.handle(Edge("C", True, 2.0), 2.0)
    table.to(13.0)  # C's button has been down for 11 s
    assert all(Alert(AlertKind.STUCK, "C") in v.alerts for v in table.engine.views.values())
    # At 2 s it looked like a judge call, as a stuck button cannot be told from one until then:
    # the clock will stop when A's move ends.
    assert (table.game.phase, table.game.called_by) == (g.Phase.MOVE, "C")
    table.engine.handle(Edge("C", False, 14.0), 14.0)
    table.to(14.5)
    assert all(v.alerts == () for v in table.engine.views.values())


def test_chatter_on_the_movers_button_is_one_tap(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(0.0)
    table.press("D", 1.0)
    for i in range(7):  # the contact bounces for 12 ms and stays closed
        at = 5.0 + i * 0.002
        table.engine.handle(Edge("A", i % 2 == 0, at), at)
    table.engine.handle(Edge("A", False, 5.1), 5.1)
    table.to(6.0)
    assert [(m.seat, m.ended_by) for m in table.game.moves] == [("A", g.EndedBy.TAP)]
    assert table.game.mover == "B"


def test_all_four_seats_pressing_at_once(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(0.0)
    table.press("D", 1.0)
    for i, seat in enumerate("ABCD"):  # a millisecond apart
        table.engine.handle(Edge(seat, True, 5.0 + i / 1000), 5.0 + i / 1000)
    for i, seat in enumerate("DCBA"):
        table.engine.handle(Edge(seat, False, 5.1 + i / 1000), 5.1 + i / 1000)
    table.to(6.0)
    # The mover's tap counts; the others are taps out of turn, logged and ignored.
    assert (table.game.mover, len(table.game.moves)) == ("B", 1)
    ignored = [
        n.seat
        for n in table.engine.driver.effects
        if isinstance(n, g.Note) and n.kind is g.NoteKind.IGNORED
    ]
    assert sorted(ignored) == ["B", "C", "D"]


def test_the_judge_key_pauses_resumes_and_starts_the_next_game(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(0.0)

    def judge(at: float, length: float = 0.2) -> None:
        table.engine.handle(JudgeEdge(True, at), at)
        table.engine.handle(JudgeEdge(False, at + length), at + length)

    judge(1.0)
    assert (table.game.phase, table.game.mover) == (g.Phase.MOVE, "A")
    judge(5.0)
    assert (table.game.phase, table.game.paused_by) == (g.Phase.PAUSED, "judge")
    judge(8.0)
    assert table.game.phase is g.Phase.MOVE
    table.engine.handle(g.Order(g.Action.END, 9.0), 9.0)
    for seat, at in zip("ABCD", (10.0, 11.0, 12.0, 13.0), strict=True):
        table.engine.handle(Edge(seat, True, at), at)
        table.engine.handle(Edge(seat, False, at + 0.05), at + 0.05)
        table.engine.handle(Edge(seat, True, at + 0.15), at + 0.15)
        table.engine.handle(Edge(seat, False, at + 0.2), at + 0.2)
        table.to(at + 0.8)
    assert table.game.phase is g.Phase.DONE
    assert (tmp_path / "result-1.json").exists()
    judge(20.0)
    assert (table.game.phase, table.engine.info.game_no) == (g.Phase.READY, 2)
    assert (tmp_path / "journal.game-1.jsonl").exists()


def test_the_leds_follow_the_game(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(0.0)
    assert table.outputs[-1] == Outputs((False, False, False, True), False, (False,) * 4)
    table.press("D", 1.0)
    assert table.outputs[-1].leds == (True, False, False, False)


def panels_on(buses: dict[str, RecordingBus]) -> Panels:
    configs = [PanelConfig(seat, "ssd1306", "i2c") for seat in "ABCD"]
    return Panels.open(configs, now=0.0, make_serial=recording_serials(buses), retry_s=5.0)


def test_a_press_during_a_panel_failure_still_counts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    buses = {seat: RecordingBus() for seat in "ABCD"}
    table = Table(tmp_path, panels=panels_on(buses))
    table.engine.start(0.0)
    table.press("D", 1.0)
    buses["C"].fail = True  # C's cable comes loose
    with caplog.at_level(logging.WARNING):
        table.press("A", 3.0)
    assert (table.game.mover, len(table.game.moves)) == ("B", 1)  # the clock never stopped
    assert table.panels.out == frozenset("C")
    assert sum("panel C" in r.getMessage() for r in caplog.records) == 1
    assert all(Alert(AlertKind.PANEL, "C") in table.screen(seat).alerts for seat in "ABD")
    assert buses["A"].ram.image().tobytes() == render(table.screen("A")).tobytes()
    buses["C"].fail = False  # plugged back in
    table.to(12.0)
    assert table.panels.out == frozenset()
    assert buses["C"].ram.image().tobytes() == render(table.screen("C")).tobytes()
    assert all(table.screen(seat).alerts == () for seat in "ABCD")


def test_a_panel_missing_at_start_is_reported_and_the_game_goes_on(tmp_path: Path) -> None:
    buses = {seat: RecordingBus() for seat in "ABCD"}
    buses["B"].fail = True  # never plugged in
    table = Table(tmp_path, panels=panels_on(buses))
    table.engine.start(0.0)
    table.press("D", 1.0).press("A", 3.0)
    assert table.game.mover == "B"
    assert table.panels.out == frozenset("B")
    assert Alert(AlertKind.PANEL, "B") in table.screen("A").alerts
    assert "panel:B" not in table.screen("B").alerts  # no use telling a screen that is out


def test_a_seat_calling_the_judge_sees_its_bar_fill_until_the_clock_stops(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(0.0)
    table.press("D", 1.0)  # A's clock runs
    table.shown.clear()
    table.engine.handle(Edge("C", True, 10.0), 10.0)
    steps = []
    for at in (10.1, 10.5, 11.0, 11.5, 11.9):
        table.to(at)
        steps.append(table.screen("C").calling)
    assert steps == [None, 3, 5, 7, 8]
    assert [seat for seat, _ in table.shown].count("C") >= 7  # redrawn at every step
    table.to(12.1)
    # Called: every screen says so, and the clock stops once A's move ends (000 s, 004 17).
    assert (table.game.phase, table.game.called_by) == (g.Phase.MOVE, "C")
    assert table.screen("C").calling is None
    assert all(v.called_by == "C" for v in table.engine.views.values())
    assert table.engine.status(12.1).judge is True  # the hub chimes at once
    table.press("A", 20.0)
    assert (table.game.phase, table.game.paused_by, table.game.mover) == (g.Phase.PAUSED, "C", "B")


def test_holding_the_judge_key_takes_the_last_hand_over_back(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.engine.start(0.0)
    table.press("D", 1.0).press("A", 5.0)  # A's move ended; B's runs
    assert table.game.mover == "B"
    table.engine.handle(JudgeEdge(True, 6.0), 6.0)
    table.to(8.0)  # held, not let go yet: nothing happens before the release
    assert (table.game.phase, table.game.mover) == (g.Phase.MOVE, "B")
    table.engine.handle(JudgeEdge(False, 9.5), 9.5)  # 3.5 s: a hold, not a tap
    game = table.game
    assert (game.phase, game.mover, game.paused_by, game.undone) == (
        g.Phase.PAUSED,
        "A",
        "judge",
        True,
    )
    assert table.screen("A").paused_by is PausedBy.JUDGE
