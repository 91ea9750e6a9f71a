"""The serial link end to end: tables' couriers and the hub on simulated serial channels.

Everything is real but the wire: ptys opened by pyserial, the tables' outboxes, couriers and
serial links on their own threads, the hub's ``SerialHub`` on a store over a SQLite file. The
wire is ``tests/helpers/radio.py``: a lossy cable, or a shared half-duplex radio channel where the
tables' frames collide. Most tests run at 115200 baud to stay quick; the 9600-baud figure
for nine tables is the bench's (``tests/bench/bench_serial.py``).
"""

from __future__ import annotations

import random
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from klik.link import backoff
from klik.link import protocol as p
from klik.link.courier import Command, Courier, State, Tracking
from klik.link.http import LinkDown
from klik.link.outbox import Outbox
from klik.link.serial import SerialLink
from klik_hub import hall
from klik_hub.serial.hub import SerialHub
from klik_hub.storage.store import Store
from tests.helpers.hubkit import result_body, sealed
from tests.helpers.radio import Faults, Radio, Tap

BAUD = 115200

# The store on a SQLite file: the serial hub's logic is the same on PostgreSQL (it is
# ``inbox.take``, which tests/hub/test_hub_api.py runs on both).
pytestmark = pytest.mark.parametrize("db", ["sqlite"], indirect=True)


class WatchedLink(SerialLink):
    """The table's serial link, telling the test of each answer it hands the courier."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.replies: list[tuple[str, p.Ack]] = []  # (the envelope's type, its ack)
        self.changed = threading.Condition()
        super().__init__(*args, **kwargs)

    def send(self, envelope: p.Envelope, key: bytes) -> p.Ack:
        reply = super().send(envelope, key)
        with self.changed:
            self.replies.append((envelope.type, reply))
            self.changed.notify_all()
        return reply

    def wait(self, ready: Callable[[], bool], timeout_s: float) -> bool:
        with self.changed:
            return self.changed.wait_for(ready, timeout_s)


class Table:
    """One table: its outbox, its courier on its own thread, its serial link."""

    def __init__(self, folder: Path, path: str, store: Store, table_no: int, **link: Any) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.table_no = table_no
        self.device, key_hex = hall.devices.pair(store, table_no)
        key = p.key_bytes(key_hex)
        self.outbox = Outbox(folder / "outbox.sqlite")
        self.done = threading.Event()
        self.pushed: list[p.Envelope] = []
        self.commands: list[Command] = []
        self.link = WatchedLink(
            path,
            BAUD,
            self.device,
            key,
            on_push=self._pushed,
            rng=random.Random(f"link {table_no}"),  # not 1, 2, 3: Random(n)'s first draws agree
            **link,
        )
        self.courier = Courier(
            self.outbox,
            self.link,
            self.device,
            key,
            heartbeat_s=60.0,  # one at the start; commands come by push
            status=lambda: p.Heartbeat(state="move", mover="B", left_ms=41_000),
            on_tracking=self._news,
            on_command=self._command,
            rng=random.Random(f"courier {table_no}"),
        )

    def keep(self, games: int) -> None:
        for game in range(1, games + 1):
            self.outbox.keep(result_body(table=self.table_no, game=game))

    def _news(self, news: Tracking) -> None:
        if news.state is State.SENT and news.waiting == 0:
            self.done.set()

    def _pushed(self, envelope: p.Envelope) -> None:
        self.pushed.append(envelope)
        self.courier.push(envelope)

    def _command(self, command: Command) -> None:
        with self.link.changed:
            self.commands.append(command)
            self.link.changed.notify_all()

    def close(self) -> None:
        self.courier.stop()  # closes the link too
        self.outbox.close()


@pytest.fixture
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """The courier's back-off scaled to 115200 baud: frames take a twelfth of their 9600-baud
    time, so a tenth of the back-off keeps the proportions (and the test short)."""
    monkeypatch.setattr(backoff, "BASE_S", backoff.BASE_S / 10)
    monkeypatch.setattr(backoff, "CAP_S", backoff.CAP_S / 10)


@contextmanager
def serving(store: Store, path: str, **options: Any) -> Iterator[SerialHub]:
    hub = SerialHub(store, path, BAUD, **options)
    hub.start()
    try:
        yield hub
    finally:
        hub.stop()


def assert_all_in_once(store: Store, tables: list[Table], games: int) -> None:
    """Every table's results stored exactly once, and each table holds the hub's receipts."""
    for table in tables:
        stored = hall.results.newest(store, table_no=table.table_no)
        assert sorted(r["seq"] for r in stored) == list(range(1, games + 1))
        assert all(r["device"] == table.device and not r["conflict"] for r in stored)
        for row in stored:
            assert table.outbox.receipt(row["seq"]) == row["receipt"]
        assert table.outbox.waiting() == 0


@pytest.mark.usefixtures("quick_backoff")
def test_results_cross_a_lossy_cable_each_stored_once_with_its_receipt(
    store: Store, tmp_path: Path
) -> None:
    games = 8
    faults = Faults(
        drop_frame=0.15, duplicate_frame=0.15, delay_frame=0.15, delay_s=0.2, corrupt_byte=0.0003
    )
    with (
        Radio(2, BAUD, shared=False, faults=faults, seed=4) as radio,
        serving(store, radio.path(0)),
    ):
        table = Table(tmp_path, radio.path(1), store, 3, answer_timeout_s=0.4)
        table.keep(games)
        table.courier.start()
        try:
            assert table.done.wait(30), f"results still waiting: {table.outbox.waiting()}"
            assert_all_in_once(store, [table], games)
        finally:
            table.close()
    for fault in ("frames dropped", "frames doubled", "frames delayed", "bytes corrupted"):
        assert radio.stats[fault] > 0, fault  # each fault did happen on the way


@pytest.mark.usefixtures("quick_backoff")
def test_four_tables_on_one_radio_channel_with_collisions_and_loss_all_get_in_once(
    store: Store, tmp_path: Path
) -> None:
    games = 3
    # Each receiver misses a fifth of the frames, unheard (so a table may talk over a frame it
    # missed), and another 433 MHz device bursts in now and then, listening to no one.
    faults = Faults(drop_frame=0.2, noise_s=0.3, noise_bytes=96)
    with (
        Radio(5, BAUD, faults=faults, seed=5) as radio,
        serving(store, radio.path(0)),
    ):
        tables = [
            Table(tmp_path / f"t{n}", radio.path(n), store, n, answer_timeout_s=0.4)
            for n in range(1, 5)
        ]
        for table in tables:
            table.keep(games)
        for table in tables:  # all at once: they contend for the channel from the start
            table.courier.start()
        try:
            for table in tables:
                assert table.done.wait(30), f"table {table.table_no} still waits"
            assert_all_in_once(store, tables, games)
        finally:
            for table in tables:
                table.close()
    assert radio.stats["collisions"] > 0
    assert radio.stats["frames dropped"] > 0


# --- what the hub does not answer -----------------------------------------------------------


def framed(body: bytes) -> bytes:
    """Any bytes as a frame with the right CRC: it passes the CRC and is judged on the rest."""
    return body + b" " + f"{zlib.crc32(body):08x}".encode() + b"\n"


def _result(device: str, key: str, table: int = 3) -> bytes:
    return sealed(device, key, 1, result_body(table=table))


BAD: list[tuple[str, Callable[[str, str], bytes]]] = [
    # a byte changed on the air: the CRC does not fit
    ("crc", lambda d, k: framed(_result(d, k))[:-9] + b"00000000\n"),
    # a line over 2 KiB
    ("oversize", lambda d, k: b"{" + b"x" * p.MAX_FRAME + b"}\n"),
    # the CRC fits, but what it covers is not JSON
    ("json", lambda d, k: framed(b"not json at all")),
    # the paired device's name and a MAC made with another key
    ("mac", lambda d, k: framed(_result(d, "ef" * 32))),
    # a device the hub has never paired
    ("unknown", lambda d, k: framed(sealed("t9-00000000", k, 1, result_body(table=9)))),
    # the paired device, rightly signed, sending a result for another table
    ("other", lambda d, k: framed(_result(d, k, table=4))),
]


@pytest.mark.parametrize(("dropped", "make"), BAD, ids=[row[0] for row in BAD])
def test_a_frame_the_hub_does_not_take_stores_nothing_and_gets_no_answer(
    store: Store, dropped: str, make: Callable[[str, str], bytes]
) -> None:
    device, key = hall.devices.pair(store, 3)
    probe = framed(sealed(device, key, 1, {"state": "ready"}, "heartbeat"))
    with Radio(2, BAUD) as radio, serving(store, radio.path(0)) as hub:
        table: Tap = radio.tap(1)
        try:
            table.write(make(device, key) + probe)
            # The hub answers frames in order: once the probe's ack is in, the bad frame
            # has been dealt with, and any answer to it would have come first.
            assert table.wait(lambda: table.frames, 5), "the probe was not answered"
        finally:
            table.close()
    ack, _ = p.open_envelope(table.frames[0])
    assert (ack.type, ack.device, ack.seq, ack.body["of"]) == ("ack", device, 1, "heartbeat")
    assert bytes(table.heard) == framed(table.frames[0])  # nothing else at all
    assert hall.results.newest(store) == []
    expected = {"oversize": 0, "crc": 0, "json": 0, "unknown": 0, "mac": 0, "other": 0}
    assert hub.dropped == {**expected, dropped: 1}


# --- commands pushed, a port that vanishes ----------------------------------------------------


def test_a_pushed_command_is_carried_out_once_and_its_ack_clears_it(
    store: Store, tmp_path: Path
) -> None:
    def heartbeats() -> int:
        return sum(kind == "heartbeat" for kind, _ in table.link.replies)

    with Radio(2, BAUD) as radio, serving(store, radio.path(0), push_s=0.2) as hub:
        table = Table(tmp_path, radio.path(1), store, 3, answer_timeout_s=0.4)
        table.courier.start()
        try:
            # The courier's first heartbeat: from now on the hub knows the table is here.
            assert table.link.wait(lambda: heartbeats() >= 1, 5)
            command = hall.commands.send(store, 3, "pause")
            assert table.link.wait(lambda: bool(table.commands), 5)
            # Carried out, and acknowledged in the heartbeat the courier sends at once.
            assert table.link.wait(lambda: heartbeats() >= 2, 5)
            pending = hall.devices.tables(store)[0]["commands"]
        finally:
            table.close()
    assert table.commands == [Command(command, "pause", {})]
    queued = {"id": command, "kind": "pause", "args": {}}
    assert table.pushed[0] == p.Envelope(
        "ack", table.device, 0, {"of": "commands", "commands": [queued]}
    )
    assert pending == []
    assert hub.sent["pushes"] >= 1


def test_the_hub_outlives_its_port_vanishing(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    with Radio(2, BAUD) as radio:
        hub = SerialHub(store, radio.path(0), BAUD)
        hub.start()
        try:
            radio.unplug(0)  # the USB adapter pulled out of the hub's laptop
            with pytest.raises(LinkDown, match="failed"):
                hub.channel.wait_for(lambda: False, time.monotonic() + 5)
        finally:
            hub.stop()
    warnings = [r for r in caplog.records if r.name == "klik.link.serial"]
    assert [w.getMessage().endswith("; trying again every 3 s") for w in warnings] == [True]
