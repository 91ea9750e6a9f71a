"""Pairing at the table over serial: the join frames (``klik.link.protocol.join_frames``), and
the hub's answer to each (``SerialHub.answer_join``, on a store, no port written): every
message comes back as it went, and a frame that is not one is refused in one line naming
what is wrong, before anything is taken from the store."""

from __future__ import annotations

import logging
import zlib

import pytest

from klik.link.protocol import join_frames as jf
from klik.link.protocol import pairing as x
from klik_hub import hall, sql
from klik_hub.hall.pairing import MAX_REQUESTS
from klik_hub.serial.hub import SerialHub
from klik_hub.storage.store import Store

ON_SQLITE = pytest.mark.parametrize("db", ["sqlite"], indirect=True)  # as test_serial_hub

T, H, C = "1a" * 32, "22" * 32, "33" * 32
ID, NONCE = "0123456789abcdef", "44" * 16

MESSAGES: list[jf.Message] = [
    jf.Hello(T),
    jf.Again(T, "t3-0a1b2c3d", C),
    jf.TableNonce(ID, NONCE),
    jf.Ask(ID),
    jf.Commit(T[:16], ID, H, C),
    jf.Reveal(ID, NONCE),
    jf.Asking(ID),
    jf.Accepted(ID, 7, "ab" * 150),
    jf.Ended(ID, jf.Why.REFUSED),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_join_message_comes_back_from_its_frame(message: jf.Message) -> None:
    line = jf.frame(message)
    body, _, crc = line[:-1].rpartition(b" ")
    assert crc == f"{zlib.crc32(body):08x}".encode()
    assert jf.word_of(body) is not None
    parse = jf.parse_request if jf.word_of(body) in jf.REQUEST_WORDS else jf.parse_answer
    assert parse(body) == message
    # Small frames, but for the ones that carry keys and MACs (a re-pair's: once, 0.17 s at
    # 9600 baud)
    assert len(line) <= 100 or isinstance(message, jf.Accepted | jf.Commit | jf.Again)


def test_the_channels_other_frames_are_no_join_frames(db: str) -> None:
    assert jf.word_of(b'{"body":{},"type":"heartbeat"}') is None  # an envelope
    assert jf.word_of(b"?t3-0a1b2c3d") is None  # a poll
    assert jf.word_of(b"joint " + T.encode()) is None  # another word that starts alike
    assert jf.body_of(jf.Hello(T)) == b"join " + T.encode()


BAD: list[tuple[bytes, str]] = [
    # a frame over the size a table's frame has, refused before it is read
    (b"join " + b"1" * 300, "a table's join frame of 305 bytes; at most 256"),
    # a key one hex digit short
    (b"join " + T[:-1].encode(), "join: field 1 ('1a1a1a1a1a1a1a1a') is not [0-9a-f]{64}"),
    # upper-case hex is not the contract's
    (b"join " + T.upper().encode(), "join: field 1 ('1A1A1A1A1A1A1A1A') is not [0-9a-f]{64}"),
    # a field missing
    (b"join-nonce " + ID.encode(), "join-nonce: 1 fields; it has 2"),
    # a field too many
    (b"join-ask " + ID.encode() + b" x", "join-ask: 2 fields; it has 1"),
    # two spaces: an empty field
    (b"join-ask  " + ID.encode(), "join-ask: 2 fields; it has 1"),
    # a request id that is not 16 hex digits
    (b"join-ask 0123", "join-ask: field 1 ('0123') is not [0-9a-f]{16}"),
    # not ASCII
    (b"join-ask \xff" + ID.encode()[1:], "join-ask: not ASCII"),
    # a word no table sends
    (b"join-please " + ID.encode(), "a table's join frame with an unknown word ('join-please 0123')"),
    # a hub's answer is no table's request
    (b"join-asking " + ID.encode(), "a table's join frame with an unknown word ('join-asking 0123')"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "said"), BAD, ids=[said[:28] for _, said in BAD])
def test_a_bad_join_frame_is_one_line_naming_what_is_wrong(body: bytes, said: str) -> None:
    with pytest.raises(jf.JoinFrameError) as caught:
        jf.parse_request(body)
    assert str(caught.value).removeprefix("(join): ") == said


BAD_ANSWERS: list[tuple[bytes, str]] = [
    # a table number out of range
    (f"join-accepted {ID} 0 abab".encode(), "join-accepted: field 2 ('0') is not [1-9][0-9]{0,2}"),
    # sealed hex of an odd length
    (f"join-accepted {ID} 7 aba".encode(), "join-accepted: field 3 ('aba') is not (?:[0-9a-f]{2})+"),
    # a reason the contract does not have
    (f"join-ended {ID} bored".encode(), "join-ended: field 2 ('bored') is not full|unknown|state|refused"),
    # an answer over the size any answer has
    (b"join-asking " + b"0" * 2000, "the hub's join frame of 2012 bytes; at most 1024"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "said"), BAD_ANSWERS, ids=[s[:28] for _, s in BAD_ANSWERS])
def test_a_bad_answer_is_refused_on_the_tables_side(body: bytes, said: str) -> None:
    with pytest.raises(jf.JoinFrameError) as caught:
        jf.parse_answer(body)
    assert str(caught.value).removeprefix("(join): ") == said


# --- the hub's answers ------------------------------------------------------------------------


class Idle:
    """A port nobody talks on: ``answer_join`` only computes the answer."""

    port = "idle"  # the channel's name in the log
    in_waiting = 0

    def read(self, size: int = 1) -> bytes:
        return b""

    def write(self, data: bytes, /) -> int:
        raise AssertionError("answer_join writes nothing")

    def close(self) -> None:
        pass


def answered(hub: SerialHub, message: jf.Request) -> jf.Answer:
    line = hub.answer_join(jf.body_of(message))
    assert line is not None
    return jf.parse_answer(line[:-1].rpartition(b" ")[0])


@ON_SQLITE
def test_the_hub_answers_each_step_as_its_http_route_does(store: Store) -> None:
    hub = SerialHub(store, Idle())
    own = x.new_private()
    table_key = x.public_hex(own)
    commit = answered(hub, jf.Hello(table_key))
    assert isinstance(commit, jf.Commit)
    assert commit.tag == table_key[:16]
    nonce = x.new_nonce()
    reveal = answered(hub, jf.TableNonce(commit.request_id, nonce))
    assert isinstance(reveal, jf.Reveal)
    x.check_commitment(commit.commit, commit.hub_key, table_key, reveal.nonce)
    exchange = x.Exchange(commit.request_id, table_key, commit.hub_key, nonce, reveal.nonce)
    # the judge's list shows it, asked over serial
    (asking,) = hall.pairing.asking(store)
    assert (asking["id"], asking["digits"], asking["link"]) == (
        commit.request_id, exchange.digits, "serial"
    )  # fmt: skip
    assert answered(hub, jf.Ask(commit.request_id)) == jf.Asking(commit.request_id)
    device, key = hall.pairing.accept(store, commit.request_id, 5, exchange.digits, None)
    accepted = answered(hub, jf.Ask(commit.request_id))
    assert isinstance(accepted, jf.Accepted)
    assert accepted.table == 5
    given = exchange.open(own, accepted.sealed)
    assert (given["device_id"], given["key"], given["table"]) == (device, key, 5)
    # another nonce for the same request, an unknown request: ended
    other = jf.TableNonce(commit.request_id, x.new_nonce())
    assert answered(hub, other) == jf.Ended(commit.request_id, jf.Why.STATE)
    unknown = "fedcba9876543210"
    assert answered(hub, jf.Ask(unknown)) == jf.Ended(unknown, jf.Why.UNKNOWN)
    assert hub.joins == {}


@ON_SQLITE
@pytest.mark.parametrize("good", [True, False])
def test_a_join_again_frame_proves_the_old_pairing_only_with_its_key(
    store: Store, good: bool
) -> None:
    device, key = hall.devices.pair(store, 3)
    hub = SerialHub(store, Idle())
    table_key = x.public_hex(x.new_private())
    mac = x.repair_proof(key if good else "0" * 64, table_key)
    assert isinstance(answered(hub, jf.Again(table_key, device, mac)), jf.Commit)
    with store.reading() as db:
        (request,) = db.execute(sql.schema.pairing_requests.select()).all()
    assert request.proves == (device if good else None)


@ON_SQLITE
def test_the_hub_keeps_at_most_max_requests_and_says_so(store: Store) -> None:
    hub = SerialHub(store, Idle())
    for _ in range(MAX_REQUESTS):
        assert isinstance(answered(hub, jf.Hello(x.public_hex(x.new_private()))), jf.Commit)
    late = jf.Hello(x.public_hex(x.new_private()))
    assert answered(hub, late) == jf.Ended(late.tag, jf.Why.FULL)


@ON_SQLITE
def test_a_bad_join_frame_gets_no_answer_one_log_line_and_the_hub_goes_on(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    hub = SerialHub(store, Idle())
    caplog.set_level(logging.WARNING, logger="klik_hub.serial.hub")
    assert hub.answer_join(b"join " + T[:40].encode()) is None
    assert hub.answer_join(b"join " + b"1" * 5000) is None
    assert hub.answer_join(jf.body_of(jf.Asking(ID))) is None  # a hub's answer: not for us
    assert [r.getMessage() for r in caplog.records] == [
        "serial idle: a join frame dropped: join: field 1 ('1a1a1a1a1a1a1a1a') is not [0-9a-f]{64}",
        "serial idle: a join frame dropped: (join): a table's join frame of 5005 bytes; "
        "at most 256",
    ]
    assert hub.joins == {"bad": 2, "other": 1}
    assert hall.pairing.asking(store) == []
    assert isinstance(answered(hub, jf.Hello(T)), jf.Commit)  # and it goes on
