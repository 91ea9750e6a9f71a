"""The judge key: a press let go before long_hold_s is a tap, one held longer a hold."""

from __future__ import annotations

import pytest

from klik.core.gestures import (
    GestureSettings,
    JudgeGesture,
    JudgeHold,
    JudgeKey,
    JudgeTap,
    judge_edge,
)

SETTINGS = GestureSettings(long_hold_s=3.0)


def run(edges: list[tuple[bool, float]]) -> tuple[JudgeKey, list[JudgeGesture]]:
    key, out = JudgeKey(), []
    for pressed, at in edges:
        key, gesture = judge_edge(key, pressed, at, SETTINGS)
        if gesture is not None:
            out.append(gesture)
    return key, out


@pytest.mark.parametrize(
    ("edges", "gestures"),
    [
        # a quick press: a tap, dated at the release
        ([(True, 1.0), (False, 1.2)], [JudgeTap(1.2, 1.0)]),
        # just short of long_hold_s: still a tap
        ([(True, 1.0), (False, 3.99)], [JudgeTap(3.99, 1.0)]),
        # long_hold_s exactly: a hold (undo), known only at the release
        ([(True, 1.0), (False, 4.0)], [JudgeHold(4.0, 1.0)]),
        # a release with no press before it (down when the table started): nothing
        ([(False, 1.0)], []),
        # a second press without a release between starts the press anew
        ([(True, 1.0), (True, 3.0), (False, 4.5)], [JudgeTap(4.5, 3.0)]),
        # two presses, two gestures
        (
            [(True, 1.0), (False, 1.1), (True, 2.0), (False, 6.0)],
            [JudgeTap(1.1, 1.0), JudgeHold(6.0, 2.0)],
        ),
    ],
)
def test_a_judge_key_press_is_a_tap_or_a_hold(
    edges: list[tuple[bool, float]], gestures: list[JudgeGesture]
) -> None:
    key, out = run(edges)
    assert (key, out) == (JudgeKey(None), gestures)


def test_a_press_still_down_is_remembered_and_says_nothing_yet() -> None:
    assert run([(True, 1.0)]) == (JudgeKey(1.0), [])
