"""Game scripts: a whole game as timed button presses, for ``klik replay`` and the tests.

One event a line; ``#`` starts a comment::

    set seats=4 starter=A move_time_s=60     # settings, before the first event
    0.0  D tap                               # T WHO ACTION [ARG]
    12.5 A hold
    30   judge pause
    95   end                                 # advance the clock to 95 s and stop

``WHO`` is a seat letter, ``judge`` or ``hub``. Seat actions expand into raw edges: ``down``,
``up``, ``tap`` (down, up 0.1 s later), ``hold`` (down, up 1.5 s later), ``double`` (a tap
and another 0.2 s later), ``rack N`` (the scoring gestures that enter N and confirm it).
Judge and hub actions: start, pause, resume, restart, undo, round-over, end.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final, TypeVar

from klik.core.game import SEAT_LETTERS, SEATS, Action, Order, Settings, TimeoutMode
from klik.core.gestures import GestureSettings
from klik.core.tabletop import Edge
from klik.errors import InputError
from klik.rules import RULE_SETS
from klik.validate import Choice, Voice, check, known

TAP_S: Final = 0.1
HOLD_S: Final = 1.5
DOUBLE_GAP_S: Final = 0.2
SEAT_ACTIONS: Final = ("down", "up", "tap", "hold", "double", "rack")
ORDER_ACTIONS: Final = tuple(a.value for a in Action)
GESTURE_KEYS: Final = ("hold_s", "double_s", "call_judge_s", "long_hold_s", "debounce_ms")
GAME_KEYS: Final = ("move_time_s", "penalty_tiles", "warn_s")
SETTING_KEYS: Final = ("seats", "starter", "rules", "timeout", *GAME_KEYS, *GESTURE_KEYS)
MAX_T: Final = 7 * 24 * 3600.0
N = TypeVar("N", int, float)
#: How a script's words are refused (``line N:`` is put before by ``parse``): words quoted.
VOICE: Final = Voice(
    lambda at, line: InputError(line),
    wrong="{at} must be {allowed}, got {value}",
    choice="{at} must be one of {allowed}, got {value}{hint}",
    unknown="unknown setting {value}{hint}",
    word=repr,
)
#: A judge's, the hub's or a seat's action that is not one, or takes no argument.
NOT_AN_ACTION: Final = "{value} is not a {at} action{hint}; allowed: {allowed}"


@dataclass(frozen=True, slots=True)
class Script:
    settings: Settings
    events: tuple[Edge | Order, ...]  # in time order
    end: float  # the moment the replay stops


def parse(text: str) -> Script:
    """Parse a script. Raises InputError naming the line for anything not allowed."""
    settings = Settings()
    gestures = GestureSettings()
    timed: list[tuple[float, int, Edge | Order]] = []
    last_t = 0.0
    end: float | None = None
    started = False
    set_line = 0  # settings are checked together, and blamed on the last 'set' line
    for number, raw in enumerate(text.splitlines(), start=1):
        tokens = raw.split("#", 1)[0].split()
        if not tokens:
            continue
        try:
            if end is not None:
                raise InputError("nothing may follow 'T end'")
            if tokens[0] == "set":
                if started:
                    raise InputError("'set' must come before the first event")
                settings, gestures = _set(settings, gestures, tokens[1:])
                set_line = number
                continue
            if not started:
                settings = _checked(settings, gestures, set_line)
                started = True
            t = _time(tokens[0], last_t)
            last_t = t
            if tokens[1:] == ["end"]:
                end = t
                continue
            for offset, event in _event(settings, t, tokens[1:]):
                timed.append((offset, len(timed), event))
        except InputError as error:
            message = str(error)
            raise InputError(
                message if message.startswith("line ") else f"line {number}: {message}"
            ) from None
    if not started:
        settings = _checked(settings, gestures, set_line)
    timed.sort(key=lambda item: (item[0], item[1]))
    events = tuple(event for _, _, event in timed)
    last = max((item[0] for item in timed), default=0.0)
    if end is None:
        # Stop once the last press has settled, so its gesture counts.
        end = last + settings.gestures.debounce_ms / 1000
    return Script(settings, events, max(end, last))


def _checked(settings: Settings, gestures: GestureSettings, line: int) -> Settings:
    settings = replace(settings, gestures=gestures)
    try:
        settings.check()
    except InputError as error:
        raise InputError(f"line {line}: {error}") from None
    return settings


def _set(
    settings: Settings, gestures: GestureSettings, pairs: list[str]
) -> tuple[Settings, GestureSettings]:
    if not pairs:
        raise InputError(f"'set' needs key=value pairs; keys: {', '.join(SETTING_KEYS)}")
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not value:
            raise InputError(f"expected key=value, got {pair!r}")
        if key == "seats":
            count = _number(key, value, int) if value.isdigit() else len(value)
            if not 2 <= count <= 4 or (not value.isdigit() and value != SEAT_LETTERS[:count]):
                raise InputError(
                    f"seats must be 2 to 4 (or the letters AB, ABC, ABCD), got {value}"
                )
            settings = replace(settings, seats=SEATS[:count])
        elif key == "starter":
            settings = replace(settings, starter=value)
        elif key == "rules":
            rules = check(value, Choice(RULE_SETS), VOICE, key)
            settings = replace(settings, rules=RULE_SETS[rules])
        elif key == "timeout":
            modes = Choice(sorted(m.value for m in TimeoutMode))
            settings = replace(settings, timeout=TimeoutMode(check(value, modes, VOICE, key)))
        elif key == "penalty_tiles":
            settings = replace(settings, penalty_tiles=_number(key, value, int))
        elif key == "move_time_s":
            settings = replace(settings, move_time_s=_number(key, value, float))
        elif key == "warn_s":
            settings = replace(settings, warn_s=_number(key, value, float))
        elif key in GESTURE_KEYS:
            gestures = replace(gestures, **{key: _number(key, value, float)})
        else:
            known([key], SETTING_KEYS, VOICE)
    return settings, gestures


def _event(settings: Settings, t: float, tokens: list[str]) -> Iterable[tuple[float, Edge | Order]]:
    if len(tokens) < 2:
        raise InputError("expected 'T WHO ACTION [ARG]' or 'T end'")
    who, action, *args = tokens
    if who in ("judge", "hub"):
        orders = Choice(ORDER_ACTIONS)
        if args or not orders.allows(action):  # an order with an argument is no order
            hint = VOICE.hint(action, ORDER_ACTIONS)
            raise VOICE.refuse(NOT_AN_ACTION, who, value=action, allowed=orders, hint=hint)
        return [(t, Order(Action(action), t, who))]
    anyone = Choice((*settings.seats, "judge", "hub"))
    check(who, anyone, VOICE, "who", says="{value} is not at this table; allowed: {allowed}")
    check(action, Choice(SEAT_ACTIONS), VOICE, "seat", says=NOT_AN_ACTION)
    if action == "rack":
        if len(args) != 1 or not args[0].isdigit() or int(args[0]) > 999:
            raise InputError(f"'rack' needs a whole number from 0 to 999, got {' '.join(args)!r}")
        return _presses(who, t, rack_presses(settings.gestures, int(args[0])))
    if args:
        raise InputError(f"{action!r} takes no argument, got {' '.join(args)!r}")
    if action in ("down", "up"):
        return [(t, Edge(who, action == "down", t))]
    presses = {"tap": [(0.0, TAP_S)], "hold": [(0.0, HOLD_S)]}.get(action)
    return _presses(who, t, presses or [(0.0, TAP_S), (DOUBLE_GAP_S, TAP_S)])


def rack_presses(settings: GestureSettings, points: int) -> list[tuple[float, float]]:
    """(start, length) of the presses that enter ``points`` and confirm them.

    Holds add the tens (+10 at hold_s, then +10 every repeat_s), single taps the ones,
    spaced so that no two make a double tap; a double tap confirms.
    """
    presses: list[tuple[float, float]] = []
    t = 0.0
    tens, ones = divmod(points, 10)
    per_hold = int((settings.stuck_s - settings.hold_s) / settings.repeat_s)  # below stuck_s
    while tens:
        n = min(tens, per_hold)
        length = settings.hold_s + (n - 1 + 0.5) * settings.repeat_s
        presses.append((t, length))
        t += length + settings.double_s + TAP_S
        tens -= n
    for _ in range(ones):
        presses.append((t, TAP_S))
        t += settings.double_s + TAP_S
    presses += [(t, TAP_S), (t + DOUBLE_GAP_S, TAP_S)]
    return presses


def _presses(
    seat: str, t: float, presses: list[tuple[float, float]]
) -> list[tuple[float, Edge | Order]]:
    edges: list[tuple[float, Edge | Order]] = []
    for start, length in presses:
        edges.append((t + start, Edge(seat, True, t + start)))
        edges.append((t + start + length, Edge(seat, False, t + start + length)))
    return edges


def _time(word: str, last: float) -> float:
    try:
        t = float(word)
    except ValueError:
        raise InputError(f"expected a time in seconds first, got {word!r}") from None
    if not 0 <= t <= MAX_T:
        raise InputError(f"time must be from 0 to {MAX_T:.0f} s, got {word}")
    if t < last:
        raise InputError(f"time {word} is before the previous event's {last:g}")
    return t


def _number(key: str, value: str, kind: type[N]) -> N:
    """``value``, a word of the script, read as a number of ``kind``."""
    what = "a whole number" if kind is int else "a number"
    try:
        number = kind(value)
    except ValueError:
        raise VOICE.refuse(VOICE.wrong, key, value=value, allowed=what) from None
    if not math.isfinite(number):
        raise VOICE.refuse(VOICE.wrong, key, value=value, allowed="a finite number")
    return number
