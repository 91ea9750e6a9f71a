"""Pairing at the table over the serial link, with two real processes: ``klik hub --serial``
on one pty pair and ``klik sim`` (``[hub] link = "serial"``, nothing from pairing) on another,
a relay carrying the frames between the two. The table asks to join by join frames, the judge
accepts over the hub's HTTP API with the digits of seat A's screen, the table keeps what it
was given and its result crosses the same serial link. A relay that swaps the X25519 keys
shows the judge other digits, and nothing is paired."""

from __future__ import annotations

import os
import select
import threading
import time
import tty
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from klik.link import protocol as p
from klik.link.protocol import join_frames as jf
from klik.link.protocol import pairing as x
from tests.hub.test_demo import double, until  # waits on real servers, on the real clock
from tests.hub.test_pairing_at_the_table import call, free_port, pairing_of, running

pytestmark = pytest.mark.slow  # real `klik hub` and `klik sim` processes on the real clock

#: What a relay does with a frame's body on its way: ``(to_hub, body) -> body``.
Alter = Callable[[bool, bytes], bytes]


class Relay:
    """Two pty pairs and a thread that carries frames between them: the hub opens ``hub_path``,
    the table ``table_path``. Each whole frame is handed to ``alter`` (its body, the CRC
    checked) and sent on framed anew; a frame whose CRC is wrong is passed on as it came."""

    def __init__(self, alter: Alter | None = None) -> None:
        self.alter = alter
        self._masters: list[int] = []
        self._slaves: list[int] = []
        paths = []
        for _ in range(2):
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line editing, before pyserial opens it
            self._masters.append(master)
            self._slaves.append(slave)  # held open: the master never reads EIO meanwhile
            paths.append(os.ttyname(slave))
        self.hub_path, self.table_path = paths
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="relay", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for fd in self._masters + self._slaves:
            os.close(fd)

    def _run(self) -> None:
        hub, table = self._masters
        buffers = {hub: b"", table: b""}
        while not self._stop.is_set():
            ready, _, _ = select.select([hub, table], [], [], 0.05)
            for fd in ready:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    continue
                buffers[fd] += data
                *lines, buffers[fd] = buffers[fd].split(b"\n")
                to_hub = fd == table
                for line in lines:
                    os.write(hub if to_hub else table, self._carry(to_hub, line) + b"\n")

    def _carry(self, to_hub: bool, line: bytes) -> bytes:
        body = p.check_frame(line)
        if body is None or self.alter is None:
            return line
        body = self.alter(to_hub, body)
        return body + b" " + f"{zlib.crc32(body):08x}".encode("ascii")


@contextmanager
def hub_and_table(
    tmp_path: Path, relay: Relay, channel: str = "listen"
) -> Iterator[tuple[str, str]]:
    """``klik hub --serial`` on the relay's hub end, ``klik sim`` asking to join on its
    table end, both on a ``channel`` ("listen" or "polled") channel; the hub's and the
    table's base urls."""
    hub_port, sim_port = free_port(), free_port()
    hub, sim = f"http://127.0.0.1:{hub_port}", f"http://127.0.0.1:{sim_port}"
    config = (
        f'[hub]\nlink = "serial"\nserial_port = "{relay.table_path}"\n'
        f'serial_channel = "{channel}"\n'
    )
    hub_args = ["--serial", relay.hub_path, "--serial-channel", channel]
    with running(tmp_path, config, hub_port, hub_args, sim_port):
        until(lambda: call(f"{hub}/api/v1/health")[0] == 200)
        yield hub, sim


def state_of(sim: str) -> dict[str, Any]:
    return dict(call(f"{sim}/api/state")[1])


@pytest.mark.parametrize("channel", ["listen", "polled"])
def test_a_table_on_a_serial_link_is_paired_by_its_digits_and_its_result_is_stored(
    tmp_path: Path, channel: str
) -> None:
    # On a polled channel the join frames go in the hub's contention slots, and the result
    # in the table's turn, by the number the judge gave it.
    relay = Relay()
    try:
        with hub_and_table(tmp_path, relay, channel) as (hub, sim):
            shown = until(lambda: (s := pairing_of(sim))["digits"] and s)
            assert shown["state"] == "asking"
            (asking,) = until(lambda: call(f"{hub}/api/v1/pairing")[1])
            assert (asking["digits"], asking["link"]) == (shown["digits"], "serial")
            status, said = call(
                f"{hub}/api/v1/pairing/{asking['id']}", {"table": 7, "digits": shown["digits"]}
            )
            assert status == 201, said
            assert until(lambda: pairing_of(sim)["state"] == "paired")
            assert state_of(sim)["table"] == "7"
            # Its heartbeat crosses the serial link: the hub has seen table 7.
            (table,) = until(
                lambda: [t for t in call(f"{hub}/api/v1/tables")[1] if t["seen_s_ago"] is not None]
            )
            assert (table["table"], table["device"]) == (7, said["device"])
            # A game: A goes out at once (Rummikub), the winner confirms its 0.
            call(f"{sim}/api/orders", {"order": "start"})
            until(lambda: state_of(sim)["state"] == "move")
            time.sleep(0.3)  # sleep-ok: a player's reaction to the start (as test_demo's)
            double(sim, 1, "A")
            until(lambda: state_of(sim)["state"] == "scoring")
            double(sim, 1, "A")  # nobody else opened: charged, not asked for a rack
            until(lambda: state_of(sim)["state"] == "done")
            (stored,) = until(lambda: call(f"{hub}/api/v1/results?table=7")[1])
            assert (stored["device"], stored["seq"]) == (said["device"], 1)
            assert until(lambda: state_of(sim)["delivery"]["state"] == "sent")
    finally:
        relay.close()
    kept = (tmp_path / "table" / "paired.toml").read_text(encoding="utf-8")
    assert "table = 7" in kept
    assert f'device_id = "{said["device"]}"' in kept


class Mallory:
    """A relay's ``alter`` that swaps keys both ways, as the HTTP Mallory of
    ``test_pairing_at_the_table`` does: to the table it is a hub (its own key, nonce and
    commitment), to the hub a table (its own key); it passes the table's nonce on, the best
    it can do, since the hub reveals its nonce only after."""

    def __init__(self) -> None:
        self.key = x.new_private()
        self.own = x.public_hex(self.key)
        self.nonce = x.new_nonce()
        self.table_key = ""
        self.digits: dict[str, str] = {}  # the table's digits by request id, as Mallory sees

    def __call__(self, to_hub: bool, body: bytes) -> bytes:
        word = jf.word_of(body)
        if word is None:
            return body
        if to_hub:
            asked = jf.parse_request(body)
            if isinstance(asked, jf.Hello):
                self.table_key = asked.table_key
                return jf.body_of(jf.Hello(self.own))
            if isinstance(asked, jf.TableNonce):
                self.digits[asked.request_id] = x.digits(
                    self.table_key, self.own, asked.nonce, self.nonce
                )
            return body
        said = jf.parse_answer(body)
        if isinstance(said, jf.Commit):
            commit = x.commitment(self.own, self.table_key, self.nonce)
            return jf.body_of(jf.Commit(self.table_key[:16], said.request_id, self.own, commit))
        if isinstance(said, jf.Reveal):
            return jf.body_of(jf.Reveal(said.request_id, self.nonce))
        return body


def test_a_relay_that_swaps_keys_shows_other_digits_and_nothing_is_paired(
    tmp_path: Path,
) -> None:
    mallory = Mallory()
    relay = Relay(mallory)
    try:
        with hub_and_table(tmp_path, relay) as (hub, sim):
            shown = until(lambda: (s := pairing_of(sim))["digits"] and s)
            (asking,) = until(lambda: call(f"{hub}/api/v1/pairing")[1])
            # The table shows the digits of its exchange with Mallory; the hub lists those of
            # its exchange with Mallory: they differ (but for one chance in a million).
            assert shown["digits"] == mallory.digits[asking["id"]]
            assert asking["digits"] != shown["digits"]
            assert asking["link"] == "serial"
            status, _ = call(
                f"{hub}/api/v1/pairing/{asking['id']}", {"table": 7, "digits": shown["digits"]}
            )
            assert status == 409  # the judge, comparing, finds no match: nothing is paired
            assert call(f"{hub}/api/v1/tables")[1] == []
            assert pairing_of(sim)["state"] == "asking"
    finally:
        relay.close()
    assert not (tmp_path / "table" / "paired.toml").exists()
