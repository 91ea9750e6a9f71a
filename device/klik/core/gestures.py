"""Seat-button gestures from raw edges: tap, hold, double tap, long holds, stuck.

Theory of operation
-------------------
A button reports raw edges (pressed / released, each with its monotonic timestamp). Contacts
bounce, so an edge starts a *burst*; the burst settles once no edge has come for
``debounce_ms`` (or, in a storm of edges, ``storm_s`` after it began) and the button takes the
level of its last edge. A settled change is dated to the burst's first edge: the player
pressed when the contact first closed, not when it stopped bouncing.

Gestures, each dated with ``at``:

* ``Pressed`` — a press began (``at`` = the press). The engine uses it to stop the move
  clock at the press while the gesture is still being recognised.
* ``Tap`` — released before ``hold_s`` (``at`` = the press).
* ``DoubleTap`` — a second tap whose press came within ``double_s`` of the first tap's press;
  emitted instead of a second ``Tap`` (``at`` = second press, ``first_at`` = first press).
* ``Held`` — the press is still down at one of the press's marks: ``hold_s`` (HOLD),
  ``call_judge_s`` (JUDGE), ``long_hold_s`` (LONG) and every ``repeat_s`` after ``hold_s``
  (REPEAT). Marks that fall on the same moment come as one ``Held``. A press that began
  within ``double_s`` of a tap's press (a tap, then a hold: "klik, trzymaj") says so in
  ``after_tap``, the tap's press.
* ``Stuck`` — still down after ``stuck_s``: reported once, then the press is ignored until
  the button is released.

What a gesture *means* (end a move, call the judge, add 10 points) is the engine's business.

The judge key is simpler: no debounce, no marks, no double taps; its raw edges come from
``klik.table.hardware.gpio``. A press let go before ``long_hold_s`` is a ``JudgeTap``, one held for
``long_hold_s`` or more a ``JudgeHold``; both are known only at the release and dated with
it (``judge_edge``).

Everything here is a pure function of the events given; nothing reads a clock. Work that
is due at a moment (a burst settling, a mark) is an *item* with the time it takes effect
(``effective``) and the time it can be decided (``decided``); ``klik.core.tabletop`` takes
the items of all buttons and the engine in the order they take effect.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import lru_cache

from klik.core.limits import GESTURES, refuse_outside
from klik.errors import InputError

INFINITY = float("inf")


@dataclass(frozen=True, slots=True)
class GestureSettings:
    """Timings of the seat buttons; seconds unless the name says otherwise."""

    hold_s: float = 1.0
    double_s: float = 0.4
    call_judge_s: float = 2.0
    long_hold_s: float = 3.0
    repeat_s: float = 0.5
    debounce_ms: float = 30.0
    stuck_s: float = 10.0
    storm_s: float = 0.25

    def check(self, name: Callable[[str], str] = lambda key: key) -> None:
        """Raise InputError naming the first setting outside its range (``klik.core.limits``)
        or that cannot work with the others. ``name`` says a setting as the caller's user
        knows it: ``[buttons] hold_s`` in a config file, plain ``hold_s`` in a game script.
        """
        for key, allowed in GESTURES.items():
            refuse_outside(name(key), getattr(self, key), allowed)
        # The ranges already keep debounce_ms below hold_s and hold_s below stuck_s.
        if not self.double_s < self.hold_s:
            raise InputError(
                f"{name('double_s')} must be below {name('hold_s')} ({self.hold_s}), "
                f"got {self.double_s}"
            )
        for key in ("call_judge_s", "long_hold_s"):
            if not self.hold_s <= getattr(self, key) < self.stuck_s:
                raise InputError(
                    f"{name(key)} must be from {name('hold_s')} ({self.hold_s}) to below "
                    f"{name('stuck_s')} ({self.stuck_s}), got {getattr(self, key)}"
                )
        if not self.storm_s * 1000 > self.debounce_ms:
            # Otherwise every burst would settle at storm_s, mid-bounce: no debounce at all.
            raise InputError(
                f"{name('storm_s')} must be above {name('debounce_ms')} "
                f"({self.debounce_ms} ms), got {self.storm_s}"
            )


class Mark(Enum):
    HOLD = "hold"
    REPEAT = "repeat"
    JUDGE = "judge"
    LONG = "long"


@dataclass(frozen=True, slots=True)
class Pressed:
    seat: str
    at: float


@dataclass(frozen=True, slots=True)
class Tap:
    seat: str
    at: float
    #: When the button was let go (the release's burst); None for a press made a tap by the
    #: engine. Not part of equality: a tap is its seat and its press.
    released_at: float | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class DoubleTap:
    seat: str
    at: float
    first_at: float


@dataclass(frozen=True, slots=True)
class Held:
    seat: str
    at: float
    pressed_at: float
    marks: frozenset[Mark]
    after_tap: float | None = None  # the press of a tap this press followed within double_s


@dataclass(frozen=True, slots=True)
class Stuck:
    seat: str
    at: float
    pressed_at: float


Gesture = Pressed | Tap | DoubleTap | Held | Stuck


@dataclass(frozen=True, slots=True)
class Button:
    """One button's debounced state. Times are monotonic seconds."""

    seat: str
    down: bool = False  # the settled level
    raw_down: bool = False  # the level of the last raw edge
    raw_at: float = -INFINITY  # when the last raw edge came
    burst_at: float | None = None  # first edge of a burst not yet settled
    pressed_at: float | None = None  # start of the current press, while down
    marks_done: int = 0  # marks of the current press already given
    last_tap_at: float | None = None  # press of the last single tap, for double taps


@lru_cache(maxsize=16)
def schedule(settings: GestureSettings) -> tuple[tuple[float, frozenset[Mark]], ...]:
    """The marks of one press, as (seconds after the press, marks), ending with stuck_s."""
    offsets: dict[float, set[Mark]] = {}

    def add(offset: float, mark: Mark) -> None:
        # Round so that 1.0 + 2 * 0.5 and 2.0 are one moment, whatever the float error.
        offsets.setdefault(round(offset, 6), set()).add(mark)

    add(settings.hold_s, Mark.HOLD)
    add(settings.call_judge_s, Mark.JUDGE)
    add(settings.long_hold_s, Mark.LONG)
    n = 1
    while settings.hold_s + n * settings.repeat_s < settings.stuck_s:
        add(settings.hold_s + n * settings.repeat_s, Mark.REPEAT)
        n += 1
    marks = tuple(sorted((o, frozenset(m)) for o, m in offsets.items() if o < settings.stuck_s))
    return (*marks, (settings.stuck_s, frozenset()))


def edge(button: Button, pressed: bool, at: float) -> Button:
    """A raw edge. A repeated edge of the level already reported is a no-op."""
    if pressed == button.raw_down:
        return button
    b = button
    burst_at = at if b.burst_at is None else b.burst_at
    # Built directly rather than with replace(): this is the hottest line of the table.
    return Button(b.seat, b.down, pressed, at, burst_at, b.pressed_at, b.marks_done, b.last_tap_at)


@dataclass(frozen=True, slots=True)
class Item:
    """Work due on one button: it takes effect at ``effective``, can be decided at ``decided``."""

    effective: float
    decided: float


def next_item(button: Button, settings: GestureSettings) -> Item | None:
    """The button's next piece of work, or None while it has nothing pending."""
    if button.burst_at is not None:
        settle = min(
            button.raw_at + settings.debounce_ms / 1000, button.burst_at + settings.storm_s
        )
        return Item(button.burst_at, settle)
    if button.down and button.pressed_at is not None:
        marks = schedule(settings)
        if button.marks_done < len(marks):
            when = button.pressed_at + marks[button.marks_done][0]
            return Item(when, when)
    return None


def process(button: Button, settings: GestureSettings) -> tuple[Button, Gesture | None]:
    """Do the button's next item (the caller has checked it is due)."""
    if button.burst_at is not None:
        return _settle(button, settings)
    pressed_at = button.pressed_at
    assert pressed_at is not None
    offset, mark_set = schedule(settings)[button.marks_done]
    at = pressed_at + offset
    button = replace(button, marks_done=button.marks_done + 1)
    if not mark_set:
        return button, Stuck(button.seat, at, pressed_at)
    tap = button.last_tap_at
    after_tap = tap if tap is not None and pressed_at - tap <= settings.double_s else None
    return button, Held(button.seat, at, pressed_at, mark_set, after_tap)


def _settle(button: Button, settings: GestureSettings) -> tuple[Button, Gesture | None]:
    at = button.burst_at
    assert at is not None
    b = button
    if b.raw_down == b.down:
        # Bounce that came back to where it was: no press, no release.
        return Button(b.seat, b.down, b.raw_down, b.raw_at, None, b.pressed_at, b.marks_done,
                      b.last_tap_at), None  # fmt: skip
    if b.raw_down:
        settled = Button(b.seat, True, True, b.raw_at, None, at, 0, b.last_tap_at)
        return settled, Pressed(b.seat, at)
    pressed_at = b.pressed_at if b.pressed_at is not None else at
    if b.marks_done > 0:
        # Held (or stuck): the marks already said what this press meant.
        return Button(b.seat, False, False, b.raw_at, None, None, 0, b.last_tap_at), None
    first = b.last_tap_at
    if first is not None and pressed_at - first <= settings.double_s:
        released = Button(b.seat, False, False, b.raw_at, None, None, 0, None)
        return released, DoubleTap(b.seat, pressed_at, first)
    released = Button(b.seat, False, False, b.raw_at, None, None, 0, pressed_at)
    return released, Tap(b.seat, pressed_at, at)


# --- the judge key ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JudgeKey:
    """The judge key's state: when the press that is down now began (None while it is up)."""

    pressed_at: float | None = None


@dataclass(frozen=True, slots=True)
class JudgeTap:
    """The judge key let go before ``long_hold_s``: start, pause, resume or the next game."""

    at: float  # the release, when the tap is known
    pressed_at: float


@dataclass(frozen=True, slots=True)
class JudgeHold:
    """The judge key let go after ``long_hold_s`` or more: take the last hand-over back."""

    at: float  # the release, when the hold is known
    pressed_at: float


JudgeGesture = JudgeTap | JudgeHold


def judge_edge(
    key: JudgeKey, pressed: bool, at: float, settings: GestureSettings
) -> tuple[JudgeKey, JudgeGesture | None]:
    """One edge of the judge key at ``at`` (seconds); the table's session calls it for each.

    A press (even a second one without a release between) starts the press anew; a release
    with no press before it (the key was down when the table started) means nothing.
    """
    if pressed:
        return JudgeKey(at), None
    if key.pressed_at is None:
        return key, None
    held = at - key.pressed_at
    gesture = JudgeHold if held >= settings.long_hold_s else JudgeTap
    return JudgeKey(), gesture(at, key.pressed_at)
