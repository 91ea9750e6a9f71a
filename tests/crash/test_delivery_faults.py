"""Results reach the hub through kills: the real ``klik sim`` and the real ``klik hub``.

The table is killed between the outbox's commit and the send, and between the send and the
hub's ack (a proxy passes the request to the hub and loses the answer); the hub is killed
while results wait. However the kills fall, every game played is stored once at the hub:
none lost, none doubled.
"""

from __future__ import annotations

import contextlib
import json
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.crash.test_crash_campaign import VirtualTable, fill, free_port, small_tmpfs

Json = dict[str, Any]


class Hub:
    """A ``klik hub`` process on one SQLite file and one port, started again after a kill."""

    def __init__(self, db: Path, port: int) -> None:
        self.db, self.port = db, port
        self.process: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{port}"

    def start(self) -> Hub:
        command = [sys.executable, "-m", "klik.cli", "hub", "--db", str(self.db)]
        self.process = subprocess.Popen(
            [*command, "--port", str(self.port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        assert self.process.stdout is not None
        for line in self.process.stdout:  # uvicorn says when it listens
            if b"Uvicorn running" in line:
                threading.Thread(target=self.process.stdout.read, daemon=True).start()
                return self
        raise AssertionError(f"klik hub did not start (exit {self.process.wait()})")

    def kill(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
            self.process = None

    def results(self) -> list[Json]:
        with urllib.request.urlopen(self.url + "/api/v1/results", timeout=10) as answer:
            listed: list[Json] = json.loads(answer.read())
            return listed


class LosingProxy:
    """Passes each request to the hub and, while ``losing`` is set, loses the hub's answer:
    the result is stored at the hub, and the table never hears so."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.losing = threading.Event()
        self.lost = 0
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with client, contextlib.suppress(OSError):
            upstream = socket.create_connection(("127.0.0.1", self.target), timeout=10)
            with upstream:
                threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()
                while data := upstream.recv(65536):
                    if self.losing.is_set():
                        self.lost += 1
                        return  # the answer is lost and the connection with it
                    client.sendall(data)

    def close(self) -> None:
        self.server.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)


def until(what: Callable[[], bool], timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not what():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)  # sleep-ok: polling real processes on the real clock


def play(table: VirtualTable, *, end: bool = True) -> str:
    """One quick game: the seat before the starter starts it, the starter goes out at once,
    every seat confirms. Each game has the next starter (000 f). Without ``end`` it stops at
    the count, where the winner's confirmation (nobody else opened) ends the game; returns
    the starter."""
    state = table.state()
    if state["state"] == "done":
        judge_tap(table)
        until(lambda: table.state()["state"] == "ready")  # the judge's tap: the next game
    starter = table.state()["starter"]
    table.tap("ABCD"["ABCD".index(starter) - 1])
    until(lambda: table.state()["mover"] == starter)  # under load a tap takes its time
    table.double(starter)
    until(lambda: table.state()["state"] == "scoring")  # a dated press is in a moment later
    if end:
        for seat in "ABCD":
            table.double(seat)
        until(lambda: table.state()["state"] == "done")
    return str(starter)


def judge_tap(table: VirtualTable) -> None:
    """A tap on the judge key: after a finished game, the next game."""
    table._request("/api/judge", {"pressed": True})
    time.sleep(0.1)  # sleep-ok: a real press of the judge key
    table._request("/api/judge", {"pressed": False})


# The presses here come over HTTP. They say when they happened (VirtualTable's ``dated``), so
# a loaded machine's slow request keeps a double tap's spacing within the virtual table's
# slack; beyond it, an edge is dated when it arrives. These tests are about delivery, not
# gestures, so the table also gives its seats the widest windows allowed.
SLOW_HANDS = """
[buttons]
hold_s = 2.0
double_s = 1.0
call_judge_s = 3.0
long_hold_s = 4.0
"""


def paired(hub: Hub, url: str, folder: Path, table: int = 5, *, slow_hands: bool = False) -> Path:
    """A table's config paired with ``hub`` as table ``table``, sending to ``url``; with
    ``slow_hands``, the buttons' widest windows (``SLOW_HANDS``: for tests that tap and
    double-tap only, since a hold must then last 2 s)."""
    pairing = subprocess.run(
        [sys.executable, "-m", "klik.cli", "pair", "--db", str(hub.db), "--table", str(table),
         "--url", url],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    config = folder / "table.toml"
    hands = SLOW_HANDS if slow_hands else ""
    config.write_text(pairing.stdout + "heartbeat_s = 0.5\n" + hands, encoding="utf-8")
    return config


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[tuple[VirtualTable, Hub, LosingProxy]]:
    hub = Hub(tmp_path / "hub.sqlite", free_port())
    proxy = LosingProxy(hub.port)
    config = paired(hub, f"http://127.0.0.1:{proxy.port}", tmp_path, slow_hands=True)
    folder = tmp_path / "state"
    folder.mkdir()
    table = VirtualTable(folder, config=config, dated=True)
    yield table, hub.start(), proxy
    table.stop()
    hub.kill()
    proxy.close()


def test_every_game_is_stored_once_through_table_and_hub_kills(
    hall: tuple[VirtualTable, Hub, LosingProxy],
) -> None:
    table, hub, proxy = hall
    table.start()

    # 1. Killed between commit and send: the hub is away when the game ends.
    hub.kill()
    play(table)
    assert table.state()["delivery"]["waiting"] == 1
    table.kill()
    hub.start()
    table.start()
    until(lambda: table.state()["delivery"]["state"] == "sent")
    assert [r["game"] for r in hub.results()] == [1]

    # 2. Killed between send and ack: the hub stores the result, its answer is lost.
    proxy.losing.set()
    play(table)
    until(lambda: len(hub.results()) == 2)
    assert table.state()["delivery"]["state"] != "sent"
    table.kill()
    proxy.losing.clear()
    table.start()
    until(lambda: table.state()["delivery"]["state"] == "sent")
    assert proxy.lost >= 1

    # 3. The hub killed while results wait: two games end while it is down.
    hub.kill()
    play(table)
    play(table)
    assert table.state()["delivery"]["waiting"] == 2
    hub.start()
    until(lambda: table.state()["delivery"] == {**table.state()["delivery"], "waiting": 0})

    stored = hub.results()
    assert sorted((r["seq"], r["game"]) for r in stored) == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert not any(r["conflict"] for r in stored)
    receipts = {r["game"]: r["receipt"] for r in stored}
    assert table.state()["delivery"] == {"state": "sent", "receipt": receipts[4], "waiting": 0}


DAMAGE = ("wal deleted", "truncated", "zeroed page", "outbox deleted")


def damage(folder: Path, kind: str) -> None:
    """What a bad card does to the outbox while the table is down."""
    outbox = folder / "outbox.sqlite"
    wal = folder / "outbox.sqlite-wal"
    if kind == "wal deleted":
        wal.unlink(missing_ok=True)
        (folder / "outbox.sqlite-shm").unlink(missing_ok=True)
    elif kind == "truncated":
        with outbox.open("r+b") as file:
            file.truncate(max(0, outbox.stat().st_size - 4096))
        wal.unlink(missing_ok=True)
    elif kind == "zeroed page":
        with outbox.open("r+b") as file:
            file.seek(4096)
            file.write(b"\0" * 4096)
        wal.unlink(missing_ok=True)
    else:
        for name in ("outbox.sqlite", "outbox.sqlite-wal", "outbox.sqlite-shm"):
            (folder / name).unlink(missing_ok=True)


def test_every_game_counts_once_whatever_the_card_does_to_the_outbox(
    hall: tuple[VirtualTable, Hub, LosingProxy],
) -> None:
    """Each kind of damage (issue 18), in a seeded random order, to an outbox whose newest
    result has not reached the hub: every game played reaches it once, none a conflict."""
    table, hub, _ = hall
    table.start()
    kinds = list(DAMAGE)
    random.Random(18).shuffle(kinds)
    for kind in kinds:
        hub.kill()  # the result waits on the table
        play(table)
        table.kill()
        damage(table.folder, kind)
        table.start()
        hub.start()
        until(lambda: table.state()["delivery"]["waiting"] == 0, 60.0)
    stored = hub.results()
    assert sorted(r["game"] for r in stored) == list(range(1, len(DAMAGE) + 1))
    assert not any(r["conflict"] for r in stored)
    assert table.state()["delivery"]["state"] == "sent"


def test_a_card_full_at_the_last_confirmation_keeps_the_result_unsaved_until_there_is_room(
    tmp_path: Path,
) -> None:
    """Issue 18.1 on a real full disk: the table's state folder is a real 512 KiB tmpfs. The
    card fills up just before the last confirmation of game 2: the result is never said to be kept,
    heartbeats go on, and once there is room it is committed and reaches the hub once."""
    hub = Hub(tmp_path / "hub.sqlite", free_port()).start()
    config = paired(hub, hub.url, tmp_path, slow_hands=True)
    with small_tmpfs(tmp_path / "small", "512k") as (inside, prefix):
        table = VirtualTable(tmp_path / "small", prefix=prefix, config=config, dated=True)
        table.folder = inside  # the test reads the files through the namespace's root
        table.start()
        try:
            play(table)
            until(lambda: table.state()["delivery"]["state"] == "sent")
            winner = play(table, end=False)
            assert table.state()["state"] == "scoring"
            filler = fill(inside)
            table.double(winner)  # the last confirmation: game 2 ends
            until(lambda: table.state()["state"] == "done")
            assert table.state()["delivery"] == {"state": "unsaved", "receipt": None,
                                                 "waiting": 0}  # fmt: skip
            time.sleep(3)  # sleep-ok: the table tries again (every 2 s) and sends heartbeats
            assert table.state()["delivery"]["state"] == "unsaved"  # never shown as kept
            assert "the outbox cannot keep it" in table.log.read_text()
            (seen,) = [t["seen_s_ago"] for t in hub_tables(hub)]
            assert seen is not None
            assert seen < 2.0  # heartbeats go on meanwhile
            assert [r["game"] for r in hub.results()] == [1]
            filler.unlink()  # the organiser frees some space
            until(lambda: table.state()["delivery"]["state"] == "sent")
            play(table)
            until(lambda: table.state()["delivery"] == {**table.state()["delivery"],
                                                        "state": "sent", "waiting": 0})  # fmt: skip
        finally:
            table.stop()
            hub.kill()
    stored = hub_results_after_restart(hub)
    assert sorted(r["game"] for r in stored) == [1, 2, 3]
    assert not any(r["conflict"] for r in stored)


def hub_tables(hub: Hub) -> list[Json]:
    with urllib.request.urlopen(hub.url + "/api/v1/tables", timeout=10) as answer:
        tables: list[Json] = json.loads(answer.read())
        return tables


def hub_results_after_restart(hub: Hub) -> list[Json]:
    hub.start()
    try:
        return hub.results()
    finally:
        hub.kill()
