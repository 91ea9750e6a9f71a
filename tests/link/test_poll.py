"""The polled channel's schedule (klik.link.poll): pure, time passed as numbers."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from klik.link import poll
from klik.link.poll import Turn


def test_new_tables_are_due_at_once_in_order() -> None:
    turns = poll.joined({}, ["b", "a"])
    assert turns == {"a": Turn(), "b": Turn()}
    assert poll.next_table(turns, 0.0) == "a"


def test_a_table_that_sent_a_frame_is_due_again_at_once_an_idle_one_later() -> None:
    assert poll.answered(Turn(), 5.0, sent=True) == Turn(5.0, 5.0, 0)
    assert poll.answered(Turn(misses=3), 5.0, sent=False, idle_s=2.0) == Turn(7.0, 5.0, 0)


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


def test_the_turns_frames_say_who_and_what() -> None:
    line = poll.turn_frame(poll.POLL, "t3-abc")
    assert line.startswith(b"?t3-abc ")
    assert line.endswith(b"\n")
    assert poll.turn_of(line[:-10]) == ("?", "t3-abc")
    assert poll.turn_of(poll.turn_frame(poll.NOTHING, "t3-abc")[:-10]) == (".", "t3-abc")
    assert poll.turn_of(b'{"v":1}') is None
    assert poll.turn_of(b"?not a device") is None


@given(st.lists(st.floats(-10, 10), min_size=1, max_size=30, unique=True))
def test_every_due_table_is_polled_once_before_any_twice(dues: list[float]) -> None:
    # Each table polled answers with a frame (due again at once): still, every table that
    # was due gets its turn before any gets a second one.
    turns = {f"t{k}": Turn(due_at=due) for k, due in enumerate(dues)}
    now = 10.0
    polled = []
    for _ in range(len(dues)):
        device = poll.next_table(turns, now)
        assert device is not None
        assert turns[device].due_at <= now
        polled.append(device)
        turns[device] = poll.answered(turns[device], now, sent=True)
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
