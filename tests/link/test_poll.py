"""The polled channel's schedule (klik.link.poll): pure, time passed as numbers."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.link import poll
from klik.link import protocol as p
from klik.link.poll import Turn


def test_new_tables_are_due_at_once_in_order() -> None:
    turns = poll.joined({}, ["b", "a"])
    assert turns == {"a": Turn(), "b": Turn()}
    assert poll.next_table(turns, 0.0) == "a"


def test_a_table_that_answered_is_due_after_its_idle_time_or_when_it_asks() -> None:
    assert poll.answered(Turn(misses=3), 5.0, idle_s=2.0) == Turn(7.0, 5.0, 0, idle=True)
    assert poll.wanted(Turn(7.0, 5.0, 0, idle=True), 6.0) == Turn(6.0, 5.0, 0)
    assert poll.wanted(Turn(3.0, 2.0, 0), 6.0) == Turn(3.0, 2.0, 0)  # due already: no later


def test_a_table_with_something_to_send_goes_before_one_due_only_to_be_heard() -> None:
    turns = {"idle": Turn(due_at=1.0, idle=True), "asked": Turn(due_at=4.0)}
    assert poll.next_table(turns, 5.0) == "asked"
    assert poll.next_table(turns, 2.0) == "idle"  # nobody else is due


def test_a_table_told_of_commands_goes_first_once_due_and_not_before() -> None:
    turns = {"swept": Turn(due_at=1.0), "told": Turn(due_at=3.0, urgent=True)}
    assert poll.next_table(turns, 5.0) == "told"  # its heartbeat acknowledges a pause
    assert poll.next_table(turns, 2.0) == "swept"  # not yet: the push is still on its way
    # Answering its turn ends the urgency: the next is an ordinary one.
    assert not poll.answered(turns["told"], 5.0).urgent


def test_the_reply_window_is_learnt_from_the_answers_and_kept_within_the_radio_s() -> None:
    few = [0.005] * (poll.REPLY_SAMPLES // 4 - 1)
    assert poll.reply_window(few, 0.04) == 0.04  # too few answers heard: the radio's own
    quick = [0.006] * 62 + [0.010] * 2  # 62 in 64 within 6 ms: 1.5 x 6 ms + 4 ms
    assert poll.reply_window(quick, 0.04) == pytest.approx(0.013)
    assert poll.reply_window([0.001] * 64, 0.04) == poll.MIN_REPLY_S  # a cable's
    assert poll.reply_window([0.031] * 64, 0.04) == 0.04  # an HC-12's: never longer
    # One slow answer in twenty moves the window out to clear it.
    assert poll.reply_window([0.006] * 60 + [0.012] * 4, 0.04) == pytest.approx(0.022)


@given(st.lists(st.floats(0.0, 1.0), max_size=80), st.floats(0.02, 0.5))
def test_the_reply_window_is_never_past_its_ceiling_nor_below_the_floor(
    delays: list[float], ceiling: float
) -> None:
    assert poll.MIN_REPLY_S <= poll.reply_window(delays, ceiling) <= ceiling


def test_a_table_that_does_not_answer_is_polled_less_often_each_time() -> None:
    turn = Turn()
    waits = []
    for k in range(10):
        turn = poll.unanswered(turn, 100.0 * k)
        waits.append(turn.due_at - 100.0 * k)
    assert waits[:4] == [0.5, 1.0, 2.0, 4.0]
    assert waits[-1] == poll.MAX_RETRY_S
    assert turn.misses == 10


def test_nobody_due_is_none_and_the_next_due_time_says_when() -> None:
    turns = {"a": Turn(due_at=3.0), "b": Turn(due_at=2.0)}
    assert poll.next_table(turns, 1.0) is None
    assert poll.next_due(turns.values()) == 2.0
    assert poll.next_due([]) == math.inf


def test_tables_no_longer_paired_leave_the_schedule() -> None:
    turns = {"a": Turn(due_at=9.0), "b": Turn()}
    assert poll.joined(turns, ["a", "c"]) == {"a": Turn(due_at=9.0), "c": Turn()}


def test_the_idle_interval_grows_with_the_tables() -> None:
    assert poll.idle_for(1) == poll.IDLE_S
    assert poll.idle_for(30) == 30 * poll.IDLE_TURN_S


def test_a_poll_and_a_nothing_are_short_binary_frames() -> None:
    poll_line = poll.poll_frame(7)
    assert poll_line[0] == poll.MARK
    assert poll_line.endswith(b"\n")
    assert len(poll_line) == 6  # mark, kind, table, CRC-16, newline
    assert poll.turn_of(poll.check_line(poll_line[:-1]) or b"") == poll.Poll(7)
    nothing = poll.nothing_frame(7)
    assert len(nothing) == poll.NOTHING_BYTES
    assert poll.turn_of(poll.check_line(nothing[:-1]) or b"") == poll.Nothing(7)
    assert poll.turn_of(b'{"v":1}') is None


@pytest.mark.parametrize(
    ("table", "size"), [(0, 1), (7, 1), (127, 1), (128, 2), (999, 2), (32767, 2)]
)
def test_a_table_s_number_takes_one_byte_under_128_else_two(table: int, size: int) -> None:
    assert len(poll.number_bytes(table)) == size
    for line in (poll.poll_frame(table), poll.nothing_frame(table)):
        heard = poll.turn_of(poll.check_line(line[:-1]) or b"")
        assert heard is not None
        assert heard.table == table


@pytest.mark.parametrize("table", [-1, poll.MAX_TABLE + 1])
def test_a_number_turn_frames_cannot_carry_is_refused(table: int) -> None:
    with pytest.raises(ValueError, match="turn frames name 0 to 32767"):
        poll.poll_frame(table)


def _ack(device: str, seq: int, status: p.Status, receipt: str, key: bytes) -> p.Json:
    body = {"of": "result", "receipt": receipt, "status": status.value}
    return p.Envelope("ack", device, seq, body).signed(key)


def test_a_short_ack_stands_for_the_full_ack_the_hub_signed() -> None:
    key = bytes(range(32))
    request = p.Envelope("result", "t7-ab", 300, {"table": 7, "game": 2})
    receipt = p.receipt({"device": "t7-ab", "seq": 300, "body": request.body})
    full = _ack("t7-ab", 300, p.Status.STORED, receipt, key)
    assert poll.ack_of(request, key) == full  # the table can make the ack it waits for
    short = poll.ShortAck.of(full)
    assert short is not None
    assert short.receipt == ""  # stored: the table works it out
    line = poll.poll_frame(3, [short])
    body = poll.check_line(line[:-1]) or b""
    assert len(body) == 3 + 4  # a stored result's ack is its 4-byte tag
    heard = poll.turn_of(body)
    assert isinstance(heard, poll.Poll)
    assert heard.table == 3
    (got,) = heard.acks
    assert got.opened(request, key) == full  # the very ack, byte for byte
    assert got.opened(request, bytes(32)) is None  # another table's key
    later = p.Envelope("result", "t7-ab", 301, request.body)
    assert got.opened(later, key) is None  # another result of the same table
    beat = p.Envelope("heartbeat", "t7-ab", 300, {"state": "done"})
    assert got.opened(beat, key) is None


def test_a_duplicate_s_short_ack_carries_the_first_copy_s_receipt() -> None:
    key = bytes(range(32))
    request = p.Envelope("result", "t7-ab", 4, {"table": 7, "game": 2})
    full = _ack("t7-ab", 4, p.Status.DUPLICATE, "QX7RT", key)
    short = poll.ShortAck.of(full)
    assert short is not None
    body = poll.check_line(poll.poll_frame(7, [short])[:-1]) or b""
    assert len(body) == 3 + 5 + 4  # the receipt, the tag
    heard = poll.turn_of(body)
    assert isinstance(heard, poll.Poll)
    assert heard.acks[0].opened(request, key) == full


def test_acks_without_a_short_form_go_whole() -> None:
    key = bytes(32)
    conflict = _ack("t7-ab", 4, p.Status.CONFLICT, "QX7RT", key)
    assert poll.ShortAck.of(conflict) is None
    beat = p.Envelope("ack", "t7-ab", 4, {"of": "heartbeat", "status": "ok", "commands": []})
    assert poll.ShortAck.of(beat.signed(key)) is None


@pytest.mark.parametrize(
    "payload",
    [
        b"R\x07" + bytes(4),  # two stored acks counted, one there
        b"P\x07" + b"QX7R" + bytes(4),  # a duplicate one byte short
        b"U\x07" + bytes(20),  # more acks than a poll carries
        b"O\x07",  # a kind of frame there is not
        b"P\x07" + b"QX7RT" + bytes(4) * 2,  # a duplicate and four bytes more
        b"P\x07" + "QX7R\u00e9".encode() + bytes(3),  # a receipt not ASCII
        b"P\x81",  # a number of two bytes cut short
        b"P\x80\x07",  # table 7 in two bytes: not its one form
        b".\x07\x00",  # a "nothing" with a byte more
    ],
)
def test_a_poll_with_a_bad_ack_list_is_no_poll(payload: bytes) -> None:
    assert poll.turn_of(bytes((poll.MARK,)) + payload) is None


@given(st.binary(max_size=64))
def test_any_bytes_are_a_turn_frame_or_nothing_never_a_crash(data: bytes) -> None:
    body = poll.check_line(bytes((poll.MARK,)) + data)
    if body is not None:
        poll.turn_of(body)
    poll.turn_of(bytes((poll.MARK,)) + data)


@given(
    st.integers(0, poll.MAX_TABLE),
    st.lists(st.booleans(), max_size=4),
    st.binary(min_size=4, max_size=4),
)
def test_a_poll_frame_round_trips(table: int, duplicates: list[bool], tag: bytes) -> None:
    shorts = [
        poll.ShortAck(p.Status.DUPLICATE, "AB\n\x1bC", tag)
        if dup
        else poll.ShortAck(p.Status.STORED, "", bytes((1, 0x0A, 0x1B, 4)))
        for dup in duplicates
    ]
    line = poll.poll_frame(table, shorts)
    assert line.count(b"\n") == 1  # escaped inside
    heard = poll.turn_of(poll.check_line(line[:-1]) or b"")
    # The stored acks first, then the duplicates': each table looks for its own tag.
    ordered = sorted(shorts, key=lambda s: s.status is p.Status.DUPLICATE)
    assert heard == poll.Poll(table, tuple(ordered))


@given(st.lists(st.floats(-10, 10), min_size=1, max_size=30, unique=True))
def test_every_due_table_is_polled_once_before_any_twice(dues: list[float]) -> None:
    # Each table polled answers at once and asks for a turn again (a contention slot):
    # still, every table that was due gets its turn before any gets a second one.
    turns = {f"t{k}": Turn(due_at=due) for k, due in enumerate(dues)}
    now = 10.0
    polled = []
    for _ in range(len(dues)):
        device = poll.next_table(turns, now)
        assert device is not None
        assert turns[device].due_at <= now
        polled.append(device)
        turns[device] = poll.wanted(poll.answered(turns[device], now), now)
        now += 0.1
    assert sorted(polled) == sorted(turns)


@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c", "d"]),
        st.tuples(st.floats(-5, 5), st.floats(-5, 5)),
    ),
    st.floats(-5, 5),
)
def test_no_table_is_polled_before_it_is_due(
    dues: dict[str, tuple[float, float]], now: float
) -> None:
    turns = {device: Turn(due_at=due, polled_at=at) for device, (due, at) in dues.items()}
    device = poll.next_table(turns, now)
    due = [d for d, turn in turns.items() if turn.due_at <= now]
    assert (device is None) == (not due)
    if device is not None:
        assert turns[device].due_at == min(turns[d].due_at for d in due)
