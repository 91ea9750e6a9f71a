"""The daemon with its real threads: mock pins in, images and systemd notifications out.

These tests use the real clock and real threads (that is what they test), so they wait on
events with timeouts; the engine's logic is tested without either in test_engine.py.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from klik.core import game as g
from klik.table import config as c
from klik.table.hardware.panels import Panels
from klik.table.screens.view import Alert, AlertKind
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim


def test_a_pin_edge_reaches_the_engine_and_the_screens(tmp_path: Path) -> None:
    table = sim.make_daemon(c.load(None), str(tmp_path))
    table.start()
    try:
        assert table.alive(stale_s=3.0)
        first = table.engine.snapshot().frames["A"]
        pin = table.gpio.button_pin("D")
        pin.drive_low()
        threading.Event().wait(0.1)  # sleep-ok: a real press lasts longer than the debounce
        pin.drive_high()
        table.wait_idle()
        deadline = table.clock() + 3.0
        while table.engine.game.phase is g.Phase.READY and table.clock() < deadline:
            table.wait_idle(0.05)
        table.wait_idle()  # the engine may be between the step and the redraw: let it finish
        assert (table.engine.game.phase, table.engine.game.mover) == (g.Phase.MOVE, "A")
        assert table.engine.snapshot().frames["A"] > first
        assert (tmp_path / "journal.jsonl").read_text().count('"seat": "D"') == 2
    finally:
        table.stop()
    assert not table.alive(stale_s=3.0)


def test_klik_table_tells_systemd_it_is_ready_pings_the_watchdog_and_stops_on_sigterm(
    tmp_path: Path,
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\nstate_dir = "{tmp_path}"\n[hardware]\npin_factory = "mock"\n'
        '[panels]\ninterface = "sim"\n'
    )
    address = str(tmp_path / "notify.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(address)
    listener.settimeout(20)
    env = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "400000"}
    env.pop("WATCHDOG_PID", None)
    daemon = subprocess.Popen(
        [sys.executable, "-m", "klik.cli", "table", "--config", str(config)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        messages = [listener.recv(4096).decode() for _ in range(3)]
        assert messages[0].startswith("READY=1")
        assert "STATUS=Stół 1: gotowy" in messages[0]  # Polish survives the socket
        assert "WATCHDOG=1" in messages[1:]
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=20) == 0
    finally:
        daemon.kill()
        listener.close()
    assert (tmp_path / "journal.jsonl").exists()


class Monotonic:
    """The monotonic clock, moved by the test: a restart without a reboot goes on from it."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _table(tmp_path: Path, clock: Monotonic) -> Daemon:
    config = sim.sim_config(c.load(None), str(tmp_path))
    return Daemon(config, screens=sim.open_panels(config), clock=clock)


def _tap(table: Daemon, clock: Monotonic, seat: str) -> None:
    pin = table.gpio.button_pin(seat)
    pin.drive_low()
    clock.now += 0.2  # held longer than the debounce, on the table's clock
    pin.drive_high()
    clock.now += 0.2


@pytest.mark.parametrize("reboot", [True, False], ids=["after-a-reboot", "systemd-restart"])
def test_a_press_while_the_table_starts_never_costs_the_game(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, reboot: bool
) -> None:
    """The pins are live before the journal has set the clock, so an edge then is stamped on
    the raw monotonic clock: after a reboot it lay far before the game's time (the next start
    judged the journal damaged and began a new game); without one, far after it (the
    mover's resume tap was ignored for as long as the table had been down). It is dropped."""
    clock = Monotonic(5000.0)
    first = _table(tmp_path, clock)
    first.start()
    _tap(first, clock, "D")  # D's tap starts the clock: A moves
    first.wait_idle()
    assert first.engine.game.phase is g.Phase.MOVE
    game_no = first.engine.info.game_no
    first.stop()

    clock.now = 12.0 if reboot else clock.now + 100.0
    second = _table(tmp_path, clock)
    with caplog.at_level(logging.WARNING, "klik.table.service.daemon"):
        _tap(second, clock, "A")  # pressed while the daemon starts
        second.start()
        second.wait_idle()
    assert second.engine.game.paused_by == g.RECOVERY  # the game goes on, paused for safety
    assert second.early_edges == 2
    assert [r.getMessage() for r in caplog.records if "sprzed" in r.getMessage()] == [
        "stół 1: naciśnięcie sprzed uruchomienia zegara pominięte (i kolejne takie)"
    ]
    _tap(second, clock, "A")  # the mover's tap resumes the clock
    second.wait_idle()
    assert (second.engine.game.phase, second.engine.game.paused_by) == (g.Phase.MOVE, None)
    second.stop()

    clock.now += 50.0
    third = _table(tmp_path, clock)
    third.start()
    third.wait_idle()
    assert (third.engine.info.game_no, third.engine.game.phase) == (game_no, g.Phase.PAUSED)
    assert third.engine.game.paused_by == g.RECOVERY
    third.stop()


def test_the_power_fail_line_keeps_the_game_says_so_and_stops_the_table(tmp_path: Path) -> None:
    """A UPS HAT's power-fail line goes low in a move: the clock's moment is journalled, every
    seat says "Zasilanie!" (and keeps saying it after the process ends), the table asks to
    stop, and it comes back on the same move."""
    config = c.from_text("[hardware]\npower_fail_pin = 7")
    table = sim.make_daemon(config, str(tmp_path))
    table.start()
    try:
        pin = table.gpio.button_pin("D")
        pin.drive_low()
        threading.Event().wait(0.1)  # sleep-ok: a real press lasts longer than the debounce
        pin.drive_high()
        deadline = table.clock() + 3.0
        while table.engine.game.phase is g.Phase.READY and table.clock() < deadline:
            table.wait_idle(0.05)
        assert table.engine.game.mover == "A"
        assert table.gpio.power_fail is not None
        table.gpio.power_fail.pin.drive_low()  # the supply is failing
        assert table.stop_asked.wait(3.0)
        table.wait_idle()
        for view in table.engine.views.values():
            assert Alert(AlertKind.POWER) in view.alerts
        panels = table.engine.presenter.screens
        assert isinstance(panels, Panels)
        assert panels.kept_at_exit == frozenset("ABCD")
        last = json.loads((tmp_path / "journal.jsonl").read_text().splitlines()[-1])
        assert last.get("checkpoint") is True
    finally:
        table.stop()
    again = sim.make_daemon(config, str(tmp_path))
    again.start()
    try:
        game = again.engine.game
        assert (game.phase, game.mover) == (g.Phase.PAUSED, "A")
        assert not again.stop_asked.is_set()  # the line is high again: it runs
    finally:
        again.stop()
