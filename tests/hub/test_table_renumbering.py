"""A table paired at the table, renumbered by the judge and re-paired by the judge key, with a
live hub: the real daemon (the virtual table's, mock pins) carries out the hub's ``renumber``
by rewriting ``paired.toml`` and showing its new number, which a restart keeps; a 5 s hold of
the judge key on a ready game asks the hub to join again in the background, the table staying
paired until the judge's accept replaces its pairing."""

from __future__ import annotations

import socket
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from klik.core import game as g
from klik.link import protocol as p
from klik.link.courier import Command
from klik.table import config as c
from klik.table.config import paired
from klik.table.screens.view import Delivery
from klik.table.service.daemon import Daemon
from klik.table.sim import virtual as sim
from klik_hub import hall
from klik_hub.storage.store import Store
from tests.hub.test_table_to_hub import PLAYERS, double, play_a_rummikub, tap, until

Hub = tuple[str, Store]


def section(url: str) -> c.Config:
    return c.from_text(PLAYERS + f'[hub]\nlink = "http"\nurl = "{url}"\nheartbeat_s = 0.5\n')


def paired_at_the_table(store: Store, url: str, folder: Path, table_no: int) -> Daemon:
    """A virtual table whose ``paired.toml`` holds what the judge's accept of table
    ``table_no`` gave (as ``Daemon._joined`` keeps it), not started."""
    device, key = hall.devices.pair(store, table_no)
    folder.mkdir(parents=True, exist_ok=True)
    given = {"url": url, "table": table_no, "device_id": device, "key": key}
    paired.keep(sim.sim_config(section(url), str(folder)), given)
    return sim.make_daemon(section(url), str(folder))


def kept(folder: Path) -> dict[str, Any]:
    hub: dict[str, Any] = tomllib.loads((folder / paired.FILE).read_text())["hub"]
    return hub


def soon(done: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "timed out"
        threading.Event().wait(0.05)  # sleep-ok: the daemon's threads on the real clock


def test_a_renumbered_table_shows_and_keeps_its_new_number(hub: Hub, tmp_path: Path) -> None:
    url, store = hub
    table = paired_at_the_table(store, url, tmp_path, 7)
    device = table.config.hub.device_id
    table.start()
    try:
        said = httpx.post(f"{url}/api/v1/tables/7/renumber", json={"table": 12})
        assert said.status_code == 200, said.text
        soon(lambda: table.engine.views["B"].table == "12")
        assert table.config.table.name == "12"
        assert kept(tmp_path) == {"url": url, "table": 12, "device_id": device,
                                  "key": table.config.hub.key}  # fmt: skip
        soon(lambda: hall.devices.tables(store)[0]["commands"] == [])  # acknowledged
        assert [(t["table"], t["device"]) for t in hall.devices.tables(store)] == [(12, device)]
    finally:
        table.stop()
    again = sim.make_daemon(section(url), str(tmp_path))  # a restart
    try:
        assert (again.config.table.name, again.config.hub.table) == ("12", 12)
        assert again.config.hub.device_id == device
    finally:
        again.stop()


def test_a_renumber_while_the_hub_s_new_address_is_kept_keeps_both(
    hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The watch's thread keeps a hub found again while the courier's carries out a renumber:
    # each rewrites paired.toml from what it read, so without one lock the later write
    # would undo the other's change, on the card and in the config.
    url, store = hub
    table = paired_at_the_table(store, url, tmp_path, 7)
    moved = "https://192.0.2.9:8443"
    writing, go_on = threading.Event(), threading.Event()
    keep = paired.keep

    def slow_keep(config: c.Config, given: dict[str, Any]) -> Path:
        if given.get("url") == moved and not writing.is_set():
            writing.set()
            assert go_on.wait(10)
        return keep(config, given)

    monkeypatch.setattr(paired, "keep", slow_keep)
    table.start()
    try:
        mover = threading.Thread(target=table._moved, args=(moved,))
        mover.start()
        assert writing.wait(10)
        order = Command("r1", p.CommandKind.RENUMBER, {"table": 12})
        renumber = threading.Thread(target=table._renumber, args=(order,))
        renumber.start()
        renumber.join(0.3)  # sleep-ok: the renumber's thread gets to the file meanwhile
        go_on.set()
        mover.join(10)
        renumber.join(10)
        assert (kept(tmp_path)["url"], kept(tmp_path)["table"]) == (moved, 12)
        assert (table.config.hub.url, table.config.hub.table) == (moved, 12)
    finally:
        go_on.set()
        table.stop()


def hold_judge_key(table: Daemon, seconds: float) -> None:
    """The judge key held for ``seconds`` on the table's clock, which jumps ahead meanwhile
    (a ready game: no clock runs)."""
    pin = table.gpio.judge_pin()
    pin.drive_low()
    table.wait_idle()
    table.offset += seconds
    pin.drive_high()
    table.wait_idle()


def test_a_5_s_judge_key_hold_re_pairs_only_once_the_judge_accepts(
    hub: Hub, tmp_path: Path
) -> None:
    url, store = hub
    table = paired_at_the_table(store, url, tmp_path, 7)
    old = kept(tmp_path)
    table.start()
    try:
        soon(lambda: hall.devices.tables(store)[0]["seen_s_ago"] is not None)
        hold_judge_key(table, 4.0)  # an undo on a ready game: nothing asks
        threading.Event().wait(0.5)  # sleep-ok: a joiner would have asked by now
        assert httpx.get(f"{url}/api/v1/pairing").json() == []
        hold_judge_key(table, 5.5)
        soon(lambda: len(httpx.get(f"{url}/api/v1/pairing").json()) == 1)
        (asking,) = httpx.get(f"{url}/api/v1/pairing").json()
        digits = asking["digits"]
        soon(
            lambda: (
                [a.text for a in table.engine.views["A"].alerts] == [f"{digits[:3]} {digits[3:]}"]
            )
        )
        # still paired meanwhile: the old pairing kept, its heartbeats taken
        assert table.pairing == ("paired", None)
        assert kept(tmp_path) == old
        seen = hall.devices.tables(store)[0]["status"]
        assert seen is not None
        accept = {"table": 7, "digits": digits}
        # Table 7 is paired, to this very table: its request proves it (the old pairing's
        # MAC), so the judge takes its number back without replacing anyone.
        accepted = httpx.post(f"{url}/api/v1/pairing/{asking['id']}", json=accept)
        assert accepted.status_code == 201, accepted.text
        new_device = accepted.json()["device"]
        soon(lambda: table.config.hub.device_id == new_device)
        assert kept(tmp_path)["device_id"] == new_device != old["device_id"]
        assert kept(tmp_path)["table"] == 7
        # the new pairing's heartbeats reach the hub
        soon(lambda: hall.devices.tables(store)[0]["seen_s_ago"] is not None)
        assert [t["device"] for t in hall.devices.tables(store)] == [new_device]
    finally:
        table.stop()


def play_the_next(table: Daemon) -> None:
    """The next game, as ``play_a_rummikub`` plays game 1: the seat before its starter starts
    it, the starter goes out at once, every seat confirms."""
    until(table, lambda: table.engine.game.phase is g.Phase.READY)
    seats, starter = table.engine.game.settings.seats, table.engine.game.settings.starter
    tap(table, seats[seats.index(starter) - 1])
    until(table, lambda: table.engine.game.mover == starter)
    double(table, starter)
    until(table, lambda: table.engine.game.phase is g.Phase.SCORING)
    for seat in seats:
        double(table, seat)
    until(table, lambda: table.engine.game.phase is g.Phase.DONE)


def test_a_table_re_paired_to_another_number_takes_its_waiting_results_along(
    hub: Hub, tmp_path: Path
) -> None:
    """Paired as 3, two results waiting (its hub's address was wrong), the judge key's re-pair
    accepted as 8: the request proved the old pairing, so both results count as table 3's,
    table 3's device is retired and the console shows `3 → 8`; game 3 goes out as table 8."""
    url, store = hub
    with socket.socket() as unused:  # an address where no hub answers
        unused.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{unused.getsockname()[1]}"
    table = paired_at_the_table(store, nowhere, tmp_path, 3)
    old = kept(tmp_path)["device_id"]
    table.start()
    try:
        play_a_rummikub(table)
        table.call(lambda engine, now: engine.new_game(now))  # the judge's next-game tap
        play_the_next(table)
        soon(lambda: table.engine.keeper.waiting == 2)
        table.call(lambda engine, now: engine.new_game(now))  # game 3 ready: the key re-pairs
        # The hub's right address, as a hub found again on the network gives it (``_moved``):
        # the re-pair asks there, and the new pairing's courier sends there.
        table.hub_url = url
        table.config = replace(table.config, hub=replace(table.config.hub, url=url))
        hold_judge_key(table, 5.5)
        soon(lambda: len(httpx.get(f"{url}/api/v1/pairing").json()) == 1)
        (asking,) = httpx.get(f"{url}/api/v1/pairing").json()
        accepted = httpx.post(
            f"{url}/api/v1/pairing/{asking['id']}", json={"table": 8, "digits": asking["digits"]}
        )
        assert accepted.status_code == 201, accepted.text
        new = accepted.json()["device"]
        soon(lambda: len(hall.results.newest(store)) == 2)
        stored = hall.results.newest(store)
        assert {(r["table"], r["device"], r["game"]) for r in stored} == {(3, new, 1), (3, new, 2)}
        (row,) = hall.devices.tables(store)  # the old device is retired: no row for it
        assert (row["table"], row["device"], row["carried"]) == (8, new, [3])
        assert old not in {t["device"] for t in hall.devices.tables(store)}
        play_the_next(table)  # game 3, played as table 8
        soon(lambda: len(hall.results.newest(store)) == 3)
        assert hall.results.newest(store)[0]["table"] == 8
        assert table.engine.keeper.delivery is Delivery.SENT
    finally:
        table.stop()
