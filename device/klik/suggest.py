"""The one "did you mean" of every message that refuses a word: a pure function, no I/O.

The table's config, game scripts, score sheets and the hub's tournament formats all name the
word they could not use and, when one of the allowed words is close to it (a typo), that
word: ``klik.validate`` asks it for them all (``Voice.hint``). Each message puts the hint
where its own sentence wants it::

    table.toml: unknown key [game] move_tme_s (did you mean move_time_s?)
    line 1: 'hodl' is not a seat action (did you mean 'hold'?); allowed: down, up, tap, ...
    liga.toml: rule is unknown: did you mean rules? allowed are name, title_pl, ...
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable

#: How alike two words must be (difflib's ratio, 0 to 1) for one to be offered for the other:
#: difflib's own default, which catches a letter left out, doubled or swapped.
CLOSE = 0.6


def did_you_mean(word: str, allowed: Iterable[str], show: Callable[[str], str] = str) -> str:
    """``"did you mean X?"`` for the allowed word closest to ``word``, or ``""`` if none is close.

    ``show`` writes the word as the caller's messages write words: ``repr`` quotes it
    (``'hold'``), ``str`` leaves it bare (``move_time_s``).
    """
    close = difflib.get_close_matches(word, list(allowed), n=1, cutoff=CLOSE)
    return f"did you mean {show(close[0])}?" if close else ""
