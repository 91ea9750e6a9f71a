"""The table's serial link on a simulated channel, with the test playing the hub.

Real ptys and pyserial (``tests/helpers/radio.py``), real threads. The table's ``send`` runs on a
worker thread while the test, on its own node of the channel, reads what the table sent
and writes the answers it means to test: the right ack, and everything a table must not
believe. The link with the real hub and courier is ``tests/hub/test_serial_hub.py``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from klik.link import protocol as p
from klik.link.reply import LinkDown
from klik.link.serial import Channel, SerialLink, default_answer_timeout_s
from tests.helpers.radio import Radio, Tap

BAUD = 115200
KEY = p.key_bytes("ab" * 32)
OTHER_KEY = p.key_bytes("cd" * 32)
DEVICE = "t3-5f2a9c01"
RESULT = p.Envelope("result", DEVICE, 7, {"table": 3, "game": 12})


def ack(seq: int = 7, key: bytes = KEY, device: str = DEVICE, **body: Any) -> bytes:
    body = {"of": "result", "status": "stored", "receipt": "ABCDE", **body}
    return p.frame(p.Envelope("ack", device, seq, body), key)


class Rig:
    """The channel: the test's hub on node 0, the table's link on node 1."""

    def __init__(self, radio: Radio, **link: Any) -> None:
        self.radio = radio
        self.hub: Tap = radio.tap(0)
        self.pushed: list[p.Envelope] = []
        self.link = SerialLink(radio.path(1), radio.baud, DEVICE, KEY, on_push=self._pushed, **link)
        self.pool = ThreadPoolExecutor(1)

    def _pushed(self, envelope: p.Envelope) -> None:
        with self.hub.changed:  # the test waits on the tap's condition for everything
            self.pushed.append(envelope)
            self.hub.changed.notify_all()

    def send(self, envelope: p.Envelope = RESULT) -> Future[p.Ack]:
        return self.pool.submit(self.link.send, envelope, KEY)

    def request(self, count: int = 1) -> p.Envelope:
        """The table's ``count``-th frame as the hub heard it."""
        assert self.hub.wait(lambda: len(self.hub.frames) >= count, 5), "the table sent nothing"
        envelope, mac = p.open_envelope(self.hub.frames[count - 1])
        assert p.verify(envelope, mac, KEY)
        return envelope

    def close(self) -> None:
        self.link.close()
        self.pool.shutdown()
        self.hub.close()


@pytest.fixture
def rig() -> Iterator[Rig]:
    with Radio(2, BAUD) as radio:
        kept = Rig(radio, answer_timeout_s=1.0)
        yield kept
        kept.close()


@pytest.mark.parametrize(
    "status",
    [
        p.Status.STORED,  # a new result
        p.Status.DUPLICATE,  # sent again: the hub had it, the first receipt
        p.Status.CONFLICT,  # another body under this seq: kept and flagged for the judge
        p.Status.REFUSED,  # a body that breaks the schema: refused for good, signed
    ],
)
def test_the_hubs_signed_ack_is_the_answer_with_its_status(rig: Rig, status: p.Status) -> None:
    reply = rig.send()
    assert rig.request() == RESULT
    rig.hub.write(ack(status=status))
    answer = reply.result(timeout=5)
    body = {"of": "result", "status": status, "receipt": "ABCDE"}
    signed = p.Envelope("ack", DEVICE, 7, body).signed(KEY)
    assert answer == p.Ack(status, body, signed)  # no HTTP code, no trouble
    assert answer.seen == f"ack {status}"


def test_a_heartbeats_ack_is_ok_and_carries_the_commands(rig: Rig) -> None:
    beat = p.Envelope("heartbeat", DEVICE, 40, {"state": "move", "acks": []})
    reply = rig.send(beat)
    assert rig.request() == beat
    commands = [{"id": "c1", "kind": "pause", "args": {}}]
    rig.hub.write(ack(40, of="heartbeat", status="ok", commands=commands, receipt=None))
    answer = reply.result(timeout=5)
    assert (answer.status, answer.body["commands"]) == (p.Status.OK, commands)


def test_acks_for_someone_else_or_something_else_are_not_believed(rig: Rig) -> None:
    reply = rig.send()
    rig.request()
    rig.hub.write(
        ack(device="t4-00000000")  # another table's
        + ack(seq=6)  # an earlier result's, late
        + ack(of="heartbeat", status="ok")  # this seq, but a heartbeat's
        + ack(status="maybe")  # a status the contract does not have
        + ack(status="invalid")  # one the hub never answers a frame with
        + ack(key=OTHER_KEY)  # a forged one: the right fields, not our key
        + b"garbage\n"  # noise on the channel
        + ack(status="duplicate")  # at last, the hub's
    )
    assert reply.result(timeout=5).status is p.Status.DUPLICATE
    assert rig.link.dropped == {"oversize": 0, "crc": 1, "json": 0, "mac": 1, "other": 5}


def test_no_answer_is_link_down_after_the_answer_timeout(rig: Rig) -> None:
    began = time.monotonic()
    reply = rig.send()
    rig.request()
    with pytest.raises(LinkDown, match=f"^no answer from the hub on {rig.radio.path(1)}$"):
        reply.result(timeout=5)
    assert 1.0 <= time.monotonic() - began < 2.0


def test_a_pushed_command_is_handed_over_once_and_only_if_signed_with_our_key(rig: Rig) -> None:
    commands = {"of": "commands", "commands": [{"id": "c1", "kind": "pause", "args": {}}]}
    push = p.Envelope("ack", DEVICE, 0, commands)
    rig.hub.write(
        p.frame(push, OTHER_KEY)  # forged
        + p.frame(p.Envelope("ack", "t4-00000000", 0, commands), KEY)  # another table's
        + p.frame(push, KEY)
    )
    assert rig.hub.wait(lambda: rig.pushed, 5)
    assert rig.pushed == [push]
    assert (rig.link.dropped["mac"], rig.link.dropped["other"]) == (1, 1)


def test_a_table_waits_for_a_quiet_channel_before_it_talks() -> None:
    # 9600 baud: another table's long frame is on the air for half a second.
    with Radio(3, 9600) as radio:
        rig = Rig(radio)
        other = radio.tap(2)
        try:
            other.write(b"x" * 470 + b"\n")
            channel = rig.link.channel
            assert channel.wait_for(lambda: channel.last_heard > -math.inf, time.monotonic() + 5)
            reply = rig.send()
            assert rig.request() == RESULT
            assert rig.hub.heard.startswith(b"x" * 470 + b"\n")  # the other's line, then ours
            rig.hub.write(ack())
            assert reply.result(timeout=5).status is p.Status.STORED
            assert radio.stats["collisions"] == 0
        finally:
            other.close()
            rig.close()


def test_a_vanished_port_is_link_down_and_the_link_lives_on(rig: Rig) -> None:
    reply = rig.send()
    rig.request()
    began = time.monotonic()
    rig.radio.unplug(1)  # the USB cable pulled while the table waits for its answer
    with pytest.raises(LinkDown, match="failed"):
        reply.result(timeout=5)
    assert time.monotonic() - began < 0.5  # at once, not after the answer timeout
    with pytest.raises(LinkDown):
        rig.send().result(timeout=5)
    assert rig.link.channel._thread is not None
    assert rig.link.channel._thread.is_alive()  # still trying to open the port again


def test_a_port_that_comes_back_is_opened_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    name = tmp_path / "ttyUSB0"  # the adapter's stable name, as /dev/serial/by-id/ gives one
    channel = Channel(str(name), BAUD, lambda frame: None, reopen_s=0.05)
    channel.start()
    try:
        with pytest.raises(LinkDown, match=r"^cannot open"):
            channel.send(p.frame(RESULT, KEY))  # not plugged in yet
        with Radio(2, BAUD) as radio:
            name.symlink_to(radio.path(1))  # plugged in
            with channel.changed:
                assert channel.changed.wait_for(lambda: channel.up, 5)
            hub = radio.tap(0)
            channel.send(p.frame(RESULT, KEY))
            assert hub.wait(lambda: hub.frames, 5)
            hub.close()
            channel.close()  # before the radio goes: a port vanishing is another test
    finally:
        channel.close()
    said = [r.getMessage() for r in caplog.records if r.name == "klik.link.serial"]
    assert len(said) == 2  # once when it could not be opened, once when it could
    assert said[0].startswith(f"cannot open {name}")
    assert said[1] == f"{name} is open again"


@pytest.mark.parametrize(
    ("envelope", "key"),
    [
        (p.Envelope("ack", DEVICE, 7, {}), KEY),  # the hub's to send, not a table's
        (p.Envelope("result", "t4-00000000", 7, {}), KEY),  # another table's
        (RESULT, OTHER_KEY),  # signed with a key the link would not believe the ack of
    ],
)
def test_only_this_tables_results_and_heartbeats_go(
    rig: Rig, envelope: p.Envelope, key: bytes
) -> None:
    with pytest.raises(ValueError, match="does not go by this link"):
        rig.link.send(envelope, key)
    assert rig.hub.frames == []


def test_a_request_goes_only_in_one_frame(rig: Rig) -> None:
    big = p.Envelope("result", DEVICE, 8, {"table": 3, "names": "x" * p.MAX_FRAME})
    with pytest.raises(LinkDown, match="over the 2048 bytes"):
        rig.link.send(big, KEY)
    with pytest.raises(p.ProtocolError, match="floats"):
        rig.link.send(p.Envelope("result", DEVICE, 8, {"at": 1.5}), KEY)  # cannot be signed


def test_the_timeouts_follow_the_baud() -> None:
    with Radio(2, 9600) as radio:
        link = SerialLink(radio.path(1), 9600, DEVICE, KEY)
        try:
            # the longest frame out and back at 960 bytes a second, and a second for the hub
            assert link.answer_timeout_s == pytest.approx(2 * 2048 / 960 + 1)
            assert default_answer_timeout_s(115200) == pytest.approx(2 * 2048 / 11520 + 1)
            assert link.quiet_s == pytest.approx(20 / 960)  # 20 bytes' time
        finally:
            link.close()
