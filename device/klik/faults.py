"""Kill points: where the crash tests cut the power in windows too narrow to hit by chance.

``KLIK_KILL_AT=name[,name…]`` in the environment makes the process kill itself with SIGKILL
(nothing tidied, nothing flushed: as a power cut leaves the card) the moment it reaches
``kill_point(name)``. Without that variable a kill point does nothing. Read once, at import:
a table in the hall never has it set, and a test sets it only for the one process it kills.
"""

from __future__ import annotations

import os
import signal

ENV = "KLIK_KILL_AT"
_AT = frozenset(name for name in os.environ.get(ENV, "").split(",") if name)


def kill_point(name: str) -> None:
    """Die here, as a power cut would, if ``name`` is in ``KLIK_KILL_AT``."""
    if name in _AT:
        os.kill(os.getpid(), signal.SIGKILL)
