"""What each game and button setting may be, shared by the engine's checks and the config.

A setting outside its range does not just play badly, it breaks play: ``storm_s = 0`` turns
one bouncing press into a tap and a double tap, ``repeat_s = 1e-9`` keeps the engine busy
for ever, NaN passes no comparison at all. ``Settings.check`` and ``GestureSettings.check``
refuse such values for game scripts; ``klik.table.config`` refuses them in a table's config, in
the same words: ``storm_s = 0.0: allowed are 0.05 to 1 s``.
"""

from __future__ import annotations

from dataclasses import dataclass

from klik.errors import InputError


@dataclass(frozen=True, slots=True)
class Range:
    """``lo`` to ``hi``, both allowed, in ``unit``; ``also`` are lone values allowed besides."""

    lo: float
    hi: float
    unit: str = ""  # "s", "ms", "tiles": said after the range
    also: tuple[int, ...] = ()  # e.g. 0 for "no mux" below the mux addresses
    hex: bool = False  # I2C addresses are said in hex, as the datasheets give them
    label: str = ""  # said before the range: "GPIO "

    def allows(self, value: float) -> bool:
        # Written as "lo <= value <= hi", never as "value < lo": NaN fails every comparison.
        return value in self.also or self.lo <= value <= self.hi

    def shown(self, value: float) -> str:
        """The value as a message shows it: as read, or in hex for an address."""
        if self.hex and isinstance(value, int) and value > 0:
            return f"0x{value:02X}"
        return repr(value)

    def _end(self, value: float) -> str:
        return f"0x{int(value):02X}" if self.hex and value > 0 else f"{value:g}"

    def __str__(self) -> str:
        span = f"{self.label}{self._end(self.lo)} to {self._end(self.hi)}"
        unit = f" {self.unit}" if self.unit else ""
        return " or ".join([*(self._end(v) for v in self.also), span]) + unit


def refuse_outside(name: str, value: float, allowed: Range) -> None:
    """Raise InputError ``name = value: allowed are lo to hi unit`` unless ``value`` fits."""
    if not allowed.allows(value):
        raise InputError(f"{name} = {allowed.shown(value)}: allowed are {allowed}")


#: ``klik.core.game.Settings``: one game's clock and penalties.
GAME: dict[str, Range] = {
    "move_time_s": Range(5, 600, "s"),  # from a blitz to a long think; every move gets it
    "penalty_tiles": Range(0, 3, "tiles"),  # 0: no penalty draw
    "penalty_window_s": Range(1, 30, "s"),  # "auto": the timed-out seat's time to hold
    "warn_s": Range(0, 600, "s"),  # 0: no warning; and always below move_time_s
}

#: ``klik.core.gestures.GestureSettings``: the seat buttons' timings. Besides these ranges:
#: double_s < hold_s <= call_judge_s, long_hold_s < stuck_s, and storm_s > debounce_ms.
GESTURES: dict[str, Range] = {
    "hold_s": Range(0.3, 3, "s"),  # shorter is a tap held a little long
    "double_s": Range(0.1, 1, "s"),
    "call_judge_s": Range(0.3, 10, "s"),
    "long_hold_s": Range(0.3, 10, "s"),
    "repeat_s": Range(0.1, 2, "s"),  # the count's +10 steps; shorter floods the engine
    "debounce_ms": Range(0, 100, "ms"),  # 0: the contacts do not bounce (the virtual table)
    "stuck_s": Range(5, 120, "s"),
    "storm_s": Range(0.05, 1, "s"),  # a storm of edges settles within this
}
