"""The hub's HTTP server: uvicorn, with a deadline for each request to arrive.

uvicorn drops an idle kept-alive connection after a few seconds but waits for ever on a
client that sends half a request. On a hall's Wi-Fi anyone can open a thousand such
connections and take every file the hub may open, so the tables' results and the console
fail. ``Deadline`` closes a connection whose request has not fully arrived within
``REQUEST_S`` of its first byte (or of the connection, for the first request): a table's
envelope arrives in milliseconds, the player list in well under a second.

A connection the hub ends (late, idle, or at a stop) is aborted, not closed: closing a TLS
connection waits up to 30 s for the client's goodbye, so a stop would wait for every idle
browser and a slow client would keep its file open.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

REQUEST_S = 10.0


class Deadline(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose request is late."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """At a stop: an idle connection goes at once; a request under way is finished."""
        if self.cycle is None or self.cycle.response_complete:
            self.transport.abort()
        else:
            self.cycle.keep_alive = False

    def timeout_keep_alive_handler(self) -> None:
        if not self.transport.is_closing():
            self.transport.abort()

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(REQUEST_S, self._late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.abort()
