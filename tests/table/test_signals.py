"""Seat LEDs and the buzzer as functions of the game and the time."""

from __future__ import annotations

import pytest

from klik.core import game as g
from klik.table.hardware import signals
from tests.helpers.play import Play


def leds(play: Play, at: float, sounds: tuple[g.Sound, ...] = (), mode: str = "on") -> str:
    out = signals.outputs(play.game, at, sounds, mode)
    return "".join("●" if on else "○" for on in out.leds) + ("♪" if out.buzzer else "")


def test_before_the_start_the_seat_that_starts_the_clock_is_lit() -> None:
    assert leds(Play(), 0.0) == "○○○●"  # D taps to hand A the clock


def test_the_movers_led_is_lit_and_blinks_in_the_last_ten_seconds() -> None:
    play = Play(move_time_s=60).start(0.0)
    assert leds(play, 30.0) == "●○○○"
    blink = [leds(play, 50.0 + i * signals.FAST_S) for i in range(4)]
    assert blink == ["●○○○", "○○○○", "●○○○", "○○○○"]


def test_all_leds_blink_slowly_while_paused() -> None:
    play = Play().start(0.0).order("pause", 5.0)
    assert [leds(play, 6.0), leds(play, 7.0), leds(play, 8.0)] == ["●●●●", "○○○○", "●●●●"]


def test_in_scoring_the_seats_still_entering_are_lit() -> None:
    play = Play().start(0.0).order("end", 5.0)
    play.double("B", 10.0)
    assert leds(play, 11.0) == "●○●●"


@pytest.mark.parametrize(
    ("mode", "warn", "timeout"),
    [
        ("on", True, True),  # everything sounds
        ("quiet", False, True),  # the warning is left to the blinking LED
        ("off", False, False),  # silent
    ],
)
def test_sound_settings(mode: str, warn: bool, timeout: bool) -> None:
    play = Play()
    sounds = (g.Sound(10.0, g.SoundKind.WARN), g.Sound(20.0, g.SoundKind.TIMEOUT))
    assert signals.outputs(play.game, 10.05, sounds, mode).buzzer is warn
    assert signals.outputs(play.game, 21.0, sounds, mode).buzzer is timeout
    assert signals.outputs(play.game, 30.0, sounds, mode).buzzer is False


def test_the_judge_chime_is_three_beeps() -> None:
    sounds = (g.Sound(0.0, g.SoundKind.JUDGE),)
    game = Play().game
    edges = []
    now = -1.0
    while (nxt := signals.next_change(game, now, sounds, "on")) is not None:
        edges.append((round(nxt, 3), signals.outputs(game, nxt, sounds, "on").buzzer))
        now = nxt
    assert edges == [
        (0.0, True),
        (0.1, False),
        (0.2, True),
        (0.3, False),
        (0.4, True),
        (0.7, False),
    ]
    assert signals.still_sounding(sounds, 0.7) == ()


def test_next_change_names_every_blink_edge() -> None:
    play = Play(move_time_s=60).start(0.0)
    assert signals.next_change(play.game, 30.0, (), "on") == 50.0  # the blinking starts
    assert signals.next_change(play.game, 50.1, (), "on") == 50.25
