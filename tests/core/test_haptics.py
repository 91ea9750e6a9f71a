"""What the seats' vibration motors tell (issue 40): pulses from the core's steps, on the
virtual clock, and the motors' patterns from the pulses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from klik.core import game as g
from klik.core.haptics import Pulse, PulseKind
from klik.table.hardware import signals
from tests.helpers.play import Play

MOVE, WARN, TIMEOUT = PulseKind.YOUR_MOVE, PulseKind.WARN, PulseKind.TIMEOUT
JUDGE, COUNT = PulseKind.JUDGE, PulseKind.COUNT
ALL = ("A", "B", "C", "D")


def felt(play: Play) -> list[tuple[float, str, str]]:
    """Every pulse so far as (moment, kind, seats)."""
    return [(round(p.at, 3), p.kind.value, "".join(p.seats)) for p in play.driver.pulses]


def test_a_whole_game_is_felt_at_every_moment_a_seat_must_know() -> None:
    play = Play(move_time_s=30)
    play.start(0.0)  # D taps: A's move
    play.tap("A", 5.0)  # B's move
    play.to(35.2)  # B: 10 s left at 25.0, the time ran out at 35.0 ("wait": B hands over)
    play.tap("B", 40.0)  # C's move
    play.hold("B", 45.0, 2.5)  # B calls the judge while C moves
    play.tap("C", 50.0)  # C ends the move: D's move stands for the judge before it begins
    play.order("resume", 60.0)  # the judge lets D's clock run
    play.order("end", 70.0)  # the judge ends the game: the count begins
    assert felt(play) == [
        (0.13, "your_move", "A"),  # the tap is known at its release (and the debounce)
        (5.13, "your_move", "B"),
        (25.0, "warn", "B"),
        (35.0, "timeout", "B"),
        (40.13, "your_move", "C"),
        (47.0, "judge", "ABCD"),  # B's hold reached call_judge_s
        (60.0, "your_move", "D"),
        (70.0, "count", "ABCD"),
    ]


def test_an_auto_timeout_is_the_long_pulse_for_one_seat_and_the_short_for_the_next() -> None:
    play = Play(move_time_s=20, timeout="auto", warn_s=5).start(0.0)
    play.to(20.5)
    assert felt(play)[1:] == [(15.0, "warn", "A"), (20.0, "timeout", "A"), (20.0, "your_move", "B")]


def test_a_resume_tells_the_mover_the_clock_runs_again_and_a_pause_is_silent() -> None:
    play = Play().start(0.0).order("pause", 10.0).order("resume", 20.0)
    play.to(30.0)
    assert felt(play) == [(0.13, "your_move", "A"), (20.0, "your_move", "A")]


def test_a_restart_and_a_hand_over_taken_back_tell_the_mover_again() -> None:
    play = Play().start(0.0).tap("A", 5.0)
    play.order("undo", 10.0)  # A's move again, paused: the judge resumes it
    play.order("resume", 11.0)
    play.order("restart", 13.0)  # A's move again with its full time
    assert felt(play) == [
        (0.13, "your_move", "A"), (5.13, "your_move", "B"), (11.0, "your_move", "A"),
        (13.0, "your_move", "A"),
    ]  # fmt: skip


def test_a_rummikub_begins_the_count_for_every_seat() -> None:
    play = Play().start(0.0).tap("A", 5.0).double("B", 10.0)
    assert felt(play)[-1] == (10.2, "count", "ABCD")  # the second tap's press


def pattern(kind: PulseKind) -> list[tuple[float, bool]]:
    """The motor's edges for one pulse at 0, as the signals time them."""
    pulses = (Pulse(0.0, kind, ("B",)),)
    game = Play().game
    edges, now = [], -1.0
    while (nxt := signals.next_change(game, now, (), "on", pulses)) is not None:
        out = signals.outputs(game, nxt, (), "on", pulses, felt=frozenset("ABCD"))
        edges.append((round(nxt, 3), out.vibration[1]))
        assert not any(out.vibration[i] for i in (0, 2, 3))  # only the pulse's seat
        now = nxt
    return edges


def test_each_moment_has_its_own_pattern() -> None:
    assert pattern(MOVE) == [(0.0, True), (0.15, False)]  # one short
    assert pattern(WARN) == [(0.0, True), (0.15, False), (0.3, True), (0.45, False),
                             (0.6, True), (0.75, False)]  # fmt: skip
    assert pattern(TIMEOUT) == [(0.0, True), (0.8, False)]  # one long
    two = [(0.0, True), (0.15, False), (0.3, True), (0.45, False)]
    assert pattern(JUDGE) == pattern(COUNT) == two


def test_a_seat_without_a_motor_or_not_fitted_feels_nothing() -> None:
    game = Play().game
    pulses = (Pulse(0.0, JUDGE, ALL),)
    out = signals.outputs(game, 0.05, (), "on", pulses, felt=frozenset("AC"))
    assert out.vibration == (True, False, True, False)
    assert signals.outputs(game, 0.05, (), "on", pulses).vibration == (False,) * 4
    assert signals.still_pulsing(pulses, 0.44) == pulses
    assert signals.still_pulsing(pulses, 0.45) == ()


taps = st.lists(st.tuples(st.floats(0.5, 90.0), st.sampled_from(["tap", "hold"])), max_size=12)


@settings(max_examples=60, deadline=None)
@given(taps)
def test_every_move_begun_is_felt_once_by_its_seat(presses: list[tuple[float, str]]) -> None:
    play = Play(move_time_s=20, timeout="auto", warn_s=5).start(0.0)
    at = 1.0
    for gap, how in presses:
        at = max(at, play.driver.now) + gap  # each press after the last one settled
        mover = play.game.mover
        if play.game.phase is not g.Phase.MOVE or mover is None:
            break
        getattr(play, how)(mover, at)
    play.to(at + 1.0)
    game = play.game
    begun = [(m.seat, m.start) for m in game.moves]
    if game.phase is g.Phase.MOVE and game.mover is not None and game.move_start is not None:
        begun.append((game.mover, game.move_start))
    told = [p for p in play.driver.pulses if p.kind is MOVE]
    assert [p.seats for p in told] == [(seat,) for seat, _ in begun]
    for pulse, (_, start) in zip(told, begun, strict=True):
        # Told as soon as the move is known: a tap at its release, a hold after hold_s.
        assert start <= pulse.at <= start + 1.1
    for pulse in play.driver.pulses:
        if pulse.kind in (WARN, TIMEOUT):
            # The seat whose clock ran then: a hold ends the move at its press, but until it
            # is known (hold_s later) the clock runs on and may still warn that seat.
            assert any(m.seat == pulse.seats[0] and m.start <= pulse.at <= m.end + 1.0
                       for m in game.moves) or pulse.seats == (game.mover,)  # fmt: skip
