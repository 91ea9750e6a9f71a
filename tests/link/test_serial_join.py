"""Pairing at the table over serial, the table's side (``klik.link.serial_join``): each step is
a frame out and the hub's answer, picked out by its tag among the channel's other frames. A
garbled answer is dropped with one log line and the table goes on waiting; a ``join-ended``
ends the request; silence is ``LinkDown``. The port is scripted: what it is written answers
at once, on the channel's reader thread."""

from __future__ import annotations

import logging
import queue
import random
import zlib
from collections.abc import Callable

import pytest

from klik.link.joining import EndedError
from klik.link.protocol import join_frames as jf
from klik.link.protocol import pairing as x
from klik.link.reply import LinkDown
from klik.link.serial_join import SerialJoin

T, H, C = "1a" * 32, "2b" * 32, "3c" * 32
ID = "0123456789abcdef"


def framed(body: bytes) -> bytes:
    return body + b" " + f"{zlib.crc32(body):08x}".encode() + b"\n"


class Scripted:
    """A port that answers each frame written to it with what ``answer`` makes of it."""

    port = "scripted"  # the channel's name in the log
    in_waiting = 0

    def __init__(self, answer: Callable[[bytes], bytes]) -> None:
        self.answer = answer
        self.written: list[bytes] = []
        self._out: queue.SimpleQueue[bytes] = queue.SimpleQueue()

    def read(self, size: int = 1) -> bytes:
        try:
            return self._out.get(timeout=0.01)
        except queue.Empty:
            return b""

    def write(self, data: bytes, /) -> int:
        self.written.append(data)
        self._out.put(self.answer(data))
        return len(data)

    def close(self) -> None:
        pass


def joining(answer: Callable[[bytes], bytes], answer_timeout_s: float = 5.0) -> SerialJoin:
    return SerialJoin(
        Scripted(answer), 115200, answer_timeout_s=answer_timeout_s, quiet_s=0.0,
        rng=random.Random(1),
    )  # fmt: skip


def test_the_answer_is_picked_out_and_a_garbled_one_is_one_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="klik.link.serial")
    answers = [
        framed(b"join-commit " + T[:16].encode() + b" " + ID.encode() + b" 2b2b"),  # cut short
        jf.frame(jf.Commit("f" * 16, ID, H, C)),  # another table's answer
        framed(b'{"type":"heartbeat"}'),  # another table's request
        jf.frame(jf.Commit(T[:16], ID, H, C)),  # ours
    ]
    join = joining(lambda line: b"".join(answers))
    try:
        assert join.hello(T) == (ID, H, C)
    finally:
        join.close()
    assert join.channel.name == "scripted"
    assert [r.getMessage() for r in caplog.records] == [
        "pairing: a join frame on scripted dropped: join-commit: 3 fields; it has 4"
    ]
    assert (join.dropped["join"], join.dropped["other"]) == (1, 2)


def test_each_step_goes_as_one_frame_and_the_judges_answer_is_the_sealed_one() -> None:
    said: dict[bytes, jf.Answer] = {
        b"join": jf.Commit(T[:16], ID, H, C),
        b"join-nonce": jf.Reveal(ID, "4d" * 16),
        b"join-ask": jf.Accepted(ID, 7, "ab" * 40),
    }
    port = Scripted(lambda line: jf.frame(said[line.split(b" ")[0]]))
    join = SerialJoin(port, 115200, quiet_s=0.0, rng=random.Random(1))
    try:
        assert join.hello(T) == (ID, H, C)
        assert join.nonce(ID, "5e" * 16) == "4d" * 16
        assert join.ask(ID) == "ab" * 40
    finally:
        join.close()
    assert port.written == [
        jf.frame(jf.Hello(T)),
        jf.frame(jf.TableNonce(ID, "5e" * 16)),
        jf.frame(jf.Ask(ID)),
    ]


def test_a_paired_table_asks_again_with_the_proof_of_its_old_pairing() -> None:
    port = Scripted(lambda line: jf.frame(jf.Commit(T[:16], ID, H, C)))
    key = "6f" * 32
    join = SerialJoin(port, 115200, quiet_s=0.0, rng=random.Random(1),
                      paired_as=("t3-0a1b2c3d", key))  # fmt: skip
    try:
        assert join.hello(T) == (ID, H, C)
    finally:
        join.close()
    (sent,) = port.written
    asked = jf.parse_request(sent.rsplit(b" ", 1)[0])
    assert asked == jf.Again(T, "t3-0a1b2c3d", x.repair_proof(key, T))
    assert len(sent) <= jf.MAX_REQUEST  # the longest request frame fits


@pytest.mark.parametrize(
    "body",
    [
        f"join-again {T} t3-0a1b2c3d".encode(),  # no proof
        f"join-again {T} t3 0a1b {'0' * 64}".encode(),  # a space in the device id
        f"join-again {T} {'d' * 65} {'0' * 64}".encode(),  # a device id too long
        f"join-again {T} t3-0a1b2c3d {'0' * 63}".encode(),  # a short MAC
        b"join-again " + b"x" * 300,  # over the size, refused before it is read
    ],
)
def test_a_wrong_join_again_frame_is_one_line(body: bytes) -> None:
    with pytest.raises(jf.JoinFrameError):
        jf.parse_request(body)


def test_an_ended_request_and_silence_are_the_joiners_to_start_over() -> None:
    join = joining(lambda line: jf.frame(jf.Ended(T[:16], jf.Why.FULL)))
    try:
        with pytest.raises(EndedError, match=r"^the hub ended the request \(full\)$"):
            join.hello(T)
    finally:
        join.close()
    quiet = joining(lambda line: b"", answer_timeout_s=0.05)
    try:
        with pytest.raises(LinkDown, match=r"^no answer from the hub on scripted"):
            quiet.ask(ID)
    finally:
        quiet.close()
    with pytest.raises(LinkDown, match=r"^scripted is closed$"):
        quiet.ask(ID)  # closed: the joiner is done with it
