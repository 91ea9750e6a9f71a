"""The judge key: a press let go before long_hold_s is a tap, one held longer a hold; what
each means in the game's phase (``klik.core.judgekey``): a hold re-pairs the table only when
it lasts 5 s and no game is under way."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from klik.core.game import Phase
from klik.core.gestures import (
    GestureSettings,
    JudgeGesture,
    JudgeHold,
    JudgeKey,
    JudgeTap,
    judge_edge,
)
from klik.core.judgekey import REPAIR_HOLD_S, JudgeMeaning, meaning

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


# --- what a gesture means: re-pair only by a 5 s hold on a ready game (core.judgekey) ---------

P = Phase


@pytest.mark.parametrize(
    ("edges", "phase", "meant"),
    [
        ([(True, 1.0), (False, 1.2)], P.READY, JudgeMeaning.START),  # a tap starts
        ([(True, 1.0), (False, 1.2)], P.MOVE, JudgeMeaning.PAUSE),
        ([(True, 1.0), (False, 1.2)], P.TIMED_OUT, JudgeMeaning.PAUSE),
        ([(True, 1.0), (False, 1.2)], P.SCORING, JudgeMeaning.PAUSE),
        ([(True, 1.0), (False, 1.2)], P.PAUSED, JudgeMeaning.RESUME),
        ([(True, 1.0), (False, 1.2)], P.DONE, JudgeMeaning.NEXT_GAME),
        ([(True, 1.0), (False, 4.0)], P.MOVE, JudgeMeaning.UNDO),  # 3 s: undo, as ever
        ([(True, 1.0), (False, 5.99)], P.READY, JudgeMeaning.UNDO),  # just short of 5 s
        ([(True, 1.0), (False, 6.0)], P.READY, JudgeMeaning.REPAIR),  # 5 s on a ready game
        ([(True, 1.0), (False, 30.0)], P.READY, JudgeMeaning.REPAIR),
        # during or after a game, a hold is undo however long: never a re-pair by mistake
        ([(True, 1.0), (False, 9.0)], P.MOVE, JudgeMeaning.UNDO),
        ([(True, 1.0), (False, 9.0)], P.PAUSED, JudgeMeaning.UNDO),
        ([(True, 1.0), (False, 9.0)], P.TIMED_OUT, JudgeMeaning.UNDO),
        ([(True, 1.0), (False, 9.0)], P.SCORING, JudgeMeaning.UNDO),
        ([(True, 1.0), (False, 9.0)], P.DONE, JudgeMeaning.UNDO),
    ],
)
def test_a_judge_key_gesture_means_one_thing_in_each_phase(
    edges: list[tuple[bool, float]], phase: Phase, meant: JudgeMeaning
) -> None:
    _, (gesture,) = run(edges)
    assert meaning(gesture, phase) is meant


times = st.floats(0.0, 10_000.0, allow_nan=False, allow_infinity=False)


@given(
    edges=st.lists(st.tuples(st.booleans(), times), max_size=20),
    phase=st.sampled_from(list(Phase)),
)
def test_only_a_hold_of_5_s_on_a_ready_game_ever_re_pairs(
    edges: list[tuple[bool, float]], phase: Phase
) -> None:
    key = JudgeKey()
    for pressed, at in sorted(edges, key=lambda e: e[1]):
        before = key.pressed_at
        key, gesture = judge_edge(key, pressed, at, SETTINGS)
        if gesture is None:
            continue
        repairs = meaning(gesture, phase) is JudgeMeaning.REPAIR
        held = at - before if before is not None else 0.0
        assert repairs == (phase is Phase.READY and held >= REPAIR_HOLD_S)
        if held < REPAIR_HOLD_S:
            assert not repairs  # a hold under 5 s never re-pairs, whatever the phase
