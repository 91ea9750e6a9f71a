"""Deflated serial frames (klik.link.deflate): the same envelope bytes out as went in, and
nothing inflated past MAX_BODY."""

from __future__ import annotations

import random
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.link import deflate
from klik.link import protocol as p
from tests.helpers.hubkit import result_body

KEY = bytes(range(32))


def _body() -> bytes:
    envelope = p.Envelope("result", "t3-dev", 1, result_body(table=3, game=1))
    return p.canonical(envelope.signed(KEY), max_depth=p.ENVELOPE_DEPTH)


def test_a_deflated_frame_gives_back_the_canonical_bytes_and_is_smaller() -> None:
    body = _body()
    line = deflate.squeeze(body)
    assert line[0] == deflate.MARK
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert len(line) < len(body) // 2
    assert deflate.check_line(line[:-1]) == body


def test_the_deframer_takes_plain_and_deflated_frames_alike() -> None:
    body = _body()
    plain = p.frame_signed(p.Envelope("result", "t3-dev", 1, result_body()).signed(KEY))
    frames = list(deflate.deframer().feed(deflate.squeeze(body) + plain))
    assert frames == [body, plain.rsplit(b" ", 1)[0]]


@given(st.binary(max_size=600).map(lambda b: b.hex().encode()))
def test_any_ascii_body_goes_through_escaped(body: bytes) -> None:
    assert deflate.check_line(deflate.squeeze(body)[:-1]) == body


@given(st.binary(min_size=1, max_size=300))
def test_escaping_round_trips_every_byte(data: bytes) -> None:
    escaped = deflate.escape(data)
    assert b"\n" not in escaped
    assert deflate.unescape(escaped) == data


def test_a_damaged_deflated_frame_is_dropped_and_counted() -> None:
    line = bytearray(deflate.squeeze(_body()))
    line[20] ^= 0x01
    deframer = deflate.deframer()
    assert list(deframer.feed(bytes(line))) == []
    assert deframer.dropped["crc"] == 1


def test_a_decompression_bomb_is_not_inflated_past_max_body() -> None:
    # A kilobyte of deflate that would be a megabyte of braces: dropped, never inflated.
    bomb = b"{" * (1024 * 1024)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, zdict=deflate.ZDICT)
    packed = packer.compress(bomb) + packer.flush() + zlib.crc32(bomb).to_bytes(4, "big")
    assert len(packed) < p.MAX_FRAME
    line = bytes([deflate.MARK]) + deflate.escape(packed)
    assert deflate.check_line(line) is None


def test_a_frame_that_would_be_too_long_even_deflated_is_refused() -> None:
    random_hex = random.Random(1).randbytes(4000).hex().encode()
    with pytest.raises(p.ProtocolError, match="deflated"):
        deflate.squeeze(random_hex)
