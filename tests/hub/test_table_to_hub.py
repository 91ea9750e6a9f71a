"""A whole game on the real table daemon (mock pins), its result at a real hub over HTTP.

The table and the hub run for real with their threads and the real clock: the test presses
pins and waits on conditions with timeouts, as the daemon tests do.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from klik.core import game as g
from klik.table import config as c
from klik.table.screens.view import Delivery
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim
from klik_hub import hall
from klik_hub.serial.hub import SerialHub
from klik_hub.storage.store import Store
from tests.helpers.radio import Radio

PLAYERS = '[players]\nA = "Ania"\nB = "Bożena"\nC = "Łukasz"\nD = "Źdźisław"\n'


def until(table: Daemon, done: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = table.clock() + timeout_s
    while not done():
        assert table.clock() < deadline, "timed out"
        table.wait_idle(0.05)


def press(table: Daemon, seat: str) -> None:
    pin = table.gpio.button_pin(seat)
    pin.drive_low()
    threading.Event().wait(0.1)  # sleep-ok: a real press lasts longer than the debounce
    pin.drive_high()


def tap(table: Daemon, seat: str) -> None:
    press(table, seat)
    threading.Event().wait(0.2)  # sleep-ok: past the debounce: the tap is recognised


def double(table: Daemon, seat: str) -> None:
    press(table, seat)
    threading.Event().wait(0.1)  # sleep-ok: the second tap inside the double-tap window
    tap(table, seat)


def play_a_rummikub(table: Daemon) -> None:
    """D starts, A goes out at once, every seat confirms its rack (A 0, the others 0 too)."""
    tap(table, "D")
    until(table, lambda: table.engine.game.mover == "A")
    double(table, "A")
    until(table, lambda: table.engine.game.phase is g.Phase.SCORING)
    for seat in "BCDA":
        double(table, seat)
    until(table, lambda: table.engine.game.phase is g.Phase.DONE)


def paired_table(store: Store, url: str, folder: Path, table_no: int = 3) -> Daemon:
    device, key = hall.devices.pair(store, table_no)
    hub = f'[hub]\nlink = "http"\nurl = "{url}"\ntable = {table_no}\n'
    hub += f'device_id = "{device}"\nkey = "{key}"\nheartbeat_s = 0.5\n'
    daemon = sim.make_daemon(c.from_text(PLAYERS + hub), str(folder))
    daemon.start()
    return daemon


@pytest.fixture
def table(hub: tuple[str, Store], tmp_path: Path) -> Iterator[tuple[Daemon, Store]]:
    url, store = hub
    daemon = paired_table(store, url, tmp_path)
    yield daemon, store
    daemon.stop()


def test_a_finished_games_receipt_reaches_all_four_screens_and_its_result_the_hub(
    table: tuple[Daemon, Store],
) -> None:
    daemon, store = table
    play_a_rummikub(daemon)
    until(daemon, lambda: daemon.engine.info.delivery is Delivery.SENT)
    [stored] = hall.results.newest(store)
    assert (stored["table"], stored["game"], stored["seq"]) == (3, 1, 1)
    assert stored["winners"] == ["A"]
    assert stored["names"] == {"A": "Ania", "B": "Bożena", "C": "Łukasz", "D": "Źdźisław"}
    assert stored["points_check"] == "ok"
    receipt = stored["receipt"]
    assert sim.delivery(daemon) == {"state": "sent", "receipt": receipt, "waiting": 0}
    state = sim.state(daemon)
    assert state["delivery"] == sim.delivery(daemon)
    assert state["hub_url"] == daemon.config.hub.url  # the table's page links to the hub's
    views = daemon.engine.snapshot().views
    assert {seat: view.receipt for seat, view in views.items()} == dict.fromkeys(
        "ABCD", f"R-{receipt}"
    )


def test_the_hub_sees_the_table_and_its_pause_reaches_the_clock(
    table: tuple[Daemon, Store],
) -> None:
    daemon, store = table
    tap(daemon, "D")
    until(daemon, lambda: daemon.engine.game.phase is g.Phase.MOVE)
    until(daemon, lambda: (hall.devices.tables(store)[0]["status"] or {}).get("state") == "move")
    assert hall.devices.tables(store)[0]["status"]["mover"] == "A"
    hall.commands.send(store, 3, "pause")
    until(daemon, lambda: daemon.engine.game.phase is g.Phase.PAUSED)
    assert daemon.engine.game.paused_by == "hub"
    until(daemon, lambda: hall.devices.tables(store)[0]["commands"] == [])  # acknowledged
    hall.commands.send(store, 3, "players", {"A": "Ola", "B": "Bartek"})
    until(daemon, lambda: daemon.engine.info.name("A") == "Ola")
    hall.commands.send(store, 3, "resume")
    until(daemon, lambda: daemon.engine.game.phase is g.Phase.MOVE)
    assert daemon.engine.game.mover == "A"


def test_a_result_kept_while_the_hub_is_away_is_sent_when_the_table_comes_back(
    hub: tuple[str, Store], tmp_path: Path
) -> None:
    """The table plays with no hub (a port where nothing listens), stops, and starts again
    pointed at the hub: the outbox on the card carries the result over the restart."""
    url, store = hub
    away = paired_table(store, "http://127.0.0.1:9", tmp_path)
    play_a_rummikub(away)
    until(away, lambda: away.engine.info.delivery is Delivery.UNREACHABLE)
    assert sim.delivery(away)["waiting"] == 1
    away.stop()
    assert hall.results.newest(store) == []
    config = away.config
    back = sim.make_daemon(c.from_text(PLAYERS + _hub_section(config, url)), str(tmp_path))
    back.start()
    try:
        until(back, lambda: len(hall.results.newest(store)) == 1)
        until(back, lambda: sim.delivery(back)["waiting"] == 0)
    finally:
        back.stop()


def _hub_section(config: c.Config, url: str) -> str:
    hub = config.hub
    return (
        f'[hub]\nlink = "http"\nurl = "{url}"\ntable = {hub.table}\n'
        f'device_id = "{hub.device_id}"\nkey = "{hub.key}"\nheartbeat_s = 0.5\n'
    )


@pytest.mark.quiet  # the simulated radio as a cable, on the real clock
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_over_a_serial_cable_the_receipt_reaches_the_screens_and_a_pushed_pause_the_clock(
    store: Store, tmp_path: Path
) -> None:
    """``[hub] link = "serial"``: the daemon's courier on a pty, the hub's SerialHub on the other
    end of a simulated cable (tests/helpers/radio.py)."""
    device, key = hall.devices.pair(store, 4)
    with Radio(2, 115200) as radio:
        hub = SerialHub(store, radio.path(0), 115200, push_s=0.2)
        hub.start()
        section = (
            f'[hub]\nlink = "serial"\nserial_port = "{radio.path(1)}"\nserial_baud = 115200\n'
            f'table = 4\ndevice_id = "{device}"\nkey = "{key}"\n'
        )
        daemon = sim.make_daemon(c.from_text(PLAYERS + section), str(tmp_path))
        daemon.start()
        try:
            tap(daemon, "D")
            until(daemon, lambda: daemon.engine.game.phase is g.Phase.MOVE)
            hall.commands.send(store, 4, "pause")  # pushed: the table has not sent a heartbeat yet
            until(daemon, lambda: daemon.engine.game.phase is g.Phase.PAUSED)
            assert daemon.engine.game.paused_by == "hub"
            daemon.put(g.Order(g.Action.END, daemon.clock()))
            for seat in "ABCD":
                double(daemon, seat)
            until(daemon, lambda: daemon.engine.info.delivery is Delivery.SENT, 20.0)
            [stored] = hall.results.newest(store)
            assert sim.delivery(daemon) == {
                "state": "sent", "receipt": stored["receipt"], "waiting": 0,
            }  # fmt: skip
        finally:
            daemon.stop()
            hub.stop()
