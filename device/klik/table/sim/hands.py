"""Presses dated by the sender's clock: the virtual table's jitter buffer.

A press on the Pi is dated by its GPIO callback, microseconds after the finger. A press on
the virtual table comes over HTTP, and on a loaded machine one request can take far longer
than the next: dated on arrival, a double tap's 60 ms gap can grow past the 0.4 s window
(read as two single taps), or a 60 ms press sent in a burst with its release shrink under
the 30 ms debounce (not read at all). So a sender may say when each edge happened on its own
clock (``"at"``, seconds: the page's ``performance.timeOrigin + event.timeStamp``, a
script's ``time.time()``), and the table keeps the sender's spacing, as a voice call's
jitter buffer keeps a voice's:

- the line's delay (``table clock − at``: the two clocks' difference plus the travel) is
  taken from the first edge, then follows the quickest request down: at once at the start
  of a gesture (a press with no button held, after ``QUIET_S`` of quiet), else by at most
  ``SLEW`` of the sender's time between two edges, so a gesture's spacing changes by a
  tenth at most; it is taken afresh when no request has been that quick for ``BEST_S``;
- an edge is dated ``at + delay + LAG_S`` on the table clock and given to the pin at that
  moment: a request up to ``LAG_S`` slower than the delay keeps its exact spacing, a slower
  one is dated when it arrives (as without ``at``);
- no date is more than ``AHEAD_S`` after the request's arrival, and one table's dates never
  go backwards.

So a virtual table's press lags a real one's by ``LAG_S`` beyond the network's delay (up to
``AHEAD_S`` while the delay follows a quicker line).
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

LAG_S = 0.15  # the slack a request may take beyond the line's delay and keep its spacing
AHEAD_S = 0.5  # the most an edge is held back after its request arrived (a burst
# of a whole double tap, 0.25 s, after the slack)
SLEW = 0.1  # how fast the line's delay follows a quicker request, per second of the sender's
BEST_S = 30.0  # the line's delay is taken afresh when nothing was this quick for so long
QUIET_S = 0.5  # longer than a double tap's gap: a press after this begins a new gesture


@dataclass(order=True)
class _Due:
    at: float  # on the table clock
    seq: int
    drive: Callable[[float], None] = field(compare=False)


class Hands:
    """One table's dated presses, each given to its pin at its moment by one thread."""

    def __init__(self, clock: Callable[[], float], name: str = "klik-hands") -> None:
        self.clock = clock  # the table clock
        self._name = name
        self._due: list[_Due] = []
        self._seq = itertools.count()
        self._delay: float | None = None  # the line's delay, and when a request was as quick
        self._seen = 0.0
        self._sent = 0.0  # the latest edge's ``at``
        self._held: set[str] = set()  # the buttons pressed and not released, by the edges
        self._last = float("-inf")  # the latest date given
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    def date(self, at: float, *, key: str = "", pressed: bool = True) -> float:
        """The table-clock date of an edge of button ``key`` that happened at ``at`` on the
        sender's clock. A press with no button held and the sender quiet for ``QUIET_S``
        begins a gesture: nothing under way can be stretched or squeezed, so the line's
        delay then drops at once to a quicker request's."""
        now = self.clock()
        delay = now - at
        begins = pressed and not self._held and at - self._sent > QUIET_S
        if self._delay is None or now - self._seen > BEST_S or (begins and delay < self._delay):
            self._delay, self._seen = delay, now
        elif delay <= self._delay:
            step = SLEW * max(0.0, at - self._sent)
            self._delay, self._seen = max(delay, self._delay - step), now
        self._sent = at
        if pressed:
            self._held.add(key)
        else:
            self._held.discard(key)
        dated = max(min(at + self._delay + LAG_S, now + AHEAD_S), now, self._last)
        self._last = dated
        return dated

    def press(
        self, at: float, drive: Callable[[float], None], *, key: str = "", pressed: bool = True
    ) -> float:
        """Schedule ``drive(date)`` for the edge of button ``key`` (pressed or released) that
        happened at ``at`` (sender's clock); returns its date on the table clock."""
        with self._changed:
            if self._closed:
                raise RuntimeError("the table is closing")
            dated = self.date(at, key=key, pressed=pressed)
            heapq.heappush(self._due, _Due(dated, next(self._seq), drive))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._changed.notify()
        return dated

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._closed and (not self._due or self._due[0].at > self.clock()):
                    wait = None if not self._due else self._due[0].at - self.clock()
                    self._changed.wait(wait)
                if self._closed:
                    return
                due = heapq.heappop(self._due)
            due.drive(due.at)

    def close(self) -> None:
        """Stop; edges not yet given are dropped (the table is going away)."""
        with self._changed:
            self._closed = True
            self._changed.notify()
        if self._thread is not None:
            self._thread.join(timeout=2)
