"""What a link gives the courier back: the hub's ack (``klik.link.protocol.Ack``), or
``LinkDown`` when no answer came at all.

Both links (``http``, ``serial``) raise it, and the shared serial channel (``channel``) too;
the hub's serial end catches ``LinkDown`` from the channel as well.
"""

from __future__ import annotations

from klik.errors import KlikError


class LinkDown(KlikError, ConnectionError):  # noqa: N818 (it names a state, as the courier reads it)
    """The hub could not be reached; ``str()`` says why in one line. ``certificate``: the
    hub showed a certificate this table does not trust (not its pin): no retry mends that."""

    def __init__(self, message: str, *, certificate: bool = False) -> None:
        super().__init__(message)
        self.certificate = certificate
