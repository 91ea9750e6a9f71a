"""The daemon with its real threads: mock pins in, images and systemd notifications out.

These tests use the real clock and real threads (that is what they test), so they wait on
events with timeouts; the engine's logic is tested without either in test_engine.py.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

from klik.core import game as g
from klik.table import config as c
from klik.table import sim


def test_a_pin_edge_reaches_the_engine_and_the_screens(tmp_path: Path) -> None:
    table = sim.make_daemon(c.load(None), str(tmp_path))
    table.start()
    try:
        assert table.alive(stale_s=3.0)
        first = table.engine.snapshot().frames["A"]
        pin = table.gpio.button_pin("D")
        pin.drive_low()
        threading.Event().wait(0.1)  # a real press lasts longer than the debounce
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
