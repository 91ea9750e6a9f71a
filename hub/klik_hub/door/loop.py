"""The hub's event loop: uvloop's, as uvicorn's own choice, with a TLS handshake held to
``HANDSHAKE_S``.

asyncio and uvloop give a client 60 s to finish its TLS handshake, and uvicorn has no setting
for it: a client that connects and never sends its ClientHello would hold a file for a
minute, six times as long as ``klik.serving.Deadline`` gives a request once the handshake is
done. uvicorn takes a loop of one's own by name (its ``loop`` option,
``"klik_hub.door.loop:new_loop"``); this one's ``create_server``, which uvicorn calls once
to listen, passes the handshake's timeout. A handshake that times out is closed by the loop
without a word in the log (uvloop logs an OSError only in its debug mode).
"""

from __future__ import annotations

import asyncio
from typing import Any

import uvloop

from klik.serving import REQUEST_S

NAME = "klik_hub.door.loop:new_loop"  # uvicorn's ``loop`` option
HANDSHAKE_S = REQUEST_S  # a few round trips on a hall's Wi-Fi: as long as a request may take


class HallLoop(uvloop.Loop):
    """uvloop's loop, its TLS servers' handshakes held to ``HANDSHAKE_S`` unless told."""

    async def create_server(self, *args: Any, **kwargs: Any) -> Any:  # uvloop's Server
        # asyncio and uvloop refuse a handshake's timeout for a server without TLS
        if kwargs.get("ssl") is not None and kwargs.get("ssl_handshake_timeout") is None:
            kwargs["ssl_handshake_timeout"] = HANDSHAKE_S
        return await super().create_server(*args, **kwargs)


def new_loop() -> asyncio.AbstractEventLoop:
    """A new ``HallLoop``: uvicorn's loop factory."""
    return HallLoop()
