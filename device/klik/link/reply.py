"""What a link gives the courier back: the hub's ``Reply``, or ``LinkDown`` when none came.

Both links (``http``, ``serial``) and the shared serial channel (``channel``) use them; the
hub's serial end catches ``LinkDown`` from the channel too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from klik.errors import KlikError


class LinkDown(KlikError, ConnectionError):  # noqa: N818 (it names a state, as the courier reads it)
    """The hub could not be reached; ``str()`` says why in one line. ``certificate``: the
    hub showed a certificate this table does not trust (not its pin): no retry mends that."""

    def __init__(self, message: str, *, certificate: bool = False) -> None:
        super().__init__(message)
        self.certificate = certificate


@dataclass(frozen=True, slots=True)
class Reply:
    """The hub's answer: its HTTP status and its JSON object ({} if it sent none)."""

    status: int
    body: dict[str, Any]
    # The answer's first line as text, for the log (HTML from a proxy); not part of what
    # the answer says, so two replies with the same status and body are equal.
    first_line: str = field(default="", compare=False)
