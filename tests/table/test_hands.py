"""The virtual table's jitter buffer (``klik.table.sim.hands``): a press dated by the sender's
clock keeps the sender's spacing, however its request travelled. Time is numbers here."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.table.sim.hands import AHEAD_S, BEST_S, LAG_S, Hands


class Clock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_double_tap_keeps_its_spacing_when_its_second_press_comes_late() -> None:
    clock = Clock()
    hands = Hands(clock)
    sent = 5000.0  # the page's clock: another origin altogether
    dates = []
    # press, release, press, release 60 ms apart; the second press's request took 140 ms
    # longer than the others (a loaded machine): dated on arrival, the gap would be 200 ms.
    for k, arrives in enumerate([0.002, 0.062, 0.262, 0.263]):  # the last one right after
        clock.now = 100.0 + arrives
        dates.append(hands.date(sent + 0.06 * k))
    gaps = [round(b - a, 6) for a, b in itertools.pairwise(dates)]
    assert gaps == [0.06, 0.06, 0.06]
    assert dates[0] == pytest.approx(100.002 + LAG_S)  # the first request plus the slack


def test_edges_sent_in_one_burst_keep_their_spacing() -> None:
    """The four edges of a double tap arriving within 3 ms: on arrival, a 1 ms press (under
    the debounce). The delay follows the quicker requests by a tenth of the gaps at most."""
    clock = Clock()
    hands = Hands(clock)
    dates = []
    for k in range(4):
        clock.now = 100.0 + 0.001 * k
        dates.append(hands.date(7.0 + 0.06 * k))  # all sent after the whole gesture
    gaps = [b - a for a, b in itertools.pairwise(dates)]
    assert all(0.9 * 0.06 - 1e-9 <= gap <= 0.06 for gap in gaps), gaps
    assert dates[-1] <= clock.now + AHEAD_S


def test_a_hold_keeps_most_of_its_length_when_its_release_travels_quicker() -> None:
    clock = Clock()
    hands = Hands(clock)
    pressed = hands.date(0.0)  # a slow first request: 0.2 s on the way
    clock.now = 101.3 - 0.2  # the release 1.3 s later, on a quick line
    released = hands.date(1.3)
    assert 1.3 * 0.9 - 1e-9 <= released - pressed <= 1.3


def test_a_request_later_than_the_slack_is_dated_when_it_arrives() -> None:
    clock = Clock()
    hands = Hands(clock)
    assert hands.date(0.0) == 100.0 + LAG_S
    clock.now = 101.0
    assert hands.date(0.5) == 101.0  # 0.5 s slower than the first: no date before now


def test_the_quickest_request_is_forgotten_after_a_while() -> None:
    """A sender's clock set back by a second: after BEST_S its presses are spaced again."""
    clock = Clock()
    hands = Hands(clock)
    hands.date(0.0)
    clock.now = 100.0 + BEST_S + 1
    first = hands.date(BEST_S + 1 - 1.0)  # now a second behind
    clock.now += 0.06
    assert round(hands.date(BEST_S + 1 - 1.0 + 0.06) - first, 6) == 0.06


@given(
    st.lists(
        st.tuples(st.floats(0, 0.5), st.floats(0, 2.0)),  # (gap on the sender, travel)
        min_size=1,
        max_size=30,
    )
)
def test_dates_never_go_back_nor_further_ahead_than_allowed(
    edges: list[tuple[float, float]],
) -> None:
    clock = Clock()
    hands = Hands(clock)
    sent, last = 0.0, float("-inf")
    for gap, travel in edges:
        sent += gap
        clock.now = max(clock.now, 100.0 + sent + travel)
        dated = hands.date(sent)
        assert dated >= last
        assert clock.now <= dated <= clock.now + AHEAD_S or dated == last
        last = dated


def test_a_new_gesture_takes_a_quicker_line_at_once() -> None:
    """The first request took 2 s (a cold connection): the next gesture's edges come quickly
    and keep their spacing, though following at a tenth of the gaps would take minutes."""
    clock = Clock()
    hands = Hands(clock)
    clock.now = 102.0
    hands.date(0.0, key="A", pressed=True)  # sent at 100, here at 102
    clock.now = 102.1
    hands.date(0.1, key="A", pressed=False)
    dates = []
    for k, (pressed, at) in enumerate([(True, 3.0), (False, 3.06), (True, 3.12), (False, 3.18)]):
        clock.now = 103.0 + 0.06 * k + 0.002  # each on its way 2 ms
        dates.append(hands.date(at, key="B", pressed=pressed))
    assert [round(b - a, 6) for a, b in itertools.pairwise(dates)] == [0.06] * 3
    assert dates[0] == pytest.approx(103.002 + LAG_S)


def test_a_held_button_keeps_the_line_as_it_was() -> None:
    """While a button is held, a quicker request only moves the delay by a tenth of the gap:
    the hold's length stays (within a tenth), whichever seat presses meanwhile."""
    clock = Clock()
    hands = Hands(clock)
    clock.now = 100.3
    pressed = hands.date(0.0, key="A", pressed=True)  # 0.3 s on its way
    clock.now = 101.0 + 0.002
    hands.date(1.0, key="B", pressed=True)  # another seat, quickly, while A holds
    clock.now = 101.5 + 0.002
    released = hands.date(1.5, key="A", pressed=False)
    assert 1.5 * 0.9 - 1e-9 <= released - pressed <= 1.5
