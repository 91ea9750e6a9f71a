"""The seat LEDs and the buzzer as pure functions of the game and the time.

The engine thread sets every output from ``outputs(...)`` and sleeps until ``next_change``;
nothing blinks on a thread of its own, so all LEDs blink in step and tests move time by
passing numbers.

LEDs: the mover's is lit, blinking fast in the last ``warn_s``; all blink slowly while paused;
a timed-out seat's blinks fast until it hands over; in scoring, seats that have not confirmed
are lit. Buzzer: a pattern per sound, started at the sound's moment. Vibration motors (the
seats fitted with one, issue 40): a pattern per pulse (``klik.core.haptics``), on the seats the
pulse is for, so a seat that cannot hear the buzzer or see its LED feels every moment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from klik.core import game as g
from klik.core.haptics import Pulse, PulseKind

FAST_S = 0.25  # half-period of the warning blink
SLOW_S = 1.0  # half-period of the paused blink

#: Buzzer patterns: (start, length) in seconds from the sound's moment.
PATTERNS: dict[g.SoundKind, tuple[tuple[float, float], ...]] = {
    g.SoundKind.WARN: ((0.0, 0.12),),  # one short beep
    g.SoundKind.TIMEOUT: ((0.0, 1.2),),  # one long beep
    g.SoundKind.JUDGE: ((0.0, 0.1), (0.2, 0.1), (0.4, 0.3)),  # a chime: short, short, long
    g.SoundKind.END: ((0.0, 0.15), (0.3, 0.6)),
}
SHORT_S = 0.15  # a short pulse: felt, not mistaken for the long one
#: Vibration patterns: (start, length) in seconds from the pulse's moment; a gap as long as a
#: short pulse keeps the shorts apart to the touch.
PULSES: dict[PulseKind, tuple[tuple[float, float], ...]] = {
    PulseKind.YOUR_MOVE: ((0.0, SHORT_S),),  # one short
    PulseKind.WARN: ((0.0, SHORT_S), (0.3, SHORT_S), (0.6, SHORT_S)),  # three short
    PulseKind.TIMEOUT: ((0.0, 0.8),),  # one long, once
    PulseKind.JUDGE: ((0.0, SHORT_S), (0.3, SHORT_S)),  # two short
    PulseKind.COUNT: ((0.0, SHORT_S), (0.3, SHORT_S)),  # two short
}
#: What each sound setting lets through: "quiet" leaves the warning to the LEDs.
AUDIBLE: dict[str, frozenset[g.SoundKind]] = {
    "on": frozenset(g.SoundKind),
    "quiet": frozenset({g.SoundKind.TIMEOUT, g.SoundKind.JUDGE, g.SoundKind.END}),
    "off": frozenset(),
}


@dataclass(frozen=True, slots=True)
class Outputs:
    leds: tuple[bool, ...]  # in seat order
    buzzer: bool
    vibration: tuple[bool, ...] = ()  # in seat order: each seat's motor (off where none)


def outputs(
    game: g.Game,
    now: float,
    sounds: tuple[g.Sound, ...],
    mode: str,
    pulses: tuple[Pulse, ...] = (),
    *,
    felt: frozenset[str] = frozenset(),
) -> Outputs:
    """Every output at ``now``; ``sounds`` are the recent sound effects and ``pulses`` the
    recent pulses, oldest first; ``felt``: the seats whose motors pulse."""
    seats = game.settings.seats
    return Outputs(
        tuple(_led(game, seat, now) for seat in seats),
        _buzzing(sounds, now, mode),
        tuple(seat in felt and _vibrating(pulses, seat, now) for seat in seats),
    )


def next_change(
    game: g.Game,
    now: float,
    sounds: tuple[g.Sound, ...],
    mode: str,
    pulses: tuple[Pulse, ...] = (),
) -> float | None:
    """The next moment any output may change by itself (blink edge, pattern edge), or None."""
    due: list[float] = []
    for pulse in pulses:
        for start, length in PULSES[pulse.kind]:
            due += [e for e in (pulse.at + start, pulse.at + start + length) if e > now]
    blink = _blink_half(game, now)
    if blink is not None:
        due.append((math.floor(now / blink) + 1) * blink)
    if game.phase is g.Phase.MOVE and game.deadline is not None:
        warn_from = game.deadline - game.settings.warn_s
        if now < warn_from:
            due.append(warn_from)
    for sound in sounds:
        if sound.kind not in AUDIBLE[mode]:
            continue
        for start, length in PATTERNS[sound.kind]:
            for edge in (sound.at + start, sound.at + start + length):
                if edge > now:
                    due.append(edge)
    return min(due) if due else None


def _blink_half(game: g.Game, now: float) -> float | None:
    if game.phase is g.Phase.PAUSED:
        return SLOW_S
    if game.phase is g.Phase.TIMED_OUT:
        return FAST_S
    if game.phase is g.Phase.MOVE:
        left = game.time_left(now)
        if left is not None and left <= game.settings.warn_s:
            return FAST_S
    return None


def _led(game: g.Game, seat: str, now: float) -> bool:
    phase = game.phase
    if phase is g.Phase.PAUSED:
        return _blink_on(now, SLOW_S)
    if phase in (g.Phase.MOVE, g.Phase.TIMED_OUT):
        if seat != game.mover:
            return False
        half = _blink_half(game, now)
        return True if half is None else _blink_on(now, half)
    if phase is g.Phase.READY:
        return seat == g.opener_of(game.settings.seats, game.settings.starter)
    if phase is g.Phase.SCORING:
        return seat not in game.confirmed
    return False


def _blink_on(now: float, half: float) -> bool:
    return math.floor(now / half) % 2 == 0


def _buzzing(sounds: tuple[g.Sound, ...], now: float, mode: str) -> bool:
    audible = AUDIBLE[mode]
    return any(
        sound.at + start <= now < sound.at + start + length
        for sound in sounds
        if sound.kind in audible
        for start, length in PATTERNS[sound.kind]
    )


def _vibrating(pulses: tuple[Pulse, ...], seat: str, now: float) -> bool:
    return any(
        pulse.at + start <= now < pulse.at + start + length
        for pulse in pulses
        if seat in pulse.seats
        for start, length in PULSES[pulse.kind]
    )


def still_pulsing(pulses: tuple[Pulse, ...], now: float) -> tuple[Pulse, ...]:
    """The pulses whose pattern has not finished by ``now`` (the shell keeps only these)."""
    return tuple(
        p for p in pulses if now < p.at + max(start + length for start, length in PULSES[p.kind])
    )


def still_sounding(sounds: tuple[g.Sound, ...], now: float) -> tuple[g.Sound, ...]:
    """The sounds whose pattern has not finished by ``now`` (the shell keeps only these)."""
    return tuple(
        s for s in sounds if now < s.at + max(start + length for start, length in PATTERNS[s.kind])
    )
