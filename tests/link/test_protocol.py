"""The protocol both sides import: canonical bytes, signatures, serial frames, receipts."""

from __future__ import annotations

import json
import re
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.link import protocol as p

KEY = p.key_bytes("ab" * 32)
RESULT = p.Envelope("result", "t-1", 1, {"table": 1, "game": 3, "winners": ["B"], "name": "Łukasz"})


def test_canonical_json_is_sorted_compact_and_ascii() -> None:
    assert p.canonical({"b": 1, "a": ["Ż", None, True]}) == b'{"a":["\\u017b",null,true],"b":1}'


@pytest.mark.parametrize(
    ("obj", "where"),
    [
        ({"at": 1.5}, "at"),  # a time in seconds, not whole milliseconds
        ({"seats": {"A": {"rack": 2.0}}}, "seats.A.rack"),  # a float even if whole
        ({"racks": [1, 2, 0.5]}, "racks[2]"),  # inside a list
    ],
)
def test_signed_objects_hold_no_floats(obj: object, where: str) -> None:
    with pytest.raises(p.ProtocolError, match="^" + re.escape(where) + ": floats"):
        p.canonical(obj)


def nested(depth: int, inner: object = 1) -> object:
    """``inner`` inside ``depth`` arrays: ``nested(2)`` is ``[[1]]``."""
    for _ in range(depth):
        inner = [inner]
    return inner


@pytest.mark.parametrize(
    ("obj", "where", "why"),
    [
        ({"name": "Ala\x00"}, "name", "NUL"),  # PostgreSQL keeps no NUL in text
        ({"seats": {"A": {"name": "\ud800"}}}, "seats.A.name", "surrogate"),  # no UTF-8 for it
        ({"acks": ["a", "b\x00"]}, "acks[1]", "NUL"),  # in a list
        ({"seats": {"A\x00": 1}}, "seats", "a key"),  # a key: named by its object
        ({"args": nested(p.MAX_DEPTH)}, "args", "nest deeper than 16"),  # 17 with the object
        ({"a": {"b": nested(p.MAX_DEPTH - 1)}}, "a", "nest deeper than 16"),  # the outermost
    ],
)
def test_signed_objects_hold_only_storable_text_and_nest_at_most_16_deep(
    obj: object, where: str, why: str
) -> None:
    with pytest.raises(p.ProtocolError, match=re.escape(why)) as refused:
        p.canonical(obj)
    assert refused.value.field == where


def test_an_object_nested_16_deep_is_signed() -> None:
    assert p.canonical(nested(p.MAX_DEPTH)) == b"[" * 16 + b"1" + b"]" * 16
    assert p.canonical({"a": nested(p.MAX_DEPTH - 1)}).startswith(b'{"a":' + b"[" * 15)


@pytest.mark.parametrize(
    ("body", "field", "why"),
    [
        ({"tournament": "1\x00"}, "body.tournament", "NUL"),  # PostgreSQL: a 500 once
        ({"seats": {"A": {"name": "Ala\udc00"}}}, "body.seats.A.name", "surrogate"),
        ({"acks": ["\x00"]}, "body.acks[0]", "NUL"),  # a heartbeat's acks meet SQL too
        ({"x": nested(p.MAX_DEPTH)}, "body.x", "nest deeper than 16"),
    ],
)
def test_an_envelope_whose_body_the_hub_cannot_keep_names_the_field(
    body: dict[str, object], field: str, why: str
) -> None:
    raw = json.dumps({**RESULT.unsigned(), "body": body, "mac": "0" * 64}).encode()
    with pytest.raises(p.ProtocolError, match=re.escape(why)) as refused:
        p.open_envelope(raw)
    assert refused.value.field == field


def test_nesting_is_read_from_the_bytes_before_the_parser_recurses() -> None:
    deep = b'{"v": 1, "body": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    with pytest.raises(p.ProtocolError, match="nest deeper than 20 levels") as refused:
        p.open_envelope(deep)
    assert refused.value.field == "(envelope)"
    assert not p.deeper_than(b'{"name": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"["}', 1)
    assert p.deeper_than(b"[[[]]]", 2)
    assert not p.deeper_than(b"[[],[],[[]]]", 3)


def test_an_ack_carries_command_args_nested_as_deep_as_the_hub_takes_them() -> None:
    args = {"a": nested(p.MAX_DEPTH - 1)}  # 16 levels: the deepest the hub queues
    p.canonical(args)
    command = {"id": "c1", "kind": "players", "args": args}
    ack = p.Envelope("ack", "t-1", 3, {"of": "heartbeat", "status": "ok", "commands": [command]})
    envelope, mac = p.open_envelope(p.seal(ack, KEY))
    assert p.verify(envelope, mac, KEY)
    assert p.frame(ack, KEY).endswith(b"\n")


def test_a_sealed_envelope_opens_and_verifies() -> None:
    envelope, mac = p.open_envelope(p.seal(RESULT, KEY))
    assert envelope == RESULT
    assert p.verify(envelope, mac, KEY)
    # The MAC is HMAC-SHA256 over the canonical JSON of the envelope without "mac".
    unsigned = {"v": 1, "type": "result", "device": "t-1", "seq": 1, "body": RESULT.body}
    assert mac == p.mac(unsigned, bytes.fromhex("ab" * 32))


@pytest.mark.parametrize(
    "change",
    [
        {"seq": 2},  # a replayed envelope with another number
        {"device": "t-2"},  # another table's name
        {"body": {**RESULT.body, "winners": ["A"]}},  # a forged result
        {"type": "heartbeat"},
    ],
)
def test_any_change_breaks_the_signature(change: dict[str, object]) -> None:
    signed = {**RESULT.signed(KEY), **change}
    envelope, mac = p.open_envelope(json.dumps(signed).encode())
    assert not p.verify(envelope, mac, KEY)


def test_another_key_does_not_verify() -> None:
    envelope, mac = p.open_envelope(p.seal(RESULT, KEY))
    assert not p.verify(envelope, mac, p.key_bytes("cd" * 32))


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (b"not json", "(envelope)"),
        (b"[1, 2]", "(envelope)"),
        (b'{"v": 2}', "v"),
        (b'{"v": true}', "v"),
        (b'{"v": 1, "type": "bonus"}', "type"),
        (b'{"v": 1, "type": "ack", "device": "a b"}', "device"),
        (b'{"v": 1, "type": "result", "device": "t", "seq": 0}', "seq"),  # results count from 1
        (b'{"v": 1, "type": "ack", "device": "t", "seq": 1.0}', "seq"),
        (b'{"v": 1, "type": "ack", "device": "t", "seq": 1, "body": []}', "body"),
        (b'{"v": 1, "type": "ack", "device": "t", "seq": 1, "body": {}, "mac": "XY"}', "mac"),
        (
            b'{"v": 1, "type": "ack", "device": "t", "seq": 1, "body": {}, "mac": "'
            + b"a" * 64
            + b'", "extra": 1}',
            "extra",
        ),  # a field the contract does not have
        (b'{"v": NaN}', "(envelope)"),
        (b"[" * 10_000, "(envelope)"),
        (b" " * (p.MAX_BODY + 1), "(envelope)"),
    ],
)
def test_a_bad_envelope_names_its_field(raw: bytes, field: str) -> None:
    with pytest.raises(p.ProtocolError) as error:
        p.open_envelope(raw)
    assert error.value.field == field


def test_a_key_must_be_64_hex_digits() -> None:
    with pytest.raises(p.ProtocolError, match="64 lower-case hex digits"):
        p.key_bytes("abc")


# --- serial frames ----------------------------------------------------------------------


def test_a_frame_is_json_a_space_its_crc32_and_a_newline() -> None:
    line = p.frame(RESULT, KEY)
    body = p.seal(RESULT, KEY)
    assert line == body + b" " + f"{zlib.crc32(body):08x}".encode() + b"\n"
    assert list(p.Deframer().feed(line)) == [body]


def test_damaged_frames_are_dropped_and_counted_and_the_next_one_survives() -> None:
    good = p.frame(RESULT, KEY)
    corrupt = good.replace(b"t-1", b"t-7")  # a byte changed on the air: the CRC no longer fits
    oversize = b"x" * (p.MAX_FRAME + 10) + b"\n"
    deframer = p.Deframer()
    out = list(deframer.feed(corrupt + oversize + b"garbage\n" + good))
    assert out == [good[:-10]]
    assert deframer.dropped == {"oversize": 1, "crc": 2}


def test_an_envelope_signed_elsewhere_frames_to_the_same_bytes() -> None:
    # The serial link gets sealed bytes from the courier and the hub's acks as signed dicts.
    signed = RESULT.signed(KEY)
    assert p.frame_signed(signed) == p.frame(RESULT, KEY)
    assert p.frame_signed(json.loads(p.seal(RESULT, KEY))) == p.frame(RESULT, KEY)
    with pytest.raises(p.ProtocolError, match="over 2048 bytes"):
        p.frame_signed({**signed, "body": {"pad": "x" * p.MAX_FRAME}})


def test_the_start_of_a_frame_whose_rest_never_came_is_dropped_on_its_own() -> None:
    good = p.frame(RESULT, KEY)
    deframer = p.Deframer()
    assert list(deframer.feed(good[:100])) == []  # then the line falls quiet: the rest is lost
    deframer.drop_partial()
    assert list(deframer.feed(good)) == [good[:-10]]  # the next frame is not glued onto it
    deframer.drop_partial()  # nothing waits: nothing to count
    assert deframer.dropped == {"oversize": 0, "crc": 1}


def test_a_frame_over_2_kib_is_refused_when_made() -> None:
    big = p.Envelope("result", "t-1", 1, {"pad": "x" * p.MAX_FRAME})
    with pytest.raises(p.ProtocolError, match="over 2048 bytes"):
        p.frame(big, KEY)


@given(st.binary(max_size=5000), st.lists(st.integers(1, 64), max_size=50))
def test_any_bytes_in_any_pieces_never_crash_and_only_whole_frames_come_out(
    noise: bytes, cuts: list[int]
) -> None:
    good = p.frame(RESULT, KEY)
    stream = noise + b"\n" + good + noise[:100]
    deframer = p.Deframer()
    out: list[bytes] = []
    i = 0
    for size in [*cuts, len(stream)]:
        out += deframer.feed(stream[i : i + size])
        i += size
    assert good[:-10] in out  # the good frame after the noise always gets through
    for body in out:
        assert p.check_frame(body + b" " + f"{zlib.crc32(body):08x}".encode()) == body


# --- receipts ---------------------------------------------------------------------------


def test_a_receipt_is_five_signs_without_0_o_1_or_i_and_is_stable() -> None:
    codes = {p.receipt({"device": "t-1", "seq": n}) for n in range(2000)}
    assert all(len(c) == 5 and not set(c) & set("0O1I") for c in codes)
    assert len(codes) > 1990  # 32^5 codes: collisions are rare
    assert p.receipt({"device": "t-1", "seq": 1}) == p.receipt({"seq": 1, "device": "t-1"})
