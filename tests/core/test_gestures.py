"""From raw edges to gestures: debounce, tap, hold marks, double tap, stuck, storms."""

from __future__ import annotations

import pytest

from klik.core import gestures as gs
from klik.core.gestures import Button, DoubleTap, GestureSettings, Held, Mark, Pressed, Stuck, Tap
from klik.errors import InputError

SETTINGS = GestureSettings()


def run(edges: list[tuple[bool, float]], until: float) -> list[gs.Gesture]:
    """Feed one button's edges, doing each item once it is due; returns the gestures."""
    button, out = Button("A"), []
    pending = sorted(edges, key=lambda e: e[1])
    while True:
        item = gs.next_item(button, SETTINGS)
        next_edge = pending[0][1] if pending else None
        if (
            item is not None
            and item.decided <= until
            and (next_edge is None or item.decided < next_edge)
        ):
            button, gesture = gs.process(button, SETTINGS)
            if gesture is not None:
                out.append(gesture)
        elif pending:
            pressed, at = pending.pop(0)
            button = gs.edge(button, pressed, at)
        else:
            return out


def test_a_tap_is_dated_at_the_press() -> None:
    assert run([(True, 5.0), (False, 5.1)], until=6) == [Pressed("A", 5.0), Tap("A", 5.0)]


def test_contact_bounce_is_one_press_dated_at_the_first_edge() -> None:
    bouncy = [(True, 5.0), (False, 5.004), (True, 5.009), (False, 5.2), (True, 5.21), (False, 5.22)]
    assert run(bouncy, until=6) == [Pressed("A", 5.0), Tap("A", 5.0)]


def test_a_glitch_shorter_than_the_debounce_is_no_press() -> None:
    assert run([(True, 5.0), (False, 5.01)], until=6) == []


def test_a_hold_gives_its_marks_at_their_moments() -> None:
    marks = run([(True, 0.0), (False, 3.2)], until=4)
    assert marks == [
        Pressed("A", 0.0),
        Held("A", 1.0, 0.0, frozenset({Mark.HOLD})),
        Held("A", 1.5, 0.0, frozenset({Mark.REPEAT})),
        Held("A", 2.0, 0.0, frozenset({Mark.JUDGE, Mark.REPEAT})),
        Held("A", 2.5, 0.0, frozenset({Mark.REPEAT})),
        Held("A", 3.0, 0.0, frozenset({Mark.LONG, Mark.REPEAT})),
    ]


def test_releasing_just_before_hold_s_is_still_a_tap() -> None:
    assert run([(True, 0.0), (False, 0.99)], until=2)[-1] == Tap("A", 0.0)


def test_two_taps_within_double_s_make_a_double_tap() -> None:
    edges = [(True, 1.0), (False, 1.1), (True, 1.4), (False, 1.5)]
    assert run(edges, until=2) == [
        Pressed("A", 1.0),
        Tap("A", 1.0),
        Pressed("A", 1.4),
        DoubleTap("A", 1.4, first_at=1.0),
    ]


def test_a_hold_that_follows_a_tap_within_double_s_says_so() -> None:
    edges = [(True, 1.0), (False, 1.1), (True, 1.4), (False, 2.6)]
    assert run(edges, until=3) == [
        Pressed("A", 1.0),
        Tap("A", 1.0),
        Pressed("A", 1.4),
        Held("A", 2.4, 1.4, frozenset({Mark.HOLD}), after_tap=1.0),
    ]
    later = [(True, 1.0), (False, 1.1), (True, 1.5), (False, 2.6)]  # 0.5 s after the tap
    assert run(later, until=3)[-1] == Held("A", 2.5, 1.5, frozenset({Mark.HOLD}))


def test_taps_further_apart_are_two_taps() -> None:
    edges = [(True, 1.0), (False, 1.1), (True, 1.45), (False, 1.55)]
    assert [g for g in run(edges, until=2) if isinstance(g, Tap)] == [Tap("A", 1.0), Tap("A", 1.45)]


def test_a_third_quick_tap_starts_afresh() -> None:
    edges = [(True, 0.0), (False, 0.1), (True, 0.2), (False, 0.3), (True, 0.4), (False, 0.5)]
    kinds = [type(g).__name__ for g in run(edges, until=1) if not isinstance(g, Pressed)]
    assert kinds == ["Tap", "DoubleTap", "Tap"]


def test_a_stuck_button_is_reported_once_then_ignored_until_released() -> None:
    out = run([(True, 0.0), (False, 30.0)], until=40)
    assert [g for g in out if isinstance(g, Stuck)] == [Stuck("A", 10.0, 0.0)]
    assert not [g for g in out if isinstance(g, Held) and g.at > 10.0]
    assert not [g for g in out if isinstance(g, Tap | DoubleTap)]
    # After the release the button works again.
    out = run([(True, 0.0), (False, 30.0), (True, 31.0), (False, 31.1)], until=40)
    assert out[-1] == Tap("A", 31.0)


def test_an_edge_storm_settles_within_storm_s() -> None:
    # A wire chattering every 10 ms for 2 s: the first burst is settled 0.25 s after it began.
    storm = [(i % 2 == 0, i * 0.01) for i in range(200)]
    button = Button("A")
    for pressed, at in storm[:30]:
        button = gs.edge(button, pressed, at)
    item = gs.next_item(button, SETTINGS)
    assert item is not None
    assert (item.effective, item.decided) == (0.0, 0.25)


def test_a_repeated_edge_changes_nothing() -> None:
    button = gs.edge(Button("A"), True, 1.0)
    assert gs.edge(button, True, 1.5) == button


def test_settings_are_checked() -> None:
    with pytest.raises(InputError, match="call_judge_s must be from hold_s"):
        GestureSettings(call_judge_s=0.5).check()
    with pytest.raises(InputError, match="debounce_ms"):
        GestureSettings(debounce_ms=-1).check()
