"""The round's time at a table (000 o: "skończy się czas rundy"), as numbers: a table's round
ends its round time after its own start, plus the judge's extra time for it."""

from __future__ import annotations


def ends_ms(started_ms: int, round_time_s: int | None, extra_s: int) -> int | None:
    """When a table's round time runs out (ms on the clock ``started_ms`` is on); None
    without a round time."""
    if round_time_s is None:
        return None
    return started_ms + (round_time_s + extra_s) * 1000


def left_ms(ends: int | None, now_ms: int) -> int | None:
    """The time left at ``now_ms`` until ``ends``, never below 0; None without an end."""
    return None if ends is None else max(0, ends - now_ms)
